"""A credential's value under a name given as a sibling: ``{"name": "DB_PASSWORD", "value": …}``.

Found by an attacker's pass over real tools' outputs (the task "hunt"): Kubernetes writes a
container's environment as ``env: [{"name": "DB_PASSWORD", "value": "…"}]`` (``kubectl get
pod -o json``), ECS task definitions and HAR files' headers the same, AWS SSM a parameter as
``{"Name": "/prod/db/password", "Type": "SecureString", "Value": "…"}`` and tags as ``{"Key":
…, "Value": …}``. The rules read a member's own key, ``value``, which names nothing, so every
one of these values reached the model whole. The pair's value is now judged as the value of
a member with the pair's name.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value

SECRET = "Zq8vN3xK7pL2mR9tW4yB6cH1"


def _shown(doc: Any) -> str:
    return orjson.dumps(redact_value(doc).value).decode()


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        # kubectl get pod -o json: a container's environment
        ({"spec": {"containers": [{"env": [{"name": "PORT", "value": "8080"},
                                           {"name": "DB_PASSWORD", "value": SECRET}]}]}},
         "$.spec.containers[0].env[1].value"),
        # an ECS task definition's environment, the same form
        ({"environment": [{"name": "STRIPE_API_KEY", "value": SECRET}]},
         "$.environment[0].value"),
        # a HAR file's request header
        ({"headers": [{"name": "X-Api-Key", "value": SECRET}]}, "$.headers[0].value"),
        # AWS SSM get-parameter: the name is a path whose last word is the name
        ({"Parameter": {"Name": "/prod/db/password", "Type": "SecureString",
                        "Value": SECRET, "Version": 3}}, "$.Parameter.Value"),
        # AWS tags, Key and Value
        ({"Tags": [{"Key": "Owner", "Value": "ops"}, {"Key": "api_secret", "Value": SECRET}]},
         "$.Tags[1].Value"),
        # a lower-case key/value pair, the value a number (a PIN under a strong name)
        ({"settings": [{"key": "admin_pin_password", "value": 83710466}]},
         "$.settings[0].value"),
        # a weak name (a bare token) withholds an opaque value
        ({"vars": [{"name": "GITHUB_TOKEN", "value": SECRET}]}, "$.vars[0].value"),
        # a container under the name: each scalar in it
        ({"params": [{"name": "db_password", "value": [SECRET]}]}, "$.params[0].value[0]"),
        # an affixed name (a numbered or versioned setting): the JSON scan's affixed pass
        # read a value's "DB_PASSWORD_2" as naming nothing, so the pair was never walked
        ({"env": [{"name": "DB_PASSWORD_2", "value": SECRET}]}, "$.env[0].value"),
        ({"Parameter": {"Name": "/prod/db/password_1", "Type": "SecureString",
                        "Value": SECRET}}, "$.Parameter.Value"),
        ({"Tags": [{"Key": "api_key_v2", "Value": SECRET}]}, "$.Tags[0].Value"),
        ({"vars": [{"value": SECRET, "key": "secret_old"}]}, "$.vars[0].value"),
    ],
)
def test_a_name_value_pair_withholds_its_value(doc: Any, path: str) -> None:
    result = redact_value(doc)
    shown = orjson.dumps(result.value).decode()
    assert SECRET not in shown and "83710466" not in shown
    assert path in [entry["path"] for entry in result.withheld]
    # The name stays: it says what was withheld.
    assert "value" in shown.lower()


@pytest.mark.parametrize(
    "doc",
    [
        # the name is no credential's
        {"name": "USER", "value": SECRET},
        # a cursor's and a schema's names withhold nothing
        {"name": "page_token", "value": SECRET},
        {"name": "password_policy", "value": "strict"},
        # a weak name keeps a value that is not opaque
        {"name": "token", "value": "bpe"},
        # a placeholder or a masked value is no credential
        {"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"},
        {"name": "DB_PASSWORD", "value": "********"},
        # a Kubernetes secret reference: the value comes from elsewhere, its names stay
        {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "pw"}}},
        # a name that is not a string names nothing
        {"name": 7, "value": SECRET},
    ],
)
def test_a_pair_that_names_no_credential_keeps_its_value(doc: Any) -> None:
    assert redact_value(doc).value == doc


def test_a_pair_with_an_affixed_name_withholds_its_value_in_a_parsed_body() -> None:
    """A Kubernetes env of numbered settings (``bench/fuzz_linear.py``'s ``json-pairs``),
    parsed from its bytes as the pipeline does: every value was shown (found when that
    class's 1 MB fell from 764 ms to 4 ms: nothing in it was walked)."""
    from elision.shape.jsonparse import parse_json

    body = orjson.dumps([{"name": f"DB_PASSWORD_{i}", "value": f"{SECRET}{i}"}
                         for i in range(300)])
    result = redact_value(parse_json(body), body=body)
    assert SECRET not in orjson.dumps(result.value).decode()
    assert [e["path"] for e in result.withheld] == [f"$[{i}].value" for i in range(300)]


def test_a_pair_through_shape_and_a_long_array() -> None:
    """Through ``shape()``, in an array long enough to take the walk's runs and lazy read."""
    rows = [{"name": f"VAR_{i}", "value": f"v{i}"} for i in range(20_000)]
    rows[12_345] = {"name": "AWS_SECRET_ACCESS_KEY", "value": SECRET}
    body = orjson.dumps({"env": rows})
    shaped = shape(body, 4096)
    assert SECRET not in shaped.text
    assert SECRET not in _shown({"env": rows})


_NAMES = st.sampled_from(["password", "DB_PASSWORD", "api_key", "X-Api-Key", "client_secret",
                          "/prod/app/secret", "PRIVATE_KEY", "access_token",
                          "DB_PASSWORD_1", "api_key_v2", "/prod/db/password_2"])
_PAIR_KEYS = st.sampled_from([("name", "value"), ("Name", "Value"), ("key", "value"),
                              ("Key", "Value")])
_SECRETS = st.text(alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                   min_size=20, max_size=40)


@settings(max_examples=60, deadline=None)
@given(_NAMES, _PAIR_KEYS, _SECRETS, st.integers(0, 40), st.booleans())
def test_property_no_paired_credential_is_shown(
    name: str, keys: tuple[str, str], secret: str, at: int, extra: bool,
) -> None:
    """Wherever the pair sits among ordinary pairs, its value is shown exactly when a member
    so named would show it (a placeholder, a run of one char, is shown by both)."""
    name_key, value_key = keys
    as_member = secret in _shown({name: secret})
    pair: dict[str, Any] = {name_key: name, value_key: secret}
    if extra:
        pair["type"] = "String"
    rows: list[Any] = [{name_key: f"OPTION_{i}", value_key: f"o{i}"} for i in range(40)]
    rows.insert(at, pair)
    assert (secret in _shown({"items": rows})) == as_member
    assert (secret in shape(orjson.dumps({"items": rows}), 2048).text) == as_member


def _text_shown(text: str) -> str:
    return str(redact_text(text).value)


@pytest.mark.parametrize(
    "text",
    [
        # an NDJSON line of an environment listing
        '{"name":"PORT","value":"8080"}\n{"name":"DB_PASSWORD","value":"' + SECRET + '"}\n',
        # a log line that prints a container spec's JSON, with spaces
        'INFO spec {"env": [{"name": "STRIPE_API_KEY", "value": "' + SECRET + '"}]} ok\n',
        # pretty-printed JSON read as text: the value on the line after the name
        '{\n  "Name": "/prod/db/password",\n  "Value": "' + SECRET + '"\n}\n',
        # AWS SSM's parameter printed in a log: two members between the name and the value
        'got {"Name": "/prod/db/password", "Type": "SecureString", "Version": 3, "Value": "'
        + SECRET + '"}',
        # Jackson's pretty printer: a space before each colon
        '{\n  "name" : "DB_PASSWORD",\n  "value" : "' + SECRET + '"\n}\n',
        # a string value with an escaped quote in it: withheld to its closing quote
        '{"key": "api_secret", "value": "' + SECRET + '\\"x"}',
        # JSON-in-JSON: a tool's text block that holds a document whose string holds the pair
        '{"items":[{"note":"{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"' + SECRET
        + '\\"}"}]}',
        # a value with an escape in it is withheld to its closing quote
        '{"name":"DB_PASSWORD","value":"ab\\/' + SECRET + '"}',
        # a number under a strong name (a PIN)
        '{"name": "admin_pin_password", "value": 83710466}',
        # a .NET appSettings entry: the pair as a tag's attributes
        '<appSettings><add key="StripeApiKey" value="' + SECRET + '" /></appSettings>',
        # an HTML form's hidden field, another attribute between, single quotes
        "<input name='api_key' type='hidden' value='" + SECRET + "'>",
    ],
)
def test_a_pair_written_as_json_in_a_text_withholds_its_value(text: str) -> None:
    shown = _text_shown(text)
    assert SECRET not in shown and "83710466" not in shown
    assert "[credential withheld" in shown
    assert SECRET not in shape(text, 100_000, format="text").text


@pytest.mark.parametrize(
    "text",
    [
        # names of no credential, a cursor's, a schema's
        '{"name": "USER", "value": "' + SECRET + '"}',
        '{"name": "page_token", "value": "' + SECRET + '"}',
        '{"name": "password_policy", "value": "strict"}',
        # a placeholder and a masked value
        '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
        '{"name": "DB_PASSWORD", "value": "********"}',
        # a long value under a name of no credential is read no differently
        '{"name": "USER", "value": "' + "x" * 5000 + '"}',
        # a tag's pair of no credential, an empty password field, a template's placeholder
        '<add key="Theme" value="' + SECRET + '" />',
        '<input type="password" name="password" value="">',
        '<input name="password" value="{{ password }}">',
        # a number under a weak name
        '{"name": "max_tokens", "value": 4096}',
    ],
)
def test_a_pair_in_a_text_that_names_no_credential_keeps_its_value(text: str) -> None:
    assert _text_shown(text) == text


def test_a_text_pair_longer_than_the_read_is_withheld_unread() -> None:
    """A value past 4 KB is withheld to its closing quote, not shown from its 4,097th char."""
    value = SECRET * 400
    shown = _text_shown('{"name": "DB_PASSWORD", "value": "' + value + '"} tail')
    assert SECRET not in shown
    assert shown.endswith('"} tail')


@settings(max_examples=60, deadline=None)
@given(_NAMES, _PAIR_KEYS, _SECRETS, st.integers(0, 20), st.booleans())
def test_property_a_text_pair_withholds_what_the_parsed_pair_does(
    name: str, keys: tuple[str, str], secret: str, at: int, pretty: bool,
) -> None:
    """NDJSON (or pretty JSON read as text) of pairs shows a value exactly when the walk of
    the parsed pair shows it."""
    name_key, value_key = keys
    rows: list[Any] = [{name_key: f"OPTION_{i}", value_key: f"o{i}"} for i in range(20)]
    rows.insert(at, {name_key: name, value_key: secret})
    if pretty:
        text = json.dumps(rows, indent=2)
    else:
        text = "\n".join(json.dumps(row) for row in rows) + "\n"
    parsed = secret in _shown(rows)
    assert (secret in _text_shown(text)) == parsed


@pytest.mark.parametrize("line", [
    'setting name="db_password" value="{}" applied',   # a log line's pair, no tag in it
    '<param name="api_key" value="{}">',                # a tag's
    'NAME="DB_PASSWORD" VALUE="{}"',                    # upper case, no tag
])
def test_a_pair_of_attributes_is_read_with_or_without_a_tag(line: str) -> None:
    """The attributes' search is told in C whether it can match (15 ms a MB otherwise): by a
    tag's ``<`` or a ``value`` as written, so a log line's pair is still read."""
    from elision.redact import redact_text

    secret = "Zq8vR2mT9xLp4Kd7xW3n"
    assert secret not in redact_text(line.format(secret)).value
