"""Finding the host-private record behind a stub, and the one way a stub may be resolved.

The rule: **resolving a stub never opens a connection to an address taken from a tool
result.** A signed uri in a result is the tool's credential, and its host may be anything
(``169.254.169.254``, ``file://``, an internal name, a redirect). So the only way back to the
content is the upstream MCP server that produced it, asked with ``resources/read`` for the
uri on record, or, for inline data withheld by disposition, the payload kept in the record
itself. Where neither exists the answer is a refusal that says why. :func:`read_plan` encodes
the rule; the proxy's ``elision_fetch_reference`` follows the plan it returns and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from elision._record import field, record_class
from elision.errors import RefNotFound, UpstreamError


class ReferenceStore(Protocol):
    """The part of :class:`elision.store.base.Store` that keeps reference records."""

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]: ...


def lookup_reference(
    stub_id: str,
    *,
    records: Mapping[str, dict[str, Any]] | None = None,
    store: ReferenceStore | None = None,
    scope: str | None = None,
) -> dict[str, Any]:
    """The host-private record for ``stub_id``, from ``records`` first and then ``store``.

    Raises :class:`~elision.errors.RefNotFound` (whose message names only the stub id).
    """
    stub_id = _stub_id(stub_id)
    if records is not None and stub_id in records:
        return records[stub_id]
    if store is not None:
        return store.get_reference(stub_id, scope=scope)
    raise RefNotFound(
        f"no reference record is kept for stub {stub_id!r}; it was never issued here or has "
        "expired: call the tool again to get a fresh stub"
    )


@record_class(frozen=True)
class ReadPlan:
    """How a stub may be resolved: ``resources/read`` of ``uri`` on ``server``, or ``payload``.

    ``repr`` leaves out the uri and the payload so that logging a plan cannot leak them.
    """

    stub_id: str
    server: str | None
    uri: str | None = field(default=None, repr=False)
    payload: str | None = field(default=None, repr=False)
    mime_type: str | None = None


def read_plan(stub_id: str, record: Mapping[str, Any]) -> ReadPlan:
    """The only allowed way to resolve ``stub_id``; refuses when there is none."""
    stub_id = _stub_id(stub_id)
    mime = record.get("mimeType") if isinstance(record.get("mimeType"), str) else None
    payload = record.get("payload")
    if isinstance(payload, str):
        return ReadPlan(stub_id, None, payload=payload, mime_type=mime)
    server, uri = record.get("server"), record.get("uri")
    if not isinstance(uri, str) or not uri:
        raise UpstreamError(
            f"stub {stub_id!r} has no uri on record, so nothing can be read back for it"
        )
    if not isinstance(server, str) or not server:
        raise UpstreamError(
            f"stub {stub_id!r} came from a result with no known upstream MCP server, and "
            "elision never fetches an address taken from a tool result; call the tool through "
            "the elision proxy so the server can be asked with resources/read"
        )
    return ReadPlan(stub_id, server, uri=uri, mime_type=mime)


def _stub_id(stub: str) -> str:
    # Accept the whole stub text as well as its id, since a model may paste either.
    text = stub.strip()
    if text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]
    return text
