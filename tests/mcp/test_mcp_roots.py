"""The roots the proxy gives its upstreams, without processes: the intersection of the
agents' roots, and when a call must wait or be refused. Over real processes:
``test_mcp_roots_e2e.py``."""

from __future__ import annotations

import posixpath
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.mcp.upstream import roots as roots_module
from elision.mcp.upstream.roots import Roots, intersect


def root(uri: str) -> types.Root:
    return types.Root(uri=uri)  # type: ignore[arg-type]


def uris(found: list[types.Root]) -> list[str]:
    return [str(r.uri) for r in found]


@pytest.mark.parametrize(("offered", "expected"), [
    # one agent: its roots as it gave them, names and all
    ([["file:///p/", "file:///q"]], ["file:///p/", "file:///q"]),
    # the deeper of two nested roots
    ([["file:///p"], ["file:///p/x"]], ["file:///p/x"]),
    ([["file:///p/x"], ["file:///p"]], ["file:///p/x"]),
    # a sibling whose name only starts like the root is not inside it
    ([["file:///p"], ["file:///pq"]], []),
    # '..' does not climb out of a root
    ([["file:///p"], ["file:///p/../etc"]], []),
    # the filesystem root holds everything on its host, but not another host
    ([["file:///"], ["file:///a/./b//c"]], ["file:///a/b/c"]),
    ([["file://one/a"], ["file://two/a"]], []),
    # percent-escapes are read as the path they spell
    ([["file:///a%20b"], ["file:///a b/c"]], ["file:///a%20b/c"]),
    # a root with a query is no plain directory: it meets only itself
    ([["file:///p?v=1"], ["file:///p?v=1"]], ["file:///p?v=1"]),
    ([["file:///p?v=1"], ["file:///p/x"]], []),
    # three agents: what all three grant
    ([["file:///p", "file:///q"], ["file:///p/x", "file:///q"], ["file:///q/z"]],
     ["file:///q/z"]),
    # an agent that grants nothing leaves nothing
    ([["file:///p"], []], []),
])
def test_intersect(offered: list[list[str]], expected: list[str]) -> None:
    assert uris(intersect([[root(u) for u in agent] for agent in offered])) == expected


def test_one_agents_roots_keep_their_names() -> None:
    named = types.Root(uri="file:///p", name="project")  # type: ignore[arg-type]
    assert intersect([[named]]) == [named]


segments = st.lists(st.sampled_from(["a", "b", "c"]), max_size=3)
paths = segments.map(lambda parts: "/" + "/".join(parts))
agents = st.lists(st.lists(paths, max_size=3), min_size=2, max_size=3)


def holds(roots: list[str], path: str) -> bool:
    return any(r == "/" or path == r or path.startswith(r + "/") for r in roots)


@given(agents, paths)
def test_a_path_is_granted_exactly_when_every_agent_grants_it(
    offered: list[list[str]], path: str
) -> None:
    met = intersect([[root("file://" + p) for p in agent] for agent in offered])
    granted = [posixpath.normpath(str(r.uri).removeprefix("file://")) for r in met]
    granted = ["/" if g == "//" else g for g in granted]
    assert holds(granted, path) == all(holds(agent, path) for agent in offered)


class Upstream:
    def __init__(self) -> None:
        self.name = "files"
        self.told = 0

    async def notify(self, notification: Any) -> None:
        self.told += 1


def run(body: Any) -> Any:
    async def main() -> Any:
        async with anyio.create_task_group() as tg:
            up = Upstream()
            view = Roots(lambda: [up])
            view.start(tg)
            try:
                return await body(view, up)
            finally:
                tg.cancel_scope.cancel()

    return anyio.run(main)


def test_no_agent_offering_roots_gets_the_server_an_error_and_sets_no_limit() -> None:
    async def body(view: Roots, up: Upstream) -> None:
        answer = await view.answer(up)  # type: ignore[arg-type]
        assert isinstance(answer, types.ErrorData)
        assert "no connected agent offers roots" in answer.message
        assert await view.ready(up) is None  # type: ignore[arg-type]

    run(body)


def test_a_server_that_never_asked_is_not_waited_for() -> None:
    async def body(view: Roots, up: Upstream) -> None:
        view.holds("agent", types.ListRootsResult(roots=[root("file:///p")]))
        assert await view.ready(up) is None  # type: ignore[arg-type]

    run(body)


def test_a_narrowed_server_is_told_and_a_call_waits_until_it_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(roots_module, "SYNC_TIMEOUT", 0.2)

    async def body(view: Roots, up: Upstream) -> None:
        await view.answer(up)  # type: ignore[arg-type]
        view.holds("agent", types.ListRootsResult(roots=[root("file:///p")]))
        await anyio.sleep(0.01)
        assert up.told == 1
        # It does not ask again: the call is refused, saying why.
        refusal = await view.ready(up)  # type: ignore[arg-type]
        assert refusal is not None and "did not ask for them again" in refusal
        answer = await view.answer(up)  # type: ignore[arg-type]
        assert isinstance(answer, types.ListRootsResult) and uris(answer.roots) == ["file:///p"]
        assert await view.ready(up) is None  # type: ignore[arg-type]
        # The agent leaves: what remains is wider, so nothing waits for the server.
        view.gone("agent")
        assert await view.ready(up) is None  # type: ignore[arg-type]

    run(body)


def test_agents_that_share_no_root_get_calls_refused() -> None:
    async def body(view: Roots, up: Upstream) -> None:
        view.holds("a", types.ListRootsResult(roots=[root("file:///p")]))
        view.holds("b", types.ListRootsResult(roots=[root("file:///q")]))
        answer = await view.answer(up)  # type: ignore[arg-type]
        assert isinstance(answer, types.ListRootsResult) and answer.roots == []
        refusal = await view.ready(up)  # type: ignore[arg-type]
        assert refusal is not None and "share no root" in refusal

    run(body)


def test_an_agent_that_fails_to_give_its_roots_grants_nothing() -> None:
    async def body(view: Roots, up: Upstream) -> None:
        view.holds("a", types.ListRootsResult(roots=[root("file:///p")]))
        view.holds("b", types.ErrorData(code=-1, message="no"))
        answer = await view.answer(up)  # type: ignore[arg-type]
        assert isinstance(answer, types.ListRootsResult) and answer.roots == []

    run(body)


def test_a_handshake_era_agent_is_asked_once_and_dropped_when_it_leaves() -> None:
    asked: list[int] = []

    async def ask() -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[root("file:///p")])

    class Exits:
        def __init__(self) -> None:
            self.callbacks: list[Any] = []

        def callback(self, fn: Any, *args: Any) -> None:
            self.callbacks.append((fn, args))

    class Connection:
        client_capabilities = types.ClientCapabilities(roots=types.RootsCapability())
        exit_stack = Exits()

    connection = Connection()

    async def body(view: Roots, up: Upstream) -> None:
        await view.connected(connection, ask, now=True)  # type: ignore[arg-type]
        await view.connected(connection, ask, now=True)  # type: ignore[arg-type]
        assert asked == [1]
        answer = await view.answer(up)  # type: ignore[arg-type]
        assert isinstance(answer, types.ListRootsResult) and uris(answer.roots) == ["file:///p"]
        for fn, args in connection.exit_stack.callbacks:
            fn(*args)
        assert isinstance(await view.answer(up), types.ErrorData)  # type: ignore[arg-type]

    run(body)


def test_a_restarted_server_is_waited_for_until_it_asks_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A new process of a server that used roots is on its own directories again: its
    # first calls must not run before it has the agents' roots.
    monkeypatch.setattr(roots_module, "SYNC_TIMEOUT", 0.2)

    async def body(view: Roots, up: Upstream) -> None:
        view.holds("agent", types.ListRootsResult(roots=[root("file:///p")]))
        await view.answer(up)  # type: ignore[arg-type]
        assert await view.ready(up) is None  # type: ignore[arg-type]
        view.starting(up)  # type: ignore[arg-type]
        refusal = await view.ready(up)  # type: ignore[arg-type]
        assert refusal is not None and "did not ask for them again" in refusal
        await view.answer(up)  # type: ignore[arg-type]
        assert await view.ready(up) is None  # type: ignore[arg-type]

    run(body)
