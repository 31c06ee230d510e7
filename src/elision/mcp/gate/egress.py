"""The egress gate: every message from an upstream to an agent passes here, whole.

Governing the fields one was taught, one at a time, loses every race with the protocol: its
messages grow members each release (``_meta``, ``annotations``, ``resultType``, task and
extension fields). So the gate walks the whole JSON-RPC message as it goes onto the wire, on
both transports (:class:`GatedLines` for stdio, :func:`gated_app` for ``--listen``) and in both
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
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from elision.shape.jsondump import dumps_value

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

#: What a cut string ends with: how much of it was shown.
_CUT = " … [elision: cut, shown {shown:,} of {total:,} chars]"
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
        return _bounded(out, _bound(kind, out))

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
        size = len(_dumps(message))
        if size <= ERROR_BUDGET_BYTES:
            return message
        error = message.get("error")
        error = error if isinstance(error, dict) else {}
        text = str(error.get("message", ""))
        if "data" in error:
            text += "\n\ndata: " + _dumps(error["data"]).decode()
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


def _dumps(value: Any) -> bytes:
    """The JSON bytes of ``value``: orjson's, or past its 255 levels the same bytes written by
    :func:`elision.shape.jsondump.dumps_value` (an upstream may nest deeper: elision reads
    JSON to 10,000 levels, and a message it could not measure was withheld whole as a gate
    failure)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        # A lone surrogate, which orjson refuses too, is refused there: withheld, as it was.
        return dumps_value(value)


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


# -- paths ----------------------------------------------------------------------------------


def _pop(node: Any, path: tuple[str, ...], *, copy: bool) -> tuple[bool, Any]:
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    if not isinstance(node, dict) or path[-1] not in node:
        return False, None
    if copy:
        return True, node[path[-1]]
    return True, node.pop(path[-1])


def _shallow(message: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``message`` with the dicts along ``path`` copied, so popping from it leaves the
    original whole."""
    top = dict(message)
    node = top
    for key in path[:-1]:
        inner = node.get(key)
        if not isinstance(inner, dict):
            break
        node[key] = dict(inner)
        node = node[key]
    return top


def _put(node: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(node)
    if len(path) == 1:
        out[path[0]] = value
        return out
    inner = out.get(path[0])
    out[path[0]] = _put(inner if isinstance(inner, dict) else {}, path[1:], value)
    return out


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
        return LISTING_BUDGET_BYTES if message is None or not _shaped(message) else 1 << 62
    return min(ERROR_BUDGET_BYTES, NOTIFICATION_BUDGET_BYTES)


def _shaped(message: dict[str, Any]) -> bool:
    """Whether a result is one the shaper held to its budget already (a tool result, a
    resource read, a prompt): those are never cut again here."""
    result = message.get("result")
    return isinstance(result, dict) and any(
        key in result for key in ("content", "contents", "messages", "structuredContent")
    )


def _bounded(message: dict[str, Any], bound: int) -> dict[str, Any]:
    """``message`` within ``bound`` bytes of JSON: its longest strings cut, each saying how
    much of it was shown; past that, every container but the exempt members summarized."""
    if len(_dumps(message)) <= bound:
        return message
    held = {path: _pop(message, path, copy=True) for path in EXEMPT}
    capper = _Capper(message) if _FAST_CAPS else None
    lo, hi = 0, capper.longest if capper is not None else _longest(message)
    best: dict[str, Any] | None = None
    while lo <= hi:  # the largest cap on every string that fits
        cap = (lo + hi) // 2
        tried = capper.capped(message, cap) if capper is not None else _capped(message, cap)
        for path, (found, value) in held.items():
            if found:
                tried = _put(tried, path, value)
        if len(_dumps(tried)) <= bound:
            best, lo = tried, cap + 1
        else:
            hi = cap - 1
    if best is not None:
        return best
    return _summarized(message, bound)


#: Whether :func:`_bounded` cuts with a :class:`_Capper` (off: the plain :func:`_capped`, the
#: reference a differential test holds it to).
_FAST_CAPS = True


def _longest(value: Any, longest: dict[int, int] | None = None) -> int:
    """The length of the longest string (key or value) in ``value``; each container's, by
    its id, in ``longest`` when given."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        most = max((max(len(k), _longest(v, longest)) for k, v in value.items()), default=0)
    elif isinstance(value, list):
        most = max((_longest(v, longest) for v in value), default=0)
    else:
        return 0
    if longest is not None:
        longest[id(value)] = most
    return most


def _capped(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return _cut(value, cap) if len(value) > cap else value
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        keys = max(cap, KEY_FLOOR)
        for k, v in value.items():
            out[_distinct(out, _cut(k, keys) if len(k) > keys else k)] = _capped(v, cap)
        return out
    if isinstance(value, list):
        return [_capped(v, cap) for v in value]
    return value


#: The fewest chars a cut key keeps: the protocol's own names (``jsonrpc``, ``params``,
#: ``_meta``, ``progressToken``) are never cut, so a message stays one its client reads; a
#: message that only cutting them would fit is summarized instead (:func:`_summarized`).
KEY_FLOOR = 64
#: What follows a key that another of its object's, cut alike or written so, took first.
_ALIKE = " [elision: key {n} cut alike]"


def _distinct(out: dict[Any, Any], key: Any) -> Any:
    """``key``, or, where ``out`` holds it already (two keys cut to the same first chars:
    ``…/k10`` and ``…/k11`` at 14 chars), it marked as the n-th such key: the member is
    shown, not silently replaced by the next."""
    if key not in out:
        return key
    n = 2
    while (again := key + _ALIKE.format(n=n)) in out:
        n += 1
    return again


class _Capper:
    """:func:`_capped` of one message at each cap of the bound's search, for less: a container
    whose strings are all within the cap is the message's own (each container's longest
    string is found once, by its id), and a cut's tail is written once a length, not once a
    string. A notification of 47,000 short ``_meta`` keys was cut whole at each cap, a
    ``str.format`` and a few calls a key: 115-175x the time of prose (issue 23)."""

    def __init__(self, message: Any) -> None:
        self._longest: dict[int, int] = {}
        self.longest = _longest(message, self._longest)

    def capped(self, value: Any, cap: int) -> Any:
        longest = self._longest
        tails: dict[int, str] = {}

        keys = max(cap, KEY_FLOOR)

        def cut(text: str) -> str:
            tail = tails.get(len(text))
            if tail is None:
                tail = tails[len(text)] = _CUT.format(shown=cap, total=len(text))
            return text[:cap] + tail

        def walk(node: Any) -> Any:
            if longest.get(id(node), cap + 1) <= cap:
                return node
            items = node.items() if isinstance(node, dict) else enumerate(node)
            out: dict[Any, Any] = {}
            for key, item in items:
                if isinstance(key, str) and len(key) > keys:
                    # Two keys cut alike stay two members.
                    key = _distinct(out, _cut(key, keys) if keys > cap else cut(key))
                elif key in out:
                    key = _distinct(out, key)
                if isinstance(item, str):
                    if len(item) > cap:
                        item = cut(item)
                elif isinstance(item, dict | list):
                    item = walk(item)
                out[key] = item
            return out if isinstance(node, dict) else list(out.values())

        if isinstance(value, str):
            return cut(value) if len(value) > cap else value
        return walk(value) if isinstance(value, dict | list) else value


def _cut(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    return text[:chars] + _CUT.format(shown=chars, total=len(text))


def _summarized(message: dict[str, Any], bound: int) -> dict[str, Any]:
    """The last resort of :func:`_bounded` (a message of thousands of small members): each
    member of its payload that is a container becomes a sentence saying how big it was."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        if key in ("params", "result") and isinstance(value, dict):
            out[key] = {
                k: (v if not isinstance(v, dict | list) else (
                    f"[elision: withheld, {len(_dumps(v)):,} bytes of JSON, over the "
                    f"{bound:,}-byte bound of this message]"
                )) for k, v in value.items()
            }
            out[key] = _capped(out[key], 256)
        else:
            out[key] = value
    return out


# -- seams between text blocks --------------------------------------------------------------

#: How far either side of a seam between two text blocks a split credential is looked for.
SEAM_CHARS = 1024


def redact_seams(texts: list[str | None]) -> list[str | None]:
    """``texts`` (adjacent content blocks' texts; ``None`` for a block that is not text) with
    every credential that a seam between two adjacent texts splits withheld on both sides.

    A client that joins the blocks would read the halves as one token, though neither half
    alone matches a rule. The last :data:`SEAM_CHARS` of one text and the first of the next
    are read together; a span that crosses the seam is replaced by its stub in the first text
    (from where it starts) and its rest is taken out of the second.
    """
    from elision.redact.rules import credential_stub
    from elision.redact.scan import find_spans

    out = list(texts)
    for i in range(len(out) - 1):
        left, right = out[i], out[i + 1]
        if not left or not right:
            continue
        tail, head = left[-SEAM_CHARS:], right[:SEAM_CHARS]
        spans = [s for s in find_spans(tail + head) if s.start < len(tail) < s.end]
        if not spans:
            continue
        start = min(s.start for s in spans)
        end = max(s.end for s in spans)
        stub = credential_stub(spans[0].rule)
        out[i] = left[: len(left) - len(tail) + start] + stub
        out[i + 1] = stub + right[end - len(tail):]
    return out


def _seamed_content(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with :func:`redact_seams` applied to a result's ``content`` blocks."""
    result = message.get("result")
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list) or len(content) < 2:
        return message
    texts = [
        b.get("text") if isinstance(b, dict) and isinstance(b.get("text"), str) else None
        for b in content
    ]
    seamed = redact_seams(texts)
    if seamed == texts:
        return message
    blocks = [
        dict(b, text=t) if t is not None and t != old else b
        for b, t, old in zip(content, seamed, texts, strict=True)
    ]
    assert isinstance(result, dict)
    return {**message, "result": {**result, "content": blocks}}


# -- transports -----------------------------------------------------------------------------


def kind_of_model(message: Any) -> str | None:
    """The kind of a typed JSON-RPC message (its class), without serializing it."""
    name = type(message).__name__
    return {
        "JSONRPCResponse": "result", "JSONRPCError": "error",
        "JSONRPCNotification": "notification", "JSONRPCRequest": "request",
    }.get(name)


class GatedStream:
    """A write stream of the SDK's (``SessionMessage`` in) whose messages pass the gate: for
    the SDK's own stdio transport, which serializes them itself."""

    def __init__(self, inner: Any, gate: Egress, scope: str | None) -> None:
        self._inner = inner
        self._gate = gate
        self._scope = scope

    async def send(self, item: Any, /) -> None:
        from mcp.shared.message import SessionMessage
        from mcp_types.jsonrpc import jsonrpc_message_adapter

        message = item.message
        data = message.model_dump_json(by_alias=True, exclude_unset=True).encode(
            "utf-8", "replace"
        )
        gated = self._gate.gate_bytes(data, kind_of_model(message), self._scope)
        if not gated:
            return  # withheld whole
        if gated is not data:
            item = SessionMessage(
                message=jsonrpc_message_adapter.validate_json(gated), metadata=item.metadata
            )
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> GatedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


Scope = Callable[[MutableMapping[str, Any]], str | None]
ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]


def gated_app(app: ASGIApp, gate: Egress, scope_of: Scope) -> ASGIApp:
    """An ASGI app that sends every JSON-RPC message ``app`` answers with through ``gate``:
    a JSON body whole, an SSE stream event by event (both protocol eras' forms)."""

    async def gated(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        client = scope_of(scope)
        sender = _GatedSend(send, gate, client)
        await app(scope, receive, sender)
        await sender.flush()

    return gated


class _GatedSend:
    """One HTTP response, its messages gated on their way out."""

    def __init__(self, send: Any, gate: Egress, scope: str | None) -> None:
        self._send = send
        self._gate = gate
        self._scope = scope
        self._start: dict[str, Any] | None = None
        self._mode = "pass"
        self._body = bytearray()

    async def __call__(self, message: MutableMapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "http.response.start":
            headers = list(message.get("headers") or [])
            ctype = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            if ctype.startswith(b"application/json"):
                self._mode, self._start = "json", dict(message)
                return
            if ctype.startswith(b"text/event-stream"):
                self._mode = "sse"
            await self._send(message)
            return
        if kind != "http.response.body" or self._mode == "pass":
            await self._send(message)
            return
        self._body += message.get("body", b"")
        more = bool(message.get("more_body", False))
        if self._mode == "json":
            if more:
                return
            await self._send_json()
            return
        out = self._sse_events(final=not more)
        if out or not more:
            await self._send({"type": "http.response.body", "body": out, "more_body": more})

    async def _send_json(self) -> None:
        body = bytes(self._body)
        self._body.clear()
        gated = self._gate.gate_bytes(body, None, self._scope) if body.strip() else body
        start = self._start or {"type": "http.response.start", "status": 200, "headers": []}
        self._start = None
        headers = [
            (k, str(len(gated)).encode() if k.lower() == b"content-length" else v)
            for k, v in start.get("headers") or []
        ]
        await self._send({**start, "headers": headers})
        await self._send({"type": "http.response.body", "body": gated, "more_body": False})

    def _sse_events(self, *, final: bool) -> bytes:
        data = bytes(self._body)
        out = bytearray()
        pos = 0
        while True:
            end, sep = _event_end(data, pos)
            if end < 0:
                break
            out += self._event(data[pos:end]) + sep
            pos = end + len(sep)
        rest = data[pos:]
        self._body = bytearray(rest)
        if final and rest:
            out += self._event(rest)
            self._body.clear()
        return bytes(out)

    def _event(self, event: bytes) -> bytes:
        lines = event.splitlines()
        data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
        if not data:
            return event
        payload = b"\n".join(data)
        gated = self._gate.gate_bytes(payload, None, self._scope)
        if gated is payload:
            return event
        if not gated:
            return b": withheld"  # an SSE comment: the event is withheld whole
        kept = [line for line in lines if not line.startswith(b"data:")]
        newline = b"\r\n" if b"\r\n" in event else b"\n"
        return newline.join([*kept, b"data: " + gated])

    async def flush(self) -> None:
        if self._mode == "json" and self._start is not None:
            await self._send_json()


def _event_end(data: bytes, pos: int) -> tuple[int, bytes]:
    found = [(i, sep) for sep in (b"\r\n\r\n", b"\n\n") if (i := data.find(sep, pos)) >= 0]
    return min(found) if found else (-1, b"")
