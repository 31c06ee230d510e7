"""What ``elision hook claude-code`` and ``elision shape`` do, with no click.

Their click commands (:mod:`elision.cli.hook`, :mod:`elision.cli.shape`) parse the options and
call these; so does :func:`elision.cli.entry.run` when the arguments are plain, without loading
click at all: a hook runs on every tool call, and click was a tenth of its start (issue 24).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from elision._startup import collector_paused_for_set_up
from elision.budget import MINIMUM_LINES, Budget
from elision.errors import InputError
from elision.pipeline import DEFAULT_REDACTOR, Pipeline
from elision.shape import Shaped, shape

#: ``elision hook claude-code --budget``: the default, below Claude Code's own cut, and the
#: least it takes.
HOOK_BUDGET = 24_000
HOOK_BUDGET_MIN = 512
#: ``elision hook claude-code --lines``: the smallest cap (a cut text's header and marker).
HOOK_LINES_MIN = MINIMUM_LINES
#: ``elision shape --budget`` (and ``elision fetch``'s): the default.
SHAPE_BUDGET = 8192
#: ``--format auto`` on a file trusts a known extension before sniffing the bytes.
EXTENSION_FORMATS = {
    ".json": "json", ".csv": "csv", ".ndjson": "ndjson", ".jsonl": "ndjson",
    ".log": "text", ".txt": "text",
}


def claude_code_answer(
    stdin: bytes, *, budget: int, lines: int | None = None, store: str | None,
    audit: str | None, no_audit: bool,
) -> str | None:
    """The hook's answer to the PostToolUse event in ``stdin``, as the JSON text to print, or
    ``None`` when the result fits as it is."""
    try:
        event = json.loads(stdin or b"null")
    except ValueError as exc:
        raise InputError(f"the hook's stdin is not JSON ({exc}); Claude Code sends one "
                         "PostToolUse event as a JSON object") from None
    if not isinstance(event, dict):
        raise InputError("the hook's stdin is not a JSON object; Claude Code sends one "
                         "PostToolUse event as a JSON object")
    if event.get("hook_event_name", "PostToolUse") == "PostToolUse" and (
            "tool_response" not in event):
        # Shaped, it was audited as a tool's result of "null" (`echo '{}' | elision hook …`).
        raise InputError("the hook's event has no tool_response; Claude Code sends the "
                         "tool's result in it with each PostToolUse event (nothing was shaped "
                         "or logged)")
    auditor = None
    # The rest of the hook's imports (the store, the audit log, the redactor the Pipeline
    # makes) and its opening, with the collector paused: most of a hook's start.
    with collector_paused_for_set_up():
        from elision.adapters.claude_hook import respond
        from elision.store import open_store

        kept = open_store(store)
        if not no_audit:
            from elision.audit.opener import open_audit_log
            from elision.audit.stage import LogAuditor

            # With the store, as the proxy's: `elision view` shows what the model saw.
            auditor = LogAuditor(open_audit_log(audit), session_id=event.get("session_id"),
                                 store=kept)
        pipeline = Pipeline(budget=Budget(budget, lines=lines), store=kept, auditor=auditor)
    try:
        answer = respond(event, pipeline)
    finally:
        if auditor is not None:
            auditor.close()  # the bodies it keeps are written before the hook exits
    return None if answer is None else json.dumps(answer, ensure_ascii=False)


def shape_and_print(
    file: str, *, budget: int, unit: str, fmt: str, no_store: bool, store_spec: str | None,
    no_redact: bool,
) -> Shaped:
    """Shape FILE (or stdin, ``-``) to the budget and print it (:func:`print_within`)."""
    body = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    if not body or body.isspace():  # not body.strip(): that copied the whole body
        # Whatever the format: a blank line on stdout and exit 0 would pass for a result.
        where = "stdin" if file == "-" else repr(file)
        raise InputError(
            f"the body from {where} is empty ({len(body):,} bytes, none but whitespace): "
            "there is nothing to shape; check that the tool or command wrote its result"
        )
    if fmt == "auto" and file != "-":
        fmt = EXTENSION_FORMATS.get(Path(file).suffix.lower(), "auto")
    limit = Budget(budget, unit)  # type: ignore[arg-type]  # the caller checked it
    redactor = None if no_redact else DEFAULT_REDACTOR
    with collector_paused_for_set_up():  # as the hook's (claude_code_answer)
        if not no_redact:
            import elision.redact  # noqa: F401  # what shape() makes its redactor of
        if not no_store:
            from elision.store import open_store

            store = open_store(store_spec)
    if no_store:
        shaped = shape(body, limit, format=fmt, redactor=redactor)  # type: ignore[arg-type]
    else:
        try:
            shaped = shape(body, limit, format=fmt, store=store,  # type: ignore[arg-type]
                           redactor=redactor)
        finally:
            store.close()
    print_within(shaped.text, limit)
    return shaped


def print_within(text: str, budget: Budget) -> None:
    """Write ``text`` to stdout as UTF-8: exactly to a pipe or a file, what the budget bounds;
    to a terminal, with the body's control characters made visible.

    The line end a terminal wants is added only when it still fits, so a result exactly at
    the budget is printed without one. On a terminal a body's ESC, ``\\r`` or bidi override
    would be obeyed (a line written over, the clipboard set), so there it is shown as its
    escape (:func:`elision.terminal.visible_lines`); a pipe or a file gets the bytes."""
    from elision.terminal import is_terminal, visible_lines  # not the hook's: shape's alone

    if not text.endswith("\n") and budget.fits(text + "\n"):
        text += "\n"
    if is_terminal(sys.stdout):
        text = visible_lines(text)
    sys.stdout.flush()  # anything written as text before goes first
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
