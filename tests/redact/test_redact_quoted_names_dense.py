"""A credential's name quoted as a value, with nothing assigned to it, counted towards the
density bound (design.md, "Density bound").

Found by another helper: an NDJSON log of some 3,000 lines whose string values are the word
``tokens`` or ``password`` (``{"m": "tokens"}``, ``{"field": "password", "n": 3}``) was
withheld whole as credential-dense, with both engines, through ``redact_text`` and
``shape()``: each closing quote ends a name's literal (``"tokens"``, ``password"``), and every
one was counted. Such a name counts only where something may be assigned after its quote, or
where it is a pair's name (:func:`elision.redact.weak.quoted_counts`); its line is still a
trigger, judged as before. Texts dense with assignments (``{"password": "S"}`` lines) stay
dense.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.redact import redact_text, weak
from support.dense import assert_dense_hiding, assert_shown_whole, over_windows
from support.engines import trigger_engines, using_engine

ENGINES = [pytest.param(e, id=type(e).__name__.strip("_").lower()) for e in trigger_engines()]
SECRET = "Zx8Qw3Er5Ty7Ui9O"


_NAMED_ONLY = [
    pytest.param('{"m": "tokens"}\n', id="issue-tokens"),
    pytest.param('{"field": "password", "n": 3}\n', id="issue-password-then-member"),
    pytest.param('{"m":"password"}\n', id="compact"),
    pytest.param('{"m": "password" }\n', id="space-before-brace"),
    pytest.param('["token", "api_key", "secret"]\n', id="array-items"),
    pytest.param("{'m': 'password'}\n", id="single-quotes"),
    pytest.param('{"m": "password"}\r\n', id="crlf"),
    pytest.param('f("password")\n', id="call-argument"),
    pytest.param('"{\\"m\\": \\"tokens\\"}"\n', id="json-in-json"),
    pytest.param('{"m": "client_secret"}{"m": "passwords"}\n', id="glued-records"),
]


@pytest.mark.parametrize("unit", _NAMED_ONLY)
@pytest.mark.usefixtures("each_engine")
def test_a_log_of_names_with_nothing_assigned_is_shown(unit: str) -> None:
    assert_shown_whole(over_windows(unit))


@pytest.mark.usefixtures("each_engine")
def test_shape_of_the_issues_ndjson_withholds_nothing() -> None:
    lines = [{"m": "tokens", "n": i} if i % 2 else {"field": "password", "n": i}
             for i in range(3000)]
    body = "\n".join(json.dumps(line) for line in lines).encode()
    for fmt in ("text", "ndjson"):
        shaped = shape(body, Budget(1024), format=fmt)
        assert shaped.envelope is None or not shaped.envelope.get("withheld"), fmt
        assert "credential-dense" not in shaped.text, fmt


#: Each assigns to its name after the quote: dense as before, the secret never shown.
_ASSIGNED = [
    pytest.param('{"password": "%s"}\n', id="json-member"),
    pytest.param('{"password" : "%s"}\n', id="json-member-spaced"),
    pytest.param('"password" => "%s",\n', id="perl-arrow"),
    pytest.param("{'password': '%s'}\n", id="python-dict"),
    pytest.param('{"tokens": ["%s"]}\n', id="plural-member"),
    pytest.param('"{\\"password\\": \\"%s\\"}"\n', id="json-in-json"),
    pytest.param('password="%s"\n', id="quoted-assignment"),
]


@pytest.mark.parametrize("unit", _ASSIGNED)
@pytest.mark.usefixtures("each_engine")
def test_names_assigned_after_their_quote_are_dense_as_before(unit: str) -> None:
    assert_dense_hiding(over_windows(unit % SECRET), SECRET)


@pytest.mark.parametrize(("text", "counts"), [
    ('{"m": "tokens"}', False),  # the issue's: a value's end
    ('{"m": "tokens",', False),
    ('["tokens"]', False),
    ('"tokens"', False),  # the text's end
    ('"tokens"   \n', False),  # spaces, then the line's end
    ('"tokens"\\n', False),  # an escaped line break
    ('"tokens"         ,', True),  # more spaces than are skipped: fail closed
    ('"tokens": ["S"]', True),  # a member's name
    ('"tokens" = "S"', True),
    ('"tokens" S', True),  # a bare value after it
    ('{"name": "tokens", "value": "S"}', True),  # a pair's name
    ('{"value": "S", "name": "tokens"}', True),  # a pair's name, its value first
    ('{"Key": "db_tokens"}', True),  # any key ending as a pair's name key
    ('{"ParameterKey": "tokens"}', True),
    ('{\\"name\\": \\"tokens\\"}', True),  # a pair's name in JSON-in-JSON
    ('{"header":\n "tokens"}', True),  # a pair's name on the next line
])
def test_which_quoted_names_count(text: str, counts: bool) -> None:
    at = text.index("tokens") + len("tokens")
    end = at + 1  # the literal ends with its closing quote, or the escape's backslash
    for data in (text, text.encode(), memoryview(text.encode())):
        assert weak.quoted_counts(data, end) is counts, (text, type(data))


@pytest.mark.parametrize(("text", "counts"), [
    ('password\\"}', False),  # an escaped closing quote, then the value's end
    ('password\\\\\\"}', False),  # two levels deep
    ('password\\\\\\": S', True),
    ("password\\nS", True),  # no quote after the backslash
])
def test_which_names_before_an_escaped_quote_count(text: str, counts: bool) -> None:
    end = len("password") + 1
    assert weak.quoted_counts(text, end) is counts


_WORDS = st.sampled_from([
    "password", "passwords", "token", "tokens", "secret", "api_key", "access_token",
    "client_secret", "private_key", "jwts", "cookies", "passwd", "credentials", "auth_token",
])
#: Member names that name nothing (no credential's, no pair's name key).
_KEYS = st.sampled_from(["m", "msg", "field", "kind", "event", "level", "attr", "n", "what"])
_ALNUM = string.ascii_letters + string.digits


@st.composite
def _named_record(draw: st.DrawFn) -> str:
    members: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 3))):
        members[draw(_KEYS)] = draw(st.one_of(_WORDS, st.integers(0, 999),
                                              st.lists(_WORDS, min_size=1, max_size=3)))
    # json.dumps's own spacing: compact records (``{"m":"password","n":"password"}``) read
    # as a CSV whose header names a ``password`` column, a reading of its own (left: see
    # design.md, "Not yet").
    return json.dumps(members)


_RECORDS = st.lists(_named_record(), min_size=1, max_size=6)


def _ndjson(records: list[str]) -> str:
    """``records`` cycled over eight windows (a log's lines repeat)."""
    return over_windows("\n".join(records) + "\n")


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=15, deadline=None)
@given(records=_RECORDS)
def test_any_ndjson_of_names_as_values_is_shown(engine: Any, records: list[str]) -> None:
    text = _ndjson(records)
    with using_engine(engine):
        done = redact_text(text)
    assert done.withheld == ()
    assert done.value == text


_SECRET_LINES = st.sampled_from([
    '{"password": "%s"}', '{"api_key": "%s", "n": 1}', "password=%s",
    '{"name": "db_password", "value": "%s"}', '{"value": "%s", "name": "password"}',
])


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=15, deadline=None)
@given(records=_RECORDS, data=st.data())
def test_each_secret_among_names_as_values_is_withheld(
    engine: Any, records: list[str], data: st.DataObject
) -> None:
    lines = _ndjson(records).split("\n")
    secrets = []
    for _ in range(data.draw(st.integers(1, 4))):
        secret = "Zx8Qw3Er5Ty7" + data.draw(st.text(_ALNUM, max_size=12))
        secrets.append(secret)
        at = data.draw(st.integers(0, len(lines)))
        lines.insert(at, data.draw(_SECRET_LINES) % secret)
    mixed = "\n".join(lines)
    with using_engine(engine):
        done = redact_text(mixed)
    shown = str(done.value)
    for secret in secrets:
        assert secret not in shown
    assert "credential-dense" not in {e["reason"] for e in done.withheld}
