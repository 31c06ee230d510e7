"""A text's base64 head search skips its credential-dense windows: their positions are unread.

``bench/redact.py``'s ``b64-auth-basic-lines`` (lines of ``QXV0aG9yaXphdGlvbjogQmFzaWMg``, the
base64 of ``Authorization: Basic ``) cost 25x prose alone (issue 23): the literal search found
every window credential-dense, so the whole text is one ``credential-dense`` entry, yet the head
search then read every 64 KB block again, a Python call (and a list entry) for each line's head.
No caller reads a position inside a dense stretch (each is withheld whole, in whole lines), so
the head search now leaves those ranges out (``triggers.SKIP_DENSE``). The count test was red on
the code before; what is withheld is the same, told by a differential against this code's own
search of every range (always run) and against the code before (``ELISION_BEFORE_SRC``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, triggers
from elision.redact.families import FAMILIES, sample
from support.before import redacted
from support.calls import redaction_calls

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="the head search is hyperscan's")
AUTH = "QXV0aG9yaXphdGlvbjogQmFzaWMg"  # base64 of "Authorization: Basic "


# -- bounded work ------------------------------------------------------------------------------


@pytest.mark.parametrize("unit", [AUTH + " \n\n", AUTH + "\n"])
@needs_hyperscan
def test_lines_of_the_base64_of_an_authorization_header_cost_no_call_a_line(unit: str) -> None:
    """256 KB of such lines: 19,700-22,200 Python calls before (a head hit a line), now a few
    thousand (the dense windows' counts); one entry, every line kept."""
    text = unit * ((256 << 10) // len(unit))
    calls, done = redaction_calls(text)
    assert [e["reason"] for e in done.withheld] == ["credential-dense"]
    assert done.value.count("\n") == text.count("\n")
    assert calls < text.count("\n") // 3


# -- the same withheld -------------------------------------------------------------------------


def _fakes() -> list[str]:
    return [sample(f, 0, "heads")[0] for f in FAMILIES if f.finder != "field"]


FAKES = _fakes()
#: Runs the literal search finds dense (each holds a trigger every few bytes), and one that is
#: not (short heads), in lines and glued on one line.
DENSE_UNITS = [AUTH + " \n\n", AUTH + "\n", AUTH + " ", "api_key=abc\n", "password=x ",
               "=//4I=\n", "c2stQWIz\n"]
#: A head (of a UTF-16 mark) opening a run the literal search finds nothing in: not dense.
PLAIN_HEADS = "//4+QUJDREVGR0hJSktMTU5PUFFS"
BOMS = [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"),
        (b"\xff\xfe\x00\x00", "utf-32-le")]
#: Look-alikes the precise rules fold to ASCII: a name spelled with one is that name.
FOLDS = {"i": ["\u0130", "\u0131"], "k": ["\u212a"], "s": ["\u017f"]}


def _folded(text: str, draw: st.DrawFn) -> str:
    letter = draw(st.sampled_from(sorted(FOLDS)))
    at = text.lower().find(letter)
    if at < 0:
        return text
    return text[:at] + draw(st.sampled_from(FOLDS[letter])) + text[at + 1:]


@st.composite
def secrets(draw: st.DrawFn) -> str:
    """A fake credential of any family: raw, in base64 (its head anywhere), folded, escaped."""
    fake = draw(st.sampled_from(FAKES))
    form = draw(st.sampled_from(["raw", "b64", "b64", "bom", "bom", "folded", "pct", "u-escape",
                                 "assign"]))
    if form == "bom":
        # UTF-16 or UTF-32 with its byte order mark: no keyword's base64 form is in it, only
        # the mark's head where the run opens tells it
        bom, codec = draw(st.sampled_from(BOMS))
        fake = base64.b64encode(bom + fake.encode(codec)).decode()
    elif form == "b64":
        fake = base64.b64encode((draw(st.sampled_from(["", "a", "ab"])) + fake).encode()).decode()
    elif form == "folded":
        fake = _folded(fake, draw)
    elif form == "pct":
        fake = "".join(f"%{ord(c):02X}" if c.isalpha() and draw(st.booleans()) else c
                       for c in fake[:6]) + fake[6:]
    elif form == "u-escape":
        fake = f"\\u{ord(fake[0]):04x}" + fake[1:]
    elif form == "assign":
        fake = _folded("secret_key=" + base64.b64encode(fake.encode()).decode(), draw)
    return fake


@st.composite
def dense_texts(draw: st.DrawFn) -> str:
    """Dense stretches over four windows' bytes (so they are withheld), with secrets glued
    into them, at their edges, and in the lines between them."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        unit = draw(st.sampled_from(DENSE_UNITS))
        block = unit * (draw(st.integers(5 * 4096, 9 * 4096)) // len(unit))
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(block)))
            glue = draw(st.sampled_from(["", " ", "\n", "\n\n"]))
            block = block[:at] + glue + draw(secrets()) + glue + block[at:]
        parts.append(block)
        # Lines of a head that opens a run and spells no literal, a few or past the 64 places
        # the heads' own search answers for (then blocks of the data are read, translated).
        heads = st.integers(0, 400).map(lambda n: "\n".join([PLAIN_HEADS] * n))
        between = draw(st.lists(secrets() | heads | st.sampled_from(["ok", "INFO fine", AUTH]),
                                max_size=4))
        parts.append("\n".join(between) + draw(st.sampled_from(["\n", " ", ""])))
    return "".join(parts)


def _answer(text: str) -> list[Any]:
    done = redact_text(text)
    return [done.value, list(done.withheld)]


# The line after a dense stretch opens with a credential in base64 (its head in a run): a
# blanked line break inside the stretch would make it part of the stretch's last line.
@example(text=(AUTH + " \n\n") * 900 + base64.b64encode(b"ghp_" + b"Ab3dEf6hIj9lMn2pQr5tU"
                                                          b"v8xYz1bCd4fGh7j").decode() + "\n")
# Past the stretch's last 4 KB (read whole), many heads, then a credential in UTF-16 base64:
# only the heads in the block the stretch ends in tell that line.
@example(text=(AUTH + " \n\n") * 900 + "\n".join([PLAIN_HEADS] * 400) + "\n" + base64.b64encode(
    b"\xff\xfe" + "sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0n".encode("utf-16-le")
).decode() + "\n")
@settings(max_examples=60, deadline=None)
@given(text=dense_texts())
@needs_hyperscan
def test_dense_windows_left_out_withhold_what_the_whole_search_does(text: str) -> None:
    """In-process differential: the head search with the dense windows skipped against the
    same search of every range (``SKIP_DENSE`` off)."""
    got = _answer(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "SKIP_DENSE", False)
        want = _answer(text)
    assert got == want


@settings(max_examples=25, deadline=None)
@given(text=dense_texts())
def test_dense_windows_left_out_withhold_what_the_code_before_did(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


# -- the head search itself, with any ranges left out ------------------------------------------


def _widened(data: bytes, skip: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each range widened to whole lines, as find_spans withholds it."""
    out = []
    for a, b in skip:
        start = data.rfind(b"\n", 0, a) + 1
        end = data.find(b"\n", b)
        out.append((start, len(data) if end < 0 else end + 1))
    return out


PIECES = st.sampled_from([AUTH, AUTH + " ", "QUFB" * 6, "xQUFBQUFB" * 3, "=//4I=", " ", "\n",
                          "\n", "+", "/", "é", "c2stQWIzZEVmNmhJajlsTW4y"]) | st.sampled_from(
    FAKES).map(lambda fake: base64.b64encode(fake.encode()).decode())


@st.composite
def ranges(draw: st.DrawFn, size: int) -> list[tuple[int, int]]:
    cuts = sorted(set(draw(st.lists(st.integers(0, size), max_size=6))))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return [(a, b) for a, b in pairs if a < b]


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(PIECES, max_size=60).map("".join),
       st.sampled_from([8, 16, 64, 1 << 16]))
@needs_hyperscan
def test_the_heads_outside_skipped_ranges_are_found_as_without_them(
    data: st.DataObject, text: str, block: int,
) -> None:
    """Each line that no skipped range (widened to whole lines) touches, and that holds a head
    the search finds without the ranges, has one found with them skipped, and only heads
    are found: blocks made small, so ranges and heads cross their ends."""
    raw = text.encode()
    if not {head for head in triggers._HEADS if head in text}:
        return
    _heads_outside_found(text, data.draw(ranges(len(raw))), block)


@needs_hyperscan
def test_a_line_of_many_heads_before_a_skipped_char_keeps_a_head_in_each_line() -> None:
    """The counterexample Hypothesis found (see _heads_outside_found)."""
    _heads_outside_found(AUTH * 32 + "\nQUtJQU9CU1BEVDhZSFkyMjI3Uk0=" + AUTH, [(0, 1)], 8)


def _heads_outside_found(text: str, skip: list[tuple[int, int]], block: int) -> None:
    engine: Any = triggers.engine()
    raw = text.encode()
    heads = {head for head in triggers._HEADS if head in text}
    outside = _widened(raw, skip)

    def kept(found: list[int]) -> list[int]:
        return sorted(p for p in found if not any(a <= p < b for a, b in outside))

    def lines(found: list[int]) -> set[int]:
        return {raw.count(b"\n", 0, p) for p in found}

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_HEAD_BLOCK", block)
        every: set[int] = set()  # the heads either path finds, unskipped
        for few in (True, False):
            mp.setattr(triggers, "FEW_HEADS_FIRST", few)
            every.update(engine._opening_heads(raw, heads, b"\n", first=False))
        for few in (True, False):
            mp.setattr(triggers, "FEW_HEADS_FIRST", few)
            whole = engine._opening_heads(raw, heads, b"\n", first=False)
            left = engine._opening_heads(raw, heads, b"\n", first=False, skip=skip)
            # What the search promises: a head in each line (stretch) that holds one, and
            # only heads. Which of a line's heads depends on the path a search takes (the
            # heads' own places, one a line, or the translated blocks, one a line a block),
            # and a skipped range may change it: with (0, 1) skipped, a line of 32 heads of
            # the base64 of "Authorization: Basic " had 63 places, not 65, so the second
            # line's second head (900) was not reported (found by Hypothesis: the test
            # asked for the same heads, which the search never promised).
            assert lines(kept(left)) == lines(kept(whole))
            assert set(kept(left)) <= every


@pytest.mark.parametrize(("skip", "lo", "hi", "want"), [
    ([], 0, 10, []),
    ([(2, 4), (6, 9)], 0, 10, [(2, 4), (6, 9)]),
    ([(2, 4), (6, 9)], 3, 7, [(3, 4), (6, 7)]),  # cut to the block
    ([(2, 4), (6, 9)], 4, 6, []),  # between them: an end is not inside
    ([(0, 100)], 10, 20, [(10, 20)]),  # one range holds the block
    ([(2, 4), (12, 19)], 10, 20, [(12, 19)]),  # those before the block left out
])
def test_overlaps_are_the_ranges_cut_to_a_block(
    skip: list[tuple[int, int]], lo: int, hi: int, want: list[tuple[int, int]],
) -> None:
    assert triggers._overlaps(skip, lo, hi) == want


@pytest.mark.parametrize(("size", "skip", "want"), [
    (10, [], [(0, 10)]),
    (0, [], []),
    (10, [(0, 10)], []),
    (10, [(0, 3), (5, 7)], [(3, 5), (7, 10)]),
    (10, [(2, 10)], [(0, 2)]),
])
def test_gaps_are_what_the_ranges_leave(size: int, skip: list[tuple[int, int]],
                                        want: list[tuple[int, int]]) -> None:
    assert triggers._gaps(size, skip) == want


def test_a_blanked_range_keeps_its_line_breaks() -> None:
    assert triggers._blanked(b'QXV0\nab"c\nd', 10, [(12, 17)]) == b'QX  \n  "c\nd'
