"""The conditions under which a speed-up of issue 23 skips work, each held to what it must
keep. Found by the review of that session's speed-ups: each of these conditions could be
dropped, and no test went red (a mutation run over the session's tests). No input was found
where dropping one lets a credential through today (the trigger search marks an escape by
itself, and PuTTY's row wants no word char before it), so each is checked where it is decided.
"""

from __future__ import annotations

import base64

import pytest

from elision.redact import redact_text, triggers, walk
from elision.redact.families import BY_ID, sample
from elision.redact.keywords import FAMILY_EXACT, present
from support import engines
from support.calls import window_searches

hyperscan_only = engines.hyperscan_only("the chance keywords are hyperscan's")

RUN = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789abcdefQUJD"


def _expr(literal: str) -> int:
    return triggers._EXACT.index(literal)


@hyperscan_only
def test_a_keyword_whose_family_may_match_across_lines_is_never_a_chance_one() -> None:
    """PuTTY's row matches over many lines: a search of one line for it finds nothing, so its
    keyword met inside a run must count as a trigger, not be checked against the line."""
    eng = triggers.engine()
    assert isinstance(eng, triggers._Hyperscan)
    assert eng.chance_families(_expr("PuTTY-User-Key-File-")) is None
    assert eng.chance_families(_expr("sk-")) is None  # a credential's own opening
    assert eng.chance_families(_expr("SK0")) == tuple(FAMILY_EXACT["SK0"])


@pytest.mark.parametrize(("line", "counts"), [
    (b"", False),  # nothing else on the line: no match, so not a trigger
    (b" S%4B0123456789abcdef0123456789abcdef", True),  # a percent escape the judge decodes
    (b" SK\\u0030123456789abcdef0123456789abcde", True),  # a JSON escape
    (b" x\\/y", True),  # any backslash: the judge may read the line decoded
    (b" SK0123456789abcdef0123456789abcdef", True),  # the family's pattern matches
])
def test_a_chance_keyword_mid_run_counts_where_its_line_may_match(
    line: bytes, counts: bool
) -> None:
    data = b"head\n" + RUN[:20] + b"SK0" + RUN[20:] + line + b"\ntail\n"
    pos = data.index(b"SK0") + 2  # the keyword's last byte
    families = tuple(FAMILY_EXACT["SK0"])
    assert triggers._may_match(data, pos, 3, families, triggers.TEXT_STOP, {}) is counts


def test_a_chance_keyword_in_a_line_too_long_to_search_counts() -> None:
    filler = RUN * (triggers._CHANCE_REACH // len(RUN) + 1)
    data = filler + b"SK0" + filler
    pos = len(filler) + 2
    families = tuple(FAMILY_EXACT["SK0"])
    assert triggers._may_match(data, pos, 3, families, triggers.TEXT_STOP, {}) is True
    short = filler[:1000] + b"SK0" + filler[:1000]
    assert triggers._may_match(short, 1002, 3, families, triggers.TEXT_STOP, {}) is False


def test_an_array_split_into_elements_must_be_read_to_its_last_byte() -> None:
    """The elements' spans are taken only where they add up to the array's bytes: where they
    do not (bytes that are not the compact serialization), the array is walked as before."""
    element = b'{"note":"' + b"x" * 300 + b'"}'
    compact = b"[" + b",".join([element] * 3) + b"]"
    walker = walk.Walker()
    walker._data, walker._splits = compact, 10 * len(compact)
    spans = walker._elements(1, len(compact) - 1, 3)
    assert spans is not None and [compact[a:b] for a, b in spans.values()] == [element] * 3
    spaced = b"[" + b", ".join([element] * 3) + b"]"
    walker._data, walker._splits = spaced, 10 * len(spaced)
    assert walker._elements(1, len(spaced) - 1, 3) is None


@pytest.mark.parametrize("family", ["nuget-api-key", "crates-io-token"])
@pytest.mark.parametrize("head", ["", "key: "])
def test_a_base64_credential_after_an_escape_in_a_short_text_is_withheld(
    family: str, head: str
) -> None:
    """A short text with no keyword's base64 form and no window has only its runs that open
    with a keyword's head read (``scan._headed_runs``), unless it holds a backslash: the run
    after ``\\n`` takes the escape's letter, and only the judge's second reading of it, from
    the next char, finds these (the base64 of ``oy2…``, of ``cio…``: no form of a keyword)."""
    fake = sample(BY_ID[family], 0, "e")[0]
    encoded = base64.b64encode(f"{head}{fake}".encode()).decode()
    text = f"log a\\n{encoded} end"
    assert not present(text).base64  # no form: the short path's own condition
    shown = redact_text(text)
    assert encoded not in shown.value and [e["reason"] for e in shown.withheld] == [family]


def test_runs_ask_the_whole_text_for_a_window_only_where_a_window_is_local(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by review: once a few runs have asked, ``scan._in_base64`` asked the whole text
    whether it holds a window and trusted a no for every run; the two other paths that do so
    ask :func:`scan._window_local` first. A window pattern that read the chars around its
    match (an anchor, a lookahead) could match in a run searched alone and not in the text:
    each run is asked alone then."""
    import random

    from elision.redact import scan

    rng = random.Random(5)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    text = " ".join("".join(rng.choice(alphabet) for _ in range(40)) for _ in range(60))
    searched = window_searches(monkeypatch, scan)
    local = scan._in_base64(text, True)
    assert len(text) in searched  # the whole text answered for the runs after the first few
    searched.clear()
    monkeypatch.setattr(scan, "_window_local", lambda: False)
    assert scan._in_base64(text, True) == local
    assert searched and len(text) not in searched, "a no of the whole text was trusted"
