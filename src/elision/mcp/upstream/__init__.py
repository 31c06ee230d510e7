"""The upstream side: starting, reaching and watching the MCP servers behind the proxy.

Processes and transports (``upstream``, ``stdio``, ``longtext``, ``httpbound``, ``reap``,
``down``), what a server offers (``offer``), roots and subscriptions it is given, and the
servers.json config (``config``, ``config_schema``).
"""
