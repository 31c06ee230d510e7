"""Signed checkpoints: a commitment to the chain's size and head, kept apart from the log.

A checkpoint signs the note ``origin\\nsize\\nhead\\n`` with HMAC-SHA256 or, when
``cryptography`` is installed and an Ed25519 key is configured, Ed25519. A log whose tail was
cut is shorter than a checkpoint says it was, so the cut shows - which no amount of
recomputing hashes inside the log can hide.

Checkpoints go to their own file (``<log>.checkpoints`` by default), one JSON object a line,
not to a table in the log: whoever can rewrite or truncate the log's SQLite file could drop a
table inside it in the same stroke, while a separate file can live on other storage, be
shipped elsewhere, or be made append-only by the operator.

The key comes from configuration (``ELISION_AUDIT_KEY`` or the config file), never from the
log. Key forms: ``hmac:<secret>`` (or a bare secret of at least 16 bytes), and
``ed25519:<base64 32-byte seed>``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path
from typing import Protocol

import orjson

from elision._record import record_class
from elision.audit.keys import KEY_ENV, MIN_SECRET_BYTES, key_problem
from elision.errors import AuditError, InputError
from elision.private import make_private_dir

__all__ = ["KEY_ENV", "MIN_SECRET_BYTES"]  # re-exported: where they were first defined

HMAC_ALGORITHM = "HMAC-SHA256"
ED25519_ALGORITHM = "Ed25519"


class Signer(Protocol):
    @property
    def algorithm(self) -> str: ...

    @property
    def key_id(self) -> str: ...

    def sign(self, message: bytes) -> bytes: ...


@record_class(frozen=True)
class HmacSigner:
    secret: bytes
    algorithm: str = HMAC_ALGORITHM

    def __repr__(self) -> str:
        # Never the secret: a repr reaches logs, tracebacks and debuggers.
        return f"HmacSigner(secret=<{len(self.secret)} bytes>, algorithm={self.algorithm!r})"

    @property
    def key_id(self) -> str:
        # A MAC of a fixed label names the key without revealing anything about it.
        return hmac.new(self.secret, b"elision audit key id", hashlib.sha256).hexdigest()[:16]

    def sign(self, message: bytes) -> bytes:
        return hmac.new(self.secret, message, hashlib.sha256).digest()


class Ed25519Signer:
    algorithm = ED25519_ALGORITHM

    def __init__(self, seed: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public_key = public
        self.key_id = hashlib.sha256(public).hexdigest()[:16]

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


def signer_from_key(key: str) -> Signer:
    """The signer a configured key string names (see the module docstring for the forms);
    a key of no usable form is an :class:`InputError` saying which form it needs."""
    problem = key_problem(key, signing=True)
    if problem is not None:
        raise InputError(problem)
    if key.startswith("ed25519:"):
        seed = base64.b64decode(key.removeprefix("ed25519:"), validate=True)
        try:
            return Ed25519Signer(seed)
        except ImportError:
            raise AuditError(
                "an ed25519 audit key needs the 'cryptography' package; install it, or use "
                "an 'hmac:<secret>' key"
            ) from None
    return HmacSigner(key.removeprefix("hmac:").encode("utf-8"))


def key_from_env() -> str | None:
    value = os.environ.get(KEY_ENV)
    return value or None


def note(origin: str, size: int, head: str) -> bytes:
    """The signed text of a checkpoint: ``origin\\nsize\\nhead\\n``."""
    if "\n" in origin:
        raise AuditError(f"checkpoint origin must be one line, got {origin!r}")
    return f"{origin}\n{size}\n{head}\n".encode()


@record_class(frozen=True)
class Checkpoint:
    origin: str
    size: int
    head: str
    algorithm: str
    key_id: str
    signature: str

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "origin": self.origin, "size": self.size, "head": self.head,
                "algorithm": self.algorithm, "key_id": self.key_id,
                "signature": self.signature,
            }
        )


def make_checkpoint(signer: Signer, origin: str, size: int, head: str) -> Checkpoint:
    sig = signer.sign(note(origin, size, head))
    return Checkpoint(
        origin, size, head, signer.algorithm, signer.key_id, base64.b64encode(sig).decode()
    )


def default_checkpoint_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".checkpoints")


def append_checkpoint(path: Path, checkpoint: Checkpoint) -> None:
    """Append one checkpoint line and flush it to disk before returning."""
    try:
        make_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, checkpoint.to_json() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise AuditError(
            f"could not write a checkpoint to {str(path)!r}: {exc.strerror}; check that its "
            "directory is writable"
        ) from None
