"""Judging a credential's name costs a bounded read, however many names a line holds.

Found by growing the fuzzing harness's units with real values (issue 23): ``password=x`` is a
placeholder, judged in a step, but ``password=hunter2 `` repeated on one line read the rest of
the line at each name (is what follows a message?): 256 KB took 17 s. So did a line of
``authorization: Token …`` (its value is the rest of the line), a line of ``login`` or
``mysql`` words with no ``-p`` (a regex read to the line's end from each), and a text of
``secret={"a": "b", …`` with no closing brace (4 KB read at each name: 280 s a MB), and a
run of ``API_KEY=x_API_KEY=x_…`` with no separator (each value the rest of the run).

The work is counted where it is Python's (the calls, the chars handed to the judgements), at
two sizes; the regex's own is not countable, and is held to what a linear scan finds.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_text
from elision.redact.commands import password_flags
from elision.redact.families import FAMILIES, sample


@contextmanager
def _chars_judged(name: str) -> Iterator[list[int]]:
    """The length of each string handed to ``generic.<name>``."""
    seen: list[int] = []
    real: Callable[[str], Any] = getattr(generic, name)

    def counting(value: str) -> Any:
        seen.append(len(value))
        return real(value)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, name, counting)
        yield seen


@pytest.mark.usefixtures("unbounded")
@pytest.mark.parametrize("unit", ["password=hunter2 ", "password=correcthorse "])
def test_a_line_of_assignments_reads_each_message_to_61_words(unit: str) -> None:
    text = unit * 4000
    with _chars_judged("prose") as seen:
        done = redact_text(text)
    assert len(done.withheld) == 4000
    assert max(seen, default=0) <= 61 * len(unit)


@pytest.mark.parametrize("unit", [
    "Authorization: Custom abcdefgh12 ",  # each withheld value reaches the line's end
    "Authorization: ${TOKEN} ",  # a placeholder: each read, but no further than 8 KB
])
def test_a_line_of_headers_is_read_a_bounded_number_of_times(unit: str) -> None:
    text = unit * 20_000
    with _chars_judged("placeholder") as seen:
        redact_text(text)
    assert sum(seen) <= 16 * len(text) + generic._LONGEST_HEADER ** 2 // 16


@pytest.mark.parametrize("unit", ["token=", "API_KEY=x_", "HONEYBADGER_API_KEY=hbp_"])
def test_a_run_of_names_with_no_separator_is_read_once(unit: str) -> None:
    """Found by ``bench/fuzz_linear.py``'s drawn units: the base64 of the last unit, repeated,
    decodes to one run in which each name's value was the rest of the run."""
    text = unit * 20_000
    with _chars_judged("placeholder") as seen:
        shown = redact_text(text).value
    assert sum(seen) <= 2 * len(text)
    assert "x_" not in shown and "hbp_" not in shown.replace("HONEYBADGER_API_KEY=", "", 1)


@pytest.mark.usefixtures("unbounded")
def test_a_text_of_unclosed_containers_is_read_twice_at_most() -> None:
    text = 'secret={"a": "b", ' * 4000
    with _chars_judged("placeholder") as seen:
        done = redact_text(text)
    assert sum(seen) <= 2 * len(text)
    assert "b" not in done.value.replace("[credential withheld: credential-assignment]", "")


#: Each took from a minute to hours at a megabyte (the time was the square of the size). The
#: work is counted at two sizes, a quarter and the whole, instead of timed: a count does not move
#: with the machine's load, and the square of the size shows at these sizes as at a megabyte.
SLOW_BEFORE = [
    "password=hunter2 ",
    "password=correcthorse ",
    "api_key=Zx8Qw3Er5Ty7Ui9Op ",
    "authorization: Token abcdefgh12 ",
    "password=x login ",
    "password=x mysql ",
    # commands.py's openings with no password after them, and one read at each
    "password=x curl -u x ",
    "password=x alter role ",
    'password=x variable "db_password" { ',
    "curl -u admin:hunter2x ",
    'secret={"a": "b", ',
    "\\u0070assword=hunter2 ",
    "SE9ORVlCQURHRVJfQVBJX0tFWT1oYnBf",  # base64 of HONEYBADGER_API_KEY=hbp_
]
_SMALL = 1 << 15
#: Four times the size: linear work is about four times the count (up to 7.4 seen, as fixed
#: chunks and bounds fill), work the square of the size sixteen.
_MOST_GROWTH = 10


def _work(text: str) -> tuple[int, int]:
    """The Python calls ``redact_text(text)`` makes and the chars of the distinct strings they
    are handed: a judgement of the rest of a line at each name is a new, longer string each
    time (a string handed again, the text or a chunk, counts once)."""
    calls, chars, seen = 0, 0, {}

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls, chars
        if event != "call":
            return
        calls += 1
        code, local = frame.f_code, frame.f_locals
        for name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
            value = local.get(name)
            if isinstance(value, str | bytes) and id(value) not in seen:
                seen[id(value)] = value  # held, so no later string takes its id
                chars += len(value)

    sys.setprofile(count)
    try:
        redact_text(text)
    finally:
        sys.setprofile(None)
    return calls, chars


@pytest.mark.parametrize("bound", ["bounded", "unbounded"])
@pytest.mark.parametrize("unit", SLOW_BEFORE)
def test_one_repeated_assignment_costs_work_linear_in_its_size(
    unit: str, bound: str, request: pytest.FixtureRequest
) -> None:
    """Was a wall-clock test (a megabyte in a child, 60 s); counted now, with the density
    bound (which withholds such a text unread) and without it (the judge itself).

    What the count cannot see is a regex's own reading inside one call: the -p flags' regex
    read to the line's end from each word is held to :func:`password_flags` below."""
    if bound == "unbounded":
        request.getfixturevalue("unbounded")
    redact_text(unit * 8)  # databases and caches, built
    small = _work(unit * (_SMALL // len(unit)))
    large = _work(unit * (4 * _SMALL // len(unit)))
    assert large[0] <= _MOST_GROWTH * small[0], ("calls", small, large)
    assert large[1] <= _MOST_GROWTH * max(small[1], _SMALL), ("chars", small, large)


# -- the -p flags: the same as the one regex they were ------------------------------------

_BEFORE = re.compile(
    r"""(?:\blogin\b[^\n]*?[ \t]-p[ \t]+|\bsshpass[ \t]+-p[ \t]*"""
    r"""|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?[ \t]-p(?=[^\s-])"""
    # curl's user and password, SQL's, PHP's define, HCL's variable, Oracle's URL
    r"""|\bcurl\b[^\n]*?[ \t](?:-[uU][ \t]*|--(?:proxy-)?user(?:[ \t]+|=))["']?[^\s:"']*:"""
    r"""|\b(?i:create|alter)[ \t]+(?i:user|role)\b[^\n]*?"""
    r"""[ \t](?i:password[ \t]+(?=["'])|identified[ \t]+by[ \t]+)"""
    r"""|\b(?i:identified)[ \t]+(?i:by)[ \t]+(?=["'])"""
    r"""|\bdefine\([ \t]*["'](?P<dname>[A-Za-z0-9_.-]{1,96})["'][ \t]*,[ \t]*(?=["'])"""
    r"""|\bvariable[ \t]+"(?P<vname>[A-Za-z0-9_.-]{1,96})"[ \t]*\{[^}]*?\bdefault[ \t]*=[ \t]*"""
    r"""|\bjdbc:oracle:[A-Za-z0-9]{1,16}:[^\s/@:"']{1,256}/(?=[^\s/@"']{1,256}(?P<at>@)))"""
)
_PIECES = st.sampled_from([
    "login", "sshpass", "mysql", "mysqldump", "mariadb", "xlogin", "loginx", " ", "\t", "\n",
    "-p", "-p ", "-px", "-p-", "x", "docker ", "-u me ", "\r\n", "mysqladmin", "logins",
    "curl", "curlx", "-u", "-U", "--user", "--user=", "--proxy-user ", "a:", ":", '"', "'",
    "CREATE", "alter", "user", "Role", "password", "PASSWORD '", "identified by ", "by",
    "define(", "'DB_PASSWORD'", ", ", "variable", ' "db_password" ', "{", "}", "default = ",
    "jdbc:oracle:thin:", "scott/", "@", "/",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_password_flags_are_where_the_regex_found_them(text: str) -> None:
    assert [tuple(flag) for flag in password_flags(text)] == [
        (m.end(), m.group("dname") or m.group("vname"), m.start("at"))
        for m in _BEFORE.finditer(text)]


# -- fail closed: past what may be read, more is withheld, never less --------------------

_FAKES = [sample(f, 0, "dense")
          for f in FAMILIES if f.finder != "field" and "\n" not in sample(f, 0, "dense")[0]]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(_FAKES), st.integers(200, 400), st.sampled_from([
    'secret={"a": "b", ',  # containers read past their budget
    "Authorization: Custom x1 ",  # a header line past 8 KB
    "password=hunter2 ",
    "Authorization: ${TOKEN} ",
    "API_KEY=x_",  # one bare value with no end in sight
]))
def test_a_credential_in_dense_hostile_noise_is_withheld(
    fake: tuple[str, tuple[str, ...]], repeats: int, unit: str
) -> None:
    text, secrets = fake
    hostile = unit * repeats
    for placed in (f"{hostile}{text} {hostile}", f"{hostile}\n{text}\n{hostile}",
                   f'{hostile}secret={{"k": "{text}"}}'):
        shown = redact_text(placed).value
        assert not any(secret in shown for secret in secrets)


class _ReadSeparators:
    """``generic._SEP_BARE`` whose matches add up the chars each read past its name."""

    def __init__(self, real: Any) -> None:
        self.real, self.read = real, 0

    def compiled(self) -> _ReadSeparators:
        return self

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        found = self.real.compiled().match(text, pos)
        if found is not None:
            self.read += found.end() - pos
        return found


@pytest.mark.parametrize("unit", ["HONEYBADGER_API_KEY=hbp_", "api_key=x_"])
def test_names_inside_a_withheld_value_do_not_read_it_again(unit: str) -> None:
    """Red before: the separator's match, which reads the bare value after it in the same
    regex, read the rest of a run of ``API_KEY=x_API_KEY=x_…`` at every name in it (the value
    withheld at the first name ends where the run does), though the value is not judged
    there: the base64 of 256 KB of it took 2.3 s with the regex passes (which judge the
    decoded run), 64 KB 0.18 s. Counted: the chars the separators' matches read, at two sizes."""
    read = []
    for count in (1000, 4000):
        text = unit * count
        reader = _ReadSeparators(generic._SEP_BARE)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(generic, "_SEP_BARE", reader)
            found = generic.find_assignments(text)
        assert [(span.start, span.end) for span in found] == [(unit.index("=") + 1, len(text))]
        read.append(reader.read)
    assert read[1] <= 5 * read[0] and read[1] <= 4 * generic._LONGEST_VALUE + 40 * 4000


@pytest.mark.parametrize("unit", [
    ":authorization:" + "x" * 26,  # the first header's value is withheld to the line's end
    "/a/authorization:" + "x" * 24,  # a path's header name: its value is read to a colon
])
def test_names_inside_a_withheld_header_do_not_read_its_line_again(unit: str) -> None:
    """Red before: each name's separator match read a bare value to the end of the run,
    though the first header's value, withheld to the line's end, held the name and its value
    (128 KB of the first unit took 0.9 s, 4x each doubling; the second, a name after a path,
    is read since the slashnames work). Counted: the chars the separators' matches read."""
    read = []
    for count in (1000, 4000):
        reader = _ReadSeparators(generic._SEP_BARE)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(generic, "_SEP_BARE", reader)
            generic.find_assignments(unit * count)
        read.append(reader.read)
    assert read[1] <= 5 * read[0] and read[1] <= 4 * generic._LONGEST_VALUE + 40 * 4000


def _merged(spans: list[Any]) -> list[tuple[int, int]]:
    """The stretches the spans cover, overlapping ones merged."""
    out: list[tuple[int, int]] = []
    for start, end in sorted((s.start, s.end) for s in spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


_RUN_PIECES = st.sampled_from([
    "API_KEY=", "api_key=", "password=", "Authorization=", "cookie=", "session_cookie=", "x_",
    "hbp_", "a1B2c3", "=", ":", " ", "\t", "\n", '"', "'", "-", "--password ", "<T>", "${X}",
    "Authorization: Custom abcdefgh12", "sid=abc123;", "[", "{",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(_RUN_PIECES, min_size=1, max_size=40), st.integers(1, 30))
def test_names_inside_a_withheld_value_are_judged_as_before(
    pieces: list[str], repeat: int
) -> None:
    """The shortcut above answers what the separator's match and the judging would have: the
    spans are the same with it told never to skip (a header's or a cookie's name inside a
    withheld value is still read)."""
    text = "".join(pieces) * repeat
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_SHAPES", False)  # the loop's shortcut, not a text's shapes
        now = [(s.start, s.end, s.rule) for s in generic.find_assignments(text)]
        mp.setattr(generic, "_inside_withheld", lambda *args: False)
        before = [(s.start, s.end, s.rule) for s in generic.find_assignments(text)]
    assert now == before


@settings(max_examples=150, deadline=None)
@given(st.lists(_RUN_PIECES | st.sampled_from(["/a/", "GET /x/Authorization: ", "Token "]),
                min_size=1, max_size=40), st.integers(1, 30))
def test_names_inside_a_withheld_header_are_withheld_as_when_read(
    pieces: list[str], repeat: int
) -> None:
    """The names passed over inside a header's value withheld to its line's end add nothing:
    what is withheld covers the same chars when each of them is read."""
    text = "".join(pieces) * repeat
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_SHAPES", False)
        now = _merged(generic.find_assignments(text))
        mp.setattr(generic, "_SKIP_IN_HEADERS", False)
        assert now == _merged(generic.find_assignments(text))
