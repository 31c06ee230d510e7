"""A lazily read array of strings that each hold a keyword (``["sk-0", "sk-1", …]``), judged a
piece at a time.

Through ``shape()`` a MB of ``json-strings-sk-numbered`` is read lazily and its 116 pieces of
about 9 KB are each searched for triggers (issue 23: 2.3x prose): each piece's first window
made a hundred Python calls of the match handler before it turned credential-dense (11,700 a
MB), where the windows after a dense one are counted in C by the forms it held. Now a piece's
first window is counted in C by the forms of the last dense window the same database met, and
searched as before where they do not fill it. The counting test was red on the code before;
the verdicts are the same as with the hint off (in process, always run) and as the code
before's (where ``ELISION_BEFORE_SRC`` names its ``src``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.redact import triggers
from elision.redact.families import FAMILIES, sample
from support.before import redacted
from support.built import strategies_built

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan's dense windows")

FAKES = [sample(f, 0, "w")[0] for f in FAMILIES if f.finder != "field"][::9]


def _numbered(size: int) -> bytes:
    return orjson.dumps([f"sk-{i}" for i in range(size // 12)])


@pytest.fixture
def forms_asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times a dense window's forms were read from its matches (once a window that
    a hundred Python calls found dense)."""
    engine: Any = triggers.engine()
    # The forms are the thread's since its last dense window: a test before this one in the
    # same worker left some, and the first piece then asked none (the suite's order decided).
    engine._dense_forms().clear()
    asked: list[int] = []
    real = engine._forms

    def counting(data: Any, marks: list[tuple[int, int]], gates: frozenset[int]) -> Any:
        asked.append(len(marks))
        return real(data, marks, gates)

    monkeypatch.setattr(engine, "_forms", counting)
    yield asked


@needs_hyperscan
def test_the_pieces_of_a_lazy_array_of_keywords_are_counted_in_c(forms_asked: list[int]
                                                                  ) -> None:
    """A MB of ``sk-N`` strings through ``shape()``: one window made the hundred calls that
    turn it dense, not one for each of the 116 pieces."""
    shaped = shape(_numbered(1 << 20), budget=Budget(4096))
    assert shaped.text
    assert 1 <= len(forms_asked) <= 2


@needs_hyperscan
def test_a_text_s_first_window_is_searched_as_before(forms_asked: list[int]) -> None:
    """A text's dense windows decide what is withheld unread: its first window is always
    searched, whatever a JSON scan met before."""
    shape(_numbered(1 << 18), budget=Budget(4096))
    before = len(forms_asked)
    text = "\n".join(f"password=x{i}" for i in range(2000))
    triggers.dense_text_triggers(text)
    triggers.dense_text_triggers(text)
    assert len(forms_asked) - before == 2


_UNITS = st.sampled_from(["sk-", "password=", "token:", "ok", "the", "1", "x" * 30, "\\u0041"])
# Built once, not for every item of every array (a list's sampled_from is not cached).
_COUNT, _KIND, _FAKE, _NUMBER = (st.integers(0, 120), st.integers(0, 9), st.sampled_from(FAKES),
                                 st.integers(0, 999))
_NOTE, _WORD = st.lists(_UNITS, max_size=20), st.lists(_UNITS, min_size=1, max_size=4)


@st.composite
def dense_arrays(draw: st.DrawFn) -> bytes:
    """An array of short strings, most of them spelling keywords (dense), some fakes of
    each family among them, some strings long enough to cross a window's end."""
    items: list[Any] = []
    for _ in range(draw(_COUNT)):
        kind = draw(_KIND)
        if kind == 0:
            items.append(draw(_FAKE))
        elif kind == 1:
            items.append({"note": "".join(draw(_NOTE))})
        else:
            items.append("".join(draw(_WORD)) + str(draw(_NUMBER)))
    return orjson.dumps(items)


@needs_hyperscan
@settings(max_examples=150, deadline=None)
@given(dense_arrays(), dense_arrays())
def test_verdicts_with_the_first_window_counted_are_those_without(primer: bytes, body: bytes
                                                                   ) -> None:
    """Differential: a document redacted after another (whose dense forms it is counted by)
    withholds what it withholds with the first window always searched (windows made small,
    so most documents hold several and many are dense)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "DENSE_WINDOW", 256)
        mp.setattr(triggers, "DENSE_LIMIT", 8)
        mp.setattr(triggers, "DENSE_GOES_ON", 3)
        redacted("json", primer.decode())
        got = redacted("json", body.decode())
        mp.setattr(triggers, "DENSE_FIRST", False)
        redacted("json", primer.decode())
        want = redacted("json", body.decode())
    assert got == want


@settings(max_examples=40, deadline=None)
@given(dense_arrays())
def test_dense_arrays_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], body: bytes,
) -> None:
    """Against the code before, after a primer that leaves the forms of ``sk-`` strings."""
    redacted("json", _numbered(1 << 14).decode())
    assert redacted("json", body.decode()) == code_before_answers("json", body.decode())


def test_drawing_an_array_builds_no_strategy() -> None:
    """Red before: each item of each array built its strategies again."""
    assert strategies_built(dense_arrays(), examples=5) < 20
