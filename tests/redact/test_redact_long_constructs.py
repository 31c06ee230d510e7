"""A SQL statement of clauses, or a netrc entry, longer than 512 chars before its password:
docs/design.md's "Not yet" (issue 23's leaks), each shown whole by ``redact_text`` and by
``shape()`` on the code before.

Two bounds left it shown, both 512 chars: the reading of a piece looked back that far for
the statement's ``CREATE USER`` (``commands._SQL_REACH``) or the entry's ``machine``
(``netrc._REACH``), and a text is cut into pieces of about 1 KB where a line may open one
within 512 chars (``scan._OPENING``), else at any line: a longer construct was cut between
its head and its value, and no piece read both. Now a piece reads back as far as its
construct goes, once a ``PASSWORD`` or a ``password`` token, and a piece that opens inside a
construct is judged with its head line before it (``scan._Constructs``, 64 KB above at most).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text
from elision.redact.rules import credential_stub
from support.cut import cut_inside, prose_filler
from support.engines import trigger_engines, using_engine

S = "Zq8vN3xK7pL2mR9tW4yB6cH1"
STUB = credential_stub("credential-assignment")
_SECRET_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

#: Clause lines of PostgreSQL's role options, and netrc pairs: what stands between a head
#: and its password, any number of them.
_CLAUSES = ("LOGIN", "NOSUPERUSER", "CREATEDB", "NOCREATEROLE", "INHERIT", "NOREPLICATION",
            "CONNECTION LIMIT 20", "VALID UNTIL '2030-01-01'", "IN ROLE readers, writers",
            "ROLE auditors", "ADMIN ops", "NOBYPASSRLS", "SYSID 4242")
_PAIRS = ("login bob", "account ops", "port 21", "account backups-2026", "port 990")


def _shown(text: str) -> str:
    return str(redact_text(text).value)


def _secret(seed: int) -> str:
    return "".join(random.Random(seed).choices(_SECRET_CHARS, k=24))


def _sql(clauses: list[str], secret: str, step: str = "  ", word: str = "PASSWORD") -> str:
    lines = "".join(f"{step}{clause}\n" for clause in clauses)
    value = f"{word} '{secret}'" if word.endswith("PASSWORD") else f"{word} {secret}"
    return f"CREATE USER app_{len(clauses)} WITH\n{lines}{step}{value};\n"


def _netrc(pairs: list[str], secret: str, step: str = "\t", *, one_line: bool = False) -> str:
    if one_line:
        return f"machine db.example.com {' '.join(pairs)} password {secret}\n"
    lines = "".join(f"{step}{pair}\n" for pair in pairs)
    return f"machine db.example.com\n{lines}{step}password {secret}\n"


_LONG_SQL = [_CLAUSES[i % len(_CLAUSES)] for i in range(60)]
_LONG_NETRC = [_PAIRS[i % len(_PAIRS)] for i in range(70)]


@pytest.mark.parametrize(("construct", "value"), [
    # more than 512 chars of clauses before PASSWORD: indented, flat, ENCRYPTED, IDENTIFIED BY
    (_sql(_LONG_SQL, S), f"PASSWORD '{STUB}'"),
    (_sql(_LONG_SQL, S, step=""), f"PASSWORD '{STUB}'"),
    (_sql(_LONG_SQL, S, word="ENCRYPTED PASSWORD"), f"ENCRYPTED PASSWORD '{STUB}'"),
    (_sql(_LONG_SQL, S, step="\t", word="IDENTIFIED BY"), f"IDENTIFIED BY {STUB}"),
    # a netrc entry of more than 512 chars of pairs: a tab, spaces, none, one line
    (_netrc(_LONG_NETRC, S), f"password {STUB}"),
    (_netrc(_LONG_NETRC, S, step="  "), f"password {STUB}"),
    (_netrc(_LONG_NETRC, S, step=""), f"password {STUB}"),
    (_netrc(_LONG_NETRC, S, one_line=True), f"password {STUB}"),
])
@pytest.mark.parametrize("around", [0, 6000], ids=["alone", "amid-prose"])
@pytest.mark.usefixtures("each_engine")
def test_a_password_far_under_its_head_is_withheld(construct: str, value: str, around: int) -> None:
    text = prose_filler(around, 3) + construct + prose_filler(around, 4)
    shown = _shown(text)
    assert S not in shown
    assert value in shown
    assert shown.count("\n") == text.count("\n")
    assert S not in shape(text, 100_000, format="text").text


@pytest.mark.parametrize("text", [
    # the statement ended before the clause: its ";", a blank line
    "CREATE USER bob WITH\n" + "".join(f"  {c}\n" for c in _LONG_SQL)
    + ";\n  PASSWORD 'x1Y2z3W4v5U6';\n",
    "ALTER ROLE bob\n" + "".join(f"  {c}\n" for c in _LONG_SQL) + "\n\n  PASSWORD 'x1Y2z3W4v5U6'\n",
    # prose that says create user, and a password lines on mid-sentence
    "Create user accounts for the team.\n" + prose_filler(3000, 5)
    + "The password 'x1Y2z3W4v5U6' is in the vault.\n",
    # a token that is no pair between the entry's opening and its password (prose)
    "the machine room is cold\n" + "".join(f"\t{p}\n" for p in _LONG_NETRC)
    + "\tcheck your password policy\n",
    "machine db.example.com\n" + "".join(f"\t{p}\n" for p in _LONG_NETRC)
    + "\tmacdef init\n\tpassword x1Y2z3W4v5U6\n",
])
@pytest.mark.usefixtures("each_engine")
def test_a_password_its_construct_does_not_reach_stays_shown(text: str) -> None:
    assert _shown(text) == text


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_CLAUSES), min_size=20, max_size=150),
       st.integers(0, 1 << 30), st.sampled_from(["", "  ", "\t"]),
       st.integers(0, 1000), st.integers(0, 1 << 16), st.integers(0, 50))
def test_property_a_long_statement_is_withheld_wherever_a_piece_is_cut(
    clauses: list[str], seed: int, step: str, before: int, inside: int, filler: int,
) -> None:
    """Random clauses (more than 512 chars of them), a seeded secret in the last, prose
    around sized so the text's first cut falls at any char of the statement: withheld by
    each trigger engine, every line kept."""
    secret = _secret(seed)
    text = cut_inside(_sql(clauses, secret, step), before, inside, filler)
    _withheld_by_each_engine(text, secret)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_PAIRS), min_size=30, max_size=200),
       st.integers(0, 1 << 30), st.sampled_from(["", "  ", "\t", " "]), st.booleans(),
       st.integers(0, 1000), st.integers(0, 1 << 16), st.integers(0, 50))
def test_property_a_long_netrc_entry_is_withheld_wherever_a_piece_is_cut(
    pairs: list[str], seed: int, step: str, one_line: bool, before: int, inside: int,
    filler: int,
) -> None:
    """Random netrc pairs (more than 512 chars of them), a token a line or on one line, then
    a seeded secret's ``password``: withheld wherever the first cut falls."""
    secret = _secret(seed)
    text = cut_inside(_netrc(pairs, secret, step, one_line=one_line), before, inside, filler)
    _withheld_by_each_engine(text, secret)


def _withheld_by_each_engine(text: str, secret: str) -> None:
    for engine in trigger_engines():
        with using_engine(engine):
            shown = _shown(text)
        assert secret not in shown
        assert shown.count("\n") == text.count("\n")
