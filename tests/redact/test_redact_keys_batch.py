"""An object's many keys, and NDJSON's keys a line, are judged together (issue 23), and what is
withheld is what the judge of each key alone withholds.

Found by ``bench/fuzz_linear.py``: an object of 60-char keys of ``A`` was flagged super-linear
(time exponent 1.6-1.9 from 1 to 4 MB, 12.8x prose at 1 MB). The step that grew was the walk's
judge of each key's name (:func:`elision.redact.walk.names_inert`: a Python step a key, some
5 µs), which a per-process cache of 4,096 keys hid at the sizes below 1 MB, its warm-up body
holding the same first keys: cold, it is linear, 85 ms a MB. The keys are now told apart in
one pass over all of them (:func:`elision.redact.batch.may_withhold`, and one substring search
for a name's core), and an object of scalar members whose names hold nothing is walked with
no step a member.

The differential runs the code before (``ELISION_BEFORE_SRC``, a checkout's ``src``; skipped
when it is not there) on the same drawn documents and NDJSON texts in a child process.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import repeat
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import families, generic, keywords, redact_value, walk
from elision.redact.families import FAMILIES, PATTERN_FAMILIES, sample
from elision.redact.secrets import find_credentials
from elision.shape.jsonparse import parse_json
from support.before import redacted
from support.built import strategies_built

FAKES = [sample(f, 0, "keys")[0] for f in FAMILIES if f.finder != "field"]
NAMES = ["password", "api_key", "apiKey", "token", "page_token", "secret", "sort_key", "id",
         "name", "note", "Authorization", "db_password", "x-api-key", "primaryKey", "passwd"]
WORDS = ["alpha", "beta", "the quick fox", "ok", "", "value 12", "hunter2", "sk-", "ghp_"]


@cache  # built once per (i, fakes): a strategy a draw builds is most of the draw's cost
def _key(i: int, fakes: bool) -> st.SearchStrategy[str]:
    # A distinct suffix, as the hostile object's keys have: only names repeat by design. A
    # key that is a secret is drawn in some objects only: it makes the object's keys not
    # inert whatever the others name, so it would hide how they are judged.
    return st.one_of(
        st.integers(20, 70).map(lambda n: "A" * n + f"{i:08d}"),
        st.sampled_from(FAKES if fakes else ["x"]).map(lambda f: f + str(i)),
        st.sampled_from(NAMES),
        st.sampled_from(NAMES).map(lambda n: f"{n}_{i}"),
        st.text(max_size=12).map(lambda t: t + str(i)),
        st.sampled_from(WORDS).map(lambda w: f"{w} {i}"),
    )


SCALARS = st.one_of(
    st.integers(-5, 10**12), st.booleans(), st.none(), st.sampled_from(FAKES),
    st.sampled_from(WORDS), st.text(max_size=16),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(NAMES + WORDS), inner, max_size=4)),
    max_leaves=6,
)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """An object of many members (past the batch's threshold or not), keys of ``A``, fakes,
    credential names and plain words; values scalar mostly, nested at times."""
    count = draw(st.integers(1, 90))
    nested = draw(st.booleans())
    fakes = draw(st.booleans())
    keys = [draw(_key(i, fakes)) for i in range(count)]
    members = {k: draw(VALUES if nested else SCALARS) for k in keys}
    if draw(st.booleans()):
        return {"rows": [members], "more": draw(VALUES)}
    return members


def test_drawing_a_document_builds_no_strategy() -> None:
    """Red before: each key drawn built its strategy again (14,288 for 20 documents, 2,016
    for the 5 drawn here; the tests below spent most of their CPU doing it, not testing)."""
    assert strategies_built(documents(), examples=5) < 20


def _ndjson(docs: list[dict[str, Any]]) -> str:
    return "".join(orjson.dumps(d).decode() + "\n" for d in docs)


_here = redacted


def _cold() -> None:
    # The per-process answers for keys would hide a difference a second time round.
    walk._key_rule.clear()
    walk._key_inert.clear()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents())
def test_a_document_of_many_keys_is_redacted_as_before(
    code_before_answers: Callable[[str, str], Any], doc: dict[str, Any],
) -> None:
    payload = orjson.dumps(doc).decode()
    _cold()
    assert _here("json", payload) == code_before_answers("json", payload)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(documents(), min_size=1, max_size=6))
def test_ndjson_with_keys_in_lines_is_redacted_as_before(
    code_before_answers: Callable[[str, str], Any], docs: list[dict[str, Any]],
) -> None:
    text = _ndjson(docs)
    _cold()
    assert _here("text", text) == code_before_answers("text", text)


def _keys_of_a(count: int) -> bytes:
    return orjson.dumps({f"{'A' * 60}{i:08d}": i for i in range(count)})


def test_keys_of_a_are_not_judged_a_step_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """60-char keys of ``A`` (``bench/fuzz_linear.py`` flagged them super-linear): no key's
    name is read alone, and no member is a step of the walk."""
    calls = {"names": 0, "enter": 0}
    names_nothing = generic.names_nothing
    enter = walk.Walker._enter

    def counted_names(name: str) -> bool:
        calls["names"] += 1
        return names_nothing(name)

    def counted_enter(self: walk.Walker, *args: Any) -> Any:
        calls["enter"] += 1
        return enter(self, *args)

    monkeypatch.setattr(walk, "names_nothing", counted_names)
    monkeypatch.setattr(walk.Walker, "_enter", counted_enter)
    _cold()
    body = _keys_of_a(5000)
    got = redact_value(parse_json(body), body=body)
    assert got.withheld == ()
    assert calls["names"] < 50, calls
    assert calls["enter"] < 50, calls


@pytest.mark.parametrize("extra", [
    {"db_password": "Zx8Qw3Er5Ty7Ui9Op"},  # a credential's name, alone among the keys
    {FAKES[0]: 1},  # a key that is itself a secret
    {"nested": {"token": "abcdefgh12345678"}},  # a name one level down
    {"db_password": "Zx8Qw3Er5Ty7Ui9Op", FAKES[0]: 1, "nested": {"token": "abcdefgh12345678"}},
])
def test_a_credential_among_many_keys_is_still_withheld(extra: dict[str, Any]) -> None:
    members: dict[str, Any] = {f"{'A' * 60}{i:08d}": i for i in range(3000)}
    members.update(extra)
    body = orjson.dumps(members)
    _cold()
    got = redact_value(parse_json(body), body=body)
    reasons = {e["path"]: e["reason"] for e in got.withheld}
    if "db_password" in extra:
        assert reasons["$.db_password"] == "credential-field"
        assert got.value["db_password"] != "Zx8Qw3Er5Ty7Ui9Op"
    if "nested" in extra:
        assert "$.nested.token" in reasons
    if FAKES[0] in extra:
        assert FAKES[0] not in got.value
        assert len(got.withheld) == len(extra)
    assert json.dumps(got.value).count("A" * 60) == 3000


NAME_TEXTS = st.one_of(
    st.sampled_from(NAMES + WORDS + ["PassWord", "x-Auth", "JWT", "cookies", "ke", "y", "é"]),
    st.text(max_size=10),
    st.integers(0, 80).map(lambda n: "A" * n),
)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(st.lists(NAME_TEXTS, max_size=3).map("".join), max_size=50))
def test_the_names_search_flags_exactly_the_names_each_test_flags(names: list[str]) -> None:
    assert generic.naming(names) == [i for i, n in enumerate(names)
                                     if not generic.names_nothing(n)]


def test_a_window_reads_only_a_runs_chars() -> None:
    """The runs' loop asks the base64 windows once of all strings only because of this."""
    assert keywords.window_local()


def test_a_python_without_the_private_re_parser_searches_each_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by reading the change: ``window_local`` read CPython's private ``re._parser``
    with no way out, as the family skip once did (fixed there): on a Python without it, every
    redaction that asked would fail. It says no there (each run searched alone: slower, the
    same result), and what is withheld is what it was."""
    import sys

    from elision.redact import scan

    key = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
    text = " ".join(["QUFBQUFBQUFBQUFBQUFBQUFBQUFB"] * 40 + [key])
    expected = [(s.start, s.end, s.rule) for s in scan.find_spans(text)]
    value = {f"k{i}": "A" * 60 for i in range(40)} | {"token": key}
    expected_value = redact_value(value).value
    keywords.window_local.cache_clear()
    try:
        monkeypatch.delattr(re, "_parser")
        monkeypatch.setitem(sys.modules, "re._parser", None)  # an import of it fails
        assert keywords.window_local() is False
        assert [(s.start, s.end, s.rule) for s in scan.find_spans(text)] == expected
        assert redact_value(value).value == expected_value
    finally:
        monkeypatch.undo()
        keywords.window_local.cache_clear()
    assert keywords.window_local() is True


RUN_TEXTS = st.lists(
    st.sampled_from(["A" * 20, "A" * 21, "A" * 7, "AAAAAAAAAAAAAAAAAAAAA" + "x1%" * 20,
                     "ghp_", "sk-", "xoxb-", "QUFB", "\n", " ", "0123", "EAAA", ":AA", "é"]),
    max_size=12,
).map("".join)


@pytest.mark.skipif(not isinstance(keywords._engine(), keywords._Hyperscan),
                    reason="hyperscan is not installed")
@settings(max_examples=300, deadline=None)
@given(text=RUN_TEXTS)
def test_what_a_text_holds_is_read_alike_with_its_runs_of_one_char(text: str) -> None:
    """X's bearer-token keyword (twenty ``A``) is asked with ``in``, outside hyperscan."""
    assert keywords.present(text).families == keywords._Plain().present(text).families


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.text(max_size=200),
                       st.text(alphabet="abc0123456789-_ABCXYZ", min_size=500, max_size=700),
                       st.integers(1, 2000).map(lambda n: "7" * n)))
def test_entropy_is_the_same_float_as_counted_by_counter(value: str) -> None:
    """An NDJSON record's key: its chars are counted in C, in the order Counter gives them,
    so the float summed is the one Counter's counts give (a threshold is compared to it)."""
    n = len(value)
    counted = -sum(map(families._term, Counter(value).values(), repeat(n))) if value else 0.0
    assert families.entropy(value) == counted


def _opened_families() -> list[int]:
    from elision.redact.secrets import _opening

    return [i for i in range(len(PATTERN_FAMILIES)) if _opening(i) is not None]


@pytest.mark.parametrize("index", range(len(PATTERN_FAMILIES)))
def test_a_match_that_opens_with_a_keyword_is_judged_alike_without_its_search(index: int) -> None:
    """What the judge of a piece withholds for a family (tried at its keywords' openings,
    ``secrets._opening``, or searched) is what the family's own search and ``accepts``
    withhold, for its fakes and for them with their keywords taken out (what a pattern that
    need not hold one must then turn away: ``1/…:…`` is Asana's only by its name). Written
    for a skip of the keyword search where a match opens with a keyword, red when every
    family was claimed so; the skip cost NDJSON 1.6 M more instructions a MB, so it went."""
    family = PATTERN_FAMILIES[index]
    assert family.pattern is not None
    for seed in range(3):
        fake = sample(family, 0, seed)[0]
        bare = re.sub("|".join(map(re.escape, family.keywords)), "", fake, flags=re.IGNORECASE)
        for text in (fake, f'{{"key": "{fake}", "n": 1}}', bare, f"note {bare}"):
            holds = keywords.Present((index,), False, False, False)
            got = {(s.start, s.end) for s in find_credentials(text, holds) if s.rule == family.id}
            want = {family.secret_span(m) for m in family.pattern.finditer(text)
                    if family.accepts(text, m)}
            assert got == want, text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents())
def test_a_document_of_many_keys_is_redacted_as_its_walk_key_by_key(doc: dict[str, Any]) -> None:
    # Always run (the differential above needs the code before): the same document with the
    # batch judge of keys and strings, and the walk of an object by its distinct values,
    # turned off, so every key and value is judged alone as the walk did before them.
    payload = orjson.dumps(doc).decode()
    _cold()
    fast = _here("json", payload)
    scalars = walk.Walker._scalars
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "BATCH", 1 << 60)
        mp.setattr(walk.Walker, "_scalars",
                   lambda self, frame: False if frame.is_dict else scalars(self, frame))
        _cold()
        slow = _here("json", payload)
    assert fast == slow
