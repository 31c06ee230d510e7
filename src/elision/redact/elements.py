"""An XML element named like a credential: ``<password>S</password>``.

Maven's ``settings.xml`` (``<server><id>…</id><password>…</password></server>``), a Spring or
.NET config, a SOAP envelope: a credential there is an element's text, and its name is the
element's. The trigger search flags a credential name before a ``>``
(:data:`elision.redact.generic.TEXT_SEPARATORS`, ``password>``); here each element in a
piece so flagged whose name withholds its value (:func:`~elision.redact.generic.name_strength`
of the whole name, a namespace's prefix read as a word: ``db:password``, ``apiKey``,
``password2``; ``password_policy`` names no credential) has its text judged as that JSON
member's value would be (:func:`~elision.redact.generic.is_credential_value`: empty, masked,
a placeholder or a message is shown; a weak name's only when opaque), with XML's entities
read as the chars they stand for. The element's text is withheld, the white space around it
and the tags kept; a ``CDATA`` section's content in place of it.

An element is read from its open tag to its close tag: a text with no ``<`` inside (an
element of elements, ``<credentials><user>…``, is its children's to judge) and at most
:data:`LONGEST_VALUE` chars. A close tag may escape its ``/`` as a JSON text does
(``<\\/password>``, PHP's ``json_encode``). An element whose ``<`` and ``>`` HTML escapes
(``&lt;password&gt;S&lt;/password&gt;``: an XML config shown in a page) is read in a copy
of the same length where each ``&lt;`` is ``<`` after three spaces and each ``&gt;`` is ``>``
before three (the offsets are the text's; a real element whose text holds ``&lt;`` is read
in the text itself). So is every spelling of those escapes: any case (``&LT;``), a decimal
or hexadecimal reference (``&#60;``, ``&#x3C;``, up to four leading zeros) and an escape
escaped again, up to four times (``&amp;lt;``: a page that shows a page's source), each
padded to its own length. One whose ``<`` a JSON string escapes (``\\u003c``) is read decoded,
as every escape is (:mod:`elision.redact.encodings`).
"""

from __future__ import annotations

import html
import re

from elision._lazyre import lazy_compile
from elision.redact.generic import ASSIGNMENT, is_credential_value, name_strength
from elision.redact.kept import keep
from elision.redact.rules import Span, make_span

#: The most chars of an element's text that are read; a longer one is not judged.
LONGEST_VALUE = 4096
#: An open tag (a name of at most 96 chars, as the text finder reads one, and its attributes
#: on one tag), the text up to the next ``<`` or a CDATA section, then the same name closed.
#: Each repeat is of one class, none inside another (tests/test_no_nested_repeats.py).
_ELEMENT = lazy_compile(
    r"<([A-Za-z_][A-Za-z0-9_.:-]{0,95})(?:\s[^<>]{0,1024})?>"
    r"(?:<!\[CDATA\[([^\]]{0,4096})\]\]>|([^<]{0,4096}))"
    r"<\\?/\1\s{0,64}>"
)
#: A ``<`` or a ``>`` as HTML escapes it, in any spelling a page writes: a named reference in
#: any case, a decimal or hexadecimal one, an ``&`` escaped again up to four times.
_ESCAPED_LT = lazy_compile(r"&(?:amp;){0,4}(?:lt|#0{0,4}60|#x0{0,4}3c);", re.IGNORECASE)
_ESCAPED_GT = lazy_compile(r"&(?:amp;){0,4}(?:gt|#0{0,4}62|#x0{0,4}3e);", re.IGNORECASE)
#: An escaped close tag's ``</``: what tells a text that may hold such an element.
_ESCAPED_CLOSE = lazy_compile(r"&(?:amp;){0,4}(?:lt|#0{0,4}60|#x0{0,4}3c);(?:/|\\/)",
                              re.IGNORECASE)

#: The name of each tag that may open an :data:`_ELEMENT` (its name, then white space or the
#: tag's end): all of the names it matches, and more.
_ELEMENT_NAME = lazy_compile(r"<([A-Za-z_][A-Za-z0-9_.:-]{0,95})(?=[\s>])")


#: A property list's member: its key's element, then its value's (a string, base64 data, a
#: number) after white space, each text with no ``<`` and at most 4 KiB.
_PLIST_MEMBER = lazy_compile(
    r"<key>([^<]{1,96})</key>\s{0,256}<(string|data|integer|real)>([^<]{0,4096})</\2>"
)


#: A property list's key over an ``<array>`` or a ``<dict>``: the container's values are the
#: key's (``<key>tokens</key>`` over ``<array><string>S</string></array>``).
_PLIST_CONTAINER = lazy_compile(r"<key>([^<]{1,96})</key>\s{0,256}<(array|dict)>")
#: Inside one: a container opened or closed, a dict's key, or a value (as a member's).
_PLIST_INNER = lazy_compile(
    r"<(/?)(array|dict)>|<key>([^<]{0,96})</key>"
    r"|<(string|data|integer|real)>([^<]{0,4096})</\4>"
)


def find_elements(text: str) -> list[Span]:
    """The text of each element of ``text`` whose name withholds its value, and of each
    property list value whose key's does (inside an array or a dict under it too)."""
    # Told in C where it can be: no element closes here.
    escaped = "&" in text and _ESCAPED_CLOSE.search(text) is not None
    if "</" not in text and "<\\/" not in text and not escaped:
        return []
    found: list[Span] = []
    if "</key>" in text:
        kept = _MEMBERS_KEPT
        for match in _PLIST_MEMBER.finditer(text):
            member = match.group()
            was = kept.get(member, _MISSING)  # one look: another thread may empty it
            got: tuple[int, int] | None
            if was is not _MISSING:
                got = was  # type: ignore[assignment]  # (no cast: a Python call a member)
            else:
                got = _member(member)
                if len(member) <= _MEMBER_LONGEST:
                    keep(kept, member, got, _MEMBERS_MOST)
            if got is not None:
                at = match.start()
                found.append(make_span((at + got[0], at + got[1], ASSIGNMENT)))
        _plist_containers(text, found)
    # Each distinct name an element may open with, found in C and judged once: a property
    # list's elements are ``key`` and ``string``, none read where none withholds.
    withholding = {name for name in set(_ELEMENT_NAME.findall(text)) if name_strength(name)}
    if withholding:
        for match in _ELEMENT.finditer(text):
            name = match.group(1)
            if name in withholding:
                _judged(text, name, *match.span(2 if match.start(2) >= 0 else 3), found)
    if escaped:
        # The same length: an offset of the copy is the text's. The common spelling in C,
        # the rest (a Python call each) only where one is left.
        unescaped = text.replace("&lt;", "   <").replace("&gt;", ">   ")
        if "&" in unescaped:
            unescaped = _ESCAPED_GT.sub(_closing, _ESCAPED_LT.sub(_opening, unescaped))
        for match in _ELEMENT.finditer(unescaped):
            name = match.group(1)
            if text[match.start()] == "<" or not name_strength(name):
                continue  # a real element: read in the text above
            _judged(unescaped, name, *match.span(2 if match.start(2) >= 0 else 3), found,
                    value=text)
    return found


#: What :func:`_member` says of a property list's member, by the member's text (a pure
#: function of it: the pattern reads nothing outside its match), kept for the process where
#: it is short: a property list repeats its members (22,000 ``<key>password</key>`` over a
#: ``<string>`` a MB were each a name unescaped and judged, and a value stripped, unescaped
#: and judged: issue 23).
_MEMBERS_KEPT: dict[str, tuple[int, int] | None] = {}
#: No answer kept for a member (an answer may be None).
_MISSING: object = object()
_MEMBERS_MOST = 256
_MEMBER_LONGEST = 256


def _member(member: str) -> tuple[int, int] | None:
    """Where the value of the property list's member ``member`` (all of a
    :data:`_PLIST_MEMBER` match) starts and ends in it, where its key withholds it."""
    match = _PLIST_MEMBER.match(member)
    assert match is not None  # the match's own text
    name = html.unescape(match.group(1).strip())
    found: list[Span] = []
    if name_strength(name):
        _judged(member, name, *match.span(3), found)
    return (found[0].start, found[0].end) if found else None
def _opening(match: re.Match[str]) -> str:
    """An escaped ``<`` as the ``<`` it spells, padded before to the escape's length."""
    return " " * (match.end() - match.start() - 1) + "<"


def _closing(match: re.Match[str]) -> str:
    """An escaped ``>`` as the ``>`` it spells, padded after to the escape's length."""
    return ">" + " " * (match.end() - match.start() - 1)


def _judged(text: str, name: str, start: int, end: int, found: list[Span],
            value: str | None = None) -> None:
    """The element's text ``text[start:end]`` added to ``found`` when ``name`` withholds it
    (read in ``value``, the text ``text`` is a same-length copy of, where given)."""
    raw = text[start:end]
    # The white space around the text is the document's layout, not the value's.
    start += len(raw) - len(raw.lstrip())
    end -= len(raw) - len(raw.rstrip())
    read = text if value is None else value
    if start < end and is_credential_value(name, html.unescape(read[start:end])):
        found.append(make_span((start, end, ASSIGNMENT)))


def _plist_containers(text: str, found: list[Span]) -> None:
    """Each value inside an ``<array>`` or ``<dict>`` under a property list's key that names a
    credential, judged as the JSON walk judges a container under that member
    (:func:`elision.redact.fields.withhold_inside`): a strong name's every value but a
    metadata member's, a weak one's only an opaque one. A container is read once, to its
    close (the search goes on after it: each char read once)."""
    from elision.redact.fields import is_metadata_key, keeps_metadata

    pos = 0
    while (match := _PLIST_CONTAINER.search(text, pos)) is not None:
        pos = match.end()
        name = html.unescape(match.group(1).strip())
        strength = name_strength(name)
        if not strength:
            continue
        depth, key = 1, ""
        while depth and (inner := _PLIST_INNER.search(text, pos)) is not None:
            pos = inner.end()
            if inner.group(2) is not None:
                depth += -1 if inner.group(1) else 1
            elif inner.group(3) is not None:
                key = html.unescape(inner.group(3).strip())
            elif not is_metadata_key(key) or not keeps_metadata(
                    strength, key, html.unescape(inner.group(5).strip())):
                _judged(text, name, *inner.span(5), found)
