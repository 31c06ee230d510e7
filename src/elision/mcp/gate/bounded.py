"""Resources and prompts within a budget, like tool results.

What ``resources/read`` and ``prompts/get`` return reaches the model as a tool result does, so
it is bounded the same way: the texts (a resource's text contents, a prompt's text messages and
the text resources embedded in them) are redacted and shaped by the same
:class:`~elision.mcp.gate.results.ResultShaper`, with the same envelope
(``_meta["elision/shaping"]`` and, in JSON texts, ``__elision__``; a header line in plain texts)
and the same ``elision_fetch`` for the rest. They have their own budget (``--resource-budget``,
by default the tool results'). The guard and the audit log are for tool results, so they are
not run here. Binary contents (``blob``), images and audio go as they are.

A few texts share the budget; many are one array, kept whole from the first, as tool results'
blocks are (:mod:`elision.mcp.gate.blocks`): the texts not shown are dropped and a notice goes
first, a text content of the uri read (for a resource) or a user message (for a prompt).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

import mcp_types as types
from pydantic import BaseModel

from elision.budget import Budget
from elision.envelope import META_KEY
from elision.mcp.gate.blocks import text_of, with_text
from elision.mcp.gate.results import ResultShaper
from elision.pipeline import Pipeline

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def shaper_for_reads(pipeline: Pipeline, media_budget: int) -> ResultShaper:
    """A shaper that redacts, shapes and keeps, but neither guards nor audits."""
    return ResultShaper(replace(pipeline, guard=None, auditor=None), media_budget)


def bounded_read(
    shaper: ResultShaper, result: types.ReadResourceResult, uri: str, *, budget: Budget,
    scope: str | None, server: str | None,
) -> types.ReadResourceResult:
    """A ``resources/read`` result whose texts are within ``budget``."""

    def notice(text: str) -> Any:
        return types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)

    contents = _bounded(
        shaper, list(result.contents), _resource_text, _with_resource_text, notice,
        budget=budget, scope=scope, server=server, what=f"resources/read {uri}",
    )
    return _updated(result, "contents", contents)


def bounded_prompt(
    shaper: ResultShaper, result: types.GetPromptResult, name: str, *, budget: Budget,
    scope: str | None, server: str | None,
) -> types.GetPromptResult:
    """A ``prompts/get`` result whose message texts are within ``budget``."""

    def notice(text: str) -> Any:
        return types.PromptMessage(role="user", content=types.TextContent(text=text))

    messages = _bounded(
        shaper, list(result.messages), _message_text, _with_message_text, notice,
        budget=budget, scope=scope, server=server, what=f"prompts/get {name}",
    )
    return _updated(result, "messages", messages)


def _bounded(
    shaper: ResultShaper,
    items: list[T],
    text_of: Callable[[T], str | None],
    with_text: Callable[[T, str], T],
    notice: Callable[[str], T],
    *,
    budget: Budget,
    scope: str | None,
    server: str | None,
    what: str,
) -> tuple[list[T], dict[str, Any] | None]:
    at = [i for i, item in enumerate(items) if text_of(item) is not None]
    if not at:
        return items, None
    call = types.CallToolResult(
        content=[types.TextContent(text=text_of(items[i]) or "") for i in at]
    )
    out = shaper.shape(call, budget=budget, scope=scope, tool=what, server=server)
    if out is call:
        return items, None
    envelope = (out.meta or {}).get(META_KEY)
    texts = [b.text for b in out.content if isinstance(b, types.TextContent)]
    if len(texts) == len(at):
        shown = list(items)
        for i, text in zip(at, texts, strict=True):
            if text != text_of(items[i]):
                shown[i] = with_text(items[i], text)
        return shown, envelope
    # One array: the notice, then the texts kept whole from the first (the rest dropped).
    first, *kept = texts
    keep = set(at[: len(kept)])
    dropped = set(at[len(kept):])
    shown = [notice(first)]
    for i, item in enumerate(items):
        if i in dropped:
            continue
        if i in keep:
            text = kept[at.index(i)]
            item = with_text(item, text) if text != text_of(item) else item
        shown.append(item)
    return shown, envelope


def _updated(result: M, field: str, done: tuple[list[Any], dict[str, Any] | None]) -> M:
    items, envelope = done
    if envelope is None and all(
        a is b for a, b in zip(items, getattr(result, field), strict=False)
    ) and len(items) == len(getattr(result, field)):
        return result
    meta = dict(getattr(result, "meta", None) or {})
    if envelope is not None:
        meta[META_KEY] = envelope
    updated: M = result.model_copy(update={field: items, "meta": meta or None})
    return updated


def _resource_text(item: Any) -> str | None:
    return item.text if isinstance(item, types.TextResourceContents) else None


def _with_resource_text(item: Any, text: str) -> Any:
    return item.model_copy(update={"text": text})


def _message_text(message: types.PromptMessage) -> str | None:
    return text_of(message.content)


def _with_message_text(message: types.PromptMessage, text: str) -> types.PromptMessage:
    return message.model_copy(update={"content": with_text(message.content, text)})
