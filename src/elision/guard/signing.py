"""ACS §10 envelope signatures, HMAC-SHA256 baseline.

The signed input is the JCS form of the whole JSON-RPC message with its ``signature`` member
removed (``params.signature`` in a request, ``result.signature`` in a response), so a
signature cannot be lifted into another envelope. The per-session key is HKDF-SHA256 of the
deployment's input keying material, with no salt, the UTF-8 ``session_id`` as ``info``, and
32 bytes out - the inputs the ACS reference implementations use, so their signatures and ours
verify each other. The value is standard base64 with padding.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

ALGORITHM = "HMAC-SHA256"
KEY_ENV = "ELISION_ACS_KEY"
#: The least input keying material accepted: below it a key is guessable.
MIN_KEY_BYTES = 16


def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    """RFC 5869 HKDF with SHA-256 (an empty salt means a string of zeros, as the RFC says)."""
    prk = hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def signing_input(message: Mapping[str, Any], member: str) -> bytes:
    """JCS of ``message`` with ``message[member]["signature"]`` removed."""
    inner = message.get(member)
    stripped = dict(message)
    if isinstance(inner, Mapping):
        stripped[member] = {k: v for k, v in inner.items() if k != "signature"}
    return bytes(rfc8785.dumps(stripped))


@dataclass(frozen=True)
class EnvelopeSigner:
    """Signs responses and checks requests with per-session HMAC keys."""

    ikm: bytes
    key_id: str = "default"

    def __repr__(self) -> str:
        # Never the key: a repr reaches logs, tracebacks and debuggers.
        return f"EnvelopeSigner(ikm=<{len(self.ikm)} bytes>, key_id={self.key_id!r})"

    def session_key(self, session_id: str) -> bytes:
        return hkdf_sha256(self.ikm, session_id.encode("utf-8"))

    def sign(self, message: dict[str, Any], member: str, session_id: str) -> None:
        """Add ``{algorithm, value, key_id}`` as ``message[member]["signature"]``."""
        mac = hmac.new(self.session_key(session_id), signing_input(message, member),
                       hashlib.sha256).digest()
        message[member]["signature"] = {
            "algorithm": ALGORITHM, "value": base64.b64encode(mac).decode(),
            "key_id": self.key_id,
        }

    def verify(self, message: Mapping[str, Any], member: str, session_id: str) -> str | None:
        """``None`` when ``message[member]["signature"]`` verifies, else what is wrong."""
        inner = message.get(member)
        sig = inner.get("signature") if isinstance(inner, Mapping) else None
        if not isinstance(sig, Mapping):
            return "the request carries no signature, and this Guardian requires one"
        if sig.get("algorithm") != ALGORITHM:
            return f"signature algorithm must be {ALGORITHM}"
        try:
            value = base64.b64decode(str(sig.get("value", "")), validate=True)
        except ValueError:
            return "the signature value is not base64"
        expected = hmac.new(self.session_key(session_id), signing_input(message, member),
                            hashlib.sha256).digest()
        if not hmac.compare_digest(expected, value):
            return "the signature does not verify over the request (wrong key or altered)"
        return None


def signer_from_text(text: str, key_id: str = "default") -> EnvelopeSigner:
    """``hex:<bytes>`` or a passphrase (its UTF-8 bytes) as input keying material; a key of
    neither form is an :class:`InputError` that says which and never shows the key."""
    from elision.errors import InputError

    give = (f"give {KEY_ENV} (or --acs-key) as hex: and 64 hex digits (32 random bytes), or "
            f"a passphrase of at least {MIN_KEY_BYTES} bytes without the hex: prefix "
            "(the key is not shown)")
    if text.startswith("hex:"):
        digits = text.removeprefix("hex:")
        if any(c not in string.hexdigits for c in digits):
            raise InputError(f"the ACS signing key starts with 'hex:' but what follows is not "
                             f"hex digits (0-9, a-f); {give}")
        if len(digits) % 2:
            raise InputError(f"the ACS signing key after 'hex:' has an odd number of hex "
                             f"digits ({len(digits)}), so it is not whole bytes; {give}")
        ikm = bytes.fromhex(digits)
        kind = "hex key"
    else:
        ikm = text.encode("utf-8")
        kind = "passphrase"
    if len(ikm) < MIN_KEY_BYTES:
        raise InputError(f"the ACS signing key is a {kind} of {len(ikm)} bytes; it must be at "
                         f"least {MIN_KEY_BYTES}: {give}")
    return EnvelopeSigner(ikm, key_id)
