"""The walk over a parsed JSON value: iterative (10,000 levels deep is fine), never mutating.

Speed comes from not walking: the whole value, and then each run of :data:`RUN` siblings in a
large container, is serialized by orjson and pre-filtered as bytes; a run that cannot match
is shared with the input unchanged. Only the few runs that might hold a secret or a reference
lane are walked node by node in Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from elision.envelope import format_path
from elision.redact.references import LANE_TYPES, govern_lane
from elision.redact.rules import credential_stub, may_match_bytes
from elision.redact.scan import find_spans, redact_spans

#: Siblings pre-filtered together; a container with fewer children is walked directly.
RUN = 128
_LANE_MARKERS = (b'"uri"', b'"disposition"')
_KEY_CACHE_LIMIT = 4096

# A path is a linked list (parent, part) so a node 10,000 levels deep costs one tuple.
_Path = tuple[Any, Any] | None


@dataclass
class WalkResult:
    value: Any
    withheld: list[dict[str, Any]] = field(default_factory=list)
    references: dict[str, dict[str, Any]] = field(default_factory=dict)


def json_may_match(data: bytes) -> bool:
    """Whether serialized JSON might hold anything the redaction stage withholds."""
    return may_match_bytes(data) or any(m in data for m in _LANE_MARKERS)


def serialized(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, default=_fragment)
    except (orjson.JSONEncodeError, TypeError):
        return None  # too deep, a lone surrogate, or a foreign type: walk it instead


def _fragment(obj: Any) -> Any:
    raw = getattr(obj, "raw", None)
    if isinstance(raw, bytes):  # elision.shape.jsonparse.RawNumber, or anything shaped like it
        return orjson.Fragment(raw)
    raise TypeError


def clean(value: Any) -> bool:
    """True when ``value`` provably needs nothing withheld (a cheap, conservative test)."""
    data = serialized(value)
    return data is not None and not json_may_match(data)


class _Frame:
    __slots__ = ("changed", "index", "is_dict", "keys", "node", "out", "path")

    def __init__(self, node: Any, path: _Path) -> None:
        self.node = node
        self.path = path
        self.is_dict = isinstance(node, dict)
        self.keys: list[Any] = list(node) if self.is_dict else []
        self.index = 0
        self.out: list[Any] = []
        self.changed = False


class Walker:
    """One walk: collects withheld entries and reference records as it goes."""

    def __init__(self, *, root: str = "$", server: str | None = None) -> None:
        self.root = root
        self.server = server
        self.withheld: list[dict[str, Any]] = []
        self.references: dict[str, dict[str, Any]] = {}
        self._key_rule: dict[str, str | None] = {}

    def run(self, value: Any) -> Any:
        pending = object()
        stack: list[_Frame] = []
        result = self._enter(value, None, stack, pending)
        while stack:
            frame = stack[-1]
            size = len(frame.keys) if frame.is_dict else len(frame.node)
            if frame.index >= size:
                stack.pop()
                done = self._finish(frame)
                if not stack:
                    return done
                parent = stack[-1]
                self._deliver(parent, done, done is not frame.node)
                continue
            if size > RUN and frame.index % RUN == 0 and self._skip_run(frame, size):
                continue
            key = frame.keys[frame.index] if frame.is_dict else frame.index
            child = frame.node[key]
            got = self._enter(child, (frame.path, key), stack, pending)
            if got is not pending:
                self._deliver(frame, got, got is not child)
        return result

    def _skip_run(self, frame: _Frame, size: int) -> bool:
        stop = min(frame.index + RUN, size)
        if frame.is_dict:
            keys = frame.keys[frame.index:stop]
            run: Any = {k: frame.node[k] for k in keys}
            values = [frame.node[k] for k in keys]
        else:
            run = values = frame.node[frame.index:stop]
        if not clean(run):
            return False
        frame.out.extend(values)
        frame.index = stop
        return True

    @staticmethod
    def _deliver(frame: _Frame, value: Any, changed: bool) -> None:
        frame.out.append(value)
        frame.changed = frame.changed or changed
        frame.index += 1

    @staticmethod
    def _finish(frame: _Frame) -> Any:
        if not frame.changed:
            return frame.node
        if frame.is_dict:
            return dict(zip(frame.keys, frame.out, strict=True))
        return frame.out

    def _enter(self, node: Any, path: _Path, stack: list[_Frame], pending: object) -> Any:
        if isinstance(node, str):
            return self._string(node, path)
        if isinstance(node, dict):
            rule = self._bad_key(node)
            if rule is not None:
                # A key cannot become a stub without colliding or changing meaning, so the
                # object that holds it is withheld whole, as a string in its place.
                self._entry(path, (), rule, None)
                return credential_stub(rule)
            if node.get("type") in LANE_TYPES or "disposition" in node:
                outcome = govern_lane(node, server=self.server)
                if outcome is not None:
                    for rel, reason, stub_id in outcome.withheld:
                        self._entry(path, rel, reason, stub_id)
                    self.references.update(outcome.references)
                    frame = _Frame(outcome.record, path)
                    frame.changed = True
                    stack.append(frame)
                    return pending
            if node:
                stack.append(_Frame(node, path))
                return pending
            return node
        if isinstance(node, list) and node:
            stack.append(_Frame(node, path))
            return pending
        # Numbers, booleans and null hold no text any rule could match.
        return node

    def _string(self, text: str, path: _Path) -> str:
        new, spans = redact_spans(text)
        seen: set[str] = set()
        for span in spans:
            if span.rule not in seen:
                seen.add(span.rule)
                self._entry(path, (), span.rule, None)
        return new

    def _bad_key(self, node: dict[str, Any]) -> str | None:
        cache = self._key_rule
        for key in node:
            if not isinstance(key, str):
                continue
            if key in cache:
                rule = cache[key]
            else:
                spans = find_spans(key)
                rule = spans[0].rule if spans else None
                if len(cache) < _KEY_CACHE_LIMIT:
                    cache[key] = rule
            if rule is not None:
                return rule
        return None

    def _entry(self, path: _Path, rel: tuple[Any, ...], reason: str, stub_id: str | None) -> None:
        parts: list[Any] = []
        while path is not None:
            path, part = path
            parts.append(part)
        parts.reverse()
        parts.extend(rel)
        entry: dict[str, Any] = {"path": format_path(parts, root=self.root), "reason": reason}
        if stub_id is not None:
            entry["stub"] = stub_id
        self.withheld.append(entry)
