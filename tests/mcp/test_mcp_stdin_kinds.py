"""The stdio proxy ends cleanly whatever its stdin is: a pipe, a terminal, /dev/null, a file.

Found by the QA pass: `elision proxy --config cfg.json </dev/null` printed an asyncio traceback
(epoll refuses /dev/null, a character device but no terminal) and then hung until killed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-m", "elision"]
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]


@pytest.mark.parametrize("kind", ["devnull", "empty file"])
def test_the_proxy_reads_end_of_input_and_exits(tmp_path: Path, kind: str) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with open(empty if kind == "empty file" else "/dev/null", "rb") as stdin:
        done = subprocess.run(
            [*ELISION, "proxy", "--store", ":memory:", "--no-audit", "--", *UPSTREAM],
            stdin=stdin, capture_output=True, text=True, timeout=60, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
