"""The forms an audit key takes, checked before the key is used.

A key that cannot be read is reported as that, with the form it needs, before anything else
(a writer would sign with it; a verifier would otherwise report missing or forged checkpoints,
which sends the operator after the wrong thing). Messages never show the key, only its form
and length. Both the writer (``checkpoint``) and the verifier (``verify``) import this module;
it holds no hashing, so the verifier's independence from the writer is kept.
"""

from __future__ import annotations

import base64
import binascii

KEY_ENV = "ELISION_AUDIT_KEY"
MIN_SECRET_BYTES = 16
#: Where a key comes from, for the messages: the variable, `audit verify --key`, a config.
_WHERE = f"the audit key ({KEY_ENV}, --key or a config's [audit] key)"
_NOT_SHOWN = "(the key is not shown)"


def key_problem(key: str, *, signing: bool) -> str | None:
    """What makes ``key`` unusable, or None. ``signing``: for a writer, which needs a secret
    (an ``ed25519-pub:`` key can only verify)."""
    for prefix, what in (("ed25519:", "32-byte seed"), ("ed25519-pub:", "32-byte public key")):
        if not key.startswith(prefix):
            continue
        if prefix == "ed25519-pub:" and signing:
            return (
                f"{_WHERE} is an Ed25519 public key ('ed25519-pub:'), which can check "
                "checkpoints but not sign them; where the log is written, give 'ed25519:' "
                f"and the base64 of the 32-byte seed {_NOT_SHOWN}"
            )
        try:
            raw = base64.b64decode(key.removeprefix(prefix), validate=True)
        except (binascii.Error, ValueError):
            return (
                f"{_WHERE} starts with {prefix!r} but what follows is not base64; give "
                f"{prefix!r} and the standard base64 of the {what} {_NOT_SHOWN}"
            )
        if len(raw) != 32:
            return (
                f"{_WHERE} starts with {prefix!r} but decodes to {len(raw)} bytes, not the "
                f"32 of an Ed25519 {what.removeprefix('32-byte ')}; give {prefix!r} and the "
                f"standard base64 of the {what} {_NOT_SHOWN}"
            )
        return None
    secret = key.removeprefix("hmac:").encode("utf-8")
    if len(secret) < MIN_SECRET_BYTES:
        return (
            f"{_WHERE} is an HMAC secret of {len(secret)} bytes; it must be at least "
            f"{MIN_SECRET_BYTES}: give 'hmac:' and a long random secret, or 'ed25519:' and a "
            f"base64 seed {_NOT_SHOWN}"
        )
    return None
