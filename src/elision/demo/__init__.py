"""The bundled demo: a ledger MCP server whose results are big and put their caveats last."""
