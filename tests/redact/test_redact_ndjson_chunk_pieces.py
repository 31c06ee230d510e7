"""NDJSON records of a key each are judged a chunk at a time, and a key's entropy is told from
its distinct chars, withholding exactly what pieces of 16 KB and every key's entropy did
(issue 23).

Found by ``bench/redact.py --worst ndjson-sk-lines`` (16x prose, CPU): a 16 KB piece's fixed
cost (its keyword pass, its Present, its rules' set-up) was some 22 us, a sixth of the time,
and the entropy of each key (a ``str.count`` a distinct char) a quarter of it.
"""

from __future__ import annotations

import base64
import math
import random
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import families, redact_text, scan, triggers
from elision.redact.families import FAMILIES, PATTERN_FAMILIES, sample
from support.before import redacted

FAKES = [sample(f, 0, "ndjson")[0] for f in FAMILIES if f.finder != "field"]
FLOORS = sorted({f.entropy for f in PATTERN_FAMILIES if f.entropy is not None})
#: Case folds a keyword or a name may be spelled with (U+0130, U+0131, U+212A, U+017F).
FOLDS = "\u0130\u0131\u212a\u017f"
WORDS = ["alpha", "beta", "gamma", "delta", "request", "replica", "status"]


def _equal_counts(draw: st.DrawFn) -> str:
    # d distinct chars k times each: an entropy of exactly log2(d), a floor's own value
    chars = "".join(draw(st.lists(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789" + FOLDS),
                                  min_size=1, max_size=40, unique=True)))
    return chars * draw(st.integers(1, 20))


VALUES = st.one_of(
    st.text(max_size=80),
    st.text(alphabet="aAb1-_", max_size=70),
    st.text(alphabet="ab" + FOLDS, max_size=600),
    st.integers(0, 700).map(lambda n: "7" * n),
    st.composite(_equal_counts)(),
    st.sampled_from(FAKES),
    st.sampled_from(FAKES).map(str.lower),
)


@settings(max_examples=500, deadline=None)
@given(values=st.lists(VALUES, max_size=20),
       floor=st.one_of(st.sampled_from(FLOORS), st.integers(1, 64).map(math.log2),
                       st.floats(0, 7)))
@example(values=["abcdefgh" * 4, "abcdefgh", "a" * 8, ""], floor=3.0)
def test_a_values_entropy_told_from_its_distinct_chars_is_the_floats_verdict(
    values: list[str], floor: float,
) -> None:
    assert families.at_least(floor, values) == [
        not families.entropy(v) < floor for v in values]


def _keys(count: int, seed: int) -> str:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return "\n".join(f"id {i} sk-aB1" + "".join(rng.choice(alphabet) for _ in range(37))
                     for i in range(count))


def test_a_keys_entropy_is_not_counted_where_its_distinct_chars_tell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: ``entropies`` read each of the 200 keys' terms (200 calls of ``_terms``)."""
    family = next(f for f in PATTERN_FAMILIES if f.id == "openai-key")
    assert family.pattern is not None
    text = _keys(200, 3)
    counted: list[int] = []
    terms = families._terms

    def counting(n: int) -> list[float]:
        counted.append(n)
        return terms(n)

    monkeypatch.setattr(families, "_terms", counting)
    accepted = family.accepted(text, family.pattern.finditer(text))
    assert len(accepted) == 200
    assert len(counted) < 10, len(counted)


def _record(rng: random.Random, i: int, key: str, value: str) -> str:
    note = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 300)))
    return orjson.dumps({"id": i, "note": note[:850], key: value, "more": note[850:]}).decode()


@st.composite
def _ndjson(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**16)))
    values = st.one_of(
        st.sampled_from(FAKES), st.sampled_from(FAKES).map(str.lower),
        st.sampled_from(FAKES).map(lambda f: f[: max(4, len(f) // 2)]),
        st.text(alphabet="abcAB01-_" + FOLDS, max_size=50).map(lambda t: "sk-" + t),
        st.sampled_from(["sk-" + "a" * 40, "https://x.example/?token=abc", "a=b",
                         "p\\u0061ssword=hunter2", "%73k-aB1" + "c2" * 20, "user@host"]),
        # base64 runs: a head then text, a fake encoded (its form), a window's token
        st.builds(lambda f, t: base64.b64encode((f[:3] + t * 3).encode()).decode(),
                  st.sampled_from(FAKES), st.text(alphabet="abc xyz", min_size=5, max_size=13)),
        st.sampled_from(FAKES).map(lambda f: base64.b64encode(f"token {f}".encode()).decode()),
        st.just(base64.b64encode(b"x123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw").decode()),
    )
    keys = st.sampled_from(["key", "api", "note2", "password", "k\u0130y", "x"])
    count = draw(st.integers(10, 120))
    lines = [_record(rng, i, draw(keys), draw(values)) for i in range(count)]
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


def _before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The code before, in process: pieces of 16 KB tried once, every key's entropy counted,
    every base64 run asked."""
    monkeypatch.setattr(scan, "WHOLE", 1 << 14)
    monkeypatch.setattr(scan, "_RETRY_ABOVE", 1 << 30)
    monkeypatch.setattr(families, "_BOUNDED", False)
    monkeypatch.setattr(scan, "_QUIET_RUNS", False)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=_ndjson())
def test_ndjson_judged_a_chunk_at_a_time_withholds_what_16_kb_pieces_did(
    monkeypatch: pytest.MonkeyPatch, text: str,
) -> None:
    fast = redacted("text", text)
    with monkeypatch.context() as mp:
        _before(mp)
        slow = redacted("text", text)
    assert fast == slow


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_ndjson())
def test_ndjson_of_a_key_a_record_is_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


def _located(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    located = scan.located

    def counting(piece: str, *args: Any) -> Any:
        calls.append(len(piece))
        return located(piece, *args)

    monkeypatch.setattr(scan, "located", counting)
    return calls


def _records(count: int, seed: int, marked: int = -1) -> str:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return "\n".join(_record(rng, i, "key", ("a=b " if i == marked else "")
                             + "sk-aB1" + "".join(rng.choice(alphabet) for _ in range(37)))
                     for i in range(count)) + "\n"


def test_a_chunk_of_records_is_one_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: a 300 KB text of records took a keyword pass a 16 KB piece (about 20)."""
    text = _records(300, 5)
    redact_text(_records(20, 9))
    calls = _located(monkeypatch)
    done = redact_text(text)
    assert len(done.withheld) == 300
    assert len(calls) <= len(text) // scan.CHUNK + 1, calls


def test_a_url_mark_in_one_record_leaves_the_rest_of_its_chunk_judged_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A mark refuses a piece before its pass; its halves are tried down to 16 KB, so one
    record's ``=`` sends a 16 KB piece a line at a time, not the whole chunk."""
    if triggers.engine_name() != "hyperscan":
        pytest.skip("a piece is judged whole after a hyperscan pass only")
    text = _records(36, 7, marked=3)  # about one chunk
    redact_text(_records(20, 9))
    lines: list[int] = []
    judged = scan._Lines._line

    def counting(self: Any, text: str, start: int, end: int) -> Any:
        lines.append(start)
        return judged(self, text, start, end)

    monkeypatch.setattr(scan._Lines, "_line", counting)
    done = redact_text(text)
    assert len(done.withheld) == 36
    assert len(lines) <= 16, len(lines)  # the chunk a line at a time: 37


def test_a_chunk_of_records_has_no_run_asked_where_none_opens_with_a_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: each chunk's runs (a record's key each) were found and asked in Python."""
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    text = _records(120, 5)
    redact_text(_records(20, 9))
    asked: list[int] = []
    runs, blocks = scan._runs, scan._block_runs

    def counting(found: Callable[[str], Any]) -> Callable[[str], Any]:
        def count(piece: str) -> Any:
            asked.append(len(piece))
            return found(piece)
        return count

    monkeypatch.setattr(scan, "_runs", counting(runs))
    monkeypatch.setattr(scan, "_block_runs", counting(blocks))
    assert len(redact_text(text).withheld) == 120
    assert asked == []


def test_a_head_in_a_chunk_of_records_is_still_asked() -> None:
    fake = next(f for f in FAKES if f.startswith("ghp_"))
    run = base64.b64encode(f"token {fake}".encode()).decode()
    lines = _records(120, 5).splitlines()
    lines[77] = lines[77][:-2] + f' {run}"}}'
    done = redact_text("\n".join(lines) + "\n")
    assert [w["line"] for w in done.withheld].count(78) == 2, done.withheld[70:80]


def test_a_long_line_of_base64_is_not_copied_whole_to_tell_its_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the bench of this change: one 1 MB line of random base64 peaked at 3.09x the
    input (was 1.30x), its runs told quiet from two copies of all of it."""
    line = base64.b64encode(random.Random(5).randbytes(3 * scan.WHOLE)).decode()
    asked: list[int] = []
    quiet = triggers.quiet_runs

    def counting(data: bytes) -> bool | None:
        asked.append(len(data))
        return quiet(data)

    monkeypatch.setattr(scan, "quiet_runs", counting)
    redact_text(line + "\n")
    assert all(size <= scan.WHOLE for size in asked), asked
