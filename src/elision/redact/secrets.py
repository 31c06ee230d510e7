"""Credentials that are not URLs: the families of :mod:`elision.redact.families`, found in any text.

The rules are the rows of ``elision/data/families.toml`` (their patterns written from the
providers' published token formats; none is copied from a scanner's rule file) and the generic
rules of :mod:`elision.redact.generic`. Only the families whose keywords a text holds are tried
(:func:`elision.redact.keywords.present`), and each withholds only the secret itself (the
``Bearer`` word stays, the token goes; a DSN keeps its user and host).
"""

from __future__ import annotations

import re

try:  # CPython's private regex parser: see literal_runs
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python that moved it
    sre = _parser = None

from elision.redact.families import PATTERN_FAMILIES, Family
from elision.redact.fields import is_number
from elision.redact.generic import (
    FIELD_SUFFIXES,
    STRONG,
    find_assignments,
    is_credential_value,
    name_strength,
)
from elision.redact.keywords import Present, present
from elision.redact.rules import Span, is_stub, without_stubs

#: The families matched by a pattern, in the order they are tried (the name is kept for the
#: callers that knew the rules as a tuple).
CREDENTIAL_RULES: tuple[Family, ...] = PATTERN_FAMILIES

#: Suffixes of the JSON member names that may hold a credential whatever it looks like; which
#: of them do is :func:`is_credential_field`'s call.
CREDENTIAL_FIELDS = frozenset(FIELD_SUFFIXES)


def is_credential_field(key: object, value: object) -> bool:
    """Whether ``key: value`` is a credential member (a masked, empty or placeholder value, a
    cursor under ``page_token`` or a path under ``PWD`` is not). A number under a strong name
    is one too (a PIN, a numeric password); an object or array under a credential name is
    :func:`elision.redact.fields.withhold_inside`'s to read."""
    if not isinstance(key, str):
        return False
    if is_number(value):
        return name_strength(without_stubs(key)) == STRONG
    return (
        isinstance(value, str)
        and not is_stub(value)
        and is_credential_value(without_stubs(key), value)
    )


def find_credentials(text: str, holds: Present | None = None) -> list[Span]:
    """Every credential in ``text``, possibly overlapping (the caller merges).

    ``holds`` is what :func:`~elision.redact.keywords.present` says of ``text``, when the
    caller has it already.
    """
    holds = present(text) if holds is None else holds
    found: list[Span] = []
    for index in holds.families:
        family = PATTERN_FAMILIES[index]
        assert family.pattern is not None
        if not all(part in text for part in needs(index)):
            continue  # a char its every match holds is not in the text
        for match in family.pattern.finditer(text):
            if family.accepts(text, match):
                found.append(Span(*family.secret_span(match), family.id))
    if holds.generic:
        found.extend(find_assignments(text))
    return found


_needs: dict[int, tuple[str, ...]] = {}


def needs(index: int) -> tuple[str, ...]:
    """The runs of literal chars that every match of family ``index``'s pattern holds (those
    of its top level, which a match cannot skip), each told by one ``in`` test where the
    pattern's search tries every position of a text: ADO.NET's ``(?i)(?:server|…)=…;…`` cost
    a text of ``password=`` values, which has no ``;``, a sixth of its redaction. A pattern
    that ignores case keeps its ASCII chars that have no case (``=``, ``;``, digits): a
    letter may match one of another case, or a char the engine folds to it (``s`` matches
    U+017F, ``k`` the Kelvin sign)."""
    got = _needs.get(index)
    if got is None:
        family = PATTERN_FAMILIES[index]
        assert family.pattern is not None
        got = _needs[index] = literal_runs(family.pattern)
    return got


def literal_runs(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The runs of literal chars at the top level of ``pattern`` (see :func:`needs`); none,
    so no family is skipped, where CPython's private regex parser is not as read here (a
    later Python may move or change it): slower, never a different result."""
    try:
        caseless = bool(pattern.flags & re.IGNORECASE)
        runs: list[str] = []
        run: list[str] = []
        for op, arg in _parser.parse(pattern.pattern, pattern.flags):
            char = chr(arg) if op is sre.LITERAL else ""
            if char and not (caseless and (not char.isascii() or char.lower() != char.upper())):
                run.append(char)
                continue
            if run:
                runs.append("".join(run))
                run = []
        if run:
            runs.append("".join(run))
    except Exception:  # the parser's shape is CPython's, not a contract
        return ()
    return tuple(runs)
