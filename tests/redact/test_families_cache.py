"""The parsed families table is kept between processes (elision.redact.families.rows).

Parsing families.toml cost every command's start 10-30 ms (issue 24). A kept table must be
the one the TOML gives: a changed table never meets an older file, and a file that is torn,
altered, not a list of rows, or not this user's alone is parsed again, never used.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from pathlib import Path

import orjson
import pytest

from elision import _cache
from elision.redact import families
from support.kept import TORN, kept_file, seal, use_cache

TABLE = families.TABLE.read_bytes()
PARSED = tomllib.loads(TABLE.decode())["family"]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return use_cache(tmp_path, monkeypatch, "families")


def test_a_kept_table_is_the_parsed_table(cache: Path) -> None:
    assert families.rows(TABLE) == PARSED  # parsed, then kept
    assert families.rows(TABLE) == PARSED  # read back
    blob = kept_file(cache).read_bytes()
    assert orjson.loads(blob[32:]) == PARSED


def test_a_changed_table_never_meets_the_older_file(cache: Path) -> None:
    families.rows(TABLE)
    changed = TABLE.replace(b'id = "aws-access-key-id"', b'id = "aws-access-key-id-renamed"', 1)
    assert changed != TABLE
    ids = [row["id"] for row in families.rows(changed)]
    assert "aws-access-key-id-renamed" in ids and "aws-access-key-id" not in ids
    assert len(list(cache.iterdir())) == 2


@pytest.mark.parametrize("damage", [
    *TORN,
    # Whole by its digest, but not what a kept table holds.
    pytest.param(lambda data: seal(b"[]x"), id="not-json"),
    pytest.param(lambda data: seal(b'{"family": []}'), id="not-a-list"),
    pytest.param(lambda data: seal(b'[1, 2]'), id="not-rows"),
])
def test_a_damaged_kept_table_is_parsed_again(cache: Path, damage: object) -> None:
    families.rows(TABLE)
    kept = kept_file(cache)
    kept.write_bytes(damage(kept.read_bytes()))  # type: ignore[operator]
    assert families.rows(TABLE) == PARSED
    data = kept.read_bytes()
    assert data[:32] == hashlib.sha256(data[32:]).digest()  # kept again, whole


def test_a_file_others_could_write_is_not_read(cache: Path) -> None:
    families.rows(TABLE)
    kept = kept_file(cache)
    # A planted table that drops every family would switch redaction off.
    kept.write_bytes(seal(orjson.dumps(PARSED[:1])))
    os.chmod(kept, 0o666)
    assert families.rows(TABLE) == PARSED
    os.chmod(kept, 0o600)
    os.chmod(cache, 0o777)
    kept.write_bytes(seal(orjson.dumps(PARSED[:1])))
    assert families.rows(TABLE) == PARSED


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_cache.CACHE_ENV, "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert families.rows(TABLE) == PARSED
    assert not any(tmp_path.iterdir())


def test_patterns_are_compiled_as_written() -> None:
    for family in families.PATTERN_FAMILIES:
        assert family.source is not None
        assert family.pattern == re.compile(family.source, family.flags)
