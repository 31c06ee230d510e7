"""Redaction: references, signed URIs and credentials never reach the model.

Two calls cover every body::

    redact_value(value)   # a parsed JSON value -> Redaction
    redact_text(text)     # plain text (logs, …) -> Redaction

A :class:`Redaction` holds the redacted ``value`` (the input is never mutated; unchanged
subtrees are shared with it), the ``withheld`` entries for the envelope (``path``, ``reason``
and, for a reference, ``stub``), and ``references``: stub id -> the host-private record (the
real uri, mimeType, size, server) that must go to the store's private table and nowhere else.

What is withheld, and the stub shown in its place:

* reference lanes (:mod:`elision.redact.references`): ``[ref_k3f9] image/png, ~120 KB — fetch
  with elision_fetch_reference``;
* signed and credential-bearing URLs (:mod:`elision.redact.urls`) and credentials
  (:mod:`elision.redact.secrets`), anywhere in any string: ``[credential withheld:
  aws-sigv4-url]`` in place of the URL or the secret (a userinfo password alone), the rest of
  the string kept, a ``NAME=`` before a URL included;
* a key that holds a credential: the credential becomes its stub in the key (`` (2)`` added
  when two keys would then be equal); the member's value and its siblings stay, walked like
  any other. Booleans and null hold nothing any rule matches, so their types never change;
* a member named like a credential: its value whatever its JSON type (a string by the name
  classifier; under a strong name, a number, and every string and number inside an object or
  an array, the structure kept: :mod:`elision.redact.fields`). Such a number becomes a stub,
  a string.
* in a text that is a CSV or TSV table, a cell under a column named like a credential, judged
  as that member's value (:mod:`elision.redact.columns`).

Stub ids are random, never derived from the value. :func:`lookup_reference` finds a record
and :func:`read_plan` says how it may be resolved; resolution never connects to an address
taken from a result (see :mod:`elision.redact.resolve`). Nothing here logs or raises with a
withheld value in the message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from elision._lazylog import DEBUG, get_logger
from elision._record import field, record_class
from elision.redact.columns import body_may_name_columns
from elision.redact.keywords import B64_HEADS
from elision.redact.mdtables import body_may_hold_tables
from elision.redact.resolve import ReadPlan, lookup_reference, read_plan
from elision.redact.rules import is_stub
from elision.redact.scan import DENSE, dense_bytes, redact_spans
from elision.redact.triggers import body_may_need_redaction, utf8_text_has_triggers
from elision.redact.walk import Walker, walk_parsed
from elision.shape.lines import is_utf8

if TYPE_CHECKING:
    from elision.pipeline import Capture, Redacted

__all__ = [
    "ReadPlan",
    "RedactStage",
    "Redaction",
    "is_stub",
    "lookup_reference",
    "read_plan",
    "redact_text",
    "redact_value",
]

log = get_logger("elision.redact")


@record_class(frozen=True)
class Redaction:
    """The redacted value, what was withheld, and the host-private records behind stubs."""

    value: Any
    withheld: tuple[dict[str, Any], ...] = ()
    #: stub id -> record; left out of ``repr`` because it holds the real uris.
    references: Mapping[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def complete(self) -> bool:
        """False when anything was withheld (the envelope's ``complete`` must say so)."""
        return not self.withheld


def redact_value(
    value: Any,
    *,
    path_root: str = "$",
    server: str | None = None,
    body: bytes | None = None,
) -> Redaction:
    """Redact a parsed JSON value (dict, list, str, int, float, bool, None, RawNumber).

    A Python caller's tuple, set or frozenset (or another iterable) is read as a list and
    another mapping as a dict, and what changed comes back so; bytes and iterators raise
    :class:`~elision.errors.InputError` (:mod:`elision.redact.foreign`).

    ``path_root`` prefixes every withheld path (a page of ``$.rows`` passes ``"$.rows"``).
    ``server`` is recorded in each reference record: the upstream server a stub may be read
    back through. ``body``, when given, must be the bytes ``value`` was parsed from; one search
    of it can tell that a document holds nothing to withhold (sparing its serialization), and
    it spares a clean document too deep for orjson (over 255 levels) a walk of every node.
    """
    redacted, walker = _walked(value, path_root=path_root, server=server, body=body)
    if walker is None:
        return Redaction(value)
    return Redaction(redacted, tuple(walker.withheld), walker.references)


def _walked(
    value: Any, *, path_root: str = "$", server: str | None = None, body: bytes | None = None
) -> tuple[Any, Walker | None]:
    """:func:`redact_value`'s walk: the redacted value and the walker, whose entries are held
    compact (:class:`~elision.withheld.PathEntries`); no walker when nothing can be withheld."""
    if body is not None and body_may_need_redaction(body) is False:
        return value, None  # one pass over the raw body said so: nothing to serialize
    from elision.shape import lazyjson  # not on a text's path (issue 24)

    # Without the bytes it was parsed from, the value may be a Python caller's: its tuples,
    # sets and mappings are read as JSON (elision.redact.foreign).
    walker = Walker(root=path_root, server=server, foreign=body is None)
    if lazyjson.walks_lazily(value):
        # A lazily read body is walked a piece at a time, and what changed is a lazy copy:
        # parsed whole first, a body of 300-deep documents cost 37-48x its bytes (issue 23).
        from elision.redact.lazywalk import redact_lazy

        redacted = redact_lazy(value, walker)
    else:
        # A window of a dense object's members is read whole; a deep spine's lazy bottom
        # (elision.shape.lazyspine) is walked a piece at a time where the walk meets it.
        whole = lazyjson.materialize(value) if lazyjson.is_lazy(value) else value
        redacted = walk_parsed(walker, whole, raw=body)
    _log(walker.withheld)
    return redacted, walker


def redact_text(text: str, *, data: bytes | None = None) -> Redaction:
    """Redact plain text: each withheld URL or secret replaced by its stub, in place.

    Withheld entries name the 1-based ``line`` the value started on, since a text has no path.
    Lines keep their numbers: a stub that replaces a value spanning lines (a PEM key) is
    followed by that value's line breaks, so line N of the redacted text is line N of ``text``.
    ``data``, when given, must be ``text`` in UTF-8 (the body it was decoded from): the
    trigger search reads it rather than a copy of its own.
    """
    new, spans = redact_spans(text, keep_lines=True, data=data, columns=True)
    if not spans:
        return Redaction(text)
    withheld: list[dict[str, Any]] = []
    line, pos = 1, 0
    carriage = "\r" in text  # a one-char search: memchr speed; a count is much slower
    # Each span is let go as its entry is made: a MB of assignments just under the density
    # bound is 25,000 of each, 3.7 MB of spans beside 5.2 MB of entries (issue 23).
    spans.reverse()
    while spans:
        span = spans.pop()
        # Lines end at \n, \r\n or \r, as the text shaper counts them.
        line += text.count("\n", pos, span.start)
        if carriage:
            line += text.count("\r", pos, span.start) - text.count("\r\n", pos, span.start)
        pos = span.start
        entry: dict[str, Any] = {"line": line, "reason": span.rule}
        if span.rule == DENSE:
            entry["bytes"] = dense_bytes(text, span)
        withheld.append(entry)
    _log(withheld)
    return Redaction(new, tuple(withheld))


class RedactStage:
    """The redact stage of :class:`elision.pipeline.Pipeline` (its ``Redactor`` protocol).

    Reference records go to ``store.put_reference`` when a store is given; otherwise they are
    kept in :attr:`references` for the caller (in memory, for the life of this object).
    """

    def __init__(
        self, *, store: Any = None, scope: str | None = None, server: str | None = None
    ) -> None:
        self.store = store
        self.scope = scope
        self.server = server
        self.references: dict[str, dict[str, Any]] = {}

    def redact(self, capture: Capture) -> Redacted:
        from elision.pipeline import Redacted

        server = capture.server or self.server
        if capture.is_json:
            value, walker = _walked(capture.value, server=server, body=capture.body)
            if walker is None or not walker.withheld:
                return Redacted(capture.value, ())
            self.keep(walker.references)
            # Kept compact, as walked: nothing on the pipeline's path reads them as dicts.
            return Redacted(value, walker.withheld)
        if _clean_text(capture.body):
            # A 100 MB log was decoded (one copy) and re-encoded for the scan (another) only
            # to find nothing: the proxy's peak for one text result was 6x its size.
            return Redacted(capture.value, ())
        else:
            # A body that is UTF-8 is the text's bytes: the search reads it, not a third copy;
            # the text is the caller's where it gave one, not a decoded copy.
            body = capture.body
            if capture.text is not None:
                result = redact_text(capture.text, data=body)
            else:
                result = redact_text(body.decode("utf-8", errors="replace"),
                                     data=body if is_utf8(body) else None)
        if not result.withheld:
            return Redacted(capture.value, ())
        self.keep(result.references)
        return Redacted(result.value, result.withheld)

    def redact_bytes(self, capture: Capture) -> Redacted:
        """:meth:`redact`, with a UTF-8 text's redacted value given as its UTF-8 bytes (what
        the shaper reads), built without a redacted ``str`` and with the body's decoding let
        go first (:mod:`elision.redact.bodyview`): a
        :class:`~elision.shape.redactedbody.RedactedBody`, written only where it is read."""
        from elision.pipeline import Redacted

        if capture.is_json:
            return self.redact(capture)
        if _clean_text(capture.body):  # asked once here: redact() searched the body again
            return Redacted(capture.value, ())
        if not is_utf8(capture.body):
            return self.redact(capture)
        from elision.redact.bodyview import redacted_body

        value, withheld = redacted_body(capture.body, capture.text)
        _log(withheld)
        if not withheld:
            return Redacted(capture.value, ())
        # Kept compact, as made: a dict an entry was 5.5x the text just under the density
        # bound (issue 23), and nothing on the pipeline's path reads the entries as dicts.
        return Redacted(value, withheld)

    def keep(self, records: Mapping[str, dict[str, Any]]) -> None:
        """Put reference records where :meth:`lookup` will find them."""
        put = getattr(self.store, "put_reference", None)
        for stub_id, record in records.items():
            if put is not None:
                put(stub_id, record, scope=self.scope)
            else:
                self.references[stub_id] = record

    def lookup(self, stub: str) -> dict[str, Any]:
        """The record behind ``stub`` (an id or the whole stub text)."""
        return lookup_reference(stub, records=self.references, store=self.store, scope=self.scope)


def _clean_text(body: bytes) -> bool:
    """Whether ``redact_text(body.decode())`` would withhold nothing, told without decoding:
    no trigger in the bytes, no base64 value opening the text (``find_spans``), and no first
    line that may name a credential column (:mod:`elision.redact.columns`), and no
    Markdown table's delimiter row (:mod:`elision.redact.mdtables`). A head
    that is not ASCII opens with a char no base64 head holds, decoded or replaced."""
    return (body[:4].decode("ascii", "replace") not in B64_HEADS
            and utf8_text_has_triggers(body) is False
            and not body_may_name_columns(body)
            and not body_may_hold_tables(body))


def _log(withheld: Sequence[dict[str, Any]]) -> None:
    # Reasons and counts only: a path could be built from a credential-bearing key.
    if withheld and log.isEnabledFor(DEBUG):
        from elision.withheld import count_reasons

        reasons = sorted(count_reasons(withheld))
        log.debug("withheld %d value(s): %s", len(withheld), ", ".join(reasons))
