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
