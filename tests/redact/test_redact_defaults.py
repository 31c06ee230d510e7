"""Redaction is on by default on every front end, and off only when asked (issue 13).

Each front end is given every seeded credential (:mod:`support.seeded`) in a JSON result and
in a text one; none may come out. The explicit opt-out (``redactor=None`` in Python,
``--no-redact`` on the CLI) shows them as they are, which also proves each case can fail.
Found by issue 13: ``elision shape`` and a default ``Pipeline()`` did not redact at all.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import orjson
import pytest
from click.testing import CliRunner
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from elision import Budget, Pipeline, shape
from elision.cli import main
from elision.envelope import META_KEY, read_envelope
from elision.guard.policy import Decision, Guardian, Redaction, ToolCall, ToolResult
from elision.guard.policy import apply_redactions as apply
from elision.server import coverage, response, shaped
from elision.server._shaping import shape_value
from elision.server.decorator import shape_result
from mcp import Client
from support.seeded import leaks, seeded_document, seeded_log, seeds

BIG = 100_000  # a budget everything fits in: what is withheld is then redaction's doing


def _all_leak(text: str) -> None:
    assert set(leaks(text)) == {s.name for s in seeds()}, "the opt-out did not show them all"


def _none_leak(text: str, where: str) -> None:
    leaked = sorted(leaks(text))
    assert not leaked, f"{', '.join(leaked)} reached the output of {where}"


# -- the library ---------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [
    json.dumps(seeded_document()),  # a JSON body that fits
    json.dumps({**seeded_document(), "rows": list(range(5000))}),  # one that is cut
    seeded_log(),  # a text body
])
def test_a_default_pipeline_withholds_and_redactor_none_does_not(payload: str) -> None:
    shaped = Pipeline().run(payload, budget=8192)
    _none_leak(shaped.text, "Pipeline()")
    assert shaped.complete is False
    _all_leak(Pipeline(redactor=None).run(payload, budget=BIG).text)


@pytest.mark.parametrize("payload", [seeded_document(), json.dumps(seeded_document()),
                                     seeded_log()])
def test_shape_withholds_by_default_and_says_so(payload: Any) -> None:
    shaped = shape(payload, BIG)
    _none_leak(shaped.text, "shape()")
    if not isinstance(payload, str) or payload.startswith("{"):
        env = read_envelope(shaped.text)
        assert env is not None and env["complete"] is False
        assert {w["reason"] for w in env["withheld"]} >= {"github-token", "jwt"}
    _all_leak(shape(payload, BIG, redactor=None).text)


# -- the CLI -------------------------------------------------------------------------------------


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("ELISION_STORE", raising=False)
    return CliRunner()


@pytest.mark.parametrize(("name", "body"), [
    ("result.json", json.dumps({**seeded_document(), "rows": list(range(3000))})),
    ("build.log", seeded_log() + "".join(f"line {i}\n" for i in range(3000))),
])
def test_cli_shape_and_fetch_withhold_by_default(
    runner: CliRunner, tmp_path: Path, name: str, body: str
) -> None:
    source = tmp_path / name
    source.write_text(body)
    out = runner.invoke(main, ["shape", str(source), "--budget", "4096"])
    assert out.exit_code == 0, out.output
    _none_leak(out.stdout, "elision shape")
    env = read_envelope(out.stdout) if name.endswith(".json") else None
    ref = env["ref"] if env else re.search(r"ref=(el_[\w-]+)", out.stdout)[1]  # type: ignore[index]
    whole = runner.invoke(main, ["fetch", ref, "--budget", str(BIG)])
    assert whole.exit_code == 0, whole.output
    _none_leak(whole.stdout, "elision fetch")
    # Asked for, on purpose: the body as it is.
    raw = runner.invoke(main, ["shape", str(source), "--budget", str(BIG * 10), "--no-redact"])
    _all_leak(raw.stdout)
    raw_page = runner.invoke(main, ["fetch", ref, "--budget", str(BIG * 10), "--no-redact"])
    assert raw_page.exit_code == 0, raw_page.output
    _all_leak(raw_page.stdout)


def test_cli_shape_of_stdin_withholds(runner: CliRunner) -> None:
    out = runner.invoke(main, ["shape", "-", "--no-store"], input=seeded_log())
    assert out.exit_code == 0, out.output
    _none_leak(out.stdout, "elision shape -")
    assert "[credential withheld: github-token]" in out.stdout


# -- the server helpers --------------------------------------------------------------------------


def test_coverage_and_response_withhold_by_default() -> None:
    cover = coverage(shown=1, total=2, warnings=[s.text for s in seeds()])
    _none_leak(json.dumps(cover), "coverage()")
    built = response(cover, items=seeded_document()["items"])
    _none_leak(json.dumps(built), "response()")
    assert built["items"][0]["kind"] == "github-token"  # harmless members stay
    raw = response(coverage(shown=1, total=2, redactor=None), redactor=None,
                   items=seeded_document()["items"])
    _all_leak(json.dumps(raw))


@pytest.mark.parametrize("cap", [BIG, 2048])
def test_server_shaping_withholds_and_lists_what_it_withheld(cap: int) -> None:
    doc = {**seeded_document(), "rows": list(range(2000))}
    shaped = shape_value(doc, cap, limit=5)
    _none_leak(shaped.text, "shape_value")
    assert shaped.envelope is not None and shaped.envelope["complete"] is False
    assert shaped.envelope["withheld"], "withheld silently"
    # Nothing cut (no limit, room for all): the envelope still says what was withheld.
    fits = shape_value(seeded_document(), BIG)
    assert fits.envelope is not None and fits.envelope["withheld"]
    _all_leak(shape_value(seeded_document(), BIG, redactor=None).text)


@pytest.mark.parametrize("value", [
    seeded_document(),  # structured
    seeded_log(),  # text
    types.CallToolResult(  # a result the tool built itself: not shaped, still redacted
        content=[types.TextContent(text=seeded_log())],
        structured_content=seeded_document()),
])
def test_the_shaped_decorator_withholds_on_every_kind_of_answer(value: Any) -> None:
    result = shape_result(value, BIG)
    _none_leak(result.model_dump_json(by_alias=True), "@shaped")
    _all_leak(shape_result(value, BIG, redactor=None).model_dump_json(by_alias=True))


@pytest.mark.parametrize("error", [ToolError, ValueError])
def test_the_shaped_decorator_withholds_from_a_tool_error(error: type[Exception]) -> None:
    server = MCPServer("seeded")

    @server.tool()
    @shaped(cap=4096)
    def refuses() -> str:
        """An error that quotes every seed: the server shows its message to the client."""
        raise error(seeded_log())

    @server.tool()
    @shaped(cap=4096)
    async def refuses_later() -> str:
        """The same from an async tool."""
        raise error(seeded_log())

    async def main() -> str:
        async with Client(server) as client:
            got = [await client.call_tool(n, {}) for n in ("refuses", "refuses_later")]
        assert all(r.is_error for r in got)
        return " ".join(r.model_dump_json(by_alias=True) for r in got)

    _none_leak(anyio.run(main), "@shaped (an error)")


def test_the_fastmcp_middleware_withholds_by_default() -> None:
    fastmcp = pytest.importorskip("fastmcp")
    from elision.server.fastmcp import ElisionMiddleware

    def server(**options: Any) -> Any:
        app = fastmcp.FastMCP("seeded")
        app.add_middleware(ElisionMiddleware(cap=BIG, **options))

        @app.tool()
        def doc() -> dict[str, Any]:
            """Structured, with every seed."""
            return seeded_document()

        @app.tool()
        def log() -> str:
            """Text, with every seed."""
            return seeded_log()

        @app.tool()
        def refuses() -> str:
            """A ToolError that quotes every seed: FastMCP shows its message."""
            raise fastmcp.exceptions.ToolError(seeded_log())

        @app.tool()
        def breaks() -> str:
            """Any other exception: FastMCP shows its message too, by default."""
            raise ValueError(seeded_log())

        return app

    async def calls(**options: Any) -> str:
        async with fastmcp.Client(server(**options)) as client:
            got = [await client.call_tool_mcp(name, {})
                   for name in ("doc", "log", "refuses", "breaks")]
        return " ".join(r.model_dump_json(by_alias=True) for r in got)

    _none_leak(anyio.run(calls), "ElisionMiddleware")
    # A tool left out of `tools` is not shaped, but it is redacted.
    _none_leak(anyio.run(lambda: calls(tools=["nothing"])), "ElisionMiddleware(tools=…)")
    _all_leak(anyio.run(lambda: calls(redactor=None)))


# -- the Guardian's modify path ------------------------------------------------------------------


class _Tidy:
    """A policy of the operator's own: it replaces one field (with a note that quotes a seed)
    and says why in a reason that quotes another."""

    id = "tidy"

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        first = seeds()[0].text
        return Decision.modify(
            [Redaction("/items/1/note", "tidied", replacement=f"was: {first}")],
            f"tidied a field next to {seeds()[2].text}", "tidied",
        )


def _result(value: Any) -> ToolResult:
    body = orjson.dumps(value)
    return ToolResult(value, len(body), hashlib.sha256(body).hexdigest())


def test_a_modified_result_from_the_guardian_is_redacted() -> None:
    value = seeded_document()
    verdict = Guardian([_Tidy()]).evaluate(_result(value), ToolCall("t"))
    assert verdict.decision == "modify"
    shown = json.dumps(apply(value, verdict.redactions))
    _none_leak(shown + verdict.reason, "a Guardian modify")
    assert "was: push with [credential withheld: github-token]" in shown  # its own change
    assert "redaction-rules" in verdict.policy_ids
    assert verdict.withheld_counts().get("jwt", 0) >= 1
    # redactor=None: the operator's modification exactly as written, and nothing else.
    bare = Guardian([_Tidy()], redactor=None).evaluate(_result(value), ToolCall("t"))
    assert [r.path for r in bare.redactions] == ["/items/1/note"]
    assert seeds()[0].secret in json.dumps(apply(value, bare.redactions)) + bare.reason


def test_a_guardian_deny_reason_does_not_quote_a_credential() -> None:
    class Quoting:
        id = "quoting"

        def decide(self, result: ToolResult, call: ToolCall) -> Decision:
            return Decision.deny(f"found {seeds()[0].text}", "found")

    verdict = Guardian([Quoting()]).evaluate(_result({}), ToolCall("t"))
    assert verdict.decision == "deny"
    _none_leak(verdict.reason, "a Guardian deny reason")
    assert "found push with [credential withheld: github-token]" in verdict.reason


def test_meta_key_is_the_envelope_of_a_shaped_server_answer() -> None:
    result = shape_result(seeded_document(), BIG)
    assert result.meta is not None and result.meta[META_KEY]["withheld"]


# -- the Claude Code hook and the framework adapters ---------------------------------------------


@pytest.mark.parametrize("response", [seeded_log(), seeded_document()])
def test_the_claude_code_hook_replaces_a_result_that_holds_a_credential(
    runner: CliRunner, response: Any
) -> None:
    event = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "session_id": "s",
             "tool_response": response}
    out = runner.invoke(main, ["hook", "claude-code", "--no-audit"], input=json.dumps(event))
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)  # empty would mean "leave the result as it is"
    _none_leak(answer["hookSpecificOutput"]["updatedToolOutput"], "elision hook claude-code")


def test_the_adapters_shared_output_withholds() -> None:
    from elision.adapters.core import shape_output

    for output in (seeded_document(), seeded_log()):
        _none_leak(shape_output(Pipeline(budget=Budget(BIG)), output), "adapters.shape_output")
    _all_leak(shape_output(Pipeline(budget=Budget(BIG * 10), redactor=None), seeded_log()))
