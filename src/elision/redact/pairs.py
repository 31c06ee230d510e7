"""A value whose name is a sibling member: ``{"name": "DB_PASSWORD", "value": "…"}``.

Many tools write a setting as a pair of members rather than one: Kubernetes a container's
environment (``env: [{"name": …, "value": …}]``), ECS task definitions and HAR headers the
same, AWS SSM a parameter (``{"Name": "/prod/db/password", "Type": "SecureString", "Value":
…}``) and tags (``{"Key": …, "Value": …}``). The member rules read a member by its own key,
and ``value`` names nothing, so such a password reached the model whole. Here the pair's
value is the value of a member named by the pair's name: a string judged as that member's
(:func:`elision.redact.secrets.is_credential_field`), a container as one under that name
(:func:`elision.redact.fields.withhold_inside`).

Only the exact spellings below are read (two dict look-ups an object, the common case one):
a pair's keys are a format's, written one way by the tool that writes it.
"""

from __future__ import annotations

import re
from typing import Any

from elision._lazyre import lazy_compile
from elision.redact.generic import ASSIGNMENT, STRONG, is_credential_value, name_strength
from elision.redact.rules import Span, make_span

#: The key that names the pair, and the key of its value, as formats spell them.
PAIRS = (("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value"))


def paired_value(node: dict[Any, Any]) -> tuple[str, str] | None:
    """``(value key, name)`` when ``node`` holds a pair whose name is a string, else ``None``.

    Whether the name is a credential's is the caller's to judge (with the value it names)."""
    if "value" not in node and "Value" not in node:
        return None
    for name_key, value_key in PAIRS:
        name = node.get(name_key)
        if isinstance(name, str) and value_key in node:
            return value_key, name
    return None


#: The same pair written as JSON in a text (NDJSON, a log that prints JSON, a JSON body shaped
#: as text, JSON-in-JSON with its quotes escaped), name first as the formats above write it:
#: the name (at most 96 chars, as the text finder reads one), up to two short members between
#: (SSM's ``"Type": "SecureString"``), then where the value opens, a string's first char or a
#: number. Each repeat holds no repeat (a member between is an optional, read once or not).
_TEXT_PAIR = lazy_compile(
    r'"(?:name|key|Name|Key)\\{0,16}"[ \t\r\n]*:[ \t\r\n]*\\{0,16}"([^"\\\r\n]{1,96})'
    r'\\{0,16}"' + 2 * (r'(?:[ \t\r\n]*,[ \t\r\n]*\\{0,16}"[A-Za-z_]{1,32}\\{0,16}"[ \t\r\n]*:'
                       r'[ \t\r\n]*(?:\\{0,16}"[^"\\\r\n]{0,128}\\{0,16}"|[0-9a-z.]{1,32}))?')
    + r'[ \t\r\n]*,[ \t\r\n]*\\{0,16}"(?:value|Value)\\{0,16}"[ \t\r\n]*:[ \t\r\n]*'
    r'(?:\\{0,16}"(?=[^"\\\r\n])|(-?[0-9][0-9.eE+-]{0,63}))'
)
#: The same pair as an XML or HTML element's attributes: ``<add key="ApiKey" value="…"/>`` (a
#: .NET ``appSettings`` entry), ``<input name="api_key" value="…">``, ``<param name=…
#: value=…>``, ``<meta name="csrf-token" content="…">`` (Rails' and Laravel's page head): the
#: name's attribute, other attributes of the same tag (up to 256 chars, no ``<`` or ``>``),
#: then ``value`` or ``content``, quoted either way.
_TAG_PAIR = lazy_compile(
    r"""(?<![\w-])(?:name|key)[ \t]*=[ \t]*(["'])([^"'<>\r\n]{1,96})\1"""
    r"""[^<>]{0,256}?(?<![\w-])(?:value|content)[ \t]*=[ \t]*(["'])([^"'<>\r\n]{0,4096})\3""",
    re.IGNORECASE,
)
#: A form's CSRF field named by its framework alone (Express's ``csurf`` and Spring's
#: ``_csrf``), judged as a ``csrf_token`` is (a weak name: withheld when opaque). The trigger
#: search looks for it quoted (:data:`~elision.redact.generic.QUOTED_NAMES`).
_CSRF = lazy_compile(r"_{0,2}csrf", re.IGNORECASE)
#: A string value: to its closing quote (the backslashes that escape that quote left out),
#: or to the line's end.
_STRING_VALUE = lazy_compile(r'[^"\r\n]*')
_LONGEST_VALUE = 4096


def find_pairs(text: str) -> list[Span]:
    """The value of each name/value pair written as JSON in ``text``, or as a tag's
    attributes, whose name withholds it, as a member so named would be withheld (a number
    only under a strong name). A JSON string value longer than 4 KB under a credential's
    name is withheld unread (fail closed)."""
    found: list[Span] = []
    for match in _TEXT_PAIR.finditer(text) if '"' in text else ():
        name, number = match.group(1, 2)
        if number is not None:
            if name_strength(name) == STRONG:
                found.append(make_span((match.start(2), match.end(2), ASSIGNMENT)))
            continue
        start = match.end()
        tail = _STRING_VALUE.match(text, start)
        end = tail.end() if tail is not None else start
        while end > start and text[end - 1] == "\\":
            end -= 1
        if (name_strength(name) if end - start > _LONGEST_VALUE
                else is_credential_value(name, text[start:end])):
            found.append(make_span((start, end, ASSIGNMENT)))
    # Told in C first (the search, case-insensitive with a look-behind, reads 15 ms a MB: a
    # line of URL candidates took 60% longer with it): a tag's "<", or a value attribute as
    # it is written (``value``, ``Value``, ``VALUE``) where no tag is.
    if "=" in text and ("<" in text or "alue" in text or "ALUE" in text):
        for match in _TAG_PAIR.finditer(text):
            name = match.group(2)
            if _CSRF.fullmatch(name):
                name = "csrf_token"
            if is_credential_value(name, match.group(4)):
                found.append(make_span((match.start(4), match.end(4), ASSIGNMENT)))
    return found
