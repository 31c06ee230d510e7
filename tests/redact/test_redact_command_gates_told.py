"""A text's command gates are told by one search of the ``password`` ones and a search each of
the rest (issue 23).

Found by a profile of ``bench/redact.py --worst assign-under-limit``: each piece's shapes
(``generic._shaped``) ended with a substring search for each of the 21 gates, a third of the
piece's own cost; the nine that open with ``password`` are one pattern now. Which texts name
a command must not change.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact.commands import COMMAND_GATES
from elision.redact.generic import _names_command

# Gates and their near misses, cut and glued: a gate may open or close at a part's edge.
_PARTS = st.sampled_from([
    *COMMAND_GATES, "password", "password=", "password ", " ", "'", '"', "\t", "\n", "\r", "x",
    "curl", "-u", "mysq", "login", "define", "jdbc:", "passwor", "d '",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=8).map("".join))
@example("password=hunter2 " + "x" * 23 + "\n")  # assign-under-limit's line: none
@example("passwor" + "d '")  # a gate across two parts
def test_a_command_is_told_as_by_each_gate(low: str) -> None:
    assert _names_command(low) == any(gate in low for gate in COMMAND_GATES)
