"""Where cut bodies are kept, and how the rest is fetched by ref.

``open_store()`` gives the store every command shares: ``$ELISION_STORE`` if set, else one
SQLite file under the user's data directory. Retention can be set with ``ELISION_STORE_TTL``
(seconds) and ``ELISION_STORE_QUOTA`` (bytes).
"""

from __future__ import annotations

import os
from pathlib import Path

from elision.errors import StoreError
from elision.store.base import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_QUOTA_BYTES,
    DEFAULT_TTL,
    GcResult,
    RefInfo,
    Retention,
    Store,
    StoreStats,
)
from elision.store.memory import MemoryStore
from elision.store.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_QUOTA_BYTES",
    "DEFAULT_TTL",
    "GcResult",
    "MemoryStore",
    "RefInfo",
    "Retention",
    "SQLiteStore",
    "Store",
    "StoreStats",
    "default_store_path",
    "open_store",
]


def default_store_path() -> Path:
    """``$XDG_DATA_HOME/elision/store.db``, else ``~/.local/share/elision/store.db``."""
    data_home = os.environ.get("XDG_DATA_HOME")
    # The XDG spec says a relative value is invalid and must be ignored.
    if data_home and os.path.isabs(data_home):
        base = Path(data_home)
    else:
        base = Path.home() / ".local" / "share"
    return base / "elision" / "store.db"


def open_store(
    spec: str | os.PathLike[str] | None = None,
    *,
    ttl: float | None = None,
    quota_bytes: int | None = None,
) -> Store:
    """The store named by ``spec``: a file path, ``:memory:``, a ``postgresql://`` URL (its
    search_path's first schema; ``?options=-csearch_path%3Dname`` picks another), or ``None``
    for the default."""
    if spec is None:
        spec = os.environ.get("ELISION_STORE") or default_store_path()
    text = os.fspath(spec)
    ttl = ttl if ttl is not None else _env_number("ELISION_STORE_TTL", DEFAULT_TTL)
    quota = quota_bytes if quota_bytes is not None else int(
        _env_number("ELISION_STORE_QUOTA", DEFAULT_QUOTA_BYTES))
    if text.startswith(("postgresql://", "postgres://")):
        # Imported here: psycopg is an optional extra that a SQLite user need not install.
        try:
            from elision.store.postgres import PostgresStore
        except ImportError:
            raise StoreError(
                "a postgresql:// store needs psycopg; install elision[postgres], or use a "
                "SQLite file path for --store / ELISION_STORE"
            ) from None
        return PostgresStore(text, ttl=ttl, quota_bytes=quota)
    if text == ":memory:":
        return MemoryStore(ttl=ttl, quota_bytes=quota)
    if text.startswith("sqlite:///"):
        text = text.removeprefix("sqlite://")
    return SQLiteStore(text, ttl=ttl, quota_bytes=quota)


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise StoreError(
            f"{name} must be a number, got {raw!r}; unset it for the default"
        ) from None
    if value <= 0:
        raise StoreError(f"{name} must be positive, got {raw!r}; unset it for the default")
    return value
