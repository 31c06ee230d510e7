"""A tool result with a few images is redacted without a translated copy of all of it.

Found by the fuzz helper (issue 23): the realistic JSON corpus (bench/redact.py) took 4.5 ms a
MB to redact, 0.9 without its 8 thumbnails, and a chance keyword head inside one thumbnail's
base64 (``Q0ZQ``) sent all of the serialization through a translated copy, 64 KB at a time,
to learn that the head opened no run. The heads a search found are now looked for in their
own places first (``triggers._Hyperscan._few_heads``); the copy is read only where they are
many (a run that repeats one mid-run).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value, triggers
from elision.redact.families import PATTERN_FAMILIES, sample
from elision.redact.keywords import B64_HEADS
from support.built import strategies_built

pytestmark = pytest.mark.skipif(triggers.engine_name() != "hyperscan",
                                reason="the head search is hyperscan's")

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
#: Credentials as a tool might leak them: raw, and base64'd (a value stored encoded).
SECRETS = ["ghp_" + "a1B2c3D4" * 4 + "e5F6", "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" * 2,
           "AKIAIOSFODNN7EXAMPLE", "password=hunter2hunter2", "SK" + "0123456789abcdef" * 2]
HEADS = sorted(B64_HEADS)


def _image(rng: Any, header: bytes, size: int, secret: str | None, head: str | None,
           spliced: str | None = None) -> str:
    """An image's base64: a real PNG/JPEG header, random bytes, maybe a credential's bytes
    inside (still an image's bytes), maybe a keyword head spliced mid-run, maybe a raw
    credential spliced mid-run (a Twilio SID is all base64 chars: it must still be found)."""
    raw = header + rng.randbytes(size)
    if secret is not None:
        at = rng.randrange(len(raw) + 1)
        raw = raw[:at] + secret.encode() + raw[at:]
    text = base64.b64encode(raw).decode()
    if head is not None:
        at = rng.randrange(0, len(text) + 1)
        text = text[:at] + head + text[at:]
    if spliced is not None:
        at = rng.randrange(0, len(text) + 1)
        text = text[:at] + spliced + text[at:]
    return text


# The composites' parts, built once (per credential, for its spellings): built on every draw
# they were most of drawing's CPU (1,147 strategies for 20 documents).
_SEEDS = st.integers(0, 2**32)
_NOTES = st.sampled_from(["ok", "cache miss"])
_HEADERS = st.sampled_from([PNG, JPEG, b""])
_MAYBE_SECRETS = st.none() | st.sampled_from(SECRETS)
_MAYBE_HEADS = st.none() | st.sampled_from(HEADS)
_SECRET_DRAWS = st.sampled_from(SECRETS)
_SPELLINGS = {secret: st.sampled_from([
    secret, base64.b64encode(secret.encode()).decode(),
    "token " + base64.b64encode(secret.encode()).decode()]) for secret in SECRETS}


@st.composite
def documents(draw: st.DrawFn) -> Any:
    import random

    rng = random.Random(draw(_SEEDS))
    rows = []
    for i in range(draw(st.integers(1, 12))):
        row: dict[str, Any] = {"id": i, "note": draw(_NOTES)}
        if draw(st.booleans()):
            header = draw(_HEADERS)
            secret = draw(_MAYBE_SECRETS)
            head = draw(_MAYBE_HEADS)
            spliced = draw(_MAYBE_SECRETS)
            row["thumbnail"] = {"type": "image", "mimeType": "image/png",
                                "data": _image(rng, header, draw(st.integers(0, 900)),
                                               secret, head, spliced)}
        if draw(st.integers(0, 5)) == 0:
            # beside the image: raw, or a string that is one base64 value of a credential
            secret = draw(_SECRET_DRAWS)
            row["note"] = draw(_SPELLINGS[secret])
        if draw(st.integers(0, 4)) == 0:
            row["doc"] = {"type": "resource", "uri": f"https://example.com/d/{i}.pdf",
                          "mimeType": "application/pdf"}
        rows.append(row)
    return {"rows": rows}


def _redacted(doc: Any) -> tuple[Any, Any]:
    body = orjson.dumps(doc)
    got = redact_value(orjson.loads(body), body=body)
    return got.value, got.withheld


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_heads_found_in_place_withhold_what_the_translated_copy_does(doc: Any) -> None:
    """In-process differential: the heads' own places (fast) against the translated copy
    of every block (the path before), which runs in this process with the fast path off."""
    fast = _redacted(doc)
    with _slow_paths():
        slow = _redacted(doc)
    assert fast == slow


@contextlib.contextmanager
def _slow_paths() -> Iterator[None]:
    """Both fast paths off: the translated copy for the heads, every chance keyword kept."""
    triggers.FEW_HEADS_FIRST = triggers.CHANCE_CHECK = False
    try:
        yield
    finally:
        triggers.FEW_HEADS_FIRST = triggers.CHANCE_CHECK = True


def _chance_fakes() -> set[str]:
    """A fake of each family whose keyword is checked where it falls mid-run (a DSN or a
    token glued into a run must still be found where the judge finds it)."""
    eng = triggers.engine()
    if not isinstance(eng, triggers._Hyperscan):
        return set()
    families = {i for fams in eng.chance_keywords().values() for i in fams}
    fakes = {sample(PATTERN_FAMILIES[i], 0, "thumbs")[0].replace("\n", " ") for i in families}
    return fakes | {f" {fake} " for fake in fakes}  # glued into a run, and set apart in it


#: What a wrapped base64 text is interleaved with: credentials raw (the Twilio SID among
#: them, all base64 chars) and base64'd, escapes the judge decodes, a family keyword alone.
PLANTS = [*SECRETS, *(base64.b64encode(s.encode()).decode() for s in SECRETS),
          "%53K0123456789abcdef0123456789abcdef", "SK\\u0030123456789abcdef0123456789abcde",
          "SK0", "SKf", "twilio_auth_token=" + "0123456789abcdef" * 2, "AC" + "0a" * 16,
          *sorted(_chance_fakes())]


@st.composite
def wrapped_texts(draw: st.DrawFn) -> str:
    import random

    rng = random.Random(draw(st.integers(0, 2**32)))
    text = base64.b64encode(rng.randbytes(draw(st.integers(200, 6000)))).decode()
    for _ in range(draw(st.integers(0, 6))):
        at = rng.randrange(0, len(text) + 1)
        text = text[:at] + draw(st.sampled_from(PLANTS)) + text[at:]
    width = draw(st.sampled_from([64, 76, 1000, 10**6]))
    return "\n".join(text[a:a + width] for a in range(0, len(text), width)) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wrapped_texts())
def test_chance_keywords_in_base64_withhold_what_judging_each_did(text: str) -> None:
    """In-process differential over wrapped base64 (MIME, PEM widths, one line) with
    credentials planted mid-run and beside: the chance keywords checked in C against every
    one kept for the judge (the path before)."""
    fast = redact_text(text)
    with _slow_paths():
        slow = redact_text(text)
    assert (fast.value, fast.withheld) == (slow.value, slow.withheld)


def test_a_twilio_sid_in_a_line_of_base64_is_still_withheld() -> None:
    """A SID set apart in a line of base64 is withheld; one glued into a run is judged as
    before (the judge, not the trigger search, tells it from the run: withheld by neither)."""
    import random

    sid = "SK" + "0123456789abcdef" * 2
    text = _image(random.Random(3), PNG, 3000, None, None, None)
    apart = text[:1000] + " " + sid + " " + text[1000:]
    assert sid not in redact_text(apart).value
    glued = text[:1000] + sid + text[1000:]
    with _slow_paths():
        before = redact_text(glued)
    assert redact_text(glued) == before


def test_wrapped_random_base64_leaves_few_chance_keywords_to_judge() -> None:
    """Bounded work: 256 KB of random base64 at 76 chars a line spell twilio's ``SK0``… 18
    times, each a piece judged in Python before; a keyword whose pattern cannot match in its
    line is no trigger."""
    import random

    text = base64.b64encode(random.Random(5).randbytes(3 * 256 * 1024 // 4)).decode()
    wrapped = "\n".join(text[a:a + 76] for a in range(0, len(text), 76)) + "\n"
    assert len(triggers.text_triggers(wrapped)) <= 4


def _stretches(data: bytes, positions: list[int]) -> set[int]:
    return {data.rfind(b'"', 0, p + 1) for p in positions}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.booleans())
def test_opening_heads_fast_and_slow_name_the_same_strings(doc: Any, first: bool) -> None:
    data = orjson.dumps(doc)
    eng = triggers.engine()
    assert isinstance(eng, triggers._Hyperscan)
    heads = {h for h in HEADS if h.encode() in data} or {HEADS[0]}
    fast = eng._few_heads(data, heads, triggers.JSON_STOP, first=first)
    assert fast is not None
    slow = eng._translated_heads(data, heads, triggers.JSON_STOP, first=first)
    if first:
        assert bool(fast) == bool(slow)
    else:
        assert _stretches(data, fast) == _stretches(data, slow)


def _thumbnails(head: str) -> Any:
    """The realistic corpus's shape: records, a few thumbnails, one with a head mid-run."""
    import random

    rng = random.Random(5)
    rows: list[dict[str, Any]] = [{"id": i, "note": "the quick brown fox " * 8}
                                  for i in range(3000)]
    for n, i in enumerate(range(0, 3000, 375)):
        rows[i]["thumbnail"] = {"type": "image", "mimeType": "image/png",
                                "data": _image(rng, PNG, 600, None, head if n == 3 else None)}
    return {"rows": rows}


def test_a_chance_head_in_a_thumbnail_is_not_read_through_a_translated_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bounded work: one head mid-run in one thumbnail costs no block scan of the heads
    (before: every 64 KB block of the serialization, translated and scanned)."""
    doc = _thumbnails("Q0ZQ")
    data = orjson.dumps(doc)
    assert len(data) > 4 * triggers._HEAD_BLOCK
    calls: list[str] = []
    eng = triggers.engine()
    real = type(eng)._stretches

    def counted(self: Any, db: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return real(self, db, name, *args, **kwargs)

    monkeypatch.setattr(type(eng), "_stretches", counted)
    found = triggers.json_triggers(data)
    assert "heads" not in calls
    assert found.secrets == []


def test_a_run_that_repeats_a_head_still_reads_the_translated_copy() -> None:
    """Past _HEADS_FEW places the fast path gives up (None): a run of ``AAAA``s would be
    a Python step a char."""
    eng = triggers.engine()
    assert isinstance(eng, triggers._Hyperscan)
    data = b'"' + b"QUFB" * 5000 + b'"'
    assert eng._few_heads(data, {"QUFB"}, triggers.JSON_STOP, first=False) is None


def test_a_string_that_opens_with_a_head_is_still_found() -> None:
    """A string that merely opens like a keyword's base64 and decodes to text is read."""
    secret = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
    value = base64.b64encode(f"password={secret}".encode()).decode()
    doc = _thumbnails("Q0ZQ")
    doc["rows"][7]["note"] = value
    assert value[:4] in B64_HEADS
    _, withheld = _redacted(doc)
    assert [w["path"] for w in withheld] == ["$.rows[7].note"]


BEFORE = os.environ.get("ELISION_BEFORE_SRC")
_SCRIPT = """
import json, sys, orjson
from elision.redact import redact_value
out = []
for doc in json.load(sys.stdin):
    body = orjson.dumps(doc)
    got = redact_value(orjson.loads(body), body=body)
    out.append([got.value, list(got.withheld)])
json.dump(out, sys.stdout)
"""


@pytest.mark.skipif(not BEFORE, reason="ELISION_BEFORE_SRC names no checkout before")
def test_same_as_the_code_before() -> None:
    docs = [_thumbnails(head) for head in HEADS[::97]]
    for n, secret in enumerate(SECRETS):
        docs[n]["rows"][375 * n]["thumbnail"]["data"] = _image(
            __import__("random").Random(n), PNG, 600, secret, None)
        docs[n]["rows"][375 * n + 1]["note"] = base64.b64encode(secret.encode()).decode()
    docs[-1]["rows"][9]["thumbnail"] = {"type": "image", "data": _image(
        __import__("random").Random(9), PNG, 900, None, None, f" {SECRETS[-1]} ")}
    env = {**os.environ, "PYTHONPATH": str(Path(BEFORE or ""))}
    before = json.loads(subprocess.run([sys.executable, "-c", _SCRIPT], input=json.dumps(docs),
                                       capture_output=True, text=True, env=env,
                                       check=True, timeout=300).stdout)
    for doc, (value, withheld) in zip(docs, before, strict=True):
        now = redact_value(orjson.loads(orjson.dumps(doc)), body=orjson.dumps(doc))
        assert [now.value, list(now.withheld)] == json.loads(json.dumps([value, withheld]))


def test_drawing_documents_builds_no_strategy() -> None:
    """Red before: each draw built its parts again (1,147 strategies for 20 documents)."""
    assert strategies_built(documents(), examples=5) < 5
