"""The store's owner reads what the proxy kept (issue 14, item 7).

Found as a newcomer: a ref kept by ``elision proxy --store S`` could not be fetched with
``elision fetch … --store S``; the error said the ref was copied wrong, though it was kept
there under the proxy client's scope.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.shape import shape
from elision.store import open_store
from mcp import Client, StdioServerParameters

UPSTREAM = [sys.executable, str(Path(__file__).parents[1] / "mcp" / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


@pytest.mark.e2e
def test_a_ref_the_proxy_kept_is_fetched_by_the_cli_from_the_same_store(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    command = [*ELISION, "proxy", "--budget", "2048", "--store", str(store), "--no-audit",
               "--", *UPSTREAM]
    found: dict[str, str] = {}

    async def call() -> None:
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        async with Client(params) as client:
            result = await client.call_tool("rows", {"n": 300})
            found["next"] = (result.meta or {})["elision/shaping"]["next"]

    anyio.run(call)
    page = subprocess.run([*ELISION, "fetch", found["next"], "--store", str(store), "-b", "2048"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert page.returncode == 0, page.stderr
    rows = json.loads(page.stdout)["value"]
    assert rows and rows[0]["id"] > 0


def test_a_read_in_another_scope_says_it_is_a_scope_refusal(tmp_path: Path) -> None:
    spec = str(tmp_path / "store.db")
    store = open_store(spec)
    ref = shape({"rows": list(range(3000))}, 1024, store=store, scope="proxy:abc").ref
    store.close()
    assert ref is not None
    runner = CliRunner()
    owner = runner.invoke(main, ["fetch", ref, "--path", "$.rows[5:]", "--store", spec])
    assert owner.exit_code == 0, owner.output
    assert json.loads(owner.stdout)["value"][0] == 5
    other = runner.invoke(main, ["fetch", ref, "--store", spec, "--scope", "proxy:xyz"])
    assert other.exit_code == 1
    assert "in another scope than 'proxy:xyz'" in other.stderr
    mine = runner.invoke(main, ["fetch", ref, "--path", "$.rows[5:]", "--store", spec,
                                "--scope", "proxy:abc"])
    assert mine.exit_code == 0, mine.output
    missing = runner.invoke(main, ["fetch", "el_" + "x" * 24, "--store", spec, "--scope", "a"])
    assert missing.exit_code == 1 and "no body is kept" in missing.stderr
