"""Redaction must not cost the model words it needs (issue 22's precision item).

``Error processing file file:///etc/passwd: Unsupported URL protocol`` was read as an
assignment to a ``passwd`` key, and "Unsupported" was withheld on every page. Each line here
was a false positive found by hand or by the search below; each is kept exactly now, and the
assignments beside them are still withheld.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value

BENIGN_LINES = [
    # the line: a path's last part is no name
    "Error processing file file:///etc/passwd: Unsupported URL protocol",
    "open /etc/passwd: permission denied",
    "Fetching https://example.com/docs/secret: 404 Not Found",
    "GET /api/v1/password: 405 Method Not Allowed",
    "secret/db-password: configured",
    "cat: /run/secrets/db_password: No such file or directory",
    # a program's name before its message (passwd(1), chpasswd(8))
    "passwd: Authentication token manipulation error",
    "passwd: all authentication tokens updated successfully.",
    "chpasswd: line 1: missing new password",
    # prompts and validation messages
    "Password: incorrect",
    "The password: must be at least 12 characters long",
    "Password: Must contain a digit",
    "WARNING: password: too weak",
    "secret: not found",
    "api_key: see docs",
    # type annotations
    "def login(username: str, password: str) -> Token:",
    "    password: str",
    "    password: Optional[str] = None",
    "    api_key: SecretStr",
]

#: Beside each kind of line above, a real assignment that must still be withheld.
SECRETS = [
    ("password: hunter2-xyz", "hunter2-xyz"),
    ("passwd: s3cr3t!x", "s3cr3t!x"),
    ("DB_PASSWORD=correct-horse-9", "correct-horse-9"),
    ("api_key: 8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543"),
    ('{"password": "letmein"}', "letmein"),
    ("secret: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password: correct horse battery staple", "correct"),
    ("Password: admin", "admin"),
    # a value that looks like a secret stays one, whatever words follow it
    ("password: Xk9#mQ2z for the staging db", "Xk9#mQ2z"),
    ("client_secret=default", "default"),
]


@pytest.mark.parametrize("line", BENIGN_LINES)
def test_a_benign_line_is_kept_exactly(line: str) -> None:
    result = redact_text(line)
    assert result.withheld == (), result.value
    assert result.value == line


@pytest.mark.parametrize(("line", "secret"), SECRETS)
def test_real_assignments_are_still_withheld(line: str, secret: str) -> None:
    result = redact_text(line)
    assert secret not in str(result.value)
    assert result.withheld


@pytest.mark.parametrize(
    "doc",
    [
        # Django REST framework's validation errors: prose under the field's name
        {"password": ["This field may not be blank."]},
        {"password": ["Ensure this field has at least 8 characters."]},
        {"errors": {"password": "must be at least 12 characters", "api_key": "is required"}},
        {"new_password": ["Passwords do not match."]},
    ],
)
def test_validation_messages_under_a_credential_name_are_kept(doc: Any) -> None:
    result = redact_value(doc)
    assert result.withheld == (), result.value
    assert result.value == doc


# -- the search: realistic benign lines, generated ----------------------------------------

PROGRAMS = ["cat", "grep", "open", "ls", "cp", "rm", "stat", "passwd", "chpasswd", "vault",
            "kubectl", "docker", "git", "curl", "python", "node", "Error processing file"]
PATHS = ["/etc/passwd", "/etc/shadow", "/etc/gshadow", "/run/secrets/db_password",
         "/var/lib/secret", "file:///etc/passwd", "https://example.com/api/token",
         "/home/ada/.config/gh/token", "/srv/app/secrets", "C:/Users/ada/password",
         "./secret", "../auth/token", "/usr/share/doc/passwd"]
ERRORS = ["No such file or directory", "Permission denied", "Is a directory",
          "Operation not permitted", "Unsupported URL protocol", "Connection refused",
          "Invalid argument", "File exists", "Not a directory", "Read-only file system",
          "Too many open files", "Input/output error", "Bad file descriptor", "not found",
          "permission denied", "is not readable", "cannot open", "Unsupported protocol",
          "no such file", "Access is denied", "Forbidden", "Unauthorized"]
NAMES = ["password", "Password", "passwd", "secret", "api_key", "token", "auth",
         "credentials", "passphrase", "New password", "Current password"]
PHRASES = ["incorrect", "invalid", "required", "expired", "missing", "too short",
           "too weak", "must be at least 12 characters", "not set", "does not match",
           "see the docs", "is required", "was changed", "updated successfully",
           "must contain a digit", "cannot be empty", "not found", "unchanged",
           "Must not be reused", "Invalid or expired", "str", "Optional[str] = None",
           "string", "None"]


@settings(max_examples=300, deadline=None)
@given(
    program=st.sampled_from(PROGRAMS), path=st.sampled_from(PATHS),
    error=st.sampled_from(ERRORS), name=st.sampled_from(NAMES),
    phrase=st.sampled_from(PHRASES), form=st.integers(0, 3),
)
def test_generated_benign_lines_are_kept(
    program: str, path: str, error: str, name: str, phrase: str, form: int
) -> None:
    """Property: an error that names a path, a prompt, a validation message or a type
    annotation, as tools print them, is kept exactly, as a line and as a JSON string."""
    line = [
        f"{program}: {path}: {error}",
        f"{program} {path}: {error}",
        f"{name}: {phrase}",
        f"Error: {path}: {error}",
    ][form]
    assert redact_text(line).withheld == (), line
    doc = {"message": line, "stderr": [line]}
    assert redact_value(doc).withheld == (), line
    assert redact_value(orjson.loads(orjson.dumps(doc))).value == doc
