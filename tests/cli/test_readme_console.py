"""The README's console example runs as written, from a fresh clone (QA pass, issue 25).

The README shows `elision shape examples/result.json --budget 1024` on a search result whose
caveats are written last, then pastes the printed `next` into `elision fetch`. This runs the
same two command lines, taken from the README's console block, from the repository's root on
the file the repository ships, and checks that what the README shows is what they print.
Found as a new user would: the example named a `result.json` the repository did not ship.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.envelope import read_envelope

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.DOTALL | re.MULTILINE)


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)


def _commands() -> list[list[str]]:
    """Every `$ elision …` line of the README's first console block, comment dropped."""
    block = _CONSOLE.findall(README.read_text("utf-8"))[0]
    lines = [line[2:] for line in block.splitlines() if line.startswith("$ elision ")]
    return [shlex.split(line, comments=True)[1:] for line in lines]


def _shown(block: str, pattern: str) -> str:
    found = re.search(pattern, block)
    assert found, f"the README's console block shows no {pattern!r}"
    return found.group(1)


def test_the_readme_console_example_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    shape_args, fetch_args = _commands()
    assert shape_args[0] == "shape"
    assert fetch_args[0] == "fetch"
    monkeypatch.chdir(ROOT)  # a fresh clone: the file the example names is in the repository
    example = ROOT / shape_args[1]
    assert example.is_file(), f"the README's example names {shape_args[1]}, not shipped"
    runner = CliRunner()

    shaped = runner.invoke(main, shape_args)
    assert shaped.exit_code == 0, shaped.output
    text = shaped.stdout.strip()
    assert len(text.encode()) <= int(shape_args[shape_args.index("--budget") + 1])
    doc = json.loads(text)
    # What the README shows: the envelope first, then the caveats, then the bulk.
    assert list(doc) == ["__elision__", "warnings", "total_rows", "next_cursor", "rows"]
    envelope = read_envelope(text)
    assert envelope is not None and envelope["complete"] is False
    [elided] = envelope["elided"]
    assert (elided["path"], elided["kind"]) == ("$.rows", "array")
    assert elided["shown"] == len(doc["rows"]) > 0

    # The figures the README prints are this file's
    block = _CONSOLE.findall(README.read_text("utf-8"))[0]
    assert envelope["sha256"].startswith(_shown(block, r'"sha256":"([0-9a-f]+)'))
    assert envelope["bytes"]["total"] == example.stat().st_size == int(
        _shown(block, r'"total":(\d+)\}'))
    assert elided["total"] == int(_shown(block, r'"kind":"array","shown":\d+,"total":(\d+)'))
    assert elided["shown"] == int(_shown(block, r'"kind":"array","shown":(\d+)'))
    assert doc["warnings"][0] in block
    assert f'"$.rows[{elided["shown"]}:]' in block

    # "paste the next call": the README's fetch line with this run's call in its place
    page = runner.invoke(main, ["fetch", envelope["next"], *fetch_args[2:]])
    assert page.exit_code == 0, page.output
    value = json.loads(page.stdout)["value"]
    assert value[0]["id"] == elided["shown"]
