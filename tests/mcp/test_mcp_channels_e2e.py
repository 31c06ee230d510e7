"""End to end: no seeded credential reaches the agent on any channel of the proxy (issue 13).

A real upstream (``seeded_server.py``) puts every seed of :mod:`support.seeded` on every
channel: tool result text, ``structuredContent``, ``_meta``, an ``isError`` result, a JSON-RPC
error, log messages, ``tools/list`` strings (titles, descriptions, schemas' descriptions,
defaults and examples, annotations, ``_meta``), ``resources/list`` and ``resources/read``,
``prompts/list`` and ``prompts/get``, and the pages of ``elision_fetch``. A real proxy sits in
front of it and the official ``mcp.Client`` talks to it; each channel's bytes are searched for
each seed, and a leak is reported by channel and seed. The same upstream behind ``--no-redact``
shows the seeds on the result channels, so the search can find them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from mcp import Client, StdioServerParameters
from support.pages import META, walk
from support.processes import started, stderr_to_file
from support.seeded import leaks, seeds

pytestmark = [
    pytest.mark.e2e,
    # Logging is deprecated at protocol 2026-07-28; this test listens to it on purpose.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "seeded_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 4096


class Channels:
    """What the agent was given, by channel."""

    def __init__(self) -> None:
        self.seen: dict[str, list[str]] = {}

    def add(self, channel: str, item: BaseModel | str) -> Any:
        text = item if isinstance(item, str) else item.model_dump_json(by_alias=True)
        self.seen.setdefault(channel, []).append(text)
        return item

    def leaked(self) -> dict[str, list[str]]:
        """channel -> the seeds found in it."""
        found: dict[str, list[str]] = {}
        for channel, texts in self.seen.items():
            names = sorted({name for text in texts for name in leaks(text)})
            if names:
                found[channel] = names
        return found


def proxy(tmp: Path, *args: str) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--budget", str(BUDGET), "--store", str(tmp / "store.db"),
               "--audit", str(tmp / "audit.db"), *args, "--", *UPSTREAM]
    return stderr_to_file(command, tmp / "stderr.log")


async def exercise(
    params: StdioServerParameters | str, seen: Channels, era: str = "legacy"
) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(note: types.LoggingMessageNotificationParams) -> None:
        logs.append(note)

    async with Client(params, mode=era, logging_callback=on_log) as client:
        listed = seen.add("tools/list", await client.list_tools())
        assert {"text", "json", "fails", "raises", "logs"} <= {t.name for t in listed.tools}
        if era == "legacy":
            await client.set_logging_level("debug")
        for name in ("text", "json"):
            result = seen.add(f"{name} result", await client.call_tool(name, {}))
            assert not result.is_error
            seen.add(f"{name} _meta", str(result.meta))
            env = (result.meta or {}).get(META) or {}
            if env.get("ref"):
                pages = await walk(client, env, BUDGET, lambda p, n=name: seen.add(
                    f"elision_fetch pages of {n}", p))
                assert pages > 0
                for selector in ({"bytes": "0-"}, {"lines": "1-"}):
                    seen.add(f"elision_fetch pages of {name}", await client.call_tool(
                        "elision_fetch", {"ref": env["ref"], **selector, "budget": 65536}))
        failed = seen.add("isError result", await client.call_tool("fails", {}))
        assert failed.is_error
        try:
            raised = await client.call_tool("raises", {})
        except MCPError as exc:
            seen.add("JSON-RPC error", f"{exc.error.code} {exc.error.message} {exc.error.data}")
        else:
            seen.add("JSON-RPC error", raised)
        # A newest-era agent asks for log messages on the call itself.
        level: Any = None if era == "legacy" else {types.LOG_LEVEL_META_KEY: "debug"}
        seen.add("logs result", await client.call_tool("logs", {}, meta=level))
        with anyio.fail_after(10):
            while len(logs) < 2:
                await anyio.sleep(0.02)
        for note in logs:
            seen.add("log notifications", note)
        seen.add("resources/list", await client.list_resources())
        seen.add("resources/read", await client.read_resource("test://seeded/notes"))
        seen.add("prompts/list", await client.list_prompts())
        seen.add("prompts/get", await client.get_prompt("handoff", {"who": "ops"}))


@pytest.mark.parametrize("era", ["legacy", MODERN_PROTOCOL_VERSIONS[-1]])
def test_no_seed_reaches_the_agent_on_any_channel(tmp_path: Path, era: str) -> None:
    seen = Channels()
    anyio.run(exercise, proxy(tmp_path), seen, era)
    assert_clean(seen, tmp_path)


def test_no_seed_reaches_an_agent_over_http_either(tmp_path: Path) -> None:
    seen = Channels()
    with started([*ELISION, "proxy", "--budget", str(BUDGET), "--store", str(tmp_path / "s.db"),
                  "--audit", str(tmp_path / "audit.db"), "--listen", "127.0.0.1:0", "--",
                  *UPSTREAM]) as listening:
        anyio.run(exercise, listening.url, seen)
        (tmp_path / "stderr.log").write_text(listening.stderr())
    assert_clean(seen, tmp_path)


def assert_clean(seen: Channels, tmp_path: Path) -> None:
    assert len(seen.seen) >= 12, sorted(seen.seen)  # every channel was looked at
    assert seen.leaked() == {}, sorted(seen.leaked())
    for name in ("stderr.log", "audit.db", "audit.db-wal"):
        path = tmp_path / name
        if path.exists():
            leaked = sorted(leaks(path.read_bytes().decode("utf-8", "replace")))
            assert not leaked, f"{', '.join(leaked)} reached the proxy's {name}"


def test_the_search_finds_the_seeds_when_redaction_is_off(tmp_path: Path) -> None:
    seen = Channels()
    anyio.run(exercise, proxy(tmp_path, "--no-redact"), seen)
    leaked = seen.leaked()
    every = sorted(s.name for s in seeds())
    # tools/list is passed as sent: every seed is found there. A result is still cut to the
    # budget, so it shows the seeds of its head and tail.
    assert leaked.get("tools/list") == every
    assert leaked.get("text result")
