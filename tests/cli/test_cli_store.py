"""``elision fetch`` and ``elision store``; one test runs the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.envelope import ENVELOPE_KEY, read_envelope
from elision.store.fetch import parse_next


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)
    monkeypatch.delenv("ELISION_STORE_TTL", raising=False)
    monkeypatch.delenv("ELISION_STORE_QUOTA", raising=False)


def keep_log(tmp_path: Path, runner: CliRunner, *extra: str) -> tuple[str, bytes]:
    """Shape a long log so it is kept; return its ref and the original bytes."""
    body = "".join(f"2026-11-30T12:00:{i % 60:02d}Z INFO step {i} ok\n" for i in range(3000))
    source = tmp_path / "build.log"
    source.write_text(body)
    result = runner.invoke(main, ["shape", str(source), "-b", "1024", *extra])
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0]
    ref = header.rsplit("ref=", 1)[1]
    return ref, body.encode()


def test_fetch_lines_and_bytes_of_a_kept_log(tmp_path: Path) -> None:
    runner = CliRunner()
    ref, body = keep_log(tmp_path, runner)
    page = runner.invoke(main, ["fetch", ref, "--lines", "100-102"])
    assert page.exit_code == 0, page.output
    header, _, rest = page.stdout.partition("\n")
    # A page is a part of the original, so it says which part, of how many lines.
    assert "lines 100-102 of 3,000" in header and f"ref={ref}" in header
    assert rest == b"".join(body.splitlines(keepends=True)[99:102]).decode()
    raw = runner.invoke(main, ["fetch", ref, "--bytes", "0-9"])
    assert raw.stdout.partition("\n")[2].removesuffix("\n") == body[:10].decode()


def test_fetch_no_redact_selects_a_path_in_a_kept_json_body(tmp_path: Path) -> None:
    """`elision fetch --no-redact --path` said "$ is a scalar (tuple), so it has no key
    'rows'" (found reading fetch.py for issue 17): the unredacted view held the parse's
    (document, shadowed) pair, not the document."""
    runner = CliRunner()
    doc = {"total": 300, "rows": [{"id": i, "v": "x" * 30} for i in range(300)]}
    source = tmp_path / "result.json"
    source.write_text(json.dumps(doc))
    shaped = runner.invoke(main, ["shape", str(source), "-b", "1024"])
    envelope = read_envelope(shaped.stdout)
    assert envelope is not None
    for flags in ([], ["--no-redact"]):
        page = runner.invoke(main, ["fetch", envelope["ref"], "--path", "$.rows[5]", *flags])
        assert page.exit_code == 0, page.output
        shown = json.loads(page.stdout)
        assert shown.pop(ENVELOPE_KEY)["page"] == "$.rows[5]" and shown == doc["rows"][5]


def test_fetch_follows_a_member_range_next_as_printed(tmp_path: Path) -> None:
    """Issue 23: a map keyed by id was walked one member per next; its next is now a member
    range, which `elision fetch` takes pasted whole or as --path."""
    runner = CliRunner()
    doc = {"items": {f"id-{i}": {"n": i} for i in range(600)}}
    source = tmp_path / "map.json"
    source.write_text(json.dumps(doc))
    envelope = read_envelope(runner.invoke(main, ["shape", str(source), "-b", "1024"]).stdout)
    assert envelope is not None and "['id-" in envelope["next"]
    pasted = runner.invoke(main, ["fetch", envelope["next"], "--budget", "2048"])
    assert pasted.exit_code == 0, pasted.output
    shown = json.loads(pasted.stdout)
    page = shown.pop(ENVELOPE_KEY)
    first = next(iter(shown))
    assert page["page"] == f"$.items['{first}':]" and len(shown) > 20
    assert all(doc["items"][key] == value for key, value in shown.items())
    by_path = runner.invoke(main, ["fetch", envelope["ref"], "--path", page["page"],
                                   "--budget", "2048"])
    assert by_path.stdout == pasted.stdout


def test_fetch_takes_a_next_copied_out_of_the_json_it_was_printed_in(tmp_path: Path) -> None:
    """Found as a newcomer: `elision shape` prints JSON, so the `next` on the screen reads
    `"next":"elision_fetch(ref=\\"el_…\\", path=\\"$.rows[5:]\\")"`; pasted from there (its
    escapes, perhaps its quotes) `elision fetch` answered that it could not read the
    arguments."""
    runner = CliRunner()
    source = tmp_path / "rows.json"
    source.write_text(json.dumps({"rows": [{"id": i} for i in range(900)], "total": 900}))
    printed = runner.invoke(main, ["shape", str(source), "-b", "1024"]).stdout
    escaped = printed.split('"next":"', 1)[1].split('")"', 1)[0] + '")'
    assert '\\"' in escaped and "$.rows[" in escaped
    for pasted in (escaped, f'"{escaped}"'):
        got = runner.invoke(main, ["fetch", pasted, "--budget", "2048"])
        assert got.exit_code == 0, got.output
        assert json.loads(got.stdout)[ENVELOPE_KEY]["page"].startswith("$.rows[")


def test_store_option_and_env_point_at_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    path = tmp_path / "elsewhere.db"
    ref, _ = keep_log(tmp_path, runner, "--store", str(path))
    assert runner.invoke(main, ["fetch", ref, "-l", "1-1"]).exit_code == 1  # not the default
    assert runner.invoke(main, ["fetch", ref, "-l", "1-1", "--store", str(path)]).exit_code == 0
    monkeypatch.setenv("ELISION_STORE", str(path))
    assert runner.invoke(main, ["fetch", ref, "-l", "1-1"]).exit_code == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["el_unknown"], 1, "no body is kept under ref 'el_unknown'"),  # never kept
        (["{ref}", "--path", "rows"], 2, "valid forms"),  # not a path
        (["{ref}", "--path", "$.rows"], 2, "not JSON"),  # a path into a text body
        (["{ref}", "--lines", "1-2", "--bytes", "0-1"], 2, "at most one"),  # two selectors
        (["elision_fetch(ref=)"], 2, "cannot read the arguments"),  # a mangled pasted next
    ],
)
def test_fetch_errors_are_one_clear_line(
    tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    runner = CliRunner()
    ref, _ = keep_log(tmp_path, runner)
    result = runner.invoke(main, ["fetch", *(a.replace("{ref}", ref) for a in args)])
    assert result.exit_code == code
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output


def test_lines_past_the_end_are_a_page_that_says_so(tmp_path: Path) -> None:
    # Issue 23: past the end is an answer (shown 0 of N, no next), not a usage error.
    runner = CliRunner()
    ref, _ = keep_log(tmp_path, runner)
    result = runner.invoke(main, ["fetch", ref, "--lines", "9000-"])
    assert result.exit_code == 0, result.output
    assert "index past the end" in result.stdout and "elision_fetch(" not in result.stdout


def test_expired_ref_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELISION_STORE_TTL", "0.05")
    runner = CliRunner()
    ref, _ = keep_log(tmp_path, runner)
    time.sleep(0.1)
    result = runner.invoke(main, ["fetch", ref, "-l", "1-2"])
    assert result.exit_code == 1
    assert "expired" in result.stderr and "shape the tool result again" in result.stderr
    gc = runner.invoke(main, ["store", "gc"])
    assert gc.exit_code == 0 and "removed 1 expired refs and 1 bodies" in gc.stdout


def test_stats_and_rm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # one table row per line, to read it back
    runner = CliRunner()
    ref, body = keep_log(tmp_path, runner)
    stats = runner.invoke(main, ["store", "stats"])
    assert stats.exit_code == 0
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in stats.stdout.splitlines() if line.count("│") == 3}
    assert rows["bodies"] == "1" and rows["refs"] == "1"
    assert rows["bytes"] == f"{len(body):,}"
    assert rows["path"].endswith("store.db")
    assert runner.invoke(main, ["store", "rm", ref]).stdout == f"removed {ref}\n"
    again = runner.invoke(main, ["store", "rm", ref])
    assert again.exit_code == 1 and "no body is kept" in again.stderr


def test_unreachable_postgres_store_is_refused_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELISION_STORE", "postgresql://u:s3cret@127.0.0.1:1/db")
    result = CliRunner().invoke(main, ["store", "stats"])
    assert result.exit_code == 1 and "cannot connect to PostgreSQL at" in result.stderr
    assert "s3cret" not in result.output + result.stderr


def test_installed_entry_point_shapes_and_fetches(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "elision"
    assert exe.exists(), "install the package into the venv: pip install -e ."
    doc = {"total": 500, "rows": [{"id": i, "v": "x" * 30} for i in range(500)]}
    source = tmp_path / "result.json"
    source.write_text(json.dumps(doc))
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("ELISION_STORE", None)
    shaped = subprocess.run([exe, "shape", str(source), "-b", "1024"], env=env,
                            capture_output=True, check=True, timeout=60)
    envelope = read_envelope(shaped.stdout)
    assert envelope is not None
    page = subprocess.run([exe, "fetch", envelope["next"], "-b", "1024"], env=env,
                          capture_output=True, check=True, timeout=60)
    first = int(parse_next(envelope["next"])["path"].split("[")[1].split(":")[0])
    value = json.loads(page.stdout)["value"]
    assert value and value == doc["rows"][first:first + len(value)]
    bad = subprocess.run([exe, "fetch", "el_nope"], env=env, capture_output=True, timeout=60)
    assert bad.returncode == 1 and bad.stderr.startswith(b"error: no body is kept")
