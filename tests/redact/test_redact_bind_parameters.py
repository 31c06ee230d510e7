"""A query's bind parameter is a placeholder, no secret; curl's ``-u`` after a spelled gap is
a password's flag (docs/design.md's "Not yet", the sqlbind task).

* Over-withholding: ``UPDATE users SET password = :password`` withheld ``:password``, the
  name a driver binds the value to at run time (so did ``@password``, ``:new_password`` and
  any ``:name``/``@name`` after a credential's name, in SQL or as an assigned value, in a
  JSON member too). Now a bind parameter is a placeholder (``generic._BIND``): ``?``,
  ``?1``, ``$1``, ``:1``, ``%s``, ``%(name)s``, ``${name}``, ``{name}``, and ``:name`` or
  ``@name`` where the name is a plain identifier (snake_case, UPPER_SNAKE, camelCase or
  PascalCase words of letters, or a letter or two then a number; 32 chars at most). A colon
  then a generated secret (digits among its letters) stays withheld, and so does a word
  with digits after it (``@Summer2024``: a password's shape).
* A leak: curl's ``-u`` after a JSON text's escaped tab (``curl\\t-sku a:S`` in a JSON text
  read as text) or a percent-encoded space (``curl%20-sku%20a%3AS`` in a URL's query) was
  shown: the command's reading wanted a space or a tab, and no trigger marked the
  percent-encoded one (``commands.SPELLED_GAP``, ``SPELLED_CURL_USER``).

Found by the hunt (design.md's list); red on the code before: the shown bind parameters and
the curl commands each.
"""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.generic import is_credential_value, placeholder, prose
from elision.redact.rules import credential_stub
from support.cut import prose_filler
from support.engines import trigger_engines, using_engine

S = "Zq8vN3xK7pL2mR9tW4yB6cH1"
STUB = credential_stub("credential-assignment")
_SECRET_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _each_engine_shows(text: str) -> list[str]:
    """What ``redact_text`` and ``shape()`` show of ``text``, with each trigger engine."""
    shown: list[str] = []
    for engine in trigger_engines():
        with using_engine(engine):
            shown.append(str(redact_text(text).value))
            shown.append(shape(text).text)
    return shown


def _kept(text: str) -> None:
    """``text`` comes out as it went in, on each route and engine."""
    assert all(shown == text for shown in _each_engine_shows(text))


def _withheld(text: str, value: str) -> None:
    """``value`` is in no route's output of ``text``, with any engine."""
    assert not any(value in shown for shown in _each_engine_shows(text))


#: Statements and assignments a value stands in: ``{v}`` is the value.
_PLACES = (
    "UPDATE users SET password = {v} WHERE id = :id",
    "UPDATE users SET password={v}, name=:name",
    "SELECT id FROM users WHERE api_key = {v} AND active",
    "password={v}",
    "DB_PASSWORD: {v}",
    "--password {v}",
    'cursor.execute("UPDATE users SET password = {v}")',
)

_BIND_PARAMETERS = [
    "?",              # DB-API qmark
    "?1",             # SQLite numbered
    "$1",             # PostgreSQL positional
    "$12",            # ... two digits
    ":1",             # Oracle positional
    "%s",             # DB-API format
    "%(password)s",   # DB-API pyformat
    ":password",      # named: Oracle, SQLAlchemy, SQLite
    ":new_password",  # snake_case
    ":db_password",   # a qualifier, then the credential's word
    ":NEW_PASSWORD",  # UPPER_SNAKE
    "@password",      # SQL Server, MySQL
    "@new_api_key",   # the word as its last part
    "@p1",            # p then a number (SQL Server's generated names)
    ":param2",        # param then a number
    "${password}",    # a template's variable
    "{password}",     # str.format's field
]


@pytest.mark.parametrize("value", _BIND_PARAMETERS)
@pytest.mark.parametrize("place", _PLACES)
def test_a_bind_parameter_after_a_credential_name_is_shown(place: str, value: str) -> None:
    text = place.format(v=value)
    _kept(text)


@pytest.mark.parametrize("value", _BIND_PARAMETERS)
def test_a_bind_parameter_as_a_credential_member_is_shown(value: str) -> None:
    """The JSON member rule reads the same placeholders: a config's query parameters."""
    assert redact_value({"password": value}).value == {"password": value}
    assert not is_credential_value("db_password", value)


@pytest.mark.parametrize(("text", "value"), [
    # a value, quoted or bare, after SET password =
    (f"UPDATE users SET password = '{S}' WHERE id = :id", S),
    (f"UPDATE users SET password = {S} WHERE id = :id", S),
    # a colon or an at sign then a generated secret: digits among letters is no name
    (f"password=:{S}", S),
    (f"password=@{S}", S),
    (f"UPDATE users SET password = :{S}", S),
    # capitals together (a random string of letters), and a name longer than 32 chars
    ("password=:XkfQMzPLwRtybNcvSD", "XkfQMzPLwRtybNcvSD"),
    ("password=:" + "abcdefghij" * 3 + "_xyz", "abcdefghij" * 3 + "_xyz"),
    # a word with digits after it is a password's shape, not a bind name's
    ("password=@Summer2024", "Summer2024"),
    ("password=:hunter42", "hunter42"),
    # a positional number of four digits or more
    ("password=$1234", "$1234"),
    # a bind name glued to more: the value is all of it
    (f"password=:new_password-{S}", S),
    (f"password=:new_password.{S}", S),
    # a space then a colon and a secret: the colon is a separator
    (f"password :{S}", S),
    (f"--password :{S}", S),
    (f"password :new_password{S}", S),
    # Found by the review of the merged head (2026-12-05): a word of letters after ``@`` or
    # ``:`` that names no credential may be the password itself. Each was shown on every route
    # while any identifier read as a bind name; the code before withheld each.
    ("password=@lohomora", "lohomora"),
    ("password: @secretpass", "secretpass"),
    ("pwd = @Winter", "Winter"),
    ("password=@NewPassword", "NewPassword"),  # camelCase or PascalCase: judged as a value
    ("password=:newPassword", "newPassword"),
    ("DB_PASSWORD=@dministrator", "dministrator"),
    ("password=:SuperSecret", "SuperSecret"),
    ("password=:hunter", "hunter"),
    ('password=":dbpassword"', "dbpassword"),  # the word glued to its qualifier
    ("password::supersecret", "supersecret"),
    ("password=@ab123", "ab123"),  # two letters and a number: only p, param, arg are a place's
    ("password=:pw2", "pw2"),
    ("api_token=@xkqmvbrtlpzwnyhdgfsc", "xkqmvbrtlpzwnyhdgfsc"),
    ("mysql -u root -p@lohomora", "lohomora"),
    ("curl -u admin:@lohomora http://x", "lohomora"),
    ("<password>@lohomora</password>", "lohomora"),
    ("| password | @lohomora |", "lohomora"),
    ("password :correcthorsebattery", "correcthorsebattery"),  # a space, then a colon
    ("DB_PASSWORD :supersecretvalue", "supersecretvalue"),
    ("password :newPassword", "newPassword"),
])
def test_a_value_that_is_no_bind_parameter_is_withheld(text: str, value: str) -> None:
    _withheld(text, value)


@pytest.mark.parametrize("text", [
    # a space then a colon glued to a bind name: the colon is the parameter's
    "--password :new_password",
    "WHERE password :pw AND id = :id",
    "password :DB_TOKEN",
])
def test_a_colon_glued_to_a_bind_name_is_no_separator(text: str) -> None:
    _kept(text)


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@st.composite
def bind_names(draw: st.DrawFn) -> str:
    """A plain identifier as :data:`generic._BIND` reads one: snake_case or UPPER_SNAKE words,
    one of them a credential's word, anywhere among them; or a place's number; 32 chars at
    most."""
    words = draw(st.lists(_WORD, min_size=0, max_size=3))
    words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(_CREDENTIAL_WORDS)))
    form = draw(st.integers(0, 2))
    if form == 0:
        name = "_".join(words)
    elif form == 1:
        name = "_".join(words).upper()
    else:
        name = draw(st.sampled_from(["p", "param", "arg"])) + str(draw(st.integers(0, 999)))
    assume(len(name) <= 32)
    return name


_CREDENTIAL_WORDS = ["password", "passwd", "pwd", "pw", "pass", "secret", "token", "key",
                     "apikey", "credentials", "auth", "passphrase"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=8,
               max_size=24), st.sampled_from(":@"), st.sampled_from(_PLACES[3:6]))
def test_property_a_word_naming_no_credential_after_a_sigil_is_withheld(
    word: str, sigil: str, place: str,
) -> None:
    """A word of letters after ``:`` or ``@`` that holds no credential's word as a ``_``
    part may be the password itself (``@lohomora``): withheld under a credential's name."""
    assume(not any(part in _CREDENTIAL_WORDS for part in word.lower().split("_")))
    assume(not prose(word) and not placeholder(word))
    _withheld(place.format(v=sigil + word), word)


@settings(max_examples=60, deadline=None)
@given(bind_names(), st.sampled_from(":@"), st.sampled_from(_PLACES),
       st.integers(0, 300), st.integers(0, 40))
def test_property_a_named_bind_parameter_is_shown(
    name: str, sigil: str, place: str, around: int, seed: int,
) -> None:
    """Any plain identifier after ``:`` or ``@`` is a placeholder: shown in each place, with
    prose around it, by each engine and by ``shape()``; the JSON member rule agrees."""
    value = sigil + name
    assert placeholder(value)
    text = prose_filler(around, seed) + place.format(v=value) + "\n" + prose_filler(around, 1)
    _kept(text)


@st.composite
def generated_secrets(draw: st.DrawFn) -> str:
    """A generated secret: random letters and digits, a digit among letters somewhere."""
    secret = draw(st.text(alphabet=_SECRET_CHARS, min_size=8, max_size=40))
    assume(any(a.isdigit() and b.isalpha() for a, b in pairwise(secret)))
    return secret


@settings(max_examples=80, deadline=None)
@given(generated_secrets(), st.sampled_from(["", ":", "@", "?"]),
       st.sampled_from((*_PLACES, "password :{v}", "--password :{v}")),
       st.sampled_from(["", "new_password", "p1", "Password"]))
def test_property_a_generated_secret_after_a_bind_sigil_is_withheld(
    secret: str, sigil: str, place: str, glued: str,
) -> None:
    """A sigil then a generated secret, or a bind name with the secret glued on after it, is
    no bind parameter: the secret is withheld wherever a credential's name assigns it."""
    value = sigil + glued + secret
    assume(is_credential_value("password", secret))
    assert not placeholder(value)
    text = place.format(v=value)
    _withheld(text, secret)


# --- curl's -u after a spelled gap -------------------------------------------------------


@pytest.mark.parametrize("text", [
    # the design's case: a JSON text read as text, its string's escaped tab before -sku
    f'{{"cmd": "curl\\t-sku a:{S}"}}',
    f'log: {{"cmd": "curl\\t-sku a:{S}"}}',
    # an escaped tab each side of -u, and after -sku
    f'{{"cmd": "curl\\t-u\\ta:{S}"}}',
    f'{{"cmd": "curl -sku\\ta:{S}"}}',
    # a text percent-encoded whole: its spaces %20, its colon as written or %3A
    f"curl%20-sku%20a:{S}",
    f"curl%20-u%20admin%3A{S}",
    f"curl%20--user%20admin%3A{S}",
    f"curl%09-su%09admin:{S}",
    # in a URL's query, a quote percent-encoded around the user
    f"GET /run?cmd=curl%20-sku%20a%3A{S}&x=1",
    f"GET /run?cmd=curl%20-u%20%22a%3A{S}%22&x=1",
])
def test_curl_user_after_a_spelled_gap_is_withheld(text: str) -> None:
    _withheld(text, S)


@pytest.mark.parametrize("text", [
    # no user: nothing after -u is a password
    "curl%20-sSL%20https://get.example.com/install.sh",
    "see curl%20-u%20docs for it",
    "curl%20-usage",
    '{"cmd": "curl\\t-sSL\\thttps://get.example.com"}',
    # a placeholder password
    '{"cmd": "curl\\t-u\\tadmin:$TOKEN"}',
])
def test_a_spelled_curl_without_a_password_is_kept(text: str) -> None:
    _kept(text)


_GAPS = st.sampled_from([" ", "\t", "\\t", "%20", "%09"])


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="sSkvLiIfgGnNqjOJR046#", max_size=6), _GAPS, _GAPS,
       st.sampled_from([":", "%3A", "%3a"]),
       st.from_regex(r"[a-z][a-z0-9._-]{0,12}", fullmatch=True),
       generated_secrets(), st.integers(0, 300), st.integers(0, 40), st.booleans())
def test_property_curl_user_after_any_gap_is_withheld(
    switches: str, before: str, after: str, colon: str, user: str, secret: str,
    around: int, seed: int, as_json: bool,
) -> None:
    """curl, a gap (a space, a tab, JSON's ``\\t``, ``%20``, ``%09``), its switches and
    ``-u``, a gap, ``user:S``: S is withheld by each engine, as text and as a JSON text's
    string (the walk decodes ``\\t``), with prose around it."""
    assume(is_credential_value("password", secret))
    command = f"curl{before}-{switches}u{after}{user}{colon}{secret}"
    filler = prose_filler(around, seed)
    if as_json:
        text = json.dumps({"note": filler, "cmd": command.replace("\\t", "\t")})
    else:
        text = filler + command + "\n" + prose_filler(around, 1)
    _withheld(text, secret)
