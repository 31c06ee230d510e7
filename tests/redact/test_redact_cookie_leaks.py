"""Cookie forms that showed a session's value, each listed under "Not yet" in docs/design.md
and in issue 23's leaks (the leakcookie task; each shown by ``redact_text``, a JSON string,
NDJSON, the proxy's egress gate and ``shape()`` on the code before):

* ``Set-Cookie: sid=x; Path=/; <value>; HttpOnly``: a value with no name in the attributes'
  place (or after a named one) was not read: only the first pair of ``Set-Cookie`` was.
* ``Cookie: a=b; x:y; sid=<value>``, ``Cookie: a=b; path/x; session=<value>``: a member or a
  pair's name holding a ``:`` or a ``/`` (a header's name, a URL, a path) ended the reading,
  so the pairs after it were shown.
* ``"cookies": {"sid": "<value>"}``, ``cookies: [{"name": "sid", "value": "<value>"}]`` in a
  text (a log line, not parsed JSON): read as a header's value, the container's strings were
  shown (the walk of parsed JSON withheld them).

A reading that goes on past such a member must stay linear: a line of ``cookie: x; …``
names, each of whose readings went on to the line's end, was quadratic (41 s for 400 KB on
the code before; the last test counts the members read).
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_text, redact_value
from redact.test_redact_header_quote_leaks import _all_routes
from redact.test_redact_header_values import _secret
from support.cookies import assert_read_once_as_to_each_end

S = _secret(23)


def _withheld_everywhere(line: str, secret: str, *kept: str) -> None:
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, line, shown)
        for part in kept:
            assert part in shown, (route, line, part, shown)


# -- Set-Cookie: a value with no name in the attributes' place -----------------------------------


@pytest.mark.parametrize(("line", "kept"), [
    (f"Set-Cookie: sid=x; Path=/; {S}; HttpOnly", ("sid=x; Path=/; ", "; HttpOnly")),
    (f"Set-Cookie: a=b; {S}", ("Set-Cookie: a=b; ",)),
    (f"Set-Cookie: theme=dark; Secure; {S}; SameSite=Lax", ("Secure; ", "; SameSite=Lax")),
    # after an Expires date (its comma and spaces) and a Max-Age
    (f"Set-Cookie: a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=60; {S}",
     ("Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=60; ",)),
    # an unknown attribute's generated value is read as a pair's
    (f"Set-Cookie: a=1; Path=/; sid2={S}; Secure", ("Path=/; sid2=", "; Secure")),
])
def test_set_cookie_withholds_a_nameless_value_in_the_attributes_place(
        line: str, kept: tuple[str, ...]) -> None:
    _withheld_everywhere(line, S, *kept)


# -- Cookie: the pairs after a member holding a ':' or a '/' -------------------------------------


@pytest.mark.parametrize(("line", "kept"), [
    (f"Cookie: a=b; x:y; sid={S}", ("a=b; x:y; sid=",)),
    (f"Cookie: a=b; path/x; session={S}", ("a=b; path/x; session=",)),
    (f"Cookie: a=b; token:=None; sid={S}", ("token:=None; sid=",)),
    (f"Cookie: a=b; https://example.com/items/7?page=2&sort=asc; sid={S}",
     ("https://example.com/items/7?page=2&sort=asc; sid=",)),
    (f"Cookie: a=b; x:y; {S}", ("a=b; x:y; ",)),  # a nameless value after it too
    (f"Cookie: /a/b; sid={S}", ("/a/b; sid=",)),  # the first member itself
    (f"Set-Cookie: sid=x; Path=/; x:y; {S}", ("Path=/; x:y; ",)),
])
def test_cookie_pairs_after_a_member_with_a_colon_or_a_slash_are_read(
        line: str, kept: tuple[str, ...]) -> None:
    _withheld_everywhere(line, S, *kept)


@pytest.mark.parametrize(("line", "kept"), [
    # the first reading ended (an empty member, a quoted one): the next name's reads on
    (f"Cookie: a=b;;cookie: x; sid={S};", ("a=b;;cookie: x; sid=",)),
    (f'Cookie: a=b; "q"; cookie: x; sid={S}', ('"q"; cookie: x; sid=',)),
    # the first reading read past the second name: the second stops there, nothing lost
    (f"Cookie: a=b; cookie=x; c=d; sid={S}; e=f", ("cookie=x; c=d; sid=", "; e=f")),
])
def test_a_later_cookie_name_on_the_line_reads_what_no_reading_read(
        line: str, kept: tuple[str, ...]) -> None:
    _withheld_everywhere(line, S, *kept)


def test_each_line_of_cookie_headers_is_read_on_its_own() -> None:
    text = f"Cookie: a=b; x:y; c=d\nCookie: e=f; sid={S}\nSet-Cookie: g=h; {S}x; Path=/"
    shown = str(redact_text(text).value)
    assert S not in shown, shown
    assert shown.count("[credential withheld: session-cookie]") == 2, shown


@pytest.mark.parametrize("line", [
    # a URL's query is no cookie's pair, wherever the URL stands
    "Cookie: a=b; seen; https://example.com/items/7?page=2&sort=asc",
    "Cookie: a=b; x:y; https://example.com/p?state=Zq8Wm3Xr5Tv7Yp9K; c=d",
    "Cookie: a=b; /v1/items?cursor=Zq8Wm3Xr5Tv7Yp9K; theme=dark",
    # attributes and flags: nothing generated
    "Set-Cookie: sid=x; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=3600",
    "Set-Cookie: id=1; Domain=example.com; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
])
def test_a_cookie_reading_shows_what_is_no_cookie(line: str) -> None:
    assert redact_text(line).value == line


# -- A cookie map or array in a text ------------------------------------------------------------


@pytest.mark.parametrize(("line", "kept"), [
    (f'request sent "cookies": {{"sid": "{S}"}} done', ('"cookies": {"sid": "', '"} done')),
    (f'cookies: [{{"name": "sid", "value": "{S}"}}] ok', ('"name": "sid", "value": "',)),
    (f"cookies={{'sessionid': '{S}', 'theme': 'dark'}}", ("'theme': 'dark'",)),
    (f'Cookie: {{"sid": "{S}"}}', ('Cookie: {"sid": "',)),
    (f'"session_cookie": ["{S}"]', ('"session_cookie": ["',)),
    # a cookie jar's dump: domain, path and flags kept
    (f'cookies: [{{"domain": ".example.com", "path": "/", "secure": true, "value": "{S}"}}]',
     ('"domain": ".example.com", "path": "/", "secure": true',)),
])
def test_a_cookie_map_or_array_in_a_text_withholds_its_values(
        line: str, kept: tuple[str, ...]) -> None:
    _withheld_everywhere(line, S, *kept)


def test_a_cookie_map_in_a_text_written_as_a_json_string_withholds_its_values() -> None:
    """A text's JSON written in a JSON string, its quotes escaped (in a walked JSON string it
    is a level deeper: test_a_cookie_map_a_level_or_more_of_json_in_json_down_is_withheld)."""
    line = f'{{\\"cookies\\": {{\\"sid\\": \\"{S}\\"}}}}'
    shown = str(redact_text(line).value)
    assert S not in shown, shown
    assert '\\"sid\\": \\"' in shown, shown


def _nested(value: Any, levels: int, prose: str = "log") -> str:
    """``value`` as JSON text in a log line, that line in a JSON object's string ``levels``
    times over (JSON-in-JSON: each level escapes the quotes of the one inside it)."""
    text = f"{prose} {json.dumps(value)} done"
    for _ in range(levels):
        text = json.dumps({"body": text})
    return text


@pytest.mark.parametrize(("value", "levels", "kept"), [
    # a cookie map, a jar's list, as the task's leak wrote them: a level and two down (a
    # level more walked)
    ({"cookies": {"sid": S}}, 2, ("cookies", "sid")),
    ({"cookies": {"sid": S}}, 3, ("cookies", "sid")),
    ({"cookies": [{"name": "sid", "value": S, "path": "/"}]}, 2, ("name", "path")),
    ({"cookies": {"jar": {"theme": "dark", "sid": [S]}}}, 2, ("theme", "dark")),
    # a name ending in cookies (its quote after 3, 7 or 15 backslashes), the other weak
    # plurals, five levels down walked (a run of 31)
    ({"authCookies": {"sid": S}}, 2, ("authCookies", "sid")),
    ({"authCookies": {"sid": S}}, 3, ("authCookies", "sid")),
    ({"cookies": {"sid": S}}, 4, ("cookies", "sid")),
    ({"tokens": {"alice": S}}, 2, ("tokens", "alice")),
    ({"jwts": [S]}, 3, ("jwts",)),
])
def test_a_cookie_map_a_level_or_more_of_json_in_json_down_is_withheld(
        value: Any, levels: int, kept: tuple[str, ...]) -> None:
    """Found from design.md's "Not yet" (the cookiecomma task): a text inside a JSON string's
    JSON holding ``"cookies": {"sid": S}`` showed S, on the text route and walked, as the
    other weak plurals' did (only ``"cookies"`` and ``\\"cookies\\"`` were triggers)."""
    text = _nested(value, levels)
    for route, shown in _nested_routes(text).items():
        assert S not in shown, (route, shown)
        for part in kept:
            assert part in shown, (route, part, shown)


def _nested_routes(text: str) -> dict[str, str]:
    """What ``text`` shows as a text, and walked as a JSON object's string (a level more)."""
    return {"text": str(redact_text(text).value),
            "walked": json.dumps(redact_value({"log": text}).value)}


@pytest.mark.parametrize("value", [
    # a usage log's counts under names ending in tokens, a level and two down
    {"usage": {"prompt_tokens": 12, "total_tokens": 40}},
    # a cookie map of preferences, and a count of tokens
    {"cookies": {"theme": "dark", "lang": "en-US", "count": 3}},
    {"tokens": 12, "jwts": [], "cookies": "none"},
])
@pytest.mark.parametrize("levels", [2, 3])
def test_nothing_generated_a_level_or_more_down_is_shown(value: Any, levels: int) -> None:
    text = _nested(value, levels)
    assert redact_text(text).value == text


@pytest.mark.parametrize("field", ["tokens\nused 12", "cookies\tok", "jwts\\none"])
def test_a_log_of_strings_opening_with_a_plural_stays_shown(field: str) -> None:
    """A JSON string that opens with a weak plural then an escape (``"tokens\\n…``) is no
    name: a first try at the deep names (a quote, the name, a backslash) made each a trigger,
    and an NDJSON log of 3,000 such lines was withheld whole as credential-dense."""
    text = "\n".join(json.dumps({"m": field, "i": i}) for i in range(3000))
    assert redact_text(text).value == text


@pytest.mark.parametrize("line", [
    # no generated value: a map of preferences, counts, flags
    'log "cookies": {"theme": "dark", "count": 3, "enabled": true}',
    'cookies: [{"name": "lang", "value": "en-US"}]',
    '"cookies": [] and "cookie": {}',
    'Cookie: {"value": "s3cr3t", "sensitive": true}',
])
def test_a_cookie_container_with_nothing_generated_is_shown(line: str) -> None:
    assert redact_text(line).value == line


# -- Properties ---------------------------------------------------------------------------------

_TOKEN_CHARS = string.ascii_letters + string.digits + "_-"
#: A cookie's name (RFC 6265's token, of the chars names use), no attribute's.
_COOKIE_NAMES = st.text(_TOKEN_CHARS, min_size=1, max_size=12).filter(
    lambda name: name.lower() not in generic._COOKIE_ATTRIBUTES and "=" not in name)
#: What may stand before the secret: benign pairs, flags, a header's name, a path, a URL.
_BEFORE = st.sampled_from([
    "theme=dark", "lang=en", "tz=UTC", "HttpOnly", "Secure", "Path=/", "SameSite=Lax", "seen",
    "x:y", "path/x", "token:=None", "Max-Age=60", "/a/b", "https://example.com/p?q=1&r=2",
    "Expires=Wed, 21 Oct 2026 07:28:00 GMT",
])


@settings(max_examples=25, deadline=None)
@given(header=st.sampled_from(["Cookie", "Set-Cookie", "cookie"]), name=_COOKIE_NAMES,
       before=st.lists(_BEFORE, max_size=4), seed=st.integers(0, 1 << 32),
       named=st.booleans(), after=st.lists(_BEFORE, max_size=2))
def test_a_cookie_secret_after_any_members_is_withheld(
    header: str, name: str, before: list[str], seed: int, named: bool, after: list[str]
) -> None:
    """A generated value, named by a random cookie name or with none, after any members
    (Set-Cookie's first pair is its cookie's, so one stands first there): withheld on every
    route, the members around it shown."""
    secret = _secret(seed)
    first = ["a=b"] if header == "Set-Cookie" else []
    members = [*first, *before, f"{name}={secret}" if named else secret, *after]
    _withheld_everywhere(f"{header}: " + "; ".join(members), secret,
                         *(member for member in members if secret not in member))


def _container(form: int, name: str, secret: str) -> Any:
    if form == 0:
        return {name: secret}
    if form == 1:
        return [{"name": name, "value": secret, "path": "/"}]
    return {"jar": {"other": "dark", name: [secret]}}


@settings(max_examples=25, deadline=None)
@given(key=st.sampled_from(["cookies", "cookie", "Cookies", "authCookies", "session_cookie"]),
       name=_COOKIE_NAMES, form=st.integers(0, 2), seed=st.integers(0, 1 << 32),
       prose=st.sampled_from(["request sent", "GET /v1 200", "", "debug:"]),
       sep=st.sampled_from(['"{k}": ', "{k}: ", "{k}=", "'{k}': "]))
# The draw that found a cookie named like a secret's metadata shown (the cookiemeta task):
@example(key="cookies", name="MODE", form=0, seed=0, prose="request sent", sep='"{k}": ')
@example(key="cookies", name="mode", form=0, seed=0, prose="request sent", sep='"{k}": ')
@example(key="session_cookie", name="id", form=0, seed=1, prose="debug:", sep="{k}=")
@example(key="Cookies", name="type", form=2, seed=2, prose="", sep="'{k}': ")
def test_a_cookie_container_in_a_text_withholds_a_generated_value(
    key: str, name: str, form: int, seed: int, prose: str, sep: str
) -> None:
    """A cookie map or a jar's list, written as JSON inside a log line under a cookie's name:
    its generated value withheld on every route, its other members shown."""
    secret = _secret(seed)
    written = json.dumps(_container(form, name, secret))
    line = f"{prose} {sep.format(k=key)}{written} done".strip()
    others = ['"other": "dark"'] if form == 2 else ['"path": "/"'] if form == 1 else []
    _withheld_everywhere(line, secret, " done", json.dumps(name), *others)


@settings(max_examples=25, deadline=None)
@given(key=st.sampled_from(["cookies", "tokens", "jwts", "authCookies", "session_cookies"]),
       name=_COOKIE_NAMES, form=st.integers(0, 2), seed=st.integers(0, 1 << 32),
       levels=st.integers(1, 4),
       prose=st.sampled_from(["request sent", "GET /v1 200", "debug:", "prompt_tokens"]))
def test_a_weak_plural_container_at_any_json_in_json_depth_withholds_a_generated_value(
    key: str, name: str, form: int, seed: int, levels: int, prose: str
) -> None:
    """A cookie map, a jar's list or a nested map under a weak plural (``tokens``, ``jwts``,
    ``cookies``, a name ending in ``cookies`` four levels down at most), as JSON in a log
    line nested in JSON strings 1 to 4 levels (a level more walked): its generated value
    withheld in the text and walked, the other members and the text after shown."""
    if key.endswith(("Cookies", "_cookies")):
        levels = min(levels, 3)  # four levels down at most, walked: deeper not yet
    secret = _secret(seed)
    text = _nested({key: _container(form, name, secret)}, levels, prose)
    for route, shown in _nested_routes(text).items():
        assert secret not in shown, (route, shown)
        assert "done" in shown and name in shown, (route, shown)
        if form:
            assert "dark" in shown or "path" in shown, (route, shown)


# -- Cost ---------------------------------------------------------------------------------------


def _members_read(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    """How many members the cookie readings of ``text`` read (each a pair's match)."""
    pair = generic._COOKIE_PAIR
    read = 0

    class Counted:
        def match(self, *args: Any) -> Any:
            nonlocal read
            read += 1
            return pair.match(*args)

    with monkeypatch.context() as patch:
        patch.setattr(generic, "_COOKIE_PAIR", Counted())
        redact_text(text)
    return read


@pytest.mark.parametrize("unit", [
    # each name's reading went on to the line's end: its length squared (41 s for 400 KB)
    "cookie: x; quick brown fox jumps over the lazy dog ",
    "Cookie: a=b; x:y; quick brown fox jumps over the lazy dog ",
    "Set-Cookie: a=b; Path=/; HttpOnly; quick brown fox jumps over ",
])
def test_a_line_of_cookie_names_reads_each_member_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    small = _members_read(monkeypatch, unit * 200)
    large = _members_read(monkeypatch, unit * 800)
    assert 0 < large <= 4.5 * small, (small, large)
    assert large <= 2 * (unit * 800).count(";") + 800, large


@pytest.mark.parametrize("unit", ["a=b; ", "x:y; ", "HttpOnly; ", "/p/x; "])
def test_one_cookie_header_of_many_members_reads_each_once(
        monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    text = "Cookie: " + unit * 5000
    assert _members_read(monkeypatch, text) <= text.count(";") + 1


#: Members of every kind a reading meets: short and long pairs and values (generated or not),
#: quoted ones, flags, attributes, a header's name, a path, a URL, commas, stray chars, another
#: cookie header's name (a reading of its own, over the same members).
_MEMBERS = st.sampled_from([
    "a=b", "x:y", "path/x", "HttpOnly", "Path=/", "sid=x", "tz=UTC", "seen", "a=b=c", "k=",
    "sid=Zq8Wm3Xr5Tv7Yp9K", "Zq8Wm3Xr5Tv7Yp9KaB", "short1234567", "abcdefghijklmno",
    "abcdefghijklmnop", "theme=darkness", 'q="Zq8Wm3Xr5Tv7"', '"quoted"', "", " ", "a,b",
    "=x", "cookie: x", "Cookie: sid=Zq8Wm3Xr5Tv7Yp9K", "set-cookie:x", "https://e.io/?q=1",
    "token:=None", "a=b more words", "\\x", "a\tb", "Expires=Wed, 21 Oct 2026",
])


@settings(max_examples=60, deadline=None)
@example(head="Cookie: ", members=["a=b", "", "cookie: x", "sid=Zq8Wm3Xr5Tv7Yp9K"],
         seps=[";"] * 14, lines=1)  # the first reading ends at ";;", the next name's reads on
@given(head=st.sampled_from(["Cookie: ", "Set-Cookie: ", "cookie:", "log ", ""]),
       members=st.lists(_MEMBERS, max_size=14), seps=st.lists(st.sampled_from(
           ["; ", ";", " ; ", ";;", ";\t", ", ", ",  ", ",\t", ","]), min_size=14, max_size=14),
       lines=st.integers(1, 2))
def test_reading_each_member_once_withholds_what_reading_each_to_its_line_end_does(
    head: str, members: list[str], seps: list[str], lines: int
) -> None:
    """The shortcuts (a reading stops where an earlier one read on, a run of plain members
    passed in one match) against each name's reading read to its line's end."""
    line = head + "".join(m + s for m, s in zip(members, seps, strict=False))
    assert_read_once_as_to_each_end("\n".join([line] * lines))
