"""Judging a credential's name costs a bounded read, however many names a line holds.

Found by growing the fuzzing harness's units with real values (issue 23): ``password=x`` is a
placeholder, judged in a step, but ``password=hunter2 `` repeated on one line read the rest of
the line at each name (is what follows a message?): 256 KB took 17 s. So did a line of
``authorization: Token …`` (its value is the rest of the line), a line of ``login`` or
``mysql`` words with no ``-p`` (a regex read to the line's end from each), and a text of
``secret={"a": "b", …`` with no closing brace (4 KB read at each name: 280 s a MB), and a
run of ``API_KEY=x_API_KEY=x_…`` with no separator (each value the rest of the run).

The work is counted where it is Python's (the chars handed to the judgements); the regex's is
not countable, so those classes run in a child with a deadline fifty times what they take.
"""

from __future__ import annotations

import re
import subprocess
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


#: Each took from a minute to hours at these sizes (the time was the square of the size);
#: each now takes about a second under load.
DEADLINE = 60.0
SLOW_BEFORE = [
    ("password=hunter2 ", 1 << 19),
    ("api_key=Zx8Qw3Er5Ty7Ui9Op ", 1 << 20),
    ("authorization: Token abcdefgh12 ", 1 << 19),
    ("password=x login ", 1 << 19),
    ("password=x mysql ", 1 << 19),
    ('secret={"a": "b", ', 1 << 19),
    ("\\u0070assword=hunter2 ", 1 << 20),
    ("SE9ORVlCQURHRVJfQVBJX0tFWT1oYnBf", 1 << 19),  # base64 of HONEYBADGER_API_KEY=hbp_
]


@pytest.mark.parametrize(("unit", "size"), SLOW_BEFORE, ids=[u for u, _ in SLOW_BEFORE])
def test_a_megabyte_of_one_repeated_assignment_is_redacted_in_time(unit: str, size: int) -> None:
    code = ("import sys; from elision.redact import redact_text; "
            f"redact_text({unit!r} * ({size} // {len(unit)}))")
    done = subprocess.run([sys.executable, "-c", code], timeout=DEADLINE, check=False)
    assert done.returncode == 0


# -- the -p flags: the same as the one regex they were ------------------------------------

_BEFORE = re.compile(
    r"""(?:\blogin\b[^\n]*?[ \t]-p[ \t]+|\bsshpass[ \t]+-p[ \t]*"""
    r"""|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?[ \t]-p(?=[^\s-]))"""
)
_PIECES = st.sampled_from([
    "login", "sshpass", "mysql", "mysqldump", "mariadb", "xlogin", "loginx", " ", "\t", "\n",
    "-p", "-p ", "-px", "-p-", "x", "docker ", "-u me ", "\r\n", "mysqladmin", "logins",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_password_flags_are_where_the_regex_found_them(text: str) -> None:
    assert list(password_flags(text)) == [m.end() for m in _BEFORE.finditer(text)]


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
