"""A stub replaces the secret, not its neighbours (issue 13, over-redaction).

Found by issue 13: ``DATABASE_URL=postgres://user:pw@host/db`` came out as one stub (the name
went with the password), and an object with a token for a key became one stub string (every
harmless sibling went with it). Each case is (input, what must come out); the secret itself is
checked absent by the same test.
"""

from __future__ import annotations

from typing import Any

import pytest

from elision.redact import redact_text, redact_value

GHP = "ghp_N31ghb0urT0k3nXyZ0123456789abcdefAB"
SIG = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
SIGNED = (
    "https://bucket.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIDNEIGHBOUR%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    f"&X-Amz-Signature={SIG}"
)
PW = "pgN31ghb0urPa55"


def stub(rule: str) -> str:
    return f"[credential withheld: {rule}]"


TEXT_CASES = [
    # The variable's name and the URL's scheme, user and host stay: only the password goes.
    # (the stub names the DSN's family: elision/data/families.toml)
    (f"DATABASE_URL=postgres://app:{PW}@db.internal:5432/app",
     f"DATABASE_URL=postgres://app:{stub('postgres-dsn-password')}@db.internal:5432/app", PW),
    # The same with export and a query: the rest of the line stays.
    (f"export DATABASE_URL=postgresql://app:{PW}@db/app?sslmode=require # prod",
     f"export DATABASE_URL=postgresql://app:{stub('postgres-dsn-password')}@db/app?sslmode=require"
     " # prod",
     PW),
    # A userinfo URL that also carries a credential parameter goes whole (the token would show).
    (f"url=https://app:{PW}@h.example.com/x?access_token=tok123456789 ok",
     f"url={stub('url-userinfo')} ok", PW),
    # A signed URL goes whole, but the name before its "=" stays.
    (f"link={SIGNED} expires soon", f"link={stub('aws-sigv4-url')} expires soon", SIG),
    # YAML-ish "name: url": already kept, and still kept.
    (f"download: {SIGNED}", f"download: {stub('aws-sigv4-url')}", SIG),
    # A URL in parentheses keeps them.
    (f"(see {SIGNED})", f"(see {stub('aws-sigv4-url')})", SIG),
    # A token in prose keeps the words either side.
    (f"use {GHP} to push, then stop", f"use {stub('github-token')} to push, then stop", GHP),
    # A header keeps its name and scheme; what follows the token stays.
    ("Authorization: Bearer Q7fK2mZp9vX4tR8wL1nB6cY3hJ5sD0gE; retry=3",
     f"Authorization: Bearer {stub('bearer-token')}; retry=3", "Q7fK2mZp9vX4tR8wL1nB6cY3hJ5sD0gE"),
    # A .env line: the name and the next assignment on the line stay.
    ("PASSWORD=hunter2Xy9Qz USER=bob", f"PASSWORD={stub('credential-assignment')} USER=bob",
     "hunter2Xy9Qz"),
    # A trailing comment stays.
    ("DB_PASSWORD=s3cr3tVal9x # prod db",
     f"DB_PASSWORD={stub('credential-assignment')} # prod db", "s3cr3tVal9x"),
    # YAML: the key and its comment stay.
    ("api_key: Zx8mQ2pL9vR4tY7w  # rotate monthly",
     f"api_key: {stub('credential-assignment')}  # rotate monthly", "Zx8mQ2pL9vR4tY7w"),
    # A cookie header: only the session cookie's value goes, the other cookie stays.
    ("Cookie: session=Zx8mQ2pL9vR4tY7wK3abc; theme=dark",
     f"Cookie: session={stub('session-cookie')}; theme=dark", "Zx8mQ2pL9vR4tY7wK3abc"),
]


@pytest.mark.parametrize(("text", "want", "secret"), TEXT_CASES)
def test_a_line_keeps_everything_but_the_secret(text: str, want: str, secret: str) -> None:
    out = redact_text(text).value
    assert secret not in out
    assert out == want


def test_a_secret_inside_a_json_string_keeps_the_rest_of_the_string() -> None:
    doc = {"env": f"DATABASE_URL=postgres://app:{PW}@db/app", "n": 1}
    out = redact_value(doc)
    assert out.value == {
        "env": f"DATABASE_URL=postgres://app:{stub('postgres-dsn-password')}@db/app", "n": 1}
    assert [w["path"] for w in out.withheld] == ["$.env"]


JSON_CASES: list[tuple[Any, Any]] = [
    # A token as a key: the key becomes its stub; its value and every sibling stay.
    ({"creds": {GHP: "repo,workflow", "host": "github.com", "port": 443}},
     {"creds": {stub("github-token"): "repo,workflow", "host": "github.com", "port": 443}}),
    # A key with a token inside some words keeps the words.
    ({f"token {GHP} scopes": ["repo"], "user": "ops"},
     {f"token {stub('github-token')} scopes": ["repo"], "user": "ops"}),
    # Two secret keys that would stub alike stay two members, in order.
    ({GHP: 1, GHP.replace("AB", "CD"): 2, "z": 3},
     {stub("github-token"): 1, stub("github-token") + " (2)": 2, "z": 3}),
    # The value under a secret key is still redacted itself.
    ({GHP: {"url": SIGNED, "name": "q3"}},
     {stub("github-token"): {"url": stub("aws-sigv4-url"), "name": "q3"}}),
    # AWS STS JSON: each credential member goes, the expiry beside them stays.
    ({"Credentials": {"AccessKeyId": "ASIAZ7SEEDEDEXAMPLE1",
                      "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY12",
                      "Expiration": "2026-12-01T00:00:00Z"}},
     {"Credentials": {"AccessKeyId": stub("aws-access-key-id"),
                      "SecretAccessKey": stub("credential-field"),
                      "Expiration": "2026-12-01T00:00:00Z"}}),
    # A credential-named member: its value goes, its siblings stay.
    ({"user": "ops", "password": "hunter2-but-longer", "host": "db"},
     {"user": "ops", "password": stub("credential-field"), "host": "db"}),
]


@pytest.mark.parametrize(("doc", "want"), JSON_CASES)
def test_an_object_keeps_its_harmless_members(doc: Any, want: Any) -> None:
    out = redact_value(doc)
    assert out.value == want
    assert list(out.value) == list(want)  # the order of members too
    rendered = repr(out.value) + repr(out.withheld)
    assert GHP not in rendered and SIG not in rendered and "hunter2" not in rendered
