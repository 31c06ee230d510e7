"""Credentials named by a structure, not an assignment: an XML element, a plural name.

Found by the hunt helper (docs/design.md, "Leaks found by the hunt"): ``<password>S</password>``
(Maven's ``settings.xml``, a .NET or Spring config), and ``{"passwords": {"bob": S}}``,
``{"api_keys": [S]}`` or YAML's ``passwords:`` over ``- S`` were shown whole by every route.
An element's name is judged as a JSON member's name would be, its text as that member's
value; a plural of a credential name is that name, and names a container of them.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from elision.redact.generic import STRONG, WEAK, is_credential_value, name_strength

S = "Xk9mQ2zT7vLp4RwB8nYc3HdF"  # a random 24-char secret (opaque)
PLAIN = "hunter2xyz"  # a password that is not opaque: only a strong name withholds it


def text_shows(text: str, secret: str) -> bool:
    return secret in redact_text(text).value


def value_shows(value: Any, secret: str) -> bool:
    body = json.dumps(value).encode()
    return secret in json.dumps(redact_value(json.loads(body), body=body).value)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # the element as found, and a namespaced one
        (f"<password>{PLAIN}</password>", PLAIN),
        (f"<db:password>{PLAIN}</db:password>", PLAIN),
        # camel case, as a JSON key's name is read
        (f"<apiKey>{S}</apiKey>", S),
        (f"<ClientSecret>{PLAIN}</ClientSecret>", PLAIN),
        # Maven's settings.xml, indented over lines
        (
            "<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n"
            f"      <username>deploy</username>\n      <password>{PLAIN}</password>\n"
            "    </server>\n  </servers>\n</settings>\n",
            PLAIN,
        ),
        # attributes on the element, and white space around its text
        (f'<password encrypted="false">\n  {PLAIN}\n</password>', PLAIN),
        # an affixed name, a CDATA section
        (f"<password2>{PLAIN}</password2>", PLAIN),
        (f"<secret><![CDATA[{PLAIN}]]></secret>", PLAIN),
        # a weak name with an opaque value
        (f"<token>{S}</token>", S),
        # the XML as a JSON string holds it, slashes escaped (PHP's json_encode)
        (json.dumps({"out": f"<password>{PLAIN}</password>"}), PLAIN),
        ('{"out":"<password>' + PLAIN + '<\\/password>"}', PLAIN),
        # a plural of a strong name: a container of them
        (json.dumps({"passwords": {"bob": PLAIN}}), PLAIN),
        (json.dumps({"api_keys": [PLAIN]}), PLAIN),
        (f"passwords:\n  - {PLAIN}\n", PLAIN),
        (f"passwords:\n  bob: {PLAIN}\n", PLAIN),
        (f"accessTokens:\n  - {PLAIN}\n", PLAIN),
    ],
)
def test_structural_credentials_are_withheld(text: str, secret: str) -> None:
    assert not text_shows(text, secret)


@pytest.mark.parametrize(
    "value",
    [
        # a JSON value whose string holds the element
        {"out": f"<password>{PLAIN}</password>"},
        {"stdout": f"<server><id>x</id><password>{PLAIN}</password></server>"},
        # plurals under a JSON walk
        {"passwords": {"bob": PLAIN}},
        {"api_keys": [PLAIN]},
        {"accessTokens": [PLAIN]},
        {"db": {"passwords": [PLAIN, PLAIN + "2"]}},
    ],
)
def test_structural_credentials_in_json_are_withheld(value: Any) -> None:
    assert not value_shows(value, PLAIN if PLAIN in json.dumps(value) else S)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a name that only starts like a credential names a policy, not a password
        (f"<password_policy>{PLAIN}</password_policy>", PLAIN),
        (f"<passwordPolicy>{PLAIN}</passwordPolicy>", PLAIN),
        # a weak name's value that is not opaque
        ("<token>abc</token>", "abc"),
        ("<tokens>the cat sat</tokens>", "the cat sat"),
        # an empty, masked or placeholder value, or a message
        ("<password>${DB_PASSWORD}</password>", "${DB_PASSWORD}"),
        ("<password>********</password>", "********"),
        ("<password>must be at least 12 characters</password>", "must be at least 12"),
        # what a collection under a credential's name says of its secrets: names, files
        ("secrets:\n  - name: db-creds\n    type: Opaque\n", "db-creds"),
        ("secrets:\n  db_password:\n    file: ./db_password.txt\n", "./db_password.txt"),
        # an element of another name
        (f"<username>{PLAIN}</username>", PLAIN),
        # LLM usage counts and a tokenizer's output stay readable
        (json.dumps({"usage": {"prompt_tokens": 12, "total_tokens": 40}}), "prompt_tokens"),
        (json.dumps({"tokens": ["the", "cat", "sat"]}), '"cat"'),
        (json.dumps({"max_tokens": 1024, "keys": ["a", "b"]}), "1024"),
        (json.dumps({"primary_keys": ["id"], "foreign_keys": ["user_id"]}), '"user_id"'),
    ],
)
def test_benign_structures_stay_shown(text: str, shown: str) -> None:
    assert text_shows(text, shown)


@pytest.mark.parametrize(
    ("name", "strength"),
    [
        ("passwords", STRONG),  # a plural of a strong name
        ("api_keys", STRONG),
        ("apiKeys", STRONG),
        ("apikeys", STRONG),
        ("client_secrets", STRONG),
        ("accessTokens", STRONG),
        ("passphrases", STRONG),
        ("tokens", WEAK),  # a plural of a weak name
        ("cookies", WEAK),
        ("keys", 0),  # a bare key names nothing, nor do its plural and a cursor's
        ("page_tokens", 0),
        ("total_tokens", 0),
        ("sort_keys", 0),
        ("passes", 0),
    ],
)
def test_plural_names(name: str, strength: int) -> None:
    assert name_strength(name) == strength


_STRONG_NAMES = [
    "password",
    "passwd",
    "secret",
    "api_key",
    "apiKey",
    "client_secret",
    "access_token",
    "private_key",
    "passphrase",
    "db:password",
]
_NAME_CHARS = string.ascii_letters + string.digits
_SECRET = st.text(_NAME_CHARS, min_size=20, max_size=40).filter(
    lambda s: any(c.isdigit() for c in s) and len(set(s)) > 10
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(_STRONG_NAMES),
    secret=_SECRET,
    container=st.sampled_from(["element", "json-dict", "json-list", "yaml-list"]),
    before=st.text(string.ascii_letters + " \n", max_size=30),
)
def test_any_strong_name_withholds_its_structure(
    name: str,
    secret: str,
    container: str,
    before: str,
) -> None:
    """However a strong name holds a secret (an element, or a plural's container), the secret
    is withheld, in a text after any prose and in a JSON walk."""
    plural = name + "s"
    if container == "element":
        text = f"{before}<{name}>{secret}</{name}>"
        value: Any = {"out": text}
    elif container == "json-dict":
        value = {plural.replace(":", "_"): {"bob": secret}}
        text = json.dumps(value)
    elif container == "json-list":
        value = {plural.replace(":", "_"): [secret]}
        text = json.dumps(value)
    else:
        text = f"{before}\n{plural.replace(':', '_')}:\n  - {secret}\n"
        value = {"out": text}
    assert not text_shows(text, secret)
    assert not value_shows(value, secret)


def test_a_log_of_usage_counts_is_not_credential_dense() -> None:
    """A bare ``tokens`` is no trigger (its plural names only opaque values, and only where
    something else makes the walk read them): with it, ``"prompt_tokens":``,
    ``"completion_tokens":`` and ``"total_tokens":`` on every line of an LLM API's log made
    the log credential-dense, withheld whole."""
    log = "".join(
        json.dumps(
            {
                "id": i,
                "usage": {"prompt_tokens": 12 + i, "completion_tokens": 40, "total_tokens": 52 + i},
            }
        )
        + "\n"
        for i in range(300)
    )
    assert redact_text(log).withheld == ()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a column named like a credential, over a delimiter row
        (f"| name | password |\n|---|---|\n| bob | {PLAIN} |\n", PLAIN),
        # aligned delimiters, prose around the table, a weak name's opaque cell
        (f"Intro\n\n| user | token |\n| :--- | ---: |\n| ann | {S} |\n\nAfter\n", S),
        # a key/value table: the row's first cell names the second
        (f"| Key | Value |\n|---|---|\n| user | bob |\n| password | {PLAIN} |\n", PLAIN),
        (f"| Setting | Value |\n| - | - |\n| DB_PASSWORD_2 | {PLAIN} |\n", PLAIN),
    ],
)
def test_markdown_table_credentials_are_withheld(text: str, secret: str) -> None:
    redacted = redact_text(text).value
    assert secret not in redacted
    # the stub holds no pipe: the table keeps its rows and columns
    assert [line.count("|") for line in redacted.splitlines()] == [
        line.count("|") for line in text.splitlines()
    ]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a policy's column, a weak name's short value, a placeholder
        ("| name | password_policy |\n|---|---|\n| bob | strict-mode-12chars |\n", "strict"),
        ("| user | token |\n|---|---|\n| bob | abc |\n", "abc"),
        ("| name | password |\n|---|---|\n| bob | ******** |\n", "********"),
        # a schema's table: its cells say what a field is
        (
            "| Field | Type | Description |\n|---|---|---|\n"
            "| password | string | The user's pass |\n",
            "The user's pass",
        ),
        (
            "| Option | Description |\n|---|---|\n| password | The password to log in with |\n",
            "The password to log in with",
        ),
        # no delimiter row: no table
        (f"| name | password |\n| bob | {PLAIN} |\n", PLAIN),
    ],
)
def test_benign_markdown_tables_stay_shown(text: str, shown: str) -> None:
    assert text_shows(text, shown)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(_STRONG_NAMES),
    secret=_SECRET,
    column=st.integers(0, 3),
    rows=st.integers(1, 4),
    pad=st.sampled_from(["", " ", "  "]),
)
def test_any_strong_column_of_a_markdown_table_is_withheld(
    name: str, secret: str, column: int, rows: int, pad: str
) -> None:
    """Wherever the credential's column is, however many rows and however padded, each of its
    cells is withheld and the table keeps its shape."""
    heads = ["id", "user", "note"]
    heads.insert(column, name)

    def row(cells: list[str]) -> str:
        return "|" + "|".join(f"{pad}{c}{pad}" for c in cells) + "|\n"

    body = [[str(r), "bob", "ok"] for r in range(rows)]
    for cells in body:
        cells.insert(column, f"{secret}{cells[0]}")
        # the JSON member rule's verdict is the cell's (a run of one char is a placeholder)
        assume(is_credential_value(name, cells[column]))
    text = row(heads) + row(["---"] * 4) + "".join(row(c) for c in body)
    redacted = redact_text(text).value
    assert secret not in redacted
    assert [line.count("|") for line in redacted.splitlines()] == [5] * (rows + 2)


def test_shape_of_a_markdown_table_withholds_the_column() -> None:
    """Through ``shape()`` of the bytes, whose pipeline skips a text it can tell is clean: a
    table with no trigger in it (``password |`` is none) was such a text."""
    from elision.budget import Budget
    from elision.shape import shape

    body = f"# Users\n\n| name | password |\n|---|---|\n| bob | {PLAIN} |\n".encode()
    shaped = shape(body, Budget(4096))
    assert PLAIN not in shaped.text
    assert "| name | password |" in shaped.text
