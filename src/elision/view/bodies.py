"""A call's two bodies side by side: what the model saw, and the full body where it is kept.

Both are found in the store by the digests the audit entry binds (the auditor keeps them:
:mod:`elision.audit.stage`). Each is drawn as lines of spans, each span a piece of text and
what it is: ``elided`` (in the full body, not shown to the model), ``withheld`` (a value the
redaction rules replaced by a stub), ``envelope`` (elision's own account: the ``__elision__``
member, a text's header line and its markers). Templates escape every span; nothing here
writes markup.

Where the model's document and the full one are both JSON, what was elided is found by
walking them together: a member of the full body that the shown object lacks, an element
past the shown ones, the characters past a shown string's end. That marks exactly what the
model did not get, whatever rule cut it. A text is marked by the line ranges its header
says were shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import orjson

from elision.envelope import ENVELOPE_KEY, TEXT_HEADER_PREFIX, VALUE_KEY, quote_key
from elision.errors import ElisionError, IntegrityError
from elision.store.base import OWNER_SCOPE, Store
from elision.terminal import visible, visible_lines

__all__ = ["visible"]  # the one helper for others' text (elision.terminal), here for templates

#: A body larger than this is not drawn whole: the first part is, and the page says so.
DRAW_BYTES = 2 * 1024 * 1024
#: Lines drawn of one body at most.
DRAW_LINES = 20_000
#: What a span is; the stylesheet colours each.
ELIDED, WITHHELD, ENVELOPE, PLAIN = "elided", "withheld", "envelope", ""
_STUB = re.compile(r"\[(?:credential withheld: [A-Za-z0-9._-]+"
                   r"|credential-dense text withheld: [0-9,]+ bytes"  # the density bound's
                   r"|ref_[A-Za-z0-9_-]+\][^\n]*?elision_fetch_reference)\]?")
_PARTIAL = TEXT_HEADER_PREFIX + "partial:"
_PARTIALS = (_PARTIAL, '"' + _PARTIAL)  # a line of a text, a CSV's quoted notice row
_SHOWN_LINES = re.compile(r"lines ([0-9, and-]+?) of ([0-9,]+) shown")
_FETCH = re.compile(r"elision_fetch\((.*?)\)")
_ARG = re.compile(r'(ref|path|lines|bytes)=("(?:[^"\\]|\\.)*")')
Span = tuple[str, str]  # (text, kind)


@dataclass
class Drawn:
    """A body as lines of spans, and whether it was drawn whole."""

    lines: list[list[Span]] = field(default_factory=list)
    truncated: str = ""

    @property
    def first_elided(self) -> int | None:
        """The index of the first line with an elided span (a link jumps to it)."""
        for n, line in enumerate(self.lines):
            if any(k == ELIDED for _, k in line):
                return n
        return None

    def count(self, kind: str) -> int:
        return sum(1 for line in self.lines for _, k in line if k == kind)


@dataclass
class Side:
    """One side of the view: a body found (or not) by its digest."""

    sha256: str | None
    size: int | None
    ref: str | None = None
    body: bytes | None = None
    #: Why there is no body to show: never blank.
    missing: str = ""
    drawn: Drawn | None = None


@dataclass
class Account:
    """What the model was told about the cut: each trimmed node, each withheld value, the
    refs and the ``next`` calls (as links to their pages)."""

    elided: list[dict[str, Any]] = field(default_factory=list)
    withheld: list[dict[str, Any]] = field(default_factory=list)
    nexts: list[dict[str, str]] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    #: The header line of each text that was cut (``[elision] partial: lines … shown; …``):
    #: a text's cut has no ``elided`` entry, so without these it would count as none.
    texts: list[str] = field(default_factory=list)


def find_body(store: Store | None, sha256: str | None, size: int | None) -> Side:
    """The body of this digest from the store, or a side that says why it is not there."""
    side = Side(sha256, size)
    if sha256 is None:
        side.missing = "the entry names no digest for this body"
        return side
    if store is None:
        side.missing = ("no store was given to the viewer (--store), so no body can be "
                        "shown; the digest is what the log binds")
        return side
    problems: list[str] = []
    for ref in store.refs_for(sha256):
        try:
            side.body, side.ref = store.read(ref, scope=OWNER_SCOPE), ref
            return side
        except IntegrityError:
            problems.append(f"the copy under {ref} no longer matches its digest")
        except ElisionError:
            continue  # expired or evicted between the lookup and the read
    # Named, with the flag that picks another: a viewer started without the proxy's --store
    # reads the default one, where none of the proxy's bodies are.
    side.missing = "; ".join(problems) or (
        f"not in the store this viewer reads ({getattr(store, 'path', 'given')}): the "
        "store's retention (TTL or quota) let it go, it was never kept, or the proxy that "
        "logged it kept its bodies in another store (give that one as --store); the digest "
        "above is what the log binds"
    )
    return side


def account_of(shown: bytes) -> Account:
    """The model's account of the cut, read from what it was shown (every envelope and text
    header in it, a whole MCP result's blocks included)."""
    account = Account()
    text = shown.decode("utf-8", "replace")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = _MISSING
    for envelope in _envelopes(text, value):
        for key in ("elided", "withheld"):
            items = envelope.get(key)
            if isinstance(items, list):
                getattr(account, key).extend(i for i in items if isinstance(i, dict))
        ref = envelope.get("ref")
        if isinstance(ref, str) and ref not in account.refs:
            account.refs.append(ref)
        nxt = envelope.get("next")
        if isinstance(nxt, str):
            account.nexts.extend(parse_fetches(nxt))
    # A cut text's header: a line of its own (a text, a CSV's quoted notice row), or the
    # first line of a string in a JSON document (an MCP result's block, a hook's stdout).
    # A text has one, first (a CSV's after its header row), as _shown_ranges reads it.
    if _PARTIAL in text:
        if value is _MISSING:
            account.texts.extend(line.strip('"') for line in text.split("\n", 3)[:3]
                                 if line.startswith(_PARTIALS))
        else:
            account.texts.extend(_json_headers(value))
    for line in text.splitlines():
        if line.startswith(TEXT_HEADER_PREFIX):
            ref_match = re.search(r"ref=(el_[A-Za-z0-9_-]+)", line)
            if ref_match and ref_match.group(1) not in account.refs:
                account.refs.append(ref_match.group(1))
        if line.startswith("[…") or line.startswith("[...") or "elision_fetch(" in line:
            account.nexts.extend(f for f in parse_fetches(line) if f not in account.nexts)
    return account


def _json_headers(value: Any) -> Iterator[str]:
    """The first line of each string in ``value`` that is a cut text's header, in order."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.startswith(_PARTIAL):
                yield item.split("\n", 1)[0]
        elif isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _envelopes(text: str, value: Any = None) -> Iterator[dict[str, Any]]:
    """Every ``__elision__`` object in ``text``: its root, an NDJSON notice line, or the
    texts of an MCP result's blocks. ``value`` is ``text`` parsed, when the caller did
    (``_MISSING`` when it is not JSON)."""
    if value is None:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = _MISSING
    if value is _MISSING:
        first = text.split("\n", 1)[0]
        if first.startswith("{") and ENVELOPE_KEY in first:
            yield from _envelopes(first)
        return
    yield from _walk_envelopes(value, 0)


def _walk_envelopes(value: Any, depth: int) -> Iterator[dict[str, Any]]:
    if depth > 4:
        return
    if isinstance(value, dict):
        env = value.get(ENVELOPE_KEY)
        if isinstance(env, dict):
            yield env
        for key in ("content", "structuredContent"):
            if key in value:
                yield from _walk_envelopes(value[key], depth + 1)
        text = value.get("text")
        if value.get("type") == "text" and isinstance(text, str):
            yield from _envelopes(text)
    elif isinstance(value, list):
        for item in value[:64]:
            yield from _walk_envelopes(item, depth + 1)


def parse_fetches(text: str) -> list[dict[str, str]]:
    """The ``elision_fetch(...)`` calls in ``text`` as their arguments."""
    out: list[dict[str, str]] = []
    for call in _FETCH.finditer(text):
        args: dict[str, str] = {}
        for name, quoted in _ARG.findall(call.group(1)):
            try:
                args[name] = str(orjson.loads(quoted))
            except orjson.JSONDecodeError:
                continue
        if "ref" in args:
            out.append(args)
    return out


# -- drawing --


def draw_shown(shown: bytes) -> Drawn:
    """What the model saw, pretty-printed when it is JSON; the envelope and every stub
    marked."""
    text = shown.decode("utf-8", "replace")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _draw_text(text, None, set(), shown_side=True)
    told = {str(w["path"]) for env in _walk_envelopes(value, 0)
            for w in env.get("withheld") or () if isinstance(w, dict) and "path" in w}
    drawer = _JsonDrawer(withheld=told, stubs=True)
    drawer.value(value, "$", None, 0, key=None, last=True)
    return drawer.finish()


def draw_full(full: bytes, shown: bytes | None, *, raw: bool) -> tuple[Drawn, list[str]]:
    """The full body (its redacted view unless ``raw``), with what the model did not get
    marked: elided nodes and lines, and withheld values. Also the paths or lines withheld."""
    clip = len(full) > DRAW_BYTES
    text = full[:DRAW_BYTES].decode("utf-8", "replace") if clip else full.decode(
        "utf-8", "replace")
    shown_text = shown.decode("utf-8", "replace") if shown is not None else None
    value: Any = None
    is_json = False
    if not clip:
        with suppress(orjson.JSONDecodeError):
            value, is_json = orjson.loads(text), True
    if is_json:
        from elision.redact import redact_value

        redaction = redact_value(value, body=full)
        withheld = {str(w["path"]) for w in redaction.withheld if "path" in w}
        drawer = _JsonDrawer(withheld=withheld)
        shown_value = _shown_document(shown_text, value)
        drawer.value(value if raw else redaction.value, "$", shown_value, 0, key=None,
                     last=True, compare=shown_text is not None)
        drawn = drawer.finish()
        return drawn, sorted(withheld)
    from elision.redact import redact_text

    redaction = redact_text(text)
    lines = {int(w["line"]) for w in redaction.withheld if isinstance(w.get("line"), int)}
    drawn = _draw_text(text if raw else str(redaction.value), shown_text, lines,
                       shown_side=False, stubs=not raw)
    if clip:
        drawn.truncated = (f"the first {DRAW_BYTES:,} of {len(full):,} bytes are drawn here; "
                           "read the rest with elision fetch")
    return drawn, [f"line {n}" for n in sorted(lines)]


def _shown_document(shown: str | None, full: Any) -> Any:
    """The model's JSON document without elision's envelope, as the full one is laid out:
    ``_MISSING`` when the model saw no JSON (nothing can be compared)."""
    if shown is None:
        return _MISSING
    try:
        value = orjson.loads(shown)
    except orjson.JSONDecodeError:
        return _MISSING
    if isinstance(value, dict) and ENVELOPE_KEY in value:
        wrapped = not isinstance(full, dict) or ENVELOPE_KEY in full
        if wrapped and VALUE_KEY in value:
            return value[VALUE_KEY]
        return {k: v for k, v in value.items() if k != ENVELOPE_KEY}
    return value


_MISSING: Any = object()


class _JsonDrawer:
    """Pretty-prints a JSON value two spaces an indent, one span per token, marking what
    the shown document lacks (``elided``) and the withheld paths."""

    def __init__(self, withheld: set[str], *, stubs: bool = False) -> None:
        self.withheld = withheld
        #: Mark every string that is a stub (the model's side: stubs are what it got).
        self.stubs = stubs
        self.lines: list[list[Span]] = [[]]
        self.full = False

    def finish(self) -> Drawn:
        drawn = Drawn([line for line in self.lines if line])
        if self.full:
            drawn.truncated = f"the first {DRAW_LINES:,} lines are drawn here"
        return drawn

    def _emit(self, text: str, kind: str) -> None:
        self.lines[-1].append((visible_lines(text), kind))

    def _newline(self, depth: int) -> None:
        if len(self.lines) >= DRAW_LINES:
            self.full = True
            return
        self.lines.append([("  " * depth, PLAIN)])

    def value(self, value: Any, path: str, shown: Any, depth: int, *, key: str | None,
              last: bool, compare: bool = False, kind: str = PLAIN) -> None:
        if self.full:
            return
        if kind != ELIDED and (path in self.withheld or (
                self.stubs and isinstance(value, str) and _STUB.fullmatch(value))):
            kind = WITHHELD
        elif compare and shown is _MISSING and kind == PLAIN:
            kind = ELIDED
        if key is not None:
            # A withheld member's key was shown (its value is the stub); an elided one's not.
            self._emit(orjson.dumps(key).decode() + ": ", ENVELOPE if key == ENVELOPE_KEY
                       else PLAIN if kind == WITHHELD else kind)
        if key == ENVELOPE_KEY:
            kind = ENVELOPE
        comma = "" if last else ","
        if (isinstance(value, dict | list) and value and kind != ENVELOPE
                and (not compare or shown is _MISSING or shown == value)
                and not any(w.startswith(path) for w in self.withheld)):
            inline = _inline(value)
            if inline is not None:  # a small container whole: one line
                self._emit(inline, kind)
                if comma:
                    self._emit(comma, PLAIN)
                return
        if isinstance(value, dict) and value:
            self._emit("{", kind)
            items = list(value.items())
            for i, (k, v) in enumerate(items):
                self._newline(depth + 1)
                sub = shown.get(k, _MISSING) if isinstance(shown, dict) else _MISSING
                self.value(v, _child(path, k), sub, depth + 1, key=k,
                           last=i == len(items) - 1, compare=compare, kind=kind)
            self._newline(depth)
            self._emit("}" + comma, kind)
        elif isinstance(value, list) and value:
            self._emit("[", kind)
            for i, v in enumerate(value):
                self._newline(depth + 1)
                sub = shown[i] if isinstance(shown, list) and i < len(shown) else _MISSING
                self.value(v, f"{path}[{i}]", sub, depth + 1, key=None,
                           last=i == len(value) - 1, compare=compare, kind=kind)
            self._newline(depth)
            self._emit("]" + comma, kind)
        elif (compare and kind == PLAIN and isinstance(value, str)
              and isinstance(shown, str) and shown != value and value.startswith(shown)):
            # A string cut short: the shown characters, then the rest marked elided.
            whole = orjson.dumps(value).decode()
            head = orjson.dumps(shown).decode()[:-1]
            self._emit(head, kind)
            self._emit(whole[len(head):-1], ELIDED)
            self._emit('"' + comma, kind)
        else:
            self._emit(orjson.dumps(value).decode() if _plain_json(value) else repr(value),
                       kind)
            if comma:
                self._emit(comma, PLAIN)


#: A container whose compact JSON is this short is drawn on one line.
INLINE_CHARS = 100


def _inline(value: Any) -> str | None:
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        return None
    if len(text) > INLINE_CHARS:
        return None
    return text


def _plain_json(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | dict | list)


def _child(path: str, key: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    return f"{path}[{quote_key(key)}]"


def _draw_text(text: str, shown: str | None, withheld_lines: set[int], *,
               shown_side: bool, stubs: bool = False) -> Drawn:
    """A text line by line: on the model's side its header and markers are the envelope
    and stubs are withheld; on the full side the lines the header says were not shown are
    elided (or, with no header, the lines the model's text lacks). A line with a withheld
    value is marked at its stubs when it holds them (``stubs``: the redacted view), else
    whole (the raw view, where the value's place is not known)."""
    lines = text.splitlines() or [""]
    drawn = Drawn()
    shown_ranges = _shown_ranges(shown) if shown is not None else None
    shown_set = set(shown.splitlines()) if shown is not None and shown_ranges is None else None
    for n, line in enumerate(lines, start=1):
        if n > DRAW_LINES:
            drawn.truncated = f"the first {DRAW_LINES:,} of {len(lines):,} lines are drawn here"
            break
        if shown_side:  # its own lines: numbering them would read as the original's numbers
            drawn.lines.append(_stub_spans(line))
            continue
        number = (f"{n:>5} ", PLAIN)
        kind = PLAIN
        if (shown_ranges is not None and not any(a <= n <= b for a, b in shown_ranges)) or (
                shown_set is not None and line not in shown_set):
            kind = ELIDED
        if n in withheld_lines and stubs and _STUB.search(line):
            drawn.lines.append([number, *_split_stubs(line, kind)])
        else:
            drawn.lines.append([number, (visible_lines(line), WITHHELD if n in withheld_lines
                                         else kind)])
    return drawn


def _stub_spans(line: str) -> list[Span]:
    if line.startswith(TEXT_HEADER_PREFIX) or line.startswith(("[… ", "[... ")) or (
        line.startswith('"[elision] ')
    ):
        return [(visible_lines(line), ENVELOPE)]
    return _split_stubs(line, PLAIN)


def _split_stubs(line: str, rest: str) -> list[Span]:
    """A line as its stubs (withheld) and the text between them (of kind ``rest``)."""
    spans: list[Span] = []
    pos = 0
    for match in _STUB.finditer(line):
        if match.start() > pos:
            spans.append((visible_lines(line[pos:match.start()]), rest))
        spans.append((visible_lines(match.group()), WITHHELD))
        pos = match.end()
    if pos < len(line) or not spans:
        spans.append((visible_lines(line[pos:]), rest))
    return spans


def _shown_ranges(shown: str) -> list[tuple[int, int]] | None:
    """The line ranges a shaped text's header says were shown, or None with no header."""
    for line in shown.splitlines()[:3]:
        match = _SHOWN_LINES.search(line)
        if line.lstrip('"').startswith(TEXT_HEADER_PREFIX) and match:
            ranges: list[tuple[int, int]] = []
            for part in match.group(1).split(" and "):
                a, _, b = part.replace(",", "").partition("-")
                ranges.append((int(a), int(b or a)))
            return ranges
    return None


def pieces(full: bytes | None, shown: bytes) -> Sequence[tuple[str, bytes | None, bytes]]:
    """A call as the parts the model saw separately: ``(label, full, shown)``. A result of
    many blocks was audited as the JSON of the whole result; each text block is a part of
    its own, so that each is compared with its own cut."""
    if full is None:
        return [("result", None, shown)]
    try:
        f, s = orjson.loads(full), orjson.loads(shown)
    except orjson.JSONDecodeError:
        return [("result", full, shown)]
    if not (isinstance(f, dict) and isinstance(s, dict) and isinstance(f.get("content"), list)
            and isinstance(s.get("content"), list) and set(f) <= {
                "content", "structuredContent", "isError"}):
        return [("result", full, shown)]
    out: list[tuple[str, bytes | None, bytes]] = []
    for i, (fb, sb) in enumerate(zip(f["content"], s["content"], strict=False)):
        if isinstance(fb, dict) and isinstance(sb, dict) and fb.get("type") == "text":
            out.append((f"content[{i}]", str(fb.get("text", "")).encode(),
                        str(sb.get("text", "")).encode()))
        else:
            out.append((f"content[{i}]", orjson.dumps(fb), orjson.dumps(sb)))
    if "structuredContent" in f or "structuredContent" in s:
        out.append(("structuredContent", orjson.dumps(f.get("structuredContent")),
                    orjson.dumps(s.get("structuredContent"))))
    return out
