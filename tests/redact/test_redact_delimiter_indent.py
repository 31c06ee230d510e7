"""A Markdown table whose delimiter row is indented (`` |---|``, `` --- | ---``), spaced
with a tab in its first cell (``---\\t| ---``, ``|\\t---|``), or opened more than eight
spaces after its ``|`` (``|          ---|``): no trigger in a JSON string, so ``redact_value``
and ``shape()`` showed the column under a header whose names are aligned (``| token   |``:
no row's name closes a cell, ``generic.ROW_NAME_TRIGGERS``), and ``redact_text`` of the JSON
text showed the tab's (its escaped tables' reading took ``\\t`` for no white space). Found in
docs/design.md's "Not yet" (Markdown tables); each case marked red was red on the code
before.

A ruled or indented line that is no delimiter row (a YAML item, an SQL comment, a ``tree``
listing) stays shown, and a log of them beside credential words is not withheld as dense.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from redact.test_redact_tables_in_strings import shown as shown_in_a_string

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"
#: A header aligned to its widest cell: no name closes its cell, so the delimiter row is the
#: only trigger of the string.
HEADER = "| user | token    | note |"


def shown(text: str) -> list[str]:
    """The routes that show :data:`S` of a tool result whose string is ``text``, and of the
    text itself."""
    routes = shown_in_a_string({"text": text}, S)
    return [*routes, "redact_text of the text"] if S in redact_text(text).value else routes


def piped(delimiter: str, header: str = HEADER) -> str:
    return f"{header}\n{delimiter}\n| bob  | {S} | x    |\n"


def unpiped(delimiter: str) -> str:
    return f"user | token    | note\n{delimiter}\nbob  | {S} | x\n"


@pytest.mark.parametrize(
    "text",
    [
        piped(" |---|---|---|"),  # indented a space (red before)
        piped("   |---|---|---|"),  # three (red before)
        piped("  |:---|:---:|---:|"),  # aligned (red before)
        unpiped(" --- | --- | ---"),  # the brief's, not piped (red before)
        unpiped("   :---|---|---"),  # (red before)
        unpiped("  " + "-" * 40 + " | --- | ---"),  # indented and wide (red before)
        unpiped("---\t| --- | ---"),  # a tab closes the first cell (red before)
        unpiped("---\t\t|---|---"),  # (red before)
        piped("|\t---|---|---|"),  # a tab opens it (red before)
        piped("|---\t|---|---|"),  # (red before)
        piped("\t|---|---|---|"),  # indented by a tab (red before)
        piped("|" + " " * 9 + "---|---|---|"),  # nine spaces after the pipe (red before)
        piped("|" + " " * 40 + ":--|---|---|"),  # forty (red before)
        piped(" |" + " " * 12 + "---|---|---|"),  # indented, and twelve (red before)
        piped("|---|---|---|"),  # as before
        unpiped("--- | --- | ---"),  # as before
    ],
)
def test_an_indented_or_tabbed_delimiter_row_hides_its_tables_token(text: str,
                                                                    each_engine: object) -> None:
    assert shown(text) == []


_GAP = st.lists(st.sampled_from([" ", "\t"]), max_size=40).map("".join)


@given(
    indent=st.sampled_from(["", " ", "  ", "   ", "\t"]),
    pipe=st.booleans(),
    before=_GAP,
    dashes=st.integers(1, 60),
    colons=st.sampled_from([("", ""), (":", ""), ("", ":"), (":", ":")]),
    after=_GAP,
    name=st.sampled_from(["token", "api_key", "secret", "password", "API Key", "pwd"]),
    align=st.integers(2, 8),
)
@settings(max_examples=60, deadline=None)
def test_any_indent_or_spacing_of_the_delimiter_row_hides_the_column(
    indent: str, pipe: bool, before: str, dashes: int, colons: tuple[str, str], after: str,
    name: str, align: int,
) -> None:
    """A random delimiter row: indented up to three spaces or a tab, its first cell opened
    (where piped) and closed after any run of spaces and tabs, of any width; its header's
    credential name padded as an aligned table pads it. The column under it is withheld by
    every route."""
    left, right = colons
    # a row that does not open with a pipe is indented by ``indent`` alone: four spaces or
    # more before its first cell are CommonMark's code, no table
    cell = f"{before if pipe else ''}{left}{'-' * dashes}{right}{after}"
    padded = name + " " * align
    if pipe:
        text = (f"| user | {padded}| note |\n{indent}|{cell}|---|---|\n"
                f"| bob | {S} | x |\n")
    else:
        text = f"user | {padded}| note\n{indent}{cell}| --- | ---\nbob | {S} | x\n"
    assert shown(text) == []


#: Lines that open as an indented or spaced delimiter row does and are none: a YAML list, an
#: SQL comment, an indented rule, a ``tree`` listing, a table's row with an empty first cell.
NEAR_MISSES = "".join(
    f"2026-12-05 12:{i % 60:02d}:00 INFO rotated api key for tenant {i}; token cache flushed\n"
    f"  - password policy checked for user {i}\n"
    f"   -- token refresh skipped\n"
    f" {'-' * (3 + i % 50)}\n"
    f"  |-- secret_{i}.txt\n"
    f"|{' ' * (9 + i % 20)}| token {i} |\n"
    f"\t- api_key rotated\n"
    for i in range(300)
)


@pytest.mark.parametrize(
    "text",
    [
        NEAR_MISSES,  # no table, nothing dense
        "Results:\n   " + "-" * 40 + "\n   no password was set\n",
        "  --- | ---\n",  # a delimiter row with no header over it
        piped(" |---|---|---|", "| user | role     | note |").replace(S, "admin"),  # no name
    ],
)
def test_lines_that_open_as_such_a_row_stay_shown(text: str, each_engine: object) -> None:
    assert redact_text(text).withheld == ()
    body = json.dumps({"text": text})
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()
    assert redact_value({"text": text}).withheld == ()


def test_such_lines_cost_no_judging_a_line() -> None:
    """The new literals open every indented list item of two dashes, SQL comment and
    ``|`` after nine spaces: a match whose line is no delimiter row is dropped in the
    hyperscan scan's callback, a few calls a line, not a judge's."""
    from elision.redact.triggers import engine_name
    from support.calls import python_calls

    if engine_name() != "hyperscan":
        pytest.skip("the regex passes drop them by a look-ahead, no call")
    unit = ("token cache flushed\n   -- password policy checked\n  --- note\n"
            "|          | key |\n \t- item\n")
    lines = 5 * 400
    text = unit * (lines // 5)
    body = json.dumps({"text": text}).encode()
    calls, done = python_calls(lambda: redact_value(json.loads(body), body=body))
    assert done.withheld == ()
    assert calls < lines * 10, calls
    calls, kept = python_calls(lambda: redact_text(text))
    assert kept.withheld == ()
    assert calls < lines * 4, calls
