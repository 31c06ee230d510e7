"""JSON config files read with the position of every value, so an edit touches only its span.

Harness configs are JSON, and VS Code's are JSONC (``//`` and ``/* */`` comments, trailing
commas). To rewrite one server entry and keep everything else in the file byte for byte
(comments, key order, indentation), the installer needs where each value starts and ends, which
``json`` does not give. This reader gives a tree of :class:`Node` with offsets into the text,
and refuses what a strict reader would refuse (with the line and column), plus duplicate keys:
a config whose member means two things is not one to edit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from elision.errors import InputError

_WS = " \t\r\n\ufeff"


@dataclass
class Node:
    """One value: its kind, its span ``text[start:end]``, and its members or items.

    :mod:`elision.install.yamlcfg` reads YAML into the same nodes, so one walk finds server
    entries in both.
    """

    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    #: object members in file order: (key, offset of the key (its opening quote), value)
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)
    scalar: Any = None
    #: YAML only: written as a one-line ``[…]`` or ``{…}`` rather than as block lines
    flow: bool = False

    def get(self, key: str) -> Node | None:
        for name, _, value in self.members:
            if name == key:
                return value
        return None

    def value(self) -> Any:
        """The plain Python value (comments and trailing commas gone)."""
        if self.kind == "object":
            return {name: node.value() for name, _, node in self.members}
        if self.kind == "array":
            return [node.value() for node in self.items]
        return self.scalar


class _Reader:
    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.pos = 0

    def fail(self, what: str, pos: int | None = None) -> InputError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return InputError(f"{self.where} is not valid JSON at line {line}, column {column}: "
                          f"{what}; fix the file (nothing was changed)")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WS:
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("a /* comment is never closed")
                self.pos = end + 2
            else:
                return

    def node(self, depth: int = 0) -> Node:
        if depth > 64:
            raise self.fail("nested deeper than a config file should be")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("the text ends where a value should be")
        ch = self.text[self.pos]
        if ch == "{":
            return self._object(depth)
        if ch == "[":
            return self._array(depth)
        return self._scalar()

    def _object(self, depth: int) -> Node:
        node = Node("object", self.pos, self.pos)
        self.pos += 1
        seen: set[str] = set()
        while True:
            self.skip()
            if self._peek("}"):
                break
            if self.text[self.pos:self.pos + 1] != '"':
                raise self.fail("expected a quoted key")
            key_at = self.pos
            key = self._string()
            if key in seen:
                raise self.fail(f"the key {key!r} appears twice in one object", key_at)
            seen.add(key)
            self.skip()
            if not self._peek(":"):
                raise self.fail("expected ':' after a key")
            self.pos += 1
            node.members.append((key, key_at, self.node(depth + 1)))
            self.skip()
            if self._peek(","):
                self.pos += 1
                continue
            if not self._peek("}"):
                raise self.fail("expected ',' or '}'")
        self.pos += 1
        node.end = self.pos
        return node

    def _array(self, depth: int) -> Node:
        node = Node("array", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self._peek("]"):
                break
            node.items.append(self.node(depth + 1))
            self.skip()
            if self._peek(","):
                self.pos += 1
                continue
            if not self._peek("]"):
                raise self.fail("expected ',' or ']'")
        self.pos += 1
        node.end = self.pos
        return node

    def _scalar(self) -> Node:
        start = self.pos
        if self.text[start] == '"':
            value: Any = self._string()
        else:
            end = start
            while end < len(self.text) and self.text[end] not in _WS + ",]}/":
                end += 1
            token = self.text[start:end]
            try:
                value = json.loads(token, parse_constant=self._no_constant)
            except ValueError:
                raise self.fail(f"{token[:20]!r} is not a JSON value") from None
            self.pos = end
        return Node("scalar", start, self.pos, scalar=value)

    def _no_constant(self, name: str) -> Any:
        raise ValueError(name)

    def _string(self) -> str:
        start = self.pos
        end = start + 1
        text = self.text
        while True:
            end = text.find('"', end)
            if end < 0:
                raise self.fail("a string is never closed", start)
            backslashes = 0
            while text[end - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                break
            end += 1
        raw = text[start:end + 1]
        try:
            value = json.loads(raw)
        except ValueError:
            raise self.fail("a string holds an invalid escape or a control character",
                            start) from None
        assert isinstance(value, str)
        self.pos = end + 1
        return value

    def _peek(self, ch: str) -> bool:
        return self.text[self.pos:self.pos + 1] == ch


def parse(text: str, where: str) -> Node:
    """The tree of ``text``, a JSON or JSONC document; :class:`InputError` names the spot."""
    reader = _Reader(text, where)
    root = reader.node()
    reader.skip()
    if reader.pos != len(text):
        raise reader.fail("text after the end of the document")
    return root


def line_indent(text: str, offset: int) -> str:
    """The whitespace that opens the line ``offset`` is on."""
    line_start = text.rfind("\n", 0, offset) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


def indent_unit(text: str) -> str:
    """The file's indentation step (the first indented line's), two spaces if none."""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def render(value: Any, *, base: str, unit: str, inline: bool = False) -> str:
    """``value`` as JSON laid out like the file: ``unit`` a level, continuation lines at ``base``.

    Arrays of scalars stay on one line, as people write ``args``; ``inline`` puts it all on one.
    """
    if inline:
        return json.dumps(value, ensure_ascii=False)
    return _render(value, base, unit)


def _render(value: Any, base: str, unit: str) -> str:
    if isinstance(value, dict) and value:
        inner = base + unit
        parts = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_render(v, inner, unit)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + "\n" + base + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        inner = base + unit
        return ("[\n" + ",\n".join(inner + _render(v, inner, unit) for v in value)
                + "\n" + base + "]")
    return json.dumps(value, ensure_ascii=False)
