"""The code before a change, asked in a child process, for differential tests.

A test compares this code's redaction with the code under ``ELISION_BEFORE_SRC`` (the ``src``
of a checkout of the commit before). A development check, skipped when the variable is unset:
a clean clone has no such checkout, and a later change may mean to differ. Each such test has
an in-process differential beside it (this code's fast path against its own slow one), which
always runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

from elision.redact import redact_text, redact_value
from elision.shape.jsonparse import parse_json

_CHILD = r"""
import sys, orjson
from elision.redact import redact_text, redact_value
from elision.shape.jsonparse import parse_json
for line in sys.stdin.buffer:
    kind, payload = orjson.loads(line)
    if kind.startswith("json"):
        body = payload.encode()
        got = redact_value(parse_json(body), body=body)
    else:
        got = redact_text(payload)
    out = [orjson.loads(orjson.dumps(got.value, default=str)), list(got.withheld)]
    if kind == "json+references":
        out.append(got.references)
    sys.stdout.buffer.write(orjson.dumps(out) + b"\n")
    sys.stdout.flush()
"""


def redacted(kind: str, payload: str) -> Any:
    """``[value, withheld]`` of this code's redaction of ``payload`` (``kind`` "json": its
    parse with the body; "json+references": the same and its references; else the text), in
    the form the child answers in."""
    if kind.startswith("json"):
        body = payload.encode()
        got = redact_value(parse_json(body), body=body)
    else:
        got = redact_text(payload)
    out = [got.value, list(got.withheld)]
    if kind == "json+references":
        out.append(got.references)
    return orjson.loads(orjson.dumps(out, default=str))


@contextmanager
def code_before() -> Iterator[Callable[[str, str], Any]]:
    """``ask(kind, payload)``: :func:`redacted` as the code before answers it; the test is
    skipped where ``ELISION_BEFORE_SRC`` names no such code."""
    with child_before(_CHILD) as ask:
        yield lambda kind, payload: ask([kind, payload])


@contextmanager
def child_before(program: str) -> Iterator[Callable[[Any], Any]]:
    """``ask(question)``: ``program``'s answer, run with the code before on its path; it reads
    one JSON line a question and writes one JSON line an answer. The test is skipped where
    ``ELISION_BEFORE_SRC`` names no such code."""
    src = os.environ.get("ELISION_BEFORE_SRC")
    if not src or not (Path(src) / "elision").is_dir():
        pytest.skip("no code before to compare with (set ELISION_BEFORE_SRC to its src)")
    child = subprocess.Popen([sys.executable, "-c", program], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": src})
    stdin, stdout = child.stdin, child.stdout
    assert stdin is not None and stdout is not None

    def ask(question: Any) -> Any:
        stdin.write(orjson.dumps(question) + b"\n")
        stdin.flush()
        return orjson.loads(stdout.readline())

    try:
        yield ask
    finally:
        stdin.close()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        stdout.close()


def assert_json_as_before(body: str) -> None:
    """The JSON ``body`` redacted now is what the code before gives, reference ids aside
    (random); skipped as :func:`code_before` is."""
    with code_before() as ask:
        before = ask("json", body)
    now = redacted("json", body)
    strip = re.compile(r"ref_[a-z0-9]+")
    assert strip.sub("ref_", orjson.dumps(now).decode()) == strip.sub(
        "ref_", orjson.dumps(before).decode())
