"""docs/redaction-families.md is the families table as it is: regenerated, it must not change,
and it names every family."""

from __future__ import annotations

from pathlib import Path

from elision.redact import redact_text
from elision.redact.docs import markdown
from elision.redact.families import FAMILIES

DOC = Path(__file__).parents[2] / "docs" / "redaction-families.md"


def test_the_committed_page_is_what_the_table_generates() -> None:
    assert DOC.read_text("utf-8") == markdown(), (
        "docs/redaction-families.md is stale: run "
        "`python -m elision.redact.docs > docs/redaction-families.md`"
    )


def test_the_page_names_every_family() -> None:
    text = DOC.read_text("utf-8")
    assert all(f"| `{family.id}` |" in text for family in FAMILIES)


def test_the_page_holds_nothing_the_rules_withhold() -> None:
    # Example shapes are placeholders, so the page reads the same to a model. The one
    # exception: a URL's token ends at "<", so the SigV4 example, cut there, still carries
    # its X-Amz-Credential= parameter and is withheld as a URL (on purpose: "…&sig=<" in a
    # page of HTML is a real signed URL).
    withheld = redact_text(DOC.read_text("utf-8")).withheld
    assert [w["reason"] for w in withheld] == ["aws-sigv4-url"]
