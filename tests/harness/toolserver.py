"""The MCP server the harnesses call in the in-harness suite: three results that a cut breaks.

- ``trade_report``: a ~200 KB JSON object whose caveats (``warnings``, ``total``) come last,
  where a head slice cuts first;
- ``build_log``: a ~300 KB log whose verdict is its last line;
- ``short_log``: the same in 3,001 short lines (~50 KB), where a harness's cap on lines bites
  before its cap on bytes;
- ``tiny_log``: 12,001 lines of 4 bytes (~48 KB): shaped to bytes alone, even 16,000 of them,
  it is 4,000 lines, twice what OpenCode keeps;
- ``deploy_config``: a small result holding an AWS access key and a GitHub token (both fakes of
  the right shape), which must never reach the model.

Written with the SDK's ``MCPServer`` as a typical tool author would. Run: ``python toolserver.py``.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

#: what the server tells the model about its results (they must reach it through elision)
INSTRUCTIONS = "Results can be large: page them with elision_fetch."
#: the planted credentials; the suite asserts neither reaches the model
AWS_KEY = "AKIA" + "Q3VJ7XRB2MZK5TWE"
GITHUB_TOKEN = "ghp_" + "R8vK2mQ9xL4pT7wZ1nB6cY3hJ5sD0fG8aE2u"
LOG_VERDICT = "SUMMARY: 3 failures (test_settle_partial, test_fx_rounding, test_cutoff_dst)"
WARNING = "searched 2,000 of 48,113 rows: only the last 24 hours are indexed"


def trade_report() -> dict[str, Any]:
    rows = [{"id": 900_000 + i, "symbol": ("ACME", "BOLT", "CRUX", "DYNA")[i % 4],
             "side": "buy" if i % 3 else "sell", "qty": (i * 37) % 500 + 1,
             "price": round(5 + (i * 7.31) % 395, 2), "account": f"ACC-{i % 60:04d}",
             "status": "failed" if i % 31 == 0 else "settled"} for i in range(2_000)]
    return {"query": {"desk": "emea"}, "rows": rows, "warnings": [WARNING], "total": 48_113}


def build_log() -> str:
    lines = [f"2026-12-03T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO worker-{i % 8} settled batch "
             f"{i:05d}: 64 trades, 0 errors, checksum {i * 2654435761 % 2**32:08x}"
             for i in range(3_000)]
    return "\n".join([*lines, LOG_VERDICT])


def short_log() -> str:
    return "\n".join([*(f"step {i} passed" for i in range(1, 3_001)), LOG_VERDICT])


def tiny_log() -> str:
    return "\n".join([*(["ok."] * 12_000), LOG_VERDICT])


def deploy_config() -> str:
    return (f"region = eu-west-1\naws_access_key_id = {AWS_KEY}\n"
            f"github_token = {GITHUB_TOKEN}\nreplicas = 3\n")


def sized_text(size: int) -> str:
    """Exactly ``size`` bytes of numbered 100-byte lines, the last one saying ``END``: for
    measuring where a harness cuts (tests/harness/measure.py)."""
    head = "".join(f"line {i:07d} " + "x" * 87 + "\n" for i in range(max(0, size - 3) // 101))
    return head + "END" + "." * max(0, size - len(head) - 3)


def build_server() -> MCPServer:
    server = MCPServer("harness-fixture", instructions=INSTRUCTIONS)
    server.tool(description="The EMEA desk's trade report (rows, then caveats).")(trade_report)
    server.tool(description="The settlement build's log; its verdict is the last line.",
                structured_output=False)(build_log)
    server.tool(description="The unit tests' log; its verdict is the last line.",
                structured_output=False)(short_log)
    server.tool(description="The smoke tests' log, one short line a test; its verdict is the "
                "last line.", structured_output=False)(tiny_log)
    server.tool(description="The deployment's settings.", structured_output=False)(deploy_config)
    server.tool(description="Text of exactly `size` bytes.", structured_output=False)(sized_text)
    return server


if __name__ == "__main__":
    build_server().run()
