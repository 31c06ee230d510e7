"""Helpers for the tests of the files elision keeps between processes (elision._cache)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from elision import _cache


def use_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> Path:
    """Point the cache at ``tmp_path``; the folder where ``kind`` files will be kept."""
    monkeypatch.setenv(_cache.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / kind


def share_cache(home: Path) -> Path:
    """``home``: a fresh HOME whose cache (``~/.cache/elision``) is the run's shared one
    (tests/conftest.py), so the processes a test starts there read what earlier processes
    compiled instead of compiling it again; what is kept is named by a digest of what it was
    derived from, so reading it changes no answer, only the CPU spent."""
    shared = os.environ.get("ELISION_TEST_SHARED_CACHE")
    if shared:
        (home / ".cache").mkdir(parents=True, exist_ok=True)
        (home / ".cache" / "elision").symlink_to(shared, target_is_directory=True)
    return home


def kept_file(folder: Path) -> Path:
    """The one file kept in ``folder``."""
    [kept] = folder.iterdir()
    return kept


def seal(payload: bytes) -> bytes:
    """``payload`` behind its own digest: a kept file that is whole, whatever it holds."""
    return hashlib.sha256(payload).digest() + payload


def blocked_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache that can be neither read nor written: a plain file where its folder would go."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would go")
    monkeypatch.setenv(_cache.CACHE_ENV, str(blocker))
    return blocker


#: Damage a kept file's bytes can take on disk: each must cost a rebuild, never a use.
TORN = [
    pytest.param(lambda data: b"", id="empty"),
    pytest.param(lambda data: data[:40], id="torn"),
    pytest.param(lambda data: data[:-1] + bytes([data[-1] ^ 1]), id="one-bit"),
]
