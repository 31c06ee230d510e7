"""The bridge: a handshake-era server's mid-call questions, put to a newest-era agent.

An agent of protocol 2026-07-28 cannot be sent a request; it is asked by result. So the
upstream call runs on in a task of its own, and each question the server sends meanwhile is
handed to the agent as an ``InputRequiredResult``: the question in ``inputRequests`` (under a
key such as ``elicitation-1``) and, as ``requestState``, a token the proxy mints
(``elision-ask:`` and 192 random bits; a fresh one each round). The agent answers by calling
the tool again with its ``inputResponses`` and that state; the answers go to the waiting
server requests and the same call goes on, until it asks again or ends (its result is then
the answer to the agent's last call).

What is held is bounded: a round the agent does not answer within the server's timeout
cancels the call upstream (the server gets ``notifications/cancelled``, then an error for
each open question) and forgets the token. A token that is unknown, spent or expired, that
another client's scope presents, or that comes back on another tool, gets an error that says
which. An agent that abandons its call while the proxy waits cancels it upstream as well.

Progress follows the rounds: the server's progress notifications go to the agent request
that is waiting on the call, the first one and then each call that answers (each carries its
own progress token), when the first one asked for progress. Questions are not written to the
audit log: it binds results, and a question is not one.

Every call of a newest-era agent to such a server is ready to be bridged, since nobody knows
beforehand whether the server will ask. It cannot run in the handler's own task: that task
must return the ``InputRequiredResult`` while the upstream call goes on, and an anyio cancel
scope (the call's timeout) cannot move from one task to another mid-call. Starting a task
per call cost ~35 us of a small call's CPU, so the calls run on a pool of worker tasks
instead, each waiting for its next call once it has finished one; the pool grows to the
number of calls in flight and keeps a few idle workers, until :meth:`Bridge.close` (the task
group they run in does not end while one waits).
"""

from __future__ import annotations

import contextvars
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp_types.jsonrpc import REQUEST_TIMEOUT
from pydantic import ValidationError

from elision.errors import UpstreamError
from elision.mcp.agent.scopes import is_unnamed
from elision.mcp.upstream.upstream import Deadline
from elision.redact.messages import clip

logger = logging.getLogger("elision.proxy")

#: How every ``requestState`` the proxy mints begins; anything else is the server's own.
STATE_PREFIX = "elision-ask:"


def is_proxy_state(state: str | None) -> bool:
    return state is not None and state.startswith(STATE_PREFIX)


@dataclass(eq=False)
class Question:
    """One request the server sent during a bridged call, as the agent is shown it."""

    key: str
    request: types.InputRequest
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: types.InputResponse | types.ErrorData | None = None

    def settle(self, answer: types.InputResponse | types.ErrorData) -> None:
        if self.answer is None:
            self.answer = answer
            self.answered.set()


@dataclass(eq=False)
class Held:
    """One bridged call: its upstream call runs in its own task while the agent answers."""

    tool: str
    scope: str
    deadline: Deadline
    #: Called once the upstream call is over (the proxy stops counting it as in flight).
    ended: Callable[[], None]
    token: str = ""
    questions: dict[str, Question] = field(default_factory=dict)
    asked: int = 0
    #: Set when a question comes or the call ends (made by whoever waits for that).
    changed: anyio.Event | None = None
    #: The upstream call's task; cancelling it cancels the call upstream.
    task: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    expiry: anyio.CancelScope | None = None
    finished: bool = False
    result: Any = None
    error: BaseException | None = None
    #: A downstream request is waiting on this call right now.
    waiting: bool = False
    #: Where the server's progress goes: a box whose ``ctx`` is the agent request now
    #: waiting (each round is a new request with its own progress token), or None.
    progress: Any = None
    #: Why it was cancelled, for the server's open questions.
    why: str = ""

    def wake(self) -> None:
        if self.changed is not None:
            self.changed.set()


#: Idle workers kept for later calls; more finish once their call is over.
IDLE_WORKERS = 4


class _Worker:
    """A task that runs bridged calls one after another (see the module docstring)."""

    def __init__(self) -> None:
        self.job: tuple[Held, Callable[[Deadline], Awaitable[Any]]] | None = None
        self.ready = anyio.Event()


class Bridge:
    """The held calls of one proxy, by token."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}
        self._tg: TaskGroup | None = None
        self._idle: list[_Worker] = []
        self._context: contextvars.Context | None = None
        self._closed = False

    def start(self, task_group: TaskGroup) -> None:
        self._tg = task_group
        # Workers start in the proxy's context, not in that of the request that needed one:
        # a worker serves many requests, and none of them should see another's variables.
        self._context = contextvars.copy_context()

    @property
    def ready(self) -> bool:
        return self._tg is not None

    def close(self) -> None:
        """Let the idle workers finish (busy ones finish after their call); calls bridged
        later each get a task of their own."""
        self._closed = True
        while self._idle:
            self._idle.pop().ready.set()  # with no job: the worker returns

    def __len__(self) -> int:
        """Calls waiting for an agent's answer (each holds an upstream call open)."""
        return len(self._held)

    async def open(self, held: Held, send: Callable[[Deadline], Awaitable[Any]]) -> Any:
        """Start the upstream call; its result, or its first question."""
        assert self._tg is not None and self._context is not None
        if self._idle and not self._closed:
            worker = self._idle.pop()
            worker.job = (held, send)
            worker.ready.set()
        else:
            self._context.run(self._tg.start_soon, self._work, held, send)
        return await self._next(held)

    async def _work(self, held: Held, send: Callable[[Deadline], Awaitable[Any]]) -> None:
        """Run ``held``, then each call handed to this worker, until enough others idle."""
        worker = _Worker()
        while True:
            await self._run(held, send)
            if self._closed or len(self._idle) >= IDLE_WORKERS:
                return
            worker.ready = anyio.Event()
            self._idle.append(worker)
            await worker.ready.wait()
            if worker.job is None:
                return  # closed
            (held, send), worker.job = worker.job, None

    def refusal(self, params: types.CallToolRequestParams, scope: str) -> str | None:
        """Why this answer to a bridged call cannot be taken, or None when it can."""
        state = params.request_state or ""
        held = self._held.get(state)
        if held is None:
            return (
                f"{params.name!r}: the request_state {clip(state, 24)!r} names no call this proxy "
                "is holding: it expired (an unanswered call is cancelled after the server's "
                "timeout), was answered already, or was never issued here; call the tool again"
            )
        if not _same_scope(held.scope, scope):
            return (
                f"{params.name!r}: this request_state belongs to another client's call; only "
                "the client that was asked can answer, so call the tool yourself"
            )
        if params.name != held.tool:
            return (
                f"{params.name!r}: this request_state belongs to a call of {held.tool!r}; "
                f"answer it by calling {held.tool!r} again"
            )
        return None

    async def resume(self, params: types.CallToolRequestParams, ctx: Any = None) -> Any:
        """The agent's answers (:meth:`refusal` said yes): the call's next question, or its
        result. ``ctx`` is the agent's request that brings them: progress goes to it now."""
        held = self._held.pop(params.request_state or "")
        if ctx is not None and held.progress is not None:
            held.progress.ctx = ctx
        if held.expiry is not None:
            held.expiry.cancel()
        for key, answer in (params.input_responses or {}).items():
            question = held.questions.get(key)
            if question is not None:
                question.settle(_checked(question.request, answer))
        return await self._next(held)

    async def ask(
        self, held: Held, request: types.InputRequest, kind: str
    ) -> types.InputResponse | types.ErrorData:
        """A question from the server during ``held``: wait for the agent's answer."""
        if held.finished:
            return types.ErrorData(code=types.INVALID_REQUEST,
                                   message="elision proxy: the call ended")
        held.asked += 1
        question = Question(f"{kind}-{held.asked}", request)
        held.questions[question.key] = question
        held.deadline.pause()
        held.wake()
        try:
            await question.answered.wait()
        finally:
            held.questions.pop(question.key, None)
            held.deadline.resume()
        assert question.answer is not None
        return question.answer

    async def _run(self, held: Held, send: Callable[[Deadline], Awaitable[Any]]) -> None:
        try:
            with held.task:
                held.result = await send(held.deadline)
            if held.task.cancelled_caught:
                held.error = UpstreamError(f"the call was cancelled: {held.why}")
        except Exception as exc:
            held.error = exc
        finally:
            held.finished = True
            held.ended()
            # The callback holds the proxy's record of the call, which holds this: a cycle
            # that only the collector would free, a collection every ~10 calls.
            held.ended = _ended
            for question in held.questions.values():
                question.settle(types.ErrorData(
                    code=REQUEST_TIMEOUT, message=f"elision proxy: {held.why or 'the call ended'}"
                ))
            held.wake()

    async def _next(self, held: Held) -> Any:
        """Wait for the held call's next question (returned as an ``InputRequiredResult``)
        or its end (its result returned, its error raised)."""
        held.waiting = True
        try:
            while True:
                if held.finished:
                    if held.error is not None:
                        raise held.error
                    return held.result
                pending = {k: q.request for k, q in held.questions.items() if q.answer is None}
                if pending:
                    self._hold(held)
                    return types.InputRequiredResult(
                        input_requests=pending, request_state=held.token
                    )
                held.changed = anyio.Event()
                await held.changed.wait()
        except anyio.get_cancelled_exc_class():
            # The agent abandoned the call: nobody will answer, so the server stops too.
            self._abort(held, "the agent abandoned the call")
            raise
        finally:
            held.waiting = False

    def _hold(self, held: Held) -> None:
        held.token = STATE_PREFIX + secrets.token_urlsafe(24)
        self._held[held.token] = held
        held.expiry = anyio.CancelScope()
        assert self._tg is not None
        self._tg.start_soon(self._expire, held, held.expiry)

    async def _expire(self, held: Held, expiry: anyio.CancelScope) -> None:
        timeout = held.deadline.timeout
        with expiry:
            await anyio.sleep(timeout)
            logger.warning(
                "a call of %r waited %g s for the agent to answer; it was cancelled",
                held.tool, timeout,
            )
            self._abort(held, f"the agent did not answer within {timeout:g} s")

    def _abort(self, held: Held, why: str) -> None:
        """Cancel the held call upstream. Its open questions are answered (with ``why``) only
        once the cancellation went out, so the server stops the tool rather than seeing an
        error it might carry on from."""
        self._held.pop(held.token, None)
        held.why = why
        if held.expiry is not None:
            held.expiry.cancel()
        held.task.cancel()


def _ended() -> None:
    pass


def result_type(request: types.InputRequest) -> type[types.InputResponse]:
    """The kind of answer ``request`` asks for."""
    if isinstance(request, types.ElicitRequest):
        return types.ElicitResult
    if isinstance(request, types.CreateMessageRequest):
        if request.params.tools or request.params.tool_choice:
            return types.CreateMessageResultWithTools
        return types.CreateMessageResult
    return types.ListRootsResult


def _checked(
    request: types.InputRequest, answer: types.InputResponse
) -> types.InputResponse | types.ErrorData:
    """``answer`` if it is the kind ``request`` asked for, else an error for the server."""
    expected = result_type(request)
    if isinstance(answer, expected):
        return answer
    try:  # the input-responses union may have read it as a sibling shape
        return expected.model_validate(
            answer.model_dump(by_alias=True, mode="json", exclude_none=True), by_name=False
        )
    except ValidationError:
        return types.ErrorData(
            code=types.INVALID_PARAMS,
            message=f"elision proxy: the agent answered {request.method} with a "
                    f"{type(answer).__name__}",
        )


def _same_scope(held: str, asking: str) -> bool:
    # A client that names itself nowhere gets a fresh scope per call; the 192-bit token it
    # was given is then all there is to know it by.
    if is_unnamed(held) and is_unnamed(asking):
        return True
    return hmac.compare_digest(held, asking)
