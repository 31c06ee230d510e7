"""Two JSON bodies that parse to equal values are redacted alike, however they spell it.

Found in review: ``{"x": "{\\"url\\":\\"https:\\\\\\/\\\\\\/user:pw@host\\"}"}`` (a PHP
``json_encode`` body, which writes every ``/`` as ``\\/``, holding a JSON-in-JSON string) was
returned whole, password shown, where the same value spelled as orjson spells it withheld the
URL: the raw-body search (``triggers.body_may_need_redaction``) was trusted on any body without
a ``\\u`` escape, and its patterns read ``\\/`` and ``\\\\/`` but not ``\\\\\\/``. Nested a level
further, the orjson spelling itself was read by neither the search nor the URL rules. The
property found more: a family keyword that holds a "/" (``1//0``, ``/api/webhooks/``) in a PHP
body, and a Slack hook written with ``\\/`` in a text line or JSON-in-JSON. The property: any
body, its strings spelled with ``\\/`` (all, some, none, at each level), ``\\uXXXX`` escapes of
ASCII chars (at each level), JSON-in-JSON 1-3 levels deep and insignificant spaces,
withholds exactly what its value serialized by orjson withholds, and shows no secret at any
level of decoding (nor does the orjson spelling: a private key's escaped line breaks a level
down are read); on each route a body takes (a small one, a lazily read one, one document
repeated, NDJSON).
"""

from __future__ import annotations

import json
import random
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.mcp.gate.egress import Egress
from elision.redact import redact_text, triggers
from elision.redact.families import FAMILIES, sample
from support.engines import trigger_engines, using_engine
from support.lazy_json import lazy_route

_CASES = tomllib.loads((Path(__file__).parent / "fixtures" / "rules.toml").read_text("utf-8"))
#: Every true positive of the rules' corpus, with the part that must never be shown.
POSITIVE = [(c["text"], c["secret"]) for c in _CASES["case"] if c["rule"] and c["secret"]]
BENIGN = ["see https://example.com/a/b?q=1", "a/b/c", "C:\\temp\\x", "ratio 1/2: ok", "",
          "user@example.com", "\\/", "é/漢", "line\nbreak\t\"quoted\""]
_KEYS = ["x", "url", "log", "a/b", "data", "message", "é"]


class Nested:
    """A value written as a JSON text inside a string (JSON-in-JSON)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner


def _string(text: str, rng: random.Random, slash: float, escape: float) -> str:
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20:
            out.append(json.dumps(char)[1:-1])
        elif char == "/" and rng.random() < slash:
            out.append("\\/")
        elif char.isascii() and (char.isalnum() or char in ":/@") and rng.random() < escape:
            out.append(f"\\u{ord(char):04{rng.choice('xX')}}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def spell(value: Any, rng: random.Random, *, outer: bool = True) -> str:
    """``value`` as a JSON text whose every level of JSON-in-JSON is spelled its own way:
    ``/`` as ``\\/`` (all, some or none), spaces, and some ASCII chars as ``\\u`` escapes
    (at an inner level, fewer: a ``\\u`` escape a level down is the judge's to read)."""
    slash = rng.choice([0.0, 1.0, 1.0, 0.5])
    escape = rng.choice([0.0, 0.0, 0.0, 0.1] if outer else [0.0, 0.0, 0.05])
    space = rng.choice(["", "", " ", "\n  "])
    return _spelled(value, rng, slash, escape, space)


def _spelled(value: Any, rng: random.Random, slash: float, escape: float, space: str) -> str:
    if isinstance(value, Nested):
        return _string(spell(value.inner, rng, outer=False), rng, slash, escape)
    if isinstance(value, str):
        return _string(value, rng, slash, escape)
    if isinstance(value, dict):
        members = (f"{_string(k, rng, slash, escape)}{space}:{space}"
                   f"{_spelled(v, rng, slash, escape, space)}" for k, v in value.items())
        return "{" + space + ("," + space).join(members) + space + "}"
    if isinstance(value, list):
        items = (_spelled(v, rng, slash, escape, space) for v in value)
        return "[" + space + ("," + space).join(items) + space + "]"
    return json.dumps(value)


#: A sample of each family whose keyword holds a "/" (``1//0``, ``/api/webhooks/``): spelled
#: ``1\\/\\/0``, the raw-body search read none of them, and the body was shown whole.
FAMILY_SLASHED = [(*sample(f), f.id) for f in FAMILIES if any("/" in k for k in f.keywords)]
#: The cases whose credential holds a "/" of its own (a URL): drawn as often as all others.
_SLASHED = [(text, secret) for text, secret in POSITIVE if "/" in text] + [
    (text, max(values, key=len)) for text, values, _ in FAMILY_SLASHED]
_LEAVES = st.lists(
    st.sampled_from(_SLASHED) | st.sampled_from(POSITIVE)
    | st.sampled_from(BENIGN).map(lambda b: (b, None)), min_size=1, max_size=4)


@st.composite
def documents(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A value with the leaves at random paths, some subtrees JSON-in-JSON (1-3 levels), and
    the secrets it holds."""
    leaves = draw(_LEAVES)
    rng = draw(st.randoms(use_true_random=False))
    nodes: list[Any] = [text for text, _ in leaves]
    while len(nodes) > 1 or not isinstance(nodes[0], dict | list | Nested) or rng.random() < 0.3:
        take = rng.randint(1, len(nodes))
        group, nodes = nodes[:take], nodes[take:]
        if rng.random() < 0.5:
            node: Any = {rng.choice(_KEYS) + str(i): v for i, v in enumerate(group)}
        else:
            node = group
        if rng.random() < 0.4 and sum(isinstance(n, Nested) for n in _chain(node)) < 3:
            node = Nested(node)
        nodes.append(node)
        rng.shuffle(nodes)
        if len(nodes) == 1 and isinstance(nodes[0], dict | list | Nested) and rng.random() < 0.6:
            break
    top = nodes[0]
    if isinstance(top, Nested):
        top = {"x": top}
    return top, [secret for _, secret in leaves if secret is not None]


def _chain(node: Any) -> Iterator[Any]:
    """``node`` and every node under it."""
    yield node
    inner = node.inner if isinstance(node, Nested) else node
    if isinstance(inner, Nested):
        yield from _chain(inner)
    elif isinstance(inner, dict):
        for v in inner.values():
            yield from _chain(v)
    elif isinstance(inner, list):
        for v in inner:
            yield from _chain(v)


def _decoded(text: str) -> Iterator[str]:
    """``text`` and every string in it, at every level of JSON-in-JSON."""
    yield text
    try:
        value = json.loads(text)
    except ValueError:
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield from _decoded(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _withheld(body: bytes) -> tuple[list[Any], str]:
    got = shape(body, budget=4 * len(body) + 100_000)
    entries = (got.envelope or {}).get("withheld", [])
    return [(w.get("path", w.get("line")), w["reason"]) for w in entries], got.text


def _canonical(body: bytes, ndjson: bool) -> bytes:
    if ndjson:
        return b"\n".join(orjson.dumps(json.loads(line)) for line in body.split(b"\n"))
    return orjson.dumps(json.loads(body))


def _assert_alike(body: bytes, secrets: list[str], *, ndjson: bool = False) -> None:
    canonical = _canonical(body, ndjson)
    expected, shown_ref = _withheld(canonical)
    got, shown = _withheld(body)
    for secret in secrets:
        # A private key's line breaks a level of JSON-in-JSON down are the two chars \n: they
        # are read as breaks, so no spelling, orjson's included, shows any secret.
        assert not _shows(shown_ref, secret), (secret, canonical, shown_ref)
        assert not _shows(shown, secret), (secret, body, shown)
    if ndjson:
        # A line is judged as the text it is (its escapes as written), so the rule that
        # names a credential may differ with them; which lines withhold may not.
        assert {line for line, _ in got} == {line for line, _ in expected}
    else:
        assert got == expected


def _shows(text: str, secret: str) -> bool:
    return any(secret in level for level in _decoded(text))


#: The URL rules' true positives, with the rule each must be withheld under.
_URLS = [(c["text"], c["secret"], c["rule"]) for c in _CASES["case"]
         if c["rule"] in ("url-userinfo", "slack-webhook-url")]


def _php(value: Any) -> str:
    return json.dumps(value).replace("/", "\\/")


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("dumps", [json.dumps, _php], ids=["plain", "php"])
@pytest.mark.parametrize("case", _URLS, ids=[s for _, s, _ in _URLS])
def test_a_credential_url_is_withheld_at_any_depth_of_json_in_json(
    case: tuple[str, str, str], dumps: Any, depth: int
) -> None:
    """Each level of JSON-in-JSON doubles the backslashes of a ``\\/`` and PHP's spelling adds
    one: the search and the URL rules read ``\\/`` and ``\\\\/`` alone, so from two levels
    down a URL's password was shown, whichever spelling the body had; a Slack hook's rule read
    no ``\\/`` at all, so a hook in JSON-in-JSON, or in a text's line of PHP's JSON, was shown.
    Each body, and two of its lines as NDJSON (judged as text), withholds it."""
    text, secret, rule = case
    value: Any = text
    for _ in range(depth):
        value = dumps([value])
    line = dumps({"x": value})
    got, shown = _withheld(line.encode())
    assert got == [("$.x", rule)]
    assert not _shows(shown, secret)
    got, shown = _withheld(f"{line}\n{line}".encode())
    assert {n for n, _ in got} == {1, 2}
    assert not _shows(shown, secret)


_FAMILY_IDS = [family for _, _, family in FAMILY_SLASHED]


@pytest.mark.parametrize("text, values, family", FAMILY_SLASHED, ids=_FAMILY_IDS)
def test_a_family_keyword_with_a_slash_is_read_in_a_php_body(
    text: str, values: tuple[str, ...], family: str
) -> None:
    """``{"t":"1\\/\\/0…"}``: a Google refresh token, a Discord, Teams, Zapier or IFTTT hook,
    a Sentry DSN, each shown whole in a PHP body (found by this file's property): the raw-body
    search read its keyword (``1//0``, ``/api/webhooks/``) only as orjson spells it."""
    got, shown = _withheld(_php({"t": text}).encode())
    assert got == [("$.t", family)]
    assert not any(_shows(shown, value) for value in values)


def _php_in(dumps: Any) -> Any:
    return lambda value: dumps([_php(value)])


#: A line of PHP's JSON (``\\/``), it inside a string of orjson's (``\\\\/``) or of PHP's
#: (``\\\\\\/``): the backslashes a text holds before a keyword's "/" at each level.
_LINES = {"php": _php, "php-in-json": _php_in(json.dumps), "php-in-php": _php_in(_php)}


@pytest.mark.parametrize("spelling", list(_LINES))
@pytest.mark.parametrize("text, values, family", FAMILY_SLASHED, ids=_FAMILY_IDS)
def test_a_family_keyword_with_a_slash_in_a_text_line(
    text: str, values: tuple[str, ...], family: str, spelling: str
) -> None:
    """NDJSON and other texts are judged as written: a family keyword holding a "/"
    (``1//0``) spelled ``1\\/\\/0`` in a line of PHP's JSON was read by neither the text's
    trigger search nor the family's pattern, and the line was shown. The keyword's escaped
    spellings are triggers now, and the escape view reads ``\\/`` as "/"."""
    line = _LINES[spelling]({"t": text})
    got, shown = _withheld(f"{line}\n{line}".encode())
    assert {n for n, _ in got} == {1, 2}
    assert not any(_shows(shown, value) for value in values)


def _multiline_keys() -> list[tuple[str, str]]:
    """A PEM, PuTTY and SSH2 key across real line breaks, and the part never to be shown."""
    pem = [(c["text"], c["secret"]) for c in _CASES["case"] if c["rule"] == "private-key"]
    families = [sample(f) for f in FAMILIES if f.id in ("putty-private-key", "ssh2-private-key")]
    return pem + [(text, max(values, key=len)) for text, values in families]


_KEYS_ACROSS_LINES = _multiline_keys()


@pytest.mark.parametrize("where", ["json-in-json", "json-in-json-in-json", "ndjson", "log"])
@pytest.mark.parametrize("key, secret", _KEYS_ACROSS_LINES,
                         ids=[s[:12] for _, s in _KEYS_ACROSS_LINES])
def test_a_private_key_in_a_text_of_json_is_withheld(key: str, secret: str, where: str) -> None:
    """A key's line breaks in a string of JSON-in-JSON, or in a text (a log line, NDJSON)
    that prints JSON, are the two chars ``\\n``: its PEM header then follows a ``\\n``,
    whose "n" the rule's boundary read as a letter, and PuTTY's pattern read real line
    breaks alone; each was shown, in every spelling."""
    value: Any = {"key": key}
    if where == "json-in-json":
        body = json.dumps({"x": json.dumps(value)})
    elif where == "json-in-json-in-json":
        body = json.dumps({"x": json.dumps([json.dumps(value)])})
    elif where == "ndjson":
        body = f"{json.dumps(value)}\n{json.dumps([1])}"
    else:
        body = f"2026-12-04 INFO loaded {json.dumps(value)}\nINFO done"
    got, shown = _withheld(body.encode())
    assert got
    assert not _shows(shown, secret)


def test_a_percent_escape_spelled_in_a_u_escape_is_read_in_a_text() -> None:
    """``%6\\u0037hp_…``: a ``\\u`` escape inside a percent-escape (the text's escapes read
    once: ``%67`` was no escape to it), in an NDJSON line, showed the token."""
    token = "ghp_" + "FIXTURE0token0Ab1Cd2Ef3Gh4Ij5Kl6Mn7"[:36]
    line = '{"t": "%6\\u0037' + token[1:] + '"}'
    got, shown = _withheld(f"{line}\n{line}".encode())
    assert {n for n, _ in got} == {1, 2}
    assert token[1:] not in shown


_PHP = '{"x": "{\\"url\\":\\"https:\\\\\\/\\\\\\/user:pw0Fixture@host.example\\\\\\/x\\"}"}'
_GIT = ("clone https://ci-bot:FIXTUREpat0123@git.example.com/team/repo.git", "FIXTUREpat0123")
_ROUTES = ["small", "lazy", "repeated", "ndjson"]
_PEM_SECRET = "b3BlbnNzaC1rZXktdjEFIXTUREonly"
_PEM_IN_JSON = next(text for text, secret in POSITIVE if secret == _PEM_SECRET and "pem" in text)


@pytest.fixture(params=_ROUTES)
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    with lazy_route(request.param):
        yield request.param


def _body(value: Any, rng: random.Random, route: str) -> bytes:
    if route == "repeated":
        # One document written alike n times, each past the walk's split size: the uniform
        # array's and the repeated documents' routes (redact/uniform.py, redact/repeats.py).
        one = spell({"pad": "p" * 4200, "v": value}, rng)
        return ("[" + ",".join([one] * 3) + "]").encode()
    if route == "ndjson":
        # Lines are judged as text: each level's escapes read by the text's escape
        # decoding, a PEM block's END armour spelled in \u escapes too (it ended no key
        # before: the key ran on into the next line's).
        lines = (spell(value, rng, outer=False).replace("\n", "") for _ in range(3))
        return "\n".join(lines).encode()
    return spell(value, rng).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])
@given(document=documents(), seed=st.integers(0, 1 << 16))
@example(document=({"x": Nested({"url": "https://user:pw0Fixture@host.example/x"})},
                   ["pw0Fixture"]), seed=5)  # seed 5: every "/" at both levels escaped
@example(document=({"x": Nested({"y": Nested([_GIT[0]])})}, [_GIT[1]]), seed=1)
# a random draw's (--hypothesis-seed=2, route ndjson): a key whose END armour is spelled in
# \u escapes at one level (line 1) or another (line 2) ran on to the next armour written
# plainly, a line on, so which lines withheld depended on the spelling ({1} against {1, 3})
@example(document=({"x": Nested({"x0": _PEM_IN_JSON})}, [_PEM_SECRET]), seed=2)
def test_equal_values_spelled_apart_withhold_alike(
    route: str, document: tuple[Any, list[str]], seed: int
) -> None:
    value, secrets = document
    body = _body(value, random.Random(seed), route)
    _assert_alike(body, secrets, ndjson=route == "ndjson")


def test_a_php_body_of_json_in_json_withholds_the_userinfo() -> None:
    """The body found in review: equal to its orjson spelling, which withheld the URL."""
    got, shown = _withheld(_PHP.encode())
    assert got == [("$.x", "url-userinfo")]
    assert "pw0Fixture" not in shown


@pytest.mark.parametrize("spelled, needs", [
    # a \/ alone: the spelling orjson never writes
    (b'{"u":"https:\\/\\/u:pw0Fixture@h\\/x"}', True),
    # an escaped backslash, then a plain slash: no \/ escape at all (its "\\/" is kept)
    (b'{"u":"a\\\\/b"}', False),
    # an escaped backslash, then \/: the orjson spelling of JSON-in-JSON's \/ is \\/
    (b'{"u":"{\\"u\\":\\"https:\\\\\\/\\\\\\/u:pw0Fixture@h\\"}"}', True),
    # \/ as a string's last char, then the next member's key
    (b'{"a":"x\\/","password":"hunter22"}', True),
    # \u002f: a \u escape, never trusted to the byte search
    (b'{"u":"https:\\u002f\\u002fu:pw0Fixture@h"}', None),
    # mixed: \/ and / in one URL
    (b'{"u":"https:/\\/u:pw0Fixture@h/x"}', True),
    # \/ in a clean body: still nothing to withhold
    (b'{"path":"a\\/b\\/c","n":1}', False),
])
def test_the_raw_body_search_reads_every_slash_spelling(spelled: bytes, needs: bool | None,
                                                        ) -> None:
    if triggers.engine_name() != "hyperscan":
        pytest.skip("the raw-body search is hyperscan's own")
    assert triggers.body_may_need_redaction(spelled) is needs


_ESCAPABLE = st.text(st.sampled_from(["/", "\\", "a", '"', ":", "é", "\n"]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(_ESCAPABLE, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(_ESCAPABLE, inner, max_size=3), max_leaves=8),
       every=st.booleans())
def test_orjson_slashes_spells_a_body_as_orjson_does(value: Any, every: bool) -> None:
    """Each ``\\/`` escape, and no escaped backslash before a plain ``/``, is read as "/":
    a compact body with its "/"s escaped (all, or one in two) is then orjson's own bytes."""
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    spelled = compact.replace("/", "\\/") if every else _every_other_slash(compact)
    assert triggers.orjson_slashes(spelled.encode()) == orjson.dumps(value)


def _every_other_slash(text: str) -> str:
    parts = text.split("/")
    return "".join(part + ("\\/" if i % 2 else "/") for i, part in enumerate(parts[:-1])) + (
        parts[-1])


def test_the_proxy_withholds_a_token_a_php_server_escaped() -> None:
    """The egress gate judged a message's raw bytes by the same search: a tool result from a
    PHP server with a Google refresh token (``1\\/\\/0…``) went to the agent as it came."""
    text, values, _ = FAMILY_SLASHED[0]
    message = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}
    raw = _php(message).encode()
    out = Egress().gate_bytes(raw, "result")
    assert not any(_shows(out.decode(), value) for value in values)


def test_a_document_past_orjsons_depth_reads_its_raw_bytes_respelled() -> None:
    """Past orjson's depth the walk asks the regex passes of the raw bytes whether anything is
    there (``walk.may_need_redaction``): a PHP body's ``1\\/\\/0…`` 300 lists down was shown."""
    text, values, _ = FAMILY_SLASHED[0]
    body = ("[" * 300 + _php(text) + "]" * 300).encode()
    _, shown = _withheld(body)
    assert not any(value in shown.replace("\\/", "/") for value in values)


@pytest.mark.parametrize("engine", trigger_engines(), ids=lambda e: type(e).__name__.strip("_"))
def test_a_log_of_php_json_naming_a_hook_path_is_no_dense_stretch(engine: Any) -> None:
    """A keyword's escaped spellings (``\\/api\\/webhooks`` of ``/api/webhooks/``) are
    triggers: a log of PHP's JSON lines that each name the path, 128 to a 4 KB window, was
    withheld whole as credential-dense where nothing in it is a credential. They count in no
    window, and each line is judged and found clean."""
    line = '{"d":"\\/api\\/webhooks\\/","n":%d}'
    text = "\n".join(line % i for i in range(6 * triggers.DENSE_WINDOW // 30))
    positions, dense = triggers.dense_text_triggers(text, engine)
    assert positions
    assert dense == []
    with using_engine(engine):
        assert redact_text(text).value == text


_KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


@pytest.mark.parametrize("end", [
    "-----EN\\u0044 PRIVATE KEY-----",  # a \u escape in the armour
    "-----END PRIV\\\\u0041TE KEY-----",  # one a level of JSON-in-JSON down
    "%2D----END PRIVATE KEY%2D----",  # percent-encoded dashes
])
@pytest.mark.parametrize("route", ["short", "long"])
def test_a_key_ends_at_its_armour_spelled_in_escapes(end: str, route: str) -> None:
    """Red before: the pattern read the closing armour only as written, so the key ran on
    to the next key's armour (or the text's end) and the line between was withheld as the
    key's. Found as the ndjson route's random draw of the property above."""
    pad = "a line of prose\n" * (0 if route == "short" else 200)
    text = (f"-----BEGIN PRIVATE KEY-----\\n{_KEY_BODY}\\n{end}\nkept: a note\n{pad}"
            f"-----BEGIN PRIVATE KEY-----\n{_KEY_BODY}\n-----END PRIVATE KEY-----\n")
    done = redact_text(text)
    assert "kept: a note" in done.value
    assert _KEY_BODY not in done.value
    assert [w["reason"] for w in done.withheld] == ["private-key", "private-key"]
