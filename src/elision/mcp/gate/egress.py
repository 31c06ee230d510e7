"""The egress gate: every message from an upstream to an agent passes here, whole.

Governing the fields one was taught, one at a time, loses every race with the protocol: its
messages grow members each release (``_meta``, ``annotations``, ``resultType``, task and
extension fields). So the gate walks the whole JSON-RPC message as it goes onto the wire, on
both transports (stdio: ``LineWriter``'s egress hook, or :class:`GatedStream` around the SDK's;
``--listen``: :func:`gated_app`; both of :mod:`elision.mcp.gate.transports`) and in both
protocol eras, whatever its type:

* **Redaction by default.** Every string in the message, keys included, at any depth, in any
  member known or unknown, goes through the redaction rules (:func:`elision.redact.redact_value`:
  credentials, signed URLs, base64 and escaped forms, reference lanes; a ``blob`` is decoded
  and scanned as a blob in a tool result is). Only the members the protocol needs verbatim are
  left alone, each for a reason (:data:`EXEMPT`).
* **A bound on every message.** A result is held to its budget by the shaper before it gets
  here; a JSON-RPC error to :data:`ERROR_BUDGET_BYTES`, a notification to
  :data:`NOTIFICATION_BUDGET_BYTES`, a request the server makes of the client to
  :data:`REQUEST_BUDGET_BYTES`, and a completion or list result to :data:`LISTING_BUDGET_BYTES`.
  A message over its bound has its longest strings cut, each with what was shown of how much
  (``… [elision: cut, shown 1,024 of 2,000,000 chars]``); an error's full text (its message and
  data) is kept in the store under a ref the cut message names, since an error is evidence.
* **Adjacent text blocks read as one** (:func:`redact_seams`): a client may join a result's
  text blocks, so a token split across two of them is looked for across the seam and withheld
  on both sides of it.

Cheap on a clean message: the serialized bytes are searched once for trigger bytes
(hyperscan, on raw bytes); a message with none, within its bound, goes out as it came, neither
parsed nor serialized again. The result shaper (:mod:`elision.mcp.gate.results`) stays on top
of the gate: it judges, redacts, shapes and audits a tool result first, so on a result the
gate finds nothing left to change.

Off the event loop when it is large: a message of :data:`OFF_LOOP_BYTES` or more is gated on
a worker thread (:meth:`Egress.gate_bytes_off_loop`), at most :data:`GATES_AT_ONCE` at a time
and :data:`GATE_BYTES_AT_ONCE` bytes together (a larger message alone),
so one client's 8 MB message (hundreds of ms to govern) never holds up another client's calls;
a smaller one is gated inline, where a thread hop would cost more than its gating. The
transports keep each client's messages in the order they were sent.

Here: the bounds and the exempt members (policy), the walk of one message and its blobs.
The cutting to a bound is :mod:`elision.mcp.gate.capping`, the seams
:mod:`elision.mcp.gate.seams`, the wire :mod:`elision.mcp.gate.transports`; their public
names are importable from here as they always were.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Callable
from typing import Any

import anyio
import orjson

from elision.mcp.gate.capping import _bounded, _cut, _dumps, _pop, _put, _shallow
from elision.mcp.gate.seams import SEAM_CHARS, _seamed_content, redact_seams
from elision.mcp.gate.transports import OFF_LOOP_BYTES, GatedStream, gated_app, kind_of_model
from elision.mcp.upstream.inflight import ByteRoom

__all__ = [
    "ERROR_BUDGET_BYTES", "EXEMPT", "GATES_AT_ONCE", "GATE_BYTES_AT_ONCE", "LISTING_BUDGET_BYTES",
    "NOTIFICATION_BUDGET_BYTES", "OFF_LOOP_BYTES", "REQUEST_BUDGET_BYTES", "SEAM_CHARS", "Egress",
    "GatedStream", "gated_app", "kind_of_model", "redact_seams", "refused_name",
]

logger = logging.getLogger("elision.proxy")

#: Whether clean bytes spare a message its redaction walk (off: the walk, as a differential
#: test's reference).
_CLEAN_SKIPS = True

#: The bound of a JSON-RPC error message, in bytes of JSON on the wire.
ERROR_BUDGET_BYTES = 8 * 1024
#: The bound of a notification (progress, logging, list-changed, resource-updated, any other).
NOTIFICATION_BUDGET_BYTES = 8 * 1024
#: The bound of a request a server makes of the client (elicitation, sampling, roots).
REQUEST_BUDGET_BYTES = 64 * 1024
#: The bound of a result that is neither a tool result nor a resource read or prompt (those
#: are shaped to their budgets): lists and completions.
LISTING_BUDGET_BYTES = 1024 * 1024

#: How many messages are gated on threads at once. Each holds its parse tree while it is
#: governed (several times its bytes): more would multiply the peak, not the speed (the
#: walk holds the GIL). The rest wait their turn, each holding only its own bytes.
GATES_AT_ONCE = 2
#: How many bytes of messages are gated at once, all threads together: two 8 MB messages
#: gated side by side held both parse trees (four such in flight peaked at 230 MB where one
#: at a time held 138 MB), so a message waits until its bytes fit beside the ones being
#: gated; one larger than this is gated alone. First come, first gated.
GATE_BYTES_AT_ONCE = 8 * 1024 * 1024

#: The bound of a result the shaper held to its budget already (:func:`_shaped`): none here.
_UNBOUNDED = 1 << 62

#: Members left as they are, and why: each is a value the protocol needs verbatim, chosen by
#: the agent or by the proxy itself, never a server's text for the model.
EXEMPT: dict[tuple[str, ...], str] = {
    ("jsonrpc",): "the protocol's version tag",
    ("id",): "the request id the agent chose; it matches an answer to its request",
    ("method",): "the method name, written by the proxy's SDK",
    ("params", "progressToken"): "the agent's own progress token, matched by its client",
    ("params", "requestId"): "the id of the request a cancellation names",
    ("params", "_meta", "progressToken"): "the progress token of a request to the client",
    ("result", "nextCursor"): "a cursor the agent must hand back as it was given",
}

_KINDS = ("result", "error", "notification", "request")


def refused_name(name: str) -> str | None:
    """Why a tool or prompt name cannot be shown to an agent, or ``None`` when it can.

    A name reaches the agent verbatim (it must be called back as it is), so one that holds
    control or format characters (which hide text from a person: bidi overrides, zero-width
    joiners) or markup (which a client may render) is refused instead.
    """
    if not name:
        return "it is empty"
    for char in name:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            return f"it holds the control or format character U+{ord(char):04X}"
        if char in _MARKUP:
            return f"it holds {char!r}, which a client may read as markup"
    return None


_MARKUP = frozenset("<>[]`")


def _kind(message: dict[str, Any]) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "result"


class Egress:
    """The gate. ``keep(body, scope)`` keeps an error's full text and gives its ref (or
    ``None`` when there is no store); ``redact`` is off under ``--no-redact`` (the bounds
    hold either way)."""

    def __init__(
        self,
        *,
        redact: bool = True,
        keep: Callable[[bytes, str | None], str | None] | None = None,
    ) -> None:
        self.redact = redact
        self.keep = keep
        self._threads: anyio.CapacityLimiter | None = None
        self._room: ByteRoom | None = None

    # -- bytes on the wire --------------------------------------------------------------

    def gate_bytes(self, raw: bytes, kind: str | None = None, scope: str | None = None) -> bytes:
        """The serialized message ``raw`` as the agent may get it: itself when it is clean
        and within its bound (no parse), else governed and serialized again."""
        clean: bool | None = None
        if len(raw) <= _bound(kind, None):
            clean = not self._may_need_redaction(raw)
            if clean and (not self.redact or _BLOB not in raw):
                return raw
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            try:  # the standard library reads what orjson refuses (a lone surrogate)
                message = json.loads(raw)
            except ValueError:
                logger.warning("the egress gate withheld a message it could not read")
                return b""  # withheld whole: unread means ungoverned
        if not isinstance(message, dict):
            return b""
        try:
            many = _many_nodes(raw)
            if clean is None:  # an oversized body: searched when a walk would cost more
                clean = many and not self._may_need_redaction(raw)
            gated = self.gate_message(message, scope, blobs=not many or _may_hold_blob(raw),
                                      clean=clean and _CLEAN_SKIPS)
        except Exception as exc:
            # Fail closed, and keep the session: a bug here must not leak nor hang a call.
            logger.warning("the egress gate failed (%s); the message was withheld",
                           type(exc).__name__)
            return _withheld(message)
        return raw if gated is message else _dumps(gated)

    async def gate_bytes_off_loop(
        self, raw: bytes, kind: str | None = None, scope: str | None = None,
    ) -> bytes:
        """:meth:`gate_bytes`, on a worker thread when ``raw`` is :data:`OFF_LOOP_BYTES` or
        more. A cancellation waits for the thread to finish, as it waited for the gating on
        the loop before: a half-governed message is never sent, and no thread is left
        running unseen."""
        if len(raw) < OFF_LOOP_BYTES:
            return self.gate_bytes(raw, kind, scope)
        if self._threads is None or self._room is None:  # made in the loop that uses them
            self._threads = anyio.CapacityLimiter(GATES_AT_ONCE)
            self._room = ByteRoom(GATE_BYTES_AT_ONCE)
        room = self._room
        await room.enter(len(raw))
        try:
            return await anyio.to_thread.run_sync(
                self.gate_bytes, raw, kind, scope, limiter=self._threads
            )
        finally:
            room.leave(len(raw))

    def _may_need_redaction(self, raw: bytes) -> bool:
        if not self.redact:
            return False
        from elision.redact.triggers import body_may_need_redaction

        return body_may_need_redaction(raw) is not False

    # -- one message ----------------------------------------------------------------------

    def gate_message(
        self, message: dict[str, Any], scope: str | None = None, *, blobs: bool = True,
        clean: bool = False,
    ) -> dict[str, Any]:
        """``message`` (a JSON-RPC message as plain JSON values) governed; ``message`` itself
        when nothing in it changes. Its bytes may tell more: ``blobs=False``, that no member
        is named ``blob`` (:func:`_may_hold_blob`), so no walk looks for one; ``clean``, that
        they hold nothing to withhold (``body_may_need_redaction`` is False), so no
        redaction walks its strings (a seam between its text blocks is still read)."""
        kind = _kind(message)
        out = self._redacted(message, blobs, clean) if self.redact else message
        if kind == "error":
            return self._bounded_error(out, scope)
        bound = _bound(kind, out)
        if bound == _UNBOUNDED:
            return out  # not serialized to be measured: 3-4 ms a MB of small blocks, a sixth
        return _bounded(out, bound, EXEMPT, fast=_FAST_CAPS)

    def _redacted(
        self, message: dict[str, Any], blobs: bool = True, clean: bool = False,
    ) -> dict[str, Any]:
        from elision.redact import redact_value

        held: dict[tuple[str, ...], Any] = {}
        body = message
        for path in EXEMPT:
            found, value = _pop(body, path, copy=True)
            if found:
                body = _shallow(body, path)  # popped from copies: the message stays whole
                _pop(body, path, copy=False)
                held[path] = value
        seamed = _seamed_content(body)
        # Clean bytes, no seam cut: nothing to withhold (an error's data 300 deep was a
        # walk of its 500,000 lists, 600x prose).
        withheld: tuple[dict[str, Any], ...] = ()
        redacted: Any = seamed
        if not clean or seamed is not body:
            done = redact_value(seamed)
            redacted, withheld = done.value, done.withheld
        value, decoded = _blobs_redacted(redacted) if blobs else (redacted, 0)
        if not withheld and not decoded and seamed is body:
            return message
        out: dict[str, Any] = value if isinstance(value, dict) else {}
        for path, value in held.items():
            out = _put(out, path, value)
        # The members in the order they came (jsonrpc and id first, as SDKs write them).
        out = {**{k: out[k] for k in message if k in out}, **out}
        if withheld:
            reasons = sorted({str(w.get("reason")) for w in withheld})
            logger.debug("the gate withheld %d value(s): %s", len(withheld), reasons)
        return out

    def _bounded_error(self, message: dict[str, Any], scope: str | None) -> dict[str, Any]:
        error = message.get("error")
        data: bytes | None = None
        if isinstance(error, dict) and "data" in error:
            # The data written once, to be measured and to be kept: compact JSON is written
            # member by member, so the message is its frame's bytes and the data's (a deep
            # error's data was written twice, most of its cost; issue 23).
            data = _dumps(error["data"])
            rest = dict(message, error=dict(error, data=0))
            size = len(_dumps(rest)) - 1 + len(data)
        else:
            size = len(_dumps(message))
        if size <= ERROR_BUDGET_BYTES:
            return message
        error = error if isinstance(error, dict) else {}
        text = str(error.get("message", ""))
        if data is not None:
            text += "\n\ndata: " + data.decode()
        full = text.encode("utf-8", "replace")
        ref = self.keep(full, scope) if self.keep is not None else None
        where = (
            f"the whole error: elision_fetch(ref={ref!r})" if ref is not None
            else "the rest was not kept (no store)"
        )
        head = f"[elision] error cut to the {ERROR_BUDGET_BYTES:,}-byte error bound; {where}\n"
        # Room for the message text: the bound, less the envelope of the JSON-RPC error.
        frame = dict(message, error={"code": error.get("code", -32603), "message": ""})
        room = ERROR_BUDGET_BYTES - len(_dumps(frame)) - len(head.encode())
        while True:
            # Escapes can make a char several bytes of JSON: shrink until it fits.
            out = {**frame, "error": {
                "code": frame["error"]["code"], "message": head + _cut(text, max(room, 0)),
            }}
            over = len(_dumps(out)) - ERROR_BUDGET_BYTES
            if over <= 0 or room <= 0:
                return out
            room -= max(over, 64)


def _withheld(message: dict[str, Any]) -> bytes:
    """What goes out in place of a message the gate could not govern: an error answering a
    request, else nothing."""
    if "method" in message or "id" not in message:
        return b""
    return _dumps({"jsonrpc": "2.0", "id": message["id"], "error": {
        "code": -32603, "message": "elision withheld this answer: the egress gate could not "
        "govern it (a bug in elision, please report it); try the call again",
    }})


# -- blobs ----------------------------------------------------------------------------------

_BLOB = b'"blob"'


def _may_hold_blob(raw: bytes) -> bool:
    """Whether the JSON ``raw`` may hold a member named ``blob``: not when its bytes hold no
    ``"blob"`` and no ``\\u006`` (an escape spells each of b, l, o so and JSON no letter
    otherwise). The walk that looks for one was a sixth of the gate's time on 12,000
    annotated blocks."""
    return _BLOB in raw or b"\\u006" in raw


def _many_nodes(raw: bytes) -> bool:
    """Whether the JSON ``raw`` seems to hold many members or containers, counted in its first
    :data:`_FEW_AT` bytes (keys' ends, containers' starts, strings' joins; not commas, which
    prose is full of): where a walk of them costs more than a search of its bytes (1 ms a MB
    each: a third of the gate's time on a prose result). A guess: when it is wrong, the walk
    runs, as it always did."""
    marks = (b'":', b"[", b"{", b'","')
    return sum(raw.count(mark, 0, _FEW_AT) for mark in marks) >= _FEW_MEMBERS


#: How far into a body members are counted, and how many make a walk dearer than a search.
_FEW_AT, _FEW_MEMBERS = 1 << 16, 256


def _blobs_redacted(value: Any) -> tuple[Any, int]:
    """``value`` with each ``blob`` (base64) that decodes to text holding a credential
    replaced by the base64 of its redacted text (still a blob a client can decode, now
    showing the stub), and how many were."""
    if isinstance(value, list):
        out_list, count = [], 0
        for item in value:
            new, n = _blobs_redacted(item)
            out_list.append(new)
            count += n
        return (out_list, count) if count else (value, 0)
    if not isinstance(value, dict):
        return value, 0
    out: dict[str, Any] = {}
    count = 0
    for key, item in value.items():
        if key == "blob" and isinstance(item, str):
            new_blob = _redacted_blob(item)
            if new_blob is not None:
                out[key] = new_blob
                count += 1
                continue
        new, n = _blobs_redacted(item)
        out[key] = new
        count += n
    return (out, count) if count else (value, 0)


def _redacted_blob(blob: str) -> str | None:
    import base64
    import binascii

    from elision.redact import redact_text

    try:
        data = base64.b64decode(blob, validate=True)
        text = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None  # not base64 of UTF-8 text: binary, which no text rule reads
    done = redact_text(text)
    if not done.withheld:
        return None
    return base64.b64encode(str(done.value).encode()).decode()


# -- bounds ---------------------------------------------------------------------------------


def _bound(kind: str | None, message: dict[str, Any] | None) -> int:
    """The bound of a message of ``kind`` (the smallest when it is not known yet)."""
    if kind == "error":
        return ERROR_BUDGET_BYTES
    if kind == "notification":
        return NOTIFICATION_BUDGET_BYTES
    if kind == "request":
        return REQUEST_BUDGET_BYTES
    if kind == "result":
        return LISTING_BUDGET_BYTES if message is None or not _shaped(message) else _UNBOUNDED
    return min(ERROR_BUDGET_BYTES, NOTIFICATION_BUDGET_BYTES)


def _shaped(message: dict[str, Any]) -> bool:
    """Whether a result is one the shaper held to its budget already (a tool result, a
    resource read, a prompt): those are never cut again here."""
    result = message.get("result")
    return isinstance(result, dict) and any(
        key in result for key in ("content", "contents", "messages", "structuredContent")
    )


#: Whether :func:`_bounded` cuts with a :class:`_Capper` (off: the plain :func:`_capped`, the
#: reference a differential test holds it to).
_FAST_CAPS = True

