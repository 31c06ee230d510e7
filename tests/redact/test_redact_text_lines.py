"""A redacted text keeps the original's line numbers, so its pages agree with the envelope.

A PEM private key spans many lines and becomes a one-line stub; the lines after it must keep
their numbers, or ``elision_fetch(lines=…)`` on the redacted view would show other lines than
the ones the first result's header and ``next`` name.
"""

from __future__ import annotations

import re

import pytest

from elision.budget import Budget
from elision.pipeline import Pipeline
from elision.redact import RedactStage, redact_text
from elision.shape import Shaped
from elision.store.fetch import parse_next
from elision.store.memory import MemoryStore

KEY_BODY = "MIIEowIBAAKCAQEAx" + "Qz7" * 16


def _text(newline: str, key_lines: int = 20) -> tuple[str, list[str]]:
    lines = [f"{i:04d} INFO request {i} served in {i % 17} ms" for i in range(1, 241)]
    key = ["-----BEGIN RSA PRIVATE KEY-----", *[KEY_BODY] * key_lines,
           "-----END RSA PRIVATE KEY-----"]
    lines[60:60] = key  # original lines 61..(61 + key_lines + 1)
    lines[180] += " Authorization: Bearer 0123456789abcdefTESTtoken"  # a one-line secret too
    return newline.join(lines) + newline, lines


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_redact_text_keeps_line_numbers(newline: str) -> None:
    text, lines = _text(newline)
    done = redact_text(text)
    shown = str(done.value).splitlines()
    assert len(shown) == len(lines)
    assert shown[60] == "[credential withheld: private-key]"
    assert shown[61:82] == [""] * 21  # the key's other 21 lines, kept empty
    for n, (was, now) in enumerate(zip(lines, shown, strict=True)):
        if not 60 <= n <= 81 and n != 180:
            assert now == was, f"line {n + 1}"
    assert "Qz7Qz7" not in str(done.value) and "TESTtoken" not in str(done.value)
    assert [w["line"] for w in done.withheld] == [61, 181]


_RANGE_HEADER = re.compile(r"\[elision\] partial: lines (.*) of ([\d,]+) shown;")


def _numbered(page: Shaped, first: int) -> dict[int, str]:
    """Each line a page shows, by the line number its header (or its request) gives it."""
    body = page.text.splitlines()
    if page.envelope is None:  # the whole selection fits: its lines from the requested one on
        return {first + i: line for i, line in enumerate(body)}
    header = _RANGE_HEADER.match(body[0])
    assert header is not None, body[0]
    (elided,) = [e for e in page.envelope["elided"] if e["kind"] == "lines"]
    numbers = [n for a, b in elided["ranges"] for n in range(a, b + 1)]
    shown = [line for line in body[1:] if not line.startswith("[… ")]
    assert len(shown) == len(numbers)
    return dict(zip(numbers, shown, strict=True))


def test_a_page_walk_over_a_text_with_a_key_numbers_lines_as_the_original() -> None:
    text, lines = _text("\n")
    store = MemoryStore()
    pipeline = Pipeline(budget=Budget(900), store=store, redactor=RedactStage(store=store))
    first = pipeline.run(text, format="text")
    assert first.envelope is not None and first.envelope["withheld"][0]["line"] == 61
    seen = _numbered(first, 1)
    todo = [first.envelope["next"]]
    pages = 0
    while todo:
        args = parse_next(todo.pop())
        lo = int(args["lines"].split("-")[0])
        hi = int(args["lines"].split("-")[1] or len(lines))
        assert 1 <= lo <= hi <= len(lines), args["lines"]  # `next` names original lines
        page = store.fetch(args["ref"], lines=args["lines"], budget=Budget(900))
        pages += 1
        numbered = _numbered(page, lo)
        assert min(numbered) == lo  # a page starts at the line its `next` asked for
        seen.update(numbered)
        if page.envelope is not None:
            stated = _RANGE_HEADER.match(page.text.splitlines()[0])
            assert stated is not None and int(stated.group(2).replace(",", "")) == len(lines)
            for entry in page.envelope.get("withheld", []):
                assert "private-key" not in entry["reason"] or entry["line"] == 61
            if "next" in page.envelope:
                todo.append(page.envelope["next"])
    assert pages >= 2
    assert sorted(seen) == list(range(1, len(lines) + 1))  # every line, once each number
    for n, line in seen.items():
        if n == 61:
            assert line == "[credential withheld: private-key]"
        elif 62 <= n <= 82:
            assert line == ""
        elif n != 181:
            assert line == lines[n - 1], f"line {n}"
    assert all("Qz7Qz7" not in line for line in seen.values())
