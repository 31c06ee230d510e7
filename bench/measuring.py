"""What the bench drivers share: a measuring child's result, and the load beside a figure.

Each driver measures in a child process of its own (``python bench/X.py --child …``), so one
case's peak memory and imports never reach the next; the child prints its figures as one JSON
line, last.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any


def child_result(args: list[str], *, timeout: float) -> dict[str, Any]:
    """Run a measuring child; its last stdout line as JSON, or ``{"error": …}`` if it failed."""
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "died"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def load() -> str:
    """The 1, 5 and 15 minute load averages, as a figure's line shows them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
