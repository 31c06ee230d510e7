"""The hook reads a built-in tool's text fields as text (``elision.adapters.claude_hook``), in
process: whatever the lines and the budget, the last line survives a cut and the header leads.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.adapters.claude_hook import respond, response_text, updated_output
from elision.budget import Budget
from elision.pipeline import Pipeline

LAST = "SUMMARY: 3 failures"
line = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
               max_size=120)


def event(tool: str, response: Any) -> dict[str, Any]:
    return {"hook_event_name": "PostToolUse", "tool_name": tool, "tool_response": response}


@pytest.mark.parametrize(("tool", "response", "text"), [
    # Bash: stdout, then stderr when there is any (what Claude Code shows the model).
    ("Bash", {"stdout": "a\nb\n", "stderr": "", "interrupted": False}, "a\nb\n"),
    ("Bash", {"stdout": "a\n", "stderr": "warn\n", "interrupted": False}, "a\nwarn\n"),
    ("Bash", {"stdout": "a", "stderr": "warn", "interrupted": False}, "a\nwarn"),
    # Read: the file's content.
    ("Read", {"type": "text", "file": {"filePath": "/x", "content": "1\n2\n", "numLines": 2}},
     "1\n2\n"),
    # WebFetch: the page as the fetcher summarised it.
    ("WebFetch", {"bytes": 10, "code": 200, "result": "page text", "url": "u"}, "page text"),
    # Grep in content mode.
    ("Grep", {"mode": "content", "content": "f:1:x\nf:2:y", "numLines": 2}, "f:1:x\nf:2:y"),
    # An MCP tool's text blocks, joined.
    ("mcp__s__t", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "a\nb"),
])
def test_a_tools_text_fields_are_read_as_text(tool: str, response: Any, text: str) -> None:
    assert response_text(response) == text


@pytest.mark.parametrize("response", [
    {"stdout": 3, "stderr": ""},             # not text: the response is judged whole, as JSON
    {"file": {"content": ["a"]}},
    {"rows": [{"id": 1}], "total": 1},
    "plain text",
])
def test_anything_else_is_judged_whole(response: Any) -> None:
    assert response_text(response) is response


@given(lines=st.lists(line, min_size=50, max_size=400),
       budget=st.sampled_from([512, 1024, 4096]), tool=st.sampled_from(["Bash", "Read"]))
def test_the_last_line_of_a_cut_text_field_survives(lines: list[str], budget: int,
                                                    tool: str) -> None:
    text = "\n".join([*lines, LAST]) + "\n"
    response: Any = ({"stdout": text, "stderr": "", "interrupted": False} if tool == "Bash"
                     else {"type": "text", "file": {"filePath": "/log", "content": text}})
    pipeline = Pipeline(budget=Budget(budget), redactor=None)
    answer = respond(event(tool, response), pipeline)
    if answer is None:
        assert len(text.encode()) <= budget  # left alone only when it fits
        return
    updated = answer["hookSpecificOutput"]["updatedToolOutput"]
    # In the tool's own shape: Bash's stdout, Read's file content.
    shown = updated["stdout"] if tool == "Bash" else updated["file"]["content"]
    assert len(shown.encode()) <= budget
    if len(text.encode()) > budget:
        assert shown.startswith("[elision] partial:")
        assert shown.rstrip("\n").endswith(LAST)


@pytest.mark.parametrize(("response", "member"), [
    ({"stdout": "x", "stderr": "e", "interrupted": False, "persistedOutputPath": "/p"},
     ("stdout",)),
    ({"type": "text", "file": {"filePath": "/x", "content": "x"}}, ("file", "content")),
    ({"bytes": 1, "code": 200, "result": "x", "url": "u"}, ("result",)),
    ({"mode": "content", "content": "x", "numLines": 1}, ("content",)),
])
def test_the_answer_has_the_tools_own_shape(response: dict[str, Any],
                                            member: tuple[str, ...]) -> None:
    updated: Any = updated_output(response, "SHAPED")
    assert not any(key.startswith("persisted") for key in updated)
    for key in member:
        updated = updated[key]
    assert updated == "SHAPED"
    assert updated_output("plain", "SHAPED") == "SHAPED"
