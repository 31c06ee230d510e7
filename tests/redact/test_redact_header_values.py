"""A credential header's value is its first token, or its scheme and token: what follows it on
its line is shown, and never in its place.

Found by the gluedself helper, and called the widest leak left: ``Authorization:`` read its
line's first word as a scheme whatever it was, so ``Authorization: <value> trailing words``
showed the value and withheld ``trailing words``; ``authorization: <value> ghp_…`` showed the
value beside the token's stub. Each route a text takes is asked: a text, a JSON string, NDJSON
lines, and the proxy's egress gate.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_text
from support.routes import by_route as _routes

_ALNUM = string.ascii_letters + string.digits


def _secret(seed: int, size: int = 24) -> str:
    """A random value as a generator makes one: letters and digits, a digit among them."""
    rng = random.Random(seed)
    chars = rng.choices(_ALNUM, k=size - 2)
    return "".join([*chars, rng.choice(string.ascii_letters), rng.choice(string.digits)])


#: Every header name the name classifier calls a credential's, spelled as headers are.
HEADER_NAMES = sorted({
    "Authorization", "Proxy-Authorization", "authorization", "AUTHORIZATION", "Cookie",
    "Set-Cookie", "cookie",
    "Private-Token", "Api-Key", "apikey", "X-API-KEY", "Ocp-Apim-Subscription-Key",
    *(f"X-{q.title()}-Key" for q in generic.STRONG_KEY_QUALIFIERS if "_" not in q),
    *(f"X-{q.title()}-Token" for q in generic._STRONG_TOKEN_QUALIFIERS),
    *(f"X-{word.title()}" for word in generic._STRONG_ENDINGS),
    *(f"X-{word.title()}" for word in generic._WEAK_ENDINGS if word != "cookie"),
})
_PLAIN_WORDS = ["trailing", "words", "more", "expires", "in", "3600s", "GET", "/v1/items",
                "HTTP/1.1", "200", "ok", "(retry)", "then", "sent", "upstream", "at",
                "12:00:01", "user=ada", "-", "|", "done.", "host", "example.com"]
_PROSE = st.lists(st.sampled_from(_PLAIN_WORDS), min_size=1, max_size=6).map(" ".join)


@pytest.mark.parametrize("name", HEADER_NAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 1 << 32), trailing=_PROSE, colon=st.sampled_from([": ", ":", ":  "]))
def test_a_header_value_followed_by_words_is_withheld_and_the_words_shown(
    name: str, seed: int, trailing: str, colon: str
) -> None:
    assert generic.name_strength(name), name  # the table holds credentials' names only
    value = _secret(seed)
    line = f"{name}{colon}{value} {trailing}"
    for route, shown in _routes(line).items():
        assert value not in shown, (route, line, shown)
        assert shown.endswith(f" {trailing}"), (route, line, shown)


G = "ghp_" + _secret(7, 36)
S = _secret(1)


@pytest.mark.parametrize(("line", "kept"), [
    # the raw value, then a token of a family: both withheld, each under its own rule
    (f"authorization: {S} {G}", "[credential withheld: github-token]"),
    (f"Authorization: {S} trailing words", " trailing words"),
    (f"x-api-key: {S} more", " more"),
    # a cookie's value ends at a space (RFC 6265), quoted or not, named or not
    (f"Cookie: sid={S} trailing words; theme=dark", " trailing words; theme=dark"),
    (f'Cookie: sid="{S}" (from the jar)', '" (from the jar)'),
    (f"Cookie: {S} trailing", " trailing"),
    (f"Cookie: theme=dark x; sid={S} more", " more"),
    # a scheme, then the token, then words
    (f"Authorization: Token {S} (expired)", " (expired)"),
    (f"Authorization: Custom {S} see <docs> for more", " see <docs> for more"),
    (f"Proxy-Authorization: Negotiate {S}, retrying", ", retrying"),
    # auth-params are the credential, up to the last of them
    (f'Authorization: Digest username="u", response="{S}" took 3 ms', " took 3 ms"),
    (f"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/"
     f"aws4_request, SignedHeaders=host;x-amz-date, Signature={S} 403", " 403"),
    # what the header was written in closes after it
    (f"(Authorization: {S}) was sent", ") was sent"),
    (f'{{"h": "Authorization: {S} trailing"}}', ' trailing"}'),
    # a quote that never closes on its line opens the value, not the credential
    (f'Authorization="{S} more', " more"),
    # a path's header name (a request line glued to its header)
    (f"GET /api/authorization: {S} trailing", " trailing"),
])
def test_a_header_credential_ends_at_its_token(line: str, kept: str) -> None:
    shown = str(redact_text(line).value)
    assert S not in shown and G not in shown, shown
    assert shown.endswith(kept), shown


@pytest.mark.parametrize("line", [
    # an unknown word and a plain word: which is the credential is not told, so both go
    "Authorization: qfjjDuTBJLrkDgNRWR trailing",
    "Authorization: Custom abcdefghijklmnop",
    # a container under the name: its strings each withheld, as a password's
    'Authorization={"a": {"b": "deep1234"}}',
])
def test_what_cannot_be_told_apart_is_withheld(line: str) -> None:
    shown = str(redact_text(line).value)
    for secret in ("qfjjDuTBJLrkDgNRWR", "abcdefghijklmnop", "deep1234"):
        assert secret not in shown, shown


@pytest.mark.parametrize("line", [
    "Authorization: Token <your-api-token> (see the docs)",
    "Authorization: required",
    "Authorization: header missing from request",
    "Authorization: Token required for this endpoint",
])
def test_a_header_without_a_credential_is_kept(line: str) -> None:
    assert redact_text(line).value == line
