"""A deterministic generator of clean tool output: what redaction must leave exactly as it is.

Each kind is what agents' tools return all day: service logs, JSON API results (UUIDs,
content hashes, timestamps, pagination cursors that are base64 JSON, page tokens, sort keys,
small base64 thumbnails), ``git log``, ``ls -l`` listings, CSV exports, source code, an
environment listing with its paths, and error output that names credentials' files, prompts
for a password and validators' messages (issue 22). Nothing in it is a credential; a stub
anywhere in it is a false positive.
"""

from __future__ import annotations

import base64
import hashlib
import random
import uuid
from collections.abc import Callable
from typing import Any

import orjson

WORDS = (
    "request", "handled", "cache", "miss", "retry", "upstream", "latency", "shard", "replica",
    "partition", "index", "query", "user", "order", "invoice", "shipment", "warehouse",
    "region", "deploy", "build", "test", "passed", "failed", "skipped", "session", "started",
    "closed", "timeout", "ready", "healthy", "degraded", "token", "count", "budget", "page",
    "cursor", "sort", "key", "value", "password", "policy", "secret", "rotation", "scheduled",
    "basic", "authentication", "bearer", "scheme", "documented", "reference",
)
NAMES = ("Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov")


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _sha(rng: random.Random, n: int = 40) -> str:
    return hashlib.sha256(rng.randbytes(16)).hexdigest()[:n]


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(bytes=rng.randbytes(16), version=4))


def _cursor(rng: random.Random) -> str:
    # A pagination cursor: base64 of plain JSON, no JWT header.
    state = {"offset": rng.randrange(10_000), "sort": "created_at", "id": rng.randrange(10**9)}
    return base64.urlsafe_b64encode(orjson.dumps(state)).rstrip(b"=").decode()


def _thumbnail(rng: random.Random) -> str:
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randrange(300, 1500))).decode()


def _time(rng: random.Random) -> str:
    return (f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T"
            f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z")


def log_lines(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        level = rng.choice(("INFO", "INFO", "DEBUG", "WARN", "ERROR"))
        line = (f"{_time(rng)} {level} [{rng.choice(('api', 'worker', 'db', 'auth'))}] "
                f"req={_uuid(rng)} {_prose(rng, rng.randrange(4, 14))} "
                f"dur_ms={rng.randrange(1, 5000)} sha={_sha(rng, 12)} tokens={rng.randrange(9999)} "
                f"GET https://api.example.com/v1/items?page_token={_cursor(rng)}&limit=50")
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": _uuid(rng), "n": i, "created_at": _time(rng), "sha256": _sha(rng, 64),
        "etag": f'W/"{_sha(rng, 16)}"', "sort_key": f"{_time(rng)}#{i}",
        "partition_key": f"tenant#{rng.randrange(100)}", "title": _prose(rng, 6),
        "owner": {"name": rng.choice(NAMES), "email": f"user{i}@example.com"},
        "url": f"https://app.example.com/orders/{i}?tab=history&page=2",
        "commit": _sha(rng), "tags": [rng.choice(WORDS) for _ in range(3)],
        "amount": round(rng.random() * 1000, 2), "usage": {"input_tokens": rng.randrange(9999),
                                                            "max_tokens": 4096},
    }
    if i % 40 == 0:
        rec["thumbnail"] = {"type": "image", "mimeType": "image/png", "data": _thumbnail(rng)}
    return rec


def json_result(rng: random.Random, size: int) -> str:
    rows: list[dict[str, Any]] = []
    total = 0
    while total < size:
        rec = _record(rng, len(rows))
        rows.append(rec)
        total += len(orjson.dumps(rec)) + 1
    doc = {"total": len(rows), "next_page_token": _cursor(rng), "nextPageToken": _cursor(rng),
           "cursor": _cursor(rng), "warnings": ["results older than 30 days are not indexed"],
           "rows": rows}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()


def git_log(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        name = rng.choice(NAMES)
        entry = (f"commit {_sha(rng)}\nMerge: {_sha(rng, 7)} {_sha(rng, 7)}\n"
                 f"Author: {name} <{name.split()[0].lower()}@example.com>\nDate:   {_time(rng)}\n\n"
                 f"    {_prose(rng, 8)}\n\n    Change-Id: I{_sha(rng)}\n"
                 f" src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py | "
                 f"{rng.randrange(1, 90)} +++--\n")
        out.append(entry)
        total += len(entry)
    return "\n".join(out)


def listing(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        name = rng.choice(WORDS) + rng.choice((".py", ".md", ".json", ".tar.gz", "", ".pem.pub"))
        line = (f"{rng.choice(('-rw-r--r--', 'drwxr-xr-x', '-rwx------'))}  1 ada staff "
                f"{rng.randrange(10**7):>9} Dec {rng.randrange(1, 29):>2} "
                f"{rng.randrange(24):02d}:{rng.randrange(60):02d} {name}  {_sha(rng, 64)}")
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def csv_export(rng: random.Random, size: int) -> str:
    out = ["id,created_at,sha256,user,amount,status,session_id,sort_key,note"]
    total = len(out[0])
    while total < size:
        line = (f"{_uuid(rng)},{_time(rng)},{_sha(rng, 64)},{rng.choice(NAMES)},"
                f"{rng.random() * 100:.2f},{rng.choice(WORDS)},{rng.randrange(10**6)},"
                f"{_time(rng)},{_prose(rng, 5)}")
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


_CODE = '''
def check_password(user, password_hash: str, max_tokens: int = 4096) -> bool:
    """Basic authentication is checked against the stored hash; bearer tokens elsewhere."""
    secret_name = "prod/db/{name}"
    token_count = len(tokens)  # the tokenizer's output, not a credential
    sort_key = (user.created_at, user.id)
    if not password_hash:
        raise ValueError("password required")
    return hmac.compare_digest(hash_of(password_hash), "{sha}")

'''


def source_code(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        chunk = _CODE.replace("{name}", rng.choice(WORDS)).replace("{sha}", _sha(rng, 64))
        chunk = chunk.replace("check_password", f"check_{rng.choice(WORDS)}_{len(out)}")
        out.append(chunk)
        total += len(chunk)
    return "".join(out)


def environment(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        user = rng.choice(("ada", "grace", "alan"))
        block = (f"PWD=/home/{user}/src/{rng.choice(WORDS)}\nOLDPWD=/home/{user}\n"
                 f"HOME=/home/{user}\nSHELL=/bin/bash\n"
                 f"SSH_AUTH_SOCK=/tmp/ssh-{_sha(rng, 8)}/agent.42\n"
                 f"GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass\nXDG_SESSION_ID={rng.randrange(99)}\n"
                 f"HISTCONTROL=ignoredups\nPATH=/usr/local/bin:/usr/bin:/bin\nLANG=en_US.UTF-8\n")
        out.append(block)
        total += len(block)
    return "".join(out)


#: Issue 22: lines that were withheld as credential assignments, and their kin. Errors that
#: name a credential's file, prompts, validators' messages, type annotations, counters and
#: prose about authentication.
_ERROR_LINES = (
    "Error processing file file://{path}: Unsupported URL protocol",
    "open {path}: permission denied",
    "cat: {path}: Permission denied",
    "grep: {path}: No such file or directory",
    "passwd: Authentication token manipulation error",
    "passwd: all authentication tokens updated successfully.",
    "passwd: password updated successfully",
    "chpasswd: line {n}: missing new password",
    "Changing password for {user}.",
    "Current password: ",
    "New password: ",
    "Password: incorrect",
    "[sudo] password for {user}: Sorry, try again.",
    "WARNING: password: too weak",
    "The password: must be at least {n} characters long",
    "secret: not found",
    "api_key: see docs",
    "Error from server (NotFound): secrets \"db-password\" not found",
    "secret/db-password: configured",
    "GET /api/v1/password: 405 Method Not Allowed",
    "Fetching https://docs.example.com/auth/secret: 404 Not Found",
    "FATAL:  password authentication failed for user \"{user}\"",
    "ssh: Permission denied (publickey,password).",
    "token_count: {n}",
    "token_count={n} prompt_tokens={n} completion_tokens={n}",
    "secret_santa: {name} draws {name}",
    "    password: str",
    "    password: Optional[str] = None",
    "def login(username: str, password: str) -> Token:",
    '{{"password": ["This field may not be blank."], "token_count": {n}}}',
    "Basic authentication sends the password: it is only base64 of user:password, use TLS.",
    "See /docs/secret: it explains how secrets are rotated",
)
_SECRET_PATHS = ("/etc/passwd", "/etc/shadow", "/etc/gshadow", "/run/secrets/db_password",
                 "/home/ada/.git-credentials", "/var/lib/app/secret", "/etc/security/opasswd")


def error_output(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        line = rng.choice(_ERROR_LINES).format(
            path=rng.choice(_SECRET_PATHS), n=rng.randrange(1, 99999),
            user=rng.choice(("ada", "grace", "alan")), name=rng.choice(NAMES),
        )
        line = f"{_time(rng)} {line}"
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


KINDS: dict[str, Callable[[random.Random, int], str]] = {
    "log": log_lines, "json": json_result, "git-log": git_log, "listing": listing,
    "csv": csv_export, "code": source_code, "env": environment, "errors": error_output,
}


def corpus(kind: str, size: int, seed: int = 0) -> str:
    """About ``size`` chars of clean output of ``kind``, the same for the same seed."""
    return KINDS[kind](random.Random(f"{kind}/{seed}"), size)
