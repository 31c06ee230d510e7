"""Compiled hyperscan databases are kept between processes (elision._hyperscan.database).

Compiling the redaction triggers cost every process about 0.3 s. A kept database must match
what it replaces on any input, and a cache file that is torn, altered, foreign or out of
reach must cost a compile, never a wrong answer or an error."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import _hyperscan
from elision.redact import triggers
from redact.test_redact_prefilter_differential import seeded_texts
from support.kept import blocked_cache

hs = pytest.importorskip("hyperscan")

EXPRESSIONS = [b"ghp_", b"token=", b"-----BEGIN"]
FLAGS = [0, hs.HS_FLAG_CASELESS, 0]


class _Counting:
    """hyperscan, with its compiles counted."""

    def __init__(self) -> None:
        self.compiles = 0
        self.__version__ = hs.__version__
        self.HS_MODE_BLOCK = hs.HS_MODE_BLOCK
        self.loadb, self.dumpb = hs.loadb, hs.dumpb

    def __getattr__(self, name: str) -> Any:
        return getattr(hs, name)

    def Database(self) -> Any:  # hyperscan's name
        outer = self

        class Counted(hs.Database):  # type: ignore[misc, name-defined]
            def compile(self, **kwargs: Any) -> None:
                outer.compiles += 1
                super().compile(**kwargs)

        return Counted()


def _matches(db: Any, data: bytes) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    db.scan(data, match_event_handler=lambda i, a, b, f, c: found.append((i, b)),
            scratch=hs.Scratch(db))
    return found


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(_hyperscan.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "hyperscan"


SAMPLE = b"TOKEN=ghp_abc\n-----BEGIN x ghp_"


def test_a_second_process_loads_what_the_first_compiled(cache: Path) -> None:
    first, second = _Counting(), _Counting()
    compiled = _hyperscan.database(first, EXPRESSIONS, FLAGS, literal=True)
    loaded = _hyperscan.database(second, EXPRESSIONS, FLAGS, literal=True)
    assert (first.compiles, second.compiles) == (1, 0)
    assert _matches(loaded, SAMPLE) == _matches(compiled, SAMPLE) != []
    [kept] = cache.iterdir()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


def test_other_expressions_or_flags_are_another_database(cache: Path) -> None:
    counting = _Counting()
    _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    _hyperscan.database(counting, EXPRESSIONS, [0, 0, 0], literal=True)
    _hyperscan.database(counting, EXPRESSIONS[:2], FLAGS[:2], literal=True)
    _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=False)
    assert counting.compiles == 4 and len(list(cache.iterdir())) == 4
    # Case matters: a database kept without CASELESS must not answer for one with it.
    loose = _hyperscan.database(_Counting(), EXPRESSIONS, FLAGS, literal=True)
    strict = _hyperscan.database(_Counting(), EXPRESSIONS, [0, 0, 0], literal=True)
    assert _matches(loose, b"TOKEN=") and not _matches(strict, b"TOKEN=")


def _flip(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


@pytest.mark.parametrize("damage", [
    pytest.param(lambda data: b"", id="empty"),
    pytest.param(lambda data: data[:40], id="torn"),
    pytest.param(lambda data: data[:-7], id="cut-short"),
    pytest.param(_flip, id="one-bit"),
    pytest.param(lambda data: hashlib.sha256(b"x").digest() + b"x", id="foreign"),
    # A blob whose digest is right but which hyperscan refuses (not a database at all).
    pytest.param(lambda data: hashlib.sha256(b"junk" * 9).digest() + b"junk" * 9,
                 id="not-a-database"),
])
def test_a_damaged_cache_file_is_compiled_again(cache: Path, damage: Any) -> None:
    _hyperscan.database(_Counting(), EXPRESSIONS, FLAGS, literal=True)
    [kept] = cache.iterdir()
    good = kept.read_bytes()
    kept.write_bytes(damage(good))
    counting = _Counting()
    db = _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    assert counting.compiles == 1
    assert _matches(db, SAMPLE) == _matches(hs.loadb(good[32:], hs.HS_MODE_BLOCK), SAMPLE)
    assert kept.read_bytes()[:32] == hashlib.sha256(kept.read_bytes()[32:]).digest()


def test_a_cache_out_of_reach_only_costs_a_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = blocked_cache(tmp_path, monkeypatch)
    counting = _Counting()
    for _ in range(2):
        db = _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    assert counting.compiles == 2 and _matches(db, SAMPLE)
    assert blocker.read_text().startswith("a file")


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_hyperscan.CACHE_ENV, "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    counting = _Counting()
    _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    assert counting.compiles == 2 and not any(tmp_path.iterdir())


@pytest.mark.parametrize(("env", "expected"), [
    ({"ELISION_CACHE_DIR": "/c/mine", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/c/mine"),
    ({"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/elision"),
    ({"HOME": "/h"}, "/h/.cache/elision"),
    ({"ELISION_CACHE_DIR": " OFF ", "HOME": "/h"}, None),
    ({}, None),
])
def test_where_the_cache_is(
    env: dict[str, str], expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ELISION_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    where = _hyperscan.cache_dir()
    assert (None if where is None else str(where)) == expected


def _built(where: str) -> tuple[Any, int]:
    """A trigger engine with every database built (the lazy ones too), with ``where`` as the
    cache, and how many of them it compiled."""
    counting = _Counting()
    before = os.environ.get(_hyperscan.CACHE_ENV)
    os.environ[_hyperscan.CACHE_ENV] = where
    try:
        engine = triggers._Hyperscan(counting)
        engine.literals, engine.text_literals  # noqa: B018  (loaded on first use)
        engine._body_db()
        engine._userinfo_db()
    finally:
        if before is None:
            del os.environ[_hyperscan.CACHE_ENV]
        else:
            os.environ[_hyperscan.CACHE_ENV] = before
    return engine, counting.compiles


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    where = str(tmp_path_factory.mktemp("engine-cache"))
    compiled, compiles = _built(where)
    loaded, loads_compiled = _built(where)
    assert compiles == 5 and loads_compiled == 0  # every database came from the cache
    return compiled, loaded


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(seeded_texts(), st.text(max_size=200)))
def test_the_loaded_trigger_engine_finds_what_a_compiled_one_does(
    engines: tuple[Any, Any], text: str
) -> None:
    compiled, loaded = engines
    data = text.encode("utf-8", "surrogatepass")
    for keys in (False, True):
        assert loaded.scan(data, keys=keys) == compiled.scan(data, keys=keys)
    assert loaded.body_kinds(data) == compiled.body_kinds(data)


def _plant_empty_matcher(cache: Path) -> None:
    """Replace the kept database with one that matches nothing, with a valid digest: what
    another user who can write the cache could do to switch redaction off."""
    [kept] = cache.iterdir()
    never = hs.Database()
    never.compile(expressions=[b"\\x00never\\x00"], ids=[0], elements=1, flags=[0])
    blob = hs.dumpb(never)
    kept.write_bytes(hashlib.sha256(blob).digest() + blob)


@pytest.mark.parametrize("loosen", ["dir", "file"])
def test_a_cache_others_can_write_is_not_trusted(cache: Path, loosen: str) -> None:
    _hyperscan.database(_Counting(), EXPRESSIONS, FLAGS, literal=True)
    _plant_empty_matcher(cache)
    [kept] = cache.iterdir()
    (cache if loosen == "dir" else kept).chmod(0o777 if loosen == "dir" else 0o666)
    counting = _Counting()
    db = _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    assert counting.compiles == 1 and _matches(db, SAMPLE)


def test_a_symlinked_cache_file_is_not_followed(cache: Path, tmp_path: Path) -> None:
    _hyperscan.database(_Counting(), EXPRESSIONS, FLAGS, literal=True)
    _plant_empty_matcher(cache)
    [kept] = cache.iterdir()
    elsewhere = tmp_path / "planted.hs"
    kept.rename(elsewhere)
    kept.symlink_to(elsewhere)
    counting = _Counting()
    db = _hyperscan.database(counting, EXPRESSIONS, FLAGS, literal=True)
    assert counting.compiles == 1 and _matches(db, SAMPLE)
