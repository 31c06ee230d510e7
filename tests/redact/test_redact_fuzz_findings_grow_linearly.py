"""The fuzzer's memory findings hold memory in proportion to the input (issue 23).

Found by ``bench/fuzz_linear.py`` at 64 KB-1 MB: ``pem-escaped-end`` (memory exponent 1.37),
``text-pairs`` (1.42) and ``json-pairs`` (1.32) were flagged, and ``json-secret-keys-distinct``
read a time exponent of 1.46. The superlin session measured them again: traced (tracemalloc)
their peaks are a fixed multiple of the input from 256 KB to 2 MB, and the harness's own
figures over 256 KB-4 MB are 0.94-1.04. What grew was the harness's smallest size: its child
warms up on 64 KB of the same class, and at 64 KB the call reuses the pools that warm-up freed,
so its RSS peak read 1.3-8x the input where the larger sizes read 4.6-16x. (The distinct keys'
time: the 64 KB warm-up answered every key of the 64 KB input from the judges' 4,096-answer
caches; 1, 2 and 4 MB cost 1.15, 2.49 and 5.01 s of CPU, linear, so no test here.)

The memexp session measured four more the fuzzer flags over 256 KB-4 MB, on the code before too:
``md-wide-delimiters-json`` (memory exponent 1.32-1.65), ``plist-keys`` with ``re``
(1.53-1.58), ``fcm-glued`` and ``fcm-after-mask`` (1.5-1.6). Traced, each holds a fixed multiple
of its input at 256 KB, 1, 2 and 4 MB; its RSS is that multiple from 1 MB on, lower at 256 KB,
where part of a few MB's peak lands in what the process holds already. The three that
withhold an entry a row are bounded here (``fcm-glued`` withholds one key for the whole run).

These tests bound the traced peak at N and 4N chars: a linear call holds at most about four
times as much (fixed costs make the ratio smaller); a call whose memory grew with the square of
its input would hold sixteen times as much. No clock: traced allocations do not depend on the
load.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from elision.redact import redact_text, redact_value

KB = 1 << 10
#: 4x the input holds at most this much more than 4x the peak (fixed costs make it less).
SLACK = 1.3

#: A fake key's body line, as bench/fuzz_linear.py spells its glued keys.
_LINE = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v"
#: Keys glued end to end whose closing armour is spelled with a ``\u`` escape: each read
#: decoded to find where it ends, the first key's pattern run to the text's end.
_PEM_ESCAPED_END = ("-----BEGIN PRIVATE KEY-----\n" + f"{_LINE}\n" * 4
                    + "-----EN\\u0044 PRIVATE KEY-----\n")


#: A table under a delimiter row wider than its header, and one under a spaced row: each row
#: judged by its column's name (``password``, ``token``) and its cell withheld.
_WIDE_DELIMITERS = ("name | password\n" + "-" * 40 + "  | ---\nbob | hunter2x\n"
                    "| name | token |\n|   ---  |---|\n| bob | hunter2x |\n")
#: Firebase Cloud Messaging tokens (``…:APA91b`` and a long base64 tail) after ``xxxx``, a space
#: between them: a token withheld every 215 chars.
_FCM_AFTER_MASK = "xxxxAAAA" + "b" * 7 + ":APA91b" + (_LINE * 3) + " "


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: unit * max(1, size // len(unit))


def _json_pairs(size: int) -> bytes:
    # A Kubernetes env listing: each value judged by its sibling's name and withheld.
    return orjson.dumps([{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"}
                         for i in range(max(1, size // 40))])


def _json_strings(unit: str) -> Callable[[int], bytes]:
    # The unit as many strings of one array: each string judged alone.
    return lambda size: orjson.dumps([unit] * max(1, size // (len(unit) + 3)))


def _call(payload: str | bytes) -> Any:
    if isinstance(payload, str):
        return redact_text(payload)
    return redact_value(orjson.loads(payload), body=payload)


def _traced_peak(payload: str | bytes) -> tuple[int, int]:
    """The call's traced peak, and how many entries it withheld."""
    tracemalloc.start()
    try:
        withheld = len(_call(payload).withheld)
        return tracemalloc.get_traced_memory()[1], withheld
    finally:
        tracemalloc.stop()


#: 32 KB and up: below it a piece's or a lazy read's threshold makes a step (16 to 32 KB of
#: pairs traced 4x the memory, then 32 to 64 KB the same).
CASES = [
    pytest.param(_repeat(_PEM_ESCAPED_END), id="pem-escaped-end"),
    pytest.param(_repeat('{"name":"api_key","value":"abc"}\n'), id="text-pairs"),
    pytest.param(_json_pairs, id="json-pairs"),
    pytest.param(_json_strings(_WIDE_DELIMITERS), id="md-wide-delimiters-json"),
    pytest.param(_repeat("<key>password</key>\n<string>hunter2x</string>\n"), id="plist-keys"),
    pytest.param(_repeat(_FCM_AFTER_MASK), id="fcm-after-mask"),
]


@pytest.mark.parametrize("make", CASES)
def test_a_fuzz_finding_holds_memory_in_proportion_to_its_input(
        make: Callable[[int], str | bytes]) -> None:
    _call(make(4 * KB))  # databases and caches, built
    (small_peak, withheld), (large_peak, _) = _traced_peak(make(32 * KB)), _traced_peak(
        make(128 * KB))
    assert withheld, "the class withholds: its costly path is the one measured"
    grown = large_peak / small_peak
    assert grown <= 4 * SLACK, f"4x the input held {grown:.1f}x the memory"
