"""A tool result big enough to be cut, with a caveat written last and a credential in it."""

from __future__ import annotations

import json
from typing import Any

from elision.budget import Budget
from elision.pipeline import Pipeline
from elision.store.memory import MemoryStore

BUDGET = 2048
TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"


def search_result() -> dict[str, Any]:
    return {"rows": [{"id": i, "note": f"trade {i}"} for i in range(400)],
            "deploy_key": TOKEN,
            "warnings": ["searched 400 of 22,933 rows"]}


def pipeline() -> Pipeline:
    return Pipeline(budget=Budget(BUDGET), store=MemoryStore())


def check_shaped(text: str) -> dict[str, Any]:
    """The model's text: within budget, the caveat kept, the token withheld, a ref to fetch."""
    assert len(text.encode()) <= BUDGET
    assert TOKEN not in text and TOKEN[:16] not in text
    doc = json.loads(text)
    assert doc["warnings"] == ["searched 400 of 22,933 rows"]
    envelope = doc["__elision__"]
    assert envelope["complete"] is False and envelope["ref"].startswith("el_")
    return envelope
