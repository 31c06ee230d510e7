"""Edits to a YAML config read by :mod:`elision.install.yamlcfg`: an entry's command and args
rewritten in place, every other byte kept.

Strings are written double-quoted, every character YAML does not print escaped, so a path or
an argument reads back as the same string in any YAML reader (1.1 or 1.2). A block list of args
is written back as a block list at its own indentation and a ``[…]`` as a ``[…]``; new lines get
the line end of the line they join.
"""

from __future__ import annotations

from elision.install.jsonc import Node


def _printable(code: int) -> bool:
    """Whether YAML prints the character as it is; U+2028 and U+2029, which YAML 1.1 reads
    as line breaks, and the byte-order mark are escaped too."""
    return (0x20 <= code <= 0x7E or (0xA0 <= code <= 0xD7FF and code not in (0x2028, 0x2029))
            or (0xE000 <= code <= 0xFFFD and code != 0xFEFF) or code >= 0x10000)


def quote(value: str) -> str:
    """``value`` as a double-quoted scalar, every character YAML does not print escaped."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif _printable(code):
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


def flow_list(values: list[str]) -> str:
    return "[" + ", ".join(quote(v) for v in values) + "]"


def _newline(text: str, offset: int) -> str:
    """The line end of the line at ``offset`` (the file's first one's when it has none)."""
    nl = text.find("\n", offset)
    nl = text.find("\n") if nl < 0 else nl
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


def stdio_edits(text: str, entry: Node, command_key: str, command: str,
                args: list[str]) -> list[tuple[int, int, str]]:
    """Edits that set a block-mapping entry's command scalar and its args, nothing else.

    A block list of args is written back as a block list at its indentation, a ``[…]`` as a
    ``[…]``; missing args get a line of their own under the command.
    """
    cmd = entry.get(command_key)
    at = next(offset for name, offset, _ in entry.members if name == command_key)
    assert cmd is not None and cmd.kind == "scalar"
    edits = [(cmd.start, cmd.end, quote(command))]
    old = entry.get("args")
    if old is None:
        line_end = text.find("\n", cmd.end)
        line_end = len(text) if line_end < 0 else line_end
        if text[line_end - 1:line_end] == "\r":
            line_end -= 1
        newline = _newline(text, cmd.end)
        pad = " " * _column(text, at)
        edits.append((line_end, line_end, f"{newline}{pad}args: {flow_list(args)}"))
    elif old.flow:
        edits.append((old.start, old.end, flow_list(args)))
    else:
        newline = _newline(text, old.start)
        pad = " " * _column(text, old.start)
        edits.append((old.start, old.end,
                       (newline + pad).join(f"- {quote(a)}" for a in args)))
    return edits


def by_hand(command_key: str, command: str, args: list[str]) -> str:
    """The lines to write in an entry, for a user told to edit it by hand."""
    return f"{command_key}: {quote(command)} and args: {flow_list(args)}"
