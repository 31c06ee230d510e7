"""What the fake model received, read back from its record, and the checks on it.

A harness hands a tool result to the model inside its own framing (a JSON string, a list of
text blocks, Gemini's ``functionResponse.response`` object, Codex's output string). The checks
find the envelope (JSON) or the header line (text) in it and read what follows with the
envelope's own claims in hand, so a second cut by the harness shows as a broken claim.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from harness.fakemodel import PREP_TOOLS, READERS, Event, found_by_search

#: a shaped text's first line: ``[elision] partial: lines 1-61 and 5941-6001 of 6,001 shown; …``
HEADER = re.compile(r"\[elision\] partial: lines (\d+)-(\d+) and (\d+)-(\d+) of ([\d,]+) shown; "
                    r"([\d,]+) of ([\d,]+) bytes")


@dataclass
class Turns:
    """The model's view of one run: the tools it was offered (a deferred tool once a search named
    it) and the results it was handed."""

    tools: list[str]
    results: list[Event]
    everything: str  # every request's body, as sent, for the credential check


def turns(run: dict[str, Any]) -> Turns:
    """The tools and results of the longest conversation the harness sent (its last turn)."""
    best: tuple[list[str], list[Event]] = ([], [])
    for record in run["records"]:
        if record["dialect"] not in READERS or not isinstance(record["body"], dict):
            continue
        tools, events = READERS[record["dialect"]](record["body"])
        tools = tools + found_by_search(events)  # deferred, yet offered (Qwen Code 0.24)
        results = [e for e in events if e.kind == "result" and e.name not in PREP_TOOLS]
        if len(results) >= len(best[1]) and tools:
            best = (tools, results)
    return Turns(best[0], best[1], json.dumps(run["records"], ensure_ascii=False))


def envelope_document(text: str) -> tuple[str, dict[str, Any], str]:
    """The framing before the shaped JSON, the JSON (envelope first), and what follows it."""
    start = text.find('{"__elision__"')
    assert start >= 0, f"no envelope in what the model received: {text[:300]!r}"
    doc, end = json.JSONDecoder().raw_decode(text, start)
    return text[:start], doc, text[end:]


def shaped_json(text: str) -> tuple[str, str]:
    """The framing before the shaped JSON and the JSON text itself, exactly as received."""
    start = text.find('{"__elision__"')
    assert start >= 0, f"no envelope in what the model received: {text[:300]!r}"
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[:start], text[start:end]


def shaped_text(text: str) -> tuple[str, list[str]]:
    """The framing before the shaped text's header line, and its lines from the header on."""
    start = text.find("[elision] ")
    assert start >= 0, f"no [elision] header in what the model received: {text[:300]!r}"
    return text[:start], text[start:].split("\n")


def handed_as_json(text: str) -> str:
    """The text of a tool result a harness hands the model as JSON: Cline the whole result
    (``{"_meta": …, "content": [{"text": …}], "structuredContent": …}``), Continue its content
    blocks (``JSON.stringify(result.content)``). That JSON must parse: a harness that cut it
    (Cline keeps 8,000 chars, the middle cut) hands over a torn document, whatever the text."""
    try:
        handed = json.loads(text)
    except ValueError as exc:
        raise AssertionError(f"the harness cut the result it hands over as JSON ({exc}; "
                             f"{len(text):,} chars): {text[:200]!r} … {text[-200:]!r}") from None
    blocks = handed.get("content") if isinstance(handed, dict) else handed
    assert isinstance(blocks, list), f"no content blocks in what was handed over: {text[:300]!r}"
    return "\n".join(str(b.get("text", "")) for b in blocks
                     if isinstance(b, dict) and b.get("type", "text") == "text")

