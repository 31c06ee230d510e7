"""Random bytes in base64 (a pasted image, an archive a tool printed) and lines of short heads.

bench/redact.py's ``b64-random-line`` cost 43x prose (issue 23): its one run was read whole by
the mid-token keywords' window regex (9 ms a MB) before its first bytes were found binary, which
base64_text would have said first; every 64 KB block of it was scanned for heads although a run
with a ``+`` in it holds no char that opens a run; ``run-b64-short-heads`` (lines of ``=//4I=``)
read each block again with a hyperscan pattern that holds the run, where no run in it was long
enough to decode. Each test here was red on the code before; a credential in such a text, raw
or in base64, is still withheld as it was: a differential against that code where
``ELISION_BEFORE_SRC`` names its ``src`` (a development check, skipped otherwise: a later
change may mean to differ), and against this code's own slower paths, which always run.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, scan, secrets, triggers
from elision.redact.families import FAMILIES, sample
from support.before import redacted
from support.calls import window_searches
from support.engines import hyperscan_only

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="the head search is hyperscan's")


def _random_b64(size: int, seed: int) -> str:
    return base64.b64encode(random.Random(seed).randbytes(size * 3 // 4)).decode()[:size]


def _fakes() -> list[str]:
    return [sample(f, 0, "b64")[0] for f in FAMILIES if f.finder != "field"]


FAKES = _fakes()


@st.composite
def planted(draw: st.DrawFn) -> str:
    """Random base64 (one line, or wrapped as MIME wraps it) with fake credentials planted at
    drawn offsets: raw, or base64-encoded (shifted 0-2 bytes), glued to the run or set apart."""
    # Long ones too: past secrets._LONG a text's families are tried where they may open.
    size = draw(st.one_of(st.integers(0, 6000), st.integers(65_000, 140_000)))
    text = _random_b64(size, draw(st.integers(0, 1 << 16)))
    for _ in range(draw(st.integers(0, 4))):
        fake = draw(st.sampled_from(FAKES))
        if draw(st.booleans()):
            fake = base64.b64encode((draw(st.sampled_from(["", "a", "ab"])) + fake).encode()
                                    ).decode()
        if draw(st.booleans()):
            fake = draw(st.sampled_from([" ", "\n", '"', "="])) + fake + draw(
                st.sampled_from([" ", "\n", "", "=="]))
        at = draw(st.integers(0, len(text)))
        text = text[:at] + fake + text[at:]
    wrap = draw(st.sampled_from([0, 0, 64, 76]))
    if wrap:
        text = "\n".join(text[at:at + wrap] for at in range(0, len(text), wrap))
    return text


# -- the same as the code before ---------------------------------------------------------------

def _answer(text: str) -> list[Any]:
    out = redact_text(text)
    return [out.value, list(out.withheld)]


@settings(max_examples=150, deadline=None)
@given(planted())
def test_planted_credentials_in_random_base64_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


def test_a_credential_in_base64_in_an_image_line_is_withheld_as_before(
    code_before_answers: Callable[[str, str], Any],
) -> None:
    """A whole .env in base64, then a pasted image's base64, on one line and apart."""
    secret = base64.b64encode(b"GITHUB_TOKEN=ghp_" + b"Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j"
                              ).decode()
    # A longer one, probed before the window's regex reads it: a whole config file.
    config = base64.b64encode(b"# service settings\nLOG_LEVEL=info\nREGION=eu-west-1\n" * 6
                              + b"GITHUB_TOKEN=ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j\n"
                              ).decode()
    assert len(config) > scan._PROBE_FIRST
    image = _random_b64(300_000, 3)
    for text in (secret + " " + image, image + "\n" + secret + "\n", image + secret,
                 config + "\n" + image, image + " " + config):
        assert redacted("text", text) == code_before_answers("text", text)
    assert _answer(secret + " " + image)[1]  # withheld, before and now
    assert _answer(image + " " + config)[1]


# -- bounded work ------------------------------------------------------------------------------


def test_an_image_in_base64_is_not_read_by_the_window_regex(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A run whose first bytes are binary is never decoded, so the window regex (9 ms a MB)
    need not read it: it read all 400 KB of the run before."""
    read = window_searches(monkeypatch, scan)
    redact_text(_random_b64(400_000, 5))
    assert sum(read) <= 4096


@needs_hyperscan
def test_an_image_in_base64_is_not_scanned_for_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block of base64 with a ``+`` or ``/`` in it is not alphanumeric, but holds no char
    that opens a run: no head scan of it (one a 64 KB block before)."""
    engine: Any = triggers.engine()
    scans: list[str] = []
    real = engine._stretches

    def counting(db: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        scans.append(name)
        return real(db, name, *args, **kwargs)

    monkeypatch.setattr(engine, "_stretches", counting)
    triggers.dense_text_triggers(_random_b64(400_000, 7))
    assert scans.count("heads") == 0


@needs_hyperscan
def test_lines_of_short_heads_need_no_pass_of_the_run_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines of ``=//4I=`` hold a head each in a run of four: no block of them has a run long
    enough to decode, so none is read again by the pattern that holds the run (every block
    was, 25-70x the literals' cost a byte)."""
    engine: Any = triggers.engine()
    asked: list[bool] = []
    real = engine._heads_db

    def counting(heads: tuple[str, ...], *, runs: bool = False) -> Any:
        asked.append(runs)
        return real(heads, runs=runs)

    monkeypatch.setattr(engine, "_heads_db", counting)
    # A run long enough to decode in a block of its own (no head opens it), so the blocks are
    # searched: with none anywhere, none is (tests/redact/test_redact_dense_heads.py).
    text = "x" * 30 + "\n" + "ok\n" * 30_000 + "=//4I=\n" * 60_000
    positions, dense = triggers.dense_text_triggers(text)  # the positions: an array
    assert (list(positions), dense) == ([], [])
    assert asked and not any(asked)


@needs_hyperscan
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["=//4I=\n", "=//4I", "//4I", "QUFB", "x", " ", "\n", "+",
                                 "A" * 8, "b" * 16, "=", "c2st"]), max_size=300).map("".join),
       st.sampled_from([64, 256, 1 << 16]))
def test_head_blocks_skipped_find_what_the_run_pattern_found(text: str, block: int) -> None:
    """Differential: with the blocks' run check, the head search finds what it found when
    every dense block was read again by the run pattern (blocks made small, so many are dense
    and heads cross their ends)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_HEAD_BLOCK", block)
        mp.setattr(triggers, "_HEADS_DENSE", 2)
        # Every block searched (a text with no run long enough to decode is not: the test of
        # that check is tests/redact/test_redact_dense_heads.py's).
        mp.setattr(triggers, "OTHERS_CHECK", False)
        got = triggers.dense_text_triggers(text)
        mp.setattr(triggers, "RUNS_CHECK", False)  # the run pattern's pass
        want = triggers.dense_text_triggers(text)
    assert got == want


@hyperscan_only("one hyperscan pass finds where the families' matches may open; the `in` "
                "tests that stand for it without hyperscan ask each family (linear: "
                "bench/fuzz_linear.py)")
def test_an_image_in_base64_is_searched_once_for_its_families(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A MB of random base64 spells a few families' keywords by chance (``oy2``, ``SKf``,
    ``okta``): each family's pattern, count or ``in`` test read all of it (12 ms a MB). Now
    where their matches may open is found in one pass, and none of those is asked."""
    asked: list[int] = []
    real_needs, real_opened_by = secrets.needs, secrets._opened_by

    def needs(index: int) -> Any:
        asked.append(index)
        return real_needs(index)

    def opened_by(index: int, *args: Any) -> Any:
        asked.append(index)
        return real_opened_by(index, *args)

    monkeypatch.setattr(secrets, "needs", needs)
    monkeypatch.setattr(secrets, "_opened_by", opened_by)
    text = _random_b64(1_000_000, 5)
    holds = secrets.present(text)
    assert holds.families  # chance spells some
    secrets.find_credentials(text, holds)
    assert asked == []


PROSE = st.sampled_from(["the", "status", "ok", " ", "\n", "Basic ", "okta_token: ",
                         "SSWS ", "amqp://u:p@h", "=", ".", "SK", "AC"])


@st.composite
def long_ascii(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(PROSE, st.sampled_from(FAKES),
                                    st.integers(0, 1 << 16).map(lambda n: _random_b64(40, n))),
                          max_size=40))
    return "".join(parts).encode("ascii", "replace").decode()


@settings(max_examples=300, deadline=None)
@given(long_ascii())
def test_families_tried_where_they_may_open_find_what_their_searches_did(text: str) -> None:
    """Differential, every family: a text taken as long (so its families are tried only where
    their opening literals are, found in one pass) finds what each family's own search of it
    found."""
    holds = secrets.present(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(secrets, "_PREFIX_SPACING", 1)  # no bound on the places tried
        mp.setattr(secrets, "_LONG", 0)
        got = secrets.find_credentials(text, holds)
        mp.setattr(secrets, "_LONG", 1 << 40)
        want = secrets.find_credentials(text, holds)
    assert got == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["A", "b", "9", "+", "/", "_", "-", "=", "==", " ", "\n", "é",
                                 "A" * 19, "Q" * 20, "Z" * 45, ":"]), max_size=60).map("".join),
       st.sampled_from([1, 7, 19, 20, 21, 64]))
def test_runs_found_a_block_of_marks_at_a_time_are_the_regex_runs(text: str, block: int
                                                                   ) -> None:
    """The runs' marks are made a block at a time (blocks made small, so runs cross their
    ends): the runs are B64_RUN's."""
    from elision.redact.keywords import B64_RUN

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK", block)
        got = list(scan._runs(text))
    assert got == [m.span() for m in B64_RUN.finditer(text)]


@pytest.mark.parametrize("family", ["telegram-bot-token", "mailchimp-api-key",
                                    "azure-ad-client-secret"])
@pytest.mark.parametrize("runs_before", [0, 3, 4, 5, 40])
def test_a_mid_token_keyword_in_base64_after_many_runs_is_withheld(
    family: str, runs_before: int,
) -> None:
    """A run that holds a mid-token keyword's window (a Telegram token's ``:AA``), after many
    runs of wrapped base64: once a few runs have asked, one search of the text says whether
    any holds a window, and this one does."""
    fake = next(sample(f, 0, "w")[0] for f in FAMILIES if f.id == family)
    run = base64.b64encode(f"note for the bot: {fake}".encode()).decode()
    text = "".join(_random_b64(76, n) + "\n" for n in range(runs_before)) + run + "\n"
    assert [entry["reason"] for entry in redact_text(text).withheld] == [family]
