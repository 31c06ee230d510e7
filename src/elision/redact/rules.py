"""Rule ids, stubs and the cheap pre-filter every precise rule sits behind.

A rule id is the ``reason`` written into the envelope's ``withheld`` entries. The pre-filter is a
superset test: a text it rejects cannot match any precise rule in :mod:`~elision.redact.urls` or
:mod:`~elision.redact.secrets`, so most of a large result is never looked at twice. Every
precise pattern must therefore contain at least one of the pre-filter's literals (the fixture
corpus checks that each true positive passes the pre-filter).
"""

from __future__ import annotations

import re
import secrets
from typing import NamedTuple

#: Reasons for values withheld by the reference-lane rules (:mod:`elision.redact.references`).
SIGNED_URI = "signed-uri"
INLINE_WITH_URI = "inline-with-uri"
DISPOSITION_REF = "disposition-ref"
DISPOSITION_NEVER = "disposition-never"


class Span(NamedTuple):
    """A stretch ``text[start:end]`` that a rule withholds."""

    start: int
    end: int
    rule: str


# Lower-cased literals: URL parameter names (any casing in the original) and auth schemes.
_LOWER_LITERALS: tuple[str, ...] = (
    "sig=", "sig%3d", "signature", "token", "password", "passwd", "pass=", "pass%3d", "pwd=",
    "pwd%3d", "secret", "api_key", "apikey", "api-key", "code=", "code%3d", "x-amz-",
    "x-goog-", "googleaccessid", "key-pair-id", "bearer", "basic ", "-----begin",
    "hooks.slack.com",
)
# Case-sensitive literals: well-known key prefixes, which are only ever written one way.
_EXACT_LITERALS: tuple[str, ...] = (
    "eyJ", "AKIA", "ASIA", "ABIA", "ACCA", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "xox", "k_live_", "k_test_", "sk-",
)
# ``scheme://user:password@`` in its plain, JSON-escaped and percent-encoded spellings.
_USERINFO = re.compile(
    r"(?::|%3a)(?:\\{0,2}/|%2f){2}[^\s/?#@\"'<>]{0,256}(?::|%3a)[^\s/?#@\"'<>]{0,256}(?:@|%40)",
)

_LOWER_B = tuple(lit.encode() for lit in _LOWER_LITERALS)
_EXACT_B = tuple(lit.encode() for lit in _EXACT_LITERALS)
_USERINFO_B = re.compile(_USERINFO.pattern.encode())


def may_match(text: str) -> bool:
    """False when no precise rule can match anywhere in ``text``."""
    if any(lit in text for lit in _EXACT_LITERALS):
        return True
    low = text.lower()
    return any(lit in low for lit in _LOWER_LITERALS) or _USERINFO.search(low) is not None


def may_match_bytes(data: bytes) -> bool:
    """:func:`may_match` over UTF-8 bytes (a JSON serialization, say), without decoding."""
    if any(lit in data for lit in _EXACT_B):
        return True
    low = data.lower()
    return any(lit in low for lit in _LOWER_B) or _USERINFO_B.search(low) is not None


# The id alphabet avoids look-alikes so a stub id can be read back off a screen.
_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_stub_id() -> str:
    """A random stub id (``ref_…``): never derived from the value it stands for."""
    return "ref_" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))


def credential_stub(rule: str) -> str:
    """The stub for a secret that has no reference meaning: nothing to fetch."""
    return f"[credential withheld: {rule}]"


def withheld_stub(reason: str) -> str:
    """The stub for a payload withheld on the tool's own word (``disposition: never``)."""
    return f"[withheld: {reason}]"


def reference_stub(stub_id: str, mime_type: str | None, size: int | None) -> str:
    """The stub for a reference: ``[ref_k3f9] image/png, ~120 KB — fetch with …``."""
    what = mime_type or "resource"
    if size is not None:
        what += f", ~{human_size(size)}"
    return f"[{stub_id}] {what} — fetch with elision_fetch_reference"


_STUB = re.compile(
    r"\[(?:credential withheld: [a-z0-9-]+\]|withheld: [a-z0-9-]+\]"
    r"|ref_[a-z0-9]+\] [^\n]* — fetch with elision_fetch_reference)\Z"
)


def is_stub(value: object) -> bool:
    """Whether ``value`` is a string this stage wrote in place of something withheld."""
    return isinstance(value, str) and value.startswith("[") and _STUB.match(value) is not None


def human_size(size: int) -> str:
    """``120 KB``, ``3 MB``: rounded, because the stub only needs to say roughly how much."""
    if size < 1024:
        return f"{size} B"
    scaled = float(size)
    for unit in ("KB", "MB", "GB"):
        scaled /= 1024
        if scaled < 1024 or unit == "GB":
            return f"{round(scaled)} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover
