"""Header, cookie and quote forms that showed a credential, each listed under "Not yet" in
docs/design.md (the hdrleak2 task; each shown by ``redact_text`` and by ``shape()`` of a JSON
body on the code before):

* ``Authorization: <letters> 2024-01-01``: a generated run of letters alone (two changes of
  case at most) before a value that is no word was read as the scheme and shown, and the
  value after it withheld in its place.
* ``Cookie: a=b; <value>``: a value with no name after a named one was not read, nor any pair
  after a flag written among them (``HttpOnly; sid=…``).
* ``db_password\\": \\"<value>; more``: a value after a quote, escaped or not, that does not
  close on its line (a JSON text cut inside its string) was shown, under any name.
* An Azure DevOps connection string's password before a Slack hook (``…;Password=S;:https://
  hooks.slack.com/…``): the hook was shown; and a ClickUp key ending in five ``A``s or more
  before an X bearer token: both were shown.

Each is asked on every text route: a text, a JSON string, NDJSON lines, the proxy's egress
gate, and ``shape()`` of a JSON body.
"""

from __future__ import annotations

import random
import string

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.redact import authheader, redact_text
from elision.redact.families import BY_ID, sample
from redact.test_redact_header_values import _secret
from support.routes import every_route as _all_routes

S = _secret(11)


def _letters(seed: int, size: int, humps: int) -> str:
    """A generated run of letters alone, lower-case with ``humps`` capitals in it (each one a
    change of case): what :func:`authheader.generated` must call generated."""
    rng = random.Random(seed)
    chars = rng.choices(string.ascii_lowercase, k=size)
    for place in rng.sample(range(1, size), humps):
        chars[place] = chars[place].upper()
    return "".join(chars)


# -- Authorization: a generated run of letters before a value that is no word -----------------

#: What a log writes after a header's value that is no credential (no word alone either).
_AFTER = ["2024-01-01", "12:00:01", "(expired)", "200", "-", "|", "[retry]", "done.",
          "#42"]
_AUTH_NAMES = ["Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization",
               "X-Authorization"]


@pytest.mark.parametrize(("line", "secret", "kept"), [
    # the run is the credential, and what follows it is shown (red on the code before)
    ("Authorization: qwertyuiopasdfgh 2024-01-01", "qwertyuiopasdfgh", " 2024-01-01"),
    ("Authorization: qwertyuiopasdfgh (expired)", "qwertyuiopasdfgh", " (expired)"),
    ("authorization: zmxncbvlaksjdhfgqpwoeiru 12:00:01 retry", "zmxncbvlaksjdhfgqpwoeiru",
     " 12:00:01 retry"),
    ('{"Authorization": "qwertyuiopAsdfgh 200"}', "qwertyuiopAsdfgh", ' 200"}'),
    ("GET /x/authorization: qwertyuiopasdfgh 2024-01-01", "qwertyuiopasdfgh", " 2024-01-01"),
    # a value after it that may be a credential too: both withheld (which it is is not told)
    ("Authorization: qwertyuiopasdfgh ab12cd34 more", "ab12cd34", " more"),
    ("Authorization: qwertyuiopasdfgh zxcvbnmlkjhgfdsa. more", "zxcvbnmlkjhgfdsa", " more"),
    # as before: a scheme's credential, a word and a word, params after an unknown scheme
    (f"Authorization: Bearer {S} (expired)", S, " (expired)"),
    (f"Authorization: Custom {S} more", S, " more"),
    ("Authorization: qwertyuiopasdfgh trailing", "qwertyuiopasdfgh", ": auth-header]"),
    ('Authorization: Custom realm="x1y2z3w4"', "x1y2z3w4", "auth-header]"),
])
def test_a_generated_run_of_letters_is_the_credential(line: str, secret: str, kept: str) -> None:
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, shown)
        assert shown.endswith(kept), (route, shown)


@pytest.mark.parametrize(("line", "shown"), [
    # known schemes stay schemes whatever follows them (the credential is withheld)
    (f"Authorization: Bearer {S}", "Authorization: Bearer "),
    (f"Authorization: SharedKey acct:{S}", "Authorization: SharedKey "),
    (f"Authorization: GoogleLogin auth={S}", "Authorization: GoogleLogin "),
    ('Authorization: Custom realm="x"', "Authorization: Custom "),
    # a scheme's name of a word, before params, stays: params are no credential's run
    ('Authorization: qwertyuiopasdfgh realm="x"', "Authorization: qwertyuiopasdfgh "),
    # prose, and a short or named word before a date: as before
    ("authorization: required for admin", "authorization: required for admin"),
    ("Authorization: failed 2024-01-01", "Authorization: failed"),
    ("Authorization: internationalization 2024-01-01", "Authorization: internationalization"),
    # a path's header: the scheme stays, as the raw value's reading stays the value alone
    (f"GET /x/authorization: Token {S} more", "GET /x/authorization: Token [credential"),
    (f"GET /x/authorization: Custom {S} more", "GET /x/authorization: Custom [credential"),
    (f"GET /x/authorization: {S} more", "GET /x/authorization: [credential withheld: auth-"
                                        "header] more"),
])
def test_schemes_and_prose_read_as_before(line: str, shown: str) -> None:
    assert str(redact_text(line).value).startswith(shown)


@pytest.mark.parametrize("name", _AUTH_NAMES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 1 << 32), size=st.integers(24, 40), humps=st.integers(0, 2),
       after=st.lists(st.sampled_from(_AFTER), min_size=1, max_size=3).map(" ".join))
def test_a_generated_run_before_any_trailing_text_is_withheld(
    name: str, seed: int, size: int, humps: int, after: str
) -> None:
    """Random header names x generated runs of letters x trailing text that is no
    credential: the run is withheld on every route, the trailing text shown."""
    secret = _letters(seed, size, humps)
    assume(authheader.generated(secret))
    line = f"{name}: {secret} {after}"
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, line, shown)
        assert shown.endswith(f" {after}"), (route, line, shown)


# -- Cookie: a value with no name after a named one -------------------------------------------

_NAMED = ["theme=dark", "lang=en", "tz=UTC", "HttpOnly", "Secure", "seen"]


@pytest.mark.parametrize(("line", "kept"), [
    (f"Cookie: a=b; {S}", "Cookie: a=b; "),
    (f"Cookie: a=b; {S}; c=d", "; c=d"),
    (f"Cookie: theme=dark; HttpOnly; sid={S}", "HttpOnly; sid="),
    (f"Cookie: a=b; see the docs; {S} more", " more"),
])
def test_a_cookie_with_no_name_after_a_named_one_is_withheld(line: str, kept: str) -> None:
    for route, shown in _all_routes(line).items():
        assert S not in shown, (route, shown)
        assert kept in shown, (route, shown)


@settings(max_examples=12, deadline=None)
@given(members=st.lists(st.sampled_from(_NAMED), min_size=1, max_size=4), place=st.integers(),
       seed=st.integers(0, 1 << 32), named=st.booleans())
def test_cookie_members_in_any_order_withhold_the_nameless_value(
    members: list[str], place: int, seed: int, named: bool
) -> None:
    """Random cookie orders with a generated value among them, named or not: withheld on
    every route, the benign members shown."""
    secret = _secret(seed)
    members = list(members)
    members.insert(place % (len(members) + 1), f"sid={secret}" if named else secret)
    line = "Cookie: " + "; ".join(members)
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, line, shown)
        for member in members:
            if secret not in member:
                assert member in shown, (route, line, shown)


# -- A value after a quote that does not close on its line ------------------------------------

_NAMES = ["db_password", "password", "api_key", "client_secret", "DB_PASSWORD", "apiKey",
          "x-api-key", "secret", "access_token", "passwd"]
_OPENS = ['\\": \\"', '": "', "=\\'", "='", ': \\"', '="']


@pytest.mark.parametrize("line", [
    f'db_password\\": \\"{S}; more text',
    f'{{\\"db_password\\": \\"{S}; more text',
    f'password="{S} more',
    f"api_key='{S}",
])
def test_a_value_after_a_quote_that_does_not_close_is_withheld(line: str) -> None:
    for route, shown in _all_routes(line).items():
        assert S not in shown, (route, shown)


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(_NAMES), opens=st.sampled_from(_OPENS),
       seed=st.integers(0, 1 << 32),
       after=st.sampled_from(["; more text", " more", "", ", next", "\\n next line"]))
def test_any_name_in_an_open_quote_withholds_its_value(
    name: str, opens: str, seed: int, after: str
) -> None:
    """Random credential names in escaped and plain quote forms that never close: the value
    is withheld on every route, what follows it shown (but in NDJSON, whose string is read a
    level down, where an escaped quote's value runs to the string's end: as before)."""
    secret = _secret(seed)
    line = f"{name}{opens}{secret}{after}"
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, line, shown)
        assert route == "ndjson" or shown.endswith(after), (route, line, shown)


@pytest.mark.parametrize("line", [
    'password: "must be at least 12 characters',
    'the password="is wrong',
    'password=""',
])
def test_an_open_quote_of_prose_or_nothing_is_kept(line: str) -> None:
    assert redact_text(line).value == line


# -- Families glued: a connection string's password before a hook; ClickUp's As ---------------

@pytest.mark.parametrize("glue", [":", "\\"])
@pytest.mark.parametrize("seed", range(3))
def test_a_hook_after_a_connection_string_password_is_withheld(glue: str, seed: int) -> None:
    text, values = sample(BY_ID["ado-connection-string-password"], 0, seed)
    hook, more = sample(BY_ID["slack-webhook-url"], 0, seed)
    line = f" {text}{glue}{hook} "
    for route, shown in _all_routes(line).items():
        assert not [v for v in (*values, *more) if v in shown], (route, shown)


@pytest.mark.parametrize("ending", [5, 6, 9])
@pytest.mark.parametrize("seed", range(3))
def test_a_clickup_key_ending_in_many_as_before_an_x_token(ending: int, seed: int) -> None:
    key, _ = sample(BY_ID["clickup-api-token"], 0, seed)
    key = key[:-ending] + "A" * ending
    assert "clickup" in str(redact_text(f" {key} ").value)  # a key alone still
    token, values = sample(BY_ID["twitter-bearer-token"], 0, seed)
    line = f" {key}{token} "
    for route, shown in _all_routes(line).items():
        assert not [v for v in (key[:-ending], *values) if v in shown], (route, shown)


@pytest.mark.parametrize("inner", [
    f'db_password: \\"{S}\\" more text',
    f'db_password: \\"{S}; more text',
    f"db_password=\\'{S}\\' more text",
])
def test_a_json_line_holding_an_escaped_quote_stays_json(inner: str) -> None:
    """Found writing the NDJSON route of the property above: a JSON text's ``\\\\\\"`` (its
    spelling of ``\\"``) was read as a bare value of three backslashes and withheld, which
    tore the JSON line, and ``\\\\'`` showed the value."""
    line = orjson.dumps({"n": 0, "msg": inner}).decode()
    shown = str(redact_text(line).value)
    assert S not in shown, shown
    assert orjson.loads(shown)["n"] == 0, shown


@pytest.mark.parametrize("line", [
    # a URL after a nameless member: no cookie's pairs (its query was read as one)
    "Cookie: a=b; seen; https://example.com/items/7?page=2&sort=asc",
    "Cookie: a=b; token:=None; https://example.com/items/7?page=2&sort=asc",
])
def test_a_cookie_reading_ends_at_a_url(line: str) -> None:
    """Found by test_redact_same_as_before's texts: read on past a nameless member, a URL's
    query after it was withheld as a session cookie."""
    assert redact_text(line).value == line
