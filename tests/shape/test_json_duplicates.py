"""One rule for a body the parser normalizes: repeated keys, NaN, a BOM, lone surrogates.

Found by trying elision as an attacker would (issue 12, items 1 and 7): a body with a repeated
key that fit the budget went out byte for byte, so the shadowed first member - which the guard
and the redactor, judging the parsed value, never saw - reached the model; over the budget the
same body was cut silently to the last member, ``complete`` true. And ``format="json"`` let a
small body with NaN through while a large one was refused.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from elision import Budget, InputError, shape
from elision.envelope import DUPLICATE_KEY, read_envelope
from elision.store import MemoryStore
from support.honesty import strict_loads

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SHADOWED = json.dumps({"token": SECRET})[:-1] + ',"token":"none"}'
PADDING = ',"pad":"' + "x" * 3000 + '"'


def shown(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The envelope and the rest of a shaped JSON text, read by a parser that refuses
    repeated keys (so a second ``token`` would fail here, not pass unseen)."""
    doc = strict_loads(text)
    envelope = doc.pop("__elision__")
    return envelope, doc


@pytest.mark.parametrize(
    ("body", "budget", "fmt"),
    [
        (SHADOWED, 1024, "auto"),  # fits: it used to go out byte for byte
        (SHADOWED, 1024, "json"),  # fits, JSON asked for
        (SHADOWED[:-1] + PADDING + "}", 1024, "auto"),  # over: it used to be cut silently
        (SHADOWED, Budget(1024, "chars"), "auto"),  # a budget in chars takes the other path
    ],
)
def test_a_repeated_key_never_shows_the_shadowed_member(
    body: str, budget: Budget | int, fmt: Any
) -> None:
    shaped = shape(body, budget, format=fmt, store=MemoryStore())
    assert SECRET not in shaped.text
    envelope, doc = shown(shaped.text)
    assert doc["token"] == "none"  # the member the guard and the redactor saw
    assert shaped.complete is False and envelope["complete"] is False
    assert {"path": "$.token", "reason": DUPLICATE_KEY} in envelope["withheld"]
    assert envelope["ref"]  # the original is kept; its digest binds what the tool sent
    assert read_envelope(shaped.text) == envelope


def test_every_shadowed_member_is_declared_once_with_its_path() -> None:
    body = '{"a":1,"a":2,"a":3,"rows":[{"k":1,"k":2}],"b":{}}'
    envelope, doc = shown(shape(body, 1024).text)
    assert doc == {"a": 3, "rows": [{"k": 2}], "b": {}}
    assert envelope["withheld"] == [
        {"path": "$.a", "reason": DUPLICATE_KEY}, {"path": "$.a", "reason": DUPLICATE_KEY},
        {"path": "$.rows[0].k", "reason": DUPLICATE_KEY},
    ]


def test_shaping_a_shaped_duplicate_body_changes_nothing_more() -> None:
    once = shape(SHADOWED, 1024).text
    assert shape(once, 1024).text == once  # no repeats left: it fits, and goes out as it is


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"a": NaN}', "NaN is not JSON"),  # NaN
        (b'{"a": -Infinity}', "Infinity is not JSON"),  # an infinity
        (b'\xef\xbb\xbf{"a": 1}', "byte order mark"),  # a BOM
        (b'{"a": "\\ud800"}', "lone UTF-16 surrogate"),  # a lone surrogate escape
        (b'{"a": "\xff"}', "not valid UTF-8"),  # invalid UTF-8
    ],
)
def test_json_asked_for_refuses_a_small_body_as_it_refuses_a_large_one(
    body: bytes, message: str
) -> None:
    for size in (1, 400):  # fits a 1024-byte budget; then far over it
        with pytest.raises(InputError, match=message):
            shape(body.replace(b"{", b'{"pad":"' + b"x" * 10 * size + b'",', 1), 1024,
                  format="json")


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": NaN}',  # NaN
        b'\xef\xbb\xbf{"a": 1}',  # a BOM
        b'{"a": "\\ud800"}',  # a lone surrogate escape
    ],
)
def test_in_auto_a_body_the_parser_refuses_is_text_at_every_size(body: bytes) -> None:
    small = shape(body, 1024)
    large = shape(body + b"\n" + b"x" * 4000, 1024)
    assert small.format == large.format == "text"
    assert small.body == body  # text that fits is what it is: every byte was the text
