"""A Markdown table in JSON-in-JSON, or in a JSON string whose table the trigger search did not
know (docs/design.md, "Markdown tables"): each showed its credential cells by the routes named
below. Found on the keyleak2 session's "Not yet" list; each case was red on the code before.

- A table a level of JSON-in-JSON down or deeper (``{"outer": "{\\"text\\": \\"| name |
  password |\\\\n|---|…"}``): every route. The whole text's lined copy read only ``\\n`` as a
  line break (``\\\\n`` left a backslash on each row, so no delimiter row was one), and a
  walked string that holds JSON was read only for tables with plain line breaks.
- A table whose delimiter row does not open with ``|`` (``name | password`` over ``--- |
  ---``) in a JSON string: ``redact_text`` of the JSON (the lined copy looked for ``\\n|``
  alone), and a level down every route.
- A table whose first delimiter cell is ``|-|`` or ``|--|`` (or ``| - |``): the walk (no
  trigger, so the string was never judged; ``|--`` alone opens a ``tree`` listing's lines).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import mdtables, redact_text, redact_value
from elision.redact.generic import opaque
from redact.test_redact_tables_in_strings import shown as routes_showing

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"


def piped(header: list[str], rows: list[list[str]], delimiter: str = "---") -> str:
    lines = [header, [delimiter] * len(header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines) + "\n"


def bare(header: list[str], rows: list[list[str]], delimiter: str = "---") -> str:
    """A table whose rows, its delimiter row too, do not open with a ``|``."""
    lines = [header, [delimiter] * len(header), *rows]
    return "\n".join(" | ".join(cells) for cells in lines)


def nested(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = {"outer": json.dumps(value)}
    return value


def shown(value: Any, secret: str) -> list[str]:
    """The routes that show ``secret``; a whole text's output must still parse as JSON (a
    stub never eats a string's closing quote)."""
    json.loads(redact_text(json.dumps(value)).value)
    return routes_showing(value, secret)


@pytest.mark.parametrize(
    "value",
    [
        nested({"text": piped(["name", "password"], [["bob", S]])}, 1),
        nested({"text": piped(["name", "password"], [["bob", S]])}, 2),
        nested({"text": piped(["name", "password"], [["bob", S]])}, 4),
        nested({"text": piped(["Key", "Value"], [["password", S]])}, 2),
        nested({"content": [{"type": "text", "text": piped(["user", "api_key"],
                                                           [["ada", S]], ":--")}]}, 2),
        # A table whose delimiter row does not open with "|": as it is and a level down.
        {"text": bare(["name", "password"], [["bob", S]])},
        {"text": bare(["name", "password"], [["bob", S]], ":--")},
        nested({"text": bare(["name", "password"], [["bob", S]])}, 1),
        # A first delimiter cell of one or two dashes, closed or spaced.
        {"text": piped(["name", "password"], [["bob", S]]).replace("| --- | --- |", "|-|-|")},
        {"text": piped(["name", "password"], [["bob", S]]).replace("| --- | --- |",
                                                                    "|--|--|")},
        {"text": piped(["name", "password"], [["bob", S]], "-")},
        {"text": piped(["name", "password"], [["bob", S]], "--")},
        nested({"text": piped(["Key", "Value"], [["password", S]], "-")}, 1),
    ],
)
def test_a_table_deep_in_json_withholds_its_credential_cells(value: Any) -> None:
    assert shown(value, S) == []


@pytest.mark.parametrize(
    "value",
    [
        nested({"text": piped(["field", "type"], [["password", "string"]])}, 2),  # a schema
        nested({"text": piped(["name", "password"], [["bob", "********"]], "-")}, 1),
        {"text": bare(["a", "b"], [["c", "d"]])},
        # A tree listing and a YAML block scalar's "|-": no table, nothing withheld.
        nested({"text": ".\n|-- src\n|   |-- main.py\n|-- tests\n"}, 1),
        {"text": "script: |-\n  echo hi\n---\nname: x"},
    ],
)
def test_what_is_no_credential_table_stays_shown(value: Any) -> None:
    body = json.dumps(value)
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()
    assert redact_text(body).withheld == ()


def test_a_quoted_cell_before_a_comma_does_not_end_its_table() -> None:
    """The lined copy reads a quote that closes the table's string as a line break, not a
    cell's own (``\\"al\\", b``: written with a backslash more)."""
    text = piped(["name", "password"], [['"al", b', S], ["c", S[::-1]]])
    out = redact_text(json.dumps({"text": text})).value
    assert S not in out and S[::-1] not in out


_CELL = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    before=st.lists(_CELL, max_size=2),
    after=st.lists(_CELL, max_size=2),
    name=st.sampled_from(["password", "api_key", "client_secret", "DB_PASSWORD"]),
    levels=st.integers(min_value=0, max_value=4),
    rows=st.integers(min_value=0, max_value=3),
    delimiter=st.sampled_from(["-", "--", "---", ":---", "---:", ":-:"]),
    pipes=st.booleans(),
    crlf=st.booleans(),
)
def test_any_table_at_any_depth_hides_its_secret_column(
    seed: int, before: list[str], after: list[str], name: str, levels: int, rows: int,
    delimiter: str, pipes: bool, crlf: bool,
) -> None:
    """A random table (random columns around the credential's, random rows before its, a
    random delimiter, piped or not, CRLF or not) at a random depth of JSON-in-JSON, a random
    secret in it."""
    rng = random.Random(seed)
    secret = "".join(rng.choice("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                     for _ in range(26)) + "7Q"
    if not opaque(secret):
        return
    if not pipes and not before and not after:
        before = ["id"]  # a column alone and no pipe is no table
    header = [*before, name, *after]
    filler = [["x"] * len(header) for _ in range(rows)]
    make = piped if pipes else bare
    text = make(header, [*filler, [*before, secret, *after]], delimiter)
    if crlf:
        text = text.replace("\n", "\r\n")
    assert shown(nested({"text": text}, levels), secret) == []


@settings(max_examples=200, deadline=None)
@given(text=st.text('\\nr"|,}]: -ab\n', max_size=40).filter(lambda t: "\\\\" not in t))
def test_the_flat_copy_is_the_deep_copy_of_a_text_with_no_json_in_json(text: str) -> None:
    """A text with no ``\\\\`` is lined in C (``mdtables._lined_flat``): the same copy the
    regex's line at any depth makes, a Python call an escape."""
    assert mdtables._lined_flat(text) == mdtables._lined(text, 1)


# The leakmisc helper (docs/design.md's "Not yet" for Markdown tables): a delimiter row with
# no leading "|" whose first cell is five dashes or more, and a row outside any table whose
# name opens with a digit or a "-". Each case marked red was red on the code before.

def tight(header: list[str], rows: list[list[str]], delimiter: str) -> str:
    """A table whose rows do not open with ``|`` but close with one, its cells unspaced
    (``name|password|`` over ``-----|-----|``): its first cell's dashes then ``|``."""
    lines = [header, [delimiter] * len(header), *rows]
    return "\n".join("|".join(cells) + "|" for cells in lines) + "\n"


@pytest.mark.parametrize(
    "value",
    [
        {"text": tight(["name", "password"], [["bob", S]], "-----")},  # the brief's: red
        {"text": tight(["name", "password"], [["bob", S]], "-" * 12)},  # red before
        {"text": tight(["user", "api_key"], [["ada", S]], ":" + "-" * 30 + ":")},  # red
        {"text": tight(["Key", "Value"], [["password", S]], "--------")},  # key/value: red
        nested({"text": tight(["name", "password"], [["bob", S]], "-----")}, 1),  # red
        {"text": "Users:\n" + tight(["name", "password"], [["bob", S]], "------:")},  # red
        # Its header and rows spaced, the delimiter's cells not (``-----|-----``): red
        {"text": "name | password |\n-----|-----|\nbob | " + S + " |\n"},
    ],
)
def test_a_table_whose_first_delimiter_cell_is_five_dashes_or_more_withholds(
    value: Any,
) -> None:
    assert shown(value, S) == []


@pytest.mark.parametrize(
    "value",
    [
        # A rule of five dashes or more on a line of its own is no delimiter row.
        {"text": "name | password\n-----\nbob | hunter2x\n"},
        {"text": "Notes\n----------\nThe password is in the vault.\n"},
        nested({"text": "a | b\n-----\n" + "-" * 40 + "\nc | d\n"}, 1),
        # A table of five-dash delimiters that names nothing: nothing withheld, and a text
        # of many such one-row tables is no dense text.
        {"text": tight(["a", "b"], [["1", "2"]], "-----") * 150},
        # A schema's table under the longer delimiter stays shown as under a short one.
        {"text": tight(["field", "type"], [["password", "string"]], "--------")},
    ],
)
def test_a_rule_or_a_table_naming_nothing_under_long_dashes_stays_shown(value: Any) -> None:
    body = json.dumps(value)
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()
    assert redact_text(body).withheld == ()


@pytest.mark.parametrize(
    ("row", "withheld"),
    [
        (f"| 2fa_secret | {S} |", True),  # a name that opens with a digit: red before
        (f"| 1password | {S} |", True),  # red before
        (f"| -password | {S} |", True),  # a flag's name: red before
        (f"| --api-key | {S} |", True),  # red before
        (f"   | --db-password | {S} |", True),  # three spaces before it: red before
        (f"    | --db-password | {S} |", False),  # four: code, as CommonMark reads it
        ("| --password | The password to log in with |", False),  # it describes the flag
        ("| 2 | 3 |", False),  # numbers name nothing
        ("|-- src\n|   |-- main.py", False),  # a tree listing
        (f"| 2fa | {S} |", False),  # no credential's name
    ],
)
def test_a_loose_row_whose_name_opens_with_a_digit_or_a_dash(row: str, withheld: bool) -> None:
    """A row of two cells outside any table, in a whole text (its first line and a later
    one), judged as the member so named."""
    for text in (row + "\n", f"Settings:\n{row}\nmore\n"):
        done = redact_text(text)
        if withheld:
            assert S not in done.value
        else:
            assert done.value == text


_LONG = st.builds(lambda left, dashes, right: left + "-" * dashes + right,
                  st.sampled_from(["", ":"]), st.integers(5, 32), st.sampled_from(["", ":"]))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["password", "api_key", "client_secret", "DB_PASSWORD"]),
    before=st.lists(_CELL, max_size=2),
    delimiter=_LONG,
    levels=st.integers(min_value=0, max_value=2),
    make=st.sampled_from([tight, bare]),
)
def test_any_table_under_a_long_first_delimiter_cell_hides_its_secret(
    seed: int, name: str, before: list[str], delimiter: str, levels: int, make: Any,
) -> None:
    """A random table whose delimiter row does not open with ``|``, its first cell of 5 to
    32 dashes (a colon either side or not), at a random depth of JSON-in-JSON."""
    rng = random.Random(seed)
    secret = "".join(rng.choice("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                     for _ in range(26)) + "7Q"
    if not opaque(secret):
        return
    header = [*(before or ["id"]), name]
    text = make(header, [[*(before or ["1"]), secret]], delimiter)
    assert shown(nested({"text": text}, levels), secret) == []


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["2fa_secret", "1password", "-password", "--api-key",
                             "0auth_token", "--client-secret", "3des_key"]),
       indent=st.integers(0, 3), seed=st.integers(0, 2**32 - 1),
       lines=st.lists(st.sampled_from(["text", "| a | b |", "|-- x", "x |- y", ""]),
                      max_size=4))
def test_any_loose_row_named_so_hides_its_secret(
    name: str, indent: int, seed: int, lines: list[str]
) -> None:
    """Such a row among random lines (other rows, tree lines, YAML's ``|-``), indented up
    to three spaces, a random secret: withheld as its ASCII ``name=S`` is."""
    rng = random.Random(seed)
    secret = "".join(rng.choice("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                     for _ in range(26)) + "7Q"
    at = rng.randint(0, len(lines))
    text = "\n".join([*lines[:at], " " * indent + f"| {name} | {secret} |", *lines[at:]])
    assert (secret in redact_text(text).value) == (secret in redact_text(
        f"{name}={secret}").value)
