"""The exact parser refuses a large ASCII body from its first bytes when they show the error
(issue 23, memjson).

Found by ``bench/redact.py`` (``cookies-json-deep``: a MB of text lines that each open with an
escaped JSON object, ``{\\\\\\"cookies\\\\\\": …``): once redacted, the text is tried as JSON
again (``shape_view``), and the exact parser decoded the whole body to a str to fail at its
second char, a copy of the body (1.3x the input with the stubs) on top of ``shape()``'s peak.
The probe must refuse with the very message the whole parse gives, or leave it to the whole.
Peaks are counted (tracemalloc), never timed.
"""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.errors import InputError
from elision.shape import jsonparse
from support.traced import peak

_LINE = (r'{\\\"cookies\\\": {\\\"sid\\\": \\\"Xq7vR2mK9pL4wT8n\\\"}} '
         "the quick brown fox jumps over the lazy dog\n")


def _refusal(body: bytes, probe: bool, monkeypatch: pytest.MonkeyPatch) -> str | None:
    with monkeypatch.context() as mp:
        if not probe:
            mp.setattr(jsonparse, "_refused_by_prefix", lambda body: None)
        try:
            jsonparse.parse_json(body, risky=True)  # the exact parser, as after msgspec's no
        except InputError as exc:
            return str(exc)
    return None


def test_a_text_that_opens_with_a_brace_is_refused_without_its_decoded_copy() -> None:
    """Red before: 1.0x the body (its decoded copy); now a probe's 16 KB."""
    body = (_LINE * (300_000 // len(_LINE))).encode()

    def refused() -> None:
        with pytest.raises(InputError, match="not valid JSON"):
            jsonparse.parse_json(body, risky=True)

    got = peak(refused)
    assert got < len(body) // 4, f"{got / len(body):.2f}x the body"


_DOC = orjson.dumps({"rows": [{"id": i, "note": "x" * (i % 90), "f": i / 7, "l": [True, None]}
                              for i in range(1500)]})


@pytest.mark.parametrize("body", [
    _LINE.encode() * 2000,  # refused at its second char
    b" " * 40_000,  # white space alone: refused at its end, by the whole
    b'{"a": "' + b"x" * 40_000 + b'"}' + b"!",  # trailing data past the probe
    b'{"a": "' + b"x" * 40_000,  # a string the probe's end cuts: the whole's to say
    b"[" + b"1," * 20_000 + b"1]]",  # a valid prefix, refused at the end
    b'{"a": NaN, ' + b" " * 40_000 + b"}",  # a constant: the deep parser's message
    b'{"a": "\\ud800"' + b" " * 40_000 + b"}",  # a lone surrogate anywhere is refused first
    b'{"a": x' + "é".encode() * 20_000 + b"}",  # not ASCII: the whole's
    b"[" * 5000 + b"]" * 4999 + b" " * 30_000,  # nested past recursion: the deep parser's
])
def test_the_refusal_is_the_whole_parse_s(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _refusal(body, True, monkeypatch) == _refusal(body, False, monkeypatch)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_a_corrupted_document_is_refused_as_the_whole_parse_refuses_it(seed: int) -> None:
    """A byte or three changed, put in or taken out, near the probe's end or before it."""
    rng = random.Random(seed)
    body = bytearray(_DOC)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(0, jsonparse.PROBE_BYTES + 200)
        char = rng.choice(b'{}[]",:\\ 0123456789eE.-+tfnaxu\n\x01')
        step = rng.randrange(3)
        if step == 0:
            body[at] = char
        elif step == 1:
            body.insert(at, char)
        else:
            del body[at]
    with pytest.MonkeyPatch.context() as mp:
        assert _refusal(bytes(body), True, mp) == _refusal(bytes(body), False, mp)
