"""Many keys' base64 runs are told in C to open with no keyword's head and hold no window, and
what is withheld is what asking each run did (issue 23).

Found by ``bench/redact.py --worst json-keys-A`` (21x prose, CPU): the pass over an object's
keys (:func:`elision.redact.batch.may_withhold`) asked each of the 13,500 keys of sixty ``A``
a MB for its head in a Python step, and searched them all for a window with the regex, which
reads a run of ``A`` a char at a time: 6 of the 14 ms. The runs' first four chars are now
told against the heads from a split of the runs' chars, and the windows by one hyperscan pass
of their own patterns.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import batch, triggers
from elision.redact.families import FAMILIES, sample
from elision.redact.keywords import B64_HEADS, B64_WINDOW
from support.before import redacted
from support.calls import window_searches

FAKES = [sample(f, 0, "keys")[0] for f in FAMILIES if f.finder != "field"]
#: What the three windows' families hold around their mid-token keyword (Telegram's ``:AA``,
#: Azure's ``Q~``, Mailchimp's ``-us``), to be spelled in base64 at every offset.
WINDOWED = ["123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "abc8Q~def0123456789abcdefghij",
            "0123456789abcdef0123456789abcdef-us12", "12:AAx", "8Q~ab", "ab-us1"]
HEADS = sorted(B64_HEADS)


def _b64(text: str, shift: int, urlsafe: bool) -> str:
    data = ("x" * shift + text).encode()
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()


RUNS = st.one_of(
    st.integers(0, 80).map(lambda n: "A" * n),
    st.builds(_b64, st.sampled_from(WINDOWED + FAKES), st.integers(0, 2), st.booleans()),
    st.builds(lambda h, n: h + "Q" * n, st.sampled_from(HEADS), st.integers(0, 30)),
    st.text(alphabet="AQUFBaz09+/_-=", max_size=60),
    st.sampled_from(FAKES),
    # A keyword's head and then text, not the keyword's whole form: only the head tells (in
    # whole groups of three bytes: a padding "=" is a URL rule's mark, which flags it too).
    st.builds(lambda f, t: base64.b64encode((f[:3] + t * 3).encode()).decode(),
              st.sampled_from(FAKES), st.text(alphabet="abc xyz", min_size=5, max_size=13)),
)
GLUE = st.sampled_from(["", " ", "\n", "=", "==", ".", ":", '"', "\\n", "%", "@"])


@st.composite
def _ascii(draw: st.DrawFn) -> str:
    return "".join(draw(GLUE) + draw(RUNS) for _ in range(draw(st.integers(0, 8))))


_RUN_CHARS = re.compile(r"[A-Za-z0-9+/_-]+")


@settings(max_examples=400, deadline=None)
@given(text=_ascii())
@example(text=_b64("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", 1, False))
@example(text="x.Z2hw" + "A" * 30)
def test_quiet_runs_are_those_with_no_head_at_their_start_and_no_window(text: str) -> None:
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    headed = any(m.group()[:4] in B64_HEADS for m in _RUN_CHARS.finditer(text))
    window = B64_WINDOW.search(text) is not None
    assert triggers.quiet_runs(text) is (not headed and not window)


WINDOW_RUN = _b64("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", 1, False)


@pytest.mark.parametrize("odd", ["Z2hw" + "A" * 30, WINDOW_RUN])
@pytest.mark.parametrize("shift", [-40, -12, -5, -4, -3, -1, 0, 1, 3, 30])
def test_a_head_or_a_window_across_a_blocks_end_is_seen(odd: str, shift: int) -> None:
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    at = triggers._QUIET_BLOCK + shift
    text = "x " * (at // 2) + " " * (at % 2) + odd + " tail" * 10
    assert text[at:at + len(odd)] == odd
    assert triggers.quiet_runs(text) is False
    assert triggers.quiet_runs(text.replace(odd, "A" * 40)) is True



def test_quiet_runs_is_one_pass_a_block_over_the_data_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: each block was scanned twice, the heads over a translated copy of it (the
    copy half the cost), 1.1 ms a MB of NDJSON records' keys (issue 23, the ndkeys2 helper's
    profile of ``ndjson-sk-lines``)."""
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    engine = triggers.engine()
    scanned: list[bytes] = []
    scan = type(engine)._matches

    def counting(self: Any, db: Any, name: str, data: bytes) -> bool:
        scanned.append(bytes(data))
        return scan(self, db, name, data)

    monkeypatch.setattr(type(engine), "_matches", counting)
    text = "x " * (3 * triggers._QUIET_BLOCK // 2)
    assert triggers.quiet_runs(text) is True
    assert len(scanned) == 3
    assert all(text.encode().startswith(data, i * triggers._QUIET_BLOCK)
               for i, data in enumerate(scanned))

def _odd(i: int, folds: bool) -> st.SearchStrategy[str]:
    suffix = f"{i:08d}"
    keys = [
        RUNS.map(lambda r: r + suffix),
        RUNS.map(lambda r: f"{r} {suffix}"),  # the run ends before the suffix
        st.builds(lambda g, r: g + r + suffix, GLUE, RUNS),
        st.sampled_from(["password", "api_key", "note"]).map(lambda n: n + suffix),
    ]
    if folds:  # a key past ASCII sends the others to be asked apart (in one pass if many)
        keys.append(st.sampled_from(["k\u0130y", "\u212aey", "AQ\u017f"]).map(
            lambda n: n + suffix))
    return st.one_of(keys)


@st.composite
def _keys(draw: st.DrawFn) -> list[str]:
    """Keys of ``A`` (the hostile map's) with a few odd ones among them: one run with a head,
    a window or a keyword's form is what the pass must still flag."""
    count = draw(st.integers(batch.BATCH, 4 * batch.BATCH))
    keys = [f"{'A' * draw(st.integers(20, 70))}{i:08d}" for i in range(count)]
    folds = draw(st.booleans())
    for at in draw(st.lists(st.integers(0, count - 1), max_size=3)):
        keys[at] = draw(_odd(at, folds))
    return keys


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(keys=_keys())
def test_the_runs_told_in_c_flag_what_asking_each_run_flagged(
    monkeypatch: pytest.MonkeyPatch, keys: list[str],
) -> None:
    fast = batch.may_withhold(keys)
    with monkeypatch.context() as mp:  # undone each example: the fixture is the test's
        mp.setattr(batch, "_RUNS_TOLD", False)
        assert fast == batch.may_withhold(keys)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(keys=_keys())
def test_an_object_of_many_keys_is_redacted_as_with_each_run_asked(
    monkeypatch: pytest.MonkeyPatch, keys: list[str],
) -> None:
    payload = orjson.dumps({k: i for i, k in enumerate(keys)}).decode()
    fast = redacted("json", payload)
    with monkeypatch.context() as mp:
        mp.setattr(batch, "_RUNS_TOLD", False)
        assert fast == redacted("json", payload)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=_keys())
def test_an_object_of_many_keys_is_redacted_as_before(
    code_before_answers: Callable[[str, str], Any], keys: list[str],
) -> None:
    payload = orjson.dumps({k: i for i, k in enumerate(keys)}).decode()
    assert redacted("json", payload) == code_before_answers("json", payload)


def test_keys_of_a_are_not_searched_for_windows_by_the_regex(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: the regex read every char of the keys (each block once its runs were
    most of it, and the first 32 runs each)."""
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    keys = [f"{'A' * 60}{i:08d}" for i in range(3000)]
    searched = window_searches(monkeypatch, batch)
    assert batch.may_withhold(keys) == set()
    assert sum(searched) < sum(map(len, keys)) // 100, sum(searched)


@pytest.mark.parametrize(("odd", "told"), [
    (None, True),  # keys of ``A``: no head, no window
    ("Z2hw" + "A" * 30, False),  # a run that opens with a keyword's head (``ghp``)
    ("x." + "Z2hw" + "A" * 30, False),  # the same after a char no run holds
    ("AAZ2hw" + "A" * 30, True),  # the head mid-run opens nothing
    (_b64("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", 1, False), False),  # a window
    ("Z2h", True),  # too short a word to open anything
])
def test_a_head_or_a_window_among_many_keys_is_left_to_the_runs_loop(
    odd: str | None, told: bool,
) -> None:
    if triggers.engine_name() != "hyperscan":
        pytest.skip("hyperscan is not installed")
    assert "Z2hw" in B64_HEADS
    keys = [f"{'A' * 60}{i:08d}" for i in range(300)]
    if odd is not None:
        keys[123] = odd
    assert batch._no_run_opens_or_holds_a_window("\n".join(keys)) is told
