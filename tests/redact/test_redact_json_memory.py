"""Redacting a JSON document that withholds nothing holds no copy of it (issue 23: JSON's target
is 3x the input).

Found by ``bench/fuzz_linear.py``'s json-deep class, measured in a process of its own: redacting
1 MB of documents nested 300 levels, each ending in ``"sk-x"`` (a trigger the rules then clear),
peaked at 33x the input on top of the parse's 29x. Every such string after the first is an equal
but distinct object, and the walk's kept judgement handed back the first one, so each object
above it looked changed and was rebuilt: a second tree. Counted with ``tracemalloc``.
"""

from __future__ import annotations

import pytest

from elision.redact import redact_value
from elision.shape.jsonparse import parse_json
from support.traced import peak

_DEEP = b'{"k":' * 300 + b'"sk-x"' + b"}" * 300  # past orjson's 255 levels: walked node by node
_FLAT = b'{"id":1,"note":"sk-x","ok":true}'  # within them: walked from its serialization


@pytest.mark.parametrize("doc", [pytest.param(_DEEP, id="300-deep"),
                                 pytest.param(_FLAT, id="records")])
def test_a_document_with_nothing_to_withhold_is_not_rebuilt(doc: bytes) -> None:
    body = b"[" + b",".join([doc] * 200) + b"]"
    value = parse_json(body)
    assert value[0] is not value[1] and value[0] == value[1]  # equal, distinct objects
    held = peak(lambda: parse_json(body))
    redacted = redact_value(value, body=body)
    assert not redacted.withheld
    assert all(a is b for a, b in zip(redacted.value, value, strict=True))
    assert peak(lambda: redact_value(value, body=body)) < held // 2


def test_a_string_the_rules_change_is_still_changed_in_every_copy() -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    body = b"[" + b",".join([b'{"k":{"t":"' + key.encode() + b'"}}'] * 3) + b"]"
    redacted = redact_value(parse_json(body), body=body)
    assert len(redacted.withheld) == 3
    assert key not in str(redacted.value)
