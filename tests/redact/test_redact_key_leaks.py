"""Secrets the hunt found shown whole by ``redact_text`` and ``shape()`` (docs/design.md,
"Leaks found by the hunt"): a secret as a key under a credential's name, a weak plural's
opaque items, a bare ``key`` in a query, a page's CSRF token, a property list's password,
and a value wrapped to the line after its name. Each case was red on the code before.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from elision.redact.generic import opaque

S = "Xk9mQ2zT7vLp4RwB8nYc3HdF"  # a random 24-char secret (opaque)
PLAIN = "hunter2xyz"  # not opaque: only a strong name withholds it


def text_shows(text: str, secret: str) -> bool:
    return secret in redact_text(text).value


def walked(value: Any) -> Any:
    body = json.dumps(value).encode()
    return redact_value(json.loads(body), body=body)


@pytest.mark.parametrize(
    "value",
    [
        {"password": {S: 1}},  # a strong name's key, its number withheld too
        {"tokens": {S: "bob"}},  # a weak plural: a map from each token to its owner
        {"api_keys": {S: {"owner": "bob"}}},  # a key over an object
        {"secrets": {"prod": {S: True}}},  # deeper down
    ],
)
def test_a_secret_as_a_key_under_a_credential_name_is_withheld(value: Any) -> None:
    """withhold_inside kept every key: the secret reached the model as a key, and again in
    the envelope's withheld path."""
    redaction = walked(value)
    assert S not in json.dumps(redaction.value)
    assert S not in json.dumps(redaction.withheld)
    assert not text_shows(json.dumps(value), S)


def test_two_withheld_keys_stay_two_members() -> None:
    """Keys stay unique (a number after the second stub) and the JSON parses."""
    value = {"password": {S: 1, S[::-1]: 2, "bob": 3}}
    out = walked(value).value["password"]
    assert len(out) == 3 and "bob" in out
    assert [k for k in out if k != "bob"] == [
        "[credential withheld: credential-field]",
        "[credential withheld: credential-field] (2)",
    ]
    assert json.loads(json.dumps(out)) == out


def test_many_keys_withheld_alike_are_numbered_once_each() -> None:
    """3,000 generated keys under one name: each its own stub key, numbered in order (each
    counted from 1 was the keys' count squared)."""
    keys = [f"{S[:12]}{i:08d}" for i in range(3000)]
    out = walked({"password": dict.fromkeys(keys, True)}).value["password"]
    stub = "[credential withheld: credential-field]"
    assert list(out) == [stub, *(f"{stub} ({n})" for n in range(2, 3001))]


@pytest.mark.parametrize(
    "value",
    [
        {"passwords": {"bob": S}},  # a user's name as a key stays; its value goes
        {"tokens": {"alice": "bob"}},
        {"api_keys": {"prod": S, "staging-2": S}},
    ],
)
def test_a_name_as_a_key_stays_shown(value: Any) -> None:
    out = json.dumps(walked(value).value)
    for key in value[next(iter(value))]:
        assert json.dumps(key) in out


@pytest.mark.parametrize(
    ("value", "in_text"),
    [
        ({"tokens": [S]}, True),
        ({"jwts": [S, "short"]}, True),
        ({"out": json.dumps({"tokens": [S]})}, True),  # JSON in a JSON string
        # a cookie's array is read in the walk only (the text's cookie rule reads a header)
        ({"cookies": [S, "theme=dark"]}, False),
    ],
)
def test_a_weak_plurals_opaque_items_are_withheld(value: Any, in_text: bool) -> None:
    """A bare ``tokens`` was no trigger at all (it would make every usage log dense), so the
    walk never read ``{"tokens": [S]}``; now it is one in quotes, whole."""
    assert S not in json.dumps(walked(value).value)
    if in_text:
        assert not text_shows(json.dumps(value), S)


def test_usage_counts_and_a_tokenizers_output_stay_shown() -> None:
    value = {"usage": {"prompt_tokens": 12, "total_tokens": 40}, "tokens": ["the", "cat"]}
    assert walked(value).withheld == ()
    assert redact_text(json.dumps(value)).withheld == ()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a bare key in a query: first parameter, later, JSON-escaped
        (f"GET https://maps.example.com/api/geocode?key={S}", S),
        (f"https://www.googleapis.com/youtube/v3/videos?part=id&key={S}_ab-CD", S),
        (json.dumps({"url": f"https://x.example.com/v1?q=a&key={S}"}), S),
        (f'{{"url": "https://x.example.com/v1?q=a\\u0026key={S}"}}', S),  # Go's escape
        (f"https://x.example.com/v1?q=a%26key={S}", S),
        (f"https://x.example.com/v1?q=a&KEY={S}", S),
        # a page's CSRF token: a meta tag's content, a form's hidden inputs
        (f'<meta name="csrf-token" content="{S}">', S),
        (f'<input type="hidden" name="authenticity_token" value="{S}">', S),
        (f'<input type="hidden" name="_csrf" value="{S}"/>', S),
        (f"<input name='_csrf' value='{S}'>", S),
        # a property list's credential under its key
        (f"<dict>\n\t<key>password</key>\n\t<string>{PLAIN}</string>\n</dict>", PLAIN),
        (f"<key>API_TOKEN</key><string>{S}</string>", S),
        (f"<key>db_password</key>\n<data>\n{S}\n</data>", S),
        # a value on the line after its name: JSON wrapped by a pretty-printer, YAML's plain
        # scalar over lines (its quotes too)
        (f'{{\n  "password":\n      "{PLAIN}"\n}}', PLAIN),
        (f'{{"user": "bob", "api_key":\n  "{S}"}}', S),
        (f"db:\n  password:\n    {PLAIN}\n  user: bob\n", PLAIN),
        (f'password:\n  "{PLAIN}"\n', PLAIN),
    ],
)
def test_text_leaks_are_withheld(text: str, secret: str) -> None:
    assert not text_shows(text, secret)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("GET https://x.example.com/api?key=value&key=id", "key=value"),
        ("https://x.example.com/a?key=my-project-name-2024", "my-project-name-2024"),
        (f"https://x.example.com/a?monkey={S}", S),  # a name that ends in key
        ("https://x.example.com/c?key=user:123:profile", "user:123:profile"),
        ("https://x.example.com/?key=550e8400-e29b-41d4-a716-446655440000", "550e8400"),
        ('<meta name="csrf-param" content="authenticity_token">', "authenticity_token"),
        ('<meta name="viewport" content="width=device-width, initial-scale=1">', "width"),
        ("<key>CFBundleName</key>\n<string>MyApp2024SuperLongName</string>", "MyApp2024"),
        ("<key>token</key>\n<string>short</string>", "short"),
        ('{\n  "password":\n    "********"\n}', "********"),
        ("password:\n  - a\n  - b\n", "- a"),  # a list under it: its items are judged alone
        ("password:\nuser: bob\n", "bob"),
    ],
)
def test_lookalikes_stay_shown(text: str, shown: str) -> None:
    assert text_shows(text, shown)


_NAMES = ["password", "db_password", "api_key", "apiKey", "client_secret", "auth_token",
          "passwords", "api_keys", "tokens", "secret"]
_SECRET = st.text(string.ascii_letters + string.digits, min_size=20, max_size=40).filter(
    lambda s: opaque(s) and len(set(s)) > 10
)


def _placed(name: str, secret: str, placement: str) -> tuple[str, Any]:
    """``secret`` under ``name`` as ``placement`` writes it: a text, and a value to walk."""
    if placement == "key":
        value: Any = {name: {secret: 1}}
        return json.dumps(value), value
    if placement == "list":
        value = {name: [secret]}
        return json.dumps(value), value
    if placement == "wrapped-json":
        text = f'{{\n  "{name}":\n    "{secret}"\n}}'
    elif placement == "wrapped-yaml":
        text = f"conf:\n  {name}:\n    {secret}\n"
    elif placement == "plist":
        text = f"<dict>\n  <key>{name}</key>\n  <string>{secret}</string>\n</dict>"
    else:  # a form's input
        text = f'<form><input type="hidden" name="{name}" value="{secret}"></form>'
    return text, {"out": text}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(_NAMES),
    secret=_SECRET,
    placement=st.sampled_from(["key", "list", "wrapped-json", "wrapped-yaml", "plist", "input"]),
    before=st.text(string.ascii_letters + " \n", max_size=30),
)
def test_any_credential_name_withholds_an_opaque_secret_wherever_placed(
    name: str, secret: str, placement: str, before: str
) -> None:
    """Whatever credential name holds an opaque secret and however it is placed, after any
    prose, neither the text route nor the walk shows it. A bare ``tokens`` is a trigger only
    quoted or whole (usage logs' ``prompt_tokens:``): its YAML key ending its line and its
    plist key are read (keyleak2)."""
    text, value = _placed(name, secret, placement)
    assert not text_shows(before + "\n" + text, secret)
    redaction = walked(value)
    assert secret not in json.dumps(redaction.value)
    assert secret not in json.dumps(redaction.withheld)
