"""Talk to a server as a real MCP client: list its tools, call them, judge the answers.

The lint connects over stdio (a command, run with the caller's environment, since servers are
often configured by variables) or streamable HTTP (a URL) with the official SDK, makes every
scenario call, and for a tool with a limit-like argument one more call with that argument at
1. A tool without a scenario is called with arguments made from its input schema
(:mod:`elision.lint.arguments`). Each answer is read as a consumer reads it: its text blocks
as one JSON document, or as the array of them when each is one (a list sent an item a block),
else the first text block that is a JSON document (what a head slice cuts), else the
structured content (unless it only wraps the text, as ``{"result": "..."}`` or
``{"content": "..."}`` do), else the text.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
import orjson

from elision.errors import DepthError, InputError, UpstreamError
from elision.lint.arguments import ArgumentsError, generate_arguments
from elision.lint.judge import ToolReport, judge_tool
from elision.lint.rules import Response, limit_argument
from elision.lint.scan import scan
from elision.lint.scenarios import Scenario
from elision.mcp.gate.tools import PROXY_TOOLS
from elision.redact.messages import describe
from elision.shape.jsonparse import parse_json

#: How long one tool call may take before it is reported as an error.
DEFAULT_CALL_TIMEOUT = 60.0

#: Called before each tool call with a description, for a progress display.
OnCall = Callable[[str], None]


@dataclass(frozen=True)
class Target:
    """The server to lint: a command to start over stdio, or a streamable HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.url):
            raise InputError(
                "give exactly one server to lint: a command after -- or --url; got "
                + ("both" if self.command else "neither")
            )
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise InputError(f"--url must be an http:// or https:// URL, got {self.url!r}")

    def describe(self) -> str:
        return self.url or " ".join(self.command)


@dataclass
class LintResult:
    """What one lint run found: a report per tool, in the order the server lists them."""

    target: str
    tools: list[ToolReport]
    unknown_scenarios: list[str]
    #: The tools elision proxy adds, when the server linted is a proxy: not the server's.
    skipped: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """Whether the run fails: a rule failed, a scenario names an unknown tool, or a tool
        was not exercised (nothing it answered could be judged, so it must not read as PASS)."""
        return self.status != "pass"

    @property
    def status(self) -> str:
        """``fail``, else ``not exercised`` when any tool was not, else ``pass``."""
        if self.unknown_scenarios or any(t.failed for t in self.tools):
            return "fail"
        if any(not t.exercised for t in self.tools):
            return "not exercised"
        return "pass"


#: The name of the scenario made from a tool's input schema.
GENERATED = "arguments from the input schema"


def plan(
    tools: Sequence[types.Tool], scenarios: dict[str, list[Scenario]]
) -> dict[str, tuple[list[Scenario], str | None]]:
    """Per tool, the calls to make and, when none can be made, why not.

    A tool without a scenario gets one made from its input schema, unless its annotations
    say it is destructive."""
    out: dict[str, tuple[list[Scenario], str | None]] = {}
    for tool in tools:
        mine = scenarios.get(tool.name)
        if mine:
            out[tool.name] = (mine, None)
            continue
        notes = tool.annotations
        if notes is not None and notes.destructive_hint is True and not notes.read_only_hint:
            # Made-up arguments on a tool that says it destroys: only a scenario calls it.
            out[tool.name] = ([], "its annotations say it is destructive (destructiveHint), "
                                  "so it is not called with made-up arguments")
            continue
        try:
            arguments = generate_arguments(tool.input_schema, limit_argument(tool.input_schema))
        except ArgumentsError as exc:
            out[tool.name] = ([], f"no arguments made from its input schema validate ({exc})")
            continue
        out[tool.name] = ([Scenario(tool.name, GENERATED, arguments)], None)
    return out


def planned_calls(tools: Sequence[types.Tool], scenarios: dict[str, list[Scenario]]) -> int:
    """How many calls :func:`run_lint` will make, for a progress bar's total."""
    total = 0
    planned = plan(tools, scenarios)
    for tool in tools:
        mine = planned[tool.name][0]
        total += len(mine)
        if mine and limit_argument(tool.input_schema) and any(
            s.induced_failure is None for s in mine
        ):
            total += 1
    return total


async def run_lint(
    target: Target,
    scenarios: dict[str, list[Scenario]],
    *,
    timeout: float = DEFAULT_CALL_TIMEOUT,
    on_start: Callable[[int], None] | None = None,
    on_call: OnCall | None = None,
) -> LintResult:
    """Connect, list, call and judge. ``on_start`` gets the number of calls planned."""
    from mcp import Client, StdioServerParameters

    server: Any
    if target.url is not None:
        from mcp.client.streamable_http import streamable_http_client

        server = streamable_http_client(target.url, max_sse_event_size=None)
    else:
        server = StdioServerParameters(
            command=target.command[0], args=list(target.command[1:]),
            encoding_error_handler="replace", env=dict(os.environ),
        )
    reports: list[ToolReport] = []
    tools: list[types.Tool] = []
    skipped: list[str] = []
    connected = False
    try:
        # read_timeout_seconds also bounds the handshake: a command that never speaks MCP
        # must not hang the lint.
        async with Client(server, mode="legacy", cache=None,
                          read_timeout_seconds=timeout) as client:
            connected = True
            tools = await _list_tools(client)
            # A server linted through elision proxy lists elision_fetch and
            # elision_fetch_reference beside its own tools: they page what another tool
            # answered, no made-up call reaches data, and each failed the run as NOT
            # EXERCISED. A scenario for one lints it.
            skipped = [t.name for t in tools if t.name in PROXY_TOOLS
                       and not scenarios.get(t.name)]
            tools = [t for t in tools if t.name not in skipped]
            planned = plan(tools, scenarios)
            if on_start is not None:
                on_start(planned_calls(tools, scenarios))
            for tool in tools:
                mine, why_not = planned[tool.name]
                report = await _lint_tool(client, tool, mine, timeout, on_call)
                report.not_called = why_not
                reports.append(report)
    except Exception as exc:
        if connected and reports and len(reports) == len(tools):
            pass  # the server went away while the session closed: every answer is in
        else:
            stage = "while linting" if connected else "could not connect to"
            raise UpstreamError(
                f"{stage} {target.describe()!r}: {describe(exc)}; check that the command "
                "runs on its own (or the URL answers) and speaks MCP"
            ) from None
    listed = {t.name for t in tools} | set(skipped)
    unknown = sorted(name for name in scenarios if name not in listed)
    return LintResult(target.describe(), reports, unknown, skipped)


async def _list_tools(client: Any) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(1000):  # a server that pages forever must not hang the lint
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


async def _lint_tool(
    client: Any, tool: types.Tool, scenarios: list[Scenario], timeout: float,
    on_call: OnCall | None,
) -> ToolReport:
    responses: list[Response] = []
    limited: list[Response] = []
    errors: list[str] = []
    limit_arg = limit_argument(tool.input_schema)
    # Not passed, the limit is the schema's default: an answer at it is at its limit too.
    spec = (tool.input_schema.get("properties") or {}).get(limit_arg) if limit_arg else None
    default = spec.get("default") if isinstance(spec, dict) else None
    for sc in scenarios:
        label = f"scenario {sc.name!r}"
        given = sc.arguments.get(limit_arg, default) if limit_arg else None
        resp = await _call(client, tool.name, sc.arguments, label, timeout, errors, on_call)
        if resp is not None:
            resp.induced_failure = sc.induced_failure
            resp.limit = given if isinstance(given, int) and not isinstance(given, bool) else None
            responses.append(resp)
    base = next((s for s in scenarios if s.induced_failure is None), None)
    if limit_arg is not None and base is not None:
        arguments = {**base.arguments, limit_arg: 1}
        label = f"scenario {base.name!r} with {limit_arg}=1"
        resp = await _call(client, tool.name, arguments, label, timeout, errors, on_call)
        if resp is not None:
            resp.limit = 1
            limited.append(resp)
    report = judge_tool(tool.name, tool.input_schema, tool.output_schema, responses, limited,
                        errors)
    report.generated = next((s.arguments for s in scenarios if s.name == GENERATED), None)
    return report


async def _call(
    client: Any, name: str, arguments: dict[str, Any], label: str, timeout: float,
    errors: list[str], on_call: OnCall | None,
) -> Response | None:
    if on_call is not None:
        on_call(f"{name}: {label}")
    try:
        with anyio.fail_after(timeout):
            result = await client.call_tool(name, arguments)
    except TimeoutError:
        errors.append(f"{label}: no answer within {timeout:g} s")
        return None
    except Exception as exc:
        errors.append(f"{label}: the call failed: {describe(exc)}")
        return None
    return response_of(result, label)


def response_of(result: types.CallToolResult, label: str) -> Response:
    """A call's answer as a consumer reads it."""
    texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
    candidates = [t.encode("utf-8", "surrogatepass") for t in texts]
    if len(texts) > 1:
        # A list the SDK sent as one block an item: the answer is all of them, so it is
        # judged as their array (its first block alone is one item, and passed every rule).
        items = _documents(candidates)
        if items is not None:
            candidates = [b"[" + b",".join(items) + b"]"]
        candidates.insert(0, "".join(texts).encode("utf-8", "surrogatepass"))
    structured = result.structured_content
    # {"result": "<the text>"} is how SDKs wrap a tool that returns a str, {"content": ...} how
    # the filesystem server does: the text is the answer, and it is judged as text.
    if structured is not None and not _wraps(structured, "".join(texts)):
        candidates.append(orjson.dumps(structured))
    for body in candidates:
        if body.lstrip()[:1] in (b"{", b"["):
            try:
                parse_json(body)
                found = scan(body)
            except DepthError:
                break  # deeper than any consumer walks: judged as text
            except InputError:
                continue
            return Response(label, body, bool(result.is_error), found)
    body = "\n".join(texts).encode("utf-8", "surrogatepass")
    return Response(label, body, bool(result.is_error), None)


def _documents(blocks: list[bytes]) -> list[bytes] | None:
    """The blocks, when every one is a JSON object or array; else None."""
    for block in blocks:
        if block.lstrip()[:1] not in (b"{", b"["):
            return None
        try:
            parse_json(block)
        except (InputError, DepthError):
            return None
    return blocks


def _wraps(structured: Any, text: str) -> bool:
    """Whether ``structured`` is one member whose value is the text blocks' text."""
    return (isinstance(structured, dict) and len(structured) == 1
            and next(iter(structured.values())) == text)
