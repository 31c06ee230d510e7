"""The Guardian: policies over the full result (``policy``), its config file (``config``),
its pipeline stage (``stage``) and its ACS JSON-RPC endpoint (``acs``, ``server``)."""
