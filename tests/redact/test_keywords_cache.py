"""The keyword sets are kept between processes (elision.redact.keywords.tables).

Deriving them (580 keywords' base64 forms, the windows' regexes) cost every command's start
about 10 ms (issue 24). Kept sets must be the derived ones: a change to anything they are
derived from (the families, the generic names, the module's own code) never meets an older
file, and a file that is torn, altered, of another form, not this user's alone, or out of
reach costs a derivation, never a different set or an error.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import _cache
from elision.redact import keywords
from elision.redact.families import PATTERN_FAMILIES, sample
from support.kept import TORN, blocked_cache, kept_file, seal, use_cache

INPUTS = keywords.inputs()
DERIVED = keywords.derive(INPUTS)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return use_cache(tmp_path, monkeypatch, "keywords")


def test_the_module_holds_the_derived_sets() -> None:
    assert keywords._TABLES == DERIVED
    assert (keywords.FAMILY_EXACT, keywords.FAMILY_ANY_CASE, keywords.GENERIC,
            keywords.ESCAPE_ANY_CASE, keywords.B64_HEADS, keywords.BASE64,
            keywords.B64_WINDOWS, keywords.B64_WINDOW.pattern, keywords.LONGEST) == DERIVED


def test_kept_sets_are_the_derived_sets(cache: Path) -> None:
    assert keywords.tables(INPUTS) == DERIVED  # derived, then kept
    assert keywords.tables(INPUTS) == DERIVED  # read back
    assert isinstance(keywords.tables(INPUTS).b64_heads, frozenset)
    assert orjson.loads(kept_file(cache).read_bytes()[32:])["base64"] == list(DERIVED.base64)


_WORD = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1, max_size=12)
_FAMILY = st.tuples(st.lists(_WORD, max_size=3).map(tuple), st.booleans(),
                    st.lists(_WORD.map(lambda w: w + "{alnum:8}"), min_size=1,
                             max_size=2).map(tuple))
_INPUTS = st.builds(
    keywords.Inputs,
    st.lists(_FAMILY, min_size=1, max_size=6).map(tuple),
    st.lists(_WORD, min_size=1, max_size=4).map(tuple),
    st.just(INPUTS.separators),
    st.lists(_WORD, max_size=3).map(tuple),
    st.lists(_WORD, max_size=2).map(tuple),
    st.sampled_from([INPUTS.marks, INPUTS.marks[2:], ()]),
    st.lists(_WORD.map(lambda w: f'"{w}"'), max_size=2).map(tuple),
)


@settings(max_examples=40, deadline=None)
@given(_INPUTS)
def test_any_inputs_are_kept_as_derived(given_inputs: keywords.Inputs) -> None:
    """Whatever the families and names hold (any case, non-ASCII, shared keywords), the set
    read back is the set derived, and each input is kept apart."""
    derived = keywords.derive(given_inputs)
    with tempfile.TemporaryDirectory() as where, pytest.MonkeyPatch.context() as mp:
        mp.setenv(_cache.CACHE_ENV, where)
        assert keywords.tables(given_inputs) == derived
        assert keywords.tables(given_inputs) == derived
        assert len(list((Path(where) / "keywords").iterdir())) == 1


def test_changed_inputs_never_meet_the_older_file(cache: Path) -> None:
    keywords.tables(INPUTS)
    first, *rest = INPUTS.families
    added = INPUTS._replace(families=((first[0] + ("zq_new_",), *first[1:]), *rest))
    assert "zq_new_" in keywords.tables(added).family_exact
    assert "zq_new_" not in keywords.tables(INPUTS).family_exact
    assert len(list(cache.iterdir())) == 2


def test_changed_code_never_meets_the_older_file(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keywords.tables(INPUTS)
    edited = tmp_path / "keywords.py"
    edited.write_bytes(Path(keywords.__file__).read_bytes() + b"\n# an edit\n")
    monkeypatch.setattr(keywords, "__file__", str(edited))
    assert keywords.tables(INPUTS) == DERIVED
    assert len(list(cache.iterdir())) == 2


def test_without_its_source_nothing_is_kept(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed without its .py (bytecode alone), the code that derived a kept file could not
    be told from another: nothing is read or kept."""
    monkeypatch.setattr(keywords, "__file__", str(tmp_path / "gone.py"))
    assert keywords.tables(INPUTS) == DERIVED
    assert not cache.exists()


def _with(**changed: object) -> bytes:
    return seal(orjson.dumps({**keywords._encode(DERIVED), **changed}))


@pytest.mark.parametrize("damage", [
    *TORN,
    # Whole by its digest, but not what a kept file holds.
    pytest.param(lambda data: seal(b"{x"), id="not-json"),
    pytest.param(lambda data: seal(b"[]"), id="not-an-object"),
    pytest.param(lambda data: seal(orjson.dumps({"base64": []})), id="keys-missing"),
    pytest.param(lambda data: _with(extra=1), id="a-key-too-many"),
    pytest.param(lambda data: _with(base64=[1, 2]), id="not-strings"),
    pytest.param(lambda data: _with(family_exact={"ghp_": ["0"]}), id="not-an-index"),
    pytest.param(lambda data: _with(longest="9"), id="not-a-length"),
])
def test_a_damaged_kept_file_is_derived_again(
    cache: Path, damage: Callable[[bytes], bytes]
) -> None:
    keywords.tables(INPUTS)
    kept = kept_file(cache)
    kept.write_bytes(damage(kept.read_bytes()))
    assert keywords.tables(INPUTS) == DERIVED
    data = kept.read_bytes()
    assert data[:32] == hashlib.sha256(data[32:]).digest()  # kept again, whole
    assert keywords._decode(orjson.loads(data[32:])) == DERIVED


def test_a_file_others_could_write_is_not_read(cache: Path) -> None:
    keywords.tables(INPUTS)
    kept = kept_file(cache)
    # A planted file with no base64 forms would let a key stored in a Secret through.
    planted = _with(base64=[], family_exact={})
    kept.write_bytes(planted)
    os.chmod(kept, 0o666)
    assert keywords.tables(INPUTS) == DERIVED
    os.chmod(kept, 0o600)
    os.chmod(cache, 0o777)
    kept.write_bytes(planted)
    assert keywords.tables(INPUTS) == DERIVED


def test_a_cache_out_of_reach_only_costs_a_derivation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = blocked_cache(tmp_path, monkeypatch)
    assert keywords.tables(INPUTS) == keywords.tables(INPUTS) == DERIVED
    assert blocker.read_text().startswith("a file")


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_cache.CACHE_ENV, "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert keywords.tables(INPUTS) == DERIVED
    assert not any(tmp_path.iterdir())


# One fake of each family a base64 form or a keyword finds, in plain text and base64-encoded
# as a Kubernetes Secret stores it.
_REDACT = """
import base64, sys
from elision.redact import redact_text
from elision.redact.families import PATTERN_FAMILIES, sample
fakes = [sample(f)[0] for f in PATTERN_FAMILIES[::9]]
text = "\\n".join(fakes + [base64.b64encode(f.encode()).decode() for f in fakes])
sys.stdout.write(redact_text(text).value)
"""


def _redacted(cache_dir: str) -> str:
    env = {**os.environ, _cache.CACHE_ENV: cache_dir}
    return subprocess.run([sys.executable, "-c", _REDACT], env=env, capture_output=True,
                          text=True, check=True).stdout


def test_a_process_with_a_bad_cache_redacts_the_same(tmp_path: Path) -> None:
    """End to end, in fresh processes (the sets are read when the module is imported): a
    corrupt kept file, and a cache that cannot be written."""
    fakes = [sample(f)[0] for f in PATTERN_FAMILIES[::9]]
    where = tmp_path / "cache"
    derived = _redacted("off")
    assert not any(fake in derived for fake in fakes)
    assert _redacted(str(where)) == derived  # derived and kept
    assert _redacted(str(where)) == derived  # read back
    kept_file(where / "keywords").write_bytes(seal(b"{x"))
    assert _redacted(str(where)) == derived
    with pytest.MonkeyPatch.context() as mp:
        blocker = blocked_cache(tmp_path, mp)
    assert _redacted(str(blocker)) == derived
