"""Every text class of ``bench/fuzz_linear.py`` is redacted as the code before the perftext work
(issue 23) redacted it, byte for byte: the redacted text and its withheld entries.

The perftext session made the worst text classes' redaction cheaper (fewer Python calls a
candidate); none of it may change a verdict. Each digest in ``fixtures/classes_as_before.json``
was written by the code before it, at 3294623, once a trigger search (the two tell a few
base64 runs apart otherwise, as they did before), with::

    PYTHONPATH=<checkout before>/src .venv/bin/python tests/redact/test_redact_classes_as_before.py
    ELISION_REDACT_ENGINE=re PYTHONPATH=<checkout before>/src .venv/bin/python tests/redact/…

A fix that withholds more on purpose rewrites the digests of the classes it changes (the same
two commands on the fixed code) and names them here, with what changed:

- cfgleak (YAML lists and blocks read past their piece): ``yaml-plural-long`` withholds each
  of its list's items (61 before, 3,780 now); ``yaml-blocks-nested``'s first ``password: |``
  holds every line after it (each is indented more), so it is one block withheld whole (71
  values before, each block judged in its own piece).
- leakenc: six new classes' digests, written by the code that withholds them
  (``look-alike-whole-assign``, ``query-deep-encoded``, ``percent-run``, ``fcm-after-mask``,
  ``cyrillic-caps-prose``, ``json-in-json-tables``); no class before it changed.
- leakcmd (curl's ``-u`` glued after its switches, a quoted value over lines, statements
  and netrc entries longer than a piece): its new classes (``curl-glued-groups``,
  ``curl-glued-quotes``, ``dash-switch-words``, ``wrapped-values``, ``wrapped-unclosed``,
  ``sql-endless-options``, ``sql-endless-clauses``, ``netrc-endless-entry``,
  ``netrc-endless-passwords``) recorded by its own code; no class changed.
- the 2026-12-05 fourth session's merge: 30 classes that sessions since 3294623 added to
  bench/fuzz_linear.py had no digest, so nothing pinned what they withhold (the cookie,
  header, look-alike, table, SQL and switch-group classes among them). Each is recorded
  from the merged head, and a class with no digest now fails this test, so a new class is
  pinned by the session that adds it.
- leakwave2 (a cookie after a comma and a space; a generated run of letters after a path's
  header name): its new classes (``cookie-comma-pairs``, ``set-cookie-folded``,
  ``cookie-names-commas``, ``path-header-letters``) recorded by its own code, both engines;
  no class before it changed.
- sqlbind (bind parameters shown, curl's ``-u`` after a spelled gap withheld): its new
  classes (``sql-bind-params``, ``bind-colon-glued``, ``curl-spelled-gaps``,
  ``curl-escaped-tabs``) recorded by its own code, both engines; no class before it changed.
- bearer (a Bearer token of letters alone, told from a placeholder): its new classes
  (``bearer-letters-lines``, ``bearer-letters-run``, ``bearer-alphabet-run``) recorded by its
  own code, both engines; no class before it changed.
- cookiecomma (a cookie after a comma with no space, a nameless value after a comma and a
  space, cookie maps a level or more of JSON-in-JSON down): its new classes
  (``cookie-comma-glued``, ``cookie-comma-nameless``, ``cookie-comma-words``,
  ``cookies-json-deep``) recorded by its own code, both engines; no class before it changed.
- leakmisc (compound names wholly of look-alikes): its new classes
  (``look-alike-compound-assign``, ``cyrillic-caps-glued``, ``md-long-dash-tables``,
  ``md-loose-digit-rows``, ``md-tree-lines``, ``xml-escaped-elements``,
  ``xml-escaped-open``) recorded by its own code, both engines; no class before it changed.

- nfdfr (NFD prose among other chars past ASCII, a span in it, JSON records of it): its new
  text classes (``nfd-french-typeset``, ``nfd-prose-secrets``) recorded by the code before
  it (main at 5ea0ca4), both engines, and the same by its own; no class before it changed.
- dollarleak (a generated secret after a ``$`` withheld, a variable's name shown): its new
  classes (``dollar-variable-names``, ``dollar-generated-secrets``) recorded by its own code,
  both engines; no class before it changed.
- leaks (an escaped element's other spellings, a ``$`` reference left open or tailed, a
  parted or short Bearer token of letters, look-alike words longer than 32 letters): its new
  classes (``dollar-open-tailed``, ``xml-escaped-spellings``, ``xml-escaped-amp-runs``,
  ``bearer-parted-lines``, ``bearer-parted-run``, ``look-alike-long-compound``,
  ``look-alike-endless-word``) recorded by its own code, both engines; no class before it
  changed.
- leaks2 (PostgreSQL's dollar-quoted strings, psql's ``\\set``, curl's ``%3A`` users,
  key/value rows in JSON strings, compact NDJSON read as no CSV, shell defaults, cookie
  containers five levels down): its new
  classes (``sql-dollar-strings``, ``sql-dollar-unclosed``, ``psql-set-lines``,
  ``psql-set-prose``, ``curl-user-encoded``, ``curl-user-colon-run``,
  ``json-text-loose-rows``, ``ndjson-compact-names``, ``shell-defaults``,
  ``cookies-json-deep6``) recorded by its own code, both engines; no class before it
  changed (``md-loose-rows`` and four other table classes did, by a first try whose
  row-name triggers were a text scan's too, counted: they are a JSON scan's alone now).
- the sixth session's review: ``md-small-tables`` (a table that ends after its one row, a MB
  of them; the rows' judging once by their text sampled 8 KB after each), recorded by the
  fixed code, both engines, the same as the merged head gave; no class changed.
- leaksa (``${NAME-S}``, other shells' ``set``, curl's user in a JSON text's escaped quotes,
  a dropped char before a look-alike name): its new classes (``shell-defaults-no-colon``,
  ``shell-default-braces``, ``shell-set-lines``, ``shell-set-prose``,
  ``curl-json-escaped-users``, ``curl-json-escaped-open``, ``look-alike-marked-assign``,
  ``look-alike-marks-run``) recorded by its own code, both engines; no class before it
  changed.
- leaksb (delimiter rows indented, tab-spaced or opened nine spaces after their ``|``): its
  new class ``md-indented-delimiters`` recorded by its own code, both engines; no class
  before it changed.
Each class at 48 KB: long enough for a chain of glued keys to pass its depth bound and for a
line of candidates to fill the density windows, small enough that all of them take a second.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from elision.redact import redact_text
from elision.redact.triggers import engine_name

FIXTURE = Path(__file__).parent / "fixtures" / "classes_as_before.json"
SIZE = 48 * 1024
BENCH = Path(__file__).parents[2] / "bench"


def _fuzz_linear() -> ModuleType:
    # By its path, with bench/ importable as it is when run from there (measuring, corpus).
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_fuzz_linear", BENCH / "fuzz_linear.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def text_classes() -> dict[str, str]:
    """Each text class's payload at :data:`SIZE` (a JSON class, bytes, is left out)."""
    made: dict[str, str] = {}
    for each in _fuzz_linear().SYSTEMATIC:
        try:
            payload = each.make(SIZE)
        except (ModuleNotFoundError, AttributeError):
            # Made from bench/redact.py's prose ("redact" is this test package under pytest):
            # test_redact_same_as_before reads those corpora.
            continue
        if isinstance(payload, str):
            made[each.name] = payload
    return made


def digest(text: str) -> str:
    done = redact_text(text)
    seen = json.dumps([done.value, list(done.withheld)], sort_keys=True)
    return hashlib.sha256(seen.encode()).hexdigest()[:16]


def _engine() -> str:
    return engine_name()


def test_each_text_class_is_redacted_as_before() -> None:
    before: dict[str, str] = json.loads(FIXTURE.read_text())[_engine()]
    now = {name: digest(text) for name, text in text_classes().items()}
    changed = sorted(name for name in before if now.get(name) != before[name])
    assert not changed, f"redacted otherwise than before: {changed}"
    assert set(now) >= set(before), "a class the fixture names is gone from bench/fuzz_linear.py"
    unpinned = sorted(set(now) - set(before))
    assert not unpinned, (
        f"no digest for {unpinned}: record them (see this file's doc), and name them there")


if __name__ == "__main__":
    # A digest a class a trigger search: the two read four runs of base64 classes otherwise.
    record = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}
    record[_engine()] = {name: digest(text) for name, text in text_classes().items()}
    FIXTURE.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n")
    print(f"{len(record[_engine()])} digests of {_engine()} written to {FIXTURE}")
