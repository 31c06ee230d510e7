"""The Guardian and the audit log as pipeline stages: decide on the full body, bind both."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from elision.audit.log import AuditLog
from elision.audit.stage import LogAuditor
from elision.audit.verify import verify_log
from elision.errors import AuditError, PolicyDenied
from elision.guard.policy import Decision, Guardian, Redaction, SizeCeiling, ToolLists
from elision.guard.stage import GuardStage
from elision.pipeline import Pipeline
from support.policies import Seen

KEY = "hmac:stage-test-secret-long-enough"


def test_pipeline_binds_full_and_shown_digests(tmp_path: Path) -> None:
    body = orjson.dumps({"total": 500, "rows": [{"i": i, "pad": "x" * 40} for i in range(500)]})
    with AuditLog(tmp_path / "a.db", key=KEY) as log:
        pipeline = Pipeline(
            budget=1024, guard=GuardStage(Guardian([SizeCeiling(10**6)])),
            auditor=LogAuditor(log),
        )
        shaped = pipeline.run(body, tool="list", server="db")
        (entry,) = list(log.entries())
    assert not shaped.complete
    assert entry["full"] == {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body)}
    assert entry["shown"] == {
        "sha256": hashlib.sha256(shaped.body).hexdigest(), "bytes": len(shaped.body)
    }
    assert entry["complete"] is False
    assert entry["decision"] == "allow" and entry["policy_ids"] == ["size-ceiling"]
    assert (entry["tool"], entry["server"]) == ("list", "db")
    assert verify_log(tmp_path / "a.db", key=KEY).ok


def test_a_denied_result_is_audited_and_raised(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "a.db") as log:
        pipeline = Pipeline(
            guard=GuardStage(Guardian([ToolLists(deny=("shell",))])), auditor=LogAuditor(log)
        )
        with pytest.raises(PolicyDenied, match="deny list"):
            pipeline.run("rm -rf /", tool="shell")
        (entry,) = list(log.entries())
    assert entry["decision"] == "deny"
    assert entry["reason_codes"] == ["tool_denied"]


def test_a_modify_is_denied_where_it_cannot_be_applied() -> None:
    class Modifies:
        id = "mod"

        def decide(self, result: object, call: object) -> Decision:
            return Decision.modify([Redaction("/a", "x")], "hide a")

    decision = GuardStage(Guardian([Modifies()])).decide(Pipeline().capture('{"a": 1}'))
    assert not decision.allowed
    assert "hide a" in decision.reason
    assert "modify_unsupported" in getattr(decision, "reason_codes", ())


def test_a_result_that_cannot_be_audited_is_not_delivered(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.db")
    log.close()  # appends now fail
    pipeline = Pipeline(auditor=LogAuditor(log))
    with pytest.raises(AuditError):
        pipeline.run('{"ok": true}', tool="t")


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (Decision.ask("an operator must approve this"), "approver_unavailable"),  # ACS §9.2
        (Decision.defer("the owner is not known yet"), "deferred"),  # timeout_decision: deny
    ],
)
def test_a_pause_is_denied_where_nobody_can_resolve_it(answer: Decision, code: str) -> None:
    class Pauses:
        id = "pause"

        def decide(self, result: object, call: object) -> Decision:
            return answer

    decision = GuardStage(Guardian([Pauses()])).decide(Pipeline().capture('{"a": 1}'))
    assert not decision.allowed
    assert answer.reason in decision.reason
    assert getattr(decision, "verdict", None) == "deny"
    assert code in getattr(decision, "reason_codes", ())


@pytest.mark.parametrize(("reads_values", "gets_text"), [
    (None, True),  # a policy that says nothing may read the text: it gets it
    (True, True),
    (False, False),  # one that judges a size or a name gets no decoded copy of the body
])
def test_a_text_is_decoded_for_the_guard_only_when_a_policy_reads_it(
    reads_values: bool | None, gets_text: bool
) -> None:
    """Found by bench/proxy.py --peak: for a 100 MB log the default guard (size ceiling and
    tool lists, neither reading values) was handed a 100 MB decoded copy of the body."""
    text = "2026-12-02 INFO a log line\n" * 40
    policy = Seen(reads_values)
    pipeline = Pipeline(guard=GuardStage(Guardian([SizeCeiling(1 << 30), policy])),
                        redactor=None)
    pipeline.run(text, budget=512)
    (seen,) = policy.values
    assert seen == text if gets_text else not isinstance(seen, str)


def test_a_policy_that_reads_values_sees_a_deep_spine_parsed_whole() -> None:
    """A record array under 1,100 one-member levels is read as a spine around a lazy array
    (elision.shape.lazyspine): a policy that reads values is handed plain JSON values, as
    it was when the body was parsed whole, never the lazy node at the bottom."""
    rows = b",".join([b'{"id":1,"ok":true}'] * 4000)
    body = b'{"k":' * 1100 + b"[" + rows + b"]" + b"}" * 1100
    policy = Seen(True)
    pipeline = Pipeline(guard=GuardStage(Guardian([SizeCeiling(1 << 30), policy])),
                        redactor=None)
    pipeline.run(body, budget=4096)
    (seen,) = policy.values
    for _ in range(1100):
        seen = seen["k"]
    assert type(seen) is list and seen[:2] == [{"id": 1, "ok": True}] * 2
