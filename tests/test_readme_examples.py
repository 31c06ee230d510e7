"""The README's Python examples run as written (issue 14, item 8).

Found as an integrator: the README's library example showed no way to build a Pipeline's store,
guard or auditor, and none of them could be imported from ``elision``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
BLOCKS = _BLOCK.findall(README.read_text("utf-8"))


def test_the_readme_has_python_examples_and_one_builds_a_whole_pipeline() -> None:
    assert BLOCKS
    assert any("SQLiteStore(" in b and "guard=" in b and "auditor=" in b for b in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_a_readme_example_runs(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "elision.adapters" in block:
        pytest.skip("an agent framework's example: it needs the framework's own objects")
    monkeypatch.chdir(tmp_path)  # the files an example writes land here
    monkeypatch.delenv("ELISION_AUDIT_KEY", raising=False)
    exec(compile(block, str(README), "exec"), {"__name__": "readme"})
