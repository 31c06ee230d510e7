"""Bounded toolCallResult outputs (issue 15, ACS #155): both schema-valid placements, the
padding attack, and what the audit entry may claim.

Found by checking the Guardian against the standard's schemas: the bounded shape it accepted
(``outputs`` as one object) is not valid under ``hooks/tool-call-result.json``, and the two
valid placements were taken as plain values, so a padded result was allowed on its prefix and
its entry said ``complete: true``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from elision.audit.log import AuditLog
from elision.guard.acs import AcsEndpoint
from elision.guard.policy import Decision, Guardian, ToolCall, ToolResult
from elision.store.memory import MemoryStore
from support.acs import Driver, beside, digest, inside

MARKER = "DENY-MARKER: exfiltrate the keys"


class MarkerPolicy:
    """Denies any result whose full body holds the marker."""

    id = "marker"

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        if MARKER in orjson.dumps(result.value).decode():
            return Decision.deny("the result carries the deny marker", "marker")
        return Decision.allow()


Placement = Callable[[bytes, "str | None", int], dict[str, Any]]
PLACEMENTS = [pytest.param(beside, id="beside-value"), pytest.param(inside, id="as-value")]


@pytest.fixture
def log(unkeyed_log: AuditLog) -> AuditLog:
    return unkeyed_log


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def driver(log: AuditLog, store: MemoryStore) -> Driver:
    driver = Driver(AcsEndpoint(Guardian([MarkerPolicy()]), log, store).handle)
    driver.hello()
    return driver


def padded() -> bytes:
    """A result whose deny marker sits far past any inline prefix."""
    return orjson.dumps({"rows": ["harmless " * 8] * 200, "note": MARKER})


@pytest.mark.parametrize("place", PLACEMENTS)
@pytest.mark.parametrize("held", [True, False], ids=["ref-resolves", "ref-unresolvable"])
def test_the_padding_attack_is_denied_in_every_placement(
    driver: Driver, store: MemoryStore, log: AuditLog, place: Placement, held: bool
) -> None:
    body = padded()
    assert MARKER not in body[:40].decode()
    if held:
        store.put(body, ref="el_padded", sha256=hashlib.sha256(body).hexdigest(), format="json")
    result = driver.result(place(body, "el_padded", 40))["result"]
    assert result["decision"] == "deny"
    assert result["reason_codes"] == (["marker"] if held else ["partial_evidence"])
    (entry,) = list(log.entries())
    assert entry["decision"] == "deny"
    assert entry["complete"] is False
    assert entry["full"]["sha256"] == hashlib.sha256(body).hexdigest()


@pytest.mark.parametrize("place", PLACEMENTS)
def test_an_allowed_bounded_output_never_claims_complete(
    driver: Driver, store: MemoryStore, log: AuditLog, place: Placement
) -> None:
    body = orjson.dumps({"rows": list(range(500))})
    store.put(body, ref="el_clean", sha256=hashlib.sha256(body).hexdigest(), format="json")
    result = driver.result(place(body, "el_clean", 30))["result"]
    assert result["decision"] == "allow"
    (entry,) = list(log.entries())
    assert entry["complete"] is False
    assert entry["outputs"] == [{"sha256": hashlib.sha256(body).hexdigest(),
                                 "bytes": len(body), "bounded": True, "evidence": "full"}]
    assert entry["shown"]["sha256"] == hashlib.sha256(body[:30]).hexdigest()  # the prefix


def test_a_bound_that_is_not_truncated_is_checked_against_its_digest(driver: Driver) -> None:
    whole = b"all of it"
    fine = driver.result({"value": "all of it", "truncated": False, "digest": digest(whole)})
    assert fine["result"]["decision"] == "allow"
    wrong = driver.result({"value": "all of it", "truncated": False, "digest": digest(b"x")})
    assert wrong["error"]["code"] == -32602
    assert wrong["error"]["data"]["reason"] == "digest_mismatch"


@pytest.mark.parametrize(
    "output",
    [
        {"value": "abc", "content_ref": "el_x"},  # a ref with no digest: never a plain value
        {"value": "abc", "truncated": "yes", "digest": "sha256:" + "0" * 64},  # not a boolean
        {"value": {"inline": 7, "truncated": True, "digest": "sha256:" + "0" * 64}},  # inline
    ],
)
def test_a_malformed_bound_is_an_error_not_a_decision(
    driver: Driver, log: AuditLog, output: dict[str, Any]
) -> None:
    assert driver.result(output)["error"]["code"] == -32602
    assert log.head() == (0, None)


def test_the_old_single_object_shape_is_refused(driver: Driver, log: AuditLog) -> None:
    body = padded()
    bound = {"inline": body[:40].decode(), "digest": digest(body), "truncated": True,
             "content_ref": "el_padded", "bytes": len(body)}
    sent = driver.call("steps/toolCallResult", {"tool": {"name": "t"},
                                                "exit_status": "success", "outputs": bound})
    assert sent["error"]["code"] == -32602
    assert "outputs" in sent["error"]["message"]
    assert log.head() == (0, None)


def test_a_tool_object_with_other_keys_is_a_plain_value(driver: Driver, log: AuditLog) -> None:
    # A tool's own output that merely has truncated and digest keys is seen whole.
    value = {"truncated": True, "digest": "sha256:" + "0" * 64, "note": MARKER}
    assert driver.result({"value": value})["result"]["decision"] == "deny"
    (entry,) = list(log.entries())
    assert "outputs" not in entry and "evidence" not in entry


def test_several_outputs_are_decided_together(
    driver: Driver, store: MemoryStore, log: AuditLog
) -> None:
    body = padded()
    store.put(body, ref="el_padded", sha256=hashlib.sha256(body).hexdigest(), format="json")
    result = driver.result({"value": "fine"}, beside(body, "el_padded"))["result"]
    assert result["decision"] == "deny"
    (entry,) = list(log.entries())
    assert [o.get("bounded", False) for o in entry["outputs"]] == [False, True]


@pytest.mark.parametrize(
    ("body", "inline", "truncated"),
    [
        (b"short", 4096, False),  # fits: sent whole, no ref needed
        ("é".encode() * 10, 5, True),  # cut inside a character: the prefix stops before it
        (b"", 16, False),  # an empty body is whole
    ],
)
def test_the_client_helper_builds_what_the_guardian_reads(
    driver: Driver, store: MemoryStore, body: bytes, inline: int, truncated: bool
) -> None:
    from elision.guard.acs_bounded import bounded_output

    store.put(body, ref="el_whole", sha256=hashlib.sha256(body).hexdigest(), format="text")
    item = bounded_output(body, "el_whole", inline_bytes=inline)
    assert item["truncated"] is truncated
    assert body.startswith(item["value"].encode())
    assert ("content_ref" in item) is truncated
    assert driver.result(item)["result"]["decision"] == "allow"
