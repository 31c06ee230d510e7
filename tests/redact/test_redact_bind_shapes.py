"""A piece of queries with bind parameters is judged by its shapes, as its loop judges it
(issue 23).

Found by ``bench/redact.py --worst sql-bind-params`` (192 ms a MB, 244x prose, on the fifth
session's merged head): helper perfpairs saw that ``generic._shaped``, which judges a
piece's repeated shapes together, gave up on every piece of ``UPDATE u SET password =
:password WHERE id = :id;`` lines, because the value ``:password`` runs into the next name
word (its own ``password``) and a shape alone could not tell where it ends: each piece's
every name word went through the word loop of ``find_assignments``. Now such a shape is told
with the next word and its text after (``generic._shape_run_on``), where that reading shows
the value and ends its name before the next word; a withheld value that runs on is still the
loop's. What is withheld must be what the loop withholds (a differential over drawn bind
parameter shapes) and a query's bind parameter stays shown, a password after ``:`` withheld
(tests/redact/test_redact_bind_parameters.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import generic
from elision.redact.rules import Span
from support.calls import python_calls


def _by_loop(text: str) -> list[Span]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_SHAPES", False)
        return generic.find_assignments(text)


# A statement's parts, each hostile: bind parameters (named after a credential's word, a
# place's number, or a password after ``:`` or ``@``), separators spaced and not, names
# glued to the value, and the words and line ends between statements.
_PARTS = st.sampled_from([
    "UPDATE u SET ", "password", "new_password", "pwd", "token", " = ", "=", " ", ":", "@",
    ":password", "@p1", ":new_password", ":S", "@lohomora", ":hunter2x", "@password",
    ":PASSWORD", ":param2", "_", "x", " WHERE id = :id;", ";", "\n", "\t", "-", "--password ",
    "'", '"', "password=:S", "password = :password", "password=:new_password", "=abc123xyz",
])


@st.composite
def _queries(draw: st.DrawFn) -> str:
    unit = "".join(draw(st.lists(_PARTS, min_size=1, max_size=10)))
    return unit * draw(st.integers(1, 12)) + draw(_PARTS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_queries())
@example("UPDATE u SET password = :password WHERE id = :id;\n" * 12)  # the bench's row
@example("password=:new_password WHERE id = @p1;\n" * 10)
@example("password = :password\n" * 9)  # the last value runs to the text's end
@example("password = :xpassword \n" * 9)  # a withheld value holding a name word
@example("password = :xpassword=abc123xyz \n" * 9)  # ... an assignment's, read in it alone
@example("password = @lohomora password = :S password = :password " * 4)
@example("password = :password_token=abc123xyz " * 9)  # the name runs into the next word
def test_a_piece_of_queries_is_read_by_its_shapes_as_by_its_loop(text: str) -> None:
    assert generic.find_assignments(text) == _by_loop(text)


@pytest.mark.parametrize("line", [
    "UPDATE u SET password = :password WHERE id = :id;\n",  # bench/fuzz_linear.py's row
    "UPDATE u SET password=:new_password WHERE id = @p1;\n",  # glued, a name's other word
    "UPDATE u SET password = @password WHERE id = @p1;\n",
    "UPDATE u SET token = :token WHERE id = :id;\n",
    "UPDATE u SET PASSWORD = :PASSWORD WHERE id = :id;\n",
])
def test_a_piece_of_bind_parameters_is_read_by_its_shapes(line: str) -> None:
    """Red before: each such piece fell to the word loop (``_shaped`` said ``None``)."""
    piece = line * 16
    assert generic._shaped(piece, generic._Reach(piece), {}) is not None
    assert generic.find_assignments(piece) == _by_loop(piece) == []


@pytest.mark.parametrize("line", [
    "UPDATE u SET password = @lohomora WHERE id = :id;\n",  # a password after ``@``
    "UPDATE u SET password = :hunter2x WHERE id = :id;\n",  # ... and after ``:``
    "UPDATE u SET password = :xpassword WHERE id = :id;\n",  # a name word inside it
])
def test_a_password_after_a_bind_sign_stays_withheld(line: str) -> None:
    piece = line * 16
    found = generic.find_assignments(piece)
    assert found == _by_loop(piece)
    assert len(found) == 16


@pytest.mark.parametrize("line", [
    "UPDATE u SET password = :password WHERE id = :id;\n",
    "UPDATE u SET password=:new_password WHERE id = @p1;\n",
])
def test_a_piece_of_bind_parameters_costs_few_python_calls(line: str) -> None:
    """1.9 Python calls a line before in ``find_assignments`` (a 20-line piece: its words'
    loop), 0.85 now: the piece's few shapes are told once, its lines in C. The whole
    ``redact_text`` of 3,000 such lines: 6.8 calls a line before, 5.7 now (hyperscan; the
    regex passes 5.1 -> 3.9)."""
    piece = line * 20
    generic.find_assignments(piece)  # the shapes' answers kept, as a MB's later pieces find
    calls, found = python_calls(lambda: generic.find_assignments(piece))
    assert found == []
    assert calls / 20 <= 1.0
