"""Verify an audit chain, independently of the code that wrote it.

This module imports nothing from the writer (``chain``, ``log``, ``checkpoint``): it
recomputes every ``entry_hash`` from the ACS §8.2 rule on its own, so a bug in the writer's
hashing cannot hide itself by being repeated here (a test checks the imports). Its JCS bytes are
its own too (:mod:`elision.audit.recheck`: the standard library's encoder where it writes
JCS, else ``rfc8785``), not the writer's fast path (:mod:`elision.audit.jcs`, orjson).

It checks, for entry ``n`` (1-based): ``entry_id == str(n)`` (sequence), ``previous_hash``
equals entry ``n-1``'s hash (link), and ``entry_hash`` recomputes (content). Against a signed
checkpoint ``origin\\nsize\\nhead\\n`` it also detects a cut tail or a rewritten prefix. A full
rewrite of the log with no checkpoint to compare against is *not* detectable: that is what
checkpoints, kept apart from the log, are for.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import rfc8785

from elision.audit.keys import key_problem
from elision.audit.recheck import jcs_bytes
from elision.errors import AuditError, InputError


@dataclass(frozen=True)
class VerifyResult:
    """The outcome: ``ok``, or the first bad entry (1-based) and what is wrong with it."""

    ok: bool
    entries: int
    head: str | None
    checkpoints: int
    first_bad: int | None = None
    problem: str | None = None

    def raise_for_problem(self) -> None:
        if not self.ok:
            raise AuditError(self.problem or "the audit log does not verify")


def recompute_hash(entry: Mapping[str, Any]) -> str:
    """ACS §8.2: SHA-256 of JCS(entry minus link fields) then the raw previous hash."""
    content = {k: v for k, v in entry.items() if k not in ("entry_hash", "previous_hash")}
    digest = hashlib.sha256(jcs_bytes(content))
    previous = entry.get("previous_hash")
    if previous is not None:
        digest.update(bytes.fromhex(previous))
    return digest.hexdigest()


def _is_hex256(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64
        and all(c in "0123456789abcdef" for c in value)
    )


def verify_entries(
    entries: Iterable[Any],
    checkpoints: Sequence[Mapping[str, Any]] = (),
    *,
    key: str | None = None,
    heads: Sequence[str] = (),
) -> VerifyResult:
    """Verify ``entries`` (oldest first) and, with ``key``, every checkpoint against them.

    With ``key``, at least one checkpoint must be given: a verifier that holds the key and
    finds none cannot tell a cut tail from a short log, so it fails.

    ``heads`` are ``chain_hash`` values someone recorded from the Guardian's answers: each must
    still be the hash of an entry. That catches a full rewrite even with no checkpoint.
    """
    _check_key(key)
    hashes: list[str] = []
    previous: str | None = None
    sessions: dict[str, tuple[int, str | None]] = {}
    session_heads: set[str] = set()
    for n, entry in enumerate(entries, start=1):
        problem = _entry_problem(n, entry, previous) or _session_problem(n, entry, sessions)
        if problem is not None:
            return VerifyResult(False, n - 1, previous, 0, n, problem)
        previous = entry["entry_hash"]
        hashes.append(entry["entry_hash"])
        if isinstance(entry.get("acs"), dict):
            session_heads.add(entry["acs"]["entry_hash"])
    head = hashes[-1] if hashes else None
    if checkpoints and key is None:
        return VerifyResult(
            False, len(hashes), head, 0, None,
            f"{len(checkpoints)} checkpoint(s) found but no key to check their signatures; "
            "pass --key or set ELISION_AUDIT_KEY",
        )
    if key is not None and not checkpoints:
        return VerifyResult(
            False, len(hashes), head, 0, None,
            "a key is configured but no checkpoint was given to check the log against, so "
            "a cut tail would not show; pass the checkpoint file with --checkpoints PATH",
        )
    for i, cp in enumerate(checkpoints, start=1):
        assert key is not None
        problem, first_bad = _checkpoint_problem(i, cp, hashes, key)
        if problem is not None:
            return VerifyResult(False, len(hashes), head, i - 1, first_bad, problem)
    known = set(hashes) | session_heads  # a Guardian publishes its session's head
    for published in heads:
        if published not in known:
            return VerifyResult(
                False, len(hashes), head, len(checkpoints), None,
                f"the published chain_hash {published!r} is not the hash of any entry: the "
                "log was rewritten or cut after it was published",
            )
    return VerifyResult(True, len(hashes), head, len(checkpoints))


def _check_key(key: str | None) -> None:
    """Refuse a key of no usable form first: otherwise it surfaces as a missing checkpoint
    file or a signature that does not verify, and the operator looks for the wrong thing."""
    problem = None if key is None else key_problem(key, signing=False)
    if problem is not None:
        raise InputError(problem)


def _session_problem(
    n: int, entry: dict[str, Any], sessions: dict[str, tuple[int, str | None]]
) -> str | None:
    """An ACS Guardian's entry also links into its session's own chain (ACS §8): ``acs`` is
    ``{entry_id, previous_hash, entry_hash}`` over the entry without the log's members and
    ``acs``, with ``acs.entry_id`` as its id. Each session's chain starts at null."""
    link = entry.get("acs")
    if link is None:
        return None
    session = str(entry.get("session_id") or "")
    size, head = sessions.get(session, (0, None))
    if not isinstance(link, dict) or link.get("entry_id") != str(size + 1):
        got = link.get("entry_id") if isinstance(link, dict) else link
        return (f"entry {n} is entry {got!r} of session {session!r} where {str(size + 1)!r} "
                "belongs: an entry of the session was deleted, duplicated or moved")
    if link.get("previous_hash") != head:
        return (f"entry {n} links its session {session!r} to {link.get('previous_hash')!r} "
                f"but the session's chain is at {head!r}: the session chain is broken here")
    content = {k: v for k, v in entry.items()
               if k not in ("entry_id", "entry_hash", "previous_hash", "acs")}
    content = {"entry_id": link["entry_id"], **content}
    try:
        actual = recompute_hash({**content, "previous_hash": head})
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        return f"entry {n} cannot be canonicalized for its session chain: {exc}"
    if actual != link.get("entry_hash"):
        return (f"entry {n}'s session link does not recompute: its ContextEntry hashes to "
                f"{actual!r}, not to {link.get('entry_hash')!r}")
    sessions[session] = (size + 1, actual)
    return None


def _entry_problem(n: int, entry: Any, previous: str | None) -> str | None:
    if not isinstance(entry, dict):
        return f"entry {n} is not a JSON object"
    if entry.get("entry_id") != str(n):
        return (
            f"entry {n} has entry_id {entry.get('entry_id')!r} where {str(n)!r} belongs: an "
            "entry was deleted, duplicated or moved"
        )
    if entry.get("previous_hash") != previous:
        return (
            f"entry {n} links to previous_hash {entry.get('previous_hash')!r} but entry "
            f"{n - 1} hashes to {previous!r}: the chain is broken here"
        )
    if not _is_hex256(entry.get("entry_hash")):
        return f"entry {n} has no valid entry_hash (got {entry.get('entry_hash')!r})"
    try:
        actual = recompute_hash(entry)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        return f"entry {n} cannot be canonicalized: {exc}"
    if actual != entry["entry_hash"]:
        return (
            f"entry {n} was altered: its content hashes to {actual!r}, not to its recorded "
            f"entry_hash {entry['entry_hash']!r}"
        )
    return None


def _checkpoint_problem(
    i: int, cp: Mapping[str, Any], hashes: Sequence[str], key: str
) -> tuple[str | None, int | None]:
    origin, size, head = cp.get("origin"), cp.get("size"), cp.get("head")
    if not (isinstance(origin, str) and isinstance(size, int) and _is_hex256(head)):
        return f"checkpoint {i} is malformed: {dict(cp)!r}", None
    message = f"{origin}\n{size}\n{head}\n".encode()
    if not _signature_ok(message, cp, key):
        return (
            f"checkpoint {i} (size {size}) has a signature that does not verify with the "
            "given key: wrong key, or the checkpoint was forged"
        ), None
    if size > len(hashes):
        return (
            f"the log has {len(hashes)} entries but checkpoint {i} signed {size}: the tail "
            f"was cut, entries {len(hashes) + 1}..{size} are missing"
        ), len(hashes) + 1
    if hashes[size - 1] != head:
        return (
            f"entry {size} hashes to {hashes[size - 1]!r} but checkpoint {i} signed head "
            f"{head!r}: the log was rewritten up to here"
        ), size
    return None, None


def _signature_ok(message: bytes, cp: Mapping[str, Any], key: str) -> bool:
    try:
        signature = base64.b64decode(str(cp.get("signature", "")), validate=True)
    except ValueError:
        return False
    algorithm = cp.get("algorithm")
    if algorithm == "HMAC-SHA256":
        if key.startswith(("ed25519:", "ed25519-pub:")):
            return False
        secret = key.removeprefix("hmac:").encode("utf-8")
        expected = hmac.new(secret, message, hashlib.sha256).digest()
        return hmac.compare_digest(expected, signature)
    if algorithm == "Ed25519":
        return _ed25519_ok(message, signature, key)
    return False


def _ed25519_ok(message: bytes, signature: bytes, key: str) -> bool:
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import (
            Ed25519PrivateKey,
            Ed25519PublicKey,
        )
    except ImportError:
        raise AuditError(
            "this log's checkpoints are Ed25519-signed; install 'cryptography' to verify them"
        ) from None
    try:
        if key.startswith("ed25519-pub:"):
            public = Ed25519PublicKey.from_public_bytes(
                base64.b64decode(key.removeprefix("ed25519-pub:"), validate=True)
            )
        elif key.startswith("ed25519:"):
            seed = base64.b64decode(key.removeprefix("ed25519:"), validate=True)
            public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
        else:
            return False
        public.verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def read_log(path: str | Path) -> list[Any]:
    """The entries of a log file, oldest first, read without writing anything to it."""
    path = Path(path)
    if not path.exists():
        raise AuditError(
            f"no audit log at {str(path)!r}; pass --log PATH or set ELISION_AUDIT"
        )
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            rows = db.execute("SELECT body FROM entries ORDER BY seq").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise AuditError(f"could not read the audit log {str(path)!r}: {exc}") from None
    out: list[Any] = []
    for (body,) in rows:
        try:
            out.append(orjson.loads(body))
        except orjson.JSONDecodeError:
            out.append(None)  # reported as "not a JSON object" at its position
    return out


def read_checkpoints(path: str | Path, *, required: bool = False) -> list[dict[str, Any]]:
    """The checkpoints in a checkpoint file (none if it does not exist, unless ``required``).

    ``required`` is for a verifier that holds the key: then a file that is gone, cannot be
    read or holds nothing is a failure, since deleting or emptying it is all it would take
    to hide a cut tail.
    """
    path = Path(path)
    if not path.exists():
        if required:
            raise AuditError(
                f"the checkpoint file {str(path)!r} does not exist, though a key is "
                f"configured: it was deleted or moved, so a cut tail would not show; "
                f"{_WHAT_TO_DO}"
            )
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AuditError(
            f"could not read the checkpoint file {str(path)!r}: {exc.strerror}; "
            f"{_WHAT_TO_DO}"
        ) from None
    out: list[dict[str, Any]] = []
    for n, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise AuditError(
                f"line {n} of the checkpoint file {str(path)!r} is not JSON: {line[:80]!r}; "
                f"the file was cut or edited; {_WHAT_TO_DO}"
            ) from None
        if not isinstance(value, dict):
            raise AuditError(f"line {n} of {str(path)!r} is not a checkpoint object")
        out.append(value)
    if required and not out:
        raise AuditError(
            f"the checkpoint file {str(path)!r} holds no checkpoint, though a key is "
            f"configured: it was emptied, or its writer has not signed one yet (it signs "
            f"every so many entries and when it closes); {_WHAT_TO_DO}"
        )
    return out


_WHAT_TO_DO = (
    "restore it from where checkpoints are shipped, or pass the right file with "
    "--checkpoints PATH"
)


def verify_against_files(
    entries: Sequence[Any],
    checkpoint_paths: Sequence[str | Path],
    *,
    key: str | None = None,
    heads: Sequence[str] = (),
) -> VerifyResult:
    """Verify ``entries`` against the checkpoints in ``checkpoint_paths``; with ``key``,
    each file must be there and hold one. An entry that does not verify is named before a
    checkpoint file that is missing: it is the more exact finding."""
    _check_key(key)
    try:
        checkpoints = [
            cp for p in checkpoint_paths for cp in read_checkpoints(p, required=key is not None)
        ]
    except AuditError:
        chain = verify_entries(entries)
        if not chain.ok:
            return chain
        raise
    return verify_entries(entries, checkpoints, key=key, heads=heads)


def verify_log(
    path: str | Path,
    *,
    checkpoint_paths: Sequence[str | Path] | None = None,
    key: str | None = None,
    heads: Sequence[str] = (),
) -> VerifyResult:
    """Verify a log file, with its checkpoints (``<log>.checkpoints`` unless given)."""
    path = Path(path)
    if checkpoint_paths is None:
        checkpoint_paths = [path.with_name(path.name + ".checkpoints")]
    return verify_against_files(read_log(path), checkpoint_paths, key=key, heads=heads)
