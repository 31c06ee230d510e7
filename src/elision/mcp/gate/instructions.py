"""A server's ``instructions`` reach the model too: passed on, and governed like a result.

An MCP server may answer ``initialize`` with instructions for the model ("call search before
fetch", "dates are UTC"); harnesses put them in the system prompt. The proxy answers the
agent's ``initialize`` itself, so it must carry each upstream's instructions or the model
loses them, and, since they are a server's text for the model, it must not carry them
ungoverned: each upstream's text is run through the pipeline as a result of that server would
be (the Guardian decides on it whole, credentials become stubs, the audit log records it), and
held to :data:`INSTRUCTIONS_BUDGET_BYTES`, cut honestly (a header that says what was shown of
what, and how to fetch the rest) rather than cut blind. The egress gate then bounds and
redacts the whole ``initialize`` answer as it does every message.

Every client is told the same instructions, so the rest of a cut one is every client's to read:
its body is kept in the proxy-wide scope, and the proxy's ``elision_fetch`` reads the refs named
here in that scope whichever client asks (any other ref stays in its client's scope).
"""

from __future__ import annotations

from collections.abc import Iterable

from elision.budget import Budget
from elision.errors import ElisionError, PolicyDenied
from elision.pipeline import Pipeline

__all__ = ["INSTRUCTIONS_BUDGET_BYTES", "governed_instructions"]

#: The most of one upstream's instructions the model is shown, in bytes of UTF-8. A system
#: prompt is read on every turn: a server's instructions get a notification's room there.
INSTRUCTIONS_BUDGET_BYTES = 8 * 1024


def governed_instructions(
    own: str,
    servers: Iterable[tuple[str, str | None]],
    pipeline: Pipeline,
    *,
    scope: str | None,
) -> tuple[str, frozenset[str]]:
    """The proxy's own instructions, then each server's (``(name, text)``, in that order),
    each governed by ``pipeline`` and held to :data:`INSTRUCTIONS_BUDGET_BYTES` (a server
    with no instructions, ``None`` or blank, adds nothing); and the refs under which ``scope``
    keeps the cut ones whole."""
    parts = [own]
    refs: set[str] = set()
    for name, text in servers:
        if text is None or not text.strip():
            continue
        shown, ref = _governed(name, text, pipeline, scope)
        parts.append(f"Instructions of the server {name!r}:\n{shown}")
        if ref is not None:
            refs.add(ref)
    return "\n\n".join(parts), frozenset(refs)


def _governed(
    name: str, text: str, pipeline: Pipeline, scope: str | None
) -> tuple[str, str | None]:
    try:
        shaped = pipeline.run(
            text, budget=Budget(INSTRUCTIONS_BUDGET_BYTES, "bytes"), format="text",
            scope=scope, tool="instructions (initialize)", server=name,
        )
    except PolicyDenied as denied:
        # The reason is the guard's, written for the agent; the text it judged is not shown.
        return f"[elision] withheld by policy: {denied}", None
    except ElisionError as exc:
        # One server's unreadable instructions cost that server's section alone.
        return (f"[elision] withheld: these instructions could not be governed "
                f"({type(exc).__name__}).", None)
    return shaped.text, shaped.ref
