"""The README and the design doc point at files that exist.

Found by a newcomer (issue 14, item 14): the README sent readers to DESIGN.md, which was not
in the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Named documents: an upper-case name (DESIGN.md, CHANGELOG.md) or a path (docs/design.md);
# not a file a command is told to write (`--out report.md`).
_MD_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.md|[A-Z][A-Z_-]*\.md)\b")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _local_targets(text: str) -> set[str]:
    names = {m.group(1) for m in _MD_NAME.finditer(text)}
    links = {m.group(1) for m in _LINK.finditer(text) if "://" not in m.group(1)}
    return names | links


def test_every_file_the_readme_names_is_in_the_repository() -> None:
    missing = sorted(t for t in _local_targets((ROOT / "README.md").read_text("utf-8"))
                     if not (ROOT / t).exists())
    assert not missing, f"README.md names files that are not in the repository: {missing}"


def test_design_doc_states_the_wire_contract_and_invariants() -> None:
    design = (ROOT / "docs" / "design.md").read_text("utf-8")
    for heading in ("## The pipeline", "## The wire contract (v1)",
                    "## Invariants every change keeps"):
        assert heading in design


def test_the_first_screen_shows_the_one_command_install() -> None:
    first_screen = (ROOT / "README.md").read_text("utf-8").splitlines()[:40]
    assert any("elision install claude-code" in line for line in first_screen)


def test_every_variable_elision_reads_is_in_the_configuration_table() -> None:
    """Found by a newcomer (issue 14, item 14): the variables were scattered over the README,
    and some (ELISION_ACS_KEY, ELISION_REQUIRE_AUTH_SCOPE) were named nowhere near the others."""
    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme[readme.index("## Configuration"):].split("\n## ", 1)[0]
    read = set()
    for path in (ROOT / "src").rglob("*.py"):
        read.update(re.findall(r"ELISION_[A-Z_]+[A-Z]", path.read_text("utf-8")))
    missing = sorted(v for v in read if f"| `{v}` |" not in table)
    assert not missing, f"README's Configuration table lacks {missing}"
    assert "stripped environment" in readme


def test_performance_is_one_current_table() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme[readme.index("## Performance"):].split("\n## ", 1)[0]
    separators = [line for line in section.splitlines() if re.match(r"\|(-+\|)+", line)]
    assert len(separators) == 1


def _performance_rows() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme[readme.index("## Performance"):].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in rows[2:]]


def test_each_performance_cell_is_one_figure_and_its_target() -> None:
    """Found as a new user would (issue 25): cells of a hundred words, the how and the history
    of each figure inline. A cell holds one figure (or one range); the how goes to
    bench/README.md and the history to the CHANGELOG."""
    rows = _performance_rows()
    assert rows
    for row in rows:
        assert len(row) == 3, f"a row is `what | measured | target`: {row}"
        what, measured, target = row
        assert len(what.split()) <= 16, f"a row's name is a name, not a method: {what!r}"
        for cell in (measured, target):
            assert len(cell.split()) <= 4, f"one figure per cell: {cell!r}"
            assert "(" not in cell and ";" not in cell, f"no asides in a figure: {cell!r}"
    bench_readme = (ROOT / "bench" / "README.md").read_text("utf-8")
    assert "## Figures in full" in bench_readme
