"""Goose's and Continue's YAML configs: a strict reader of the block subset they are written in,
with the span of every value (the edits are :mod:`elision.install.yamledit`'s).

There is no YAML library among elision's dependencies, and no library edits YAML in place
keeping comments and layout. Harness configs use a small part of YAML: block mappings and
sequences (Continue's ``- name: …`` items included), one-line plain and quoted scalars, one-line
flow collections (``args: ["-y", "x"]``, ``envs: {}``) and comments. That part is read here,
each value with its offsets, the way :mod:`elision.install.jsonc` reads JSON; anything else
(anchors and aliases, tags, ``|`` and ``>`` scalars, a scalar or flow collection over several
lines, several documents, tabs in indentation, a key appearing twice) is refused with its line
and column, because a file this reader does not understand is not one to rewrite. Plain scalars
resolve by YAML 1.2's core schema, which is what Goose (serde_yaml) and Continue (``yaml``) use.
"""

from __future__ import annotations

import math
import re
from typing import Any

from elision.errors import InputError
from elision.install.jsonc import Node


class Refused(InputError):
    """The file is outside the YAML subset the installer reads and edits in place."""


_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
#: characters that cannot start a plain scalar or key (YAML's indicators), besides - ? :
_INDICATORS = "[]{},#&*!|>'\"%@`"
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
            "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
            "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def resolve(plain: str) -> Any:
    """A plain scalar's value by YAML 1.2's core schema."""
    if plain in ("", "~", "null", "Null", "NULL"):
        return None
    if plain in ("true", "True", "TRUE"):
        return True
    if plain in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(plain):
        return int(plain)
    if re.fullmatch(r"0o[0-7]+", plain):
        return int(plain[2:], 8)
    if re.fullmatch(r"0x[0-9a-fA-F]+", plain):
        return int(plain[2:], 16)
    if _FLOAT.fullmatch(plain):
        return float(plain)
    if re.fullmatch(r"[-+]?\.(?:inf|Inf|INF)", plain):
        return -math.inf if plain.startswith("-") else math.inf
    if plain in (".nan", ".NaN", ".NAN"):
        return math.nan
    return plain


class _Reader:
    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.lines: list[tuple[int, int]] = []  # (start, end without the line break)
        offset = 0
        # YAML breaks lines at \n and \r only; str.splitlines would break at \x85 and
        # \u2028 too, which are characters of a scalar here
        for line in text.split("\n"):
            body = line.removesuffix("\r")
            self.lines.append((offset, offset + len(body)))
            offset += len(line) + 1
        if text.endswith("\n") or not text:
            self.lines.pop()

    def refuse(self, what: str, pos: int) -> Refused:
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return Refused(f"{self.where}:{line}:{column}: {what}, which elision does not edit "
                       "in place (it reads block mappings and sequences, one-line scalars and "
                       "one-line [ ] and { } only); nothing was changed")

    # -- lines -------------------------------------------------------------------------------

    def significant(self, i: int) -> bool:
        start, end = self.lines[i]
        body = self.text[start:end].lstrip(" \t")
        return bool(body) and not body.startswith("#")

    def next_line(self, i: int) -> int:
        """The first line from ``i`` that holds more than blanks and a comment."""
        while i < len(self.lines) and not self.significant(i):
            i += 1
        return i

    def indent(self, i: int) -> int:
        start, end = self.lines[i]
        body = self.text[start:end]
        stripped = body.lstrip(" ")
        if stripped.startswith("\t"):
            raise self.refuse("a tab in indentation", start + len(body) - len(stripped))
        return len(body) - len(stripped)

    # -- the document ------------------------------------------------------------------------

    def document(self) -> Node | None:
        if self.text.startswith("\ufeff"):
            raise self.refuse("a byte-order mark", 0)
        i = self.next_line(0)
        if i < len(self.lines) and self._line(i).startswith("%"):
            raise self.refuse("a directive", self.lines[i][0])
        if i < len(self.lines) and re.fullmatch(r"---(?:[ \t]+#.*)?[ \t]*", self._line(i)):
            i = self.next_line(i + 1)
        if i == len(self.lines):
            return None
        node, i = self.block(i, 0)
        i = self.next_line(i)
        if i < len(self.lines):
            raise self.refuse("more after the document's end (a second document, or a "
                              "line indented less than its block)", self.lines[i][0])
        return node

    def _line(self, i: int) -> str:
        start, end = self.lines[i]
        return self.text[start:end]

    def block(self, i: int, least: int) -> tuple[Node, int]:
        """The block node on line ``i`` (significant), indented at least ``least``."""
        col = self.indent(i)
        if col < least:
            raise self.refuse("a line indented less than its block", self.lines[i][0] + col)
        pos = self.lines[i][0] + col
        if self._dash(pos):
            return self.sequence(i, col, pos)
        if self._key(pos) is not None:
            return self.mapping(i, col, pos)
        node = self.inline(pos, self.lines[i][1])
        return node, self._after_inline(i + 1, col - 1)

    def _dash(self, pos: int) -> bool:
        return self.text.startswith("-", pos) and (
            pos + 1 >= len(self.text) or self.text[pos + 1] in " \t\r\n")

    def _key(self, pos: int) -> tuple[str, int] | None:
        """The key starting at ``pos`` and where its value starts, if a key starts there."""
        line_end = self.text.find("\n", pos)
        line_end = len(self.text) if line_end < 0 else line_end
        rest = self.text[pos:line_end].rstrip("\r")
        if not rest:
            return None
        if rest[:1] in ('"', "'"):
            quoted, after = self.quoted(pos, pos + len(rest))
            match = re.match(r"[ \t]*:(?=[ \t]|$)", self.text[after:pos + len(rest)])
            if match is None:
                return None
            return str(quoted.scalar), after + match.end()
        if rest[:1] in _INDICATORS + "?:" or (rest[:1] == "-" and rest[1:2] in " \t"):
            if rest[:1] in "&*!":
                raise self.refuse("an anchor, alias or tag", pos)
            return None
        match = re.match(r"([^#\n]*?)[ \t]*:(?=[ \t]|$)", rest)
        if match is None or ": " in match[1] or " #" in match[1]:
            return None
        return match[1], pos + match.end()

    def mapping(self, i: int, col: int, pos: int) -> tuple[Node, int]:
        node = Node("object", pos, pos)
        while True:
            key = self._key(pos)
            if key is None and re.match(r"(?:---|\.\.\.)(?:\s|$)", self.text[pos:pos + 4]):
                raise self.refuse("a second document (--- or ...)", pos)
            if key is None:
                raise self.refuse("a line that is neither a key nor a list item", pos)
            name, at = key
            if node.get(name) is not None:
                raise self.refuse(f"the key {name!r} appearing twice", pos)
            value, i = self.member_value(i, col, at)
            node.members.append((name, pos, value))
            node.end = value.end
            i = self.next_line(i)
            if i == len(self.lines) or self.indent(i) < col:
                return node, i
            pos = self.lines[i][0] + self.indent(i)
            if self.indent(i) > col or self._dash(pos):
                raise self.refuse("a line indented unlike the keys of its mapping", pos)

    def member_value(self, i: int, col: int, at: int) -> tuple[Node, int]:
        """The value after a key's ``:`` at ``at`` (on line ``i``), inline or the block below."""
        end = self.lines[i][1]
        pos = at + len(self.text[at:end]) - len(self.text[at:end].lstrip(" \t"))
        if pos < end and self.text[pos] != "#":
            return self.inline(pos, end), self._after_inline(i + 1, col)
        j = self.next_line(i + 1)
        if j < len(self.lines):
            below = self.indent(j)
            first = self.lines[j][0] + below
            if below > col or (below == col and self._dash(first)):
                return self.block(j, col)
        return Node("scalar", at, at), i + 1

    def sequence(self, i: int, col: int, pos: int) -> tuple[Node, int]:
        node = Node("array", pos, pos)
        while True:
            end = self.lines[i][1]
            rest = pos + 1 + len(self.text[pos + 1:end]) - len(self.text[pos + 1:end].lstrip(" \t"))
            if rest >= end or self.text[rest] == "#":  # the item is the block below, or null
                j = self.next_line(i + 1)
                if j < len(self.lines) and self.indent(j) > col:
                    item, i = self.block(j, col + 1)
                else:
                    item, i = Node("scalar", pos + 1, pos + 1), i + 1
            elif self._dash(rest):
                item, i = self.sequence(i, rest - self.lines[i][0], rest)
            elif self._key(rest) is not None:
                item, i = self.mapping(i, rest - self.lines[i][0], rest)
            else:
                item, i = self.inline(rest, end), self._after_inline(i + 1, col)
            node.items.append(item)
            node.end = item.end
            i = self.next_line(i)
            if i == len(self.lines) or self.indent(i) < col:
                return node, i
            pos = self.lines[i][0] + self.indent(i)
            if self.indent(i) > col:
                raise self.refuse("a line indented unlike the items of its list", pos)
            if not self._dash(pos):  # the next key of the mapping this list is the value of
                return node, i

    def _after_inline(self, i: int, col: int) -> int:
        """After a one-line value, the next content must not be indented under it."""
        j = self.next_line(i)
        if j < len(self.lines) and self.indent(j) > col:
            raise self.refuse("a value that goes on over several lines",
                              self.lines[j][0] + self.indent(j))
        return i

    # -- one-line values ---------------------------------------------------------------------

    def inline(self, pos: int, end: int) -> Node:
        """A scalar or flow collection from ``pos`` to the line's end (a comment allowed)."""
        ch = self.text[pos]
        if ch in "&*!":
            raise self.refuse("an anchor, alias or tag", pos)
        if ch in "|>":
            raise self.refuse("a multi-line (| or >) scalar", pos)
        if ch in "[{":
            node, after = self.flow(pos, end)
        elif ch in "\"'":
            node, after = self.quoted(pos, end)
        else:
            if ch in "@`" or (ch in "-?:" and self.text[pos + 1:pos + 2] in ("", " ", "\t")):
                raise self.refuse(f"a value starting with {ch!r}", pos)
            match = re.match(r"(?:[^#\n]|(?<![ \t])#)*", self.text[pos:end])
            raw = match[0].rstrip(" \t") if match else ""
            if re.search(r":(?:[ \t]|$)", raw):
                raise self.refuse("a mapping written on one line", pos)
            return Node("scalar", pos, pos + len(raw), scalar=resolve(raw))
        tail = self.text[after:end]
        if tail.strip(" \t") and not re.match(r"[ \t]+#", tail):
            raise self.refuse("more after a value on its line", after)
        return node

    def quoted(self, pos: int, end: int) -> tuple[Node, int]:
        quote = self.text[pos]
        out: list[str] = []
        i = pos + 1
        while i < end:
            ch = self.text[i]
            if ch == quote:
                if quote == "'" and self.text[i + 1:i + 2] == "'":
                    out.append("'")
                    i += 2
                    continue
                return Node("scalar", pos, i + 1, scalar="".join(out)), i + 1
            if ch == "\\" and quote == '"':
                i = self._escape(i, end, out)
                continue
            out.append(ch)
            i += 1
        raise self.refuse("a quoted scalar that goes on over several lines", pos)

    def _escape(self, i: int, end: int, out: list[str]) -> int:
        code = self.text[i + 1:i + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            return i + 2
        width = _HEX.get(code, 0)
        digits = self.text[i + 2:i + 2 + width]
        if width and len(digits) == width and re.fullmatch(r"[0-9a-fA-F]+", digits) and (
                i + 2 + width <= end):
            value = int(digits, 16)
            if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                raise self.refuse("an escape that is not a character", i)
            out.append(chr(value))
            return i + 2 + width
        raise self.refuse("an unknown escape in a double-quoted scalar", i)

    def flow(self, pos: int, end: int) -> tuple[Node, int]:
        """A ``[…]`` or ``{…}`` closed on its own line."""
        opening = self.text[pos]
        closing = "]" if opening == "[" else "}"
        node = Node("array" if opening == "[" else "object", pos, pos, flow=True)
        i = self._skip(pos + 1, end)
        while i < end and self.text[i] != closing:
            if opening == "{":
                if self.text[i] in "\"'":
                    key_node, i = self.quoted(i, end)
                    name = str(key_node.scalar)
                else:
                    match = re.match(r"[^,:\[\]{}#\s][^,:\[\]{}#]*?(?=[ \t]*:)", self.text[i:end])
                    if match is None:
                        raise self.refuse("a { } member that is not key: value", i)
                    name, i = match[0], i + match.end()
                i = self._skip(i, end)
                if not self.text.startswith(":", i):
                    raise self.refuse("a { } member that is not key: value", i)
                if node.get(name) is not None:
                    raise self.refuse(f"the key {name!r} appearing twice", i)
                key_at, i = i, self._skip(i + 1, end)
                value, i = self._flow_value(i, end)
                node.members.append((name, key_at, value))
            else:
                value, i = self._flow_value(i, end)
                node.items.append(value)
            i = self._skip(i, end)
            if i < end and self.text[i] == ",":
                i = self._skip(i + 1, end)
            elif i < end and self.text[i] != closing:
                raise self.refuse(f"a {opening} {closing} with something other than a comma "
                                  "between its values", i)
        if i >= end:
            raise self.refuse(f"a {opening} {closing} that goes on over several lines", pos)
        node.end = i + 1
        return node, i + 1

    def _skip(self, i: int, end: int) -> int:
        while i < end and self.text[i] in " \t":
            i += 1
        return i

    def _flow_value(self, i: int, end: int) -> tuple[Node, int]:
        if i >= end:
            raise self.refuse("a [ ] or { } that goes on over several lines", i)
        ch = self.text[i]
        if ch in "[{":
            return self.flow(i, end)
        if ch in "\"'":
            return self.quoted(i, end)
        if ch in "&*!":
            raise self.refuse("an anchor, alias or tag", i)
        match = re.match(r"[^,\[\]{}#\s](?:[^,\[\]{}:#]|:(?![ \t,\]}])|(?<![ \t])#)*",
                         self.text[i:end])
        if match is None or match[0][:1] in "|>@`" or (
                match[0][:1] in "-?:" and match[0][1:2] in ("", " ")):
            raise self.refuse("a value in [ ] or { } outside the subset", i)
        raw = match[0].rstrip(" \t")
        return Node("scalar", i, i + len(raw), scalar=resolve(raw)), i + len(raw)


def parse(text: str, where: str) -> Node | None:
    """The document's root node (``None`` for an empty file), or :class:`Refused`."""
    return _Reader(text, where).document()


def load(text: str, where: str) -> Any:
    root = parse(text, where)
    return {} if root is None else root.value()
