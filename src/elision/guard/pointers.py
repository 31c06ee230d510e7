"""JSON pointers (RFC 6901) over parsed values: find every string, replace by pointer."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def walk_strings(value: Any) -> Iterator[tuple[str, str]]:
    """Every string in ``value`` with its JSON pointer, depth-first, without recursion (a
    10,000-deep document must not crash the Guardian)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, str):
            yield pointer, node
        elif isinstance(node, Mapping):
            items = [(f"{pointer}/{_escape(str(k))}", v) for k, v in node.items()]
            stack.extend(reversed(items))
        elif isinstance(node, list | tuple):
            stack.extend(reversed([(f"{pointer}/{i}", v) for i, v in enumerate(node)]))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def changed_nodes(
    before: Any, after: Any
) -> Iterator[tuple[str, list[str | int], Any]]:
    """Where ``after`` differs from ``before``: (pointer, path parts, new node) for each
    highest changed node. Unchanged subtrees shared by identity are skipped at once."""
    stack: list[tuple[list[str | int], Any, Any]] = [([], before, after)]
    while stack:
        parts, a, b = stack.pop()
        if a is b:
            continue
        if isinstance(a, Mapping) and isinstance(b, Mapping) and list(a) == list(b):
            stack.extend(reversed([([*parts, k], a[k], b[k]) for k in a]))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            stack.extend(reversed([([*parts, i], x, y) for i, (x, y) in enumerate(
                zip(a, b, strict=True))]))
        elif a != b or type(a) is not type(b):
            yield "".join(f"/{_escape(str(p))}" for p in parts), parts, b


def apply_replacements(value: Any, replacements: Sequence[tuple[str, Any]]) -> Any:
    """A copy of ``value`` with the node at each pointer replaced (missing paths skipped).

    Only the containers on a replaced path are copied; the rest is shared with ``value``.
    """
    for pointer, replacement in replacements:
        if pointer == "":
            value = replacement
            continue
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
        value = _replaced(value, parts, replacement)
    return value


def _replaced(node: Any, parts: list[str], replacement: Any) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(node, Mapping) and head in node:
        copy = dict(node)
        copy[head] = replacement if not rest else _replaced(node[head], rest, replacement)
        return copy
    if isinstance(node, list) and head.isdigit() and int(head) < len(node):
        items = list(node)
        i = int(head)
        items[i] = replacement if not rest else _replaced(node[i], rest, replacement)
        return items
    return node
