"""The proxy's stages from command-line choices, and its fail-closed answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from click.testing import CliRunner

from elision.audit.log import AuditLog
from elision.audit.stage import LogAuditor
from elision.budget import Budget
from elision.cli import main
from elision.errors import AuditError, InputError
from elision.guard.config import ConfigError
from elision.guard.policy import Guardian, SizeCeiling, ToolLists
from elision.guard.stage import GuardStage
from elision.mcp.gate.results import ResultShaper
from elision.mcp.gate.tools import FETCH_REFERENCE_TOOL
from elision.mcp.launch import DEFAULT_MAX_BYTES, Stages, build_proxy
from elision.mcp.proxy import Proxy
from elision.mcp.upstream.config import ServerSpec
from elision.pipeline import AuditRecord, Pipeline
from elision.redact import RedactStage

UPSTREAM = ("python", "-c", "pass")  # never started: build_proxy only builds


def policies(proxy: Proxy) -> list[Any]:
    guard = proxy.pipeline.guard
    assert isinstance(guard, GuardStage)
    return guard.guardian.policies


def test_by_default_every_stage_runs_and_the_log_sits_where_asked(tmp_path: Path) -> None:
    proxy = build_proxy(command=UPSTREAM, store_spec=":memory:",
                        stages=Stages(audit_path=str(tmp_path / "a.db")))
    try:
        assert isinstance(proxy.pipeline.redactor, RedactStage)
        assert isinstance(proxy.pipeline.auditor, LogAuditor)
        assert proxy.pipeline.auditor.log.path == tmp_path / "a.db"
        # The ceiling is on even with no flag: a body the store cannot keep is refused whole.
        assert policies(proxy) == [SizeCeiling(DEFAULT_MAX_BYTES)]
    finally:
        anyio.run(proxy.aclose)
    assert proxy.pipeline.auditor.log._closed  # closed (and checkpointed) at shutdown


def test_flags_and_the_guard_config_combine(tmp_path: Path) -> None:
    config = tmp_path / "guard.toml"
    config.write_text(
        '[guardian]\nmax_bytes = 5000\nallow_tools = ["read_*"]\ndeny_tools = ["shell"]\n'
        'redact = true\n\n[audit]\nlog = "' + str(tmp_path / "from-config.db") + '"\n'
        "checkpoint_every = 7\n"
    )
    proxy = build_proxy(command=UPSTREAM, store_spec=":memory:", stages=Stages(
        guard_config=str(config), max_bytes=900, deny_tools=("rm",)))
    try:
        # The flag's ceiling wins; lists merge; the redaction rules stay a stage, not a deny.
        assert policies(proxy) == [
            SizeCeiling(900), ToolLists(allow=("read_*",), deny=("rm", "shell"))]
        auditor = proxy.pipeline.auditor
        assert isinstance(auditor, LogAuditor)
        assert auditor.log.path == tmp_path / "from-config.db"
        assert auditor.log.checkpoint_every == 7
    finally:
        anyio.run(proxy.aclose)


@pytest.mark.parametrize(
    ("stages", "error", "message"),
    [
        (Stages(max_bytes=0), InputError, "--max-bytes must be a positive"),  # no ceiling of 0
        (Stages(guard_config="/nonexistent/guard.toml"), ConfigError, "cannot read"),
    ],
)
def test_bad_choices_say_what_is_wrong(
    stages: Stages, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        build_proxy(command=UPSTREAM, no_store=True, stages=stages)


@pytest.mark.parametrize(
    ("max_bytes", "max_message_bytes", "expected"),
    [
        # no flags: three times the 256 MiB body ceiling
        (None, None, 3 * 256 * 1024 * 1024),
        # a small body ceiling keeps the floor, so the Guardian still sees (and audits) the
        # bodies it refuses, echo and all
        (100_000, None, 3 * 256 * 1024 * 1024),
        # a large body ceiling lifts the message ceiling with it
        (1_000_000_000, None, 3_000_000_000),
        # the flag wins
        (100_000, 4_000_000, 4_000_000),
    ],
)
def test_the_message_ceiling_stays_above_the_body_ceiling(
    max_bytes: int | None, max_message_bytes: int | None, expected: int
) -> None:
    proxy = build_proxy(command=UPSTREAM, no_store=True, max_message_bytes=max_message_bytes,
                        stages=Stages(max_bytes=max_bytes, redact=False, audit=False))
    assert [spec.max_message_bytes for spec in proxy.specs] == [expected]


def test_a_message_ceiling_of_zero_is_refused() -> None:
    with pytest.raises(InputError, match="--max-message-bytes must be a positive"):
        build_proxy(command=UPSTREAM, no_store=True, max_message_bytes=0)


def test_no_redact_and_no_audit_turn_those_stages_off() -> None:
    proxy = build_proxy(command=UPSTREAM, no_store=True,
                        stages=Stages(redact=False, audit=False))
    assert proxy.pipeline.redactor is None and proxy.pipeline.auditor is None


def test_the_cli_refuses_audit_and_no_audit_together() -> None:
    result = CliRunner().invoke(main, ["proxy", "--audit", "x.db", "--no-audit", "--", "cmd"])
    assert result.exit_code != 0 and "--audit or --no-audit" in result.output


class FailingAuditor:
    def record(self, record: AuditRecord) -> None:
        raise AuditError("could not append to the audit log 'x.db': disk I/O error")


@pytest.mark.parametrize(
    ("pipeline", "says"),
    [
        # The audit entry cannot be written: the result is not delivered.
        (Pipeline(auditor=FailingAuditor()), "could not be shaped or audited"),
        # The guard denies: the reason goes to the agent.
        (Pipeline(guard=GuardStage(Guardian([SizeCeiling(10)]))), "ceiling"),
    ],
)
def test_the_proxy_fails_closed_with_the_reason(pipeline: Pipeline, says: str) -> None:
    proxy = Proxy([ServerSpec("up", command="python")], pipeline)
    result = types.CallToolResult(content=[types.TextContent(text="x" * 100)])

    async def shape() -> types.CallToolResult:
        return await proxy._shape(FETCH_REFERENCE_TOOL, result, Budget(1024), "s", "up")

    out = anyio.run(shape)
    assert out.is_error
    text = out.content[0]
    assert isinstance(text, types.TextContent) and says in text.text
    assert "x" * 100 not in text.text


def test_a_real_log_gets_one_entry_per_call(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.db")
    shaper = ResultShaper(Pipeline(auditor=LogAuditor(log)))
    for n in range(3):
        shaper.shape(types.CallToolResult(content=[
            types.TextContent(text=f"part {n}"), types.TextContent(text="more")]), tool="t")
    assert [e["entry_id"] for e in log.entries()] == ["1", "2", "3"]
    log.close()
