"""Credentials that are not URLs: tokens, keys and auth header values, found in any text.

The rule set is elision's own. The shapes of the vendor prefixes were checked against public
documentation and against the categories that gitleaks (MIT) and Microsoft's
security-utilities publish; no pattern or fixture was copied from them.

Every pattern here is anchored on a literal that :mod:`elision.redact.rules` pre-filters on, and
each one withholds only the secret itself (the ``Bearer`` word stays, the token goes).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from elision.redact.rules import Span, is_stub


@dataclass(frozen=True)
class CredentialRule:
    """One credential shape.

    ``group`` is the part withheld; ``check`` weeds out look-alikes. The pattern only runs on a
    text that holds one of ``exact`` (case-sensitive) or ``lower`` (in the lower-cased text):
    a regex that has to try every position is the slow part of any scanner. ``boundary``
    asks for no word char (or ``-``) right before the match, checked in Python because a
    leading ``\\b`` stops the regex engine from searching for the literal prefix.
    """

    id: str
    pattern: re.Pattern[str]
    exact: tuple[str, ...] = ()
    lower: tuple[str, ...] = ()
    group: int = 0
    check: Callable[[str], bool] | None = None
    boundary: bool = False


def _jwt_header(token: str) -> bool:
    # Every JWT header is a JSON object naming its algorithm; random "eyJ…" runs are not.
    head = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        header = orjson.loads(decoded)
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and ("alg" in header or "typ" in header or "enc" in header)


def _basic_pair(value: str) -> bool:
    # "Basic authentication" is prose; a real Basic value decodes to "user:password".
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        text = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in text and text.isprintable()


def _mixed(value: str) -> bool:
    # Generated keys mix cases and digits; "sk-learn-style-names" do not.
    return (
        any(c.isdigit() for c in value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
    )


def _token_like(value: str) -> bool:
    # "Bearer of bad news" has no digit; opaque tokens practically always carry one.
    return any(c.isdigit() for c in value)


_B64URL = r"[A-Za-z0-9_-]"

CREDENTIAL_RULES: tuple[CredentialRule, ...] = (
    CredentialRule(
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        exact=("-----BEGIN",),
    ),
    CredentialRule(
        "jwt",
        re.compile(rf"eyJ{_B64URL}{{6,}}\.{_B64URL}{{2,}}\.{_B64URL}*"),
        exact=("eyJ",), check=_jwt_header, boundary=True,
    ),
    CredentialRule(
        "bearer-token",
        re.compile(r"(?i)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
        lower=("bearer",), group=1, check=_token_like, boundary=True,
    ),
    CredentialRule(
        "basic-auth",
        re.compile(r"(?i)basic\s+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])"),
        lower=("basic",), group=1, check=_basic_pair, boundary=True,
    ),
    CredentialRule(
        "aws-access-key-id",
        re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9_])"),
        exact=("AKIA", "ASIA", "ABIA", "ACCA"), boundary=True,
    ),
    CredentialRule(
        "aws-secret-access-key",
        re.compile(
            r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})"
            r"(?![A-Za-z0-9/+])"
        ),
        lower=("secret",), group=1,
    ),
    CredentialRule(
        "github-token",
        re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{20,255})(?!\w)"),
        exact=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), boundary=True,
    ),
    CredentialRule(
        "slack-token", re.compile(r"xox[abposre]-[A-Za-z0-9-]{10,}"), exact=("xox",),
        boundary=True,
    ),
    CredentialRule(
        "stripe-key", re.compile(r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
        exact=("k_live_", "k_test_"), boundary=True,
    ),
    CredentialRule(
        "anthropic-key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"), exact=("sk-ant-",),
        boundary=True,
    ),
    CredentialRule(
        "openai-key",
        re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        exact=("sk-",), check=_mixed, boundary=True,
    ),
    CredentialRule(
        "google-api-key", re.compile(r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
        exact=("AIza",), boundary=True,
    ),
)


#: JSON member names whose string value is a credential whatever it looks like. Only names
#: that mean nothing else: "token" (a tokenizer's output), "key" and "code" are left out.
CREDENTIAL_FIELDS = frozenset({
    "password", "passwd", "pwd", "secret", "client_secret", "api_key", "apikey", "api-key",
    "access_token", "refresh_token", "id_token", "auth_token", "session_token", "private_key",
    "secret_key", "secret_access_key", "aws_secret_access_key",
})


def is_credential_field(key: object, value: object) -> bool:
    """Whether ``key: value`` is a credential member (a masked or empty value is not)."""
    return (
        isinstance(key, str)
        and isinstance(value, str)
        and key.lower() in CREDENTIAL_FIELDS
        and value.strip("*xX•. ") != ""
        and not is_stub(value)
    )


def find_credentials(text: str) -> list[Span]:
    """Every credential in ``text``, possibly overlapping (the caller merges)."""
    found: list[Span] = []
    low: str | None = None
    for rule in CREDENTIAL_RULES:
        if rule.exact and not any(lit in text for lit in rule.exact):
            continue
        if rule.lower:
            low = text.lower() if low is None else low
            if not any(lit in low for lit in rule.lower):
                continue
        for match in rule.pattern.finditer(text):
            start = match.start()
            if rule.boundary and start > 0 and _is_word(text[start - 1]):
                continue
            value = match.group(rule.group)
            if rule.id == "openai-key" and value.startswith("sk-ant-"):
                continue  # the Anthropic rule names it more precisely
            if rule.check is not None and not rule.check(value):
                continue
            found.append(Span(match.start(rule.group), match.end(rule.group), rule.id))
    return found


def _is_word(char: str) -> bool:
    return char.isalnum() or char in "_-"
