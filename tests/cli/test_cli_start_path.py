"""What a hook or ``elision shape`` of a small result loads: nothing it does not need (issue 24).

A hook runs on every tool call, so its start is the cost of each call: a small result through
``elision hook claude-code`` or ``elision shape`` must not import the MCP SDK, pydantic,
rich, a web stack or a database driver, and must not compile the credential families'
regexes when no family's keyword is in the result. Each case runs the real command in a fresh
interpreter and reports what it loaded as it exits.

hyperscan is loaded (it is not listed): the trigger search of any result, small or not, runs on
its database, read from the cache (elision._cache), which is cheaper than the regex passes'
compile.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HEAVY = ("mcp", "mcp_types", "pydantic", "pydantic_core", "rich", "psycopg", "psycopg_pool",
         "starlette", "uvicorn", "jinja2", "jsonschema", "anyio", "httpx", "cryptography")
#: Modules of elision and below that a small text result never uses: the JSON readers
#: (lazyjson over msgspec: a shell's output is not JSON), what serves a fetch (the selectors)
#: and the audit verifier. Each was loaded at import by a module on the path (the pipeline,
#: the redactor, the store's base class, the audit log's opener): 10-20% of the hook's start.
UNUSED = ("msgspec", "elision.shape.lazyjson", "elision.shape.jsonparse", "elision.store.fetch",
          "elision.store.select", "elision.audit.verify")
#: Runs the CLI, then (at exit, after click's sys.exit) prints what was loaded as JSON.
PROBE = """
import atexit, gc, json, sys
def report():
    from elision.redact.families import FAMILIES
    print(json.dumps({
        "loaded": sorted({m.split(".")[0] for m in sys.modules}),
        "modules": sorted(sys.modules),
        "compiled": [f.id for f in FAMILIES if "pattern" in vars(f)],
        "dataclasses": sorted(
            f"{name}.{attr}" for name, module in list(sys.modules.items())
            if name.startswith("elision") for attr, value in list(vars(module).items())
            if isinstance(value, type) and value.__module__ == name
            and "__dataclass_params__" in vars(value) and "__record_fields__" not in vars(value)),
        "collector": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                      "older": gc.get_stats()[1]["collections"]},
    }), file=sys.stderr)
atexit.register(report)
sys.argv = ["elision", *sys.argv[1:]]
{entry}
"""
#: How the command is started: as the click group (tests, the old way), or as the executable
#: and ``python -m elision`` start it (what `elision install --hook` writes).
ENTRIES = {
    "click group": "from elision.cli import main; main()",
    "executable": "import runpy; runpy.run_module('elision', run_name='__main__')",
}
BASH_EVENT = {"session_id": "start-path", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "ls"},
              "tool_response": {"stdout": "a.txt\nb.txt\n", "stderr": "", "interrupted": False}}


def loaded_by(args: list[str], stdin: bytes = b"", entry: str = "click group"
              ) -> dict[str, Any]:
    probe = PROBE.replace("{entry}", ENTRIES[entry])
    done = subprocess.run([sys.executable, "-c", probe, *args], input=stdin,
                          capture_output=True, timeout=120, check=True)
    report: dict[str, Any] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return report


def small_call(tmp_path: Path, command: str, entry: str) -> dict[str, Any]:
    if command == "shape":
        small = tmp_path / "small.txt"
        small.write_bytes(b"hello\n\n")
        return loaded_by(["shape", str(small), "--store", str(tmp_path / "store.db")],
                         entry=entry)
    return loaded_by(["hook", "claude-code", "--store", str(tmp_path / "store.db"),
                      "--audit", str(tmp_path / "audit.db")], json.dumps(BASH_EVENT).encode(),
                     entry=entry)


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("command", ["shape", "hook"])
def test_a_small_result_loads_nothing_heavy(tmp_path: Path, command: str, entry: str) -> None:
    report = small_call(tmp_path, command, entry)
    assert sorted(set(HEAVY) & set(report["loaded"])) == []
    # Red before: the table compiled all 225 patterns as it loaded.
    assert report["compiled"] == []
    # Red before: every one of them was loaded.
    assert sorted(set(UNUSED) & set(report["modules"])) == []


@pytest.mark.parametrize("command", ["shape", "hook"])
def test_a_small_result_compiles_no_dataclass_and_loads_no_logging(tmp_path: Path,
                                                                  command: str) -> None:
    """The methods ``dataclasses`` compiles with ``exec`` for each class as its module loads
    were ~18% of the hook's instructions (issue 24), ``logging`` ~3% and ``secrets`` (with
    ``random``) ~1%: the classes on the path are records (:mod:`elision._record`), the path logs
    through :mod:`elision._lazylog` and draws refs from ``os.urandom``. Red before: 23
    dataclasses were made, and ``logging``, ``secrets`` and ``random`` were loaded.
    ``dataclasses`` itself is still imported, by orjson's own start, but not ``inspect``
    behind it (with ``ast``, ``dis`` and ``tokenize``: ~6% of the instructions): the executable
    defers it (``elision._startup.defer_import``)."""
    report = small_call(tmp_path, command, "executable")
    assert report["dataclasses"] == []
    assert [m for m in ("logging", "secrets", "random", "tokenize", "ast", "dis")
            if m in report["modules"]] == []


@pytest.mark.parametrize("command", ["shape", "hook"])
def test_a_small_result_is_audited_without_the_pure_python_jcs(tmp_path: Path,
                                                               command: str) -> None:
    """``rfc8785``'s import was 2.4 M of the hook's ~306 M instructions (issue 24), and an
    entry of strings, integers and lists is written by orjson's fast path: it is imported only
    for a value that path refuses. Red before (for the hook; ``shape`` writes no audit entry):
    ``elision.audit.chain`` imported it to name its error, a ``ValueError``."""
    report = small_call(tmp_path, command, "executable")
    assert "rfc8785" not in report["loaded"]


@pytest.mark.parametrize("command", ["shape", "hook"])
def test_the_executable_answers_a_small_result_without_click(tmp_path: Path,
                                                            command: str) -> None:
    """click and the command group were a tenth of the hook's start (issue 24); red before:
    ``python -m elision`` built the click group for every call."""
    report = small_call(tmp_path, command, "executable")
    assert [m for m in ("click", "elision.cli.group") if m in report["modules"]] == []


@pytest.mark.parametrize("command", ["shape", "hook"])
def test_the_set_up_runs_with_the_collector_paused(tmp_path: Path, command: str) -> None:
    """The collections the imports set off were ~7% of the hook's start (issue 24): the
    executable's set-up runs with the collector off, and what it made is frozen out of its
    sight, the collector on again for the work. Red before: nothing was frozen, and the
    imports set off three collections of the older generation."""
    collector = small_call(tmp_path, command, "executable")["collector"]
    assert collector["enabled"] is True
    assert collector["frozen"] > 10_000
    assert collector["older"] <= 1
