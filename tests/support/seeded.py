"""Seeded credentials for the tests that hold every front end to "no credential reaches the model".

Each :class:`Seed` is a line as a tool result would carry it (``text``) and the part of it that
must never be shown (``secret``). Every value here is made up and matches one of elision's
redaction rules. The channel tests (proxy, CLI, server helpers) iterate over :func:`seeds`, so a
kind added here is checked on every surface at once. When the redaction rules are kept as a
table of families with an example each, :func:`seeds` adds every family's example too.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Seed:
    """A credential as it appears in a result, and what of it must be withheld."""

    name: str
    text: str
    secret: str


_PEM_BODY = "MIIEowIBAAKCAQEA7bq9k3Yx2Lw8Nf5Hc0pQ1rS6tU9vW2xY4zA8bC3dE5fG7hJ9"
_SIGV4_SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzZWVkZWQtY2hhbm5lbCIsImlhdCI6MTc5OTk5OTl9"
    ".c2VlZGVkLXNpZ25hdHVyZS1mb3ItY2hhbm5lbHMtMTIz"
)

SEEDS: tuple[Seed, ...] = (
    # A classic GitHub personal access token, in prose.
    Seed("github-token", "push with ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab please",
         "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"),
    # A presigned S3 link: the signature and the key id both withheld (the whole URL goes).
    Seed("aws-sigv4-url",
         "download https://bucket.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
         "&X-Amz-Credential=AKIDSEEDEDEXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
         f"&X-Amz-Signature={_SIGV4_SIGNATURE} before noon",
         _SIGV4_SIGNATURE),
    # A JWT as a session value.
    Seed("jwt", f"session={_JWT};", _JWT),
    # A PEM private key across lines: its body lines are the secret.
    Seed("private-key",
         f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----",
         _PEM_BODY),
    # An Authorization header's bearer token.
    Seed("bearer-token", "Authorization: Bearer Q7fK2mZp9vX4tR8wL1nB6cY3hJ5sD0gE",
         "Q7fK2mZp9vX4tR8wL1nB6cY3hJ5sD0gE"),
    # A generic password parameter (in a connection string).
    Seed("credential-param-url",
         "connect to https://db.example.com/admin?user=ops&password=Sh0rtButS3cret9 now",
         "Sh0rtButS3cret9"),
    # A password in a URL's userinfo.
    Seed("url-userinfo", "DATABASE_URL=postgres://app:pgS3cr3tPa55@db.internal:5432/app",
         "pgS3cr3tPa55"),
    # An AWS access key id on its own.
    Seed("aws-access-key-id", "aws_access_key_id = AKIAZ7SEEDEDEXAMPLE1", "AKIAZ7SEEDEDEXAMPLE1"),
    # A Stripe live secret key.
    Seed("stripe-key", "STRIPE=sk_live_51SeededChannelKey0123456789",
         "sk_live_51SeededChannelKey0123456789"),
    # A Slack bot token.
    Seed("slack-token", "bot xoxb-1234567890-seededChannelTok", "xoxb-1234567890-seededChannelTok"),
    # A password named by its sibling member, as a Kubernetes env entry prints it.
    Seed("name-value-pair", '{"name": "DB_PASSWORD", "value": "Pa1rS33dedChannelV4lue"}',
         "Pa1rS33dedChannelV4lue"),
)


def seeds() -> tuple[Seed, ...]:
    """Every seeded credential: :data:`SEEDS`, then one fresh fake per family of the redaction
    rules' table when there is one (:mod:`elision.redact.families`: each family's first shape,
    filled deterministically; its withheld part is the family pattern's ``secret`` group)."""
    return SEEDS + _family_seeds()


@functools.cache
def _family_seeds() -> tuple[Seed, ...]:
    try:
        from elision.redact import families  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return ()
    out: list[Seed] = []
    for family in families.FAMILIES:
        text = families.fill(family.shapes[0], random.Random(family.id))
        secret = text
        match = family.pattern.search(text) if family.pattern is not None else None
        if match is not None:
            start, end = family.secret_span(match)
            secret = text[start:end]
        out.append(Seed(f"family {family.id}", text, secret))
    return tuple(out)


def leaks(text: str, chosen: tuple[Seed, ...] | None = None) -> Iterator[str]:
    """The names of the seeds whose secret is in ``text``."""
    for seed in seeds() if chosen is None else chosen:
        if any(form in text for form in _spellings(seed.secret)):
            yield seed.name


@functools.cache
def _spellings(secret: str) -> tuple[str, ...]:
    # As written, and JSON-escaped once and twice (a text block holding JSON, dumped as JSON):
    # a secret with a quote or a line break is spelled differently inside a JSON string.
    once = json.dumps(secret, ensure_ascii=False)[1:-1]
    twice = json.dumps(once, ensure_ascii=False)[1:-1]
    return tuple(dict.fromkeys((secret, once, twice)))


def seeded_document(chosen: tuple[Seed, ...] | None = None) -> dict[str, object]:
    """A JSON result that holds every seed as a string value, among harmless members."""
    items = seeds() if chosen is None else chosen
    return {
        "total": len(items),
        "items": [{"kind": s.name, "note": s.text, "ok": True} for s in items],
    }


def seeded_log(chosen: tuple[Seed, ...] | None = None) -> str:
    """A text result (a log) with each seed on its own line among ordinary lines."""
    items = seeds() if chosen is None else chosen
    lines: list[str] = []
    for i, seed in enumerate(items):
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z INFO step {i} ok")
        lines.append(seed.text)
    lines.append("FATAL: build failed with 3 errors")
    return "\n".join(lines) + "\n"


#: How many chars of a secret count as a leak: a cut secret is as good as the secret (36 of
#: a ``ghp_`` token's 40 chars), so a check on the whole secret is not enough.
PIECE = 12


def partial_leaks(text: str, chosen: tuple[Seed, ...] | None = None) -> Iterator[str]:
    """The names of the seeds any 12-char piece of whose secret is in ``text``."""
    for seed in seeds() if chosen is None else chosen:
        pieces = {seed.secret[i:i + PIECE] for i in range(len(seed.secret) - PIECE + 1)}
        if any(piece in text for piece in pieces):
            yield seed.name


#: How many forms :func:`stray_line` has.
STRAY_FORMS = 4


def stray_line(seed: Seed, before: str = "", form: int = 0) -> str:
    """A line an upstream might write on the MCP channel (a stray print), holding ``seed``."""
    value = f"{before} {seed.text}"
    return [
        value,                                                     # plain text
        json.dumps({"token": value}),                              # JSON, no message
        json.dumps({"jsonrpc": "2.0", "id": 7, "result": 1, "x": value}),  # almost a message
        json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": value, "data": "x"}}),     # a bad log level
    ][form]


def by_name(*names: str) -> tuple[Seed, ...]:
    """The seeds of these names, in that order."""
    found = {seed.name: seed for seed in SEEDS}
    return tuple(found[name] for name in names)
