"""The trigger search's and the text scan's shortcuts find what the long way finds.

Shortcuts keep a large text's redaction under the shaper's cost, and each must be exact:

* the userinfo pattern (``scheme://user:password@``) is tried only in a window before each "@"
  and "%40" that the one literal pass reports, not in a second hyperscan pass over the whole
  text (every ordinary URL's "://" kept that pass busy); the windows must flag every userinfo
  the URL rules can withhold, up to their 256-char bounds in 4-byte chars;
* the multi-line key rules (PEM, PuTTY, SSH2) run from each keyword a flagged piece holds, not
  over the whole text after a search of all of it for each keyword.

And the test of a base64 run for the keywords' base64 forms looks each offset up once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, scan, triggers
from elision.redact.families import BY_ID, sample
from elision.redact.keywords import BASE64, holds_base64_form
from elision.redact.scan import _MULTILINE, _merge, _precise, find_spans
from redact.test_redact_prefilter_differential import seeded_texts
from support.engines import using_engine

HYPERSCAN = [e for e in triggers.engines() if isinstance(e, triggers._Hyperscan)]
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")

FILLER = "2026-11-30T12:00:00Z INFO the quick brown fox https://example.com/p/1 ok\n"
#: A char of four UTF-8 bytes: the farthest a userinfo of 256 chars can reach back.
WIDE = "\U0001d49c"


@contextmanager
def _whole_pass() -> Iterator[None]:
    """The userinfo pattern over all of the data, as before the windows."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "_WINDOWS_SHARE", 10**18)
        yield


def _userinfo_seeds() -> st.SearchStrategy[str]:
    pw = st.text("abcdefghijkmnopqrstuvwxyzK0123456789", min_size=1, max_size=12)
    user = st.text("abcdefghijkmnopqrstuvwxyz:%@é" + WIDE, max_size=12)
    return st.builds(
        lambda head, u, p, at, tail: f"{head}{u}:{p}{at}{tail}",
        st.sampled_from(["https://", "HTTPS://", "https:\\/\\/", "https%3A%2F%2F", "x://", ""]),
        user, pw, st.sampled_from(["@", "%40", "%40@", "@@", ""]),
        st.sampled_from(["db:5432/x", "h/", "", " mail@example.com"]),
    )


@needs_hyperscan
@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.one_of(_userinfo_seeds(), st.just(FILLER.strip()), seeded_texts()),
                      min_size=1, max_size=30))
def test_userinfo_windows_flag_what_the_whole_pass_flags(lines: list[str]) -> None:
    engine = HYPERSCAN[0]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    body = b'{"v": "' + data.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    body += b'"}'
    got = [sorted(engine.scan(data, keys=keys)[0]) for keys in (False, True)]
    kinds = engine.body_kinds(body)
    with _whole_pass():
        assert got == [sorted(engine.scan(data, keys=keys)[0]) for keys in (False, True)]
        assert kinds == engine.body_kinds(body)


@needs_hyperscan
@pytest.mark.parametrize("at", ["@", "%40"])
@pytest.mark.parametrize("head", ["https://", "https%3a%2f%2f"])
def test_a_userinfo_as_long_as_the_url_rule_reads_is_flagged_far_from_anything_else(
    head: str, at: str
) -> None:
    """256 chars of user and 256 of password, each of four bytes: the window before the "@"
    must reach back to the scheme, or the long text's piece is never read."""
    url = f"{head}{WIDE * 256}:{WIDE * 255}K{at}db.example.com/x"
    text = FILLER * 40 + url + "\n" + FILLER * 40
    with using_engine(HYPERSCAN[0]):
        spans = find_spans(text)
    assert spans == _merge(_precise(text, 0))
    assert [s.rule for s in spans] == ["url-userinfo"]


def test_each_multiline_rule_opens_with_its_keyword() -> None:
    """The scan runs a key rule only from where its keyword is: a match must start there."""
    for rule in _MULTILINE:
        assert rule.pattern is not None
        assert rule.pattern.pattern.startswith(rule.keywords[0])


def _key(family: str, seed: int) -> str:
    return sample(BY_ID[family], 0, seed)[0]


_PEM = _key("private-key", 1)


def _long_pem(seed: int) -> str:
    """A key of 40 body lines: longer than a piece, so only the whole-text rule sees all of it."""
    import random

    rng = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = "\n".join("".join(rng.choice(alphabet) for _ in range(64)) for _ in range(40))
    return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"


_CASES = {
    # a key past the first chunk, and one across a chunk's end
    "past-a-chunk": FILLER * 1200 + _PEM + "\n" + FILLER * 3,
    "across-a-chunk": FILLER * ((1 << 16) // len(FILLER)) + _PEM + "\n" + FILLER,
    # two keys, and an armour named in prose before a real key
    "two-keys": FILLER * 30 + _PEM + "\n" + FILLER * 30 + _key("private-key", 2) + "\n",
    # two keys in one piece, the second longer than a piece
    "two-keys-one-piece": FILLER * 30 + _PEM + "\n" + _long_pem(5) + "\n" + FILLER * 30,
    "armour-mentioned": "see -----BEGIN RSA PRIVATE KEY----- below\n" + FILLER * 30 + _PEM,
    # a key with no end line runs to the end of the text
    "unterminated": FILLER * 30 + _PEM.rsplit("\n", 1)[0] + "\n" + FILLER * 30,
    "putty": FILLER * 30 + _key("putty-private-key", 3) + "\n" + FILLER * 30,
    "ssh2": FILLER * 30 + _key("ssh2-private-key", 4) + "\n" + FILLER * 30,
    # a key inside a key's body: finditer skips it, so must the scan
    "nested": FILLER * 10 + _PEM.replace("\n", "\n" + _PEM + "\n", 1) + "\n" + FILLER,
}


@pytest.mark.parametrize("engine", triggers.engines(),
                         ids=lambda e: type(e).__name__.strip("_").lower())
@pytest.mark.parametrize("name", sorted(_CASES))
def test_keys_in_a_long_text_are_found_as_on_the_whole_text(engine: Any, name: str) -> None:
    text = _CASES[name]
    with using_engine(engine):
        spans = find_spans(text)
        redacted = redact_text(text)
    assert spans == _merge(_precise(text, 0))
    assert any(s.rule.endswith("private-key") for s in spans)
    assert redacted.value.count("\n") == text.count("\n")


@pytest.mark.parametrize("engine", triggers.engines(),
                         ids=lambda e: type(e).__name__.strip("_").lower())
def test_keys_are_found_with_pieces_of_every_size(engine: Any) -> None:
    text = _CASES["two-keys"] + _CASES["nested"]
    unfiltered = _merge(_precise(text, 0))
    for chunk, piece in ((64, 16), (200, 48), (1 << 16, 1 << 10)):
        with using_engine(engine), pytest.MonkeyPatch.context() as mp:
            mp.setattr(scan, "CHUNK", chunk)
            mp.setattr(scan, "PIECE", piece)
            assert find_spans(text) == unfiltered


_B64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-= \"'"


@settings(max_examples=300, deadline=None)
@given(run=st.text(_B64_CHARS, max_size=60), form=st.sampled_from(sorted(BASE64)),
       cut=st.integers(0, 1), at=st.integers(0, 60))
def test_a_run_holds_a_base64_form_as_a_search_for_each_form_says(
    run: str, form: str, cut: int, at: int
) -> None:
    """The lookup by each offset's first five chars answers as a substring search for every
    form would; a form cut one char short must not count."""
    at = min(at, len(run))
    spliced = run[:at] + form[:len(form) - cut] + run[at:]
    for text in (run, spliced):
        assert holds_base64_form(text) == any(f in text for f in BASE64)
