"""The seams of a message judged together: what is cut is what a judgement a seam cut.

Found by ``bench/fuzz_paths.py --families govern``: a result of 12,000 annotated text blocks
of a few chars each cost 51-59x the time of its prose, a ``find_spans`` call a seam.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import elision.redact.scan
from elision.mcp.gate import seams
from elision.mcp.gate.egress import Egress
from elision.redact.rules import credential_stub
from elision.redact.scan import find_spans
from support.calls import counted

#: Credentials of several rules' kinds: tokens, a key pair's id, a DSN, a parameter, a JWT,
#: a bearer header, a signed URL, base64 of a token, a quoted generic name.
SECRETS = (
    "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab",
    "AKIAQ3EGRT5YV2NXKL7P",
    "sk-proj-Zk3vQ9xY2mL8pR4tW6nB1cD5fG7hJ0kS",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "postgres://admin:Sup3rS3cretPw@db.example.com:5432/app",
    "password=Hunter2Hunter2xyz",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789",
    "https://x.s3.amazonaws.com/o?X-Amz-Signature=abcdef0123456789abcdef0123456789",
    "Z2hwX1MzM2QzZENoNG5uM2xUMGszblh5WjAxMjM0NTY3ODlhYg==",
    'api_key: "q8Wz3Lm9Tx2Rv7Kp4Yn6Bd1Hs5Jf0Gc"',
)


def _per_seam(texts: list[str | None]) -> list[str | None]:
    """The seams judged one by one, as the code before this change did: the reference."""
    out = list(texts)
    for i in range(len(out) - 1):
        left, right = out[i], out[i + 1]
        if not left or not right:
            continue
        tail, head = left[-seams.SEAM_CHARS:], right[:seams.SEAM_CHARS]
        spans = [s for s in find_spans(tail + head) if s.start < len(tail) < s.end]
        if not spans:
            continue
        start, end = min(s.start for s in spans), max(s.end for s in spans)
        stub = credential_stub(spans[0].rule)
        out[i] = left[: len(left) - len(tail) + start] + stub
        out[i + 1] = stub + right[end - len(tail):]
    return out


@st.composite
def _fragment(draw: st.DrawFn) -> str:
    secret = draw(st.sampled_from(SECRETS))
    cut = draw(st.integers(1, len(secret) - 1))
    return draw(st.one_of(
        st.sampled_from(["ok", " ", "\n", "a note", "token: ", "=", "@", "%2D", "é", "\u210e"]),
        st.just(secret),
        st.just(secret[:cut]),  # a block ending in a secret's start: a seam splits it
        st.just(secret[cut:]),
        # A block opening with a secret's end and closing with its start: joined line by
        # line, its two seams would put the halves either side of a line break.
        st.just(secret[cut:] + " mid " + secret[:cut]),
        st.just("x" * draw(st.integers(1000, 1100))),  # past SEAM_CHARS: a seam reads part
        st.text(max_size=12),
    ))


_EDGE = st.lists(_fragment(), max_size=2).map("".join)


@st.composite
def _wrapped(draw: st.DrawFn) -> tuple[str, str]:
    """A block's two edges: a secret's end at its start, a secret's start at its end. In a
    run of them each seam splits a secret, and each cut changes the next seam's left text."""
    secret = draw(st.sampled_from(SECRETS))
    cut = draw(st.integers(1, len(secret) - 1))
    return secret[cut:], secret[:cut]


@st.composite
def _texts(draw: st.DrawFn) -> list[str | None]:
    """A few blocks, or enough that their seams are told apart in one pass and those it
    flags judged together (:data:`elision.redact.batch.BATCH` of them, 32): each drawn from a
    few kinds, its number between its start and its end so that no two are alike; None (not
    a text) and empty blocks end a run of seams."""
    kinds = draw(st.lists(st.one_of(st.tuples(_EDGE, _EDGE), _wrapped(), st.none(), st.just("")),
                          min_size=1, max_size=5))
    count = draw(st.one_of(st.integers(0, 8), st.integers(40, 80)))
    picks = draw(st.lists(st.integers(0, len(kinds) - 1), min_size=count, max_size=count))
    return [kind if not isinstance(kind := kinds[k], tuple) else f"{kind[0]} {i} {kind[1]}"
            for i, k in enumerate(picks)]


@given(_texts(), st.sampled_from([5, 36, 4096]))
@settings(max_examples=60, deadline=None)
def test_seams_judged_together_cut_as_seams_judged_one_by_one(
    texts: list[str | None], at_once: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seams, "_SEAMS_AT_ONCE", at_once)  # a cut across a batch's edge too
        assert seams.redact_seams(texts) == _per_seam(texts)


@pytest.mark.parametrize(
    "texts",
    [
        # Tokens split at every other seam, distinct: told together, then each next seam,
        # its left text cut, judged again as it reads now.
        [f"block {i} {SECRETS[0][:12 + i % 9]}" if i % 2 == 0
         else f"{SECRETS[0][12 + (i - 1) % 9:]} more {i}" for i in range(120)],
        # A whole distinct token in every block, at its end: none crosses a seam.
        [f"{i} {SECRETS[0][:-4]}{i:04d}" for i in range(120)],
    ],
)
def test_many_seams_with_credentials_cut_as_one_by_one(texts: list[str | None]) -> None:
    assert seams.redact_seams(texts) == _per_seam(texts)


def _annotated(texts: list[str]) -> bytes:
    blocks = [{"type": "text", "text": text, "annotations": {"audience": ["user"]}}
              for text in texts]
    return orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": blocks}})


@pytest.mark.parametrize(
    ("texts", "most"),
    [
        ([f"ok {i}" for i in range(300)], 0),  # distinct and clean: none judged
        (["ok"] * 300, 1),  # the bench's blocks, all alike: one seam, judged once
        # Two tokens split across seams: those two seams, and the two after them (their
        # left texts were cut), are judged; the other 295 are not.
        ([*(f"ok {i}" for i in range(100)), f"see {SECRETS[0][:9]}", SECRETS[0][9:],
          *(f"ok {i}" for i in range(100, 200)), f"see {SECRETS[2][:7]}", SECRETS[2][7:],
          *(f"ok {i}" for i in range(200, 296))], 4),
    ],
)
def test_a_message_of_many_blocks_is_not_a_judgement_a_seam(
    monkeypatch: pytest.MonkeyPatch, texts: list[str], most: int,
) -> None:
    calls = counted(monkeypatch, elision.redact.scan, "find_spans")
    out: Any = orjson.loads(Egress().gate_bytes(_annotated(texts)))
    shown = "".join(block["text"] for block in out["result"]["content"])
    assert SECRETS[0] not in shown and SECRETS[2] not in shown
    assert len(calls) <= most  # the code before: 299, one a seam
