"""A withheld entry's path is spelled from its nearest container spelled lately, not from the
root each time (``Walker._where``): the same paths, and a deep document's entries cost a
step a level once, not a step a level an entry.

Found by the suite's own time: a document 9,000 deep with a value withheld at each level
spelled every entry's path from the root (``envelope.format_path``: 69,000 calls, 72 s of a
184 s run of tests/shape/test_lazyspine.py under load).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.envelope import format_path
from elision.redact import redact_value, walk
from elision.redact.walk import Walker

TOKEN = "ghp_aB3dE6fG1hJ2kL3mN4pQ5rS6tU7vW8xY9z0"

PARTS = st.one_of(st.integers(0, 50), st.sampled_from(["a", "rows", "x y", "it's", "_k9", ""]),
                  st.text(max_size=6))


def _linked(parts: list[Any]) -> Any:
    path = None
    for part in parts:
        path = (path, part)
    return path


@settings(max_examples=200, deadline=None)
@given(paths=st.lists(st.lists(PARTS, max_size=12), min_size=1, max_size=30),
       rel=st.lists(PARTS, max_size=3), root=st.sampled_from(["$", "$.body", "@"]),
       small=st.booleans())
def test_a_path_is_spelled_as_from_the_root(
    paths: list[list[Any]], rel: list[Any], root: str, small: bool,
) -> None:
    """Paths sharing containers, asked in any order, with room for few kept (each let-go
    exercised) or many: each spelled as format_path spells it from the root."""
    room = (walk._SPELLED, walk._SPELLED_CHARS, walk._MARKED)
    if small:  # containers kept every other level, and let go often
        walk._SPELLED, walk._SPELLED_CHARS, walk._MARKED = 3, 24, 2
    try:
        _spell_all(paths, rel, root)
    finally:
        walk._SPELLED, walk._SPELLED_CHARS, walk._MARKED = room


def _spell_all(paths: list[list[Any]], rel: list[Any], root: str) -> None:
    walker = Walker(root=root)
    # Shared prefixes: each path extends one asked before, as a walk's do.
    nodes: list[tuple[Any, list[Any]]] = [(None, [])]
    for i, parts in enumerate(paths):
        base, base_parts = nodes[i * 7 % len(nodes)]
        path, all_parts = base, list(base_parts)
        for part in parts:
            path = (path, part)
            all_parts.append(part)
        nodes.append((path, all_parts))
        assert walker._where(path, tuple(rel)) == format_path([*all_parts, *rel], root=root)
        spelled = walker._where(path, ())
        assert spelled == format_path(all_parts, root=root)
        # What it keeps is bounded: the paths, and their chars (one path longer than the
        # bound is kept alone).
        kept = walker._spelled_paths
        assert len(kept) <= walk._SPELLED
        assert walker._spelled_chars == sum(len(text) for _, text in kept.values())
        assert walker._spelled_chars <= walk._SPELLED_CHARS or len(kept) == 1


def _deep(depth: int) -> Any:
    """A token at each level of a chain ``depth`` deep."""
    doc: Any = {"token": TOKEN}
    for _ in range(depth):
        doc = {"token": TOKEN, "next": doc}
    return doc


def test_a_deep_documents_paths_cost_a_step_a_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: every entry's path was spelled from the root, a part a level: 1,200
    levels with a token at each spelled ~720,000 parts; now each level's once or so."""
    spelled = {"parts": 0}

    def counted(parts: Any, root: str = "$") -> str:
        parts = list(parts)
        spelled["parts"] += len(parts)
        return format_path(parts, root=root)

    monkeypatch.setattr(walk, "format_path", counted)
    depth = 1200
    done = redact_value(_deep(depth))
    assert len(done.withheld) == depth + 1
    deepest = max((w["path"] for w in done.withheld), key=len)
    assert deepest == "$" + ".next" * depth + ".token"
    assert spelled["parts"] <= 4 * depth, spelled
