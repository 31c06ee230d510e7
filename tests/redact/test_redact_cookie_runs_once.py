"""A cookie header's run of members written again and again is read once, its spans moved on.

Found by profiling ``bench/fuzz_linear.py``'s ``cookie-nameless`` and ``set-cookie-attributes``
(a line of 1 MB of ``Cookie: a=b; <value>; HttpOnly; `` or ``Set-Cookie: a=b; Path=/;
<value>; `` headers, 184 and 182 ms alone, 230x prose; issue 23): the first header's reading
went on to the line's end, three Python steps a header, each member matched, its separator
searched for and its value judged. Where the text from a member on repeats the stretch read
since an earlier member of the same reading (a ``;`` in it), the reading of each copy reads
the same chars from the same offsets (no member's reading reads past the first ``;`` after the
next member's start), so that stretch's spans are moved on to each copy but the last,
which is read as before. These check the spans are the ones each member's reading gives
(``generic._COOKIES_AGAIN`` off), and that a long line of headers is judged a few times, not a
time a header.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_text

_VALUE = "Xq7vR2mK9pL4wT8nZ3"

# The members and separators a reading tells apart: pairs withheld and not, values with no
# name, flags, attributes, a header's name or a path (passed unread), an Expires date's comma,
# a quote and a backslash (a value's end), line breaks (the reading's end).
_PIECES = ["Cookie: ", "Set-Cookie: ", "a=b", f"sid={_VALUE}", _VALUE, "HttpOnly", "Path=/",
           "; ", ";", ", ", ",", " ", "x:y", "\n", "token=", '"', "\\", "=",
           "Expires=Wed, 21 Oct 2026 07:28:00 GMT", "q", "[credential withheld: x]"]
# A header, a few members, a stretch written again and again (most often ending in a ";",
# as a run read once does), a tail.
_RUNS = st.tuples(
    st.sampled_from(["Cookie: ", "Set-Cookie: ", "cookie=", ""]),
    st.lists(st.sampled_from(_PIECES), max_size=4).map("".join),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join),
    st.sampled_from(["; ", ";", ""]),
    st.integers(1, 12),
    st.lists(st.sampled_from(_PIECES), max_size=4).map("".join),
).map(lambda t: t[0] + t[1] + (t[2] + t[3]) * t[4] + t[5])


def _each_member_read(text: str, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as patch:
        patch.setattr(generic, "_COOKIES_AGAIN", False)
        return generic.find_assignments(text)


@settings(max_examples=300, deadline=None)
@given(text=_RUNS)
def test_a_run_read_once_finds_what_each_members_reading_finds(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        slow = _each_member_read(text, patch)
    assert generic.find_assignments(text) == slow


@pytest.mark.parametrize("text", [
    # the bench's rows, a few copies
    f"Cookie: a=b; {_VALUE}; HttpOnly; " * 40,
    f"Set-Cookie: a=b; Path=/; {_VALUE}; " * 40,
    # copies with no ";" (commas alone): each read, as before
    f"Cookie: a=b, sid={_VALUE}, " * 40,
    # the run ends in another tail: the last copy and it read as before
    f"Cookie: a=b; {_VALUE}; " * 40 + f"sid={_VALUE}\nCookie: x",
    # a value ended by the comma before the next copy's name (``sid=<value>,x=1``): after the
    # last copy the comma ends none, and its reading reads on into what follows
    "Cookie: " + f"x=1; sid={_VALUE}," * 12 + "tail",
    "Cookie: " + f"x=1; sid={_VALUE}, " * 12 + "tail words",
    # the run read from a pair after a comma: its copies end in that comma, whose reading
    # reads the next copy's name (the last copy's value reads on, ``<value>,tail``)
    "Cookie: a=1, " + f"sid={_VALUE},tok={_VALUE}; " * 12 + f"sid={_VALUE},tail",
    # a line break every few copies: no copy crosses it
    (f"Cookie: a=b; sid={_VALUE}; " * 9 + "\n") * 5,
    # a quoted value and a folded Set-Cookie's date in each copy
    f'Set-Cookie: sid="{_VALUE}"; Expires=Wed, 21 Oct 2026 07:28:00 GMT, tok={_VALUE}; ' * 30,
    # one header, its members repeated (no name between them)
    "Cookie: " + f"sid={_VALUE}; a=b; " * 50,
    # a stub elision wrote, repeated: never withheld again
    "Cookie: a=b; " + "sid=[credential withheld: x]; " * 20,
])
def test_sharp_edges_read_as_each_member(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = redact_text(text)
    monkeypatch.setattr(generic, "_COOKIES_AGAIN", False)
    assert redact_text(text) == fast


def test_a_line_of_cookie_headers_is_judged_a_few_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 headers on one line, each with a generated value with no name: each value and
    each flag was judged by ``opaque`` in the first header's reading (4,000 calls on
    ac16386); the run is now judged a few copies' worth. Every value is still withheld."""
    calls = []
    opaque = generic.opaque

    def counted(value: str) -> bool:
        calls.append(value)
        return opaque(value)

    monkeypatch.setattr(generic, "opaque", counted)
    result = redact_text(f"Cookie: a=b; {_VALUE}; HttpOnly; " * 2000)
    assert len(calls) < 20
    assert _VALUE not in result.value
    assert len(result.withheld) == 2000
