"""docs/harnesses.md shows the budgets and limits the installer really uses."""

from __future__ import annotations

from pathlib import Path

from elision.install.harnesses import HARNESSES, limits_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "harnesses.md"


def test_the_documented_table_is_the_installers_table() -> None:
    assert limits_table() in DOC.read_text("utf-8"), (
        "docs/harnesses.md is out of date: paste elision.install.harnesses.limits_table()")


def test_every_harness_has_its_files_documented() -> None:
    text = DOC.read_text("utf-8")
    for name in HARNESSES:
        assert f"| `{name}` |" in text
