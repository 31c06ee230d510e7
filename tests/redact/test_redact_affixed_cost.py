"""A chance affixed name (``key7`` inside an ``sk-`` key, ``jwT1`` in random base64) costs
nothing it does not withhold.

Found profiling issue 23's worst cases (the ndjcost session): after the affixed names came in,
NDJSON with an ``sk-`` key a line went 5.5x -> 8.2x prose and a random base64 line 3.8x ->
4.9x. One ``key7`` in one record's key made the keyword search refuse its whole 64 KB piece
(``keywords.located``: an affixed literal was a generic name wherever it was), which was then
judged a line at a time; eleven chance literals in a MB of base64 each sent the keyword search
back over all of it. Now a match is an affixed name, then its assignment; and where one is
found that :data:`~elision.redact.generic.AFFIX_PATTERNS` do not confirm, the piece goes on.
"""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import generic, keywords
from support.engines import hyperscan_only

pytestmark = hyperscan_only("the keyword search's databases are hyperscan's")


@pytest.mark.parametrize(
    ("piece", "located"),
    [
        # a chance affixed literal inside a key, which nothing assigns: read on
        ('{"id":1,"key":"sk-4hvk2l5ykey7a8e5"}\n{"id":2,"note":"plain"}\n', True),
        # the same after a JSON string's quote: a bare ``key`` is no credential's name
        ('{"id":1,"note":"x key7"}\n{"id":2,"note":"plain"}\n', True),
        ('{"sort_key_1":"x"}\n', True),  # a key no qualifier names
        ('{"password_2":"x"}\n', False),  # an affixed name assigned by its quote
        ('{"api_key_v2":"x"}\n', False),  # a qualified key
        ("token_1: abc\n", False),  # assigned by a colon
        ("token_1 abc\n", True),  # not assigned
    ],
)
def test_a_piece_is_located_unless_it_assigns_an_affixed_name(
    piece: str,
    located: bool,
) -> None:
    assert (keywords.located(piece, 64) is not None) is located


_PIECES = st.sampled_from(
    [
        "api_key_2=",
        "password_0: ",
        "token2 ",
        "secret_v2",
        "sort_key_1 : ",
        'app_key_old"',
        "key7",
        "Pass2",
        "jwt9'",
        '"',
        ":",
        " ",
        "\n",
        "x",
        "A",
        "_",
        "sk-",
        "ghp_",
        "AKIA",
        "api_",
        "secret-",
        "a" * 40,
        "QUFB" * 4,
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=80))
@example(["sk-", "key7", '"'])
@example(["y" * 300, "api_key_2", '"'])  # a qualified key's look-behind reads "api_"
@example(["password_0", "a" * 40, "a" * 40, "a" * 40, '"'])  # its quote far past its word
def test_what_located_says_is_what_present_says(pieces: list[str]) -> None:
    """Wherever a piece is located, its families and its generic names are those
    :func:`keywords.present` finds: an affixed name read on is one that is not assigned."""
    text = "".join(pieces)
    where = keywords.located(text, 1 << 20)
    if where is not None:
        assert where.present() == keywords.present(text)


def test_random_base64_sends_no_chance_affixed_literal_to_be_read() -> None:
    """Red before: the 11 chance literals of a MB of random base64 (``jwT1``, ``KEY3``) sent
    the keyword search over all of it again, for nothing assigned."""
    text = base64.b64encode(random.Random(5).randbytes(3 << 18)).decode()
    engine = keywords._engine()
    asked: list[int] = []
    real = engine._affixed
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_affixed", lambda t: asked.append(len(t)) or real(t))
        assert keywords.present(text).generic is False
    assert asked == []


def test_one_expression_a_credential_word_holds_the_affixes() -> None:
    """Red before: 1,560 literals (a credential word, a joint, an affix's head), some 200 KB
    in each of the keyword search's databases and 270 KB in one of their own; now one regex a
    word, each a superset of what :data:`~.generic.AFFIX_PATTERNS` match."""
    engine = keywords._engine()
    affixes = [group for group, _ in engine.meaning if group == "affix"]
    assert 0 < len(affixes) <= 2 * len(generic.AFFIX_PATTERNS)
    assert len(affixes) == len(generic.AFFIX_ASSIGNED_ANYWHERE)


@pytest.mark.parametrize(
    ("line", "trigger"),
    [
        ("abc jwT1+xyz\n", False),  # a chance literal in base64, ended by a "+"
        ("KEY3\n", False),  # ended by a line break (wrapped base64)
        ("password_2" + "a" * 200 + "=x\n", False),  # its "=" past any name's length
        ("password_2 = hunter2\n", True),  # assigned
        ("token_1: x\n", True),
        ("password_2" + "a" * 150 + "=x\n", True),  # a long name, assigned
        ("password_2\u00e9=x\n", True),  # ended by a char past ASCII: the judge reads on
    ],
)
def test_an_affixed_literal_in_a_text_is_a_trigger_only_where_it_may_be_assigned(
    line: str, trigger: bool
) -> None:
    """Red before for the first three: the chance ones of random base64 (11 a MB) made a
    piece of wrapped base64 crowded enough to be located, which loaded a database of 433 KB
    on a first call that needed none (bench/redact.py b64-random-wrapped, peak 1.25x the
    input before the affixed names, 2.47x after)."""
    from elision.redact import triggers

    assert bool(triggers.text_triggers(line)) is trigger


def test_an_affixed_json_key_is_a_trigger_however_it_goes_on() -> None:
    """A member's name is read whole, whatever follows its affix (``password_2 (old)``)."""
    from elision.redact import redact_value, triggers

    assert triggers.json_triggers(b'{"password_2 (old)":"x"}').secrets
    doc = {"password_2 (old)": "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"}
    assert "q7Vh2" not in str(redact_value(doc).value)


def test_a_run_of_unassigned_literals_is_asked_a_bounded_number_of_times() -> None:
    """Each literal asked would be a Python call a match more on a run of them (``key1 key1
    …``: 262,144 a MB, 165 -> 359 ms): past a few a scan, one each 16 KB, they are triggers
    again, as they were before anything asked."""
    from elision.redact import redact_text, triggers

    text = "key1 " * (1 << 16)
    asked: list[int] = []
    real = triggers.unassigned
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "unassigned",
                   lambda view, start, end: asked.append(end) or real(view, start, end))
        assert redact_text(text).withheld == ()
    assert len(asked) <= 64 + len(text) // (1 << 14)
