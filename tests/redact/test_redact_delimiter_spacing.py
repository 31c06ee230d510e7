"""A Markdown table whose delimiter row's first cell is wider than 32 dashes (``---…---|``),
closed after two spaces or more (``---  |``, ``|-  |``) or opened after two or more
(``|   ---|``) was no trigger in a JSON string: ``redact_value`` and ``shape()`` showed the
``password`` column under it. Found in docs/design.md's "Not yet" (Markdown tables); each
case here was red on the code before through those routes (``redact_text`` of the body read
the table whole, as it does still).

A ruled line (``-----…``, ``--  note``) opens as those literals do: it stays shown, and a log
of them beside credential words is not withheld as dense.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from redact.test_redact_tables_in_strings import shown as shown_in_a_string

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"


def shown(text: str) -> list[str]:
    """The routes that show :data:`S` of a tool result whose string is ``text``, and of the
    text itself."""
    routes = shown_in_a_string({"text": text}, S)
    return [*routes, "redact_text of the text"] if S in redact_text(text).value else routes


def unpiped(first_cell: str) -> str:
    return f"name | password | note\n{first_cell}| --- | ---\nbob | {S} | x\n"


def piped(first_cell: str) -> str:
    return f"| name | password | note |\n|{first_cell}|---|---|\n| bob | {S} | x |\n"


@pytest.mark.parametrize(
    "text",
    [
        unpiped("-" * 33),  # one dash past the literals' 32
        unpiped("-" * 200),  # a cell as wide as a wide header's name
        unpiped(":" + "-" * 40 + ":"),  # centred
        unpiped("---  "),  # closed after two spaces
        unpiped("-" * 40 + "     "),  # both
        unpiped(":-   "),
        piped("---  "),  # piped, closed after two spaces
        piped("-  "),
        piped("  ---"),  # opened after two spaces
        piped("        :--:"),  # after eight
        piped("   ---   "),
    ],
)
def test_a_wide_or_spaced_delimiter_row_hides_its_tables_password(text: str) -> None:
    assert shown(text) == []


@given(
    left=st.sampled_from(["", ":"]),
    dashes=st.integers(1, 300),
    right=st.sampled_from(["", ":"]),
    gap=st.integers(0, 40),
)
@settings(max_examples=40, deadline=None)
def test_any_dash_count_or_closing_gap_hides_the_password(
    left: str, dashes: int, right: str, gap: int
) -> None:
    assert shown(unpiped(f"{left}{'-' * dashes}{right}{' ' * gap}")) == []


@given(
    before=st.integers(0, 8),
    dashes=st.integers(1, 300),
    after=st.integers(0, 40),
)
@settings(max_examples=40, deadline=None)
def test_a_piped_first_cell_of_any_width_or_closing_gap_hides_the_password(
    before: int, dashes: int, after: int
) -> None:
    assert shown(piped(f"{' ' * before}{'-' * dashes}{' ' * after}")) == []


RULED_LOG = "".join(
    f"2026-12-05 12:{i % 60:02d}:00 INFO rotated api key for tenant {i}; token cache flushed\n"
    f"{'-' * (33 + i % 50)}\n"
    f"--  password policy checked for user {i}\n"
    f"|---| done\n"
    for i in range(400)
)


@pytest.mark.parametrize(
    "text",
    [
        RULED_LOG,  # rules and comments beside credential words: no table, nothing dense
        "Results\n" + "=" * 40 + "\n" + "-" * 80 + "\nno password was set\n",
        "-  a list item, two spaces\n-  password reset\n" * 200,
    ],
)
def test_ruled_lines_stay_shown(text: str) -> None:
    assert redact_text(text).withheld == ()
    body = json.dumps({"text": text})
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()
    assert redact_value({"text": text}).withheld == ()


def test_ruled_lines_cost_no_judging_a_line() -> None:
    """The prefix literals open every ruled line of 33 dashes or more, ``--  `` comment and
    ``-  `` item too: as plain triggers, a MB of them was judged a line each (10 -> 186 ms a
    MB, 630 in JSON; found by this fix's bench). A match whose line is no delimiter row is
    dropped in the scan's callback: a few calls a line, not a judge's. Hyperscan's seam: the
    regex passes drop them by a look-ahead (test_redact_over_withheld's table search)."""
    from elision.redact.triggers import engine_name
    from support.calls import python_calls

    if engine_name() != "hyperscan":
        pytest.skip("the regex passes' own cost is some 130 calls a line, as before")
    unit = ("token cache flushed\n" + "-" * 60 + "\n--  password policy checked\n"
            "-  key rotated\n|  --- note\n")
    lines = 5 * 400
    text = unit * (lines // 5)
    body = json.dumps({"text": text}).encode()
    calls, done = python_calls(lambda: redact_value(json.loads(body), body=body))
    assert done.withheld == ()
    assert calls < lines * 10, calls  # some 5 a line; judged a line each, 40-75
    calls, kept = python_calls(lambda: redact_text(text))
    assert kept.withheld == ()
    assert calls < lines * 4, calls  # some 2 a line; judged a line each, 6-7
