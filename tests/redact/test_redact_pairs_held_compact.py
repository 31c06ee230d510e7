"""A lazily read array's replaced objects are held as the members that changed (issue 23).

Found by ``bench/redact.py`` (issue 23's JSON bound, 3x): a MB of a Kubernetes env listing
(``[{"name": "DB_PASSWORD_7", "value": "v7x"}, …]``, bench/fuzz_linear.py's ``json-pairs``)
through ``shape()`` peaked at 6.3x its bytes (traced), 4x of it the copies of its records the
walk made (``{**record, "value": stub}``, one a pair) and the names those copies kept alive.
:meth:`~elision.shape.lazyjson.IndexChanges.add_piece` now keeps such a copy as a
:class:`~elision.shape.lazyjson.Patch` of the members it replaced, one shared by every record
the same stub replaced, and the node makes the object again from its bytes when it is read or
written. Peaks are counted (tracemalloc), never timed.

And a text of lines that each open with a brace and hold no comma (``cookies-json-deep``,
14x at ``shape()``'s peak): the lazy read's sample of the "object" was the whole text, and
orjson's refusal of it holds 12x what it was given.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.errors import InputError
from elision.redact import redact_value
from elision.shape import lazyjson, shape
from elision.shape.jsonparse import parse_json
from elision.shape.lazyjson import IndexChanges, Patch
from support.lazy_json import normalized, redact_lazily
from support.traced import peak


def _pairs(size: int) -> bytes:
    """bench/fuzz_linear.py's ``json-pairs``: each pair's value withheld by its name."""
    return orjson.dumps([{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"}
                         for i in range(max(1, size // 40))])


def test_shaping_credential_pairs_holds_no_copy_of_each_record() -> None:
    """Red before: 7.0x the body at 300 KB (traced); now 2.0x (1.1x at 1 MB)."""
    body = _pairs(300 << 10)
    shape(_pairs(16 << 10), Budget(4096))  # databases and caches, made
    assert lazyjson.reads_lazily(body)
    got = peak(lambda: shape(body, Budget(4096)))
    assert got < 3 * len(body), f"{got / len(body):.1f}x the body"


def test_the_replaced_records_share_one_patch() -> None:
    """The walk's answer itself: every record of the array is replaced, by one shared patch."""
    body = _pairs(300 << 10)
    done = redact_value(lazyjson.parse_document(body), body=body)
    changed = done.value._changed
    assert len(changed) == body.count(b'"name"') == len(done.withheld)
    assert len({id(patch) for patch in changed.values()}) == 1


# --------------------------------------------------------------- read as the walk made them

_NAMES = ["DB_PASSWORD", "api_key", "HOME", "token", "name", "user", "SECRET_KEY_2"]
_VALUES = ["v1x", "hunter2", "/home/x", "", "ghp_" + "a1B2" * 9, "sk-x", "${VAR}", "ok"]


@st.composite
def _records(draw: st.DrawFn) -> list[Any]:
    """Name/value pairs (some withheld by their name, some by their value, some not at all),
    a pair with a third member, and now and then a record that is no pair."""
    out: list[Any] = []
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.integers(0, 9))
        record: Any = {"name": draw(st.sampled_from(_NAMES)),
                       "value": draw(st.sampled_from(_VALUES))}
        if kind == 0:
            record["note"] = draw(st.sampled_from(_VALUES))
        elif kind == 1:
            record = {"value": record["value"], "name": record["name"]}  # the other order
        elif kind == 2:
            record = draw(st.sampled_from(_VALUES))
        elif kind == 3:
            record = {"password": record["value"], "tags": [record["name"]]}
        elif kind == 4:  # pairs in a list in the array: the walk's answer, never a patch
            record = [record, {"name": "token", "value": record["value"]}]
        elif kind == 5:  # pairs in an object's member
            record = {"env": [record, {"name": "api_key", "value": "v1x"}]}
        out.append(record)
    return out


@settings(max_examples=60, deadline=None)
@given(_records())
def test_a_lazy_array_of_pairs_reads_and_writes_as_the_walk_of_it_parsed(
    records: list[Any],
) -> None:
    """Written whole, read element by element (twice: the same object), by a window and by a
    fresh copy, the lazy answer is what the walk of the parsed body gave."""
    body = orjson.dumps(records)
    eager = redact_value(parse_json(body), body=body)
    lazy = redact_lazily(body)
    assert lazy is not None
    assert normalized(lazy.value, lazy.withheld) == normalized(eager.value, eager.withheld)
    value = lazy.value
    if not lazyjson.is_lazy(value):
        return
    want = orjson.loads(normalized(eager.value, ())[0])
    got = [value[i] for i in range(len(value))]
    assert orjson.loads(normalized(got, ())[0]) == want
    assert all(value[i] is item for i, item in enumerate(got))
    first, last = len(want) // 3, 2 * len(want) // 3 + 1
    assert orjson.loads(normalized(value.window(first, last), ())[0]) == want[first:last]
    assert orjson.loads(normalized(lazyjson.fresh(value), ())[0]) == want


def test_a_stubbed_pair_is_handed_over_as_a_patch_not_diffed() -> None:
    """Red on the merge head (memjson alone): each of the records the walk stubbed was copied
    and ``add_piece`` diffed the copy against the record again (a few allocations a record,
    7-13% of a MB of pairs' ``shape()``); the walk's ``_pairs`` hands over the member it set,
    one shared patch, and none is diffed."""
    body = _pairs(64 << 10)
    count = body.count(b'"name"')
    diffed: list[int] = []
    patched = IndexChanges._patched

    def counted(self: IndexChanges, values: list[Any], givens: list[Any]) -> list[Any]:
        diffed.append(sum(type(value) is dict for value in values))
        return patched(self, values, givens)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(IndexChanges, "_patched", counted)
        done = redact_value(lazyjson.parse_document(body), body=body)
    changed = done.value._changed
    assert len(changed) == count == len(done.withheld)
    assert sum(diffed) == 0, f"{sum(diffed)} of {count} records diffed"
    assert len({id(patch) for patch in changed.values()}) == 1
    assert type(next(iter(changed.values()))) is Patch


def _env(count: int) -> list[Any]:
    return [{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"} for i in range(count)]


@pytest.mark.parametrize("records", [
    _env(150),  # the array itself: its pieces' stubbed pairs are patches
    [_env(100), "x"],  # a dense array of pairs as an element
    [{"env": _env(150)}, 1],  # as an object's member
    [{"a": 1}, [_env(100)], [{"env": _env(100)}]],  # deeper, beside small siblings
    [*_env(60), {"env": _env(100)}, *_env(60)],  # patches beside a nested array's records
    [*_env(120), {"name": "note", "value": "password=q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"}],
], ids=["flat", "in-list", "in-member", "deeper", "beside", "a-judged-value"])
def test_a_patch_stands_for_a_record_of_the_lazy_array_alone(records: list[Any]) -> None:
    """A dense array of pairs walked by ``_pairs`` nested in a piece (not a piece's own
    array) is the walk's answer, made of dicts: a patch there would be written as a list."""
    body = orjson.dumps(records)
    eager = redact_value(parse_json(body), body=body)
    lazy = redact_lazily(body)
    assert lazy is not None
    assert normalized(lazy.value, lazy.withheld) == normalized(eager.value, eager.withheld)
    assert len(eager.withheld) == body.count(b"DB_PASSWORD") + body.count(b"password=")


@pytest.mark.parametrize("mixed", [
    False,  # every child an object of the same names: the patches made in C
    True,  # a string among them: a patch at a time
])
def test_a_patch_sets_what_the_walk_set_spelled_as_it_was(mixed: bool) -> None:
    """``1 == 1.0 == True`` and they hash alike: a patch shared by equal members would write
    ``true`` for a ``1``. Only patches of strings are shared."""
    given = [{"a": "x", "b": 0}, {"a": "y", "b": 0}, {"a": "z", "b": 0},
             {"a": "s", "b": 0}, {"a": "t", "b": 0}]
    new = [{"a": "x", "b": 1}, {"a": "y", "b": True}, {"a": "z", "b": 1.0},
           {"a": "[withheld]", "b": 0}, {"a": "[withheld]", "b": 0}]
    if mixed:
        given.append("sk-x")
        new.append("[withheld]")
    changes = IndexChanges()
    changes.add_piece(0, new, given)
    got = [_over(changes[i], item) for i, item in enumerate(given)]
    assert orjson.dumps(got) == orjson.dumps(new)
    assert changes[3] is changes[4]  # the same stub: one patch


def _over(value: Any, given: Any) -> Any:
    return value.over(given) if isinstance(value, Patch) else value


# ----------------------------------------------------------- a text that opens with a brace

_LINE = (r'{\\\"cookies\\\": {\\\"sid\\\": \\\"Xq7vR2mK9pL4wT8n\\\"}} '
         "the quick brown fox jumps over the lazy dog\n")


@pytest.mark.parametrize("lines", [
    _LINE,  # bench/fuzz_linear.py's cookies-json-deep: no comma anywhere
    "{ not json at all, but a comma now and then\n",  # a refusal a line in, before a comma
])
def test_a_text_of_brace_lines_is_refused_in_bounded_memory(lines: str) -> None:
    """Red before: 13.0x the body for the first (orjson's refusal of all of it, as one run
    of members), now 1.0x; the second held 1.0x before and after."""
    body = (lines * (400_000 // len(lines))).encode()
    assert len(body) > 4 * lazyjson.SAMPLE_BYTES  # the lazy read samples its members

    def refused() -> None:
        with pytest.raises(InputError):
            lazyjson.parse_document(body)

    got = peak(refused)
    assert got < 3 * len(body), f"{got / len(body):.1f}x the body"
