"""elision over MCP: the result glue, the ``elision_fetch`` tool and the proxy.

Importing this package imports the MCP SDK; the library and ``elision shape`` never do.
"""
