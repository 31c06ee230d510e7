"""The base64 head search asks two questions in C before it reads a block: any byte only a
translation makes an opener, and any run long enough to decode.

``bench/redact.py``'s ``run-b64-short-heads`` (lines of ``=//4I=``) had every 64 KB block
translated and scanned although no run in it is long enough to decode (one pass now says so);
lines of base64 with a head each (wrapped random bytes spell one by chance) had every block
copied translated, where data of run bytes and openers alone is its own translation. The
short heads' count test was red on the code before (the translation's has no spy there: its
function is new); what is found is the same, told by a differential against this code's own
path without the checks (``OTHERS_CHECK`` off, always run) and against the code before
(``ELISION_BEFORE_SRC``)."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import triggers
from redact.test_redact_dense_heads import BOMS, FAKES
from support.before import redacted

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="the head search is hyperscan's")


def _random_b64(size: int, seed: int, wrap: int = 0) -> str:
    text = base64.b64encode(random.Random(seed).randbytes(size * 3 // 4)).decode()[:size]
    if not wrap:
        return text
    return "\n".join(text[at:at + wrap] for at in range(0, len(text), wrap)) + "\n"


@contextmanager
def _calls(name: str) -> Iterator[list[Any]]:
    """Each call of the engine's method ``name`` (its args)."""
    engine: Any = triggers.engine()
    seen: list[Any] = []
    real = getattr(engine, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, name, counting)
        yield seen


# -- bounded work ------------------------------------------------------------------------------


#: A head (of a UTF-16 mark) opening a run, a line each: past the 64 places the heads' own
#: search answers for, so blocks are read.
PLAIN_HEADS = "//4+QUJDREVGR0hJSktMTU5PUFFS\n"


@pytest.mark.parametrize("joint", ["\n", " "])
@needs_hyperscan
def test_base64_lines_are_not_translated_block_by_block(joint: str) -> None:
    """Runs and openers alone (base64 a line each, or a space apart): each block is its own
    translation, so none is copied translated (each of the 64 KB blocks was)."""
    text = (PLAIN_HEADS.replace("\n", joint)) * 9_000
    translated: list[int] = []
    real = triggers._translated

    def counting(block: bytes) -> bytes:
        translated.append(len(block))
        return real(block)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_translated", counting)
        positions = triggers.text_triggers(text)
    # A head a line (a stretch); on one line, one a 64 KB block at most.
    assert len(positions) == 9_000 if joint == "\n" else 1 <= len(positions) <= 5
    assert translated == []


@needs_hyperscan
def test_one_line_of_random_base64_is_not_searched_for_the_heads_own_places() -> None:
    """No byte in it but a run's (a pasted image's base64): only a head at its start opens a
    run. Its 48 chance heads were searched as plain literals, 1 ms a MB, more than the
    literal search itself; and a credential at its start is still found."""
    text = _random_b64(400_000, 11)
    with _calls("_few_heads") as few, _calls("_translated_heads") as translated:
        assert 3 not in triggers.text_triggers(text)
        assert 3 in triggers.text_triggers(_ENCODED_AT_START + text)
    assert few == [] and translated == []


@needs_hyperscan
def test_wrapped_random_base64_is_searched_for_heads_after_its_line_breaks_alone() -> None:
    """Run bytes and line breaks alone: its heads are searched after a line break, in its
    blocks as they are (0.35 ms a MB), not as plain literals first (1.07 ms), and with a
    database of the heads after the one opener it holds (as quick to compile as theirs)."""
    text = _random_b64(400_000, 11, 76)
    engine: Any = triggers.engine()
    asked: list[Any] = []
    real = engine._heads_db

    def counting(heads: tuple[str, ...], **kwargs: Any) -> Any:
        asked.append(kwargs.get("openers"))
        return real(heads, **kwargs)

    with _calls("_few_heads") as few, pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_heads_db", counting)
        triggers.text_triggers(text)
        assert 3 in triggers.text_triggers(_ENCODED_AT_START + "\n" + text)
    assert few == []
    assert asked and set(asked) == {(b"\n",)}


@needs_hyperscan
def test_lines_of_short_heads_are_not_read_block_by_block() -> None:
    """No run of ``=//4I=`` lines reaches a B64_RUN's length: one pass says so, where each
    64 KB block was translated and scanned."""
    text = "=//4I=\n" * 60_000
    with _calls("_stretches") as scans:
        positions, dense = triggers.dense_text_triggers(text)  # the positions: an array
        assert (list(positions), dense) == ([], [])
    assert [args for args in scans if args[1] == "heads"] == []


# -- the same found ----------------------------------------------------------------------------


#: A credential in UTF-16 base64: only its mark's head (``//4``) tells it. Its bytes are a
#: multiple of three, so no "=" pads it: a run's bytes alone.
_ENCODED_AT_START = base64.b64encode(
    b"\xff\xfe" + "ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j ".encode("utf-16-le")).decode()


@st.composite
def encoded(draw: st.DrawFn) -> str:
    fake = draw(st.sampled_from(FAKES))
    if draw(st.booleans()):
        bom, codec = draw(st.sampled_from(BOMS))
        return base64.b64encode(bom + fake.encode(codec)).decode()
    return base64.b64encode((draw(st.sampled_from(["", "a", "ab"])) + fake).encode()).decode()


#: Runs and what opens them: the openers a translation keeps, the bytes it makes openers
#: ("=", ":", "é", a tab), a JSON escape's letter after a backslash, runs too short to decode.
PIECES = st.one_of(
    st.integers(0, 1 << 16).map(lambda n: _random_b64(60, n)),
    st.sampled_from([" ", "\n", "\n", '"', "\\", "\\n", "=", "==", ":", "é", "\t", ",", "=//4I=",
                     "//4+QUJDREVGR0hJSktMTU5PUFFS", "QUFB" * 6, "c2st", "x" * 25]),
    encoded(),
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    text = "".join(draw(st.lists(PIECES, max_size=40)))
    wrap = draw(st.sampled_from([0, 0, 16, 76]))
    if wrap:
        text = "\n".join(text[at:at + wrap] for at in range(0, len(text), wrap))
    return text


def _answers(text: str) -> Any:
    return [redacted("text", text), redacted("json", orjson.dumps({"s": text}).decode())]


@example(text="x=" + base64.b64encode(b"\xff\xfe" + "ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j"
                                        .encode("utf-16-le")).decode(), block=64)
# Run bytes and a JSON escape alone: the escape's letter opens the run (a "\n" in a log of
# serialized strings), as the translated copy reads it.
@example(text="x\\n" + _ENCODED_AT_START, block=1 << 16)
# One line of run bytes alone, a credential at its start (its head is the data's first).
@example(text=_ENCODED_AT_START + _random_b64(3000, 1), block=1 << 16)
# A head opening a run of just the length that decodes, the only long run in the text.
@example(text=" c2stQUJDREVGR0hJSktM\n", block=1 << 16)
@settings(max_examples=200, deadline=None)
@given(text=texts(), block=st.sampled_from([16, 64, 1 << 16]))
@needs_hyperscan
def test_the_checks_find_what_the_search_without_them_finds(text: str, block: int) -> None:
    """In-process differential: the head search with its two checks against the same search
    without them (blocks made small, so heads and other bytes cross their ends), as positions
    of the translated search and as what a text and a JSON string withhold."""
    engine: Any = triggers.engine()
    raw = text.encode()
    heads = {head for head in triggers._HEADS if head in text}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_HEAD_BLOCK", block)
        got = engine._translated_heads(raw, heads, b"\n", first=False), _answers(text)
        mp.setattr(triggers, "OTHERS_CHECK", False)
        want = engine._translated_heads(raw, heads, b"\n", first=False), _answers(text)
    assert got == want


@settings(max_examples=60, deadline=None)
@given(text=texts())
def test_the_checks_withhold_what_the_code_before_did(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)
    body = orjson.dumps({"s": text}).decode()
    assert redacted("json", body) == code_before_answers("json", body)
