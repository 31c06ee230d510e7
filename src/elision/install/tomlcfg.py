"""Codex's ``config.toml``: find each ``[mcp_servers.NAME]`` table and edit it in place.

Only the lines that change are touched (``command``, ``args``, a ``url`` turned into a command);
comments, other keys, subtables such as ``[mcp_servers.NAME.env]`` and the rest of the file stay
byte for byte. A server written another way (an inline table, dotted keys) is reported and left
alone rather than rewritten by guesswork. Every edit is checked by reading the result back with
:mod:`tomllib`.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from elision.errors import InputError

_HEADER = re.compile(r"^[ \t]*\[(?!\[)(?P<key>[^\]\n]*(?:\][^\]\n]*)*?)\][ \t]*(?:#.*)?$",
                     re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """A server's table: ``main`` is its own lines, ``span`` adds the subtables after it."""

    name: str
    header_start: int
    main_end: int
    span_end: int


def load(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where} is not valid TOML ({exc}); fix the file (nothing was "
                         "changed)") from None


def _key_parts(raw: str) -> list[str] | None:
    parts: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        while i < n and raw[i] in " \t":
            i += 1
        if i < n and raw[i] == '"':
            end = i + 1
            while end < n and (raw[end] != '"' or raw[end - 1] == "\\"):
                end += 1
            try:
                parts.append(json.loads(raw[i:end + 1]))
            except ValueError:
                return None
            i = end + 1
        elif i < n and raw[i] == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                return None
            parts.append(raw[i + 1:end])
            i = end + 1
        else:
            end = i
            while end < n and raw[end] not in ". \t":
                end += 1
            parts.append(raw[i:end])
            i = end
        while i < n and raw[i] in " \t":
            i += 1
        if i < n:
            if raw[i] != ".":
                return None
            i += 1
    return parts


def _headers(text: str) -> list[tuple[int, list[str] | None]]:
    """(offset of the line, key parts) for every table header outside multi-line strings."""
    out: list[tuple[int, list[str] | None]] = []
    in_string: str | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        if in_string is None:
            match = _HEADER.match(line.rstrip("\r\n"))
            if match:
                out.append((offset, _key_parts(match["key"])))
        for quote in ('"""', "'''"):
            if in_string in (None, quote) and line.count(quote) % 2 == 1:
                in_string = quote if in_string is None else None
        offset += len(line)
    return out


def blocks(text: str, container: str = "mcp_servers") -> dict[str, Block]:
    headers = _headers(text)
    found: dict[str, Block] = {}
    for i, (start, parts) in enumerate(headers):
        if not parts or len(parts) != 2 or parts[0] != container:
            continue
        name = parts[1]
        main_end = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        j = i + 1
        while j < len(headers) and (headers[j][1] or [])[:2] == [container, name]:
            j += 1
        span_end = headers[j][0] if j < len(headers) else len(text)
        found[name] = Block(name, start, _trim(text, start, main_end),
                            _trim(text, start, span_end))
    return found


def _trim(text: str, start: int, end: int) -> int:
    """``end`` moved back over blank and comment lines, which belong to what follows."""
    lines = text[start:end].splitlines(keepends=True)
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        end -= len(lines.pop())
    return end


def _key_line(text: str, block: Block, key: str) -> re.Match[str] | None:
    pattern = re.compile(rf'^[ \t]*(?:{key}|"{key}")[ \t]*=[ \t]*', re.MULTILINE)
    return pattern.search(text, block.header_start, block.main_end)


def _value_end(text: str, start: int) -> int:
    """Where the TOML value starting at ``start`` ends (strings, arrays; comments skipped)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            triple = text.startswith(ch * 3, i)
            close = ch * 3 if triple else ch
            j = i + len(close)
            while True:
                k = text.find(close, j)
                if k < 0:
                    return len(text)
                if ch == '"' and text[k - 1] == "\\" and not triple:
                    j = k + 1
                    continue
                i = k + len(close)
                break
            if depth == 0:
                return i
            continue
        if ch == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        elif depth == 0 and ch in "\r\n":
            return i
        i += 1
    return i


def literal(value: Any) -> str:
    """A TOML value for a string or a list of strings (JSON's escapes are TOML's too)."""
    return json.dumps(value, ensure_ascii=False)


def stdio_edits(text: str, block: Block, command: str,
                args: list[str]) -> list[tuple[int, int, str]]:
    """Edits that set the table's ``command`` and ``args``."""
    cmd = _key_line(text, block, "command")
    if cmd is None:
        raise InputError(f"[mcp_servers.{block.name}] has no command line to rewrite")
    cmd_end = _value_end(text, cmd.end())
    edits = [(cmd.end(), cmd_end, literal(command))]
    arg_line = _key_line(text, block, "args")
    if arg_line is not None:
        edits.append((arg_line.end(), _value_end(text, arg_line.end()), literal(args)))
    else:
        indent = re.match(r"[ \t]*", cmd.group(0))[0]  # type: ignore[index]
        edits.append((cmd_end, cmd_end, f"\n{indent}args = {literal(args)}"))
    return edits


def url_edits(text: str, block: Block, command: str,
              args: list[str]) -> list[tuple[int, int, str]]:
    """Edits that turn the table's ``url`` line into ``command`` and ``args`` lines."""
    url = _key_line(text, block, "url")
    if url is None:
        raise InputError(f"[mcp_servers.{block.name}] has no url line to rewrite")
    line_start = text.rfind("\n", 0, url.start()) + 1
    end = _value_end(text, url.end())
    nl = text.find("\n", end)
    line_end = len(text) if nl < 0 else nl
    indent = re.match(r"[ \t]*", text[line_start:url.end()])[0]  # type: ignore[index]
    return [(line_start, line_end,
             f"{indent}command = {literal(command)}\n{indent}args = {literal(args)}")]
