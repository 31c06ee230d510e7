"""A long value's entropy told by its parts' distinct chars (``families._parts_hold``).

Found by ``bench/fuzz_linear.py``'s ``fcm-glued`` (FCM keys glued end to end, 375x prose,
issue 23): each key's value, 140 chars and more, was between the bounds its length and
distinct chars give, so its chars were counted (``Counter``), twice or more a key. A text's
distribution is the mix of its parts', and entropy is concave: the text holds at least the
mean of what its parts hold, each told by its own distinct chars. These check that every
answer is still the count's: ``not entropy(value) < floor``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import families
from elision.redact.families import at_least, enough, entropy

#: The entropy floors the families ask for, and a few about them.
FLOORS = sorted({f.entropy for f in families.FAMILIES if f.entropy is not None} | {0.5, 5.5})

#: Values whose parts differ: a skewed head and a random tail, a few chars repeated, a
#: run of one char, each from 1 to 600 chars (past several parts of _COUNT_EACH).
_ALPHABETS = ["ab", "abc0", "abcdefgh12", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
              "0123456789+/", "A"]


@st.composite
def values(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.tuples(st.sampled_from(_ALPHABETS), st.integers(1, 200)),
                           min_size=1, max_size=4))
    return "".join(draw(st.text(alphabet=alphabet, min_size=size, max_size=size))
                   for alphabet, size in pieces)


@settings(max_examples=300, deadline=None)
@given(batch=st.lists(values(), min_size=1, max_size=4), floor=st.sampled_from(FLOORS))
def test_at_least_and_enough_are_the_counts_answer(batch: list[str], floor: float) -> None:
    counted = [not entropy(value) < floor for value in batch]
    assert at_least(floor, batch) == counted
    assert [enough(floor, value) for value in batch] == counted


@pytest.mark.parametrize(("value", "floor", "held"), [
    # An FCM key's value: 44 distinct in 210, between the whole's bounds; its parts tell it.
    ("AAAAbbbbbbb:APA91b" + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v" * 3,
     3.0, True),
    # Random-looking parts, then a long run of one char: the mean is under the floor.
    ("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+/" + "A" * 400, 3.0, False),
    # Each part of a few chars only: no part tells it, the count does.
    ("ab" * 200, 1.0, True),
])
def test_a_long_value_is_judged_as_its_count_judges_it(value: str, floor: float,
                                                       held: bool) -> None:
    assert (not entropy(value) < floor) is held
    assert at_least(floor, [value]) == [held]
    assert enough(floor, value) is held


@settings(max_examples=200, deadline=None)
@given(value=values())
def test_the_parts_never_tell_more_than_the_entropy(value: str) -> None:
    """Concavity: the parts' weighted least never passes the whole's entropy (each
    ``True`` the bound gives is one the count gives)."""
    assert not families._parts_hold(value, entropy(value) + 1e-6)
