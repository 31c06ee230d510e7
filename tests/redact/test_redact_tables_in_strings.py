"""A Markdown table inside a JSON string (docs/design.md, "Markdown tables"): a tool that
returns ``{"text": "| name | password |\\n|---|---|\\n| bob | S |"}`` showed ``S`` through
``redact_value``, ``shape()`` and ``redact_text``: tables were read only in a whole text, and
the header's names are written with no separator the trigger search looks for. Found by the
keyleak session's "Not yet" list; each case was red on the code before.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.generic import opaque

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"


def table(header: list[str], rows: list[list[str]], delimiter: str = "---") -> str:
    lines = [header, [delimiter] * len(header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines) + "\n"


def shown(value: Any, secret: str) -> list[str]:
    """The routes that show ``secret``."""
    body = json.dumps(value)
    routes = {
        "redact_value": json.dumps(redact_value(json.loads(body), body=body.encode()).value),
        "redact_value without body": json.dumps(redact_value(value).value),
        "shape": shape(body).text,
        "redact_text": redact_text(body).value,
        "redact_text in a log": redact_text(f"2026-12-05 tool result: {body}\n").value,
    }
    return [name for name, out in routes.items() if secret in out]


@pytest.mark.parametrize(
    "value",
    [
        {"text": table(["name", "password"], [["bob", S]])},
        {"text": "Users:\n\n" + table(["user", "api_key"], [["ada", S]], ":--")},
        {"content": [{"type": "text", "text": table(["Key", "Value"], [["password", S]])}]},
        {"text": table(["name", "password"], [["bob", S]]).replace("\n", "\r\n")},
    ],
)
def test_a_table_in_a_json_string_withholds_its_credential_cells(value: Any) -> None:
    assert shown(value, S) == []


def test_a_tree_listing_is_no_dense_run_of_tables() -> None:
    """A ``tree`` listing opens each line with ``|--`` or ``|---``: the delimiter row's
    trigger, had it been ``|-``, made each line one, and the listing was withheld whole as
    credential-dense (found in review of this fix)."""
    for branch in ("|-- ", "|--- ", "+--- "):
        listing = ".\n" + "".join(f"{branch}module_{i}.py\n|   {branch}t_{i}.py\n"
                                  for i in range(2000))
        assert redact_text(listing).withheld == ()
        body = json.dumps({"text": listing})
        assert redact_value(json.loads(body), body=body.encode()).withheld == ()


@pytest.mark.parametrize(
    "value",
    [
        {"text": table(["field", "type"], [["password", "string"]])},  # a schema
        {"text": table(["name", "password"], [["bob", "********"]])},
        {"text": "a | b\nc | d"},
    ],
)
def test_a_schema_or_a_masked_table_in_a_string_stays_shown(value: Any) -> None:
    body = json.dumps(value)
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()
    assert redact_text(body).withheld == ()


_CELL = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
_SECRET = st.text("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=20,
                  max_size=32).filter(lambda s: opaque(s) and len(set(s)) > 10)


@settings(max_examples=25, deadline=None)
@given(
    before=st.lists(_CELL, max_size=2),
    after=st.lists(_CELL, max_size=2),
    name=st.sampled_from(["password", "api_key", "client_secret", "DB_PASSWORD"]),
    secret=_SECRET,
    rows=st.integers(min_value=0, max_value=3),
    delimiter=st.sampled_from(["---", ":---", "---:", "------", ":-:"]),
)
def test_any_table_in_a_string_hides_its_secret_column(
    before: list[str], after: list[str], name: str, secret: str, rows: int, delimiter: str
) -> None:
    """Random columns around the credential's, random rows before its."""
    header = [*before, name, *after]
    filler = [["x"] * len(header) for _ in range(rows)]
    value = {"text": table(header, [*filler, [*before, secret, *after]], delimiter)}
    assert shown(value, secret) == []
