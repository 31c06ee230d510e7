"""The proxy's folders show the flow: no import runs back up from a side to what sits above it.

``upstream/`` (the servers behind the proxy) stands alone; ``gate/`` (what a message passes on
its way to the agent) may name an upstream (``elision_fetch_reference`` reads one back);
``agent/`` may use both; ``proxy``, ``forward``, ``asking``, ``serve`` and
``launch`` sit above them all. An import that runs back up would make a side depend on the whole.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import elision.mcp

MCP = Path(elision.mcp.__file__).parent
SIDES = ("agent", "gate", "upstream")
# What each folder may import from elision.mcp (besides itself).
ALLOWED = {"upstream": set(), "gate": {"upstream"}, "agent": {"gate", "upstream"}}


def imported_mcp_modules(path: Path) -> list[str]:
    """Every elision.mcp module ``path`` imports, at any depth of the file (lazy imports too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "elision.mcp":
                found += [f"elision.mcp.{alias.name}" for alias in node.names]
            elif node.module.startswith("elision.mcp."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("elision.mcp.")]
    return found


def where(module: str) -> str:
    """The folder of an elision.mcp module: a side's name, or "top"."""
    part = module.split(".")[2]
    return part if part in SIDES else "top"


@pytest.mark.parametrize("side", SIDES)
def test_a_side_imports_nothing_above_it(side: str) -> None:
    wrong = [
        f"{path.relative_to(MCP)} imports {module}"
        for path in sorted((MCP / side).glob("*.py"))
        for module in imported_mcp_modules(path)
        if where(module) not in ALLOWED[side] | {side}
    ]
    assert not wrong, wrong


def test_the_top_folder_holds_only_what_joins_the_sides() -> None:
    top = sorted(p.stem for p in MCP.glob("*.py") if p.stem != "__init__")
    assert top == ["asking", "forward", "launch", "proxy", "serve"]


def test_the_check_sees_a_bad_import(tmp_path: Path) -> None:
    # The walk must find an import inside a function, or the test above could never fail.
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from elision.mcp.proxy import Proxy\n", "utf-8")
    assert [where(m) for m in imported_mcp_modules(bad)] == ["top"]
