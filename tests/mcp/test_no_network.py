"""The whole pipeline never opens a connection, whatever addresses a result is full of.

``socket.connect``, ``connect_ex``, ``getaddrinfo`` and ``create_connection`` are patched to
record and refuse every attempt; then results that point at the cloud metadata address,
``file://`` paths, open redirects, resource links and signed URLs go through guard, redaction,
shaping, the store, page fetches and reference resolution. Any attempt fails the test.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.budget import Budget
from elision.guard.policy import Guardian, SizeCeiling, ToolLists
from elision.guard.stage import GuardStage
from elision.mcp.gate.references import fetch_reference
from elision.mcp.gate.results import ResultShaper
from elision.pipeline import Pipeline
from elision.redact import RedactStage, lookup_reference, read_plan
from elision.store import MemoryStore
from elision.store.fetch import parse_next

METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/admin"
SIGNED = (
    "https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIDEXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Signature=" + "ab" * 32
)
URLS = [
    METADATA,
    "file:///etc/shadow",
    "http://example.com/redirect?next=" + METADATA,  # an open redirect to the metadata host
    "https://[fd00::1]:8443/internal",
    "gopher://127.0.0.1:6379/_FLUSHALL",
    SIGNED,
]


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    seen: list[str] = []

    def refuse(name: str) -> Any:
        def attempt(*args: Any, **kwargs: Any) -> Any:
            seen.append(f"{name}{args[1:] if name.startswith('socket.') else args}")
            raise OSError(f"test: {name} is not allowed")

        return attempt

    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    yield seen


def document() -> dict[str, Any]:
    return {
        "items": [{"id": i, "url": URLS[i % len(URLS)], "text": "see " + URLS[(i + 1) % 6]}
                  for i in range(300)],
        "lanes": [
            {"type": "image", "uri": METADATA, "mimeType": "image/png", "data": "iVBORw0K"},
            {"type": "resource", "resource": {"uri": "file:///etc/passwd", "text": "root:x"}},
            {"type": "audio", "uri": SIGNED, "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///srv/report.pdf", "name": "report"},
        ],
        "total": 300,
    }


class FakeSession:
    """Stands in for an upstream session: resources/read answers from a dict."""

    def __init__(self, reads: list[str]) -> None:
        self.reads = reads

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        self.reads.append(uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text="read back upstream")]
        )


class FakeUpstream:
    def __init__(self, name: str) -> None:
        self.name = name
        self.reads: list[str] = []

    async def call(self, what: str, request: Any) -> Any:
        return await request(FakeSession(self.reads))


def pipeline() -> tuple[Pipeline, MemoryStore]:
    store = MemoryStore()
    guard = GuardStage(Guardian([SizeCeiling(10_000_000), ToolLists(deny=("shell",))]))
    return Pipeline(budget=Budget(2048), store=store, guard=guard,
                    redactor=RedactStage(store=store)), store


def test_shaping_pages_and_references_open_no_connection(attempts: list[str]) -> None:
    pipe, store = pipeline()
    shaper = ResultShaper(pipe)
    body = json.dumps(document())
    text = "\n".join(f"line {i}: fetched {URLS[i % len(URLS)]}" for i in range(800))
    result = types.CallToolResult(content=[
        types.TextContent(text=body),
        types.TextContent(text=text),
        types.ResourceLink(uri=METADATA, name="metadata"),
        # Over the small-resource bound, so it is stubbed and its stub resolves upstream.
        types.EmbeddedResource(resource=types.TextResourceContents(uri=METADATA, text="x" * 5000)),
    ])
    out = shaper.shape(result, scope="a", tool="t", server="up")
    env = (out.meta or {})["elision/shaping"]
    # Walk every page of both bodies to the end.
    for part in env["parts"]:
        call = part.get("next")
        pages = 0
        while call:
            args = parse_next(call)
            selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
            page = store.fetch(budget=Budget(2048), scope="a", **selector)
            assert SIGNED not in page.text
            call = (page.envelope or {}).get("next")
            pages += 1
            assert pages < 300
    # Resolve every reference stub the result carried, through the (fake) upstream only.
    stubs = {w["stub"] for part in env["parts"] for w in part.get("withheld", [])
             if w.get("stub")}
    assert stubs
    upstream = FakeUpstream("up")

    async def shape(result: types.CallToolResult, budget: Budget, server: str) -> Any:
        return shaper.shape(result, budget=budget, scope="a", tool="ref", server=server)

    async def resolve() -> None:
        for stub in stubs:
            plan = read_plan(stub, lookup_reference(stub, store=store, scope="a"))
            got = await fetch_reference({"stub": stub}, shaper=shaper,
                                        upstreams={"up": upstream},  # type: ignore[dict-item]
                                        scope="a", budget=Budget(2048), shape=shape)
            assert not got.is_error, got.content
            assert plan.server == "up"

    anyio.run(resolve)
    assert set(upstream.reads) <= {METADATA, "file:///etc/passwd", SIGNED}
    assert upstream.reads  # the stubs were read back, by the upstream, by uri
    assert attempts == []


@pytest.mark.parametrize(
    "url",
    [
        METADATA,  # the cloud metadata service
        "file:///etc/shadow",  # a local file
        "http://example.com/redirect?next=" + METADATA,  # a redirect to it
        SIGNED,  # a signed URL, withheld
        "http://localhost:8080/admin",  # the proxy's own host
    ],
)
def test_one_url_in_every_place_opens_no_connection(attempts: list[str], url: str) -> None:
    pipe, store = pipeline()
    doc = {"link": url, "lane": {"type": "resource", "uri": url, "text": "inline"},
           "rows": [url] * 400}
    shaped = pipe.run(json.dumps(doc), scope="s", tool="t", server="up")
    assert shaped.ref is not None
    store.fetch(shaped.ref, path="$.lane", scope="s")
    store.fetch(shaped.ref, path="$.rows[200:]", scope="s")
    store.fetch(shaped.ref, byte_range="0-", scope="s")
    assert attempts == []


def test_the_patch_does_catch_a_connection(attempts: list[str]) -> None:
    # The fixture must be able to fail the tests above: a real attempt is recorded.
    with pytest.raises(OSError, match="not allowed"):
        socket.create_connection(("169.254.169.254", 80), timeout=0.1)
    with socket.socket() as sock, pytest.raises(OSError, match="not allowed"):
        sock.connect(("127.0.0.1", 9))
    assert len(attempts) == 2
