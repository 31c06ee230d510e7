"""A window of candidates that are all dead, told at once (issue 23).

Found by ``bench/redact.py --worst url-token-closers`` (``pwd=x)`` and 35 name chars, 100 a
4 KB on one line, just under the density bound): nothing is withheld, yet each of its 25,000
candidates a MB was a name word's match, its name read, a separator's match and a verdict's
look-up in Python (``generic.find_assignments``), 74-101x prose. Now a window is split at its
name words in C and each distinct (text before, word, text after) judged once
(``generic._dead_stretch``). The work test was red on the code before; what is found is the
same as the loop a candidate at a time (always run) and as the code before where
``ELISION_BEFORE_SRC`` names its ``src`` (a development check, skipped otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import folding, generic
from support.before import redacted
from support.calls import python_calls

# Names at the edges of the loop: glued to name chars up to and past the longest read back
# (96) and forward (192), in any case, after a "/" (a path), as a flag, a header, a cookie.
_NAMES = ["pwd", "PWD", "Pwd", "password", "y" * 35 + "pwd", "y" * 95 + "pwd",
          "y" * 96 + "pwd", "y" * 97 + "pwd", "pwd" + "z" * 190, "/etc/passwd", "--password",
          "-pwd", "Authorization", "cookie", "token", "sort_key", "passwd.", ".pass-",
          "secretary", "api_key", "jwt", "pa\u0130ssword", "x.key"]
_SEPARATORS = ["=", ":", ": ", '"=', "==", "://", " =", "=>", ":=", "\t=", "", "\\\"=", " ",
               "'", '"', '" ', "'\t\t"]
_VALUES = ["x", "ab", "abc", "hunter22", "${X}", "<tok>", "{{v}}", "", "xx", "Zx8Qw3Er5Ty7Ui9Op",
           "'q'", '"dq"', "[1]", "{}", "a" * 4097, "\u00e9t\u00e9", "/home/ada", "None",
           "changeme", "incorrect"]
_CLOSERS = [")", "]", " ", "\n", "<", "$", "{", "/", ",", ";", "&", "y" * 35, "(", "-", "",
            "<a>", "${N}", "{{"]


@st.composite
def _unit(draw: st.DrawFn) -> str:
    return "".join([draw(st.sampled_from(_NAMES)), draw(st.sampled_from(_SEPARATORS)),
                    draw(st.sampled_from(_VALUES)), draw(st.sampled_from(_CLOSERS))])


@st.composite
def dead_windows(draw: st.DrawFn) -> str:
    """Several windows of a unit or two repeated, a drawn unit set among them at a drawn
    place (a window's cut, its end, the text's start), so most windows are dead and some
    hold one live candidate."""
    block = "".join(draw(st.lists(_unit(), min_size=1, max_size=2)))
    text = block * (12_000 // len(block) + 1)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_unit()) + text[at:]
    return draw(st.sampled_from(["", "y", "/", " ", "pwd=x)"])) + text


@contextmanager
def _small_windows(window: int, least: int) -> Iterator[None]:
    """Windows of ``window`` chars, each stretch of ``least`` or more tried: the windows'
    edges of a 64 K window, met in a test's 12 K text."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(folding, "LOWER_WINDOW", window)
        patch.setattr(generic, "_DEAD_LEAST", least)
        patch.setattr(generic, "_SHAPES", False)  # the loop's windows, not a text's shapes
        yield


def _one_at_a_time(run: Callable[[], Any]) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "_DEAD_WINDOWS", False)
        return run()


_SETTINGS = settings(max_examples=80, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(dead_windows(), st.integers(200, 5000), st.sampled_from([1, 64, 2048]))
@example(("pwd=x)" + "y" * 35) * 300, 4096, 2048)  # url-token-closers
@example(("Pwd=x)" + "y" * 35) * 300, 4096, 2048)  # the text's own case read back
@example("y" * 90 + ("pwd=x)" + "y" * 93) * 100, 1000, 1)  # the first name read back over a cut
def test_dead_windows_find_what_the_loop_finds(text: str, window: int, least: int) -> None:
    with _small_windows(window, least):
        slow = _one_at_a_time(lambda: (generic.find_assignments(text), redacted("text", text)))
        assert (generic.find_assignments(text), redacted("text", text)) == slow


def _closers_line(size: int) -> str:
    unit = "pwd=x)" + "y" * 35
    return (unit * (size // len(unit) + 1))[:size]


def test_a_dead_windows_candidates_are_not_a_python_call_each() -> None:
    """Red before: each of the 4,878 ``pwd=x)`` of 200 KB was a call of ``_plain_bare`` and
    more, 4,922 calls in all; now 324, a few a block of 8 K, each distinct candidate judged
    once in it."""
    generic.find_assignments(_closers_line(5000))  # its patterns compiled (a lazy compile)
    text = _closers_line(200_000)
    calls, found = python_calls(lambda: generic.find_assignments(text))
    assert found == []
    assert calls < 500  # a tenth of a call a candidate


def test_a_live_candidate_in_a_dead_line_is_still_withheld() -> None:
    """One real value among the dead ones: its window is read a candidate at a time."""
    text = _closers_line(150_000)
    text = text[:100_000] + " password=Zx8Qw3Er5Ty7Ui9Op " + text[100_000:]
    found = generic.find_assignments(text)
    assert [text[span.start:span.end] for span in found] == ["Zx8Qw3Er5Ty7Ui9Op"]


@_SETTINGS
@given(dead_windows())
def test_dead_windows_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


@pytest.mark.parametrize("live", [
    'password"=Zx8Qw3Er5Ty7Ui9Op)',  # a quote before the separator, the window's edge after it
    "password = Zx8Qw3Er5Ty7Ui9Op)",  # spaces around it
    "password=Zx8Qw3Er5Ty7Ui9Op)",  # the value cut by the edge
    "password=x=Zx8Qw3Er5Ty7Ui9Op)",  # cut after its "=": "x=" alone is too short to withhold
    "yyyyyyyyyyyyyyyyyyyypwd=x)password=Zx8Qw3Er5Ty7Ui9Op)",
])
@pytest.mark.parametrize("shift", range(-30, 4))
def test_a_live_candidate_at_a_windows_edge_is_withheld(live: str, shift: int) -> None:
    """A stretch ends at its window's last char in no name: a candidate it cuts, read alone,
    must not pass for dead where the text after the cut makes it live."""
    window = 1000
    dead = _closers_line(window + shift)
    text = dead + live + _closers_line(3 * window)
    with _small_windows(window, 1):
        slow = _one_at_a_time(lambda: generic.find_assignments(text))
        assert generic.find_assignments(text) == slow
        assert slow  # the live value is withheld
