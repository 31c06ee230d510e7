"""Helpers for MCP server authors: make the four rules the easy path.

* :func:`coverage` builds the coverage object a response starts with (shown, total, has_more,
  next cursor, range, warnings), and :func:`response` puts it first, so that the ordering a head
  slice depends on is a contract rather than luck.
* :func:`~elision.server.decorator.shaped` shapes each response of an ``MCPServer`` tool on the
  server to a declared cap, with the same envelope as the proxy, and makes ``limit`` bound every
  bulk array.
* :class:`~elision.server.fastmcp.ElisionMiddleware` does the same for a FastMCP server
  (optional extra ``elision[fastmcp]``).

Example::

    @server.tool()
    @shaped(cap=8192)
    def search_trades(since: str, until: str, limit: int = 50) -> dict[str, Any]:
        rows, total = db.trades(since, until, limit)
        return response(coverage(shown=len(rows), total=total, range=(since, until)), trades=rows)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from elision.errors import InputError
from elision.pipeline import DEFAULT_REDACTOR
from elision.shape import DEFAULT_CAVEAT_KEYS
from elision.shape.json import caveat_matcher

__all__ = ["coverage", "response", "shaped"]

_is_coverage_key = caveat_matcher(DEFAULT_CAVEAT_KEYS)


def coverage(
    *,
    shown: int,
    total: int | None,
    range: tuple[Any, Any] | Mapping[str, Any] | None = None,  # the domain's word
    warnings: Sequence[str] = (),
    next_cursor: str | None = None,
    unit: str = "items",
    redactor: Any = DEFAULT_REDACTOR,
    **extra: Any,
) -> dict[str, Any]:
    """The coverage object a response should start with.

    Its strings (warnings, the cursor) have credentials withheld as stubs, as the proxy
    would; ``redactor=None`` leaves them as given.

    ``total`` is ``None`` when it is not known (an unreadable source must never claim 0).
    A cut (``shown < total``, or a ``next_cursor``) always gets a warning with numbers, such as
    ``"37 of 2,000 items shown"``, ahead of any ``warnings`` given. ``extra`` members must have
    coverage-like names (``scanned``, ``matched``, ``period``, ...: the same list the shaper
    and the lint use), so nothing in the coverage object reads as bulk.

    >>> coverage(shown=2, total=5, next_cursor="c2")
    {'shown': 2, 'total': 5, 'has_more': True, 'next_cursor': 'c2', 'warnings': ['2 of 5 items shown; pass cursor "c2" for more']}
    """  # noqa: E501 - a doctest line
    _count("shown", shown)
    if total is not None:
        _count("total", total)
        if shown > total:
            raise InputError(
                f"coverage shown ({shown!r}) is more than total ({total!r}); "
                "shown counts the items in this response, total all that matched"
            )
    if isinstance(warnings, str):
        raise InputError(f"coverage warnings must be a list of strings, got a string {warnings!r}")
    for key in extra:
        if not _is_coverage_key(key):
            raise InputError(
                f"coverage key {key!r} does not read as coverage, so a consumer (and the lint) "
                "would treat it as bulk; name it like one of scanned, matched, period, "
                "skipped... or put it after the coverage in the response"
            )
    has_more = next_cursor is not None or (total is not None and shown < total)
    out: dict[str, Any] = {"shown": shown, "total": total, "has_more": has_more}
    if next_cursor is not None:
        out["next_cursor"] = next_cursor
    if range is not None:
        out["range"] = _range(range)
    notes: list[str] = []
    if has_more:
        of = f"{total:,}" if total is not None else "an unknown number of"
        note = f"{shown:,} of {of} {unit} shown"
        if next_cursor is not None:
            note += f'; pass cursor "{next_cursor}" for more'
        notes.append(note)
    elif total is None:
        notes.append(f"{shown:,} {unit} shown; the total could not be determined")
    out["warnings"] = [*notes, *(str(w) for w in warnings)]
    out.update(extra)
    return _redacted(out, redactor)


def response(
    cover: Mapping[str, Any], /, *, redactor: Any = DEFAULT_REDACTOR, **data: Any
) -> dict[str, Any]:
    """A response object whose coverage comes first and whose data follows.

    Credentials anywhere in it become stubs, as the proxy would show them; ``redactor=None``
    leaves the values as given (so no data member can be named ``redactor``). Under
    ``@shaped`` the envelope lists only what the decorator itself withheld.

    >>> response(coverage(shown=1, total=1), rows=[{"id": 1}])
    {'shown': 1, 'total': 1, 'has_more': False, 'warnings': [], 'rows': [{'id': 1}]}
    """
    clash = sorted(set(cover) & set(data))
    if clash:
        raise InputError(
            f"response data reuses coverage keys {clash!r}; rename the data members"
        )
    return _redacted({**cover, **data}, redactor)


def _redacted(value: dict[str, Any], redactor: Any) -> dict[str, Any]:
    if redactor is None:
        return value
    from elision.server._shaping import redact_parsed
    from elision.shape.jsonparse import dumps_value

    done, _ = redact_parsed(value, dumps_value(value), redactor)
    return cast(dict[str, Any], done)


def _count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"coverage {name} must be a count (an int >= 0), got {value!r}")


def _range(value: tuple[Any, Any] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple | list) and len(value) == 2:
        return {"from": value[0], "to": value[1]}
    raise InputError(
        f"coverage range must be a (from, to) pair or a mapping, got {value!r}"
    )


def __getattr__(name: str) -> Any:
    # The decorator imports the MCP SDK: load it only when asked for.
    if name == "shaped":
        from elision.server.decorator import shaped

        return shaped
    raise AttributeError(f"module 'elision.server' has no attribute {name!r}")
