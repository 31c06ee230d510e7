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


@pytest.mark.parametrize(
    "unit",
    [
        "key1 ",  # the run: a literal every 5 bytes on one line
        "key1\n",  # a literal a line: each line its own stretch
        "password1 ",  # a strong word, a digit glued
        "token_2 ",  # a weak word, a joint and a digit
        "secret-v2 ",  # a version
        "api_key_1 ",  # a qualified key
        "the key1 of the password1 is a token_2 word ",  # mixed with prose
        "cache:key_1\n",  # a ":" a line, before each name: no byte search reaches far
        '"id": 7, "note": "key1 token_2 password1 done"\n',  # quoted, none assigned
    ],
)
def test_a_run_of_unassigned_affixed_literals_costs_no_python_call_each(unit: str) -> None:
    """Issue 23: a MB of ``key1 `` took 150 ms where prose takes 0.6 ms, each literal a
    Python call in the trigger search (found by the ndjcost session). A stretch where nothing
    could assign a name is searched with the literals that need no assignment, in C."""
    from support.calls import redaction_calls

    literals = 1 << 14
    text = unit * (literals // max(1, unit.count("1") + unit.count("2")))
    calls, done = redaction_calls(text)
    assert done.withheld == ()
    assert calls < literals // 16, calls


_RUN = "key1 " * 300  # a run long enough to be searched without the affixed names
_VALUE = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"


def _both_ways(text: str) -> tuple[object, object]:
    """What ``redact_text`` gives with runs of unassigned names searched without them, and
    asked one at a time (the slow path)."""
    from elision.redact import redact_text, triggers

    fast = redact_text(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "UNASSIGNED_RUNS", False)
        slow = redact_text(text)
    return (fast.value, fast.withheld), (slow.value, slow.withheld)


@pytest.mark.parametrize(
    ("tail", "withheld"),
    [
        (f"password_2={_VALUE}", True),  # an affixed name assigned where the run ends
        (f"password_2 = {_VALUE}", True),  # assigned after a space (" =")
        ("AKIAZ7Q2M4X9K3L8P5W1", True),  # a literal that needs no assignment, mid-run
        (f"sk-proj-4hvk2l5y8a8e5{_VALUE}xx", True),  # a key that opens with its own literal
        # a token whose literal ("Bot M") straddles where the search with the names takes
        # over (after the space before the ":"'s name): read back a literal's length
        ("Bot MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs:x", True),
        (f"password_2{'a' * 150}={_VALUE}", False),  # a long name: judged, not withheld
        (f"password_2\u00e9={_VALUE}", False),  # ended past ASCII: judged
    ],
)
@pytest.mark.parametrize("gap", [" ", "\n", ""])  # the run's own, a line's, none
# a run with nothing that could assign; one with a ":" a line (its look-ahead is a search)
@pytest.mark.parametrize("run", [_RUN, "cache:key_1\n" * 100])
def test_what_follows_a_run_of_unassigned_names_is_read_as_without_it(
    tail: str, withheld: bool, gap: str, run: str
) -> None:
    """A run searched without the affixed names ends where one could next be assigned, and
    the search with them takes over reading back a literal's length: whatever sits at
    either end is found as it is alone."""
    from elision.redact import redact_text

    text = run + gap + tail + gap + run
    fast, slow = _both_ways(text)
    assert fast == slow
    assert bool(redact_text(tail).withheld) is withheld
    if gap:  # glued to the run after it, an AKIA key is no longer one
        assert bool(fast[1]) is withheld


_PIECES = [
    "key1 ", "token_2 ", "secret-v2\n", "api_key_1 ", "cache:key_1\n", "password1",
    " ", "\n", "=", ":", " =", "'", "\\", "\u00e9", "x", "the quick fox ",
    f"password_2={_VALUE}\n", f"password_2 : {_VALUE} ", "AKIAZ7Q2M4X9K3L8P5W1 ",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.integers(1, 120)), max_size=8))
def test_a_run_searched_without_the_affixed_names_withholds_what_asking_each_does(
    parts: list[tuple[str, int]],
) -> None:
    """Runs of unassigned names of any length, broken anywhere by what assigns a name, a
    secret or a char past ASCII: the same is withheld as when each name is asked."""
    fast, slow = _both_ways("".join(piece * count for piece, count in parts))
    assert fast == slow


@pytest.mark.parametrize("run, flag", [
    ("key1 ", "run --password_2 {} "),        # a run of spaces' names, a flag in it
    ("key1\n", "--secret-v2\t{}\n"),           # a line a name, a flag on a line of its own
    ("secret-v2 ", "--api-key-2 {} "),         # a run whose names hold a "-" themselves
    ("token_2 ", "cmd -password_1 {} "),       # a single "-"
])
def test_a_flag_inside_a_run_of_unassigned_names_is_withheld(run: str, flag: str) -> None:
    """A run's look-ahead searched past it without the affixed literals up to the next byte
    that could assign a name, and a flag's gap (a space) assigns one: ``--password_2 V`` in a
    run of ``key1 `` was shown (the merge of the affixed flags and the runs' look-ahead)."""
    from elision.redact import redact_text

    secret = "Zq8vR2mT9xLp4Kd7xW3n"
    text = run * 400 + flag.format(secret) + run * 400
    done = redact_text(text)
    assert secret not in done.value
    assert len(done.withheld) == 1
