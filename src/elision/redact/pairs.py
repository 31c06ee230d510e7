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
from typing import Any, NamedTuple

from elision._lazyre import lazy_compile
from elision.redact.blocks import block_value
from elision.redact.generic import ASSIGNMENT, STRONG, is_credential_value, name_strength
from elision.redact.rules import Span, make_span

#: The key that names the pair, and the key of its value, as formats spell them:
#: CloudFormation's parameters (``ParameterKey``/``ParameterValue``), and a header written as
#: ``header``/``content`` (Traefik's and some gateways' header lists) besides those above.
PAIRS = (("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value"),
         ("ParameterKey", "ParameterValue"), ("header", "content"))
#: The name keys of each value key, for :func:`paired_value`'s look-ups.
_NAMES_OF: dict[str, tuple[str, ...]] = {}
for _name_key, _value_key in PAIRS:
    _NAMES_OF.setdefault(_value_key, ())
    _NAMES_OF[_value_key] += (_name_key,)


def paired_value(node: dict[Any, Any]) -> tuple[str, str] | None:
    """``(value key, name)`` when ``node`` holds a pair whose name is a string, else ``None``.

    Whether the name is a credential's is the caller's to judge (with the value it names)."""
    for value_key, name_keys in _NAMES_OF.items():  # a look-up each: most objects hold none
        if value_key in node:
            for name_key in name_keys:
                name = node.get(name_key)
                if isinstance(name, str):
                    return value_key, name
    return None


_NAME_KEYS = "|".join(sorted({name for name, _ in PAIRS}))
_VALUE_KEYS = "|".join(sorted({value for _, value in PAIRS}))
#: A member between the name and the value (an optional, read once or not).
_BETWEEN = (r'(?:[ \t\r\n]*,[ \t\r\n]*\\{0,16}"[A-Za-z_]{1,32}\\{0,16}"[ \t\r\n]*:'
            r'[ \t\r\n]*(?:\\{0,16}"[^"\\\r\n]{0,128}\\{0,16}"|[0-9a-z.]{1,32}))?')
#: The same pair written as JSON in a text (NDJSON, a log that prints JSON, a JSON body shaped
#: as text, JSON-in-JSON with its quotes escaped), name first as the formats above write it:
#: the name (at most 96 chars, as the text finder reads one), up to two short members between
#: (SSM's ``"Type": "SecureString"``), then where the value opens, a string's first char or a
#: number. Each repeat holds no repeat (a member between is an optional, read once or not).
_TEXT_PAIR = lazy_compile(
    r'"(?:' + _NAME_KEYS + r')\\{0,16}"[ \t\r\n]*:[ \t\r\n]*\\{0,16}"([^"\\\r\n]{1,96})'
    r'\\{0,16}"' + 2 * _BETWEEN
    + r'[ \t\r\n]*,[ \t\r\n]*\\{0,16}"(?:' + _VALUE_KEYS + r')\\{0,16}"[ \t\r\n]*:[ \t\r\n]*'
    r'(?:\\{0,16}"(?=[^"\\\r\n])|(-?[0-9][0-9.eE+-]{0,63}))'
)
#: The same pair value first (``{"value": "…", "name": "DB_PASSWORD"}``: Go's and Rust's
#: encoders write members sorted, so ``name`` after ``value``): the value a string with no
#: escape in it (4 KB at most), up to two members, then the name.
_TEXT_PAIR_VALUE_FIRST = lazy_compile(
    r'"(?:' + _VALUE_KEYS + r')\\{0,16}"[ \t\r\n]*:[ \t\r\n]*\\{0,16}"([^"\\\r\n]{1,4096})'
    r'\\{0,16}"' + 2 * _BETWEEN
    + r'[ \t\r\n]*,[ \t\r\n]*\\{0,16}"(?:' + _NAME_KEYS + r')\\{0,16}"[ \t\r\n]*:[ \t\r\n]*'
    r'\\{0,16}"([^"\\\r\n]{1,96})\\{0,16}"'
)
#: A line of a YAML pair, from the line break before it: its key (a pair's name key or value
#: key) at the line's start or after a list's ``- ``, and the rest of its line. Group 1 is
#: what is before the key. Led by the line break, a literal the search skips to in C (a ``^``
#: is tried at every char: 5 ms a MB).
_YAML_KEY_LINE = lazy_compile(
    r"\n([ \t]*(?:-[ \t]+)?)(" + _NAME_KEYS + "|" + _VALUE_KEYS
    + r")[ \t]*:(?:[ \t]+([^\r\n]{1,4096}))?"
)
#: How many lines on a pair's second key may be from its first (two members between).
_YAML_REACH = 3
_VALUE_OF = {name: value for name, value in PAIRS}
#: A block scalar's header after a pair's value key (``value: |``, ``|-``, ``>+2``): its lines
#: below are the value (:func:`elision.redact.blocks.block_value`).
_BLOCK_INDICATOR = lazy_compile(r"([|>])[-+0-9]{0,2}")


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
#: The same attributes value first (``<meta content="…" name="csrf-token">``: an attribute's
#: place in its tag says nothing, and a page's template may write ``content`` first). Group 2
#: is the value, group 4 the name.
_TAG_PAIR_VALUE_FIRST = lazy_compile(
    r"""(?<![\w-])(?:value|content)[ \t]*=[ \t]*(["'])([^"'<>\r\n]{0,4096})\1"""
    r"""[^<>]{0,256}?(?<![\w-])(?:name|key)[ \t]*=[ \t]*(["'])([^"'<>\r\n]{1,96})\3""",
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
#: Each tag pair's pattern, and its name's group and its value's.
_TAG_PAIRS = ((_TAG_PAIR, 2, 4), (_TAG_PAIR_VALUE_FIRST, 4, 2))


def find_pairs(text: str) -> list[Span]:
    """The value of each name/value pair written as JSON in ``text``, or as a tag's
    attributes, whose name withholds it, as a member so named would be withheld (a number
    only under a strong name). A JSON string value longer than 4 KB under a credential's
    name is withheld unread (fail closed)."""
    found: list[Span] = []
    for match in _TEXT_PAIR.finditer(text) if '"' in text else ():
        name, number = match.group(1, 2)
        # The name first (kept by name_strength): a pair whose name holds no credential's
        # is passed before its value is read, as is_credential_value would pass it (a cookie
        # jar's ``{"name": "sid", "value": S}``, 18,724 a MB on a line: its value's match,
        # slice and judge's call each, for nothing; issue 23).
        strength = name_strength(name)
        if not strength:
            continue
        if number is not None:
            if strength == STRONG:
                found.append(make_span((match.start(2), match.end(2), ASSIGNMENT)))
            continue
        start = match.end()
        tail = _STRING_VALUE.match(text, start)
        end = tail.end() if tail is not None else start
        while end > start and text[end - 1] == "\\":
            end -= 1
        if end - start > _LONGEST_VALUE or is_credential_value(name, text[start:end]):
            found.append(make_span((start, end, ASSIGNMENT)))
    for match in _TEXT_PAIR_VALUE_FIRST.finditer(text) if '"' in text else ():
        if is_credential_value(match.group(2), match.group(1)):
            found.append(make_span((match.start(1), match.end(1), ASSIGNMENT)))
    if ":" in text and ("alue" in text or "content" in text):
        found.extend(_yaml_pairs(text))
    # Told in C first (the search, case-insensitive with a look-behind, reads 15 ms a MB: a
    # line of URL candidates took 60% longer with it): a tag's "<", or a value attribute as
    # it is written (``value``, ``Value``, ``VALUE``) where no tag is.
    if "=" in text and ("<" in text or "alue" in text or "ALUE" in text):
        for pattern, name_at, value_at in _TAG_PAIRS:
            for match in pattern.finditer(text):
                name = match.group(name_at)
                if _CSRF.fullmatch(name):
                    name = "csrf_token"
                if is_credential_value(name, match.group(value_at)):
                    found.append(make_span(
                        (match.start(value_at), match.end(value_at), ASSIGNMENT)))
    return found


class _KeyLine(NamedTuple):
    line: int  # its number, counted from the text's first key line
    start: int  # where its line starts
    column: int  # where its key starts on its line
    item: bool  # whether a list's ``- `` opens it (a new item)
    key: str
    at: int  # where its value starts
    value: str  # the rest of its line ("" for none)


def _yaml_pairs(text: str) -> list[Span]:
    """The value of each YAML name/value pair in ``text`` (``- name: DB_PASSWORD`` over
    ``  value: S``, either first, up to two members between) whose name withholds it, as a
    member so named would withhold it. Each key line is read once, and each looks at most
    :data:`_YAML_REACH` lines on for its pair's other key."""
    lines: list[_KeyLine] = []
    line = 0
    last = 0
    # The text's first line has a break before it too, read so: each offset is one on.
    for match in _YAML_KEY_LINE.finditer("\n" + text):
        line += text.count("\n", last, match.start())
        last = match.start()
        prefix = match.group(1)
        lines.append(_KeyLine(line, match.start(), len(prefix), "-" in prefix, match.group(2),
                              match.start(3) - 1, match.group(3) or ""))
    found: list[Span] = []
    for i, first in enumerate(lines):
        for second in lines[i + 1:i + 1 + _YAML_REACH]:
            if second.line - first.line > _YAML_REACH or second.item:
                break
            if second.column != first.column:
                continue
            if _VALUE_OF.get(first.key) == second.key:
                name, value = first, second
            elif _VALUE_OF.get(second.key) == first.key:
                name, value = second, first
            else:
                continue
            if not _siblings_between(text, first, second):
                break
            pair_name = _scalar(name.value)[0]
            block = _BLOCK_INDICATOR.fullmatch(_scalar(value.value)[0])
            if block is not None and pair_name:
                # The value's lines are those under its key: read from the line after it.
                after = text.find("\n", value.at)
                if after >= 0:
                    block_value(text, pair_name, block.group(1), after + 1, value.column,
                                found)
                break
            span = _yaml_value(pair_name, value)
            if span is not None:
                found.append(span)
            break
    return found


def _siblings_between(text: str, first: _KeyLine, second: _KeyLine) -> bool:
    """Whether each line between two key lines is indented at least as deep as they are (a
    member of the same mapping, or a line of one)."""
    head = second.start - 1  # the line break before the second's line
    for _ in range(second.line - first.line - 1):
        above = text.rfind("\n", 0, head)
        row = text[above + 1:head].rstrip("\r")
        stripped = row.lstrip(" \t")
        if stripped and len(row) - len(stripped) < first.column:
            return False
        head = above
    return True


def _scalar(value: str) -> tuple[str, int]:
    """A YAML plain or quoted scalar as a line holds it: its text (a ``#`` comment and the
    quotes off) and how far into ``value`` it starts."""
    comment = value.find(" #")
    if comment >= 0:
        value = value[:comment]
    value = value.rstrip(" \t\r")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1], 1
    return value, 0


def _yaml_value(name: str, value: _KeyLine) -> Span | None:
    """The span of a pair's value where ``name`` withholds it; a collection, an anchor, an
    alias or a tag is left (a block is read by :func:`_yaml_pairs`)."""
    scalar, skip = _scalar(value.value)
    if not scalar or not name or (not skip and scalar[0] in "[{&*|>!"):
        return None
    if not is_credential_value(name, scalar):
        return None
    return make_span((value.at + skip, value.at + skip + len(scalar), ASSIGNMENT))
