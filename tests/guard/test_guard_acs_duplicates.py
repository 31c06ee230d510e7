"""The ACS Guardian never allows a body whose repeated keys hid members from its policies.

Found by trying elision as an attacker would (issue 12, item 1): a ``toolCallResult`` whose
body read ``{"note":"<token>","note":"ok"}`` was parsed last-wins, so the redaction policy saw
``"ok"`` and the Guardian answered allow, while the host goes on to show the model every byte
of the body - the token included. The Guardian cannot change those bytes, only decide, so such
a body is denied; a request whose own JSON repeats a key is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from elision.audit.log import AuditLog
from elision.guard.acs import AcsEndpoint
from elision.guard.policy import Guardian, RedactionPolicy
from elision.redact.scan import find_spans
from elision.store.memory import MemoryStore
from support.acs import Driver, beside, checked, digest, inside, message, result_payload

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SHADOWED = b'{"note":"' + SECRET.encode() + b'","note":"ok"}'


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def endpoint(unkeyed_log: AuditLog, store: MemoryStore) -> AcsEndpoint:
    return AcsEndpoint(Guardian([RedactionPolicy(find_spans)]), unkeyed_log, store)


@pytest.fixture
def driver(endpoint: AcsEndpoint) -> Driver:
    driver = Driver(endpoint.handle)
    driver.hello()
    return driver


def sent_whole(body: bytes, _ref: str | None, _prefix: int) -> dict[str, Any]:
    """A bound that is not truncated: the whole body inline, with its digest."""
    return {"value": body.decode(), "truncated": False, "digest": digest(body)}


@pytest.mark.parametrize(
    "place",
    [
        pytest.param(sent_whole, id="inline-whole"),  # the body inline, whole
        pytest.param(beside, id="ref-beside-value"),  # a prefix, the body by content_ref
        pytest.param(inside, id="ref-as-value"),  # the same, the bound as value
    ],
)
def test_a_body_that_repeats_a_key_is_denied(
    driver: Driver, store: MemoryStore, unkeyed_log: AuditLog,
    place: Callable[[bytes, str | None, int], dict[str, Any]],
) -> None:
    store.put(SHADOWED, ref="el_dup", sha256=hashlib.sha256(SHADOWED).hexdigest(),
              format="json")
    reply = driver.result(place(SHADOWED, "el_dup", 8))
    assert SECRET not in orjson.dumps(reply).decode()
    result = reply["result"]
    assert result["decision"] == "deny"
    assert "duplicate_keys" in result["reason_codes"]
    assert "repeats an object key" in result["reasoning"]
    (entry,) = list(unkeyed_log.entries())
    assert entry["decision"] == "deny" and "duplicate_keys" in entry["reason_codes"]


@pytest.mark.parametrize(
    ("output", "decision"),
    [
        (sent_whole(b'{"note":"ok"}', None, 0), "allow"),  # no repeat: judged as usual
        (sent_whole(b'{"note":"' + SECRET.encode() + b'"}', None, 0), "modify"),  # nor here
        ({"value": SHADOWED.decode()}, "modify"),  # a plain text value is judged as the text
    ],
)
def test_a_body_the_policies_saw_whole_is_judged_as_usual(
    driver: Driver, output: dict[str, Any], decision: str
) -> None:
    assert driver.result(output)["result"]["decision"] == decision


def test_a_request_whose_own_json_repeats_a_key_is_refused(
    driver: Driver, endpoint: AcsEndpoint
) -> None:
    request = orjson.dumps(message("steps/toolCallResult", result_payload({"note": "X"}),
                                   driver.session, msg_id=7))
    raw = request.replace(b'{"note":"X"}', SHADOWED)  # the outputs' value repeats "note"
    assert raw != request
    reply = checked(orjson.loads(endpoint.handle_bytes(raw)))
    assert SECRET not in orjson.dumps(reply).decode()
    assert reply["id"] == 7 and reply["error"]["code"] == -32600
    assert reply["error"]["data"]["reason"] == "duplicate_keys"
    assert "send each key once" in reply["error"]["message"]
