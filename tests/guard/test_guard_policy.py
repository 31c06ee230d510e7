"""The Guardian decides on the full result, combines policies, and fails closed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.guard.pointers import walk_strings
from elision.guard.policy import (
    Decision,
    Guardian,
    Redaction,
    RedactionPolicy,
    SizeCeiling,
    ToolCall,
    ToolLists,
    ToolResult,
    Verdict,
)

SECRET = "sk-live-0123456789abcdefSECRET"
BUDGET = 1024


@dataclass(frozen=True)
class FakeSpan:
    start: int
    end: int
    rule: str


def fake_find(text: str) -> list[FakeSpan]:
    """Stands in for elision.redact: finds every SECRET, wherever it is."""
    spans, at = [], text.find(SECRET)
    while at >= 0:
        spans.append(FakeSpan(at, at + len(SECRET), "api-key"))
        at = text.find(SECRET, at + 1)
    return spans


def result_of(value: Any) -> ToolResult:
    body = value.encode() if isinstance(value, str) else orjson.dumps(value)
    return ToolResult(value, len(body), hashlib.sha256(body).hexdigest())


def test_size_ceiling_refuses_whole_and_says_what_to_do() -> None:
    policy = SizeCeiling(100)
    assert policy.decide(ToolResult("x", 100, "0" * 64), ToolCall("t")).kind == "allow"
    decision = policy.decide(ToolResult("x", 101, "0" * 64), ToolCall("search"))
    assert decision.kind == "deny"
    assert "'search'" in decision.reason and "101 bytes" in decision.reason
    assert "raise the ceiling" in decision.reason


@pytest.mark.parametrize(
    ("allow", "deny", "tool", "server", "kind"),
    [
        ((), ("shell",), "shell", None, "deny"),  # plain deny list
        ((), ("shell",), "search", None, "allow"),  # not on it
        (("read_*",), (), "read_file", None, "allow"),  # wildcard allow
        (("read_*",), (), "write_file", None, "deny"),  # allow list excludes others
        (("read_*",), ("read_secrets",), "read_secrets", None, "deny"),  # deny wins
        ((), ("fs/*",), "delete", "fs", "deny"),  # server/tool form
        ((), ("fs/*",), "delete", "db", "allow"),  # another server's tool
    ],
)
def test_tool_lists(
    allow: tuple[str, ...], deny: tuple[str, ...], tool: str, server: str | None, kind: str
) -> None:
    decision = ToolLists(allow=allow, deny=deny).decide(result_of({}), ToolCall(tool, server))
    assert decision.kind == kind
    if kind == "deny":
        assert repr(tool) in decision.reason


def test_redaction_policy_points_at_every_secret_and_counts_rules() -> None:
    value = {"a": [f"x {SECRET} y {SECRET}"], "b/c": SECRET, "ok": "fine"}
    decision = RedactionPolicy(fake_find).decide(result_of(value), ToolCall("t"))
    assert decision.kind == "modify"
    paths = {r.path: r for r in decision.redactions}
    assert set(paths) == {"/a/0", "/b~1c"}  # RFC 6901 escapes the slash in a key
    assert SECRET not in orjson.dumps([r.to_wire() for r in decision.redactions]).decode()
    assert paths["/a/0"].rules == ("api-key", "api-key")
    verdict = Guardian([RedactionPolicy(fake_find)]).evaluate(result_of(value), ToolCall("t"))
    assert verdict.withheld_counts() == {"api-key": 3}
    assert SECRET not in verdict.reason


SIGNED = ("https://b.s3.amazonaws.com/k?X-Amz-Signature=deadbeefdeadbeef0123"
          "&X-Amz-Credential=AKIAABCDEFGHIJKLMNOP")


def test_the_real_rules_as_a_policy() -> None:
    value = {
        "a b": [{"type": "image", "uri": "https://x/y.png", "data": "AAAA"}],  # inline + uri
        "k": f"see {SIGNED} ok",  # a signed URL inside prose
        "fine": "nothing here",
    }
    kept: dict[str, dict[str, Any]] = {}
    decision = RedactionPolicy(keep=kept.__setitem__).decide(result_of(value), ToolCall("t"))
    assert decision.kind == "modify"
    by_path = {r.path: r for r in decision.redactions}
    assert set(by_path) == {"/a b/0/data", "/k"}
    assert by_path["/a b/0/data"].rules == ("inline-with-uri",)
    assert by_path["/k"].replacement == "see [credential withheld: aws-sigv4-url] ok"
    (record,) = kept.values()  # the host-private record went to keep(), not into the value
    assert record["uri"] == "https://x/y.png"
    assert "deadbeef" not in orjson.dumps([r.to_wire() for r in decision.redactions]).decode()


def test_the_real_rules_on_text_redact_the_root() -> None:
    decision = RedactionPolicy().decide(result_of(f"line 1\nfetch {SIGNED}\n"), ToolCall("t"))
    ((redaction),) = decision.redactions
    assert redaction.path == ""
    assert "deadbeef" not in str(redaction.replacement)
    assert RedactionPolicy().decide(result_of("plain text"), ToolCall("t")).kind == "allow"


class Raises:
    id = "raises"

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        raise RuntimeError(f"choked on {result.value!r}")


class ReturnsJunk:
    id = "junk"

    def decide(self, result: ToolResult, call: ToolCall) -> Any:
        return "allow"


class ModifiesWithoutReason:
    id = "sloppy"

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        return Decision("modify", "", (Redaction("/a", "x"),))


@pytest.mark.parametrize(
    "policy",
    [
        Raises(),  # an exception: its message (which quotes the result) must not leak
        ReturnsJunk(),  # not a Decision at all
        ModifiesWithoutReason(),  # a modify with no reason for the agent
    ],
)
def test_fails_closed_when_a_policy_cannot_decide(policy: Any) -> None:
    verdict = Guardian([policy]).evaluate(result_of({"secret": SECRET}), ToolCall("t"))
    assert verdict.decision == "deny"
    assert repr(policy.id) in verdict.reason
    assert SECRET not in verdict.reason
    assert verdict.reason_codes == ("policy_error",)


def test_deny_wins_over_modify_and_allow_names_every_policy() -> None:
    guardian = Guardian([RedactionPolicy(fake_find), ToolLists(deny=("t",)), SizeCeiling(10**6)])
    verdict = guardian.evaluate(result_of({"k": SECRET}), ToolCall("t"))
    assert verdict.decision == "deny"
    assert verdict.policy_ids == ("tool-lists",)
    assert verdict.redactions == ()
    allowed = Guardian([ToolLists(), SizeCeiling(10**6)]).evaluate(result_of({}), ToolCall("t"))
    assert allowed == Verdict("allow", "", ("tool-lists", "size-ceiling"))


def test_merged_redactions_never_overlap() -> None:
    class Whole:
        id = "whole"

        def decide(self, result: ToolResult, call: ToolCall) -> Decision:
            return Decision.modify([Redaction("/a", "whole")], "all of a")

    value = {"a": {"b": SECRET}}
    verdict = Guardian([RedactionPolicy(fake_find), Whole()]).evaluate(
        result_of(value), ToolCall("t")
    )
    assert [r.path for r in verdict.redactions] == ["/a"]
    assert verdict.withheld_counts() == {"whole": 1, "api-key": 1}


def test_walk_strings_survives_deep_nesting() -> None:
    deep: Any = SECRET
    for _ in range(10_000):
        deep = [deep]
    ((pointer, text),) = list(walk_strings(deep))
    assert text == SECRET and pointer == "/0" * 10_000


# --- padding can't hide anything (invariant 8) ---------------------------------------------

texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=200)
payloads = st.one_of(
    texts,
    texts.map(lambda t: f"{t}{SECRET}{t}"),
    st.dictionaries(st.text(max_size=5), st.one_of(texts, st.just(SECRET)), max_size=4),
)


def padded(x: Any, pad: str) -> Any:
    if isinstance(x, str):
        return pad + x + pad
    return {"pad_before": pad, "data": x, "pad_after": pad}


def summary(verdict: Verdict) -> tuple[str, tuple[str, ...], dict[str, int]]:
    return verdict.decision, verdict.reason_codes, verdict.withheld_counts()


@given(payloads, st.integers(0, 10 * BUDGET), st.sampled_from([" ", "x", "\n", "pad "]))
def test_decision_on_x_equals_decision_on_padding_x_padding(
    x: Any, pad_len: int, unit: str
) -> None:
    pad = (unit * (pad_len // len(unit) + 1))[:pad_len]
    # The ceiling sits above the largest padded body (a JSON-escaped newline pad doubles):
    # padding must not change the decision.
    guardian = Guardian([
        ToolLists(deny=("shell",)), RedactionPolicy(fake_find), SizeCeiling(50 * BUDGET)
    ])
    call = ToolCall("search")
    plain = guardian.evaluate(result_of(x), call)
    with_padding = guardian.evaluate(result_of(padded(x, pad)), call)
    assert summary(plain) == summary(with_padding)
    has_secret = SECRET in orjson.dumps(x).decode()
    assert (plain.decision == "modify") == has_secret


real_payloads = st.one_of(
    texts,
    texts.map(lambda t: f"{t} {SIGNED} {t}"),
    st.dictionaries(st.text(max_size=5), st.one_of(texts, st.just(SIGNED)), max_size=4),
)


@given(real_payloads, st.integers(0, 10 * BUDGET), st.sampled_from([" ", "x", "\n", "pad "]))
def test_padding_hides_nothing_from_the_real_rules(x: Any, pad_len: int, unit: str) -> None:
    pad = (unit * (pad_len // len(unit) + 1))[:pad_len]
    guardian = Guardian([RedactionPolicy(), SizeCeiling(50 * BUDGET)])
    call = ToolCall("search")
    plain = guardian.evaluate(result_of(x), call)
    with_padding = guardian.evaluate(result_of(padded(x, pad)), call)
    assert summary(plain) == summary(with_padding)
    if SIGNED in orjson.dumps(x).decode():
        assert plain.decision == "modify"
