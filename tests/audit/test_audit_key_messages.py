"""A malformed audit key is named as such, says what form it needs, and is never shown.

Found in a QA pass: ``ELISION_AUDIT_KEY=ed25519:zz elision audit verify`` on a log written
without checkpoints said the checkpoint file was missing ("it was deleted or moved"), and on
one with checkpoints that the signature did not verify ("wrong key, or forged"); neither said
the key itself could not be read. ``ed25519-pub:`` where the log is written was taken as an
HMAC secret. The key's form is now checked first, where logs are written and verified alike.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.audit.log import AuditLog
from elision.cli import main
from elision.errors import InputError

GOOD_KEY = "hmac:" + "k" * 32
SEED_31 = base64.b64encode(b"s" * 31).decode()

BAD_KEYS = [
    ("hmac:Sh0rtQQ", "7 bytes", "at least 16"),  # a secret too short to be one
    ("Sh0rtQQ", "7 bytes", "at least 16"),  # a bare secret is an HMAC secret
    ("hmac:", "0 bytes", "at least 16"),  # nothing after the prefix
    ("ed25519:not*base64QQ", "not base64", "32-byte seed"),
    ("ed25519:" + SEED_31, "31 bytes", "32-byte seed"),  # base64, the wrong length
    ("ed25519-pub:not*base64QQ", "not base64", "32-byte public key"),
]


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ELISION_AUDIT_KEY", raising=False)


def shown_nowhere(key: str, text: str) -> bool:
    """Whether no part of the key past its form's prefix is in ``text``."""
    secret = key.split(":", 1)[-1]
    return not secret or secret not in text


def written_log(tmp_path: Path, key: str | None) -> Path:
    path = tmp_path / "audit.db"
    log = AuditLog(path, key=key, checkpoint_every=1)
    log.append({"step_id": "a", "decision": "allow"})
    log.close()
    return path


@pytest.mark.parametrize(("key", "what", "expected"), BAD_KEYS)
@pytest.mark.parametrize("signed", [True, False], ids=["with-checkpoints", "no-checkpoints"])
def test_verify_with_a_malformed_key_says_the_key_is_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, what: str, expected: str,
    signed: bool,
) -> None:
    path = written_log(tmp_path, GOOD_KEY if signed else None)
    monkeypatch.setenv("ELISION_AUDIT_KEY", key)
    result = CliRunner().invoke(main, ["audit", "verify", "--log", str(path)])
    assert result.exit_code == 2, result.output  # the asking is wrong, nothing was checked
    assert "audit key" in result.stderr and "ELISION_AUDIT_KEY" in result.stderr
    assert what in result.stderr and expected in result.stderr
    assert "checkpoint file" not in result.stderr and "does not verify" not in result.stderr
    assert shown_nowhere(key, result.output)


@pytest.mark.parametrize(("key", "what", "expected"), BAD_KEYS[:-1])
def test_writing_with_a_malformed_key_says_what_form_it_needs(
    tmp_path: Path, key: str, what: str, expected: str
) -> None:
    with pytest.raises(InputError) as info:
        AuditLog(tmp_path / "audit.db", key=key)
    message = str(info.value)
    assert what in message and expected in message and shown_nowhere(key, message)


def test_a_public_key_where_the_log_is_written_cannot_sign(tmp_path: Path) -> None:
    public = "ed25519-pub:" + base64.b64encode(b"p" * 32).decode()
    with pytest.raises(InputError, match="can check checkpoints but not sign") as info:
        AuditLog(tmp_path / "audit.db", key=public)
    assert shown_nowhere(public, str(info.value))
