"""An affixed credential name (``key1``, ``password_2``) in a JSON document costs what a plain
one does: a value's ``key1`` is no name, and keys of one shape are judged once.

Issue 23 (the jsonaffix session): once the affixed names were literals of the JSON scan, a
MB of ``{"a": "key1 key1 …"}`` took 153 ms, ``["key1", …]`` 317 ms, 80,000 keys ``key1_N``
1.8 s and 60,000 keys ``password_N`` 0.9 s, where prose takes 0.7 ms: each literal was a
Python call in the scan, each key a search of its own for a secret in it and a judging of
its name. Now the affixed names that count in JSON (a key's, or one assigned inside a
string: :data:`~elision.redact.generic.AFFIX_IN_JSON`) are told in C, a big object's keys
are asked for secrets together, and a name is judged once a shape (its digits made ``0``).
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_value, triggers, walk
from elision.shape.jsonparse import parse_json
from support.calls import counted, python_calls
from support.engines import hyperscan_only

_VALUE = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"
_COUNT = 4096
_READ_WHOLE = hyperscan_only("a JSON key's affixed name is read whole by hyperscan's scan")


def _redacted(doc: object) -> tuple[object, object]:
    body = orjson.dumps(doc)
    done = redact_value(parse_json(body), body=body)
    return done.value, done.withheld


@hyperscan_only("the JSON scan's affixed pass is hyperscan's")
@pytest.mark.parametrize(
    "doc",
    [
        {"a": "key1 " * _COUNT},  # one value, a literal every 5 bytes
        ["key1"] * _COUNT,  # a literal an element, each its own string
        ["password_2"] * _COUNT,  # a credential word's, closed by its quote: still a value
        {f"key1_{i}": 1 for i in range(_COUNT)},  # keys no qualifier makes a name
        {"a": "token_2 (old) " * _COUNT},  # unassigned inside a value
    ],
    ids=["str-run", "array", "array-strong", "keys-unqualified", "str-unassigned"],
)
def test_affixed_literals_that_name_nothing_cost_no_python_call_each(doc: object) -> None:
    """Red before: a Python call a literal (tens of thousands here)."""
    _redacted(doc)  # the databases loaded, once a process
    body = orjson.dumps(doc)
    calls, done = python_calls(lambda: redact_value(parse_json(body), body=body))
    assert done.withheld == ()
    assert calls < _COUNT // 8, calls


@pytest.mark.parametrize("word", ["password", "secret", "api_key"])
def test_keys_of_one_shape_are_judged_once(word: str) -> None:
    """Red before: each of 4,096 keys ``password_N`` was searched for a secret in it (a
    ``_key_rule_of`` each) and its name split into words afresh (``_split``)."""
    doc = {f"{word}_{i}": "x" for i in range(_COUNT)}
    with pytest.MonkeyPatch.context() as mp:
        searched = counted(mp, walk, "_key_rule_of")
        split = counted(mp, generic, "_split")
        _redacted(doc)
    assert len(searched) < 64, len(searched)  # a few a scan's bound, not one a key
    assert len(split) < 16, len(split)


@pytest.mark.parametrize(
    ("doc", "withheld"),
    [
        ({"password_2": _VALUE}, True),  # the names, each with a real value
        ({"apiKeyV2": _VALUE}, True),
        ({"x-api-key-2": _VALUE}, True),
        ({"DB_PASSWORD_1": _VALUE}, True),
        # a key read whole, whatever follows its affix (the regex passes' patterns need
        # an assignment after the name: not yet theirs)
        pytest.param({"password_2 (old)": _VALUE}, True, marks=_READ_WHOLE),
        pytest.param({'password_2 "old"': _VALUE}, True, marks=_READ_WHOLE),  # escaped quote
        pytest.param({"password_2\u00e9": _VALUE}, True, marks=_READ_WHOLE),  # past ASCII
        ({"a": [{"b": {"secret_v2": _VALUE}}]}, True),  # nested
        ({"a": f"password_2={_VALUE}"}, True),  # assigned inside a value
        ({"a": f"password_2 = {_VALUE}"}, True),  # after a space
        ({"a": f"run --password_2 {_VALUE}"}, True),  # a flag's name and its gap
        ({"a": f'{{"password_2": "{_VALUE}"}}'}, True),  # JSON inside a string
        ({"sort_key_1": _VALUE}, False),  # a key no qualifier names
        ({"a": ["password_2", _VALUE]}, False),  # a value that spells a name names nothing
    ],
)
def test_what_the_affixed_names_withhold_in_json(doc: object, withheld: bool) -> None:
    value, entries = _redacted(doc)
    assert bool(entries) is withheld
    assert (_VALUE in orjson.dumps(value).decode()) is not withheld


_NAMES = st.sampled_from([
    "password_2", "key1", "api_key_v2", "token-old", "Secret.v3", "x", "sort_key_1",
    "password_2 (old)", 'pass\\"2', "apiKey1", "DB_PASSWORD_10", "auth9\u00e9",
])
_TEXTS = st.sampled_from([
    _VALUE, "key1 key1 ", "password_2", "password_2=", "token_1: ", " ", "--secret-v2 ",
    "\n", '"', "\\", "=", "x", "sk-", "AKIAZ7Q2M4X9K3L8P5W1",
])
_STRINGS = st.lists(st.one_of(_NAMES, _TEXTS), max_size=6).map("".join)
_DOCS = st.recursive(
    _STRINGS | st.integers(0, 99),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_STRINGS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(_DOCS)
@example({"password_2 (old)": _VALUE})
@example(["password_2=" + _VALUE, "key1"])
@example({'pass\\"2': _VALUE})
def test_json_withholds_what_it_did_with_each_affixed_literal_a_trigger(doc: object) -> None:
    """The affixed pass and the names' shapes change what is searched and judged, never
    what is withheld: the same as with every affixed literal a trigger and each name
    judged afresh (the slow paths)."""
    fast = _redacted(doc)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "JSON_AFFIX_PASS", False)
        mp.setattr(generic, "NAME_SHAPES", False)
        slow = _redacted(doc)
    assert fast == slow


@pytest.mark.parametrize(
    ("keys", "inert"),
    [
        ([f"key1_{i}" for i in range(_COUNT)], True),  # one shape a length, naming nothing
        ([f"key1_{i}" for i in range(_COUNT)] + ["password_7"], False),  # one that names
        ([f"key1_{i}\n" for i in range(_COUNT)], True),  # a line break in each: apart
    ],
)
def test_a_big_objects_names_are_judged_once_a_shape(keys: list[str], inert: bool) -> None:
    """Red before: each of 4,096 keys ``key1_N`` was a ``name_strength`` call (through
    ``shape()``, 80,000 of them were 3.5x the code before the affixed names)."""
    with pytest.MonkeyPatch.context() as mp:
        judged = counted(mp, walk, "name_strength")
        assert walk.names_inert(dict.fromkeys(keys, 1)) is inert
    if "\n" not in keys[0]:
        assert len(judged) < 16, len(judged)


_ASSIGNED = ["password_1=x"] * _COUNT  # an assigned name an element, as dense as can be


@hyperscan_only("the JSON scan's affixed pass is hyperscan's")
def test_an_array_of_assigned_names_costs_no_python_call_each() -> None:
    """Red before: a Python call a string in the affixed pass (10x the literal scan's
    density count, which had told these in C)."""
    _redacted(_ASSIGNED)
    body = orjson.dumps(_ASSIGNED)
    calls, _ = python_calls(lambda: redact_value(parse_json(body), body=body))
    assert calls < _COUNT // 4, calls  # a first window's hundred, then counts in C


@pytest.mark.parametrize(
    "doc",
    [
        # a real one amid the dense run, after it, and in a dense object's member
        [*_ASSIGNED, f"password_2={_VALUE}", *_ASSIGNED],
        [*_ASSIGNED, f"password_2={_VALUE}"],
        [*_ASSIGNED, {"password_2": _VALUE}],
        {**{f"password_{i}": "x" for i in range(_COUNT)}, "secret_v2": _VALUE},
        # the dense run of strings broken by keys whose ":" a form must not count
        [{"password_1": "x"}] * _COUNT + [f"password_2={_VALUE}"],
    ],
    ids=["amid", "after", "member-after", "dense-object", "keys-then-one"],
)
def test_a_dense_run_of_affixed_names_hides_no_credential(doc: object) -> None:
    value, entries = _redacted(doc)
    assert _VALUE not in orjson.dumps(value).decode()
    assert entries
