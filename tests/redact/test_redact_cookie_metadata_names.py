"""A cookie named like a secret's metadata (``id``, ``mode``, ``type``, ``version``, a name
ending in ``name``) showed its generated value: inside a credential-named container a member
whose key says what a secret is (``fields.METADATA_KEYS``) was kept, and a weak plural's
container (``cookies``, ``tokens``) applied that to its members' keys, which are cookies' and
owners' names. Found by a random draw of test_redact_cookie_leaks.py's
``test_a_cookie_container_in_a_text_withholds_a_generated_value``:
``request sent "cookies": {"MODE": "<value>"} done`` showed the value on every route (the
walk, ``shape()``, YAML and plist collections too); ``"sid"`` was withheld.

A plain word under such a key (``"mode": "dark"``, a jar entry's ``"name": "id"``) is no
generated value and stays shown, and a strong name's metadata (a Kubernetes volume's
``secretName``) stays kept.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from elision.redact import redact_text
from redact.test_redact_header_values import _secret
from support.engines import trigger_engines, using_engine
from support.routes import on_every_engine, value_routes

S = _secret(1217)

#: Cookie names that are metadata keys under a strong name, each spelling.
_METADATA_NAMES = ["id", "mode", "MODE", "type", "version", "format", "Name", "session_name",
                   "userName"]


def _forms(name: str) -> list[Any]:
    return [
        {name: S},  # a map from each cookie's name to its value
        {"jar": {"other": "dark", name: [S]}},  # a jar's map, a list of values under a name
        {"jar": {name: {"value": S}}},  # a name's object
    ]


@pytest.mark.parametrize("name", _METADATA_NAMES)
@pytest.mark.parametrize("key", ["cookies", "authCookies", "tokens"])
def test_a_generated_value_under_a_metadata_name_in_a_weak_plural_is_withheld(
        key: str, name: str) -> None:
    for i, form in enumerate(_forms(name)):
        for route, shown in value_routes({key: form}).items():
            assert S not in shown, (i, route, shown)
            assert name in shown, (i, route, shown)  # the cookie's name is shown


@pytest.mark.parametrize("name", _METADATA_NAMES)
@pytest.mark.parametrize("line", [
    'request sent "cookies": {c} done',
    "cookies={c} done",
    '"session_cookie": {c} done',  # a singular cookie name's map, as a text reads it
    "debug: 'cookie': {c} done",
])
def test_a_cookie_map_in_a_text_withholds_a_generated_value_under_a_metadata_name(
        line: str, name: str) -> None:
    text = line.format(c=json.dumps({name: S}))
    for route, shown in on_every_engine(text).items():
        assert S not in shown, (route, shown)
        assert json.dumps(name) in shown and " done" in shown, (route, shown)


@pytest.mark.parametrize(("text", "kept"), [
    (f"cookies:\n  id: {S}\n", "cookies:\n  id: "),  # a YAML map
    (f"cookies:\n  mode: '{S}'\n", "  mode: '"),  # quoted
    (f"tokens:\n  session_name: {S}  # the web's\n", "  # the web's"),  # a comment after
    (f"<dict><key>cookies</key><dict><key>id</key><string>{S}</string></dict></dict>",
     "<key>id</key><string>"),  # a property list's
    (f"<dict><key>cookies</key><array><dict><key>version</key><string>{S}</string></dict>"
     "</array></dict>", "<key>version</key><string>"),  # a jar's list of them
])
def test_a_collection_withholds_a_generated_value_under_a_metadata_name(
        text: str, kept: str) -> None:
    for engine in trigger_engines():
        with using_engine(engine):
            shown = str(redact_text(text).value)
        assert S not in shown and kept in shown, (type(engine).__name__, shown)


@pytest.mark.parametrize("value", [
    # a plain word under a metadata key is no generated value: shown as before
    {"cookies": {"mode": "dark"}},
    {"cookies": {"id": "42", "type": "session"}},
    {"cookies": [{"name": "id", "value": "x", "path": "/"}]},
    {"tokens": {"input": 12, "version": "v2"}},
    # a strong name's metadata is kept, generated or not
    {"secret": {"secretName": "db-creds", "defaultMode": 420}},
    {"password": {"type": "plain", "id": S}},
])
def test_metadata_a_reader_needs_is_shown(value: Any) -> None:
    for route, shown in value_routes(value).items():
        for part in ('"dark"', '"session"', '"name": "id"', '"v2"', '"db-creds"', f'"{S}"'):
            if part in json.dumps(value):
                assert part in shown.replace('":"', '": "').replace('","', '", "'), (
                    route, part, shown)


@pytest.mark.parametrize("text", [
    "cookies:\n  mode: dark\n",
    "cookies:\n  - name: id\n    value: x\n",
    "<key>cookies</key><dict><key>id</key><string>42</string></dict>",
])
def test_a_collection_shows_a_plain_word_under_a_metadata_name(text: str) -> None:
    for engine in trigger_engines():
        with using_engine(engine):
            assert redact_text(text).value == text
