"""Base64 runs that repeat a keyword's head mid-run (issue 23), searched without a stop at each.

A keyword's head in base64 (four chars, ``QUFB`` for ``AAA``) is a trigger only where it opens
a run. The base64 of ``AAAA…`` after one other char (``xQUFBQUFB…``) repeats a head every few
bytes, none of them opening a run: a regex that skipped to each head and looked behind it
stopped at every one (bench/fuzz_linear.py's ``run-b64-heads-mid``, 19-35x prose). The head
search is a hyperscan pass of a few literals now; these tests hold it to what the regex found.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, triggers
from elision.redact.keywords import B64_HEADS, B64_RUN_MIN
from elision.redact.textbytes import text_bytes
from support.built import strategies_built

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="the head search is hyperscan's")

#: Heads, and the chars around them that decide whether one opens a run.
SOME_HEADS = [*sorted(B64_HEADS)[:3], "QUFB", "c2st"]
PIECES = st.sampled_from([
    *SOME_HEADS, "x", "A", "+", "/", "_", "-", "=", " ", "\n", '"', "\\", "\\n", "\\t", "n",
    "é", "\x00", ":", "A" * 15, "b" * 16,
])


def _reference(data: bytes, heads: set[str], stop: bytes, *, first: bool) -> list[int]:
    """The head search as a regex: a head, a look behind it and one ahead (the last byte of
    each head that opens a run long enough to decode, a B64_RUN, the first a stretch)."""
    found: list[int] = []
    for head in sorted(heads):
        lit = re.escape(head).encode()
        pattern = re.compile(
            lit + rb"(?:(?<![A-Za-z0-9+/_\-]" + lit + rb")|(?<=\\[nrtbf]" + lit + rb"))"
            + rb"(?=[A-Za-z0-9+/_\-]{%d})" % (B64_RUN_MIN - 4))
        match = pattern.search(data)
        while match is not None:
            found.append(match.start() + 3)
            if first:
                return found
            nxt = data.find(stop, match.start() + 1)
            if nxt < 0:
                break
            match = pattern.search(data, nxt)
    return found


def _stretches(data: bytes, positions: list[int], stop: bytes) -> set[int]:
    """Which stretch (counted by ``stop``) each position is in."""
    return {data.count(stop, 0, pos) for pos in positions}


def _opening(data: bytes, pos: int) -> bool:
    start = pos - 3
    if data[start:pos + 1].decode("latin-1") not in B64_HEADS:
        return False
    from elision.redact.keywords import opens_run

    return opens_run(data, start)


@needs_hyperscan
@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join), st.sampled_from([b"\n", b'"']),
       st.integers(min_value=4, max_value=16))
@example("xQUFBQUFB" * 20 + "\n" + " QUFB", b"\n", 8)
@example("QUFB", b"\n", 4)
@example("QUFB" + "A" * 16, b"\n", 4)
@example("QUFB" + "A" * 15 + "\nQUFB" + "A" * 17, b"\n", 7)
@example("\\nQUFB\\QUFB" + "x" * 16, b'"', 5)
@example("=//4I=\n" * 8 + "QUFB" + "A" * 16, b"\n", 16)
def test_the_head_search_finds_the_stretches_the_regex_did(
    text: str, stop: bytes, block: int,
) -> None:
    """Every stretch where a head opens a run holds a position, each position is the last
    byte of a head that opens one, and with ``first`` there is one exactly when the regex
    found one; blocks made small so heads fall across their ends."""
    data = text.encode()
    engine: Any = triggers.engine()
    heads = {h for h in SOME_HEADS if h in text}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_HEAD_BLOCK", block)
        got = engine._opening_heads(data, heads, stop, first=False)
        one = engine._opening_heads(data, heads, stop, first=True)
    want = _reference(data, heads, stop, first=False)
    assert _stretches(data, got, stop) == _stretches(data, want, stop)
    assert all(_opening(data, pos) for pos in got)
    assert bool(one) == bool(want) and len(one) <= 1
    assert all(_opening(data, pos) for pos in one)


@needs_hyperscan
def test_a_run_repeating_a_head_mid_run_is_not_searched_head_by_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found with bench/fuzz_linear.py (``run-b64-heads-mid``, 19-35x prose): the head search
    was a regex a head, which stopped at every repeat in C to look behind it. Red before:
    ``first_per_stretch`` ran once for the head found (a search that stopped 111,111 times);
    now the heads are one hyperscan pass of literals that never match mid-run."""
    calls: list[object] = []
    real = triggers.first_per_stretch

    def counted(*args: Any, **kwargs: Any) -> list[int]:
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(triggers, "first_per_stretch", counted)
    redact_text("xQUFBQUFB" * 111_111)  # withheld whole as credential-dense, as before
    assert calls == []


@needs_hyperscan
def test_a_head_that_opens_a_run_is_still_withheld() -> None:
    """The head search's answer reaches the judge: a run that opens with the base64 of a
    credential is withheld: mid-line, at the text's start, after a line of mid-run heads."""
    import base64

    secret = "ghp_" + "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j"
    run = base64.b64encode(f"token {secret} end".encode()).decode()
    for text in (f"see {run} here", run, f"{'xQUFBQUFB' * 50}\nnote {run}"):
        out = redact_text(text).value
        assert run not in out and secret not in out


@needs_hyperscan
@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["xQUFB", "QUFB", " ", "\n", "QUFBQUFB", "=", "é"]),
                max_size=40).map("".join))
def test_heads_at_random_places_in_runs_keep_their_triggers(text: str) -> None:
    """The text trigger search keeps a position in every line where a head opens a run."""
    data = text_bytes(text)
    raw = text.encode()
    positions = triggers.engine().scan(data, keys=False)[0]
    want = _stretches(raw, _reference(raw, {"QUFB"}, b"\n", first=False), b"\n")
    assert want <= _stretches(raw, positions, b"\n")


def _fakes() -> list[str]:
    from elision.redact.families import FAMILIES, sample

    return [sample(f, 0, "runs")[0] for f in FAMILIES if f.finder != "field"]


#: Pieces of a text of base64 runs: runs that repeat a head mid-run (all letters, or with a
#: "+" that no letter-only check skips), the chars that open or go on with a run, and real
#: encoded credentials: each fake family's, shifted by 0-2 chars so its head falls anywhere.
RUN_PIECES = st.one_of(
    st.sampled_from(["xQUFBQUFB" * 9, "QUFB" * 12, "xQUFB+QUFB" * 5, "QUFB", "c2st", "Z2hw",
                     " ", "\n", "\n", '"', "\\", "=", "é", "+", "/", "x", ":"]),
    st.tuples(st.sampled_from(_fakes()), st.sampled_from(["", "a", "ab"])).map(
        lambda pair: __import__("base64").b64encode((pair[1] + pair[0]).encode()).decode()),
)


@needs_hyperscan
@settings(max_examples=200, deadline=None)
@given(st.lists(RUN_PIECES, max_size=30).map("".join), st.sampled_from([8, 16, 64, 1 << 16]))
@example("xQUFBQUFB" * 30 + " " + __import__("base64").b64encode(b"ghp_" + b"Ab3dEf6hIj9lMn2pQ"
         b"r5tUv8xYz1bCd4fGh7j").decode(), 16)
def test_base64_runs_redact_as_with_the_regex_head_search(text: str, block: int) -> None:
    """Differential: redaction with the head search (blocks made small, so heads cross their
    ends and whole blocks hold letters only) withholds what it withheld with the regex that
    skipped to each head and looked behind it, in a text and in a JSON string."""
    from elision.redact import redact_value

    engine: Any = triggers.engine()

    def regex(data: Any, heads: set[str], stop: bytes, *, first: bool,
              skip: Any = ()) -> list[int]:
        # The dense windows ``skip`` names are searched too: no caller reads their positions.
        return _reference(bytes(data), heads, stop, first=first)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_HEAD_BLOCK", block)
        got = redact_text(text), redact_value({"note": text})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_opening_heads", regex)
        want = redact_text(text), redact_value({"note": text})
    assert got == want


# -- NDJSON: a trigger on every long line ------------------------------------------------------

WORDS = st.sampled_from(["the", "quick", "fox", "status", "ok", "é", "QUFB", "c2stdGVzdA", "="])
TRIGGERS = st.sampled_from([
    "sk-" + "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0n", "password=hunter2x9",
    "Authorization: Bearer Zx9Kq2Lm4Np7Rt5Vw8Yb", "ghp_" + "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j",
    "c2stQWIzZEVmNmhJajlsTW4ycFFyNXRVdjh4WXoxYkNkNGZHaDdqS2wwbg==", "Bearer", "sk-",
])


# Built once: built on every line's draw, they were most of drawing's strategies.
_WORD_LISTS = st.lists(WORDS, min_size=0, max_size=30)
_MAYBE_TRIGGERS = st.one_of(st.just(""), TRIGGERS)
_LAST_NEWLINES = st.sampled_from(["", "\n"])


@st.composite
def ndjson_lines(draw: st.DrawFn) -> str:
    """Lines of filler each about a piece long or longer, a trigger at a random place in most."""
    lines = []
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        words = draw(_WORD_LISTS)
        filler = " ".join(words) * draw(st.integers(min_value=1, max_value=60))
        at = draw(st.integers(min_value=0, max_value=len(filler)))
        trigger = draw(_MAYBE_TRIGGERS)
        lines.append('{"note":"' + filler[:at] + " " + trigger + " " + filler[at:] + '"}')
    return "\n".join(lines) + draw(_LAST_NEWLINES)


def _line(n: int) -> str:
    rng = random.Random(n)
    key = "sk-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40))
    note, more = "the quick brown fox " * 42, "jumps over the lazy dog " * 35
    return f'{{"id":{n},"note":"{note} api_key={key}","more":"{more}"}}'


NDJSON = "\n".join(_line(n) for n in range(300)) + "\n"


@settings(max_examples=150, deadline=None)
@given(ndjson_lines())
def test_runs_found_by_their_marks_withhold_what_the_regex_runs_did(text: str) -> None:
    """Each base64 run of a piece found by its marks: the spans are those of the judge with
    the regex finding each run, as it was."""
    from elision.redact import scan
    from elision.redact.keywords import B64_RUN

    got = scan.find_spans(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "_runs", lambda text: (m.span() for m in B64_RUN.finditer(text)))
        want = scan.find_spans(text)
    assert got == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["A", "b", "9", "+", "/", "_", "-", "=", "==", " ", "\n",
                                 "é", "A" * 19, "Q" * 20, ":"]), max_size=40).map("".join))
def test_the_runs_found_by_their_marks_are_the_regex_runs(text: str) -> None:
    from elision.redact import scan
    from elision.redact.keywords import B64_RUN

    assert list(scan._runs(text)) == [m.span() for m in B64_RUN.finditer(text)]


def test_ndjson_with_a_key_a_line_tries_no_run_regex_at_each_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found with bench/fuzz_linear.py (``ndjson-sk-lines``, 91-96x prose): NDJSON records of
    about 1.8 KB that each hold an ``sk-`` key. Each line is longer than a piece, so each is a
    piece of its own, read one line on (every line judged twice), and the base64 run regex
    was tried at every word of each piece: most of the judging. Red before: a regex search of
    runs for each of the 300 pieces; now none (an ASCII text's runs are found by their marks,
    the regex tried only where one starts)."""
    from elision.redact import scan
    from elision.redact.keywords import B64_RUN

    judged: list[int] = []
    searches: list[int] = []
    real_precise = scan._precise

    def precise(text: str, offset: int, depth: int = 0, **known: Any) -> Any:
        if depth == 0:
            judged.append(len(text))
        return real_precise(text, offset, depth, **known)

    class Counted:
        pattern = B64_RUN.pattern

        def finditer(self, text: str) -> Any:
            searches.append(len(text))
            return B64_RUN.finditer(text)

        def match(self, text: str, pos: int) -> Any:
            return B64_RUN.match(text, pos)

    monkeypatch.setattr(scan, "_precise", precise)
    monkeypatch.setattr(scan, "B64_RUN", Counted())
    out = redact_text(NDJSON)
    assert len(out.withheld) == 300
    assert sum(judged) <= 2.0 * len(NDJSON)  # each line as a piece and as the one read on
    assert searches == []


@given(st.text(alphabet=st.one_of(st.sampled_from("aZ9-_+/=xK0 "), st.characters()),
               max_size=60))
@example("sk-learn-style-names")
@example("Ab3")
@example("\u0661Ab")  # an Arabic-Indic digit: not ASCII, read char by char as before
def test_a_keys_mix_of_cases_and_digits_is_read_as_before(value: str) -> None:
    """The ``mixed`` and ``digit`` checks a key's value must pass, tested in C for an ASCII
    value (most of judging an NDJSON line that holds a key was a Python step a char)."""
    from elision.redact import families

    mixed = (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
             and any(c.islower() for c in value))
    assert families.CHECKS["mixed"](value) is mixed
    assert families.CHECKS["digit"](value) is any(c.isdigit() for c in value)


@needs_hyperscan
@pytest.mark.parametrize("unit", ["=//4I=\n", "x //4I==\n", '"//4I"'])
def test_a_head_whose_run_is_too_short_to_decode_is_no_trigger(unit: str) -> None:
    """Found with bench/fuzz_linear.py's drawn units (issue 23): lines of ``=//4I=`` (the
    head of a UTF-16 mark in a 5-char run) cost 160x prose with nothing withheld, each line a
    head found, a stretch and a Python call. A run shorter than a B64_RUN decodes to nothing
    the judge reads: red before, a position a line; none now, and a long run still is one."""
    assert "//4I" in B64_HEADS
    data = (unit * 1000).encode()
    assert triggers.engine().scan(data, keys=False)[0] == []
    long_run = data + b"\n//4I" + b"A" * (B64_RUN_MIN - 4) + b"\n"
    assert triggers.engine().scan(long_run, keys=False)[0] == [len(data) + 4]


def test_drawing_ndjson_lines_builds_no_strategy() -> None:
    """Red before: each line built its parts again (329-488 strategies for 20 bodies)."""
    assert strategies_built(ndjson_lines(), examples=5) < 5
