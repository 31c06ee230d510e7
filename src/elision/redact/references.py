"""MCP reference lanes: records that point at a resource, found at any depth of a result.

A *reference lane* is an object whose ``type`` is ``resource``, ``image`` or ``audio`` and that
carries a usable ``uri`` (a non-empty string) either itself or, for the embedded form
``{"type": "resource", "resource": {"uri": …, "text" | "blob": …}}``, in its ``resource``
member. A uri that is null, absent or empty counts as none, and a record that only shares a
type name (an ``image`` whose ``data`` is an array of numbers, say) is ordinary data.

What happens to a lane (each withheld field gets its own ``withheld`` entry):

=================================  ===========================================================
the lane                           what the model sees
=================================  ===========================================================
``disposition: "never"``           payload and uri replaced by ``[withheld: disposition-never]``;
                                   no stub id, because nothing may be fetched
``disposition: "ref"``             payload replaced by a reference stub (``disposition-ref``)
inline payload and a uri           payload replaced by a reference stub (``inline-with-uri``):
                                   the tool claimed two sources for one value, and the model
                                   gets neither unchecked - except a small embedded resource
                                   (4 KiB of text or base64) whose uri is ordinary and whose
                                   payload holds no credential: it is kept
a uri that carries a credential    uri replaced by a reference stub (``signed-uri``)
an ordinary uri, nothing inline    kept exactly: the model needs it
=================================  ===========================================================

A payload is a non-empty string under ``blob``, ``data`` or ``text``; a disposition also governs
inline data that has no uri. ``resource_link`` records are not lanes: their uris stay, and only
a uri that is itself a credential is withheld (by the URL rules, like any other string).

The host-private record behind a reference stub (:class:`Reference`) holds the real uri and is
never written into the value, a log line or an error message.
"""

from __future__ import annotations

import base64
from typing import Any

from elision._record import field, record_class
from elision.redact import rules
from elision.redact.encodings import blob_text
from elision.redact.rules import is_stub, new_stub_id, reference_stub, withheld_stub
from elision.redact.scan import find_spans

LANE_TYPES = frozenset({"resource", "image", "audio"})
#: An embedded resource with at most this many bytes of text (or base64 chars of blob), an
#: ordinary uri and no credential inline is kept as it is (see ``_small_and_clean``).
SMALL_EMBEDDED = 4096
PAYLOAD_KEYS = ("blob", "data", "text")
_BASE64_KEYS = frozenset({"blob", "data"})

PathPart = str | int


@record_class
class LaneOutcome:
    """A governed lane: the record to show, and what was withheld from it and why."""

    record: dict[str, Any]
    #: (path relative to the record, reason, stub id or None)
    withheld: list[tuple[tuple[PathPart, ...], str, str | None]] = field(default_factory=list)
    #: stub id -> host-private record
    references: dict[str, dict[str, Any]] = field(default_factory=dict)


def govern_lane(record: dict[str, Any], *, server: str | None = None) -> LaneOutcome | None:
    """The outcome for ``record`` if it is a lane that needs anything withheld, else ``None``."""
    kind = lane_kind(record)
    if kind not in LANE_TYPES and not _disposition(record):
        return None
    inner = record.get("resource") if kind == "resource" else None
    holders: list[tuple[tuple[PathPart, ...], dict[str, Any]]] = [((), record)]
    if isinstance(inner, dict):
        holders.insert(0, (("resource",), inner))  # the embedded form speaks for the record
    uri_at = next(((p, h) for p, h in holders if _usable_uri(h.get("uri"))), None)
    payload_at = next(
        ((p, h, k) for p, h in holders for k in PAYLOAD_KEYS if _usable_payload(h.get(k))),
        None,
    )
    disposition = _disposition(record) or (_disposition(inner) if isinstance(inner, dict) else "")
    if kind not in LANE_TYPES and payload_at is None:
        return None
    if uri_at is None and payload_at is None:
        return None
    if uri_at is None and not disposition:
        return None  # inline data with no uri and no disposition: an ordinary content block
    uri: str | None = uri_at[1]["uri"] if uri_at is not None else None
    signed = uri is not None and bool(find_spans(uri))
    if kind == "resource" and not disposition and not signed and _small_and_clean(payload_at):
        return None  # a small embedded resource that claims nothing governed is kept

    outcome = LaneOutcome(record=record)
    replace: dict[tuple[PathPart, ...], str] = {}
    if disposition == "never":
        stub = withheld_stub(rules.DISPOSITION_NEVER)
        paths = [(*uri_at[0], "uri")] if uri_at is not None else []
        if payload_at is not None:
            paths.append((*payload_at[0], payload_at[2]))
        for path in paths:
            replace[path] = stub
            outcome.withheld.append((path, rules.DISPOSITION_NEVER, None))
    elif payload_at is not None or signed:
        # disposition "ref" alone changes nothing on a lane whose only source is an ordinary
        # uri: that is a reference already, and nothing inline is there to withhold.
        stub_id = new_stub_id()
        mime = _mime_type(holders)
        size = _size(holders, payload_at)
        stub = reference_stub(stub_id, mime, size)
        if payload_at is not None:
            path = (*payload_at[0], payload_at[2])
            reason = rules.DISPOSITION_REF if disposition == "ref" else rules.INLINE_WITH_URI
            replace[path] = stub
            outcome.withheld.append((path, reason, stub_id))
        if signed and uri_at is not None:
            path = (*uri_at[0], "uri")
            replace[path] = stub
            outcome.withheld.append((path, rules.SIGNED_URI, stub_id))
        ref: dict[str, Any] = {"uri": uri, "mimeType": mime, "size": size, "server": server,
                               "reason": outcome.withheld[0][1]}
        if uri is None and payload_at is not None:
            # Nothing upstream can serve it again, so the record keeps the payload itself.
            ref["payload"] = payload_at[1][payload_at[2]]
        outcome.references[stub_id] = ref
    else:
        return None
    outcome.record = _replaced(record, replace)
    return outcome


def _small_and_clean(payload_at: tuple[tuple[PathPart, ...], dict[str, Any], str] | None) -> bool:
    """Whether an embedded resource's payload is small enough to keep and holds nothing the
    rules withhold: a text of at most :data:`SMALL_EMBEDDED` bytes, or a blob of at most that
    many base64 chars, that decodes to no credential. Stubbing a 62-char note cost the model
    its content for nothing, and stubbing a small blob turned the block into text."""
    if payload_at is None or payload_at[0] != ("resource",):
        return False
    payload: str = payload_at[1][payload_at[2]]
    if payload_at[2] == "text":
        text = payload
        if len(text.encode("utf-8", "surrogatepass")) > SMALL_EMBEDDED:
            return False
    else:
        if len(payload) > SMALL_EMBEDDED:
            return False
        try:
            text = blob_text(base64.b64decode(payload, validate=True))
        except ValueError:
            return False  # not base64: not what it claims to be
    return not find_spans(text)


def _replaced(record: dict[str, Any], replace: dict[tuple[PathPart, ...], str]) -> dict[str, Any]:
    out = dict(record)
    nested = {p[1:]: v for p, v in replace.items() if len(p) == 2}
    if nested:
        out["resource"] = {**record["resource"], **{str(p[0]): v for p, v in nested.items()}}
    for path, value in replace.items():
        if len(path) == 1:
            out[str(path[0])] = value
    return out


def lane_kind(record: dict[str, Any]) -> str | None:
    """The record's ``type`` when it is a string (an object or array there is ordinary data)."""
    kind = record.get("type")
    return kind if isinstance(kind, str) else None



def _usable_uri(value: object) -> bool:
    return isinstance(value, str) and value.strip() != "" and not is_stub(value)


def _usable_payload(value: object) -> bool:
    return isinstance(value, str) and value != "" and not is_stub(value)


def _disposition(record: dict[str, Any]) -> str:
    value = record.get("disposition")
    if isinstance(value, str) and value.lower() in ("never", "ref"):
        return value.lower()
    return ""


def _mime_type(holders: list[tuple[tuple[PathPart, ...], dict[str, Any]]]) -> str | None:
    for _, holder in holders:
        mime = holder.get("mimeType")
        if isinstance(mime, str) and mime and not find_spans(mime):
            return mime
    return None


def _size(
    holders: list[tuple[tuple[PathPart, ...], dict[str, Any]]],
    payload_at: tuple[tuple[PathPart, ...], dict[str, Any], str] | None,
) -> int | None:
    for _, holder in holders:
        size = holder.get("size")
        if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
            return size
    if payload_at is None:
        return None
    payload: str = payload_at[1][payload_at[2]]
    if payload_at[2] in _BASE64_KEYS:
        return len(payload) * 3 // 4
    return len(payload.encode("utf-8", "surrogatepass"))
