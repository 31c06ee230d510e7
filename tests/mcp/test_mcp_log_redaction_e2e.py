"""End to end: the proxy's stderr holds no part of a secret an upstream or a client sent.

Found by an upstream that printed a line holding a ``ghp_`` token on its stdout (the MCP
channel): the proxy's warning quoted pydantic's ``input_value``, which pydantic had cut to
36 of the token's 40 chars before elision redacted it, and a cut token matches no rule. The
SDK's own warnings (a log notification with a bad level) went out raw as well.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from support.rawrpc import RawStdio
from support.seeded import STRAY_FORMS, by_name, partial_leaks, stray_line

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
#: The kinds the issue names: a GitHub token, an AWS key, a signed URL, a JWT.
SEEDED = by_name("github-token", "aws-access-key-id", "aws-sigv4-url", "jwt")
CHATTY = [sys.executable, str(HERE / "chatty_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


def test_stray_lines_and_bad_requests_quote_no_secret_on_stderr() -> None:
    # Every seeded secret in every form of stray line, each placed where pydantic's cut of
    # its input falls (about 25 chars in) and at the start.
    stray = [stray_line(seed, before, form)
             for seed in SEEDED for form in range(STRAY_FORMS) for before in ("x" * 20, "")]
    proxy = RawStdio([*ELISION, "proxy", "--no-store", "--no-audit", "--", *CHATTY],
                     env={"CHATTY_LINES": json.dumps(stray)})
    try:
        proxy.handshake()
        # A client's own bad lines and requests, each holding the secrets too.
        for n, seed in enumerate(SEEDED):
            proxy.send(f"not json {seed.text}".encode())
            proxy.send(json.dumps({"jsonrpc": "2.0", "id": 10 + n, "method": {"m": seed.text}})
                       .encode())
            proxy.send({"jsonrpc": "2.0", "id": 20 + n, "method": "tools/call",
                        "params": {"name": f"no_such_tool {seed.text}", "arguments": {}}})
        proxy.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                    "params": {"name": "rows", "arguments": {"n": 1}}})
        got = proxy.replies({99, *range(10, 10 + len(SEEDED)), *range(20, 20 + len(SEEDED))},
                            nulls=len(SEEDED))
    finally:
        stderr = proxy.close()
    assert "result" in got[99]
    assert stderr.count("sent something unreadable") >= len(SEEDED) * 3  # the proxy did log
    assert not list(partial_leaks(stderr, SEEDED)), stderr
    assert not list(partial_leaks(json.dumps(got), SEEDED))
