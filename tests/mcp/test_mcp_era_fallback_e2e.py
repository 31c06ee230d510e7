"""End to end: a client that falls back to ``initialize`` long after its ``server/discover``
went unanswered is served in the handshake era; one that falls back within seconds, or sends
both at once, stays in 2026-07-28.

Found by the in-harness suite (issue 24, tests/harness/test_copilot.py): Copilot CLI 1.0.102
opens with ``server/discover`` and, with no answer in 8-11 s, sends ``initialize`` on the same
connection. A proxy slower than that to start (its server slow to start, or six harnesses on
two cores) answered the discover once up, served 2026-07-28 and refused the ``initialize``
(-32022): Copilot offered none of the server's tools. Claude Code 2.1.332 sends ``initialize``
3 s after its discover, and on that refusal asks ``server/discover`` again and stays in
2026-07-28, the era it prefers: that must not change. Here a scripted client does each,
against the real proxy in front of a server that takes seconds to start.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from support.rawrpc import HANDSHAKE_VERSION, INITIALIZED, MODERN_META, RawStdio, initialize

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
UNSUPPORTED_PROTOCOL_VERSION = -32022
#: How long the scripted client waits on its discover before it falls back, as Copilot does
#: (8-11 s; past the proxy's 5 s, with room for a proxy that starts its reading late)
FALLBACK_AFTER = 8.0
#: How long the server behind the proxy takes to start: the discover cannot be answered sooner.
#: Its sleep begins only once the proxy has done its imports and spawned it, so the discover's
#: answer comes 2 s plus the proxy's start after the fallback at the earliest (it was 4 s: the
#: file held a worker 12.6 s, nearly all of it this sleep).
SERVER_START = FALLBACK_AFTER + 2.0

DISCOVER = {"jsonrpc": "2.0", "id": 0, "method": "server/discover",
            "params": {"_meta": MODERN_META}}


def slow_proxy(seconds: float) -> RawStdio:
    """The proxy in front of the test server, which sleeps ``seconds`` before it serves."""
    server = [sys.executable, "-c",
              f"import runpy, sys, time; time.sleep({seconds}); "
              "runpy.run_path(sys.argv[1], run_name='__main__')",
              str(HERE / "upstream_server.py")]
    return RawStdio([*ELISION, "proxy", "--no-store", "--no-audit", "--", *server])


def tool_names(reply: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in reply["result"]["tools"]]


def late_fallback() -> None:
    proxy = slow_proxy(SERVER_START)
    try:
        proxy.send(DISCOVER)
        early = proxy.replies({0}, timeout=FALLBACK_AFTER)
        assert 0 not in early, "the discover was answered before the client fell back"
        proxy.send(initialize(1))
        proxy.send(INITIALIZED)
        proxy.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        replies = proxy.replies({0, 1, 2}, timeout=120)
        assert replies[1].get("result", {}).get("protocolVersion") == HANDSHAKE_VERSION, replies
        assert {"rows_text", "elision_fetch"} <= set(tool_names(replies[2]))
        # The discover it gave up on is answered (every request is), with an error that is no
        # 2026-07-28 error: a client of both eras reads it as a handshake-era server's.
        error = replies[0]["error"]
        assert error["code"] != UNSUPPORTED_PROTOCOL_VERSION and "initialize" in error["message"]
    finally:
        proxy.close(timeout=60)


def crossed_fallback() -> None:
    proxy = slow_proxy(0.0)
    try:
        sent = time.monotonic()
        proxy.send(DISCOVER)
        assert "result" in proxy.replies({0}, timeout=120)[0]
        # the client's wait runs on past the answer (it gave up as the answer was on its way)
        time.sleep(max(0.0, sent + FALLBACK_AFTER - time.monotonic()))
        proxy.send(initialize(1))
        proxy.send(INITIALIZED)
        proxy.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        replies = proxy.replies({1, 2}, timeout=120)
        assert replies[1].get("result", {}).get("protocolVersion") == HANDSHAKE_VERSION, replies
        assert {"rows_text", "elision_fetch"} <= set(tool_names(replies[2]))
    finally:
        proxy.close(timeout=60)


def early_fallback(after: float) -> None:
    proxy = slow_proxy(after + 3.0)
    try:
        proxy.send(DISCOVER)
        time.sleep(after)
        proxy.send(initialize(1))
        replies = proxy.replies({0, 1}, timeout=120)
        assert "2026-07-28" in replies[0]["result"]["supportedVersions"], replies
        assert replies[1]["error"]["code"] == UNSUPPORTED_PROTOCOL_VERSION
        proxy.send({**DISCOVER, "id": 2})
        proxy.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                    "params": {"_meta": MODERN_META}})
        replies = proxy.replies({2, 3}, timeout=60)
        assert "result" in replies[2]
        assert "rows_text" in tool_names(replies[3])
    finally:
        proxy.close(timeout=60)


# -- the cases, run side by side ---------------------------------------------------------------
#
# Each case mostly waits (a server that takes up to 12 s to start, a client that waits 8 s on
# its discover): one after the other they held a worker ~30 s with its core idle. Each runs in
# a thread of its own from the module's start, against its own proxy and server (nothing is
# shared between them but the machine), and each test waits for its case and re-raises what
# it raised: the same steps and assertions, the longest wait (~12 s) instead of their sum.

EARLY = {
    3.0: "claude-code",  # Claude Code 2.1.332: its probe waits 3 s
    0.001: "at-once",    # both at once
}
CASES: dict[str, Callable[[], None]] = {
    "late": late_fallback,
    "crossed": crossed_fallback,
    **{name: partial(early_fallback, after) for after, name in EARLY.items()},
}


@pytest.fixture(scope="module")
def cases() -> Iterator[dict[str, Future[None]]]:
    with ThreadPoolExecutor(len(CASES), thread_name_prefix="era-fallback") as pool:
        # Every case's proxy is closed in its own ``finally``; leaving this block waits for all.
        yield {name: pool.submit(case) for name, case in CASES.items()}


def test_a_client_that_falls_back_to_initialize_gets_the_handshake_era(
    cases: dict[str, Future[None]],
) -> None:
    """Red before: the initialize was refused with -32022 and no tool was listed."""
    cases["late"].result()


def test_a_fallback_that_crossed_the_discovers_answer_gets_the_handshake_era(
    cases: dict[str, Future[None]],
) -> None:
    """Seen in the harness: the proxy answered the discover just as Copilot gave up on it (the
    answer and its initialize crossed), then refused the initialize (-32022). A client that
    sends initialize, and nothing else, 8 s after its discover was opened in 2026-07-28 never
    took that answer: it is served in the handshake era (red before: -32022)."""
    cases["crossed"].result()


@pytest.mark.parametrize("after", sorted(EARLY, reverse=True))
def test_an_early_fallback_stays_in_the_newest_era(
    cases: dict[str, Future[None]], after: float,
) -> None:
    """The discover is answered, the initialize refused as that era refuses it (as before),
    and a client that then asks ``server/discover`` again, as Claude Code does, is served."""
    cases[EARLY[after]].result()
