"""The pipeline with the real stages: the store keeps the original, the model gets stubs.

The digest binds the body the tool returned; every page is redacted on its way out; the
guard fails closed; one audit record per MCP call; a long ``withheld`` list is condensed so
the result still fits.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY
from elision.errors import AuditError, BudgetError, PolicyDenied, RefNotFound
from elision.guard.policy import Guardian, ToolLists
from elision.guard.stage import GuardStage
from elision.mcp.gate.results import ResultShaper
from elision.pipeline import (
    AuditRecord,
    Capture,
    Decision,
    Pipeline,
    condense_withheld,
    expand_withheld,
)
from elision.redact import RedactStage, lookup_reference
from elision.store import MemoryStore
from elision.store.fetch import parse_next, shape_page

GITHUB = "ghp_R4nd0mT0k3nF0rEl1s10nT3st1ngXyZ12345"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJlbGlzaW9uLXRlc3QiLCJpYXQiOjE3OTk5OTk5OTl9"
       ".c2lnbmF0dXJlLW9mLXRoZS10ZXN0LXRva2VuLTEyMzQ1")
PEM_LINE = "MIIEowIBAAKCAQEA7bq9k3Yx2Lw8Nf5Hc0pQ1rS6tU9vW2xY4zA8bC3dE5fG7hJ9"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + PEM_LINE + "\n" + PEM_LINE[::-1] + "\n"
       "-----END RSA PRIVATE KEY-----")
SIGNED = ("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
          "&X-Amz-Credential=AKIDEXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
          "&X-Amz-Signature=" + "cd" * 32)
#: What is seeded into results, and what must never come out (a PEM key's body lines).
SEEDS = (GITHUB, JWT, PEM, SIGNED)
SECRETS = (GITHUB, JWT, PEM_LINE, PEM_LINE[::-1], SIGNED)


class ListAuditor:
    def __init__(self, fail: bool = False) -> None:
        self.records: list[AuditRecord] = []
        self.fail = fail

    def record(self, record: AuditRecord) -> None:
        if self.fail:
            raise AuditError("the audit log is full (test)")
        self.records.append(record)


class BrokenGuard:
    def decide(self, capture: Capture) -> Decision:
        raise RuntimeError("policy crashed on " + capture.body.decode())


def redacting(limit: int = 1024, **kwargs: Any) -> tuple[Pipeline, MemoryStore]:
    store = MemoryStore()
    return Pipeline(budget=Budget(limit), store=store, redactor=RedactStage(store=store),
                    **kwargs), store


def walk(store: MemoryStore, first: dict[str, Any] | None, scope: str, limit: int) -> list[str]:
    """Every page from ``first``'s ``next`` to the end, and every refusal's text: a page with
    no room for one element is refused, and asked again at the budget the refusal names."""
    pages: list[str] = []
    call, budget = (first or {}).get("next"), limit
    while call:
        args = parse_next(call)
        selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
        try:
            page = store.fetch(budget=Budget(budget), scope=scope, **selector)
        except BudgetError as exc:
            pages.append(str(exc))
            asked = re.search(r"budget=(\d+)", str(exc))
            assert asked is not None and int(asked[1]) > budget, str(exc)
            budget = int(asked[1])
            continue
        assert len(page.body) <= budget
        pages.append(page.text)
        call, budget = (page.envelope or {}).get("next"), limit
        assert len(pages) < 500
    return pages


def test_the_store_keeps_the_original_and_the_digest_binds_it() -> None:
    doc = {"rows": [{"id": i, "token_url": SIGNED if i == 3 else "https://example.com"}
                    for i in range(200)], "total": 200}
    body = json.dumps(doc).encode()
    pipe, store = redacting()
    shaped = pipe.run(body, scope="s")
    env = json.loads(shaped.text)[ENVELOPE_KEY]
    assert env["sha256"] == hashlib.sha256(body).hexdigest() == shaped.sha256
    assert env["bytes"]["total"] == len(body)
    assert store.read(env["ref"], scope="s") == body
    assert env["withheld"] == [{"path": "$.rows[3].token_url", "reason": "aws-sigv4-url"}]
    pages = walk(store, env, "s", 1024)
    assert pages and not any(SIGNED in p for p in pages)
    third = store.fetch(env["ref"], path="$.rows[3]", scope="s")
    assert SIGNED not in third.text and third.envelope is not None
    assert third.envelope["withheld"] == env["withheld"]


@pytest.mark.parametrize(
    ("selector", "absent"),
    [
        ({"path": "$.config.password"}, "hunter2hunter2"),  # a credential-named key, picked out
        ({"path": "$.config"}, "hunter2hunter2"),  # its object
        ({"path": "$.note[20:]"}, PEM_LINE),  # a string slice that starts inside a PEM key
        ({"byte_range": "0-"}, GITHUB),  # raw bytes of a JSON body
        ({"lines": "1-"}, JWT),  # lines of a JSON body
        ({}, SIGNED),  # no selector: the whole body again
    ],
)
def test_a_page_of_a_body_never_redacted_in_this_process_is_redacted(
    selector: dict[str, str], absent: str
) -> None:
    doc = {"config": {"password": "hunter2hunter2", "user": "me"}, "note": "key " + PEM,
           "gh": GITHUB, "jwt": JWT, "url": SIGNED}
    body = json.dumps(doc).encode()
    # A ref the pipeline never shaped: the view is made afresh (another process, say).
    page = shape_page(body, ref="el_fresh" + str(sorted(selector)), format="json",
                      sha256=hashlib.sha256(body).hexdigest(), budget=Budget(4096), **selector)
    assert absent not in page.text
    assert page.envelope is not None and page.envelope["withheld"]


def test_a_text_page_that_starts_inside_a_pem_key_shows_none_of_it() -> None:
    lines = [f"line {i}" for i in range(300)]
    lines[150] = PEM
    body = "\n".join(lines).encode()
    pipe, store = redacting(512)
    shaped = pipe.run(body, scope="s")
    assert shaped.envelope is not None and shaped.ref is not None
    for spec in ("150-160", "151-153", "152-"):
        page = store.fetch(shaped.ref, lines=spec, scope="s")
        assert PEM_LINE not in page.text and PEM_LINE[::-1] not in page.text
    assert not any(s in p for p in walk(store, shaped.envelope, "s", 512) for s in SECRETS)


def test_reference_records_are_kept_in_the_callers_scope() -> None:
    doc = {"att": {"type": "image", "uri": SIGNED, "mimeType": "image/png"}}
    pipe, store = redacting()
    shaped = pipe.run(json.dumps(doc), scope="alice", server="up")
    (entry,) = shaped.envelope["withheld"]  # type: ignore[index]
    record = lookup_reference(entry["stub"], store=store, scope="alice")
    assert record["uri"] == SIGNED and record["server"] == "up"
    with pytest.raises(RefNotFound) as caught:
        lookup_reference(entry["stub"], store=store, scope="bob")
    assert SIGNED not in str(caught.value)


def test_a_guard_that_fails_denies_and_the_deny_is_audited() -> None:
    auditor = ListAuditor()
    pipe = Pipeline(guard=BrokenGuard(), auditor=auditor)
    with pytest.raises(PolicyDenied, match="RuntimeError") as caught:
        pipe.run(json.dumps({"gh": GITHUB}))
    assert GITHUB not in str(caught.value)  # the guard's message quoted the body
    (record,) = auditor.records
    assert record.decision.allowed is False


def test_a_result_that_cannot_be_audited_is_not_returned() -> None:
    pipe, _ = redacting(auditor=ListAuditor(fail=True))
    with pytest.raises(AuditError):
        pipe.run(json.dumps({"ok": True}))


def test_one_audit_record_per_call_binds_the_whole_result() -> None:
    auditor = ListAuditor()
    pipe, _ = redacting(2048, auditor=auditor)
    shaper = ResultShaper(pipe)
    text = json.dumps({"rows": list(range(2000)), "gh": GITHUB})
    out = shaper.shape(types.CallToolResult(content=[types.TextContent(text=text)]),
                       scope="s", tool="t", server="up")
    (record,) = auditor.records
    assert record.capture.sha256 == hashlib.sha256(text.encode()).hexdigest()
    shown = out.content[0]
    assert isinstance(shown, types.TextContent) and GITHUB not in shown.text
    assert record.shown_sha256 == hashlib.sha256(shown.text.encode()).hexdigest()
    assert record.shaped.envelope == {"withheld": [{"path": "$.gh", "reason": "github-token"}]}
    # Several blocks: still one record, over the result's content as a whole.
    shaper.shape(types.CallToolResult(content=[
        types.TextContent(text="a"), types.TextContent(text="b " + JWT),
        types.ResourceLink(uri="https://example.com/x", name="x"),
    ]), scope="s", tool="t2", server="up")
    assert len(auditor.records) == 2 and auditor.records[1].capture.tool == "t2"


def test_a_denied_call_is_audited_once_and_raises() -> None:
    auditor = ListAuditor()
    store = MemoryStore()
    pipe = Pipeline(store=store, auditor=auditor, redactor=RedactStage(store=store),
                    guard=GuardStage(Guardian([ToolLists(deny=("shell",))])))
    with pytest.raises(PolicyDenied, match="deny list"):
        ResultShaper(pipe).shape(types.CallToolResult(content=[
            types.TextContent(text="x"), types.TextContent(text="y")]), tool="shell")
    (record,) = auditor.records
    assert record.decision.allowed is False and record.capture.tool == "shell"


def test_a_thousand_withheld_values_are_condensed_and_still_counted() -> None:
    auditor = ListAuditor()
    pipe, store = redacting(2048, auditor=auditor)
    doc = {"items": [{"id": i, "url": SIGNED} for i in range(1000)], "total": 1000}
    shaped = pipe.run(json.dumps(doc), scope="s")
    env = json.loads(shaped.text)[ENVELOPE_KEY]
    assert len(shaped.body) <= 2048
    assert env["withheld"] == [{"path": "$.items[*].url", "reason": "aws-sigv4-url",
                                "count": 1000}]
    # A page lists its own values, as many as fit one by one, else condensed too.
    assert not any(SIGNED in p for p in walk(store, env, "s", 2048))
    (record,) = auditor.records
    assert len(record.shaped.envelope["withheld"]) == 1000  # type: ignore[index]


@pytest.mark.parametrize(
    ("entries", "limit", "expected"),
    [
        # Short lists are left as they are.
        ([{"path": "$.a", "reason": "jwt"}], 1024, [{"path": "$.a", "reason": "jwt"}]),
        # Many of one shape: one entry per pattern and reason.
        ([{"path": f"$.r[{i}].u", "reason": "jwt"} for i in range(100)], 1024,
         [{"path": "$.r[*].u", "reason": "jwt", "count": 100}]),
        # Text entries have lines, not paths: a span of lines.
        ([{"line": i, "reason": "jwt"} for i in range(5, 205)], 1024,
         [{"lines": "5-204", "reason": "jwt", "count": 200}]),
        # Too many distinct patterns: by reason alone.
        ([{"path": f"$.k{i}", "reason": "jwt"} for i in range(300)], 512,
         [{"path": "$", "reason": "jwt", "count": 300}]),
    ],
)
def test_condensed_withheld_lists(
    entries: list[dict[str, Any]], limit: int, expected: list[dict[str, Any]]
) -> None:
    condensed = condense_withheld(entries, Budget(limit))
    assert condensed == expected
    assert len(expand_withheld(condensed)) == len(entries)


_plain = st.text(alphabet="abcdefghij klmnop_", max_size=12)
_leaf = _plain | st.integers() | st.none() | st.sampled_from(SEEDS).map(lambda s: "x " + s)
documents = st.recursive(
    _leaf,
    lambda children: st.lists(children, max_size=12)
    | st.dictionaries(_plain, children, max_size=6),
    max_leaves=120,
)


@settings(max_examples=40)
@given(doc=documents, secret=st.sampled_from(SEEDS), limit=st.sampled_from([512, 1024, 4096]))
def test_a_seeded_secret_reaches_no_result_and_no_page(doc: Any, secret: str, limit: int) -> None:
    seeded = {"data": doc, "deep": [{"x": {"y": secret}}], "text": f"see {secret} now"}
    pipe, store = redacting(limit)
    shaped = pipe.run(json.dumps(seeded), scope="s")
    assert len(shaped.body) <= limit
    seen = [shaped.text, *walk(store, shaped.envelope, "s", limit)]
    for text in seen:
        for s in SECRETS:
            assert s not in text


@pytest.mark.parametrize(
    "message",
    [
        f"could not fetch {SIGNED}: 403",  # an upstream's own error text
        f"Authorization: Bearer {JWT}",  # a header echoed back
        "x" * 290 + SIGNED,  # a credential that would straddle the 300-char cut
    ],
)
def test_every_error_text_the_proxy_writes_is_redacted(message: str) -> None:
    from elision.mcp.gate.tools import error_result
    from elision.redact.messages import describe

    block = error_result(message).content[0]
    assert isinstance(block, types.TextContent)
    described = describe(RuntimeError(message))
    for text in (block.text, described):
        assert SIGNED not in text and JWT not in text
        assert "withheld" in text
