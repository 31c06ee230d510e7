"""The families table, row by row: every family withholds a fresh fake of each of its shapes,
keeps its near misses exactly, and is found through each engine's trigger search.

The cases are derived from the table (src/elision/data/families.toml), so a family added
without a shape that its own rule finds, or without a near miss, fails here.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

import orjson
import pytest

from elision.redact import redact_text, redact_value, triggers
from elision.redact.families import BY_ID, FAMILIES, Family, negatives, sample
from elision.redact.keywords import B64_SHORTEST
from elision.redact.rules import credential_stub
from support.engines import trigger_engines

SHAPES = [(f, i) for f in FAMILIES for i in range(len(f.shapes))]
NEGATIVES = [(f, n) for f in FAMILIES for n in negatives(f)]


def _fake(family: Family, index: int, seed: int) -> tuple[str, tuple[str, ...]]:
    return sample(family, index, seed)


def _redact(family: Family, text: str) -> tuple[str, list[str]]:
    if family.finder == "field":
        result = redact_value(orjson.loads(text))
        return orjson.dumps(result.value).decode(), [w["reason"] for w in result.withheld]
    result = redact_text(text)
    return result.value, [w["reason"] for w in result.withheld]


def test_each_row_is_the_one_the_constructor_makes() -> None:
    """The table's rows are made without ``Family.__init__`` (a start cost, issue 24): each
    holds every field, nothing else, and equals the row the constructor makes of them."""
    names = [f.name for f in dataclasses.fields(Family)]
    compiled = {n for n, v in vars(Family).items() if isinstance(v, functools.cached_property)}
    for row in FAMILIES:
        assert [n for n in vars(row) if n not in compiled] == names, row.id
        assert Family(**{n: getattr(row, n) for n in names}) == row


def test_there_are_at_least_150_families_with_unique_ids() -> None:
    assert len(FAMILIES) >= 150
    assert len(BY_ID) == len(FAMILIES)
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", f.id) for f in FAMILIES)


@pytest.mark.parametrize("family", FAMILIES, ids=[f.id for f in FAMILIES])
def test_every_family_has_a_shape_a_near_miss_and_keywords(family: Family) -> None:
    assert family.shapes, "a family needs an example shape (docs and tests)"
    assert negatives(family), "a family needs a near miss: negatives, or an entropy floor"
    assert family.keywords and all(len(k) >= 3 for k in family.keywords), (
        "keywords of 3 chars or more: the trigger search looks for them"
    )
    assert family.provider and family.category
    assert all(sample(family, i)[1] for i in range(len(family.shapes))), (
        "each shape holds a random value of 8 chars or more: what the tests check is withheld"
    )


@pytest.mark.parametrize(("family", "index"), SHAPES,
                         ids=[f"{f.id}-{i}" for f, i in SHAPES])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_shape_is_withheld_under_its_family(family: Family, index: int, seed: int) -> None:
    text, values = _fake(family, index, seed)
    out, reasons = _redact(family, text)
    assert family.id in reasons, f"{family.id} did not withhold {family.shapes[index]!r}"
    for value in values:
        assert value not in out
    assert credential_stub(family.id) in out
    # The stub is all that is new: what came before the first withheld char is kept.
    if family.finder == "field":
        text = orjson.dumps(orjson.loads(text)).decode()
    first = out.index("[credential withheld")
    assert out[:first] == text[:first]


@pytest.mark.parametrize(("family", "index"), SHAPES,
                         ids=[f"{f.id}-{i}" for f, i in SHAPES])
def test_every_shape_passes_each_engines_trigger_search(family: Family, index: int) -> None:
    text, _ = _fake(family, index, 0)
    if family.finder == "field":
        text = orjson.dumps(orjson.loads(text)).decode()
    for engine in trigger_engines():
        assert triggers.text_triggers(text, engine), type(engine).__name__


@pytest.mark.parametrize(("family", "text"), NEGATIVES,
                         ids=[f"{f.id}-{i}" for i, (f, _) in enumerate(NEGATIVES)])
def test_every_near_miss_is_kept_exactly(family: Family, text: str) -> None:
    if family.finder == "field":
        doc: Any = orjson.loads(text)
        assert redact_value(doc).value == doc
        return
    result = redact_text(text)
    assert result.withheld == (), f"{family.id}: {text!r} was withheld"
    assert result.value == text


@pytest.mark.parametrize(("family", "index"), SHAPES,
                         ids=[f"{f.id}-{i}" for f, i in SHAPES])
def test_redaction_of_every_shape_is_idempotent(family: Family, index: int) -> None:
    text, _ = _fake(family, index, 3)
    once, _ = _redact(family, text)
    again, reasons = _redact(family, once)
    assert again == once
    assert reasons == []


def test_base64_forms_are_long_enough_to_be_rare_in_random_bytes() -> None:
    from elision.redact.keywords import BASE64

    assert BASE64 and min(map(len, BASE64)) >= B64_SHORTEST
