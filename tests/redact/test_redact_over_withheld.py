"""What was withheld though it is no credential (issue 23's over-withholding, which fails safe
but hides what a reader needs), each red on the code before:

* An ISO 8601 timestamp after a generated run of letters in an ``Authorization:`` header
  (``Authorization: qwertyuiopasdfgh 2024-01-01T10:00:00Z``): the run is the credential, and
  the value after it was withheld with it as one that "may be a credential too" (letters and
  digits both: its ``T`` and ``Z``). A date alone was shown; the timestamp a log writes was not.
  Through a path's header (``GET /x/authorization: …``) the run and the timestamp's date and
  hour were withheld and its ``:00:00Z`` shown.
* A text dense in triggers whose match alone names nothing (design.md, "Density bound"): some
  100 one-row Markdown tables a 4 KB (each delimiter row ``|---|`` a trigger, so that a table
  inside a JSON string is read), or the words ``haiku`` and ``tofu`` (``iku `` and ``ofu ``
  are curl's switch groups before ``-u``, ``-sku``), was credential-dense: withheld whole,
  unread. Such a literal counts towards the bound only where its table's rows may name a
  credential or its group follows a ``-`` (:mod:`elision.redact.weak`); a text of such
  tables or commands that do is dense as before.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.redact import authheader, redact_text, redact_value, triggers, weak
from elision.redact.generic import TABLE_ROWS
from redact.test_redact_density_bound import ENGINES, judged_but_shown, runs_beside_credentials
from redact.test_redact_header_quote_leaks import _all_routes, _letters
from support.dense import assert_dense_hiding, assert_shown_whole
from support.engines import using_engine

# -- an ISO timestamp after a generated run ---------------------------------------------------

RUN = "qwertyuiopasdfgh"


_STAMPS = [
    "2024-01-01T10:00:00Z",  # the issue's own
    "2024-01-01T10:00:00.123456+02:00",
    "2024-01-01t10:00:00z",  # RFC 3339 allows either case
    "20240101T100000Z",  # the basic format (AWS's X-Amz-Date)
    "10:00:00Z",  # a time alone, in UTC
    "[2024-01-01T10:00:00Z]",  # in brackets, as a log writes it
    "2024-01-01T10:00:00Z.",  # a sentence's end
]
_LINES = [
    "Authorization: {run} {stamp}",
    "authorization: {run} {stamp} retry",
    '{{"Authorization": "{run} {stamp}"}}',
    "GET /x/authorization: {run} {stamp}",
]


# A path's header is a weak name's: a run of letters alone before a bracket is shown there
# (design.md, "Not yet"), so its bracketed stamp is no case of this.
@pytest.mark.parametrize(("line", "stamp"), [
    (line, stamp) for line in _LINES for stamp in _STAMPS
    if not (line.startswith("GET") and stamp.startswith("["))
])
def test_a_timestamp_after_a_generated_run_is_shown(line: str, stamp: str) -> None:
    text = line.format(run=RUN, stamp=stamp)
    for route, shown in _all_routes(text).items():
        assert RUN not in shown, (route, shown)
        assert stamp in shown, (route, shown)


@pytest.mark.parametrize(("line", "secret"), [
    # what may be a credential after the run is withheld with it, as before: a timestamp
    # glued to more, or letters and digits that only open like one
    ("Authorization: qwertyuiopasdfgh 2024-01-01T10:00:00Zab12cd34", "ab12cd34"),
    ("Authorization: qwertyuiopasdfgh 2024-01-01Tab12cd34ef", "ab12cd34ef"),
    ("Authorization: qwertyuiopasdfgh 1234T5678abcd", "5678abcd"),
    ("Authorization: qwertyuiopasdfgh ab12cd34 2024-01-01T10:00:00Z", "ab12cd34"),
    ("GET /x/authorization: qwertyuiopasdfgh 2024-01-01Tab12cd34ef", "ab12cd34ef"),
])
def test_what_only_looks_like_a_timestamp_is_withheld_as_before(line: str, secret: str) -> None:
    for route, shown in _all_routes(line).items():
        assert RUN not in shown and secret not in shown, (route, shown)


_INSTANTS = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2099, 12, 31))
_ZONES = st.sampled_from(["Z", "z", "+00:00", "-05:00", "+0530", "+02"])


@st.composite
def _stamps(draw: st.DrawFn) -> str:
    """An ISO 8601 / RFC 3339 timestamp as logs write one: extended or basic, seconds and
    their fraction or not, in any zone."""
    when = draw(_INSTANTS)
    basic = draw(st.booleans())
    date = when.strftime("%Y%m%d" if basic else "%Y-%m-%d")
    time = when.strftime("%H%M%S" if basic else "%H:%M:%S")
    if draw(st.booleans()):
        time += "." + f"{when.microsecond:06d}"[:draw(st.integers(1, 6))]
    return f"{date}{draw(st.sampled_from('Tt'))}{time}{draw(_ZONES)}"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 1 << 32), size=st.integers(16, 40), humps=st.integers(0, 2),
       stamp=_stamps())
def test_any_timestamp_after_any_generated_run_is_shown(
    seed: int, size: int, humps: int, stamp: str
) -> None:
    secret = _letters(seed, size, humps)
    assume(authheader.generated(secret))
    for route, shown in _all_routes(f"Authorization: {secret} {stamp}").items():
        assert secret not in shown, (route, shown)
        assert shown.endswith(f" {stamp}"), (route, shown)



# -- triggers that name nothing alone, many a window -------------------------------------------

WINDOW = triggers.DENSE_WINDOW
#: Texts of some 100 such triggers or more a window, none of them a credential's, each long
#: enough that more windows than the allowance would be dense.
_NAMING_NOTHING = [
    pytest.param("| a | b |\n|---|---|\n| 1 | 2 |\n", id="one-row-tables"),
    pytest.param("| id | n |\n|:-|-:|\n| 7 | 9 |\n\n", id="aligned-tables"),
    pytest.param('{"t": "| a |\\n|---|\\n| 1 |"}\n', id="tables-in-json-strings"),
    pytest.param("haiku tofu ", id="haiku-tofu"),
    pytest.param("a haiku of tofu and kungfu ", id="loan-words"),
    # The delimiter rows leakenc made triggers (a first cell of one or two dashes, a row
    # that does not open with `|`): the regex passes read them from the wrong start and
    # counted every one, so the text was withheld whole there, shown by hyperscan.
    pytest.param("| a | b |\n|-|-|\n| 1 | 2 |\n", id="one-dash-cells"),
    pytest.param("a | b\n--|--\n1 | 2\n\n", id="loose-rows"),
    pytest.param("a | b\n:--:|--\n1 | 2\n\n", id="loose-aligned-rows"),
    pytest.param('{"t": "a | b\\n--- | ---\\n1 | 2"}\n', id="loose-rows-in-json-strings"),
]


def _long(unit: str) -> str:
    return unit * (8 * WINDOW // len(unit))


@pytest.mark.parametrize("unit", _NAMING_NOTHING)
@pytest.mark.usefixtures("each_engine")
def test_a_text_dense_in_triggers_that_name_nothing_is_shown(unit: str) -> None:
    assert_shown_whole(_long(unit))


@pytest.mark.parametrize(("unit", "dense"), [
    ("| a | b |\n|---|---|\n| 1 | 2 |\n", False),
    ("haiku tofu ", False),
    ("|password|\n|---|\n|Zx8Qw3Er5Ty7|\n", True),  # naming a credential: as before
])
@pytest.mark.usefixtures("each_engine")
def test_a_json_string_of_such_text_is_dense_only_where_it_names_credentials(
    unit: str, dense: bool
) -> None:
    # The walk's trigger search of the serialization counts them too (its escaped breaks).
    body = orjson.dumps({"id": 1, "note": _long(unit)})
    done = redact_value(orjson.loads(body), body=body)
    assert [e["reason"] for e in done.withheld] == (["credential-dense"] if dense else [])
    assert "Zx8Qw3Er5Ty7" not in orjson.dumps(done.value).decode()


@pytest.mark.parametrize("value", [
    "curl\t-sku admin:Zx8Qw3Er5Ty7",  # its tab is a serialization's "\\t"
    "x\ncurl\t-vsSLku a:Zx8Qw3Er5Ty7",
    "curl -sku admin:Zx8Qw3Er5Ty7",
])
@pytest.mark.usefixtures("each_engine")
def test_a_switch_group_after_a_tab_in_a_json_string_is_withheld(value: str) -> None:
    """Found writing the regex passes' switch-group search (from its ``-``): a tab before it
    is ``\\t`` in the serialization the walk's triggers read, and the string was not judged
    (red with the search's white space a real tab's only)."""
    body = orjson.dumps({"cmd": value})
    done = redact_value(orjson.loads(body), body=body)
    assert "Zx8Qw3Er5Ty7" not in orjson.dumps(done.value).decode()


#: The same forms naming a credential: still dense (the bound's cost is what they would cost).
_DENSE_CREDENTIALS = [
    pytest.param("|password|\n|---|\n|Zx8Qw3Er5Ty7|\n", id="tables"),
    pytest.param("|k|v|\n|---|-|\n|api_key|Zx8Qw3Er5Ty7|\n", id="pairs"),
    pytest.param('{"t": "|token|\\n|---|\\n|Zx8Qw3Er5Ty7|"}\n', id="json-strings"),
    pytest.param("curl -sku a:Zx8Qw3Er5Ty7\n", id="curl-groups"),
    pytest.param("curl -vsSLku a:Zx8Qw3Er5Ty7\n", id="curl-long-groups"),
    pytest.param("password | x\n--|--\nZx8Qw3Er5Ty7 | 1\n\n", id="loose-rows"),
]


@pytest.mark.parametrize("unit", _DENSE_CREDENTIALS)
@pytest.mark.usefixtures("each_engine")
def test_the_same_forms_naming_credentials_are_dense_as_before(unit: str) -> None:
    assert_dense_hiding(_long(unit), "Zx8Qw3Er5Ty7")


#: Each filler made some 1 KB long: a run of 17 to 24 of them passes the bound's allowance
#: (four windows), were its triggers counted.
_FILLERS = st.sampled_from([
    unit * (1024 // len(unit)) for unit in
    ("haiku ", "tofu ", "kungfu ", "| a | b |\n|---|---|\n| 1 | 2 |\n", "|-|\n", "sku ")
])


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=10, deadline=None)
@given(text=runs_beside_credentials(_FILLERS, st.integers(17, 24)))
def test_the_bound_never_shows_what_the_judge_withholds_among_such_words(
    engine: Any, text: str
) -> None:
    """Real secrets of every kind among runs of ``haiku``, ``tofu`` and one-row tables, long
    enough to pass the bound's allowance were they counted."""
    with using_engine(engine):
        assert not judged_but_shown(text)


@pytest.mark.usefixtures("each_engine")
def test_rows_naming_a_credential_are_each_withheld_not_the_text_whole() -> None:
    """Found merging leakenc (new delimiter-row literals, one a bare ``|`` after its dashes)
    into overwith (the regex passes' table search, from the ``|``): a literal's empty rest
    matched every row's opening ``|``, so under the regex passes key/value rows (no delimiter
    row at all) counted as table triggers and the text was withheld whole as dense, where
    hyperscan withheld each value."""
    rows = 8 * WINDOW // 24  # more dense windows than the allowance, were they counted
    done = redact_text("| password | hunter2x |\n" * rows)
    assert len(done.withheld) == rows
    assert "hunter2x" not in str(done.value)


def test_the_regex_table_search_matches_each_delimiter_literal_whole_and_no_plain_row() -> None:
    search = re.compile(weak.table_pattern())
    for literal in TABLE_ROWS:
        # A line's start alone (weak.PREFIXES) is a match only where its line is a
        # delimiter row; its ruled line is none.
        rest = "| --\n" if literal in weak.PREFIXES else "z"
        if literal in weak.PREFIXES:
            assert search.search("q" + literal + "z") is None, literal
        found = search.search("q" + literal + rest)
        assert found is not None, literal
        assert found.end() == 1 + len(literal), literal  # read whole
        breaks = 2 if literal.startswith("\\n") else 1
        # On the delimiter row's line, at its first char past the row's indent (spaces,
        # tabs or JSON's "\\t", up to 3: leaksb's rows, their indent looked behind).
        indent = re.match(r"(?: |\t|\\t)*", literal[breaks:]).end()
        assert indent <= 6, literal
        assert found.start() == 1 + breaks + indent, literal
    for plain in ("a\n| password | x |\n", "a\\n| b | c |", "a\n|x|\n", "a\n:b\n-c\n"):
        assert search.search(plain) is None, plain
