"""An upstream MCP server whose results are full of credentials, for the pipeline e2e tests.

Not a test module (it has no tests): it is run as a script, ``python
test_mcp_pipeline_upstream.py`` (stdio) or ``... --http PORT``, and the e2e tests load
:data:`SECRETS` from it by path, so the seeded values live in one place. Every secret here is
made up for the tests and matches one of elision's redaction rules.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: Each seeded credential: every one must be absent from all the client ever sees.
SECRETS: dict[str, str] = {
    "aws-sigv4": (
        "https://examplebucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKIDEXAMPLE7Q2%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
        "&X-Amz-Date=20261130T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
    ),
    "gcs": (
        "https://storage.googleapis.com/bucket/obj.png?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        "&X-Goog-Credential=svc%40proj.iam.gserviceaccount.com%2F20261130%2Fauto%2Fstorage"
        "%2Fgoog4_request&X-Goog-Date=20261130T120000Z&X-Goog-Expires=900"
        "&X-Goog-SignedHeaders=host"
        "&X-Goog-Signature=8f1c2a9be7d3445566778899aabbccddeeff00112233445566778899aabbccdd"
    ),
    "azure-sas": (
        "https://acct.blob.core.windows.net/c/blob.bin?sv=2023-11-03"
        "&se=2026-12-01T00%3A00%3A00Z&sr=b&sp=r&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo%3D"
    ),
    "jwt": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJlbGlzaW9uLXRlc3QiLCJpYXQiOjE3OTk5OTk5OTl9"
        ".c2lnbmF0dXJlLW9mLXRoZS10ZXN0LXRva2VuLTEyMzQ1"
    ),
    "bearer": "Q7fK2mZp9vX4tR8wL1nB6cY3hJ5sD0gE",
    "pem-body": "MIIEowIBAAKCAQEA7bq9k3Yx2Lw8Nf5Hc0pQ1rS6tU9vW2xY4zA8bC3dE5fG7hJ9",
    "github": "ghp_R4nd0mT0k3nF0rEl1s10nT3st1ngXyZ12345",
}
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n" + SECRETS["pem-body"] + "\n"
    "kL1mN3oP5qR7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1qR3sT5uV7wX9yZ1a\n"
    "-----END RSA PRIVATE KEY-----"
)
#: A repeated key: the first member holds a token, the one that wins is harmless.
SHADOWED = '{"note":"' + SECRETS["github"] + '","note":"ok","rows":[1,2,3]}'
#: URLs the model needs: they must come through unchanged.
ORDINARY_URL = "https://docs.example.com/guide/page.html?section=3"
LINK_URI = "https://example.com/reports/2026/q4.html"
#: Embedded and lane resources the upstream can read back with resources/read.
FILE_URI = "test://files/report.txt"
# Over the 4 KiB an embedded resource may hold and still be kept as it came, so it is stubbed.
FILE_TEXT = "the quarterly report, read back through resources/read\n" + "".join(
    f"line {i} of the report\n" for i in range(250)
)


def secret_document(rows: int = 300) -> dict[str, Any]:
    """Credentials at every depth, in every form, among ordinary rows; caveats last."""
    return {
        "rows": [
            {"id": i, "name": f"row {i}", "download": SECRETS["aws-sigv4"] if i % 50 == 7
             else ORDINARY_URL}
            for i in range(rows)
        ],
        "auth": {"headers": {"Authorization": "Bearer " + SECRETS["bearer"]},
                 "session": SECRETS["jwt"]},
        "deep": {"a": {"b": {"c": [{"note": "key: " + PEM}, {"github": SECRETS["github"]}]}}},
        "attachments": [
            {"type": "image", "uri": SECRETS["gcs"], "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": FILE_URI, "mimeType": "text/plain",
                                              "text": FILE_TEXT}},
            {"type": "resource_link", "uri": LINK_URI, "name": "q4"},
        ],
        "azure": "blob at " + SECRETS["azure-sas"] + " for an hour",
        "warnings": ["searched 528 of 22,933 rows"],
        "total_rows": rows,
    }


def secret_log(lines: int = 2000) -> str:
    """A log with credentials on scattered lines, a PEM key across lines among them."""
    out = []
    for i in range(lines):
        if i == 1001:
            out.append("loaded key:\n" + PEM)
        elif i % 400 == 3:
            out.append(f"GET {SECRETS['aws-sigv4']} 200")
        elif i % 400 == 203:
            out.append(f"Authorization: Bearer {SECRETS['bearer']} token={SECRETS['jwt']}")
        else:
            out.append(f"2026-11-30T12:00:00Z INFO step {i} ok see {ORDINARY_URL}")
    return "\n".join(out) + "\nFATAL: done with 3 errors\n"


def build() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import (
        CallToolResult,
        EmbeddedResource,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )

    server = MCPServer("elision-secret-upstream")

    @server.tool()
    def secret_json(rows: int = 300) -> dict[str, Any]:
        """A JSON document with credentials at every depth."""
        return secret_document(rows)

    @server.tool()
    def secret_text(lines: int = 2000) -> str:
        """A plain-text log with credentials on scattered lines."""
        return secret_log(lines)

    @server.tool()
    def secret_blocks() -> list[Any]:
        """Content blocks: an embedded resource, a link, a header in text, a signed lane."""
        return [
            EmbeddedResource(resource=TextResourceContents(uri=FILE_URI, text=FILE_TEXT,
                                                           mime_type="text/plain")),
            ResourceLink(uri=LINK_URI, name="q4"),
            TextContent(text=f"curl -H 'Authorization: Bearer {SECRETS['bearer']}' "
                             f"{ORDINARY_URL}"),
        ]

    @server.tool()
    def rows_text(n: int = 500) -> str:
        """Compact JSON whose bytes a test can predict."""
        return json.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(n)],
                           "total_rows": n})

    @server.tool()
    def shadowed() -> str:
        """JSON whose repeated key hides a token from any last-wins reader."""
        return SHADOWED

    @server.tool()
    def shadowed_echo() -> Any:
        """The same text, echoed as structured content the way a parser reads it."""
        return CallToolResult(content=[TextContent(text=SHADOWED)],
                              structured_content={"note": "ok", "rows": [1, 2, 3]})

    @server.tool()
    def small() -> str:
        """A small clean result that fits any budget."""
        return "all good"

    @server.tool()
    def shell() -> str:
        """A tool the tests put on the deny list."""
        return "rm -rf was run"

    @server.tool()
    def secret_error() -> str:
        """Fails with a credential in its message."""
        raise ToolError(f"could not fetch {SECRETS['aws-sigv4']}: 403")

    @server.resource("test://files/{name}")
    def files(name: str) -> str:
        """The resource behind the embedded one."""
        return FILE_TEXT if name == "report.txt" else f"no such file {name}"

    return server


if __name__ == "__main__":
    app = build()
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
