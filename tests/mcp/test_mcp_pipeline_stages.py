"""The Pipeline: stages run in order on one parsed value; shaping is honest and within budget."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY
from elision.errors import PolicyDenied
from elision.pipeline import AuditRecord, Capture, Decision, Pipeline, Redacted
from elision.store import MemoryStore

BIG = {
    "rows": [{"id": i, "name": f"row {i}", "amount": i * 1.5} for i in range(400)],
    "warnings": ["searched 528 of 22,933 rows"],
    "total_rows": 22933,
}


class CountingGuard:
    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.seen: list[Capture] = []

    def decide(self, capture: Capture) -> Decision:
        self.seen.append(capture)
        return Decision(self.allowed, "" if self.allowed else "rows hold customer data")


class SecretRedactor:
    """Withholds the value of every key named ``token``; a stand-in for the real stage."""

    def redact(self, capture: Capture) -> Redacted:
        value = json.loads(json.dumps(capture.value, default=str))
        withheld = []
        for i, row in enumerate(value.get("rows", [])):
            if "token" in row:
                row["token"] = "[ref_x]"
                withheld.append({"path": f"$.rows[{i}].token", "reason": "secret", "stub": "ref_x"})
        return Redacted(value, withheld)


class ListAuditor:
    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def record(self, record: AuditRecord) -> None:
        self.records.append(record)


def test_a_fitting_document_is_returned_byte_for_byte() -> None:
    body = '{"b": 1,   "a": [1, 2]}'
    shaped = Pipeline(budget=Budget(1024)).run(body)
    assert shaped.text == body
    assert shaped.complete and shaped.envelope is None


def test_an_oversized_document_fits_and_says_what_was_cut() -> None:
    store = MemoryStore()
    shaped = Pipeline(budget=Budget(2048), store=store).run(json.dumps(BIG), scope="a")
    assert len(shaped.body) <= 2048
    doc = json.loads(shaped.text)
    env = doc[ENVELOPE_KEY]
    assert next(iter(doc)) == ENVELOPE_KEY
    assert env["complete"] is False
    assert {"path": "$.rows", "kind": "array", "shown": len(doc["rows"]), "total": 400} in [
        {k: e[k] for k in ("path", "kind", "shown", "total")} for e in env["elided"]
    ]
    # Caveats written last by the tool are kept whole.
    assert doc["warnings"] == BIG["warnings"] and doc["total_rows"] == 22933
    assert store.read(env["ref"], scope="a") == json.dumps(BIG).encode()


def test_the_body_is_parsed_once_and_the_guard_sees_the_full_body() -> None:
    guard = CountingGuard(allowed=True)
    body = json.dumps(BIG)
    Pipeline(budget=Budget(1024), guard=guard).run(body)
    (capture,) = guard.seen
    assert capture.body == body.encode()
    assert capture.sha256 == hashlib.sha256(body.encode()).hexdigest()
    assert capture.is_json and len(capture.value["rows"]) == 400


def test_a_deny_raises_with_the_guards_reason_and_is_audited() -> None:
    auditor = ListAuditor()
    pipeline = Pipeline(guard=CountingGuard(allowed=False), auditor=auditor)
    with pytest.raises(PolicyDenied, match="customer data"):
        pipeline.run(json.dumps(BIG))
    (record,) = auditor.records
    assert record.decision.allowed is False
    assert record.capture.sha256 == hashlib.sha256(json.dumps(BIG).encode()).hexdigest()


def test_withheld_values_reach_the_envelope_and_the_store_keeps_the_original() -> None:
    doc = {"rows": [{"id": 1, "token": "sk-live-SECRET"}], "total": 1}
    body = json.dumps(doc).encode()
    store = MemoryStore()
    pipeline = Pipeline(budget=Budget(1024), store=store, redactor=SecretRedactor())
    shaped = pipeline.run(body, scope="s")
    assert "sk-live-SECRET" not in shaped.text
    env = json.loads(shaped.text)[ENVELOPE_KEY]
    assert env["complete"] is False
    assert env["withheld"] == [{"path": "$.rows[0].token", "reason": "secret", "stub": "ref_x"}]
    # The digest binds what the tool returned, so the store keeps exactly that.
    assert env["sha256"] == hashlib.sha256(body).hexdigest()
    if "ref" in env:
        assert store.read(env["ref"], scope="s") == body


def test_the_audit_record_binds_the_full_and_the_shown_digest() -> None:
    auditor = ListAuditor()
    body = json.dumps(BIG)
    shaped = Pipeline(budget=Budget(1024), auditor=auditor).run(body, tool="t", server="s")
    (record,) = auditor.records
    assert record.capture.sha256 == hashlib.sha256(body.encode()).hexdigest()
    assert record.shown_sha256 == hashlib.sha256(shaped.body).hexdigest()
    assert record.shown_sha256 != record.capture.sha256
    assert (record.capture.tool, record.capture.server) == ("t", "s")


@pytest.mark.parametrize(
    ("payload", "is_json"),
    [
        ("the build failed\n" * 10, False),  # starts like `true` but is prose
        ("[1, 2, 3]", True),  # array root
        ('"a string root"', True),  # scalar root
        ("-12.5e3", True),  # number root
        ("{not json", False),  # torn document falls back to text
    ],
)
def test_capture_sniffs_json_without_failing_on_text(payload: str, is_json: bool) -> None:
    assert Pipeline().capture(payload).is_json is is_json


def test_text_bodies_get_a_header_line_first() -> None:
    log = "".join(f"2026-11-30T12:00:{i % 60:02d}Z INFO step {i}\n" for i in range(2000))
    shaped = Pipeline(budget=Budget(2048)).run(log)
    assert len(shaped.body) <= 2048
    assert shaped.text.startswith("[elision] partial:")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda children: st.lists(children, max_size=30)
    | st.dictionaries(st.text(max_size=8), children, max_size=12),
    max_leaves=300,
)


@given(value=json_values, limit=st.integers(min_value=512, max_value=4096))
def test_output_fits_parses_and_reshaping_changes_nothing(value: Any, limit: int) -> None:
    pipeline = Pipeline(budget=Budget(limit))
    shaped = pipeline.run(json.dumps(value))
    assert len(shaped.body) <= limit
    json.loads(shaped.text)  # never torn
    again = pipeline.run(shaped.text)
    assert again.text == shaped.text


def test_each_scope_keeps_one_redact_stage_of_its_own() -> None:
    from elision.redact import RedactStage

    store = MemoryStore()
    pipeline = Pipeline(store=store, redactor=RedactStage(store=store))
    a, b = pipeline._redactor_for("a"), pipeline._redactor_for("b")
    assert isinstance(a, RedactStage) and isinstance(b, RedactStage)
    assert (a.scope, b.scope) == ("a", "b")
    assert pipeline._redactor_for("a") is a  # kept, not made again per result
    pipeline.redactor = RedactStage(store=store, server="other")
    fresh = pipeline._redactor_for("a")
    assert fresh is not a and isinstance(fresh, RedactStage) and fresh.server == "other"
