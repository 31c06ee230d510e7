"""The audit chain: ContextEntry hashing per the OWASP Agent Control Standard, §8.2.

``entry_hash = hex(SHA-256(JCS(entry without entry_hash and previous_hash) || prev))`` where
``prev`` is the raw 32 bytes of ``previous_hash``, or nothing for the first entry (whose
``previous_hash`` is null). JCS is RFC 8785. The hash of the last entry is the ``chain_hash``.

An elision entry for a tool result binds both digests - the body the tool really returned and
the body the agent was shown - so that a shaped or redacted result can never pass for the
original, and a cut can never pass for a whole.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from elision.audit.jcs import canonical
from elision.errors import AuditError

TOOL_RESULT_STEP = "steps/toolCallResult"
TOOL_REQUEST_STEP = "steps/toolCallRequest"
#: The two members that are not part of an entry's hashed content.
LINK_FIELDS = ("entry_hash", "previous_hash")
DECISIONS = ("allow", "modify", "deny", "ask", "defer")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def canonical_content(entry: Mapping[str, Any]) -> bytes:
    """JCS bytes of ``entry`` without its link fields: what ``entry_hash`` commits to."""
    content = {k: v for k, v in entry.items() if k not in LINK_FIELDS}
    try:
        return canonical(content)
    except (TypeError, ValueError) as exc:  # rfc8785.CanonicalizationError is a ValueError
        raise AuditError(
            f"audit entry {entry.get('entry_id')!r} cannot be canonicalized ({exc}); entries "
            "hold only strings, integers, booleans, lists and objects"
        ) from None


def entry_hash(entry: Mapping[str, Any], previous_hash: str | None) -> str:
    """The lowercase-hex ``entry_hash`` of ``entry`` linked after ``previous_hash``."""
    digest = hashlib.sha256(canonical_content(entry))
    if previous_hash is not None:
        digest.update(_raw_hash(previous_hash))
    return digest.hexdigest()


def link(entry: Mapping[str, Any], previous_hash: str | None) -> dict[str, Any]:
    """``entry`` with ``previous_hash`` and ``entry_hash`` set: ready to append."""
    linked = {k: v for k, v in entry.items() if k not in LINK_FIELDS}
    linked["previous_hash"] = previous_hash
    linked["entry_hash"] = entry_hash(linked, previous_hash)
    return linked


def _raw_hash(value: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise AuditError(
            f"previous_hash must be 64 hex digits (a SHA-256), got {value!r}"
        )
    return raw


def now_timestamp() -> str:
    """An RFC 3339 UTC timestamp with milliseconds, the form every entry uses."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def tool_result_entry(
    *,
    step_id: str,
    tool: str,
    full_sha256: str,
    full_bytes: int,
    shown_sha256: str,
    shown_bytes: int,
    complete: bool,
    decision: str,
    policy_ids: Sequence[str] = (),
    server: str | None = None,
    withheld: Mapping[str, int] | None = None,
    reason_codes: Sequence[str] = (),
    session_id: str | None = None,
    request_hash: str | None = None,
    step_type: str = TOOL_RESULT_STEP,
    timestamp: str | None = None,
) -> dict[str, Any]:
    """The content of an entry for one tool result (``entry_id`` is set by the log).

    ``withheld`` counts what each redaction rule withheld - never the values. Optional members
    are omitted rather than written as null, so two writers agree on the canonical form.
    """
    if decision not in DECISIONS:
        raise AuditError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
    for name, digest in (("full_sha256", full_sha256), ("shown_sha256", shown_sha256)):
        if not isinstance(digest, str) or _SHA256_HEX.fullmatch(digest) is None:
            raise AuditError(f"{name} must be 64 lowercase hex digits, got {digest!r}")
    entry: dict[str, Any] = {
        "step_id": step_id,
        "step_type": step_type,
        "timestamp": timestamp or now_timestamp(),
    }
    if session_id is not None:
        entry["session_id"] = session_id
    if request_hash is not None:
        entry["request_hash"] = request_hash
    if tool:  # an ACS step that is not about a tool (a userMessage, a sessionStart) has none
        entry["tool"] = tool
    if server is not None:
        entry["server"] = server
    entry["full"] = {"sha256": full_sha256, "bytes": full_bytes}
    entry["shown"] = {"sha256": shown_sha256, "bytes": shown_bytes}
    entry["complete"] = complete
    if withheld:
        entry["withheld"] = {rule: int(n) for rule, n in sorted(withheld.items()) if n}
        if not entry["withheld"]:
            del entry["withheld"]
    entry["decision"] = decision
    entry["policy_ids"] = list(policy_ids)
    if reason_codes:
        entry["reason_codes"] = list(reason_codes)
    return entry


def request_hash(params: Mapping[str, Any]) -> str:
    """ACS ``request_hash``: SHA-256 of the JCS form of a request's params, as sent (its
    signature included, as the ACS reference implementations hash it)."""
    try:
        return sha256_hex(canonical(dict(params)))
    except (TypeError, ValueError) as exc:  # rfc8785.CanonicalizationError is a ValueError
        raise AuditError(f"request params cannot be canonicalized ({exc})") from None
