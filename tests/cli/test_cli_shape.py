"""``elision shape``: budgets, formats, --explain, and keeping the body for ``elision fetch``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.envelope import read_envelope
from elision.store.fetch import parse_next


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Never the real home: the default store lands under tmp_path.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)
    monkeypatch.delenv("ELISION_STORE_TTL", raising=False)
    monkeypatch.delenv("ELISION_STORE_QUOTA", raising=False)


def big_document(rows: int = 2000) -> dict[str, Any]:
    return {"total_rows": rows, "warnings": ["rollups after row 1500"],
            "rows": [{"id": i, "name": f"row-{i}", "price": 1.10 + i} for i in range(rows)]}


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_cut_result_fits_and_its_next_works_with_plain_fetch(tmp_path: Path) -> None:
    doc = big_document()
    source = write(tmp_path, "result.json", json.dumps(doc).encode())
    runner = CliRunner()
    shaped = runner.invoke(main, ["shape", str(source), "--budget", "2048"])
    assert shaped.exit_code == 0, shaped.output
    out = shaped.stdout.removesuffix("\n")
    assert len(out.encode()) <= 2048
    env = read_envelope(out)
    assert env is not None and env["complete"] is False
    assert json.loads(out)["warnings"] == doc["warnings"]
    args = parse_next(env["next"])
    assert args["ref"] == env["ref"]
    # No --store: the default store under XDG_DATA_HOME is the one shape wrote to.
    page = runner.invoke(main, ["fetch", args["ref"], "--path", args["path"], "--budget", "2048"])
    assert page.exit_code == 0, page.output
    value = json.loads(page.stdout)["value"]
    first = int(args["path"].split("[")[1].split(":")[0])
    assert value == doc["rows"][first:first + len(value)] and value
    assert (tmp_path / "data" / "elision" / "store.db").exists()


def test_pasted_next_call_fetches_the_same_page(tmp_path: Path) -> None:
    source = write(tmp_path, "result.json", json.dumps(big_document()).encode())
    runner = CliRunner()
    env = read_envelope(runner.invoke(main, ["shape", str(source), "-b", "1024"]).stdout)
    assert env is not None
    args = parse_next(env["next"])
    by_flags = runner.invoke(main, ["fetch", args["ref"], "--path", args["path"], "-b", "1024"])
    pasted = runner.invoke(main, ["fetch", env["next"], "-b", "1024"])
    assert pasted.exit_code == 0, pasted.output
    assert pasted.stdout == by_flags.stdout


def test_fitting_body_is_printed_unchanged_and_not_kept(tmp_path: Path) -> None:
    body = b'{"b": 1,   "a": [1.50, 2]}'  # odd spacing and float spelling survive
    source = write(tmp_path, "small.json", body)
    runner = CliRunner()
    result = runner.invoke(main, ["shape", str(source)])
    assert result.exit_code == 0
    assert result.stdout_bytes == body + b"\n"
    stats = runner.invoke(main, ["store", "stats"])
    refs_row = next(line for line in stats.stdout.splitlines() if " refs " in line)
    assert refs_row.split("│")[2].strip() == "0"


def test_no_store_leaves_no_ref_and_no_file(tmp_path: Path) -> None:
    source = write(tmp_path, "result.json", json.dumps(big_document()).encode())
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024", "--no-store"])
    assert result.exit_code == 0
    env = read_envelope(result.stdout)
    assert env is not None and "ref" not in env and "next" not in env
    assert not (tmp_path / "data").exists()


def test_stdin_is_read_with_dash(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["shape", "-", "-b", "1024"],
                                input=json.dumps(big_document()))
    assert result.exit_code == 0, result.output
    assert read_envelope(result.stdout) is not None


def test_explain_goes_to_stderr_and_stdout_stays_json(tmp_path: Path) -> None:
    source = write(tmp_path, "result.json", json.dumps(big_document()).encode())
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024", "--explain"])
    assert result.exit_code == 0
    json.loads(result.stdout)  # nothing of the table leaked into the result
    assert "$.rows" in result.stderr and "2000" in result.stderr
    assert "bytes shown/total" in result.stderr


def test_explain_counts_a_text_s_withheld_values(tmp_path: Path) -> None:
    """Red before: 20,000 values withheld from a text read as one row, with no line and no
    count."""
    source = write(tmp_path, "creds.txt", (b"password=hunter2 " + b"x" * 23 + b"\n") * 20_000)
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024", "--no-store",
                                       "--explain"])
    assert result.exit_code == 0
    row = next(line for line in result.stderr.splitlines() if "credential-assignment" in line)
    assert "lines 1-20000" in row and "20000" in row.rsplit("withheld", 1)[1]


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("app.log", "[elision] partial: lines"),  # .log is text even when lines look like JSON
        ("notes.txt", "[elision] partial: lines"),  # .txt likewise
        ("result.json", '{"__elision__"'),  # .json is JSON
        ("result.dat", '{"__elision__"'),  # unknown extension: sniffed
    ],
)
def test_format_auto_trusts_the_extension(tmp_path: Path, name: str, header: str) -> None:
    source = write(tmp_path, name, json.dumps(big_document(), indent=1).encode())
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024", "--no-store"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(header)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-b", "12"], 2, "at least 512"),  # below the minimum budget: bad usage
        (["--unit", "words"], 2, "words"),  # not a unit
        (["--format", "xml"], 2, "xml"),  # not a format
    ],
)
def test_bad_options_are_clear(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    source = write(tmp_path, "x.json", b"[1]")
    result = CliRunner().invoke(main, ["shape", str(source), *args])
    assert result.exit_code == code
    assert message in result.output


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["shape", str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "nope.json" in result.output


def _commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(main)
    out = []
    for name in ("shape", "fetch", "store"):
        command = main.get_command(ctx, name)
        assert command is not None
        out.append((name, command))
        if isinstance(command, click.Group):
            out += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
    return out


@pytest.mark.parametrize(("name", "command"), _commands())
def test_every_command_and_option_has_help(name: str, command: click.Command) -> None:
    assert command.help, name
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts}"


NDJSON = "".join(json.dumps({"id": i, "v": "x" * 20}) + "\n" for i in range(500)).encode()
CSV = ("id,v\n" + "".join(f"{i},{'x' * 20}\n" for i in range(500))).encode()


@pytest.mark.parametrize(
    ("name", "body", "first_line_has"),
    [
        ("rows.jsonl", NDJSON, '"kind":"records"'),  # .jsonl: whole records, a JSON first line
        ("rows.ndjson", NDJSON, '"kind":"records"'),  # .ndjson likewise
        ("rows.csv", CSV, "id,v"),  # .csv: the header row, then the quoted notice row
        ("rows.txt", NDJSON, "[elision] partial: lines"),  # .txt forces text even for NDJSON
    ],
)
def test_format_auto_uses_record_extensions(
    tmp_path: Path, name: str, body: bytes, first_line_has: str
) -> None:
    source = write(tmp_path, name, body)
    result = CliRunner().invoke(main, ["shape", str(source), "-b", "1024"])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()[:2]
    assert first_line_has in first
    if name.endswith(".csv"):
        assert second.startswith('"[elision] partial')  # the notice: one quoted field


@pytest.mark.parametrize(("body", "flag"), [
    (b"not json at all", "--format text"),  # invalid JSON
    (b'{"a": 1} {"b": 2}', "--format ndjson"),  # two documents: NDJSON
    (b"[" * 20_000 + b"]" * 20_000, "--format text"),  # deeper than the walk goes
])
def test_a_cli_error_names_the_cli_flag_not_the_python_argument(body: bytes, flag: str) -> None:
    """Found as a new user would (issue 25): `elision shape --format json` on a body that is
    not JSON suggested `format='text'`, a Python argument the CLI does not take. The library
    keeps naming its own argument."""
    from elision import shape
    from elision.errors import InputError

    result = CliRunner().invoke(main, ["shape", "--format", "json", "--no-store", "-"],
                                input=body)
    assert result.exit_code == 2, result.output
    assert flag in result.stderr
    assert "format='" not in result.stderr
    with pytest.raises(InputError, match="format='"):
        shape(body, format="json")
