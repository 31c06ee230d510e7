"""JSON texts as an attacker would write them: repeated keys, escapes, colons in strings.

Each document is drawn as a tree whose objects are lists of (key, value) members, so a key
may repeat, and is written with every string spelled at random: raw, ``\\u``-escaped where
``ensure_ascii`` would, or with chosen ASCII characters (``:``, ``g``, ``"``) spelled as
``\\u00XX``. :func:`pairs_loads` reads a text back keeping every member, which is what a
lenient reader (or a model) may take from it; it is written with the stdlib alone, so it
does not share a parser with the code under test.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

#: Few keys, so that repeats are common; some hold colons, some need quoting in a path.
KEYS = ("a", "b", "token", "a:b", ":", "key with space", "__elision__", "é")
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


class Members(list[tuple[str, Any]]):
    """An object as written: its members in order, a key possibly more than once."""


def _leaf() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(
            [None, True, False, 0, -1, 1.5, 10**20, "", "none", "a:b", SECRET, "x" * 600]
        ),
        st.text(max_size=12),
    )


def trees() -> st.SearchStrategy[Any]:
    """Values whose objects are :class:`Members` (keys may repeat)."""
    return st.recursive(
        _leaf(),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(st.tuples(st.one_of(st.sampled_from(KEYS), st.text(max_size=4)), children),
                     max_size=5).map(Members),
        ),
        max_leaves=16,
    )


#: Each string's spellings are one strategy, built once (a few keys and texts recur): a
#: strategy built for every string drawn was most of a document's cost.
@lru_cache(maxsize=4096)
def spelled(text: str) -> st.SearchStrategy[str]:
    """``text`` as a JSON string literal, in one of the spellings a writer may choose."""
    return _spelled(text)


_HEX_CASE = st.sampled_from(["x", "X"])
_SPACE = st.sampled_from(["", "", " ", "\n"])


@st.composite
def _spelled(draw: st.DrawFn, text: str) -> str:
    literal = json.dumps(text, ensure_ascii=draw(st.booleans()))
    if not draw(st.booleans()):
        return literal
    out = []
    for char in text:
        if char in ':g"\\/' and draw(st.booleans()):
            out.append(f"\\u{ord(char):04{draw(_HEX_CASE)}}")
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


_TREES = trees()


@st.composite
def hostile_documents(draw: st.DrawFn) -> str:
    """A JSON text (RFC 8259 grammar, valid UTF-8) whose objects may repeat keys."""
    tree = draw(_TREES)

    def write(node: Any) -> str:
        if isinstance(node, Members):
            members = [
                f"{draw(spelled(key))}{draw(_SPACE)}:{draw(_SPACE)}{write(value)}"
                for key, value in node
            ]
            return "{" + ",".join(members) + "}"
        if isinstance(node, list):
            return "[" + ",".join(write(item) for item in node) + "]"
        if isinstance(node, str):
            return draw(spelled(node))
        return json.dumps(node)

    return write(tree)


def pairs_loads(text: str) -> Any:
    """``text`` read keeping every member: objects become :class:`Members`."""
    return json.loads(text, object_pairs_hook=Members)


def shadowed_count(text: str) -> int:
    """How many members of ``text`` a last-wins reader drops."""
    dropped = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal dropped
        dropped += len(pairs) - len({key for key, _ in pairs})
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return dropped


def leaves(value: Any) -> list[Any]:
    """Every key and scalar in ``value`` (dicts, lists or :class:`Members`)."""
    out: list[Any] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Members):
            for key, child in node:
                out.append(key)
                stack.append(child)
        elif isinstance(node, dict):
            for key, child in node.items():
                out.append(key)
                stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)
        else:
            out.append(node)
    return out
