"""A credential-dense stretch is withheld whole, unread: its cost and its entries are bounded.

Found by ``bench/fuzz_linear.py`` and ``bench/redact.py`` (issue 23): a text in which every
line or every few bytes holds a candidate the precise rules judge in Python (lines of
``api_key=abc``, a line of ``password=hunter2``, unclosed containers under credential names)
cost 56-1,860x prose of the same size to redact, and memory 21-45x the input: a withheld entry
and a stub per value. Past :data:`~elision.redact.triggers.DENSE_ALLOWANCE` windows of more
than :data:`~elision.redact.triggers.DENSE_LIMIT` triggers, each such stretch is withheld as
one entry (fail closed). No clock here: the tests count entries and the chars judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import density, redact_text, redact_value, scan, triggers
from elision.redact.rules import is_stub
from redact.test_redact_prefilter_differential import seeded_texts
from support.engines import trigger_engines, using_engine

HYPERSCAN = [e for e in trigger_engines() if not isinstance(e, triggers._Regex)]
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")
WINDOW = triggers.DENSE_WINDOW
LIMIT = triggers.DENSE_LIMIT
MB = 1 << 20
#: Both engines bound a text alike: hyperscan counts its literals, the regex passes their
#: matches (issue 23: without hyperscan a text had no bound).
ENGINES = [pytest.param(e, id=type(e).__name__.strip("_").lower()) for e in trigger_engines()]


@contextmanager
def _judged() -> Iterator[list[int]]:
    """The chars the precise rules are handed."""
    seen: list[int] = []
    real: Callable[..., Any] = scan._precise

    def counting(text: str, offset: int, depth: int = 0) -> Any:
        seen.append(len(text))
        return real(text, offset, depth)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "_precise", counting)
        yield seen


# -- the bound's entries and reading, for 1 MB of each hostile form ---------------------------

HOSTILE = [
    pytest.param("password=x ", id="placeholder-assignments"),  # none withheld, all judged
    pytest.param("password=hunter2 ", id="assignments"),  # 61,680 entries before
    pytest.param("api_key=abc\n", id="assignment-lines"),  # 87,381 entries before
    pytest.param('secret={"a": "b", ', id="unclosed-containers"),
    pytest.param("authorization: Token abcdefgh12 ", id="headers"),
    pytest.param("A", id="run-of-A"),
    pytest.param("%41", id="percent-escapes"),
]


@pytest.mark.parametrize("unit", HOSTILE)
@pytest.mark.usefixtures("each_engine")
def test_a_megabyte_of_one_dense_form_is_one_entry_and_barely_read(unit: str) -> None:
    text = unit * (MB // len(unit))
    with _judged() as seen:
        done = redact_text(text)
    assert len(done.withheld) <= 2
    assert [e["reason"] for e in done.withheld] == ["credential-dense"] * len(done.withheld)
    assert sum(seen) <= 16 * 1024  # the precise rules read a few KB at most, not the MB
    assert done.value.count("\n") == text.count("\n")  # lines keep their numbers


@pytest.mark.usefixtures("each_engine")
def test_the_entry_and_stub_say_what_and_how_many_bytes() -> None:
    # Two windows of log lines, then the dense lines from a window's start: a stretch is
    # the whole lines of its windows, so it starts where they do.
    head = ("INFO " + "a" * 250 + "\n") * (2 * WINDOW // 256)
    # Its end is the end of the lines of its last window: a few log lines after it go too.
    dense = "api_key=abc\n" * 4000
    done = redact_text(head + dense + head)
    (entry,) = done.withheld
    assert entry["line"] == 33 and entry["reason"] == "credential-dense"
    assert len(dense) <= entry["bytes"] < len(dense) + WINDOW
    lines = done.value.split("\n")
    assert lines[:32] == head.split("\n")[:32]
    assert lines[32] == f"[credential-dense text withheld: {entry['bytes']:,} bytes]"
    assert is_stub(lines[32])
    assert len(lines) == 2 * 32 + 4000 + 1  # every line keeps its number
    assert lines[-2] == head.split("\n")[0]


@pytest.mark.usefixtures("each_engine")
def test_a_dense_json_string_is_one_entry_at_its_path() -> None:
    note = "password=hunter2 " * 4000
    body = orjson.dumps({"id": 1, "note": note})
    done = redact_value(orjson.loads(body), body=body)
    assert done.withheld == ({"path": "$.note", "reason": "credential-dense", "bytes": len(note)},)
    assert done.value == {"id": 1, "note": f"[credential-dense text withheld: {len(note):,} bytes]"}


@pytest.mark.usefixtures("each_engine")
def test_a_credential_that_wraps_out_of_a_stretch_is_withheld() -> None:
    # "Bearer" ends the stretch's last line, its token opens the next: read across.
    token = "Zx8Qw3Er5Ty7Ui9OpZx8Qw3Er5Ty7Ui9"
    text = "password=x " * 3000 + "Authorization: Bearer\n" + token + " ok\n" + "fine\n"
    shown = redact_text(text).value
    assert token not in shown
    assert shown.endswith("fine\n")


# -- the edges: the limit a window, the windows a text may hold --------------------------------


def _window(n: int) -> str:
    """One window of bytes (a line) that holds ``n`` triggers (each ``sk-`` is one match)."""
    return ("sk- " * n).ljust(WINDOW - 1, ".") + "\n"


@pytest.mark.parametrize(
    ("windows", "bounded"),
    [
        ([LIMIT] * 6, False),  # at the limit in every window: judged as any text
        ([LIMIT + 1] * 6, True),  # one past it: dense from the first window on
        ([LIMIT + 1] * 4 + [0] * 2, False),  # dense, but within the allowance: judged
        ([LIMIT + 1] * 5 + [0], True),  # one window past the allowance
        ([LIMIT + 1] + [triggers.DENSE_GOES_ON] * 5, False),  # a stretch that does not go on
        ([LIMIT + 1] + [triggers.DENSE_GOES_ON + 1] * 5, True),  # ... and one that does
        ([LIMIT + 1, 0] * 4, False),  # dense windows apart, four in all: within the allowance
        ([LIMIT + 1, 0] * 5, True),  # ... and five: the allowance counts them all
    ],
)
def test_the_bound_falls_past_the_limit_and_the_allowance(
    windows: list[int], bounded: bool, each_engine: Any
) -> None:
    text = "".join(_window(n) for n in windows)
    _, dense = triggers.dense_text_triggers(text, each_engine)
    reasons = {e["reason"] for e in redact_text(text).withheld}
    assert bool(dense) is bounded
    assert ("credential-dense" in reasons) is bounded


def test_a_short_text_is_never_bounded() -> None:
    # Within the allowance whatever it holds: a .env file, a config, a short hostile run.
    text = "api_key=Zx8Qw3Er5Ty7Ui9Op\n" * (4 * WINDOW // 26)
    done = redact_text(text)
    assert {e["reason"] for e in done.withheld} == {"credential-assignment"}


# -- never less safe than the judge -------------------------------------------------------------

RUNS = ["password=x ", "api_key=abc\n", "sk- ", "%41", "A", "token: x ", "\\u0041"]
# Built once: built on every draw, they were most of the drawing's CPU.
_SEEDED_TEXTS = seeded_texts()
_RUN_PIECES = st.sampled_from(RUNS)
_GLUES = st.sampled_from(["\n", " "])


@st.composite
def runs_beside_credentials(
    draw: st.DrawFn, pieces: st.SearchStrategy[str], repeats: st.SearchStrategy[int],
) -> str:
    """Seeded texts (a credential of every kind among filler) with runs of ``pieces``
    before, between and after their lines."""
    lines = draw(_SEEDED_TEXTS).split("\n")
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(lines)))
        run = draw(pieces) * draw(repeats)
        glue = draw(_GLUES)
        if at < len(lines) and glue == " ":
            lines[at] = f"{run}{lines[at]}"
        else:
            lines.insert(at, run)
    return "\n".join(lines)


def dense_beside_credentials() -> st.SearchStrategy[str]:
    """Hostile runs long enough to pass the bound beside seeded texts."""
    return runs_beside_credentials(_RUN_PIECES, st.integers(200, 2500))


def judged_but_shown(text: str) -> list[str]:
    """What the judge alone withholds of ``text`` and the bounded search shows."""
    bounded = scan.find_spans(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "DENSE_ALLOWANCE", 1 << 30)  # the judge alone
        judged = scan.find_spans(text)
    return [text[s.start : s.end][:60] for s in judged if not _covered(s, bounded)]


def _covered(span: scan.Span, spans: list[scan.Span]) -> bool:
    pos = span.start
    for s in sorted(spans, key=lambda s: s.start):
        if s.start <= pos < s.end:
            pos = s.end
        if pos >= span.end:
            return True
    return pos >= span.end


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=40, deadline=None)
@given(text=dense_beside_credentials())
def test_the_bound_never_shows_what_the_judge_withholds(engine: Any, text: str) -> None:
    with using_engine(engine):
        assert not judged_but_shown(text)


@settings(max_examples=60, deadline=None)
@given(text=st.one_of(seeded_texts(), dense_beside_credentials()))
def test_a_text_redacts_alike_from_its_own_bytes(text: str) -> None:
    # The pipeline hands the body it decoded the text from, so the search needs no copy.
    assert redact_text(text, data=text.encode()) == redact_text(text)


@needs_hyperscan
def test_a_fetched_page_that_shows_a_dense_stub_says_it_is_withheld() -> None:
    """Found writing the bound: a ``lines=`` page lists what it withholds from the stubs it
    shows, and knew only ``[credential withheld: …]``: a page of the dense stub said nothing."""
    from elision import Budget, shape
    from elision.store import MemoryStore

    store = MemoryStore()
    head = "".join(f"{i:05d} INFO request served\n" for i in range(400))
    body = (head + "api_key=abc\n" * 4000 + head).encode()
    shaped = shape(body, Budget(1024), format="text", store=store)
    assert shaped.envelope is not None
    (entry,) = redact_text(body.decode()).withheld
    at = entry["line"]
    page = store.fetch(shaped.envelope["ref"], lines=f"{at - 2}-{at + 2}", budget=Budget(4096))
    assert "[credential-dense text withheld:" in page.text
    assert page.envelope is not None and not page.complete
    assert [e["reason"] for e in page.envelope["withheld"]] == ["credential-dense"]


class _CountingDatabase:
    """A hyperscan database that counts the Python calls its scans make."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.calls = 0

    def scan(self, data: Any, match_event_handler: Callable[..., Any], **kwargs: Any) -> Any:
        def counted(*args: Any) -> Any:
            self.calls += 1
            return match_event_handler(*args)

        return self.db.scan(data, match_event_handler=counted, **kwargs)


#: The hostile forms a line at a time: a stretch of many lines, so many windows to go on through.
LINES = [
    pytest.param("api_key=abc\n", id="assignment-lines"),
    pytest.param("password=hunter2\n", id="assignments"),
    pytest.param("Authorization: Bearer x\n", id="headers"),
    pytest.param("sk- ghp_ AKIA eyJ\n", id="mixed-keywords"),
    pytest.param("A\n", id="short-lines"),  # no trigger: never dense
    # A pair's quoted name with nothing assigned after it (text-pairs): counted in C by its
    # pair's name key; overdense's forms took only an assigned quoted name, 30 -> 56 ms a MB.
    pytest.param('{"name":"api_key","value":"abc"}\n', id="pair-lines"),
]


@needs_hyperscan
@pytest.mark.parametrize("unit", LINES)
def test_a_dense_stretch_costs_a_window_of_calls_not_a_window_each(unit: str) -> None:
    """Found profiling ``bench/redact.py``'s worst rows (issue 23): 1 MB of ``api_key=abc``
    lines cost 4-6x prose to redact with the bound, all of it Python calls, seventeen for every
    4 KB window of the stretch (its own matches, counted to tell it goes on)."""
    engine = HYPERSCAN[0]
    text = unit * (MB // len(unit))
    triggers.dense_text_triggers(text[:WINDOW * 8], engine)  # the scratch space, made
    counting = _CountingDatabase(engine.text_literals)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "text_literals", counting)
        _, dense = triggers.dense_text_triggers(text, engine)
    assert bool(dense) is (unit != "A\n")
    assert counting.calls <= 3 * LIMIT  # was 4,436 for the lines: 101 + 17 a window


def _counted_by_calls(text: str, engine: Any) -> list[tuple[int, int]]:
    """The dense stretches of ``text`` when every window is counted by the match handler (or
    by the passes), none in C: what the counts in C must never go past."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_FORMS", 0)  # every window counted by the match handler
        mp.setattr(density, "_form", lambda *args: None)  # ... or by the passes
        _, slow = triggers.dense_text_triggers(text, engine)
    return scan._dense_stretches(text, slow)


def _run_then_assignments(run: str, tail: str) -> str:
    """Two lines of a hostile ``run`` (the first ends in the stretch's fourth window, the
    second in its seventh), a line of ``password=x`` that fills the rest of that window
    with just about a hundred matches, a URL, then ``tail``."""
    lines = run * (15000 // len(run)), run * (12564 // len(run)), "password=x " * 200
    return "\n".join([*lines, "postgres://admin:K000000@db:5432/x", tail])


_LOG = "".join(f"{i:04d} INFO request served\n" for i in range(300))


@pytest.mark.parametrize(
    ("run", "tail"),
    [
        # The example Hypothesis stored (its repr 34 kB): escapes, assignments, a URL.
        pytest.param("\\u0041", "\n", id="stored-example"),
        # ... and log lines after it, which the stretch withheld too: 120 lines, 3 kB.
        pytest.param("\\u0041", _LOG, id="escapes-then-log"),
        pytest.param("%41", _LOG, id="percent-escapes-then-log"),
        pytest.param("sk- ", _LOG, id="keywords-then-log"),
        pytest.param("A", _LOG, id="run-of-A-then-log"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_stretch_counted_in_c_goes_on_into_the_window_its_last_line_ends_in(
    engine: Any, run: str, tail: str
) -> None:
    """Found by the property test below (a Hypothesis example stored across sessions, red
    under either engine setting): a stretch counted in C (``_goes_on``) ended its last range
    with its window, so the window its last line ended in was counted as a fresh one (a
    hundred matches, not sixteen): the line of assignments there was read, the next window
    turned dense from its start and was withheld to its end, log lines past the stretch
    with it."""
    text = _run_then_assignments(run, tail)
    _, fast = triggers.dense_text_triggers(text, engine)
    slow = _counted_by_calls(text, engine)
    assert [(a, b) for a, b in fast if not any(c <= a and b <= d for c, d in slow)] == []
    with using_engine(engine):
        assert redact_text(text).value.endswith(tail)  # the lines after the stretch shown


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=40, deadline=None)
@given(text=dense_beside_credentials())
def test_counting_a_stretch_in_c_withholds_no_more_than_the_calls_did(
    engine: Any, text: str
) -> None:
    # The counts in C are of a few forms only, so they may end a stretch sooner than the
    # match handler's (or the passes') count: the judge then reads the rest. Never later.
    _, fast = triggers.dense_text_triggers(text, engine)
    slow = _counted_by_calls(text, engine)
    for a, b in fast:
        assert any(c <= a and b <= d for c, d in slow), (a, b)
