"""Properties over the whole families table: a fake of any family, seeded anywhere, in plain
text, escaped, or as a JSON value, never comes out, and nothing around it changes.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from elision.redact.encodings import decode_escapes
from elision.redact.families import FAMILIES, Family, sample
from elision.redact.scan import redact_spans
from redact.test_redact_properties import SAFE_CHARS, _insert, documents

LINE = st.text(alphabet=SAFE_CHARS.replace("\n", ""), max_size=30)
TEXT_FAMILIES = [f for f in FAMILIES if f.finder != "field"]


@st.composite
def fakes(
    draw: st.DrawFn, families: list[Family] = TEXT_FAMILIES
) -> tuple[Family, str, tuple[str, ...]]:
    family = draw(st.sampled_from(families))
    index = draw(st.integers(0, len(family.shapes) - 1))
    text, values = sample(family, index, draw(st.integers(0, 10**6)))
    return family, text, values


def _escaped(text: str, how: str) -> str:
    if how == "json":
        return "".join(f"\\u{ord(c):04x}" if c.isalnum() and i % 2 else c
                       for i, c in enumerate(text))
    if how == "percent":
        return "".join(f"%{ord(c):02x}" if c.isalnum() and i % 3 == 0 else c
                       for i, c in enumerate(text))
    return text


SETTINGS = settings(max_examples=400, deadline=None)


@SETTINGS
@given(fake=fakes(), before=LINE, after=LINE,
       how=st.sampled_from(["plain", "plain", "json", "percent"]))
def test_a_seeded_fake_of_any_family_never_appears_in_text(
    fake: tuple[Family, str, tuple[str, ...]], before: str, after: str, how: str
) -> None:
    _, text, values = fake
    if how != "plain" and ("\n" in text or "%" in text or "\\" in text):
        how = "plain"
    seeded = _escaped(text, how)
    result = redact_text(f"{before}\n{seeded}\n{after}")
    lines = result.value.split("\n")
    # The lines around it are kept exactly, and the line count too.
    assert lines[0] == before
    assert lines[-1] == after
    assert len(lines) == 3 + text.count("\n")
    shown = "\n".join(lines[1:-1])
    view = decode_escapes(shown)
    for value in values:
        assert value not in shown
        assert view is None or value not in view.text
    assert result.withheld


@SETTINGS
@given(fake=fakes(), data=st.data())
def test_a_seeded_fake_of_any_family_in_a_document_changes_only_its_string(
    fake: tuple[Family, str, tuple[str, ...]], data: st.DataObject
) -> None:
    _, text, values = fake
    leaf = redact_spans(text)[0]  # what a JSON string becomes (no line breaks kept)
    doc, want = _insert(data.draw(documents), text, leaf, data.draw)
    result = redact_value(doc)
    assert result.value == want
    out = repr(result)
    assert all(value not in out for value in values)


@settings(max_examples=150, deadline=None)
@given(fake=fakes([f for f in TEXT_FAMILIES if "\n" not in f.shapes[0]]), data=st.data())
def test_a_fake_stored_in_base64_is_withheld_whole(
    fake: tuple[Family, str, tuple[str, ...]], data: st.DataObject
) -> None:
    _, text, _ = fake
    value = base64.b64encode(f"{text}\n".encode()).decode()
    doc: Any = {"kind": "Secret", "data": {"file": value}}
    result = redact_value(doc)
    assert result.value["data"]["file"].startswith("[credential withheld:")
    assert result.value["kind"] == "Secret"


@pytest.mark.parametrize("line", [
    "X-Api-Key: HywF9PU3BrpNsIBSMuBTnQYZ3OfZLgIy",  # the dev profile drew it (title case)
    "Api-Key: HywF9PU3BrpNsIBSMuBTnQYZ3OfZLgIy",
    "Authorization: Token 9f2KxQ7pLm3Rt8Vz4qWe",
])
def test_a_title_case_header_stored_in_base64_is_withheld(line: str) -> None:
    value = base64.b64encode(f"{line}\n".encode()).decode()
    result = redact_value({"kind": "Secret", "data": {"file": value}})
    assert result.value["data"]["file"].startswith("[credential withheld:")
