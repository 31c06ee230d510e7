"""An MCP server that writes stray lines on its stdout, the MCP channel, before it serves, as
a server whose libraries print would. For the proxy's log tests.

Run as a script: the lines are the JSON list in ``CHATTY_LINES``; then the test upstream's
tools are served on stdio.
"""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__":
    for line in json.loads(os.environ.get("CHATTY_LINES", "[]")):
        os.write(1, line.encode("utf-8", "surrogatepass") + b"\n")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from upstream_server import main

    main()
