"""The run's one cache of derived files (tests/conftest.py, support.kept.share_cache)."""

from __future__ import annotations

import os
from pathlib import Path

from elision import _cache
from support.kept import share_cache


def test_the_session_home_keeps_derived_files_in_the_runs_shared_cache() -> None:
    """Every worker's HOME reaches one folder, so a database one worker compiled is read by
    the other and by every process either starts: a HOME of its own per worker compiled each
    again (~5 s of CPU a worker)."""
    shared = Path(os.environ["ELISION_TEST_SHARED_CACHE"])
    where = _cache.cache_dir()
    assert where is not None and where.resolve() == shared.resolve()


def test_a_fresh_home_reaches_the_shared_cache(tmp_path: Path) -> None:
    home = share_cache(tmp_path / "home")
    kept = home / ".cache" / "elision"
    assert kept.resolve() == Path(os.environ["ELISION_TEST_SHARED_CACHE"]).resolve()
