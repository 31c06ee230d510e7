"""Keys glued end to end are each judged with little work done twice (issue 23).

Found by ``bench/redact.py --worst fcm-glued`` (FCM keys glued end to end, 345x prose on
8becd2f) and a profile of it (cProfile, then ``sys.setprofile`` counts on 100 keys): half its
time was the entropy of each key's value, judged two or three times a key (the text's own
search, the step ahead from the key before, the search back from the key after), and each
judgement put every char of the value into two sets, the whole value's and its part's
(``families.at_least``). A step ahead now takes the verdict of a match the text's search
already judged (``Family._taken_in``), and a value up to 512 chars is told by its parts'
sets first, the whole's set made only where they do not hold (``families._told_long``).
What is withheld must not move: a differential against the steps asked afresh, over runs of
keys of the rows a step ahead serves.
"""

from __future__ import annotations

import base64
import random
import string
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import families, keywords, redact_text, triggers
from elision.redact.families import BY_ID, PATTERN_FAMILIES, flat, sample
from support.calls import redaction_calls

_URLSAFE = string.ascii_letters + string.digits + "_-"


def _fcm_keys(count: int, seed: int = 7) -> str:
    """``count`` distinct FCM keys glued end to end (bench/fuzz_linear.py's ``fcm-glued``,
    each key its own: a key judged twice is no cache's hit)."""
    rng = random.Random(seed)
    return "".join("AAAA" + "".join(rng.choices(_URLSAFE, k=7)) + ":APA91b"
                   + "".join(rng.choices(_URLSAFE, k=192)) for _ in range(count))


def _calls_by_name(run: Any) -> Counter[str]:
    """The Python calls ``run()`` makes, by function name (frames of families.py only)."""
    calls: Counter[str] = Counter()

    def count(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename == families.__file__:
            calls[frame.f_code.co_name] += 1

    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def test_a_glued_key_is_judged_at_most_one_and_a_half_times() -> None:
    """Red before: two judgements a key (``accepted``, 2.0 a key): the step ahead from
    each key judged again the next one, which the text's own search had judged already."""
    text = _fcm_keys(60)
    assert len(redact_text(text).withheld) == 1  # the run, one entry
    calls = _calls_by_name(lambda: redact_text(text))
    assert calls["accepted"] / 60 <= 1.6


def test_each_char_of_a_glued_key_goes_into_a_set_once_a_judgement(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: each judgement put a key's 210 chars into two sets, the whole value's
    (for the bounds of its length and distinct chars) and its part's (for its parts'
    bounds, which are what tell it); 2.0 chars a char judged, now 1.0."""
    text = _fcm_keys(60)
    redact_text(text)
    chars: list[int] = []
    judged: list[int] = []
    real_set, real_at_least = set, families.at_least

    def counted_set(*args: Any) -> set[Any]:
        if args and isinstance(args[0], str):
            chars.append(len(args[0]))
        return real_set(*args)

    def counted_at_least(floor: float, values: list[str]) -> list[bool]:
        judged.extend(map(len, values))
        return real_at_least(floor, values)

    monkeypatch.setattr(families, "set", counted_set, raising=False)
    monkeypatch.setattr(families, "at_least", counted_at_least)
    redact_text(text)
    assert sum(judged) > 60 * 200
    assert sum(chars) / sum(judged) <= 1.05


#: PEM keys glued end to end (bench/fuzz_linear.py's ``pem-glued``): each key's header
#: right after the last one's closing armour, on its line.
_PEM = ("-----BEGIN PRIVATE KEY-----\n" + f"{base64.b64encode(bytes(range(48))).decode()}\n" * 4
        + "-----END PRIVATE KEY-----")


@pytest.mark.parametrize(("text", "keys", "most", "most_re"), [
    # 64.6 calls a key before (188.8 with the regex passes), 54.5 on the merge of issue 23's
    # helpers (149.3), 52.3 now: a look-back's families asked alone (keywords.families_in
    # asked present for a Present and its generic names, curl user and escapes).
    (_PEM * 40, 40, 53, 180),
    # 44.9 before (75.7), 37.1 on the merge (37.6), 27.1 now (30.4): a link's one match
    # judged without accepted's comprehensions (Family.accepted_one), and its look-back's
    # families asked alone.
    (_fcm_keys(40), 40, 28, 33),
])
def test_a_glued_key_costs_few_python_calls(text: str, keys: int, most: int,
                                            most_re: int) -> None:
    """Red before: the search back from a PEM key's header (``families._key_before``) and
    what is judged after its armour (``scan._glued_after``) read their literals in
    generators, a Python call a literal a key: some 14 calls of a PEM key's 65."""
    redact_text(text)
    calls, done = redaction_calls(text)
    assert done.withheld
    bound = most if triggers.engine_name() == "hyperscan" else most_re
    assert calls / keys <= bound


#: The rows whose match may take in the next token's head: the ones a step ahead serves.
_STEPPING = [f for f in PATTERN_FAMILIES if f._takes_in_next]


@settings(max_examples=40, deadline=None)
@given(picks=st.lists(st.tuples(st.sampled_from(_STEPPING), st.integers(0, 3), st.booleans()),
                      min_size=2, max_size=5),
       glue=st.sampled_from(["", "", " ", "x"]))
# A key, then a placeholder its match reads the head of: the step is refused (the verdict
# of the key before it is no verdict of the placeholder).
@example(picks=[(BY_ID["firebase-cloud-messaging-key"], 0, False),
                (BY_ID["firebase-cloud-messaging-key"], 0, True)], glue="")
def test_steps_ahead_withhold_what_they_withheld_asked_afresh(
        picks: list[tuple[families.Family, int, bool]], glue: str) -> None:
    """Each key a fake of a row a step ahead serves, or its placeholder (``xxxx…``, which
    the row's match reads and its entropy refuses), glued on (mostly end to end), twice
    over (a key of one row after a key of the same row is what a step ahead reads):
    withheld alike whether a step takes the text's verdict or asks again."""
    keys = [flat(family.shapes[index % len(family.shapes)]) if placeholder
            else sample(family, index % len(family.shapes), seed)[0]
            for seed, (family, index, placeholder) in enumerate(picks)]
    _withheld_alike_afresh(glue.join(keys + keys))


_FCM = BY_ID["firebase-cloud-messaging-key"]


@pytest.mark.parametrize("text", [
    # A key, its placeholder glued on, and a key the search accepts after a space: the step
    # from the first reaches the placeholder, not the key after it.
    sample(_FCM, 0, 1)[0] + flat(_FCM.shapes[0]) + " " + sample(_FCM, 0, 2)[0],
    # Keys glued end to end, one of them a placeholder: the steps on either side of it.
    "".join([sample(_FCM, 0, 1)[0], sample(_FCM, 0, 2)[0], flat(_FCM.shapes[0]),
             sample(_FCM, 0, 3)[0], sample(_FCM, 0, 4)[0]]),
])
def test_a_step_takes_no_verdict_but_its_own_match(text: str) -> None:
    _withheld_alike_afresh(text)


def _withheld_alike_afresh(text: str) -> None:
    got = redact_text(text)
    real = families.Family._taken_in

    def afresh(self: families.Family, *args: Any) -> Any:
        return real(self, *args[:-1], families._Judged([]))  # no verdict taken

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(families.Family, "_taken_in", afresh)
        again = redact_text(text)
    assert (got.value, got.withheld) == (again.value, again.withheld)


def test_a_glued_keys_look_back_asks_no_generic_name_under_the_regex_passes(
    keyword_engine: str,
) -> None:
    """Found measuring ``fcm-glued`` with ``ELISION_REDACT_ENGINE=re``: 9 s a MB (2.35 s for
    256 KB, linear). Each glued key's look-back (``families._glued_to``) asked
    ``keywords.present`` of the text before it for its families, and the regex passes'
    ``present`` asked each of the 3,000-odd generic names' literals in Python too (2 ms a
    look-back), which the look-back never reads. It now asks only the families
    (``keywords.families_in``): the generic names are asked a piece at a time, not a key."""
    keys = 300
    text = _fcm_keys(keys)
    asked = 0
    generic = keywords._Plain._generic

    def counted(self: Any, low: str) -> bool:
        nonlocal asked
        asked += 1
        return generic(self, low)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keywords._Plain, "_generic", counted)
        done = redact_text(text)
    assert "APA91b" not in str(done.value)
    assert asked < keys // 4, f"{asked} asks of the generic names for {keys} glued keys"


_KEYWORD_BITS = st.sampled_from(
    ["AAAA", ":APA91b", "ghp_", "xoxb-", "AKIA", "sk-", "-----BEGIN ", "password=", "hvs.",
     "glpat-", "AIza", "%3D", "\\u0041", " ", "\n", "x", "Zx8Qw3Er"])


@settings(max_examples=60)
@given(text=st.lists(_KEYWORD_BITS, max_size=24).map("".join))
def test_the_families_in_a_text_are_presents_families(text: str) -> None:
    """:func:`keywords.families_in` is :func:`keywords.present`'s ``families``, both engines."""
    for engine in (keywords._Plain(), *([keywords._engine()]
                                        if isinstance(keywords._engine(), keywords._Hyperscan)
                                        else [])):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(keywords, "_built", [engine])
            assert keywords.families_in(text) == keywords.present(text).families


#: Rows whose match stays on a line: a key's armour is read on (``read_closings``) before
#: it is judged, not a match of the pattern alone.
_ONE_LINE = [f for f in PATTERN_FAMILIES if not f.closing]


@settings(max_examples=60, deadline=None)
@given(family=st.sampled_from(_ONE_LINE), seed=st.integers(0, 3), placeholder=st.booleans(),
       before=st.sampled_from(["", " ", "x", "_", "AAAA", "ghp_", "key: ", "\\n", "<"]),
       after=st.sampled_from(["", " ", "x", ">", "{{"]),
       depth=st.integers(0, 2), bounded=st.booleans())
@example(family=_FCM, seed=0, placeholder=False, before="x", after="", depth=0, bounded=True)
def test_one_match_is_judged_as_accepted_judges_it(
        family: families.Family, seed: int, placeholder: bool, before: str, after: str,
        depth: int, bounded: bool) -> None:
    """:meth:`Family.accepted_one` (a chain's link, a step's match) is :meth:`accepted` of
    that one match with nothing glued on asked: the same spans, and the same look-backs
    left in the memo (a chain's later links read them)."""
    index = seed % len(family.shapes)
    key = flat(family.shapes[index]) if placeholder else sample(family, index, seed)[0]
    # A key of the row before this one: what a refused boundary's look-back finds.
    text = before + sample(family, index, seed + 1)[0] * (before == "x") + key + after
    assert family.pattern is not None
    for match in family.pattern.finditer(text):
        ours: families.Glue = {}
        theirs: families.Glue = {}
        got = family.accepted_one(text, match, depth=depth, bounded=bounded, memo=ours)
        want = family.accepted(text, [match], depth=depth, ahead=False, bounded=bounded,
                               memo=theirs)
        assert (got, ours) == (want, theirs)
