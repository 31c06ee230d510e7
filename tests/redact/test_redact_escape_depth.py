"""A credential is withheld however many levels of JSON-in-JSON it is written down.

Found in review: ``config = {"db_password": "s3cr3t-value-123"}`` serialized into a string
and that string into JSON again (``{\\\\\\"db_password\\\\\\": …}``) was shown on every route
from two levels down (from one, as an NDJSON line): the text finder reads a name's quote with
one backslash before it, and the escape view (``encodings.decode_escapes``) read ``\\\\`` and
``\\/`` but no ``\\"``, so no level of it spelled the member plainly. And a keyword with a "/"
(``1//0``, ``/api/webhooks/``) in PHP's spelling four levels down (31 backslashes before each
"/") was looked for with 15 at most. The view now reads a run of backslashes before a quote
or a "/" as that char, whatever its length (every level in one pass), and a run of 16 or more
(no deeper keyword's spelling has fewer) sends its piece to be read so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text
from elision.redact.encodings import decode_escapes
from redact.test_redact_escape_spellings import FAMILY_SLASHED, POSITIVE, _decoded, _php
from support.engines import trigger_engines, using_engine
from support.lazy_json import lazy_route

#: The deepest level the tests wrap a secret to: 255 backslashes before a quote, 511 before a
#: PHP "/". The reading has no depth of its own (a run is read whole, whatever its length).
DEEPEST = 8
_ASSIGNMENT = ('config = {"db_password": "s3cr3t-value-123"}', "s3cr3t-value-123")
_ROUTES = ["text", "member", "ndjson", "repeated", "lazy"]
_ENGINES = trigger_engines()
_ENGINE_IDS = [type(e).__name__.strip("_") for e in _ENGINES]


def _wrapped(text: str, depth: int, dumps: Callable[[Any], str] = json.dumps) -> str:
    for _ in range(depth):
        text = dumps(text)
    return text


def _spellings(secret: str, depth: int) -> Iterator[str]:
    """``secret`` as each level of JSON-in-JSON down to ``depth`` spells it."""
    yield secret
    for _ in range(depth):
        secret = json.dumps(secret)[1:-1]
        yield secret


def _shown(value: str, route: str) -> str:
    """What a tool result holding ``value`` is shown as, on ``route``."""
    if route == "text":
        return redact_text(value).value
    member = json.dumps({"x": value})
    if route == "ndjson":
        body = f"{member}\n{member}"
    elif route == "repeated":
        # One document written alike three times, each past the walk's split size.
        one = json.dumps({"pad": "p" * 4200, "v": value})
        body = "[" + ",".join([one] * 3) + "]"
    else:
        body = member
    return shape(body.encode(), budget=4 * len(body) + 100_000).text


@pytest.fixture(params=_ROUTES)
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    with lazy_route(request.param):
        yield request.param


def _assert_withheld(shown: str, secret: str, depth: int) -> None:
    for level in _decoded(shown):
        assert secret not in level, (depth, shown[:300])
    for spelled in _spellings(secret, depth):
        assert spelled not in shown, (depth, spelled)


@pytest.mark.parametrize("engine", _ENGINES, ids=_ENGINE_IDS)
@pytest.mark.parametrize("depth", range(1, DEEPEST + 1))
def test_a_credential_assignment_is_withheld_at_any_depth(
    route: str, depth: int, engine: Any
) -> None:
    """The shape found in review, ``depth`` levels of ``json.dumps`` down, on every route."""
    text, secret = _ASSIGNMENT
    with using_engine(engine):
        _assert_withheld(_shown(_wrapped(text, depth), route), secret, depth)


@pytest.mark.parametrize("engine", _ENGINES, ids=_ENGINE_IDS)
@pytest.mark.parametrize("depth", range(4, DEEPEST + 1))
@pytest.mark.parametrize(
    ("text", "values", "family"), FAMILY_SLASHED, ids=[family for _, _, family in FAMILY_SLASHED]
)
def test_a_slashed_keyword_is_read_past_three_levels_of_php(
    text: str, values: tuple[str, ...], family: str, depth: int, engine: Any
) -> None:
    """A keyword with a "/" in PHP's spelling four levels down or more: each "/" after 31
    backslashes or more, where the triggers held 15 at most, and the text was shown."""
    with using_engine(engine):
        shown = redact_text(_wrapped(json.dumps({"t": text}), depth, _php)).value
    for value in values:
        _assert_withheld(shown, value, 0)
        assert value not in shown.replace("\\", ""), (family, depth)


#: The rules' corpus, the shape found in review, and a sample of each keyword with a "/".
_SECRETS = st.sampled_from(
    [*POSITIVE, _ASSIGNMENT, *((text, max(values, key=len)) for text, values, _ in FAMILY_SLASHED)]
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    case=_SECRETS,
    depth=st.integers(0, DEEPEST),
    php=st.booleans(),
    engine=st.sampled_from(_ENGINES),
)
@example(case=_ASSIGNMENT, depth=3, php=False, engine=_ENGINES[-1])
def test_a_corpus_secret_is_withheld_at_every_depth_on_every_route(
    route: str, case: tuple[str, str], depth: int, php: bool, engine: Any
) -> None:
    """Any secret of the rules' corpus, wrapped in ``depth`` levels of ``json.dumps`` (or
    PHP's, every "/" escaped), is withheld on each route a tool result takes, and no level of
    its escaping spells it."""
    text, secret = case
    with using_engine(engine):
        shown = _shown(_wrapped(text, depth, _php if php else json.dumps), route)
    _assert_withheld(shown, secret, depth)


_B = "\\"  # one backslash


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a quote three levels down (7 backslashes) and eight (255): plain in one level
        (_B * 7 + '"k' + _B * 7 + '"', '"k"'),
        (_B * 255 + '"k', '"k'),
        # a quote one level down is the text finder's own: kept
        (_B + '"k' + _B + '"', None),
        # any run before a "/": PHP's, and JSON-in-JSON's of it
        (f"a{_B}/b{_B * 3}/c", "a/b/c"),
        # pairs before anything else: a line break's escape three levels down is one
        (f"x{_B * 4}ny", f"x{_B}ny"),
        # a \\u escape a level down, and two: the pairs read, then the escape
        (f"{_B * 2}u0067hp_", "ghp_"),
        (f"{_B * 4}u0067hp_", "ghp_"),
        # an odd run's last backslash opens the \\u escape after it (JSON's own pairing): read
        # as one run, the "u" escape was lost and the "&" it and "0026" spell never read
        (f"{_B * 3}u00750026", "&"),
        # escapes of escapes at two levels that spell one "X" together (found by the
        # escape-spellings property, NDJSON route): a run before a "u" read whole lost the
        # backslash of the escape a level down, and "X-Amz-Signature" was never read
        (f"{_B * 6}u007500{_B * 2}u00358", "X"),
        # one escaped backslash and nothing after it to escape
        (f"C:{_B * 2}temp", f"C:{_B}temp"),
    ],
)
def test_a_run_of_backslashes_is_read_as_every_level_at_once(text: str, read: str | None) -> None:
    view = decode_escapes(text)
    assert (view and view.text) == read
