"""The content store protocol, and the rules every backend shares.

A store keeps the complete original body of every result that had to be cut, under an opaque
ref, so the rest can be fetched page by page. Backends (memory, SQLite, later PostgreSQL) differ
only in where bytes live; what a ref may see, when it expires, what is evicted first and what an
error says are decided here, once.

Retention: a ref lives ``ttl`` seconds from the moment it was put. Bodies are deduplicated by
digest underneath, and the sum of distinct body sizes is held under ``quota_bytes`` by evicting
the least recently used refs first. A ref that expired or was evicted is remembered for a while
(a tombstone) so that asking for it says "expired" rather than "not found".
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from elision._record import record_class
from elision.budget import Budget
from elision.errors import (
    BodyTooLarge,
    IntegrityError,
    RefExpired,
    RefNotFound,
    StoreError,
    quoted,
)

if TYPE_CHECKING:
    from elision.shape import Shaped

MiB = 1024 * 1024
DIGEST = re.compile(r"[0-9a-f]{64}")
#: A week: long enough for an agent session and its follow-ups, short enough to forget.
DEFAULT_TTL = 7 * 24 * 3600.0
DEFAULT_QUOTA_BYTES = 2048 * MiB
#: Bodies are chunked, so this is a policy limit, not SQLite's 1 GB blob limit.
DEFAULT_MAX_BODY_BYTES = 256 * MiB
#: How long an expired or evicted ref still answers "expired" instead of "not found".
TOMBSTONE_SECONDS = 30 * 24 * 3600.0
DEFAULT_FETCH_BUDGET = Budget(8192)


@record_class(frozen=True)
class RefInfo:
    """What the store knows about one ref, without its body."""

    ref: str
    sha256: str
    size: int
    format: str
    created: float
    expires: float
    last_access: float


@record_class(frozen=True)
class StoreStats:
    """Totals for ``elision store stats``."""

    bodies: int
    refs: int
    bytes: int
    oldest: float | None
    quota_bytes: int
    ttl: float
    path: str
    references: int = 0


@record_class(frozen=True)
class GcResult:
    """What one ``gc()`` pass removed."""

    expired_refs: int
    bodies: int
    bytes: int
    tombstones: int
    #: Body files no row named (a writer that crashed before COMMIT), swept by the SQLite store.
    stray_files: int = 0


@runtime_checkable
class Store(Protocol):
    """Where cut bodies are kept and served back by ref."""

    def put(
        self, body: bytes, *, ref: str, sha256: str, format: str, scope: str | None = None,
        verified: bool = False,
    ) -> None:
        """Keep ``body`` under ``ref``. ``verified=True`` says ``sha256`` was just computed from
        these very bytes (the pipeline hashes each body once, as it arrives), so the store
        does not hash them again; reads check every byte against the digest either way."""
        ...

    def read(self, ref: str, *, scope: str | None = None) -> bytes: ...

    def info(self, ref: str, *, scope: str | None = None) -> RefInfo: ...

    def fetch(
        self,
        ref: str,
        *,
        path: str | None = None,
        lines: str | None = None,
        byte_range: str | None = None,
        budget: Budget = DEFAULT_FETCH_BUDGET,
        scope: str | None = None,
        redact: bool = True,
    ) -> Shaped: ...

    def remove(self, ref: str) -> bool: ...

    def refs_for(self, sha256: str) -> list[str]:
        """The live refs a body of this digest is kept under, newest first, in any scope:
        for the store's owner (``elision view`` finds an audit entry's bodies by digest)."""
        ...

    def gc(self) -> GcResult: ...

    def stats(self) -> StoreStats: ...

    def close(self) -> None: ...

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None: ...

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]: ...


@record_class(frozen=True)
class Retention:
    """TTL, quota and size limit, and the arithmetic on them."""

    ttl: float = DEFAULT_TTL
    quota_bytes: int = DEFAULT_QUOTA_BYTES
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    #: A read makes a ref young again only if it was last used this long ago: walking the
    #: pages of one body then costs one write, not one per page. 0 tracks every read.
    lru_resolution: float = 1.0

    def __post_init__(self) -> None:
        if not (isinstance(self.ttl, int | float) and self.ttl > 0 and math.isfinite(self.ttl)):
            raise StoreError(f"store ttl must be a positive number of seconds, got {self.ttl!r}")
        resolution = self.lru_resolution
        if not (isinstance(resolution, int | float) and 0 <= resolution < math.inf):
            raise StoreError(
                f"store lru_resolution must be a number of seconds >= 0, got {resolution!r}"
            )
        for name in ("quota_bytes", "max_body_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise StoreError(f"store {name} must be a positive integer, got {value!r}")

    def needs_touch(self, last_access: float, now: float) -> bool:
        return now - last_access >= self.lru_resolution

    def expires_at(self, now: float) -> float:
        return now + self.ttl

    @staticmethod
    def is_expired(expires: float, now: float) -> bool:
        return now >= expires

    @staticmethod
    def tombstone_cutoff(now: float) -> float:
        """Tombstones written before this time are forgotten by ``gc()``."""
        return now - TOMBSTONE_SECONDS

    def check_body(self, body: bytes, sha256: str, *, verified: bool = False) -> None:
        """Refuse a body that is too large, or whose digest is not the one given.

        The digest is checked unless the caller ``verified`` it: hashing is most of the cost
        of keeping a large body (SHA-256 runs at a few hundred MB/s here, about what SQLite
        writes), and the pipeline has already hashed it once.
        """
        if len(body) > self.max_body_bytes:
            raise BodyTooLarge(
                f"body of {len(body):,} bytes is over this store's maximum of "
                f"{self.max_body_bytes:,} bytes; raise max_body_bytes (or the tool's own limit) "
                "to keep it"
            )
        if len(body) > self.quota_bytes:
            raise BodyTooLarge(
                f"body of {len(body):,} bytes is larger than the whole store quota of "
                f"{self.quota_bytes:,} bytes; raise quota_bytes to keep it"
            )
        if verified:
            if not DIGEST.fullmatch(sha256):
                # A digest is a body file's name in the SQLite store: never a path elsewhere.
                raise IntegrityError(
                    f"sha256={quoted(sha256)} is not a SHA-256 in lowercase hex; pass "
                    "hashlib.sha256(body).hexdigest() of exactly these bytes"
                )
            return
        actual = hashlib.sha256(body).hexdigest()
        if actual != sha256:
            raise IntegrityError(
                f"body digest is {actual}, not the sha256={sha256!r} it was put under; "
                "pass the SHA-256 of exactly these bytes"
            )


#: The scope of the store's owner on its own machine (``elision fetch``, ``elision store``):
#: a read in it finds a ref in whatever scope it was kept. No client is ever given it: the
#: proxy makes every client's scope itself (:mod:`elision.mcp.agent.scopes`).
OWNER_SCOPE = "owner:*"


def scope_allows(key: str, stored: str) -> bool:
    """Whether a read in scope ``key`` (as :func:`scope_key` wrote it) may see a ref kept in
    scope ``stored``."""
    return key in (OWNER_SCOPE, stored)


def scope_key(scope: str | None) -> str:
    """Scopes as stored: ``None`` is the unscoped space, written as the empty string."""
    if scope is None:
        return ""
    if not isinstance(scope, str) or not scope:
        raise StoreError(f"scope must be a non-empty string or None, got {scope!r}")
    if not is_storable(scope):
        raise StoreError(
            f"scope {quoted(scope)} holds a lone surrogate, which no store can keep; "
            "pass a scope of valid Unicode"
        )
    return scope


def is_storable(name: str) -> bool:
    """Whether ``name`` (a ref, stub id or scope) can be a key in every backend: a lone
    surrogate cannot be written as UTF-8, so no ref was ever kept under one."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_name(name: str, what: str = "ref", *, keeping: bool = False) -> None:
    """Refuse a ``ref`` or ``stub`` that no body or record can be kept under, before a backend
    tries to look it up (SQLite and PostgreSQL cannot even encode the query)."""
    if is_storable(name):
        return
    if keeping:
        raise StoreError(
            f"cannot keep anything under {what} {quoted(name)}: it holds a lone surrogate, which "
            f"the store cannot write; use a {what} of valid Unicode, such as new_ref() makes"
        )
    raise RefNotFound(
        f"{what} {quoted(name)} holds a lone surrogate, so nothing is kept under it; copy the "
        f"{what} whole from the result that showed it"
    )


def not_found(ref: str) -> RefNotFound:
    # The same words whether the ref never existed or lives in another scope: a caller must
    # not learn that someone else's body exists.
    return RefNotFound(
        f"no body is kept under ref {quoted(ref)} here; check that the ref was copied whole "
        "from the envelope's \"ref\" or \"next\", and that it came from this store"
    )


def expired(ref: str, reason: str, retention: Retention) -> RefExpired:
    hint = (
        f"raise the TTL (now {retention.ttl:,.0f} s)" if reason == "expired"
        else f"raise the quota (now {retention.quota_bytes:,} bytes)"
    )
    return RefExpired(
        f"the body under ref {quoted(ref)} has {reason} and is no longer kept; "
        f"shape the tool result again to get a fresh ref, or {hint}"
    )


def reference_not_found(stub_id: str) -> RefNotFound:
    return RefNotFound(
        f"no reference record is kept for stub {quoted(stub_id)} here; it may have expired, or it "
        "belongs to another session: call the tool again to get a fresh stub"
    )


def lost(ref: str, path: str) -> IntegrityError:
    return IntegrityError(
        f"the body under ref {quoted(ref)} is missing from the store: its file {path!r} is gone (a "
        "crash before the disk caught up, or something removed it); it will not be served: "
        "shape the tool result again, which keeps the body anew"
    )


def corrupted(ref: str, expected: str, actual: str) -> IntegrityError:
    return IntegrityError(
        f"the body under ref {quoted(ref)} no longer matches its digest (stored sha256={expected}, "
        f"now {actual}); it will not be served: shape the tool result again"
    )


class PagedStore:
    """``fetch`` for every backend: read the body (digest-checked), then shape the page.

    A backend provides ``_read(ref, scope) -> (body, info)``.
    """

    def _read(self, ref: str, scope: str | None) -> tuple[bytes, RefInfo]:
        raise NotImplementedError

    def fetch(
        self,
        ref: str,
        *,
        path: str | None = None,
        lines: str | None = None,
        byte_range: str | None = None,
        budget: Budget = DEFAULT_FETCH_BUDGET,
        scope: str | None = None,
        redact: bool = True,
    ) -> Shaped:
        # Imported here: the selectors and the JSON readers a page needs cost every short
        # command's start (a hook that only keeps a body), and only a fetch uses them.
        from elision.store.fetch import shape_page

        body, info = self._read(ref, scope)
        return shape_page(body, ref=ref, sha256=info.sha256, format=info.format, budget=budget,
                          path=path, lines=lines, byte_range=byte_range, redact=redact)
