"""What every adapter shares: a tool's return value in, the text the model may see out.

A framework's tool returns a string, bytes, a JSON value or a model object; the pipeline takes
a body. :func:`shape_output` turns one into the other and runs the pipeline on it;
:func:`fetch_text` is ``elision_fetch`` over the pipeline's store, as the proxy serves it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from elision.pipeline import Pipeline

FETCH_NAME = "elision_fetch"
FETCH_DESCRIPTION = (
    "Fetch more of a tool result that elision shortened to fit the budget. Pass the ref and "
    "the path (JSON) or lines (text) given in the result's `next` hint; each page is itself "
    "shaped and says what it shows of what."
)
#: The JSON Schema of elision_fetch's arguments, as the proxy's tool declares them.
FETCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "description": "The ref of the shortened result (el_...)."},
        "path": {"type": "string", "description": "A JSONPath selector, e.g. $.rows[37:]."},
        "lines": {"type": "string", "description": "A line range of a text, e.g. 62-5940."},
    },
    "required": ["ref"],
    "additionalProperties": False,
}


def default_pipeline() -> Pipeline:
    """The pipeline an adapter uses when given none: redaction on and the default store, so a
    cut result can be fetched."""
    from elision.store import open_store

    return Pipeline(store=open_store())


def body_of(output: Any) -> str | bytes:
    """A tool's return value as the body the pipeline reads."""
    if isinstance(output, str | bytes):
        return output
    dump = getattr(output, "model_dump", None)
    if callable(dump):  # a pydantic model
        output = dump(mode="json")
    elif dataclasses.is_dataclass(output) and not isinstance(output, type):
        output = dataclasses.asdict(output)
    try:
        return json.dumps(output, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return str(output)


def shape_output(pipeline: Pipeline, output: Any, *, tool: str | None = None) -> str:
    """The text the model gets for one tool result (a denied result: the guard's reason)."""
    from elision.errors import PolicyDenied

    try:
        return pipeline.run(body_of(output), tool=tool).text
    except PolicyDenied as exc:
        return f"[elision] {tool or 'the tool'}'s result was refused: {exc}"


def fetch_text(pipeline: Pipeline, arguments: dict[str, Any]) -> str:
    """One ``elision_fetch`` call over the pipeline's store: a page, or an error to read."""
    import mcp_types as types

    from elision.mcp.gate.tools import run_fetch

    if pipeline.store is None:
        return ("elision_fetch: this pipeline has no store, so nothing was kept; give the "
                "Pipeline a store (elision.store.open_store()) to fetch the rest of a result")
    result = run_fetch(pipeline.store, arguments, budget=pipeline.budget, scope=None)
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
