"""Small embedded resources that claim nothing governed are kept (issue 14, item 13).

Found behind real servers: every embedded resource was stubbed, even a 62-char text note, and a
small blob resource came back as a text block (its stub cannot be base64).
"""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types
import pytest

from elision.budget import Budget
from elision.mcp.gate.results import ResultShaper
from elision.pipeline import Pipeline
from elision.redact import RedactStage, redact_value
from elision.redact.references import SMALL_EMBEDDED
from elision.store import MemoryStore

NOTE = "Build 4412 passed on main; 3 flaky tests were retried and passed."  # 62 chars
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
SIGNED = "https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&X-Amz-Credential=AK"


def embedded(uri: str, **payload: Any) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", **payload}}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("record", "withheld"),
    [
        # The 62-char note of the issue: kept exactly.
        (embedded("file:///ci/4412.txt", text=NOTE), []),
        # A small blob with an ordinary uri: kept, so its block stays a blob.
        (embedded("file:///ci/4412.png", blob=b64(b"\x89PNG" + bytes(200))), []),
        # Exactly at the bound: kept.
        (embedded("file:///a", text="x" * SMALL_EMBEDDED), []),
        # One byte over the bound: stubbed as before.
        (embedded("file:///a", text="x" * (SMALL_EMBEDDED + 1)),
         [["$.resource.text", "inline-with-uri"]]),
        # Small, but its uri is signed: both withheld.
        (embedded(SIGNED, text=NOTE),
         [["$.resource.text", "inline-with-uri"], ["$.resource.uri", "signed-uri"]]),
        # Small, but its text holds a key: the payload is withheld whole.
        (embedded("file:///a", text=f"key {AWS_KEY}"), [["$.resource.text", "inline-with-uri"]]),
        # Small, but the blob decodes to a key.
        (embedded("file:///a", blob=b64(f"key {AWS_KEY}".encode())),
         [["$.resource.blob", "inline-with-uri"]]),
        # Not base64 at all: not what it claims to be.
        (embedded("file:///a", blob="not base64!"), [["$.resource.blob", "inline-with-uri"]]),
        # The tool asked for a reference: it gets one.
        ({**embedded("file:///a", text=NOTE), "disposition": "ref"},
         [["$.resource.text", "disposition-ref"]]),
        # An image with inline data and a uri is not an embedded resource: stubbed as before.
        ({"type": "image", "uri": "file:///a.png", "data": b64(bytes(30)),
          "mimeType": "image/png"}, [["$.data", "inline-with-uri"]]),
    ],
)
def test_which_embedded_resources_are_kept(
    record: dict[str, Any], withheld: list[list[str]]
) -> None:
    result = redact_value(record)
    assert [[e["path"], e["reason"]] for e in result.withheld] == withheld
    if not withheld:
        assert result.value == record
    else:
        assert AWS_KEY not in str(result.value) and SIGNED not in str(result.value)


def test_a_small_blob_resource_keeps_its_block_type_through_the_proxy_shaper() -> None:
    store = MemoryStore()
    rs = ResultShaper(Pipeline(budget=Budget(8192), store=store,
                               redactor=RedactStage(store=store)))
    blob = types.EmbeddedResource(resource=types.BlobResourceContents(
        uri="file:///ci/4412.png", mime_type="image/png", blob=b64(bytes(300))))
    note = types.EmbeddedResource(resource=types.TextResourceContents(
        uri="file:///ci/4412.txt", mime_type="text/plain", text=NOTE))
    result = types.CallToolResult(content=[types.TextContent(text="done"), blob, note])
    out = rs.shape(result, scope="a")
    assert out.content == result.content
