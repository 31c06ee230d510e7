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

from elision.redact.rules import Span


@dataclass(frozen=True)
class CredentialRule:
    """One credential shape; ``group`` is the part withheld, ``check`` weeds out look-alikes."""

    id: str
    pattern: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None


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
    ),
    CredentialRule(
        "jwt",
        re.compile(rf"(?<![A-Za-z0-9_-])eyJ{_B64URL}{{6,}}\.{_B64URL}{{2,}}\.{_B64URL}*"),
        check=_jwt_header,
    ),
    CredentialRule(
        "bearer-token",
        re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
        group=1,
        check=_token_like,
    ),
    CredentialRule(
        "basic-auth",
        re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])"),
        group=1,
        check=_basic_pair,
    ),
    CredentialRule("aws-access-key-id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    CredentialRule(
        "aws-secret-access-key",
        re.compile(
            r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        group=1,
    ),
    CredentialRule(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{20,255})\b"),
    ),
    CredentialRule("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")),
    CredentialRule("stripe-key", re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    CredentialRule("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    CredentialRule(
        "openai-key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        check=_mixed,
    ),
    CredentialRule("google-api-key", re.compile(r"\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")),
)


def find_credentials(text: str) -> list[Span]:
    """Every credential in ``text``, possibly overlapping (the caller merges)."""
    found: list[Span] = []
    for rule in CREDENTIAL_RULES:
        for match in rule.pattern.finditer(text):
            value = match.group(rule.group)
            if rule.id == "openai-key" and value.startswith("sk-ant-"):
                continue  # the Anthropic rule names it more precisely
            if rule.check is not None and not rule.check(value):
                continue
            found.append(Span(match.start(rule.group), match.end(rule.group), rule.id))
    return found
