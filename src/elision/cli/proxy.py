"""``elision proxy``: put elision in front of any MCP server."""

from __future__ import annotations

import os

import click

from elision._startup import collector_paused_for_set_up
from elision.budget import MINIMUM, UNITS
from elision.cli._common import reports_errors
from elision.errors import InputError
from elision.mcp.agent.requestbound import DEFAULT_MAX_REQUEST_BYTES


@click.command(
    "proxy",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("--budget", type=int, default=None,
              help="Size limit of each tool result, in --unit (at least "
                   + ", ".join(f"{n} {u}" for u, n in MINIMUM.items()) + "). Default: "
                   "each client's own, in bytes, below its harness's cut (see "
                   "docs/harnesses.md); the table's lowest for a client it does not name.")
@click.option("--client-budget", "client_budgets", multiple=True,
              metavar="NAME=BYTES[,LINES]",
              help="The budget of one client when --budget is not given (repeatable; NAME "
                   "is a harness such as copilot-cli, or a clientInfo name; * for unknown), "
                   "and the most lines it keeps (LINES; none for no cap; without it, the "
                   "table's: OpenCode 2,000, Qwen Code 1,000).")
@click.option("--unit", type=click.Choice(UNITS), default="bytes", show_default=True,
              help="What budgets count, the config's too unless it sets its own \"unit\" "
                   "(tokens: pip install 'elision[tokens]').")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="servers.json in the mcpServers layout; tools become <server>__<tool>.")
@click.option("--upstream-url", help="Streamable HTTP URL of the MCP server to proxy.")
@click.option("--listen", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0: any).")
@click.option("--store", "store_spec", metavar="PATH|URL",
              help="Where cut bodies are kept: a SQLite file, :memory:, or a postgresql:// "
                   "URL shared by replicas (default: $ELISION_STORE, else "
                   "$XDG_DATA_HOME/elision/store.db, else ~/.local/share/elision/store.db).")
@click.option("--no-store", is_flag=True, help="Keep nothing: results are cut, not fetchable.")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds an upstream call may take before it fails and the server restarts.")
@click.option("--resource-budget", type=int, metavar="N",
              help="Size limit of what resources/read and prompts/get return, in the same "
                   "unit (default: --budget).")
@click.option("--media-budget", type=int, default=256 * 1024, show_default=True,
              help="Base64 chars of one image or audio block kept inline; larger is stubbed.")
@click.option("--guard-config", type=click.Path(dir_okay=False), metavar="guard.toml",
              help="The Guardian's TOML config: max_bytes, allow_tools, deny_tools, your own "
                   "policies, and the [audit] log, key and checkpoint_every.")
@click.option("--max-bytes", type=int, metavar="BYTES",
              help="Refuse a result whose full body is over BYTES, whole rather than cut "
                   "(default: 256 MiB, the store's own limit).")
@click.option("--max-message-bytes", type=int, metavar="BYTES",
              help="Drop a message from an upstream (stdio line, SSE event or JSON body) over "
                   "BYTES as it is read, so one huge result cannot exhaust memory; the call "
                   "gets an error naming its size (default: 3x --max-bytes, at least 768 MiB: "
                   "a body may come twice, as text and as its structured echo).")
@click.option("--max-request-bytes", type=int, metavar="BYTES",
              default=DEFAULT_MAX_REQUEST_BYTES, show_default=True,
              help="With --listen: answer a client's request body over BYTES with 413, "
                   "keeping none of it, so one client cannot exhaust the memory every client "
                   "shares.")
@click.option("--allow-tool", "allow_tools", multiple=True, metavar="NAME",
              help="Only these tools may answer (repeatable; * and ? wildcards; NAME or "
                   "server/NAME; matched case-insensitively after NFKC, a look-alike or "
                   "invisible-character spelling of an allowed name is refused).")
@click.option("--deny-tool", "deny_tools", multiple=True, metavar="NAME",
              help="Refuse the results of these tools (repeatable; wins over --allow-tool; "
                   "matched on the normalized name: NFKC, any case, invisible characters "
                   "removed, Cyrillic/Greek look-alikes read as Latin, with or without a "
                   "server__ or server/ prefix).")
@click.option("--no-redact", is_flag=True,
              help="Do not withhold signed URIs and credentials (pages stay redacted).")
@click.option("--audit", "audit_path", metavar="PATH|URL",
              help="The audit log to append to, a SQLite file or a postgresql:// URL "
                   "(default: $ELISION_AUDIT, else audit.db "
                   "beside the default store). Checkpoints are signed with "
                   "$ELISION_AUDIT_KEY when it is set.")
@click.option("--no-audit", is_flag=True, help="Write no audit log.")
@click.option("--require-auth-scope", is_flag=True, default=None,
              help="Over HTTP, refuse elision_fetch to clients with neither a session nor an "
                   "Authorization header, instead of letting a ref act as a bearer capability "
                   "(default: $ELISION_REQUIRE_AUTH_SCOPE).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@reports_errors
def proxy_command(
    budget: int | None,
    client_budgets: tuple[str, ...],
    unit: str,
    config_path: str | None,
    upstream_url: str | None,
    listen: str | None,
    store_spec: str | None,
    no_store: bool,
    timeout: float,
    resource_budget: int | None,
    media_budget: int,
    guard_config: str | None,
    max_bytes: int | None,
    max_message_bytes: int | None,
    max_request_bytes: int,
    allow_tools: tuple[str, ...],
    deny_tools: tuple[str, ...],
    no_redact: bool,
    audit_path: str | None,
    no_audit: bool,
    require_auth_scope: bool | None,
    command: tuple[str, ...],
) -> None:
    """Proxy an MCP server so every tool result fits BUDGET honestly.

    \b
      elision proxy --budget 8192 -- uvx some-mcp-server --flag
      elision proxy --upstream-url http://127.0.0.1:9000/mcp --listen 127.0.0.1:8765
      elision proxy --config servers.json

    Results that do not fit carry an __elision__ envelope (JSON) or an [elision] header
    (text); the agent reads the rest with the added elision_fetch tool. Signed URIs and
    credentials show as stubs (elision_fetch_reference reads a reference back through the
    server that sent it), and every result is bound in the audit log.

    An agent or MCP host starts the proxy itself and speaks to it on stdin. To try it by
    hand: `elision demo` runs a server behind it and calls it; `elision lint --url` or any
    MCP client can call one started with --listen; `elision view` shows what it logged.
    """
    if no_store and store_spec:
        raise InputError("give --store or --no-store, not both")
    if max_request_bytes < 1:
        raise InputError(
            f"--max-request-bytes must be a positive number of bytes, got {max_request_bytes}"
        )
    if no_audit and audit_path:
        raise InputError("give --audit or --no-audit, not both")
    from elision.mcp.agent.arrivals import Arrivals
    from elision.mcp.upstream.early import discard_early, start_early

    # An agent's first lines are read, and their times taken, from now on: when a client fell
    # back to `initialize` after waiting on its discover is told by when each line came
    # (elision.mcp.agent.arrivals; issue 24).
    arrivals = None if listen else Arrivals.of_stdin()
    if command and not (upstream_url or config_path):
        # The server starts now, while the SDK and the stages below are imported and set up:
        # its start and the proxy's overlap (elision.mcp.upstream.early; issue 24).
        start_early(command[0], command[1:], env=os.environ)
    try:
        # The imports and the stages' set-up make ~90,000 objects that live as long as the
        # process and next to no garbage, yet set off ~200 collections, each older one over
        # all of them: the collector waits until they are made, then freezes them out of its
        # sight (elision._startup; issue 24).
        with collector_paused_for_set_up():
            from elision.mcp.agent.clients import parse_overrides
            from elision.mcp.launch import Stages, build_proxy, parse_listen
            from elision.mcp.serve import run_proxy

            stages = Stages(
                guard_config=guard_config, max_bytes=max_bytes, allow_tools=allow_tools,
                deny_tools=deny_tools, redact=not no_redact, audit=not no_audit,
                audit_path=audit_path,
            )
            proxy = build_proxy(
                command=command, upstream_url=upstream_url, config_path=config_path,
                budget=budget, unit=unit, store_spec=store_spec, no_store=no_store,
                timeout=timeout, media_budget=media_budget, stages=stages,
                require_auth_scope=require_auth_scope, resource_budget=resource_budget,
                max_message_bytes=max_message_bytes,
                client_budgets=parse_overrides(client_budgets, "--client-budget"),
            )
        run_proxy(proxy, listen=parse_listen(listen) if listen else None,
                  max_request_bytes=max_request_bytes, arrivals=arrivals)
    finally:
        if arrivals is not None:
            arrivals.stop()
        discard_early()
