"""The demo ledger as an MCP server over stdio: ``python -m elision.demo.server``.

Written with the SDK's ``MCPServer``, as a typical tool author would, so it also shows that
server's habit of sending a structured result twice (structured content and a JSON text).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from elision.demo import ledger


def build_server() -> MCPServer:
    server = MCPServer(
        "elision-demo-ledger",
        instructions="A trade ledger. Results can be large.",
    )

    @server.tool()
    def search_trades(symbol: str | None = None, side: str | None = None) -> dict[str, Any]:
        """Search trades by symbol (ACME, BOLT, ...) and side (buy or sell)."""
        return ledger.search_trades(symbol, side)

    @server.tool()
    def failed_settlements() -> str:
        """The settlement log of the last day, one line per trade."""
        return ledger.failed_settlements()

    @server.tool()
    def account_summary(account: str) -> dict[str, Any]:
        """Trade count, volume and failures of one account, e.g. ACC-0007."""
        return ledger.account_summary(account)

    @server.resource("ledger://symbols")
    def symbols() -> str:
        """The traded symbols, one per line."""
        return "\n".join(ledger.SYMBOLS)

    return server


def main() -> None:
    build_server().run()


if __name__ == "__main__":
    main()
