"""The README's console example runs as written, on a generated result.json (QA pass).

The README shows `elision shape result.json --budget 1024` on a search result whose caveats
are written last, then pastes the printed `next` into `elision fetch`. This runs the same two
command lines, taken from the README's console block, offline.
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

README = Path(__file__).resolve().parents[2] / "README.md"
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


def _search_result() -> bytes:
    """A search result like the README's: 2,000 rows, the caveats and counts written last."""
    rows = [{"id": i, "date": "2026-11-01", "symbol": "ACME", "side": "buy", "qty": i % 500,
             "price": 101.25, "account": f"ACC-{i % 40:04d}"} for i in range(2000)]
    return json.dumps({
        "rows": rows,
        "warnings": ["searched 2,000 of 22,933 rows: only the last 24 hours are indexed"],
        "total_rows": 22933, "next_cursor": "c_2000",
    }).encode()


def test_the_readme_console_example_runs_as_written(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    shape_args, fetch_args = _commands()
    assert shape_args[:2] == ["shape", "result.json"]
    assert fetch_args[0] == "fetch"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "result.json").write_bytes(_search_result())
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
    assert (elided["path"], elided["kind"], elided["total"]) == ("$.rows", "array", 2000)
    assert elided["shown"] == len(doc["rows"]) > 0

    # "paste the next call": the README's fetch line with this run's call in its place
    page = runner.invoke(main, ["fetch", envelope["next"], *fetch_args[2:]])
    assert page.exit_code == 0, page.output
    value = json.loads(page.stdout)["value"]
    assert value[0]["id"] == elided["shown"]
