"""Redaction never touches the network, whatever the URLs in a result point at."""

from __future__ import annotations

import socket
from typing import Any

import orjson
import pytest

from elision.errors import UpstreamError
from elision.redact import RedactStage, read_plan, redact_text, redact_value

METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/role"
URLS = [
    METADATA,
    "file:///etc/passwd",
    "http://[fd00:ec2::254]/latest/api/token",
    "http://localhost:8080/admin?token=FIXTUREtoken0",
    "https://app.example.com/r?next=http%3A%2F%2F169.254.169.254%2F%3FX-Amz-Signature%3Dabc",
    "https://bucket.s3.amazonaws.com/o?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE&X-Amz-Signature=1f",
    "gopher://internal.example:70/_SSRF",
    "https://user:pw0Fixture@internal.example/",
]


def _result() -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for url in URLS:
        content.append({"type": "resource_link", "uri": url, "name": "link"})
        content.append({"type": "resource", "uri": url, "mimeType": "text/plain"})
        content.append({"type": "image", "uri": url, "data": "iVBORw0KGgo="})
        content.append({"type": "resource", "resource": {"uri": url, "text": "inline"}})
        content.append({"type": "text", "text": f"302 Found: Location: {url}"})
    return {"content": content, "structuredContent": {"urls": URLS, "log": "\n".join(URLS)}}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    attempts: list[str] = []

    def refuse(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            attempts.append(name)
            raise OSError(f"network use in a redaction test: {name}")

        return call

    for name in ("connect", "connect_ex", "sendto", "bind"):
        monkeypatch.setattr(socket.socket, name, refuse(f"socket.{name}"))
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
        monkeypatch.setattr(socket, name, refuse(name))
    return attempts


def test_the_patch_itself_catches_a_connection(no_network: list[str]) -> None:
    # Proof the fixture can fail: a real lookup is caught and recorded.
    with pytest.raises(OSError, match="network use"):
        socket.getaddrinfo("169.254.169.254", 80)
    assert no_network == ["getaddrinfo"]


def test_redaction_and_the_pipeline_make_no_connection(no_network: list[str]) -> None:
    from elision.pipeline import Pipeline

    result = _result()
    redacted = redact_value(result)
    text = redact_text("\n".join(URLS))
    stage = RedactStage()
    shaped = Pipeline(redactor=stage).run(orjson.dumps(result), budget=65536)
    assert redacted.withheld and text.withheld and not shaped.complete
    # Resolving every stub either names an upstream server or refuses: never a fetch.
    for stub_id, record in {**redacted.references, **stage.references}.items():
        with pytest.raises(UpstreamError, match="never fetches an address"):
            read_plan(stub_id, record)
    assert no_network == []
    assert "FIXTUREtoken0" not in shaped.text
    assert "pw0Fixture" not in shaped.text
    assert "X-Amz-Signature" not in shaped.text
