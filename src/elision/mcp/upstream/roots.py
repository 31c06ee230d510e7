"""The roots an upstream is given: answered by the proxy, from the roots of its agents.

A server that confines itself to its client's roots (the reference filesystem server) asks
``roots/list`` right after the handshake, and again on ``notifications/roots/list_changed``.
Its client is the proxy, whose one session with it serves every agent, so the proxy answers
for all of them, never for one:

* **Whose roots count.** Every agent that offers roots: a handshake-era agent that declared
  the capability on a connection that can carry requests (the proxy asks it once it is
  initialized, and again when it says its roots changed), and a newest-era agent while its
  call is in flight (that era has no notification for a change, so the proxy asks it, as the
  first round of each call to a server that uses roots). An agent that offers no roots sets
  no limit: connected directly, it would get the server's own configuration too.
* **The answer is the intersection**: a root goes to the server only where every agent that
  offers roots granted it (``file:///p`` and ``file:///p/x`` meet at ``file:///p/x``; other
  URIs only when equal). One agent's roots pass as it gave them. An agent that offers roots
  but fails to give them counts as granting nothing. With no agent offering roots the server
  gets an error, not an empty list: an empty list would say the agents granted nothing,
  when none has spoken, and a server then does what it does for a client without roots.
* **Re-sync.** When the answer changes, each server that has asked before is told
  ``notifications/roots/list_changed`` (an agent's own such notification is passed on to
  every server in any case). A call to a server that is behind waits, up to
  :data:`SYNC_TIMEOUT`, until it has asked again, and is refused if it does not: a call run
  on roots an agent withdrew is the access this module exists to prevent. So is a call while
  the agents share no root at all (the server got an empty list, which the reference server
  ignores, keeping the wider roots it had).
* **Applied, not just answered.** A server takes an answer in on its own time: the reference
  filesystem server checks each directory on disk before it swaps them in, so a call sent the
  moment it has its answer still runs on the directories it had. The protocol has no
  acknowledgement, so after each answer that changed what a server holds, its next call waits
  until :data:`SETTLE` has passed since the answer and a ``ping`` sent after that has come back
  (the server has read everything before it). A server slower than that to apply roots can
  still run one call on the older ones; :data:`SETTLE` is the bound this proxy promises.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.shared.exceptions import MCPError

if TYPE_CHECKING:
    from mcp.server.connection import Connection

    from elision.mcp.upstream.upstream import Upstream

logger = logging.getLogger("elision.proxy")

#: How long a call waits for its server to take the agents' current roots.
SYNC_TIMEOUT = 5.0
#: How long an agent has to answer the proxy's ``roots/list``.
ASK_TIMEOUT = 10.0
#: How long a server is given to apply an answer to ``roots/list`` before a call goes to it.
SETTLE = 0.25

#: What the server last got: the roots' URIs, or None for the error "no agent offers roots".
Given = tuple[str, ...] | None


class Roots:
    """The agents' roots, and what each upstream was last given of them."""

    def __init__(self, upstreams: Callable[[], Iterable[Upstream]]) -> None:
        self._upstreams = upstreams
        #: Each agent that offers roots (a connection, or a newest-era call): its roots, or
        #: None while the proxy is still asking it.
        self._agents: dict[object, list[types.Root] | None] = {}
        #: Per upstream that asked at least once: what it was given last.
        self._given: dict[str, Given] = {}
        #: Per upstream: when it was last given an answer that differs from the one before,
        #: until a call has waited for it to be applied (see the module's "Applied").
        self._applying: dict[str, float] = {}
        self._moved = anyio.Event()
        self._tg: TaskGroup | None = None

    def start(self, task_group: TaskGroup) -> None:
        self._tg = task_group

    # -- the agents ------------------------------------------------------------------------

    async def connected(
        self, connection: Connection, ask: Callable[[], Awaitable[Any]], *, now: bool
    ) -> None:
        """A handshake-era agent: when it offers roots, ask it for them with ``ask``, now
        (and wait) or in the background."""
        if self.seen(connection):
            return
        self._agents[connection] = None
        connection.exit_stack.callback(self.gone, connection)
        if now:
            await self._ask(connection, ask, False)
        else:
            self._spawn(self._ask, connection, ask, False)

    def seen(self, connection: Connection) -> bool:
        """Whether ``connection`` was taken in already, or offers no roots to take."""
        caps = connection.client_capabilities
        return connection in self._agents or caps is None or caps.roots is None

    def changed(self, connection: Connection | None) -> None:
        """A handshake-era agent said its roots changed: ask it again, tell every server."""
        if connection is not None and connection in self._agents:
            self._agents[connection] = None
            self._moved_now()
            self._spawn(self._ask, connection, _asker(connection), True)
        else:
            self._spawn(self._tell, True)

    def holds(self, agent: object, answer: types.InputResponse | types.ErrorData) -> None:
        """A newest-era agent's answer to ``roots/list``: its roots while its call runs."""
        self._agents[agent] = _roots_of(answer)
        self._after_change()

    def knows(self, agent: object) -> bool:
        return self._agents.get(agent) is not None

    def gone(self, agent: object) -> None:
        """An agent left (or its call ended): its roots no longer count. What remains is
        only wider, so no call waits for it; servers are told when other agents remain, so
        those get back what they granted."""
        if self._agents.pop(agent, 0) == 0:
            return
        self._moved_now()
        if self._offered():
            self._spawn(self._tell, False)

    async def _ask(
        self, connection: Connection, ask: Callable[[], Awaitable[Any]], tell_all: bool
    ) -> None:
        answer: types.InputResponse | types.ErrorData
        try:
            with anyio.fail_after(ASK_TIMEOUT):
                answer = await ask()
        except MCPError as exc:
            answer = exc.error
        except Exception as exc:
            logger.warning("could not ask an agent for its roots: %s", type(exc).__name__)
            answer = types.ErrorData(code=types.INTERNAL_ERROR, message=type(exc).__name__)
        if connection in self._agents:
            self._agents[connection] = _roots_of(answer)
        self._after_change(tell_all)

    # -- the upstreams ---------------------------------------------------------------------

    def starting(self, upstream: Upstream) -> None:
        """A new session with ``upstream``: a server that used roots starts over on its own
        directories, so its calls wait until it asks again."""
        if upstream.name in self._given:
            self._given[upstream.name] = None
            self._applying.pop(upstream.name, None)
            self._moved_now()

    def uses_roots(self, upstream: Upstream) -> bool:
        return upstream.name in self._given

    async def answer(self, upstream: Upstream) -> types.ListRootsResult | types.ErrorData:
        """The answer to ``roots/list`` from ``upstream``."""
        await self._wait(lambda: not self._asking(), SYNC_TIMEOUT)
        given = self._current()
        if given is not None and self._given.get(upstream.name, 0) != given:
            # (An error leaves a server on what it had: nothing new to apply.)
            self._applying[upstream.name] = anyio.current_time()
        self._given[upstream.name] = given
        self._moved_now()
        if given is None:
            return types.ErrorData(
                code=types.INVALID_REQUEST,
                message="elision proxy: no connected agent offers roots",
            )
        return types.ListRootsResult(roots=self._roots(given))

    async def ready(self, upstream: Upstream) -> str | None:
        """Wait until ``upstream`` has no root beyond what the agents grant now; why not, if
        it does not come to that."""
        name = upstream.name
        if name not in self._given:
            return None

        def settled() -> bool:
            given, current = self._given.get(name), self._current()
            return not self._asking() and (_safe(given, current) or given == current == ())

        await self._wait(settled, SYNC_TIMEOUT)
        if self._given.get(name) == () and self._current() == ():
            return (
                f"elision proxy: the connected agents share no root (or one that offers "
                f"roots gave none), and server {name!r} may keep its own directories on an "
                "empty list, so the call was not sent; give the agents a common root, or "
                "each its own proxy"
            )
        if self._asking():
            return (
                f"elision proxy: an agent did not give its roots within {SYNC_TIMEOUT:g} s, "
                f"so the call to server {name!r} was not sent; call again once it has"
            )
        if not settled():
            return (
                f"elision proxy: server {name!r} was told the agents' roots changed and did "
                f"not ask for them again within {SYNC_TIMEOUT:g} s, so the call was not sent: "
                "it could still use a root an agent withdrew; restart the server or check "
                "that it handles notifications/roots/list_changed"
            )
        await self._applied(upstream)
        return None

    async def _applied(self, upstream: Upstream) -> None:
        """Give ``upstream`` :data:`SETTLE` after its last new answer, and a ``ping`` round
        trip after that, to take the answer in (see the module's "Applied")."""
        since = self._applying.get(upstream.name)
        if since is None:
            return
        await anyio.sleep(max(0.0, since + SETTLE - anyio.current_time()))
        try:
            await upstream.call("ping", lambda session: session.send_ping())
        except Exception as exc:  # the call itself will meet whatever is wrong
            logger.warning("could not ping %r after giving it roots: %s", upstream.name,
                           type(exc).__name__)
        if self._applying.get(upstream.name) == since:
            del self._applying[upstream.name]

    # -- inside ----------------------------------------------------------------------------

    def _asking(self) -> bool:
        return any(roots is None for roots in self._agents.values())

    def _offered(self) -> list[list[types.Root]]:
        return [roots for roots in self._agents.values() if roots is not None]

    def _current(self) -> Given:
        offered = self._offered()
        if not offered:
            return None
        return tuple(str(root.uri) for root in intersect(offered))

    def _roots(self, given: tuple[str, ...]) -> list[types.Root]:
        by_uri = {str(root.uri): root for roots in self._offered() for root in roots}
        return [by_uri.get(uri) or types.Root(uri=uri) for uri in given]  # type: ignore[arg-type]

    def _after_change(self, tell_all: bool = False) -> None:
        self._moved_now()
        self._spawn(self._tell, tell_all)

    async def _tell(self, tell_all: bool) -> None:
        if self._asking():
            return  # told once the last answer is in
        current = self._current()
        for upstream in self._upstreams():
            behind = upstream.name in self._given and self._given[upstream.name] != current
            # A call waits only for one that may hold more than is granted (see ready).
            if tell_all or behind:
                await upstream.notify(types.RootsListChangedNotification())

    def _moved_now(self) -> None:
        self._moved.set()
        self._moved = anyio.Event()

    async def _wait(self, done: Callable[[], bool], timeout: float) -> bool:
        with anyio.move_on_after(timeout):
            while not done():
                await self._moved.wait()
            return True
        return done()

    def _spawn(self, work: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        if self._tg is not None:
            self._tg.start_soon(work, *args)


def _safe(given: Given, current: Given) -> bool:
    """Whether a server given ``given`` holds no root beyond ``current``."""
    if current is None:
        return True  # no agent sets a limit
    if not given:
        return False  # on its own directories: none, or an empty list it may ignore
    granted = [_root(uri) for uri in current]
    return all(any(_holds(g, _root(uri)) for g in granted) for uri in given)


def _root(uri: str) -> types.Root:
    return types.Root(uri=uri)  # type: ignore[arg-type]


def _holds(outer: types.Root, inner: types.Root) -> bool:
    po, pi = _file_path(outer), _file_path(inner)
    if po is None or pi is None:
        return str(outer.uri) == str(inner.uri)
    return _within(pi, po)


def _asker(connection: Connection) -> Callable[[], Awaitable[Any]]:
    """Asks on the connection's own channel (stdio, or an HTTP session's GET stream)."""
    return lambda: connection.send_request(types.ListRootsRequest())


def _roots_of(answer: types.InputResponse | types.ErrorData) -> list[types.Root]:
    """An agent's roots from its answer; an error (or a wrong kind) grants nothing."""
    if isinstance(answer, types.ListRootsResult):
        return list(answer.roots)
    return []


def intersect(offered: Sequence[Sequence[types.Root]]) -> list[types.Root]:
    """The roots every list grants: one list as it is, several met pairwise."""
    result = list(offered[0])
    for other in offered[1:]:
        met: list[types.Root] = []
        for a in result:
            for b in other:
                inner = _meet(a, b)
                if inner is not None and all(str(inner.uri) != str(m.uri) for m in met):
                    met.append(inner)
        result = met
    return result


def _meet(a: types.Root, b: types.Root) -> types.Root | None:
    """The narrower of two roots when one holds the other, else None."""
    if _holds(a, b):
        return _normalized(b)
    if _holds(b, a):
        return _normalized(a)
    return None


def _file_path(root: types.Root) -> tuple[str, str] | None:
    """``(host, normalized path)`` of a ``file:`` root; None for any other scheme."""
    parts = urlsplit(str(root.uri))
    if parts.scheme != "file" or parts.query or parts.fragment:
        return None
    # Normalized, so that ``/p/../etc`` is not taken to be inside ``/p``.
    path = posixpath.normpath("/" + unquote(parts.path).lstrip("/"))
    return parts.netloc, "/" if path == "//" else path


def _within(inner: tuple[str, str], outer: tuple[str, str]) -> bool:
    if inner[0] != outer[0]:
        return False
    if outer[1] == "/":
        return True
    return inner[1] == outer[1] or inner[1].startswith(outer[1] + "/")


def _normalized(root: types.Root) -> types.Root:
    """``root`` with a ``file:`` URI spelled without ``..``, ``.`` or doubled slashes."""
    where = _file_path(root)
    if where is None:
        return root
    uri = f"file://{where[0]}{quote(where[1])}"
    if uri == str(root.uri):
        return root
    fields = root.model_dump(by_alias=True, mode="json", exclude_none=True)
    return types.Root.model_validate({**fields, "uri": uri}, by_name=False)
