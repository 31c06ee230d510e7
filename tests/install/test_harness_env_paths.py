"""Where Cline and Continue keep their servers when their own variables move it.

Found running Cline CLI 3.0.65 and Continue CLI 1.5.47 in the in-harness suite: each reads its
folder from a variable (Cline: ``CLINE_MCP_SETTINGS_PATH``, ``CLINE_DATA_DIR``, ``CLINE_DIR``,
in that order, in its ``@cline/shared`` storage paths; Continue: ``CONTINUE_GLOBAL_DIR``, its
``env.ts``), as Codex reads ``CODEX_HOME``. The installer looked under ``~`` only, so with one
of them set it wrote a file the harness never reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from elision.install.harnesses import HARNESSES, default_config

CLEARED = ("CLINE_MCP_SETTINGS_PATH", "CLINE_DATA_DIR", "CLINE_DIR", "CONTINUE_GLOBAL_DIR")


@pytest.mark.parametrize(("harness", "env", "expected"), [
    # no variable: the documented default
    ("cline", {}, "home/.cline/data/settings/cline_mcp_settings.json"),
    # CLINE_DIR moves ~/.cline
    ("cline", {"CLINE_DIR": "cd"}, "cd/data/settings/cline_mcp_settings.json"),
    # CLINE_DATA_DIR moves ~/.cline/data, and wins over CLINE_DIR
    ("cline", {"CLINE_DIR": "cd", "CLINE_DATA_DIR": "dd"},
     "dd/settings/cline_mcp_settings.json"),
    # the file itself, named outright, wins over both
    ("cline", {"CLINE_DATA_DIR": "dd", "CLINE_MCP_SETTINGS_PATH": "m/mcp.json"}, "m/mcp.json"),
    ("continue", {}, "home/.continue/config.yaml"),
    # Continue's global folder
    ("continue", {"CONTINUE_GLOBAL_DIR": "cg"}, "cg/config.yaml"),
])
def test_the_config_is_where_the_harness_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str, env: dict[str, str],
        expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    where = tmp_path / expected
    assert where in HARNESSES[harness].paths()
    where.parent.mkdir(parents=True)
    where.write_text("{}", "utf-8")  # the harness's file, there: the one elision edits
    assert default_config(HARNESSES[harness]) == where
