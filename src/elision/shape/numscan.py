"""Whether a JSON body may hold a number that orjson would re-spell, found before it is parsed.

orjson reads ``1E5`` as ``100000.0``, ``1.50`` as ``1.5``, ``-0`` as ``0``, integers past 64
bits as floats, and writes numbers below 1e-5 with an exponent. :func:`risky_numbers` tells
:func:`~elision.shape.jsonparse.parse_json` when its fast path (orjson) could change a kept
value. It looks in number context, after ``:`` ``,`` or ``[`` and optional whitespace, for a
number that

* starts ``0.00000`` (below 1e-5; ``-`` allowed before it, as before every case below),
* runs to 17 or more digits and points (16+ significant digits may not survive a double;
  integers of 19+ digits may pass 64 bits),
* is ``-0`` (a point, or a digit, after it makes it another number),
* has an exponent, or
* has a fraction of two or more digits ending in ``0`` (``1.0`` is orjson's own spelling).

A string that merely looks like one of these after ``": "`` is flagged too; that only sends the
body down the exact path, which costs speed, never exactness.

Two engines find exactly the same things (a differential test holds them to it):

hyperscan
    one pass over the body, 3-6x faster than the regex passes (0.06-0.4x of an orjson parse
    from 0.4 to 100 MB, where they cost 0.3-1.6x: ``bench/jsonparse.py``); used for bodies of
    :data:`HYPERSCAN_FROM` bytes and more when it is installed (a default dependency where it
    has wheels), so its one-off compile (10-30 ms) is paid once a larger body arrives, never
    by a process that sees only small ones.
regex
    one pass per anchor byte: a literal first byte lets the regex engine skip ahead with a fast
    search (a class like ``[:,[]`` cannot), and the lookahead drops the common case, a string
    value, after one byte.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from typing import Any

from elision._hyperscan import built_with_hyperscan, database
from elision._lazyre import lazy_compile

log = logging.getLogger("elision.shape")

#: Bodies this large or larger are scanned with hyperscan when it is installed. Below it the
#: regex passes cost at most ~0.1 ms, and a process that sees only such bodies never compiles.
HYPERSCAN_FROM = 16 * 1024

# --------------------------------------------------------------------------- the regex passes

_RISKY_NUMBER = (
    rb"[ \t\n\r]*+(?=[-0-9])-?+"
    rb"(?:0\.00000"  # below 1e-5 orjson switches to 1e-6
    rb"|[0-9.]{17}"  # 16+ significant digits may not survive a double; 19+ digits, 64 bits
    rb"|0(?![.0-9])(?<=-0)"  # orjson reads -0 as 0
    rb"|[0-9]++(?:(\.)[0-9]++)?+"
    rb"(?:[eE]"  # orjson writes 1E5 as 100000.0
    rb"|(?(1)(?<=[0-9]0)|(?!))))"  # 1.50 comes back as 1.5 (1.0 is fine)
)
_RISKY = tuple(lazy_compile(re.escape(anchor) + _RISKY_NUMBER) for anchor in (b":", b",", b"["))


def regex_risky_numbers(body: bytes) -> bool:
    """The regex passes: whether ``body`` may hold a number orjson would re-spell."""
    return any(pattern.search(body) is not None for pattern in _RISKY)


# --------------------------------------------------------------------------- hyperscan

# The same cases as _RISKY_NUMBER, one expression each, without look-arounds: what the regex
# checks after a number (no digit, no point) is a byte the match takes, or the end of the body.
_CONTEXT = rb"[:,\[][ \t\n\r]*"
_EXPRESSIONS = (
    _CONTEXT + rb"-?0\.00000",
    _CONTEXT + rb"(?:-[0-9.]|[0-9])[0-9.]{16}",  # after a "-" the regex takes a point too
    _CONTEXT + rb"-0(?:[^.0-9]|\z)",
    _CONTEXT + rb"-?[0-9]+(?:\.[0-9]+)?[eE]",
    _CONTEXT + rb"-?[0-9]+\.[0-9]*[0-9]0(?:[^0-9]|\z)",
)


class _Hyperscan:
    def __init__(self, hs: Any) -> None:
        self.hs = hs
        self.db = database(hs, list(_EXPRESSIONS), [hs.HS_FLAG_SINGLEMATCH] * len(_EXPRESSIONS))
        self._local = threading.local()

    def __call__(self, body: bytes) -> bool:
        # A scan releases the GIL, so each thread needs scratch space of its own.
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self.hs.Scratch(self.db)
        found: list[int] = []
        # The first match ends the scan (one is enough), which hyperscan reports by raising.
        with contextlib.suppress(self.hs.ScanTerminated):
            self.db.scan(body, match_event_handler=_stop, context=found, scratch=scratch)
        return bool(found)


def _stop(expression: int, start: int, end: int, flags: int, found: list[int]) -> bool:
    found.append(expression)
    return True


_lock = threading.Lock()
_engine: list[_Hyperscan | None] = []


def hyperscan_engine() -> _Hyperscan | None:
    """The hyperscan scan, compiled on first use; ``None`` where hyperscan is not usable."""
    if not _engine:
        with _lock:
            if not _engine:
                _engine.append(_compile())
    return _engine[0]


def _compile() -> _Hyperscan | None:
    return built_with_hyperscan(_Hyperscan, log, "the number scan uses the regex passes")


def risky_numbers(body: bytes, *, scan_from: int = HYPERSCAN_FROM) -> bool:
    """Whether ``body`` may hold a number orjson would re-spell (false positives allowed).

    ``scan_from`` is the least size hyperscan scans: a caller scanning many small pieces
    (the lazy read's batches) passes 0, where the regex passes cost ~30 ns a byte each."""
    if len(body) >= scan_from:
        engine = hyperscan_engine()
        if engine is not None:
            return engine(body)
    return regex_risky_numbers(body)
