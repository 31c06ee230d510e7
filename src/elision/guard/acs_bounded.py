"""The outputs of a ``steps/toolCallResult``, bounded ones resolved to the whole body.

``outputs`` is an array of ``{value, provenance}`` (``hooks/tool-call-result.json``). An
output is **bounded** when the client sent a prefix and a digest instead of the whole body.
Two placements are valid under the schema, and both are read:

- members beside ``value`` (what elision's own clients send; docs/acs-bounded-results.md)::

    {"value": "<inline prefix>", "truncated": true, "digest": "sha256:<hex>",
     "content_ref": "el_…", "bytes": 323118, "provenance": {…}}

- the bounded object as ``value``::

    {"value": {"inline": "<prefix>", "truncated": true, "digest": "sha256:<hex>",
               "content_ref": "el_…", "bytes": 323118}, "provenance": {…}}

The second is only taken as a bound when ``value`` holds ``truncated`` and ``digest`` and
nothing but bound members: a tool's own object with other keys is a plain value, which the
Guardian sees whole. Members beside ``value`` are never the tool's, so any of them makes a
bound, and a bound that lacks ``truncated`` or ``digest`` is an error rather than a value.

``content_ref`` is only ever a key into the operator's store, never a URI to fetch, and the
body read there must match ``digest``; otherwise the output is partial evidence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from elision.errors import ElisionError
from elision.guard import acs_wire as wire
from elision.guard.acs_wire import INVALID_PARAMS, AcsError

if TYPE_CHECKING:
    from elision.store.base import Store

#: Members that describe a bound beside ``value`` (placement one).
BESIDE = ("truncated", "digest", "content_ref", "bytes")
#: Members a bounded object as ``value`` may hold (placement two).
INSIDE = frozenset({"inline", "truncated", "digest", "content_ref", "bytes", "media_type"})


@dataclass(frozen=True)
class Output:
    """One output as the Guardian decides on it, and what the wire carried of it."""

    value: Any  # the whole body, parsed when it is JSON; the prefix when partial
    sha256: str  # of the whole body
    body_bytes: int
    wire_body: bytes  # what the request carried (the inline prefix of a bound)
    bounded: bool = False
    evidence: str = "full"  # "partial" when a bound could not be resolved
    #: Members of the body that a repeated key shadows: no policy sees them, yet the host
    #: shows the body's every byte (only a body sent as text, inline or by ref, has any).
    shadowed: int = 0

    def record(self) -> dict[str, Any]:
        """The output as the audit entry binds it (digests and counts only)."""
        out: dict[str, Any] = {"sha256": self.sha256, "bytes": self.body_bytes}
        if self.bounded:
            out["bounded"] = True
            out["evidence"] = self.evidence
        return out


def read_outputs(outputs: Sequence[Any], store: Store | None) -> list[Output]:
    """Every output of a toolCallResult, bounded ones resolved against ``store``."""
    return [read_output(item, store) for item in outputs]


def read_output(item: Any, store: Store | None) -> Output:
    if not isinstance(item, Mapping):
        raise AcsError(INVALID_PARAMS, f"each output must be an object, got {wire.kind(item)}",
                       "invalid_params")
    value = item.get("value")
    if any(k in item for k in BESIDE):
        return _bounded({**{k: item[k] for k in BESIDE if k in item}, "inline": value}, store)
    if isinstance(value, Mapping) and {"truncated", "digest"} <= set(value) and set(
        value
    ) <= INSIDE:
        return _bounded(value, store)
    body = wire.body_of(value)
    return Output(value, hashlib.sha256(body).hexdigest(), len(body), body)


def _bounded(bound: Mapping[str, Any], store: Store | None) -> Output:
    truncated = bound.get("truncated")
    if not isinstance(truncated, bool) or "digest" not in bound:
        raise AcsError(INVALID_PARAMS, "a bounded output needs truncated (true or false) and "
                       "digest ('sha256:' and the hex of the whole body); see "
                       "docs/acs-bounded-results.md", "invalid_params")
    digest = wire.digest(bound["digest"])
    inline = bound.get("inline", "")
    if not isinstance(inline, str):
        raise AcsError(INVALID_PARAMS, "a bounded output's inline prefix must be a string, got "
                       f"{wire.kind(inline)}", "invalid_params")
    shown = inline.encode("utf-8", "replace")
    if not truncated:
        if hashlib.sha256(shown).hexdigest() != digest:
            raise AcsError(INVALID_PARAMS, "truncated is false but digest is not the sha256 of "
                           "the inline body; send the digest of the body you sent",
                           "digest_mismatch")
        value, shadowed = wire.parsed(shown)
        return Output(value, digest, len(shown), shown, bounded=True, shadowed=shadowed)
    full = resolve(store, bound.get("content_ref"), digest)
    if full is not None:
        value, shadowed = wire.parsed(full)
        return Output(value, digest, len(full), shown, bounded=True, shadowed=shadowed)
    declared = bound.get("bytes")
    size = declared if isinstance(declared, int) and not isinstance(declared, bool) and (
        declared >= len(shown)) else len(shown)
    return Output(inline, digest, size, shown, bounded=True, evidence="partial")


def resolve(store: Store | None, ref: Any, digest: str) -> bytes | None:
    """The body ``ref`` names in the operator's store, if it is there and matches ``digest``."""
    if store is None or not isinstance(ref, str) or not ref:
        return None
    try:
        body = store.read(ref)
    except ElisionError:
        return None
    return body if hashlib.sha256(body).hexdigest() == digest else None


def bounded_output(
    body: bytes, content_ref: str | None, *, inline_bytes: int = 4096,
    provenance: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The output item elision's clients send for ``body``: the bound's members beside
    ``value``, which holds the first ``inline_bytes`` of the body (cut at a character). A body
    that fits is sent whole, with ``truncated: false``; ``content_ref`` names where the whole
    body is kept in the store the Guardian reads (docs/acs-bounded-results.md)."""
    prefix = body[:inline_bytes].decode("utf-8", "ignore")
    truncated = len(prefix.encode()) < len(body)
    out: dict[str, Any] = {"value": prefix, "truncated": truncated,
                           "digest": "sha256:" + hashlib.sha256(body).hexdigest(),
                           "bytes": len(body)}
    if truncated and content_ref is not None:
        out["content_ref"] = content_ref
    if provenance is not None:
        out["provenance"] = dict(provenance)
    return out


def outputs_pointer(path: str) -> str:
    """A pointer into the list of decided values as a pointer into the wire payload: the
    ``i``-th value is ``/outputs/i/value`` (the whole body, for a bounded output)."""
    if path == "":
        return "/outputs"
    index, _, rest = path[1:].partition("/")
    return f"/outputs/{index}/value" + (f"/{rest}" if rest else "")
