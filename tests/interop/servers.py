"""Where the third-party MCP servers of the interop tests are, or why a test must skip.

The npm servers are pinned in ``tests/interop/package.json`` with its lockfile. The first test
that needs them installs them (``npm ci``, once per checkout, under a lock so that parallel
workers wait for one install) and skips, saying why, where node or npm is missing or the install
fails. PyPI ones come with the ``test`` extra.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def npm_server(package: str, binary: str) -> list[str]:
    """The command that starts an npm-installed server, or a skip that says how to get it."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(f"node and npm are needed to run {package}; neither is on PATH"
                    if node is None and npm is None else
                    f"{'node' if node is None else 'npm'} is not on PATH, so {package} cannot run")
    script = HERE / "node_modules" / ".bin" / binary
    if not script.exists():
        _install(npm)
    if not script.exists():
        pytest.skip(f"{package} is not installed: run `npm ci --prefix tests/interop`")
    return [node, str(script.resolve())]


def _install(npm: str) -> None:
    with (HERE / ".npm-install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing: wait for it
        if (HERE / "node_modules" / ".package-lock.json").exists():
            return
        done = subprocess.run(
            [npm, "ci", "--prefix", str(HERE), "--no-audit", "--no-fund", "--ignore-scripts"],
            capture_output=True, text=True, timeout=600, check=False,
        )
        if done.returncode != 0:
            last = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
            pytest.skip(f"`npm ci --prefix tests/interop` failed: {last[0][:200]!r}")
