"""Credentials that are not URLs: the families of :mod:`elision.redact.families`, found in any text.

The rules are the rows of ``elision/data/families.toml`` (their patterns written from the
providers' published token formats; none is copied from a scanner's rule file) and the generic
rules of :mod:`elision.redact.generic`. Only the families whose keywords a text holds are tried
(:func:`elision.redact.keywords.present`), and each withholds only the secret itself (the
``Bearer`` word stays, the token goes; a DSN keeps its user and host).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import sub

try:  # CPython's private regex parser: see literal_runs
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python that moved it
    sre = _parser = None

from elision.redact import generic
from elision.redact.blocks import find_blocks, find_collections, find_wrapped
from elision.redact.elements import find_elements
from elision.redact.families import PATTERN_FAMILIES, Family, read_closings
from elision.redact.fields import is_number
from elision.redact.generic import (
    FIELD_SUFFIXES,
    STRONG,
    find_assignments,
    is_credential_value,
    name_shape,
    name_strength,
    named_credential,
    stand_for_nothing,
    stands_for_nothing,
    words,
)
from elision.redact.keywords import Openings, Present, openings, present
from elision.redact.netrc import find_netrc
from elision.redact.pairs import find_pairs
from elision.redact.rules import Span, is_stub, make_span, without_stubs

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


def credential_pairs(names: Sequence[str], values: Sequence[object]) -> list[bool]:
    """``[is_credential_field(n, v) for n, v in zip(names, values)]``, told for many pairs at
    once (an array of name/value records): each name's shape (:func:`name_shape`: a name and
    its shape are judged alike) judged once, and a value's own checks
    (:func:`stands_for_nothing`) made only under a name that holds a credential, once a
    distinct value and unkept. A MB of pairs, each a distinct name and value, was 7 us a pair
    judged one by one, the kept tables of values filled and emptied for nothing (issue 23)."""
    if not generic.NAME_SHAPES:
        return list(map(is_credential_field, names, values))
    joined = "\n".join(names)
    shapes = name_shape(joined).split("\n")
    if len(shapes) != len(names) or "withheld: " in joined:  # a name over lines, or a stub's
        return list(map(is_credential_field, names, values))
    judged: dict[str, tuple[int, list[str], bool | None]] = {}
    known: list[tuple[int, list[str], bool | None]] = []
    asked: dict[str, bool] = {}  # the values whose own checks are asked, in order
    for shape, value in zip(shapes, values, strict=True):
        got = judged.get(shape)
        if got is None:
            strength = name_strength(shape)
            parts = words(shape) if strength else []
            got = judged[shape] = (strength, parts, _named_whatever(strength, parts))
        known.append(got)
        # A stub opens with "[": told in C first (a call a value was a fifth of the pairs').
        if got[0] and type(value) is str and not (value.startswith("[") and is_stub(value)):
            asked[value] = False
    told = list(asked)
    asked.update(zip(told, stand_for_nothing(told), strict=True))
    del told
    out: list[bool] = []
    for (strength, parts, whatever), value in zip(known, values, strict=True):
        if not strength:
            out.append(False)
        elif type(value) is str:
            # Asked above unless a stub; the answer False: a value that stands for something.
            out.append(asked.get(value) is False and (
                whatever if whatever is not None else named_credential(strength, parts, value)))
        elif is_number(value):
            out.append(strength == STRONG)
        elif not isinstance(value, str) or is_stub(value):
            out.append(False)
        else:
            plain = asked[value] if value in asked else stands_for_nothing(value)
            out.append(not plain and named_credential(strength, parts, value))
    return out


def _named_whatever(strength: int, parts: list[str]) -> bool | None:
    """:func:`~elision.redact.generic.named_credential` under a name of ``strength`` and words
    ``parts`` where it is the same for every value (a strong name's but the working
    directory's, a scheme's header or a cookie): ``None`` where the value decides."""
    if strength != STRONG or not parts or parts[-1] in ("authorization", "cookie") or parts in (
            ["pwd"], ["oldpwd"]):
        return None
    return True


def find_credentials(
    text: str, holds: Present | None = None, near: dict[int, list[int]] | None = None,
) -> list[Span]:
    """Every credential in ``text``, possibly overlapping (the caller merges).

    ``holds`` is what :func:`~elision.redact.keywords.present` says of ``text``, when the
    caller has it already. ``near``, where given, maps each of those families to where its
    keywords end in ``text`` (:func:`~elision.redact.keywords.located`), each family one
    whose pattern cannot match a line break: its pattern then runs over those lines alone,
    as a match needs a keyword on its own line (``Family.keyword_near``).
    """
    holds = present(text) if holds is None else holds
    found: list[Span] = []
    lowered: list[str] = []  # the text lower-cased, once, for the first family that asks
    spots = _spots(text, holds.families) if near is None else None
    for index in holds.families:
        family = PATTERN_FAMILIES[index]
        assert family.pattern is not None
        matches: Iterable[re.Match[str]]
        if spots is not None and index in spots:
            matches = _from(text, family.pattern, spots[index])
        elif not all(part in text for part in needs(index)):
            continue  # a char its every match holds is not in the text
        elif near is None and (opens := _opened_by(index, text, lowered)) is not None:
            matches = _from(text, family.pattern, opens)
        elif near is None:
            matches = family.pattern.finditer(text)
        elif (opening := _opening(index)) is not None:
            # One keyword length (``sk-``): the ends are ascending, so are the starts, told
            # in C (a set comprehension was a Python step a key of NDJSON's, issue 23); a
            # start twice is tried once (_from).
            starts = (list(map(sub, near[index], repeat(opening[0])))
                      if len(opening) == 1
                      else sorted({end - n for end in near[index] for n in opening}))
            matches = _from(text, family.pattern, starts, in_line=True)
        else:
            matches = (match for lo, hi in _lines(text, near[index])
                       for match in family.pattern.finditer(text, lo, hi))
        if family.closing:
            matches = read_closings(family, text, matches)
        rule = family.id
        glued: list[tuple[int, int, str]] = []
        found.extend([make_span((a, b, rule)) for a, b in family.accepted(text, matches, glued)])
        found.extend(map(make_span, glued))
    if holds.generic:
        found.extend(find_assignments(text))
        found.extend(find_pairs(text))
        found.extend(find_blocks(text))
        found.extend(find_collections(text))
        if '":' in text or '" :' in text:  # told in C: no call a piece where no name ends
            found.extend(find_wrapped(text))
        found.extend(find_netrc(text))
        found.extend(find_elements(text))
    return found


#: A text this long (one long line: an image's base64 pasted into a log) has where its
#: families' matches may open found in one hyperscan pass (:func:`_spots`): a search, a count
#: or an ``in`` test a family each read all of it (12 ms a MB of random base64, issue 23).
_LONG = 1 << 16
_literals: dict[int, tuple[tuple[str, ...], bool] | None] = {}


def _opening_literals(index: int) -> tuple[tuple[str, ...], bool] | None:
    """The literal chars every match of family ``index``'s pattern opens with (its leading
    literal run, or each alternative's of a leading branch), at least :data:`_PREFIX_LEAST`
    each, and whether the pattern ignores case (then they are ASCII and lower-cased); else
    None."""
    if index not in _literals:
        pattern = PATTERN_FAMILIES[index].pattern
        assert pattern is not None
        caseless = bool(pattern.flags & re.IGNORECASE)
        runs = leading_runs(pattern)
        _literals[index] = (
            (tuple(sorted({run.lower() if caseless else run for run in runs})), caseless)
            if runs and all(len(run) >= _PREFIX_LEAST and (run.isascii() or not caseless)
                            for run in runs)
            else None
        )
    return _literals[index]


def _spots(text: str, families: tuple[int, ...]) -> dict[int, list[int]] | None:
    """Where in a long ASCII ``text`` a match of each of ``families`` may open, for those
    whose matches all open with literal chars (:func:`_opening_literals`), found in one pass;
    None for a short text, one that is not ASCII (a pattern that ignores case folds some
    non-ASCII chars to ASCII letters), or one where they open more often than one in
    :data:`_PREFIX_SPACING` chars (each place a Python call)."""
    if len(text) < _LONG or not text.isascii():
        return None
    literals: Openings = {}
    for index in families:
        got = _opening_literals(index)
        if got is not None:
            literals[index] = got
    if not literals:
        return None
    return openings(text, literals, len(text) // _PREFIX_SPACING)


def _lines(text: str, ends: list[int]) -> list[tuple[int, int]]:
    """The lines of ``text`` (without their breaks) that hold the keywords ending at
    ``ends`` (ascending), each once."""
    lines: list[tuple[int, int]] = []
    done = -1
    for at in ends:
        if at <= done:
            continue  # on the line just taken (a keyword holds no line break)
        lo = text.rfind("\n", 0, at) + 1
        hi = text.find("\n", at - 1)
        done = len(text) if hi < 0 else hi
        lines.append((lo, done))
    return lines


#: Of the literal chars a match opens with, the fewest: two (a branch of two-char literals)
#: tell a match's start from a random run's, on average, once in 2,000 chars of base64.
_PREFIX_LEAST = 2
#: Past one prefix in this many chars, each a ``match`` call, a pattern's own search is faster.
_PREFIX_SPACING = 256
_prefixes: dict[int, tuple[tuple[str, ...], bool] | None] = {}


def prefixes(index: int) -> tuple[tuple[str, ...], bool] | None:
    """The literal chars every match of family ``index``'s pattern opens with: its leading
    literal run, or each alternative's of a leading branch (``(?:okta…|SSWS…)``), at least
    :data:`_PREFIX_LEAST` each, and whether the pattern ignores case (then they are ASCII
    and lower-cased). None where it opens otherwise, where it opens with one literal and
    heeds case (the regex engine's search skips to it itself), or where CPython's private
    regex parser is not as read here."""
    if index in _prefixes:
        return _prefixes[index]
    family = PATTERN_FAMILIES[index]
    assert family.pattern is not None
    caseless = bool(family.pattern.flags & re.IGNORECASE)
    runs = leading_runs(family.pattern)
    got: tuple[tuple[str, ...], bool] | None = None
    if runs is None or (len(runs) == 1 and not caseless):
        pass  # one literal that heeds case: the regex engine's own search skips to it, in C
    elif all(len(run) >= _PREFIX_LEAST and (run.isascii() or not caseless) for run in runs):
        got = (tuple(sorted({run.lower() if caseless else run for run in runs})), caseless)
    if got is None and (led := _led_runs(family.pattern)) is not None:
        got = led
        _searched_slowly.add(index)
    _prefixes[index] = got
    return got


#: The families whose openings :func:`_led_runs` found: their patterns' searches try a
#: branch at every char (no literal prefix, no char set), each far dearer than a ``find``'s.
_searched_slowly: set[int] = set()
#: Past one opening in this many chars, such a pattern's own search is faster than a
#: ``match`` call at each (bearer-token's tried 88-char lines at 75 ns a char).
_SLOW_PREFIX_SPACING = 16


def _led_runs(pattern: re.Pattern[str]) -> tuple[tuple[str, ...], bool] | None:
    """The literal chars each alternative of ``pattern``'s leading branch opens with, read past
    what consumes no char (a look-behind, ``^``, a branch of those) and into a group that
    turns case off (``(?i:…)``), a branch of one word in two cases (``Bearer|BEARER``) read
    as the word in any case; lower-cased, and ``True`` (they are looked for in any case: a
    superset of the places), where any was so read. None where one is shorter than
    :data:`_PREFIX_LEAST` or not ASCII, or the parser's shape is not as read here.
    bearer-token's ``(?:(?i:(?<=authorization: )bearer)…|(?:Bearer|BEARER)…|(?:^|(?<=…))
    bearer…)`` opens with ``bearer`` in any case: each line of a log of Bearer headers was
    searched char by char, a tenth of its redaction (issue 23)."""
    try:
        parsed = list(_parser.parse(pattern.pattern, pattern.flags))
        alternatives = ([list(alt) for alt in parsed[0][1][1]]
                        if parsed and parsed[0][0] is sre.BRANCH else [parsed])
        runs, anycase = [], bool(pattern.flags & re.IGNORECASE)
        for ops in alternatives:
            run, folded = _led_run(ops, anycase)
            anycase |= folded
            runs.append(run)
    except Exception:  # the parser's shape is CPython's, not a contract
        return None
    if not all(len(run) >= _PREFIX_LEAST and run.isascii() for run in runs):
        return None
    return (tuple(sorted({run.lower() for run in runs})), True) if anycase else None


def _zero_width(op: object, arg: object) -> bool:
    """Whether a parsed op consumes no char: ``^`` and its kin, a look-behind, a branch of
    those."""
    if op is sre.AT or (op is sre.ASSERT and arg[0] == -1):  # type: ignore[index]
        return True
    return op is sre.BRANCH and all(
        len(alt) == 1 and _zero_width(*alt[0]) for alt in arg[1])  # type: ignore[index]


def _led_run(ops: list[tuple[object, object]], anycase: bool) -> tuple[str, bool]:
    """The literal chars ``ops`` open with past what consumes none, and whether any of them
    was read in any case (see :func:`_led_runs`)."""
    run, folded = "", False
    for op, arg in ops:
        if not run and _zero_width(op, arg):
            continue
        if op is sre.LITERAL:
            run += chr(arg)  # type: ignore[arg-type]
        elif op is sre.SUBPATTERN and not arg[2]:  # type: ignore[index]
            inner, inner_folded = _led_run(
                list(arg[3]), anycase or bool(arg[1] & re.IGNORECASE))  # type: ignore[index]
            return run + inner, folded or inner_folded or bool(arg[1] & re.IGNORECASE)  # type: ignore[index]
        elif op is sre.BRANCH and all(len(alt) and all(o is sre.LITERAL for o, _ in alt)
                                      for alt in arg[1]):  # type: ignore[index]
            words = {"".join(chr(a) for _, a in alt).lower() for alt in arg[1]}  # type: ignore[index]
            if len(words) != 1:
                break
            return run + words.pop(), True
        else:
            break
    return run, folded or anycase


def leading_runs(pattern: re.Pattern[str]) -> list[str] | None:
    """The literal chars (as written) ``pattern`` opens with, one run for each alternative
    of a leading branch, else the one; None where CPython's private regex parser is not as
    read here."""
    try:
        parsed = list(_parser.parse(pattern.pattern, pattern.flags))
        if parsed and parsed[0][0] is sre.BRANCH:
            alternatives = [list(alt) for alt in parsed[0][1][1]]
        else:
            alternatives = [parsed]
        runs = []
        for ops in alternatives:
            run = ""
            for op, arg in ops:
                if op is not sre.LITERAL:
                    break
                run += chr(arg)
            runs.append(run)
    except Exception:  # the parser's shape is CPython's, not a contract
        return None
    return runs


def _opened_by(index: int, text: str, lowered: list[str]) -> list[int] | None:
    """Where in ``text`` a match of family ``index`` may open (each place one of its
    :func:`prefixes` does), when there are few enough to try each; else None (its pattern's
    search then reads ``text``). A pattern that ignores case has non-ASCII chars it folds to
    ASCII letters (U+212A to ``k``), so a text that is not ASCII is searched. ``lowered``
    holds ``text`` lower-cased once one family has asked for it."""
    got = prefixes(index)
    if got is None:
        return None
    runs, caseless = got
    if caseless and not text.isascii():
        return None
    if caseless and not lowered:
        lowered.append(text.lower())
    hay = lowered[0] if caseless else text
    spacing = _SLOW_PREFIX_SPACING if index in _searched_slowly else _PREFIX_SPACING
    if sum(hay.count(run) for run in runs) * spacing > len(text):
        return None
    starts: set[int] = set()
    for run in runs:
        at = hay.find(run)
        while at >= 0:
            starts.add(at)
            at = hay.find(run, at + 1)
    return sorted(starts)


def _from(
    text: str, pattern: re.Pattern[str], starts: list[int], *, in_line: bool = False,
) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` gives (with ``in_line``, over the lines of
    ``starts``), for a pattern whose every match opens at one of ``starts`` (ascending):
    tried there, not searched for at every char (``(?i)`` patterns that open with a branch
    are tried at each one in C: okta's read 1 MB of random base64 in 26 ms, a quarter of the
    text's redaction)."""
    covered = 0
    for at in starts:
        if at < covered:
            continue  # inside the last match: finditer would not look here either
        stop = text.find("\n", at) if in_line else -1
        match = pattern.match(text, at, len(text) if stop < 0 else stop)
        if match is not None:
            covered = max(match.end(), at + 1)
            yield match


_openings: dict[int, tuple[int, ...] | None] = {}


def _opening(index: int) -> tuple[int, ...] | None:
    """The lengths of family ``index``'s keywords where its pattern, read as written (no
    ``(?i)``), opens with literal chars that begin with one of them (``sk-`` of
    ``sk-(?!ant-)…``): then a match opens where such a keyword does. Else None."""
    if index not in _openings:
        family = PATTERN_FAMILIES[index]
        assert family.pattern is not None
        runs = leading_runs(family.pattern)
        _openings[index] = tuple(sorted({len(k) for k in family.keywords})) if (
            runs is not None and len(runs) == 1 and runs[0]
            and not family.pattern.flags & re.IGNORECASE
            and any(runs[0].startswith(k) for k in family.keywords)) else None
    return _openings[index]


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
