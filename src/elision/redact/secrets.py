"""Credentials that are not URLs: the families of :mod:`elision.redact.families`, found in any text.

The rules are the rows of ``elision/data/families.toml`` (their patterns written from the
providers' published token formats; none is copied from a scanner's rule file) and the generic
rules of :mod:`elision.redact.generic`. Only the families whose keywords a text holds are tried
(:func:`elision.redact.keywords.present`), and each withholds only the secret itself (the
``Bearer`` word stays, the token goes; a DSN keeps its user and host).
"""

from __future__ import annotations

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
        for match in family.pattern.finditer(text):
            if family.accepts(text, match):
                found.append(Span(*family.secret_span(match), family.id))
    if holds.generic:
        found.extend(find_assignments(text))
    return found
