"""A piece of NDJSON with a key a line is judged family by family over all its matches at once,
and withholds exactly what the judge of each match alone withholds (issue 23).

Found by ``bench/redact.py --worst ndjson-sk-lines`` (10-15x prose): each record's key was some
ten Python calls of ``Family.accepts`` (its boundary, its span, its stub and template tests,
its entropy through ``Counter``, its check, the keyword near it) and a span made a call each.
:meth:`Family.accepted` asks those tests of all of a family's matches in comprehensions.
"""

from __future__ import annotations

import random
import string
import sys
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import families, redact_text
from elision.redact.families import FAMILIES, PATTERN_FAMILIES, Family, sample


def _per_match(self: Family, text: str, matches: Any) -> list[tuple[int, int]]:
    # The judge before: a call of ``accepts`` a match.
    return [self.secret_span(m) for m in matches if self.accepts(text, m)]


FAKES = [sample(f, 0, "ndjson")[0] for f in FAMILIES if f.finder != "field"]
#: What may stand before or around a key on its line: a word char or ``-_+/`` (then a family
#: with a boundary turns it away), a stub, a template, a lowered copy (no mixed case).
WRAPS = st.sampled_from([
    "{}", "x{}", "_{}", "-{}", "/{}", "+{}", " {} ", "[credential withheld: {}]", "<{}>",
    "${{{}}}", "{{{{{}}}}}", "key={}", "token: {}",
])
KEYS = st.one_of(
    st.sampled_from(FAKES),
    st.sampled_from(FAKES).map(str.lower),
    st.sampled_from(FAKES).map(lambda f: f[: max(4, len(f) // 2)]),
    st.integers(20, 60).map(lambda n: "sk-" + "a" * n),
    st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=0, max_size=50)
    .map(lambda t: "sk-" + t),
)


@st.composite
def ndjson(draw: st.DrawFn) -> str:
    lines = []
    for i in range(draw(st.integers(1, 40))):
        keys = [draw(WRAPS).format(draw(KEYS)) for _ in range(draw(st.integers(1, 3)))]
        record = {"id": i, "note": draw(st.sampled_from(["alpha beta", "", "sk- note"])),
                  **{f"k{j}": k for j, k in enumerate(keys)}}
        lines.append(orjson.dumps(record).decode())
    return "\n".join(lines) + "\n"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ndjson())
def test_ndjson_with_a_key_a_line_is_redacted_as_by_the_judge_of_each_match(text: str) -> None:
    # Always run: the same text with the judge of a family's matches at once turned off.
    fast = redact_text(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Family, "accepted", _per_match)
        slow = redact_text(text)
    assert (fast.value, fast.withheld) == (slow.value, slow.withheld)


@pytest.mark.parametrize("index", range(len(PATTERN_FAMILIES)))
def test_a_familys_matches_judged_at_once_are_those_it_accepts_one_by_one(index: int) -> None:
    family = PATTERN_FAMILIES[index]
    assert family.pattern is not None
    rng = random.Random(index)
    parts = []
    for seed in range(4):
        fake = sample(family, 0, seed)[0]
        parts += [fake, "x" + fake, "_" + fake, fake.lower(), fake.upper(), f"<{fake}>",
                  "[credential " + fake, fake[: len(fake) // 2], f"{rng.random()} {fake}",
                  *(fake[:cut] + mark + fake[cut:] for mark in ("<a>", "${", "{{")
                    for cut in (len(fake) // 2, len(fake) - 1))]
    text = "\n".join(parts) + "\n" + " ".join(parts)
    matches = list(family.pattern.finditer(text))
    assert family.accepted(text, iter(matches)) == _per_match(family, text, matches)


def _records(count: int, seed: int) -> str:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    return "".join(orjson.dumps({
        "id": i, "note": " ".join(rng.choice(["alpha", "beta", "gamma"]) for _ in range(20)),
        "key": "sk-aB1" + "".join(rng.choice(alphabet) for _ in range(37)),  # mixed: withheld
    }).decode() + "\n" for i in range(count))


def _calls(text: str) -> int:
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        done = redact_text(text)
    finally:
        sys.setprofile(None)
    assert len(done.withheld) == text.count("\n")
    return calls


def test_a_records_key_is_judged_in_few_python_calls() -> None:
    """Python calls a record, told from two sizes (a piece's fixed cost cancels): 26.1 before,
    some ten of them the judge's; 20.8 with it."""
    redact_text(_records(50, 9))  # databases loaded, caches filled
    per_record = (_calls(_records(1200, 3)) - _calls(_records(200, 3))) / 1000
    assert per_record < 23, per_record


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.text(max_size=80), st.integers(0, 700).map(lambda n: "7" * n),
                                 st.text(alphabet="aAb1-_", max_size=70)), max_size=20))
def test_the_entropy_of_many_values_is_each_ones_float(values: list[str]) -> None:
    """A threshold is compared to it: the same float, not a near one."""
    assert families.entropies(values) == [families.entropy(v) for v in values]
