"""A long line's base64 runs told quiet in C, a slice of it at a time, and a short piece's
where it holds many (issue 23).

Found by profiling ``bench/fuzz_linear.py``'s ``url-token-closers`` (``pwd=x)`` and 35 name
chars, one 1 MB line just under the density bound): a quarter of its redaction (25 ms of
100 ms CPU a MB) was the base64 runs, one a candidate, each found and asked in Python,
because the hyperscan pass that tells a text's runs quiet (``triggers.quiet_runs``) was asked
only of a text of :data:`scan.WHOLE` chars or less. A longer one is now asked a slice of
:data:`scan._QUIET_SLICE` chars or less at a time, each cut just after a char no run holds,
so no run, head or window is split. What is withheld must be what asking each run finds:
a differential against that path (``_QUIET_RUNS`` off), always run, and against the code
before where ``ELISION_BEFORE_SRC`` names its ``src``.

A piece of :data:`scan._HEADED_MOST` chars or less (``assign-under-limit``'s are 600 chars, a
run of ``x`` on each of its 15 lines) had its runs found and asked in Python, 11 us a piece;
one with :data:`scan._QUIET_FIRST` runs or more is now asked of the same hyperscan pass first.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, scan, triggers
from elision.redact.families import BY_ID, sample
from elision.redact.keywords import B64_HEADS, B64_WINDOW, present
from support.before import redacted

HYPERSCAN = triggers.engine_name() == "hyperscan"

# A run holding a mid-token keyword's window (an Azure client secret's ``Q~``), with no
# keyword's base64 form and no head: only the window's search tells it (checked below); and
# one opening with a head ("password=…" encoded).
_AZURE = sample(BY_ID["azure-ad-client-secret"], 0, "raw")[0]
_WINDOWED = base64.b64encode(f"the value {_AZURE} ok".encode()).decode().rstrip("=")
_HEADED = base64.b64encode(b"password=s3cr3tvalue99").decode()


def test_the_windowed_run_is_told_by_its_window_alone() -> None:
    assert not present(_WINDOWED).base64 and _WINDOWED[:4] not in B64_HEADS
    assert B64_WINDOW.search(_WINDOWED) is not None
    assert redact_text(f"a {_WINDOWED} b").withheld


def _closers(size: int) -> str:
    unit = "pwd=x)" + "y" * 35  # bench/fuzz_linear.py: url-token-closers
    return (unit * (size // len(unit) + 1))[:size]


def _slow(text: str) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "_QUIET_RUNS", False)
        return redacted("text", text)


@pytest.mark.skipif(not HYPERSCAN, reason="runs are told quiet by a hyperscan pass")
def test_a_long_line_of_url_candidates_asks_no_run_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: each of its ~7,300 runs was found and asked in Python."""
    asked = 0
    runs = scan._runs

    def counted(text: str) -> Iterator[tuple[int, int]]:
        nonlocal asked
        for run in runs(text):
            asked += 1
            yield run

    monkeypatch.setattr(scan, "_runs", counted)
    text = _closers(3 * scan.WHOLE)
    assert redact_text(text).withheld == ()
    assert asked == 0


@pytest.mark.parametrize(("run", "inside"), [
    *((_WINDOWED, inside) for inside in range(1, len(_WINDOWED))),
    *((_HEADED, inside) for inside in (1, 2, 3, 4, 5, 20)),
])
def test_a_run_across_a_slices_end_is_found(run: str, inside: int) -> None:
    """A run whose ``inside``-th char is the first past the first slice's chars (the cut
    comes just after the space before it): a slice cut at its length would split its window,
    wherever in the run that is, and hold its head apart from its rest."""
    head = _closers(scan._QUIET_SLICE - inside - 1)
    text = head + " " + run + " " + _closers(scan.WHOLE)
    assert text.index(run) + inside == scan._QUIET_SLICE
    done = redacted("text", text)
    assert done[1], "the run decodes to a credential"
    assert done == _slow(text)


_PIECES = st.one_of(
    st.sampled_from([_WINDOWED, _HEADED, "pwd=x)", "password=hunter22 ", "=", ")", "==",
                     base64.b64encode(b"x123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw").decode(),
                     "QXV0aG9yaXphdGlvbjogQmFzaWMg", "A" * 30]),
    st.text(alphabet="yY0+/_-=) ", min_size=0, max_size=80),
)


@st.composite
def long_lines(draw: st.DrawFn) -> str:
    """One line longer than ``WHOLE``: URL candidates with runs drawn among them, some placed
    near the end of the first slice (where a cut may fall)."""
    parts = draw(st.lists(_PIECES, min_size=1, max_size=12))
    near = draw(st.integers(0, 60))
    body = _closers(scan._QUIET_SLICE - near) + "".join(parts)
    return body + _closers(scan.WHOLE) + "".join(reversed(parts))


@pytest.mark.skipif(not HYPERSCAN, reason="runs are told quiet by a hyperscan pass")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_lines())
@example(_closers(scan._QUIET_SLICE - 10) + _WINDOWED + _closers(scan.WHOLE))
def test_long_lines_are_withheld_as_asking_each_run_does(text: str) -> None:
    assert redacted("text", text) == _slow(text)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_lines())
def test_long_lines_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


# -- a short piece of many runs --------------------------------------------------------------


def _assignments(lines: int) -> str:
    return ("password=hunter2 " + "x" * 23 + "\n") * lines  # assign-under-limit


@pytest.mark.skipif(not HYPERSCAN, reason="runs are told quiet by a hyperscan pass")
def test_a_piece_of_many_quiet_runs_asks_none_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: each piece of assign-under-limit had its runs found one by one."""
    asked = 0
    headed = scan._headed_runs

    def counted(text: str, marks: Any) -> Any:
        nonlocal asked
        asked += 1
        return headed(text, marks)

    monkeypatch.setattr(scan, "_headed_runs", counted)
    assert len(redact_text(_assignments(3000)).withheld) == 3000
    assert asked == 0


_PIECE_PARTS = st.one_of(
    st.sampled_from(["password=hunter2 " + "x" * 23, "api_key=Zx8Qw3Er5Ty7Ui9Op ", _WINDOWED,
                     _HEADED, "A" * 25, "QXV0aG9yaXphdGlvbjogQmFzaWMg", " ", "\n", "=", "==",
                     base64.b64encode(b"token: ghp_" + b"a1B2" * 9).decode()]),
    st.text(alphabet="xyzXYZ019+/_-= \n", max_size=40),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECE_PARTS, min_size=1, max_size=40).map("".join))
@example(_assignments(8) + _WINDOWED + "\n")
@example(_assignments(8) + " " + _HEADED + "\n")
def test_pieces_of_many_runs_are_withheld_as_asking_each_run_does(text: str) -> None:
    assert redacted("text", text) == _slow(text)
