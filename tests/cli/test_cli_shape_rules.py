"""``elision shape`` and ``elision fetch``: one rule at every size, and the budget holds for stdout.

Found by trying elision as an attacker would (issue 12, item 7): a small ``.json`` file with NaN,
a byte order mark, a ``\\ud800`` escape or a repeated key was printed byte for byte with exit 0,
while the same content over the budget exited 2 (or was cut silently to the last member); and a
text exactly at ``--budget`` was printed with an added newline, one byte over.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.envelope import DUPLICATE_KEY, read_envelope
from support.honesty import strict_loads

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ELISION = Path(sys.executable).with_name("elision")


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Never the real home: the default store lands under tmp_path.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)


def padded(body: bytes, size: int) -> bytes:
    """``body`` (an object) with a first member that makes it ``size`` bytes."""
    pad = b'{"pad":"' + b"x" * (size - len(body) - 9) + b'",'
    out = pad + body[1:]
    assert len(out) == size
    return out


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"a": NaN}', "NaN is not JSON"),  # NaN
        (b'{"a": Infinity}', "Infinity is not JSON"),  # Infinity
        (b'\xef\xbb\xbf{"a": 1}', "byte order mark"),  # a BOM (padded after it)
        (b'{"a": "\\ud800"}', "lone UTF-16 surrogate"),  # a lone surrogate escape
    ],
)
def test_a_json_file_the_parser_refuses_exits_2_at_every_size(
    tmp_path: Path, body: bytes, message: str
) -> None:
    runner = CliRunner()
    for size in (200, 20_000):  # under a 1024-byte budget, then far over it
        bom = body.startswith(b"\xef\xbb\xbf")
        data = b"\xef\xbb\xbf" + padded(body[3:], size) if bom else padded(body, size)
        source = tmp_path / "result.json"
        source.write_bytes(data)
        result = runner.invoke(main, ["shape", str(source), "-b", "1024"])
        assert result.exit_code == 2, (size, result.output)
        assert message in result.stderr and result.stdout == ""


@pytest.mark.parametrize("size", [200, 20_000])  # fits a 1024-byte budget; far over it
@pytest.mark.parametrize("name", ["result.json", "result.out"])  # JSON asked for; auto
def test_a_repeated_key_is_withheld_and_declared_at_every_size(
    tmp_path: Path, name: str, size: int
) -> None:
    body = padded(('{"note":"' + SECRET + '","note":"ok"}').encode(), size)
    source = tmp_path / name
    source.write_bytes(body)
    runner = CliRunner()
    result = runner.invoke(main, ["shape", str(source), "-b", "1024"])
    assert result.exit_code == 0, result.output
    assert SECRET not in result.stdout and len(result.stdout_bytes) <= 1024
    doc = strict_loads(result.stdout)  # refuses a repeated key
    envelope = doc["__elision__"]
    assert doc["note"] == "ok" and envelope["complete"] is False
    assert {"path": "$.note", "reason": DUPLICATE_KEY} in envelope["withheld"]
    # elision fetch serves every page from the judged view, raw byte ranges included.
    for selector in ([], ["--bytes", "0-30000"], ["--lines", "1-5"], ["--path", "$"]):
        page = runner.invoke(main, ["fetch", envelope["ref"], "-b", "4096", *selector])
        assert page.exit_code == 0, page.output
        assert SECRET not in page.stdout, selector


@pytest.mark.parametrize(
    ("name", "body", "unit"),
    [
        ("exact.json", padded(b'{"a":1}', 1024), "bytes"),  # JSON that fits exactly
        ("exact.txt", b"y" * 1024, "bytes"),  # text that fits exactly
        ("exact.log", "é".encode() * 1024, "chars"),  # chars: 1024 of them, 2048 bytes
        ("rows.json", json.dumps({"rows": list(range(5000))}).encode(), "bytes"),  # cut
        ("rows.txt", b"".join(b"line %d\n" % i for i in range(5000)), "bytes"),  # cut text
    ],
)
def test_what_is_printed_is_within_the_budget(
    tmp_path: Path, name: str, body: bytes, unit: str
) -> None:
    source = tmp_path / name
    source.write_bytes(body)
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024", "--unit", unit])
    assert result.exit_code == 0, result.output
    out = result.stdout_bytes
    assert (len(out) if unit == "bytes" else len(out.decode())) <= 1024
    if len(body) < 1000:
        assert out == body + b"\n"  # a line end is added when it fits


def test_the_installed_command_prints_a_body_at_the_budget_without_an_extra_byte(
    tmp_path: Path,
) -> None:
    source = tmp_path / "exact.json"
    body = padded(b'{"a":1}', 1024)
    source.write_bytes(body)
    done = subprocess.run(
        [str(ELISION), "shape", str(source), "-b", "1024", "--no-store"],
        capture_output=True, check=True, timeout=60,
    )
    assert done.stdout == body
    page = json.loads(done.stdout)
    assert read_envelope(done.stdout) is None and page["a"] == 1
