"""Clean results that look like credentials to a naive scanner, and must come back unchanged.

Each case is something a tool returns every day. A security team reads tool results for a
living: a stub where there was no secret costs the agent the value and teaches it to ignore
stubs.
"""

from __future__ import annotations

from typing import Any

import pytest

from elision.redact import redact_text, redact_value


def test_a_shell_environment_keeps_its_working_directory() -> None:
    """PWD was withheld as a password (found with the issue's corpus): a `env` dump, or a
    process listing with its environment, lost its working directory."""
    doc = {"env": {"PWD": "/home/ada/src/elision", "OLDPWD": "/home/ada", "pwd": "/srv/app"}}
    assert redact_value(doc).withheld == ()
    assert redact_text("PWD=/home/ada/src\nOLDPWD=/tmp\n").withheld == ()


@pytest.mark.parametrize(
    "doc",
    [
        # a git SHA and a UUID
        {"commit": "9fceb02d0ae598e95dc970b74767f19372d61af8",
         "id": "0b2e7b44-5c1e-4b5a-9a8e-2f1c9b7d6e31"},
        # a content hash under a name that ends like a credential's
        {"sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "cache_key": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        # a pagination cursor: base64 of plain JSON, no JWT header
        {"page_token": "eyJvZmZzZXQiOjEwMCwibGltaXQiOjUwfQ",
         "next": "eyJpZCI6NDJ9.eyJ4IjoxfQ.c2ln"},
        {"nextPageToken": "CgwI7f3a9c0eEJ2x8AE", "continuation_token": "AAAAAE9fR0tFWQ=="},
        # schema-like keys
        {"sort_key": "created_at", "partition_key": "tenant#42", "primary_key": "id"},
        # token counts of a language model, a password policy, a secret's name
        {"usage": {"input_tokens": 1200, "max_tokens": 4096}, "password_policy": "min 12 chars",
         "secret_name": "prod/db/main", "password_hash": "$2b$12$abcdefghijklmnopqrstuv"},
        # a base64 PNG, as an image block would carry it
        {"type": "image", "mimeType": "image/png",
         "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
                 "kgAAAABJRU5ErkJggg=="},
    ],
)
def test_clean_json_is_kept_exactly(doc: Any) -> None:
    result = redact_value(doc)
    assert result.withheld == ()
    assert result.value == doc


@pytest.mark.parametrize(
    "text",
    [
        # prose about authentication
        "Basic authentication is configured per realm; bearer tokens are described in RFC 6750.",
        "Set the password policy in the admin console. The token endpoint returns JSON.",
        # a git log line, a directory listing, a checksum file
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Ada <ada@example.com>",
        "-rw-r--r--  1 ada staff  4096 Dec  1 12:00 secrets.md",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz",
        # an environment listing with paths
        "PWD=/home/ada/src\nSSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42\nGIT_ASKPASS=/usr/bin/ksshaskpass",
        # a log line with a session id counter and a token count
        "2026-12-01T12:00:00Z INFO session started id=42 tokens=4096 auth=ok",
        # a URL with a pagination token and an HTTP status code
        "GET https://api.example.com/v1/items?page_token=eyJvIjoxfQ&code=404 200",
    ],
)
def test_clean_text_is_kept_exactly(text: str) -> None:
    result = redact_text(text)
    assert result.withheld == ()
    assert result.value == text
