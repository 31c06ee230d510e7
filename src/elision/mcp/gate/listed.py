"""The strings of ``tools/list``, ``resources/list`` and ``prompts/list`` reach the model too.

A tool's title and description, its schemas (descriptions, defaults, examples), its
annotations and ``_meta`` go into the model's context as surely as a result does, so they are
redacted by the same rules (:func:`elision.redact.redact_value`); so are resources' and
prompts' titles, descriptions, and a resource's uri (a presigned uri is a credential). Names
are left as they are: the proxy routes calls by them, and a stub would route nowhere.
"""

from __future__ import annotations

from typing import Any, TypeVar

M = TypeVar("M", bound=Any)

#: Members that identify an item: never redacted.
_IDENTITY = ("name",)


def redacted_item(item: M) -> M:
    """``item`` (a pydantic model) with credentials in any of its strings withheld; ``item``
    itself when there is nothing to withhold."""
    from elision.redact import redact_value

    data = item.model_dump(mode="json", by_alias=True, exclude_unset=True)
    kept = {key: data.pop(key) for key in _IDENTITY if key in data}
    done = redact_value(data)
    if not done.withheld:
        return item
    return type(item).model_validate({**done.value, **kept})  # type: ignore[no-any-return]
