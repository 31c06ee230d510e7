"""Hostile review of two skips in the text and array judges (review, 2026-12-04).

Both were found by mutating the optimization and seeing no test go red:

* ``scan._whole`` judges a crowded ASCII piece (1-16 KB, a family keyword every few hundred
  chars) in one call, each family's pattern only on the lines that hold its keyword. That
  holds only for families whose pattern cannot read across a line break
  (``_line_local``); dropping that check let ``basic\\n<token>`` and
  ``mistral_key:\\n  <key>`` through in a crowded text, and every test stayed green.
* ``batch.none_may_withhold`` clears an array of short trigger-bearing strings when no
  string is as long as a present family's shortest match, and else searches the families
  whose shortest match a string reaches. Switching that search off left every test green:
  their short strings were never long enough to reach one. An 18-char Alibaba key id (the
  family's shortest match is 16) among ``"sk-0"``, ``"sk-1"``, ... is such a string.
  Its ``_marks`` test (a generic name, an escape or a URL mark lets other rules run) was
  not held either: without it, ``api_key=K9q2Lm4x`` among 4,000 such strings went through.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value, scan
from elision.redact.batch import none_may_withhold

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"

#: Credentials of families whose pattern reads across a line break (``\\s`` between the
#: name and the value), each spelled over two lines: (text with ``{}`` for the secret, the
#: secret's alphabet, its length).
_WRAPPED = [
    ("basic\n{}", ALNUM, 28),
    ("Authorization: Basic\r\n  {}", ALNUM, 28),
    ("mistral_key:\n  {}", ALNUM, 32),
    ("wandb_key:\n\t{}", HEX, 40),
    ("zendesk_token:\n  {}", ALNUM, 40),
]


def _filler(i: int) -> str:
    # One family keyword a line of ~300 chars: crowded enough to be judged whole, too few
    # keywords to be halved; no URL mark, no generic name, no escape.
    return f"sk-a{i} " + "lorem ipsum dolor sit amet " * 11 + str(i)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    shape=st.sampled_from(_WRAPPED),
    secret=st.data(),
    at=st.integers(0, 119),
    lines=st.integers(12, 120),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_a_credential_wrapped_over_a_line_in_a_crowded_text_is_withheld(
    shape: tuple[str, str, int], secret: st.DataObject, at: int, lines: int, newline: str,
) -> None:
    template, alphabet, size = shape
    value = "K9" + secret.draw(st.text(alphabet, min_size=size - 2, max_size=size - 2)
                               .filter(lambda s: len(set(s)) > 12))
    rows = [_filler(i) for i in range(lines)]
    rows.insert(min(at, lines), template.format(value))
    text = newline.join(rows)
    assume(scan.find_spans(template.format(value)))  # else a placeholder (entropy floor)
    done = redact_text(text)
    assert value not in done.value
    assert value[:12] not in done.value


_ALIBABA = "LTAI"


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    tail=st.text(ALNUM, min_size=12, max_size=15).filter(lambda s: len(set(s)) > 6),
    count=st.integers(32, 300),
    at=st.data(),
    pad=st.integers(0, 70_000),
)
def test_a_short_key_among_short_trigger_strings_is_not_cleared(
    tail: str, count: int, at: st.DataObject, pad: int,
) -> None:
    """An Alibaba key id of 16-19 chars (shorter than a base64 run) among numbered ``sk-``
    strings, anywhere, the array padded so that it may fall across a 64 KB block."""
    key = _ALIBABA + tail
    texts = [f"sk-{i}" for i in range(count)]
    texts.insert(at.draw(st.integers(0, count)), key)
    if pad:
        texts[:0] = [f"sk-{i:06d}" for i in range(pad // 11)]
    assume(scan.find_spans(key))  # else a placeholder the family keeps (entropy floor)
    data = orjson.dumps(texts)
    assert not none_may_withhold(data, 1, len(data) - 1)
    done = redact_value(texts, body=data)
    assert key not in orjson.dumps(done.value).decode()


@pytest.mark.parametrize("short", [
    "?sig=Kx9mQ2vLa8",  # a signed URL's parameter: the URL rules, not a family
    "secret: Kx9mQ2vL",  # a generic name and its value
    "api_key=K9q2Lm4x",
    "password=Kx9mQ2vL",
    "pwd=Zx9Kq2Lm4",
])
@pytest.mark.parametrize("at", [0, 1_234, 3_999])
def test_a_short_generic_credential_among_many_trigger_strings_is_withheld(
    short: str, at: int,
) -> None:
    """Found by mutation (review): ``none_may_withhold`` without its ``_marks`` test cleared
    4,000 numbered ``sk-`` strings holding one of these, though no family matches them: a
    generic name or a URL mark lets rules run that its family search does not stand for."""
    texts = [f"sk-{i}" for i in range(4_000)]
    texts.insert(at, short)
    assert scan.find_spans(short)
    data = orjson.dumps(texts)
    done = redact_value(texts, body=data)
    assert [w["path"] for w in done.withheld] == [f"$[{at}]"]
    assert short not in orjson.dumps(done.value).decode()


def _judged_whole_families() -> list[tuple[str, str]]:
    from elision.redact.families import PATTERN_FAMILIES, sample
    from elision.redact.scan import _line_local

    fakes = []
    for index, family in enumerate(PATTERN_FAMILIES):
        if not _line_local(index):
            continue
        for shape in range(len(family.shapes)):
            text = sample(family, shape, "review")[0]
            if scan.find_spans(text) and text.isascii() and not any(
                    mark in text for mark in ("=", "%", "@", "\n")):
                fakes.append((family.id, text))
    return fakes


@pytest.mark.parametrize(("family", "fake"), _judged_whole_families())
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_every_line_local_family_is_withheld_in_a_crowded_piece(
    family: str, fake: str, newline: str,
) -> None:
    """Each fake a crowded piece may be judged whole with (a line-local family, no URL mark)
    is withheld there, on the first, a middle and the last line of the piece and of the
    text: the keyword-led patterns are tried only where their keywords open
    (``secrets._opening``), the others on their keywords' lines (``secrets._lines``)."""
    rows = [_filler(i) for i in range(80)]
    for n, at in enumerate((0, 1, 40, 54, 55, 80)):  # ~16 KB lies near line 54
        rows.insert(at, f"x {fake} y" if n % 2 else fake)  # alone: it ends at the break
    text = newline.join(rows)
    done = redact_text(text)
    assert fake not in done.value, family
