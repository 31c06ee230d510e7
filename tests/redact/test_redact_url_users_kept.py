"""A URL's narrowing kept for its token, and a URL's user told by its distinct chars.

Found by ``bench/fuzz_linear.py``'s ``url-users`` (``https://Xq7vR2mK9pL4wT8n@h/`` again and
again, 37,449 a MB: 312x prose, issue 23): each URL's span was narrowed anew (four regex calls
and up to two classifications), and each user's "letters and digits both" asked a char at a
time. The narrowing is now kept for a short token (``urls._NARROWED``), keyed by what it reads:
the token, the char before it and its trigger's place in it. These tests check that a kept
answer is the one the code works out afresh, whatever was asked before it, and that a user is
judged generated exactly as ``entropy(user) >= 3.0`` judged it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import families, redact_text, urls
from elision.redact.families import enough, entropy

#: Pieces of URLs whose narrowing differs by what comes before the scheme and where the
#: trigger is: a user alone, a password, a NAME= before the scheme, a query's credential.
_PIECES = ["https://", "http://", "postgres://", "Xq7vR2mK9pL4wT8n", "aaaaaaaaaaaaaaaa1",
           "u:p4ssw0rd", "@h/", "@db.example/app", "DATABASE_URL=", "link=", "x", "?sig=Zm9v",
           "&sv=2022", "?token=s3cr3tval", ":\\/\\/", "%3a%2f%2f", "%40", "'", "(", " ", "\n"]


@st.composite
def url_texts(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=24)))


def _fresh(text: str) -> Any:
    urls._NARROWED.clear()
    return urls.find_signed_urls(text)


@settings(max_examples=150, deadline=None)
@given(first=url_texts(), then=url_texts())
def test_a_kept_narrowing_is_the_one_worked_out_afresh(first: str, then: str) -> None:
    """Asked after any other text (its tokens' answers kept), a text's spans are those of a
    process that never saw one: the key holds all that the narrowing reads."""
    urls.find_signed_urls(first)
    warm = urls.find_signed_urls(then)
    assert warm == _fresh(then)


@pytest.mark.parametrize("text", [
    # The same token after a stop and at the text's start: the scheme's look-behind reads
    # the char before the token.
    "https://Xq7vR2mK9pL4wT8n@h/ https://Xq7vR2mK9pL4wT8n@h/",
    # A NAME= before the scheme stays; the same URL alone is withheld from its scheme.
    "link=https://u:p4ssw0rd@h/ https://u:p4ssw0rd@h/ link=https://u:p4ssw0rd@h/",
    # Tokens of one length narrowed at different places: a NAME= before one's scheme.
    "x=https://u:p4ssw0rd@h/ https://u:p4ssw0rd@h/ab x=https://u:p4ssw0rd@h/",
    # A user that is a name, then a generated one, in the same place.
    "https://deploybotdeploybot@h/ https://Xq7vR2mK9pL4wT8n@h/",
])
def test_repeated_urls_are_withheld_as_each_alone(text: str) -> None:
    urls._NARROWED.clear()
    together = redact_text(text)
    alone = []
    for token in text.split(" "):
        urls._NARROWED.clear()  # each as a process that never saw another
        alone.append(redact_text(token))
    assert together.value == " ".join(one.value for one in alone)
    assert [e["reason"] for e in together.withheld] == [
        e["reason"] for one in alone for e in one.withheld]


@settings(max_examples=300, deadline=None)
@given(value=st.text(alphabet="abcAB01xyz-_", max_size=80),
       floor=st.sampled_from([0.5, 2.0, 3.0, 3.5, 4.0]))
def test_enough_is_not_less_than_the_entropy(value: str, floor: float) -> None:
    assert enough(floor, value) is (not entropy(value) < floor)


def test_enough_asks_the_entropy_where_the_bound_cannot_tell(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Told by the bound (``_told``) or counted: each answer is the count's."""
    monkeypatch.setattr(families, "_BOUNDED", False)
    for value in ["Xq7vR2mK9pL4wT8n", "aaaaaaaaaaaaaaab", "ab" * 8, ""]:
        assert enough(3.0, value) is (not entropy(value) < 3.0)


@pytest.mark.parametrize(("user", "withheld"), [
    ("Xq7vR2mK9pL4wT8n", True),  # letters and digits, 4 bits a char
    ("a1b2c3d4e5f6g7h8", True),  # 16 distinct: told by the bound alone
    ("deploybotdeploybot", False),  # letters alone: a name
    ("1234567890123456", False),  # digits alone: an id
    ("abc12abc12abc12ab", False),  # both, but 2.3 bits a char: counted, too few
    ("aaaaaaaaaaaaaaa1b", False),  # both, one char nearly all of it
])
def test_a_url_user_is_withheld_when_it_looks_generated(user: str, withheld: bool) -> None:
    got = redact_text(f"clone https://{user}@github.com/org/repo now")
    assert bool(got.withheld) is withheld
    assert (user in got.value) is not withheld
