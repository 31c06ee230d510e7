"""``elision guardian``: serve the Agent Control Standard's JSON-RPC over HTTP (POST /acs)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import click

from elision.cli._common import reports_errors
from elision.errors import ElisionError


@click.command("guardian")
@click.option("--listen", default="127.0.0.1:8787", show_default=True, metavar="HOST:PORT",
              help="Where to serve POST /acs. Port 0 picks a free port (printed on start).")
@click.option("--config", "config_path", metavar="FILE",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A TOML file of policies and audit settings (see elision.guard.config).")
@click.option("--log", "log_path", metavar="PATH|URL",
              help="The audit log to append to: a SQLite file, or a postgresql:// URL for a "
                   "chain shared by several replicas. Default: as `elision audit`.")
@click.option("--store", "store_spec", metavar="PATH",
              help="The store bounded outputs' content_ref is resolved against. Default: the "
              "default store (where the proxy keeps bodies).")
@click.option("--no-store", is_flag=True,
              help="Resolve no content_ref: every bounded output is then partial evidence.")
@click.option("--on-partial-evidence", type=click.Choice(["deny", "defer"]), default=None,
              help="The answer to a bounded output whose full body cannot be read from the "
              "store (or does not match its digest). Default: the config's, else deny.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=10_000_000, show_default=True,
              help="Refuse a request or result larger than this, whole.")
@click.option("--allow-tool", multiple=True, metavar="NAME",
              help="Only these tools (repeatable; * wildcards; server/tool form too; "
              "matched case-insensitively after NFKC; a look-alike of an allowed name is "
              "refused).")
@click.option("--deny-tool", multiple=True, metavar="NAME",
              help="Never these tools (repeatable; * wildcards; server/tool form too; matched "
              "on the normalized name: NFKC, any case, invisible characters removed, "
              "Cyrillic/Greek look-alikes read as Latin, with or without a server prefix).")
@click.option("--acs-key", envvar="ELISION_ACS_KEY", show_envvar=True, metavar="KEY",
              help="Input keying material for ACS §10 HMAC signatures (hex:<bytes> or a long "
              "passphrase): requests must be signed, every answer is. Prefer the variable.")
@click.option("--acs-key-id", default="default", show_default=True, metavar="ID",
              help="The key_id written into the signatures of this Guardian's answers.")
@click.option("--redact/--no-redact", default=True, show_default=True,
              help="Modify results that hold credentials or signed URIs (JSON-pointer "
              "redactions); --no-redact also leaves other policies' modifications unredacted.")
@reports_errors
def guardian_command(
    listen: str, config_path: Path | None, log_path: str | None, store_spec: str | None,
    no_store: bool, on_partial_evidence: str | None, max_bytes: int,
    allow_tool: tuple[str, ...], deny_tool: tuple[str, ...],
    acs_key: str | None, acs_key_id: str, redact: bool,
) -> None:
    """Serve the ACS Guardian: handshake/hello, the ACS-Core hooks (steps/toolCallRequest,
    steps/toolCallResult, sessionStart, userMessage, agentTrigger, agentResponse,
    subagentStart, sessionEnd) and system/ping, every decision appended to the audit chain.

    Runs until interrupted (Ctrl-C or SIGTERM); on the way out it writes a signed checkpoint
    of the chain's head when ELISION_AUDIT_KEY (or the config's key) is set.
    """
    from elision.audit.log import DEFAULT_CHECKPOINT_EVERY
    from elision.audit.opener import open_audit_log
    from elision.guard.acs import AcsEndpoint
    from elision.guard.config import GuardianConfig, load_config
    from elision.guard.policy import (
        Guardian,
        Policy,
        RedactionPolicy,
        SizeCeiling,
        ToolLists,
        store_keeper,
    )
    from elision.guard.server import GuardianServer, is_loopback, parse_listen
    from elision.guard.signing import signer_from_text

    host, port = parse_listen(listen)
    signer = signer_from_text(acs_key, acs_key_id) if acs_key else None
    config = load_config(config_path) if config_path is not None else GuardianConfig()
    log = open_audit_log(
        log_path or config.audit_log, key=config.audit_key,
        checkpoint_every=config.checkpoint_every or DEFAULT_CHECKPOINT_EVERY,
    )
    store: Any = None
    try:
        if not no_store:
            from elision.store import open_store

            store = open_store(store_spec)
        policies: list[Policy] = [SizeCeiling(max_bytes)]
        if allow_tool or deny_tool:
            policies.append(ToolLists(allow=allow_tool, deny=deny_tool))
        # Stubs' records go to the store, so `elision_fetch_reference` can resolve them,
        # whether the policy came from --redact or from the config's `redact = true`.
        config.bind_store(store)
        if redact and not any(isinstance(p, RedactionPolicy) for p in config.policies):
            policies.append(RedactionPolicy(keep=None if store is None else store_keeper(store)))
        policies.extend(config.policies)
        partial = on_partial_evidence or config.on_partial_evidence
        # --no-redact also leaves other policies' modifications exactly as they are.
        guardian = Guardian(policies) if redact else Guardian(policies, redactor=None)
        endpoint = AcsEndpoint(guardian, log, store, signer=signer,
                               on_partial_evidence="defer" if partial == "defer" else "deny")
        server = GuardianServer(endpoint, host, port)
        _serve(server, log, store, loopback=is_loopback(host))
    finally:
        if store is not None:
            store.close()
        log.close()


def _serve(server: Any, log: Any, store: Any, *, loopback: bool) -> None:
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        click.echo(f"elision guardian: serving ACS on {server.url}", err=True)
        # The log's place is the operator's, but a postgresql:// URL may hold its password.
        from elision.redact.messages import redact_message
        from elision.terminal import visible

        click.echo(f"  audit log: {visible(redact_message(str(log.path)))}"
                   + ("" if log.signs_checkpoints else " (no key: checkpoints off)"), err=True)
        click.echo(f"  store: {'none' if store is None else 'configured'}", err=True)
        if server_signs(server):
            click.echo("  signatures: HMAC-SHA256 required on requests, on every answer",
                       err=True)
        if not loopback:
            click.echo("warning: listening beyond loopback without TLS or authentication; put "
                       "it behind a proxy that provides both", err=True)
        stop.wait()
    except ElisionError:
        raise
    finally:
        server.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)


def server_signs(server: Any) -> bool:
    return getattr(getattr(server, "endpoint", None), "signer", None) is not None
