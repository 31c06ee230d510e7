"""Cookie headers, cookie jars and ``Authorization`` headers that a text repeats, each read in a
bounded number of steps (issue 23, the cookieperf task; ``bench/fuzz_linear.py``'s
``set-cookie-attributes``, ``cookie-nameless``, ``cookie-jar-text``, ``auth-header-letters`` and
``path-header-run`` were 136-474x prose a MB on the code before):

* a cookie header's reading passed a member holding a ``:`` or a ``/`` (``Set-Cookie:`` itself,
  read by an earlier header's reading) and what follows it to the next ``;`` a Python step
  each: now in the same C match as the plain members around it;
* a container written again just as the last one read (``cookies: [{"name": "sid", …}]`` on
  every line of a log) was read again, a Python step a scalar: now told by that reading;
* an ``Authorization:`` header's word and credential, and a path's header's value, were judged
  again at each header, a generator's step a char for the word: now kept a distinct value.

Counted in steps (regex matches, judgements), not timed; each shortcut beside its slow path (or
the code before, where ``ELISION_BEFORE_SRC`` names it) on hostile texts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import authheader, generic, redact_text
from support.before import redacted

S = "Xq7vR2mK9pL4wT8nZ3"


@contextmanager
def _counted(module: Any, *names: str) -> Iterator[Counter[str]]:
    """How often each of ``module``'s ``names`` is used while the block runs: a compiled
    pattern's ``match`` and ``search``, or a function's call."""
    seen: Counter[str] = Counter()

    def wrap(name: str, real: Any) -> Any:
        if callable(real) and not hasattr(real, "match"):
            def call(*args: Any) -> Any:
                seen[name] += 1
                return real(*args)
            return call

        class Pattern:
            def match(self, *args: Any) -> Any:
                seen[name] += 1
                return real.match(*args)

            def search(self, *args: Any) -> Any:
                seen[name] += 1
                return real.search(*args)
        return Pattern()

    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            patch.setattr(module, name, wrap(name, getattr(module, name)))
        yield seen


def _per_unit(module: Any, names: tuple[str, ...], unit: str) -> float:
    """The steps ``names`` take a unit of ``unit * n``: the difference between 300 and 100
    units over 200, once a first call has judged each distinct value (what is judged once,
    and kept, is left out)."""
    generic.find_assignments(unit * 10)
    counts = []
    for n in (100, 300):
        with _counted(module, *names) as seen:
            generic.find_assignments(unit * n)
        counts.append(sum(seen.values()))
    return (counts[1] - counts[0]) / 200


_MEMBER_STEPS = ("_COOKIE_PAIR", "_COOKIE_BARE", "_COOKIE_PLAIN")


@pytest.mark.parametrize(("unit", "most"), [
    # bench/fuzz_linear.py's set-cookie-attributes (was 7 a header: 3 pairs, 2 values, 2 runs)
    (f"Set-Cookie: a=b; Path=/; {S}; ", 4),
    # its cookie-nameless (was 7)
    (f"Cookie: a=b; {S}; HttpOnly; ", 4),
    # a header's name, then a path, each with words before the next ";" (was 13)
    (f"Cookie: a=b; x:y z; path/q r=s; {S}; ", 4),
    # a URL's pair (a name with a ":"), then a comma and words (was 9)
    (f"Set-Cookie: id=1, https://e.io/x?q=1 more; {S}; ", 6),
])
def test_a_line_of_cookie_headers_reads_a_few_members_a_header(unit: str, most: int) -> None:
    """Each header's own value read, its first member, and the members an earlier header's
    reading read on to: a member with a ``:`` or a ``/`` and what follows it passed in C."""
    assert _per_unit(generic, _MEMBER_STEPS, unit) <= most


@pytest.mark.parametrize("unit", [
    'cookies: [{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}] ',  # cookie-jar-text (was 8)
    'log cookies={"sid": "Xq7vR2mK9pL4wT8n", "n": 3}\n',  # a cookie map, a line each (6)
    'secret={"a": "hunter2", "b": [1, 2]} ',  # a strong name's container (9)
    '"authorization": ["Xq7vR2mK9pL4wT8n"], ',  # a header's, read as a password's (3)
])
def test_a_container_written_again_is_read_once(unit: str) -> None:
    assert _per_unit(generic, ("_SCALAR",), unit) == 0


@pytest.mark.parametrize("unit", [
    "authorization: qwertyuiopasdfgh 2024-01-01 ",  # auth-header-letters
    "Authorization: Token Xq7vR2mK9pL4wT8n more\n",  # a scheme and its token
    "/a/authorization:" + "x" * 24,  # path-header-run
    "GET /x/authorization: qwertyuiopasdfgh [retry] ",  # path-header-letters
])
def test_a_header_repeated_is_judged_once(unit: str) -> None:
    """The judgements of a header's word and credential kept a distinct value (each was one
    call of these, or a generator's step a char of the word, a header)."""
    steps = (*_MEMBER_STEPS, "placeholder", "opaque", "prose")
    assert _per_unit(generic, steps, unit) == 0
    with _counted(authheader, "pairwise") as seen:
        generic.find_assignments(unit * 100)
    assert seen["pairwise"] <= 1


# -- The shortcuts against their slow paths -------------------------------------------------------


def _as_its_slow_path(text: str, switch: str) -> None:
    """``text`` redacted as with ``generic``'s ``switch`` off (the shortcut's slow path)."""
    fast = redact_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, switch, False)
        slow = redact_text(text)
    assert (fast.value, list(fast.withheld)) == (slow.value, list(slow.withheld)), text


#: Members a cookie reading passes or reads: names with a ``:`` or a ``/`` and words after
#: them, pairs, generated values, attributes, quotes, backslashes, commas before a name or not.
_COOKIE_MEMBERS = st.sampled_from([
    "a=b", "x:y", "x:y z", "path/q r=s", "Set-Cookie: a=b", "cookie: x", "Cookie: sid=" + S,
    "set-cookie:x", "https://e.io/?q=1", "h:\"q", "p/x,", "p/x, y=z", ":", "/", "a:b\\t",
    "x/y \"quoted\" more", "Path=/", "HttpOnly", S, "sid=" + S, "a,b", "k=", "=x",
    "Expires=Wed, 21 Oct 2026", "x:" + S, "/p/" + S + " more", "a\tb", "",
])
_COOKIE_SEPS = st.sampled_from(["; ", ";", " ; ", ";;", ";\t", ", ", ",  ", ",\t", ",", ",\\t"])


@settings(max_examples=80, deadline=None)
@example(head="Set-Cookie: ", members=["a=b", "Path=/", S] * 3, seps=["; "] * 9)
@example(head="Cookie: ", members=["a=b", "x:y z", "path/q r=s", S] * 3, seps=["; "] * 12)
@example(head="Cookie: ", members=["a", "h:\"q", "sid=" + S], seps=[", ", "; ", ";"])
# no separator after a member with a ":" (passed to the line's end), then a header after it
@example(head="cookie: ", members=["a", "x:y q", "cookie: " + S, "p/x, q"],
         seps=["; ", " ", " ", ","])
@given(head=st.sampled_from(["Cookie: ", "Set-Cookie: ", "cookie:", "log ", ""]),
       members=st.lists(_COOKIE_MEMBERS, max_size=14),
       seps=st.lists(_COOKIE_SEPS, min_size=14, max_size=14))
def test_cookie_members_passed_in_c_withhold_what_each_reading_to_its_line_end_does(
    head: str, members: list[str], seps: list[str]
) -> None:
    line = head + "".join(m + s for m, s in zip(members, seps, strict=False))
    _as_its_slow_path("\n".join([line, line * 3]), "_COOKIES_ONCE")


#: Containers under names of each strength: the same written again, one that differs at its
#: end, one that shares a prefix and goes on (a longer or nested one), unclosed ones, numbers.
_CONTAINERS = st.sampled_from([
    '[{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}]',
    '[{"name": "sid", "value": "Xq7vR2mK9pL4wT8m"}]',
    '[{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}, {"v": "hunter2"}]',
    '[{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}', '{"sid": "Xq7vR2mK9pL4wT8n"}',
    '{"sid": "Xq7vR2mK9pL4wT8n", "n": 3}', '{"sid": "Xq7vR2mK9pL4wT8n", "n": 3.5e2}',
    '["hunter2"]', '["hunter2", "x"]', '{"a": ["hunter2"]}', '{"a": ["hunter2"]', "[1, 2]",
    "[12]", "[]", "{}", '{"type": "hunter2"}', '{"Xq7vR2mK9pL4wT8n": "bob"}', "['hunter2']",
    '[\n"hunter2"\n]', '[{"a": "b"}, ', '{"a": "b"}}', '["a\\"b"]',
])
_CONTAINER_NAMES = st.sampled_from([
    "password=", "cookies: ", "tokens: ", "authorization: ", '"cookies": ', "secret=", "x=",
])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(parts=[("password=", '["hunter2"]'), ("tokens: ", '["hunter2"]')] * 2, glue=" ")
@example(parts=[("cookies: ", '[{"a": "b"}, '), ("cookies: ", '[{"a": "b"}, ')] * 2, glue="")
@given(parts=st.lists(st.tuples(_CONTAINER_NAMES, _CONTAINERS), min_size=1, max_size=12),
       glue=st.sampled_from([" ", "\n", "", "; ", " log "]))
def test_a_container_told_by_the_last_reading_withholds_what_its_own_reading_does(
    parts: list[tuple[str, str]], glue: str
) -> None:
    _as_its_slow_path(glue.join(name + container for name, container in parts),
                      "_BRACKETED_AGAIN")


_HEADER_LINES = st.sampled_from([
    "authorization: qwertyuiopasdfgh 2024-01-01 ", "Authorization: Token Xq7vR2mK9pL4wT8n more",
    "authorization: abc", "Authorization: hunter2x", "authorization: see <docs> here",
    "authorization: invalid token given", "authorization: QwErTyUiOpAsDfGh x", "/a/authorization:",
    "/a/authorization:" + "x" * 24, "GET /x/authorization: qwertyuiopasdfgh [retry]",
    "GET /api/authorization: 405 Method Not Allowed", "/x/authorization: " + S + ".",
    "authorization: Xq7vR2mK-9pL4_wT8n", "Cookie: a=b; " + S, "Set-Cookie: a=b; Path=/; " + S,
    'cookies: [{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}]', "authorization: Custom-Scheme x1y2",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(lines=["authorization: qwertyuiopasdfgh 2024-01-01 ", "/a/authorization:"], glue="")
@given(lines=st.lists(_HEADER_LINES, min_size=1, max_size=10),
       glue=st.sampled_from([" ", "\n", "", "; "]))
def test_repeated_headers_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], lines: list[str], glue: str,
) -> None:
    """Each distinct word and value judged once, the rest told from it: what the code before
    withheld, judging each (skipped where ``ELISION_BEFORE_SRC`` is unset)."""
    text = glue.join(lines * 3)
    assert redacted("text", text) == code_before_answers("text", text)
