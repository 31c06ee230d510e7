"""``elision shape`` on an empty body: one message and one exit code, from stdin or a file.

Found in a QA pass: ``elision shape - </dev/null`` printed a blank line and exited 0, as did an
empty file without an extension, while an empty ``.json`` file exited 2 with "body is empty":
the same nothing looked like a result on one path and an error on another. An empty body
(nothing but whitespace) is now refused on every path, naming where it came from.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main

ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)


@pytest.mark.parametrize(
    ("name", "body", "args"),
    [
        (None, b"", []),  # stdin, nothing at all
        (None, b" \n\t\n", []),  # stdin, only whitespace
        (None, b"", ["--format", "json"]),  # stdin, JSON asked for
        ("EMPTYFILE", b"", []),  # a file, no extension: sniffed
        ("empty.json", b"", []),  # a file JSON by its extension
        ("empty.txt", b"", []),  # a file text by its extension
        ("blank.ndjson", b"\n\n", []),  # records that are all blank lines
        ("empty.csv", b"", ["--no-store"]),  # without a store as well
    ],
)
def test_an_empty_body_is_refused_alike_from_stdin_and_from_a_file(
    tmp_path: Path, name: str | None, body: bytes, args: list[str]
) -> None:
    if name is None:
        source, where = "-", "stdin"
    else:
        (tmp_path / name).write_bytes(body)
        source, where = str(tmp_path / name), repr(str(tmp_path / name))
    result = CliRunner().invoke(main, ["shape", source, *args], input=body)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""  # nothing that could pass for a result
    assert result.stderr == (
        f"error: the body from {where} is empty ({len(body)} bytes, none but whitespace): "
        "there is nothing to shape; check that the tool or command wrote its result\n"
    )


def test_stdin_on_dev_null_is_refused_like_an_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "EMPTYFILE"
    empty.write_bytes(b"")
    runs = [
        subprocess.run([*ELISION, "shape", *source, "--no-store"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
        for source in (["-"], [str(empty)])
    ]
    assert [r.returncode for r in runs] == [2, 2]
    assert [r.stdout for r in runs] == ["", ""]
    tails = [r.stderr.split(" is empty ", 1)[1] for r in runs]
    assert tails[0] == tails[1]
