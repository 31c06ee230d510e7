"""Reading commands refuse a store or log that is not there, and create nothing (QA pass).

Found as a newcomer: `elision fetch REF --store other.db` and `elision store stats --store
/no/such/dir/x.db` created the file (and its directories) and answered as if it were an empty
store, with exit 0 for `stats`; `elision audit verify --log /tmp` said only "disk I/O error".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)


@pytest.mark.parametrize("args", [
    ["fetch", "el_AAAAAAAAAAAAAAAAAAAAAAAA"],  # a ref looked up in a store that is not there
    ["store", "stats"],                        # stats of nothing would read as an empty store
    ["store", "gc"],                           # nothing to collect, and nothing to create
    ["store", "rm", "el_AAAAAAAAAAAAAAAAAAAAAAAA"],
])
@pytest.mark.parametrize("where", ["explicit", "default"])
def test_a_store_that_does_not_exist_is_refused_and_not_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], where: str,
) -> None:
    missing = tmp_path / "no" / "such" / "store.db"
    if where == "explicit":
        args = [*args, "--store", str(missing)]
    else:
        missing = tmp_path / "data" / "elision" / "store.db"
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert f"no store at '{missing}'" in result.stderr
    assert "--store" in result.stderr  # says what to do
    assert not missing.exists() and not missing.parent.exists()


def test_migrate_still_creates_the_store(tmp_path: Path) -> None:
    target = tmp_path / "new" / "store.db"
    result = CliRunner().invoke(main, ["store", "migrate", "--store", str(target)])
    assert result.exit_code == 0, result.output
    assert target.exists()


@pytest.mark.parametrize("command", ["verify", "show"])
def test_an_audit_log_that_is_a_directory_is_named_as_one(tmp_path: Path, command: str) -> None:
    result = CliRunner().invoke(main, ["audit", command, "--log", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "is a directory" in result.stderr and "--log" in result.stderr
    assert "disk I/O" not in result.stderr
