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
