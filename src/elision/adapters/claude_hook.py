"""A Claude Code ``PostToolUse`` hook: the pipeline on the results of tools the proxy does not
see (Bash, Read, WebFetch, a server not behind ``elision proxy``).

Claude Code runs the hook with the event as JSON on stdin (``tool_name``, ``tool_input``,
``tool_response``) and reads JSON from its stdout. When the result had to be cut or something
in it withheld, the hook answers with the shaped text in ``hookSpecificOutput.updatedToolOutput``
(Claude Code 2.1.121 and later replace any tool's output with it) and, for an MCP tool, in
``updatedMCPToolOutput`` too (what earlier versions read). The answer has the tool's own shape:
Claude Code drops one that does not match it (a string for Bash, whose output is an object with
``stdout``: "schema_invalid", found by the in-harness suite), so the shaped text takes the place
of the text field it came from. A long Bash output reaches the hook cut to its first 30,000
chars, the whole of it in the file ``persistedOutputPath`` names: the hook reads that file, so
the tail (a test run's verdict) is shaped in, not lost. A result that fits and withholds nothing
gets no answer, so Claude Code keeps it as it was. A result the proxy already shaped is shaped
again to the same bytes (shaping is idempotent), so the hook is safe on every tool.

In ``.claude/settings.json``::

    {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "/path/to/elision hook claude-code --budget 24000"}]}]}}
"""

from __future__ import annotations

from typing import Any

from elision.adapters.core import body_of
from elision.errors import PolicyDenied
from elision.pipeline import Pipeline


def response_text(response: Any) -> Any:
    """The part of ``tool_response`` that is the result, as the model reads it.

    A tool's text fields are text, shaped as text (head and tail, whole lines, the header
    first): a shell's ``stdout`` (then its ``stderr``, when there is any), a file ``Read``
    gave, a ``WebFetch`` result, ``Grep``'s matched lines, an MCP tool's text blocks joined.
    Shaped as a member of a JSON object instead, a text is cut from its head, and the summary
    a build or test run writes last is the first thing lost. Anything else is judged whole.
    """
    if isinstance(response, list) and response and all(
            isinstance(b, dict) and b.get("type") == "text" for b in response):
        return "\n".join(str(b.get("text", "")) for b in response)
    if not isinstance(response, dict):
        return response
    stdout, stderr = response.get("stdout"), response.get("stderr", "")
    if isinstance(stdout, str) and isinstance(stderr, str):
        stdout = _persisted(response) or stdout
        if not stderr:
            return stdout
        return stdout + ("" if not stdout or stdout.endswith("\n") else "\n") + stderr
    file = response.get("file")
    if isinstance(file, dict) and isinstance(file.get("content"), str):
        return file["content"]
    for member in ("result", "content"):  # WebFetch; Grep in content mode
        if isinstance(response.get(member), str):
            return response[member]
    return response


def _persisted(response: dict[str, Any]) -> str | None:
    """The whole of a long Bash output, from the file Claude Code wrote it to."""
    path = response.get("persistedOutputPath")
    if not isinstance(path, str) or not path:
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None  # then the 30,000 chars Claude Code gave are what there is


def updated_output(response: Any, text: str) -> Any:
    """``text`` in the shape of the tool's own output: in place of the text field
    :func:`response_text` read, the rest of the object kept; a string for anything else."""
    if not isinstance(response, dict) or response_text(response) is response:
        return text
    updated = {k: v for k, v in response.items() if not k.startswith("persisted")}
    if isinstance(updated.get("stdout"), str):
        updated.update(stdout=text, stderr="")  # stderr was read in after stdout
    elif isinstance(updated.get("file"), dict) and isinstance(updated["file"].get("content"),
                                                              str):
        updated["file"] = {**updated["file"], "content": text}
    else:
        member = "result" if isinstance(updated.get("result"), str) else "content"
        updated[member] = text
    return updated


def respond(event: dict[str, Any], pipeline: Pipeline) -> dict[str, Any] | None:
    """The hook's answer to one PostToolUse event, or ``None`` to leave the result alone."""
    if event.get("hook_event_name", "PostToolUse") != "PostToolUse":
        return None
    tool = str(event.get("tool_name") or "")
    response = event.get("tool_response")
    body = body_of(response_text(response))
    # Claude Code cut a long output before the hook saw it: answer with the whole, shaped.
    cut_before = isinstance(response, dict) and _persisted(response) is not None
    try:
        shaped = pipeline.run(body, tool=tool or None)
    except PolicyDenied as exc:
        return {"decision": "block", "reason": f"elision refused {tool}'s result: {exc}",
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput":
                                       updated_output(response, f"[elision] refused: {exc}")}}
    if not cut_before and shaped.complete and shaped.text == (
            body if isinstance(body, str) else body.decode("utf-8", "replace")):
        return None
    output: dict[str, Any] = {
        "hookEventName": "PostToolUse",
        "updatedToolOutput": updated_output(response, shaped.text),
    }
    if tool.startswith("mcp__"):
        output["updatedMCPToolOutput"] = [{"type": "text", "text": shaped.text}]
    return {"hookSpecificOutput": output}
