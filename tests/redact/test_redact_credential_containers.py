"""A credential-named key's value is withheld whatever its JSON type (issue 22).

``terraform output -json`` writes ``{"db_password": {"value": "…", "sensitive": true}}``; a
config lists ``"password": ["…"]``. Only a string value under such a key was withheld, so
these reached the model (found by an attacker's corpus of real tools' outputs). Every string
and number inside is now withheld, the structure kept; booleans and null stay (``sensitive:
true`` says what a value is, and two values or none can hold no secret); members that name a
secret's metadata (``type``, ``sensitive``, ``name``…) stay too.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.guard.policy import RedactionPolicy, ToolCall, ToolResult
from elision.redact import redact_value
from elision.redact.fields import is_metadata_key
from elision.redact.generic import is_location, placeholder, prose

SECRET = "s3cr3t-Value-9f8e7d"


@pytest.mark.parametrize(
    ("doc", "kept"),
    [
        # terraform output -json: the value goes, the flag and type stay
        ({"db_password": {"value": SECRET, "sensitive": True, "type": "string"}},
         {"sensitive": True, "type": "string"}),
        # a list of passwords
        ({"password": [SECRET, SECRET + "2"]}, {}),
        # nested deeper, with a number (a PIN) and a null
        ({"api_key": {"primary": {"v": [SECRET, 12345678]}, "rotated": None}}, {}),
        # a numeric password straight under the key
        ({"admin_password": 93847261}, {}),
        # a list of objects under a secret's name
        ({"client_secret": [{"value": SECRET}, {"value": SECRET + "b"}]}, {}),
    ],
)
def test_every_scalar_under_a_credential_name_is_withheld(doc: Any, kept: dict[str, Any]) -> None:
    result = redact_value(doc)
    shown = orjson.dumps(result.value).decode()
    assert SECRET not in shown
    assert "12345678" not in shown and "93847261" not in shown
    assert result.withheld
    # The structure stays: the same keys, the same array lengths.
    assert _shape_of(result.value) == _shape_of(doc)
    for key, value in kept.items():
        assert f'"{key}":{orjson.dumps(value).decode()}' in shown


def test_terraform_output_through_shape_and_the_guardian() -> None:
    doc = {"db_password": {"value": SECRET, "sensitive": True, "type": "string"},
           "endpoint": {"value": "db.internal:5432", "sensitive": False, "type": "string"}}
    assert SECRET not in shape(orjson.dumps(doc), 4096).text
    decision = RedactionPolicy().decide(ToolResult(doc, 0, ""), ToolCall("terraform"))
    assert decision.kind == "modify"
    assert "/db_password/value" in [r.path for r in decision.redactions]


@pytest.mark.parametrize(
    "doc",
    [
        # weak names: a container is walked, only opaque strings inside are withheld
        {"token": {"count": 4096, "kind": "bpe"}},
        {"auth": {"type": "oauth2", "scopes": ["repo", "read:org"]}},
        {"credentials": ["ada"]},
        # cursors and counts are no credentials whatever holds them
        {"page_token": ["abc", 3]},
        {"usage": {"max_tokens": [1, 2]}},
        # a Kubernetes volume names its secret; the name is not the secret
        {"secret": {"secretName": "db-creds", "defaultMode": 420, "optional": False}},
        # an empty or masked value stays
        {"password": ["", "********"]},
    ],
)
def test_clean_containers_are_kept(doc: Any) -> None:
    result = redact_value(doc)
    assert result.withheld == ()
    assert result.value == doc


def _shape_of(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape_of(v) for v in value]
    return None


STRONG_NAMES = ["password", "db_password", "api_key", "client_secret", "DB_PASSWORD",
                "accessToken", "private_key", "passphrase"]
_KEYS = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=8
                ).filter(lambda k: not is_metadata_key(k))
_SCALARS = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=24
            ).filter(lambda s: not (placeholder(s) or prose(s) or is_location(s))),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
)
_JSON = st.recursive(
    st.one_of(_SCALARS, st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=12,
)


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(STRONG_NAMES), value=_JSON)
def test_no_scalar_under_a_credential_name_is_ever_shown(name: str, value: Any) -> None:
    """Property: under a credential name, a JSON value of any shape shows none of its strings
    and numbers (booleans and null are kept), at any depth, with the shape unchanged. The
    strings drawn are those the member rule calls values: not a placeholder, a message
    (``prose``) or a path or URL (``is_location``), which it keeps wherever they are."""
    result = redact_value({"config": {name: value}})
    shown = result.value["config"][name]
    assert _shape_of(shown) == _shape_of(value)
    for before, after in zip(_scalars(value), _scalars(shown), strict=True):
        if isinstance(before, bool) or before is None:
            assert after is before
        else:
            assert isinstance(after, str) and after.startswith("[credential withheld")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # JSON written into a text (a log line, a tool's stdout that is not all JSON)
        ('terraform: {"db_password": {"value": "' + SECRET + '", "sensitive": true}} ok',
         ['"sensitive": true', "ok"]),
        ('config {"password": ["' + SECRET + '", "' + SECRET + '2"]} loaded', ["loaded"]),
        ("db_password = ['" + SECRET + "']", []),
        ('"admin_password": 93847261,', []),
        # pretty-printed: the value on the next line
        ('{\n  "db_password": {\n    "value": "' + SECRET + '",\n    "type": "string"\n  }\n}',
         ['"type": "string"']),
    ],
)
def test_a_container_under_a_credential_name_in_text_is_withheld(text: str,
                                                                 kept: list[str]) -> None:
    from elision.redact import redact_text

    shown = str(redact_text(text).value)
    assert SECRET not in shown and "93847261" not in shown
    for piece in kept:
        assert piece in shown


@pytest.mark.parametrize(
    "text",
    [
        '{"secret": {"secretName": "db-creds", "defaultMode": 420}}x',
        '{"password": ["", "********"]} x',
        'password: [required]',
        '{"token": {"count": 4096}}y',
    ],
)
def test_clean_containers_in_text_are_kept(text: str) -> None:
    from elision.redact import redact_text

    assert redact_text(text).withheld == ()
