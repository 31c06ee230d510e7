"""A JSON walk's withheld entries and replaced elements are held compact on the pipeline's path.

Found by ``bench/redact.py --slope`` (issue 23): an array of distinct ``ghp_`` tokens through
``shape()`` held 8.6x its bytes for each byte more (RSS slope through 1, 4 and 16 MB; traced
8.1x), where JSON's bound is 3x. Traced at the redaction's end: a dict an entry
``{"path": "$[i]", "reason": r}`` (4.3x), its path string (1.3x), and the dict of replaced
elements a lazily read array's walk kept, index -> stub (1.9x). Nothing on the path reads an
entry as a dict (the envelope lists them condensed, the audit counts them) and the replaced
elements are read by index: :class:`~elision.withheld.PathEntries` holds an element's entry as
its array's path and two numbers, :class:`~elision.shape.lazyjson.IndexChanges` the replaced
elements as an index column and a value column. Peaks are counted (tracemalloc), not timed.
"""

from __future__ import annotations

import random
import string
from collections import Counter
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.pipeline import Pipeline, condense_withheld
from elision.redact import RedactStage, redact_value
from elision.shape import shape
from elision.shape.lazyjson import IndexChanges
from elision.withheld import Chained, PathEntries, count_reasons
from support.before import child_before
from support.traced import peak

_ALNUM = string.ascii_letters + string.digits


def _tokens(size: int, seed: int = 7) -> bytes:
    """bench/fuzz_linear.py's ``json-strings-ghp-distinct``: distinct tokens, 43 bytes each."""
    rng = random.Random(seed)
    return orjson.dumps(["ghp_" + "".join(rng.choice(_ALNUM) for _ in range(36))
                         for _ in range(size // 43)])


def test_shaping_an_array_of_distinct_tokens_holds_no_dict_an_entry() -> None:
    """Red before: 9.4x the body at 256 KB (traced); now 2.7x (1.0x at 1 MB), the fixed part
    of a call that small included."""
    body = _tokens(256 << 10)
    shape(_tokens(16 << 10, seed=3), Budget(4096))  # databases and caches, made
    capture = Pipeline(budget=Budget(4096)).capture(body)
    withheld = RedactStage().redact(capture).withheld
    assert isinstance(withheld, PathEntries) and len(withheld) == body.count(b"ghp_")
    del capture, withheld
    assert peak(lambda: shape(body, Budget(4096))) < 3.5 * len(body)


def test_redact_value_still_gives_a_tuple_of_dicts() -> None:
    """The public answer is as it was: the compact form is the pipeline's alone."""
    body = _tokens(4096)
    done = redact_value(orjson.loads(body), body=body)
    assert isinstance(done.withheld, tuple) and done.withheld[3] == {
        "path": "$[3]", "reason": "github-token"}


# ----------------------------------------------------------- the same as the list of dicts

_OTHERS = [{"path": "$.a.b", "reason": "key"}, {"path": "$['x y'][2].k", "reason": "aws"},
           {"path": "$[1]", "reason": "signed-uri", "stub": "ref_1"},
           {"path": "$.s", "reason": "dense", "bytes": 9}]
_ABOVES = ["$", "$.rows", "$[3].tags", "$['a[1']", "$['[2]'][0]"]
_REASONS = ["github-token", "openai-key", "dense", *[f"rule-{i}" for i in range(300)]]
#: What follows an element's index in a member's path (a pair's value; a key an index spells).
_TAILS = ["", "", ".value", "['a b']", "[2].k", "['[3]']"]


@st.composite
def _made(draw: st.DrawFn) -> tuple[PathEntries, list[dict[str, Any]]]:
    """Entries added both ways, and taken back as a walk takes them back (``del e[n:]``)."""
    entries, dicts = PathEntries(), []
    for _ in range(draw(st.integers(0, 40))):
        step = draw(st.sampled_from(["add", "add", "run", "append", "undo"]))
        if step == "run":  # a run of an array's elements, as the walk adds them
            above = draw(st.sampled_from(_ABOVES))
            made = draw(st.lists(st.tuples(st.one_of(st.integers(0, 99), st.just(1 << 33)),
                                           st.sampled_from(_REASONS)), max_size=5))
            entries.add_run(above, [i for i, _ in made], [r for _, r in made])
            dicts.extend({"path": f"{above}[{i}]", "reason": r} for i, r in made)
        elif step == "add":
            above = draw(st.sampled_from(_ABOVES))
            index = draw(st.one_of(st.integers(0, 99), st.just(1 << 33)))  # past "I": widens
            reason = draw(st.sampled_from(_REASONS))  # past 255 reasons: "B" widens
            tail = draw(st.sampled_from(_TAILS))
            entries.add(above, index, reason, tail)
            dicts.append({"path": f"{above}[{index}]{tail}", "reason": reason})
        elif step == "append":
            entry = draw(st.sampled_from(_OTHERS))
            entries.append(entry)
            dicts.append(entry)
        else:
            keep = draw(st.integers(0, len(dicts)))
            del entries[keep:], dicts[keep:]
    return entries, dicts


@settings(max_examples=80, deadline=None)
@given(_made(), st.integers(512, 16384))
def test_path_entries_read_as_their_dicts(
    made: tuple[PathEntries, list[dict[str, Any]]], limit: int,
) -> None:
    """Each item, a slice, the counts, the condensed envelope list and a chain of parts are
    what the dicts give, whatever was added, widened or taken back."""
    entries, dicts = made
    assert list(entries) == dicts and entries == dicts and entries[-3:] == dicts[-3:]
    assert count_reasons(entries) == dict(Counter(str(d["reason"]) for d in dicts))
    assert condense_withheld(entries, Budget(limit)) == condense_withheld(dicts, Budget(limit))
    joined = Chained([_OTHERS[0]])
    joined.extend(entries)
    assert list(joined) == [_OTHERS[0], *dicts] and count_reasons(joined) == count_reasons(
        [_OTHERS[0], *dicts])


@pytest.mark.parametrize("cut", [
    slice(1, 3),  # a middle: a walk only ever takes back its tail
    slice(0, None, 2),  # a step
])
def test_only_a_tail_is_taken_back(cut: slice) -> None:
    entries = PathEntries()
    for i in range(4):
        entries.add("$", i, "github-token")
    with pytest.raises(IndexError, match="only the entries from one on"):
        del entries[cut]


@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=30), st.integers(0, 60),
       st.integers(0, 60))
def test_index_changes_read_as_their_dict(
    steps: list[tuple[int, bool]], first: int, last: int,
) -> None:
    """Added in increasing order (a child alone, or a piece's moved children), they read as the
    dict of them: by index, in order, and as a window's."""
    changes, plain = IndexChanges(), {}
    at = 0
    for gap, piece in steps:
        at += gap + 1
        if piece:
            old = [object() for _ in range(3)]
            new = [old[0], object(), old[2]]  # the middle one replaced
            changes.add_piece(at, new, old)
            plain[at + 1] = new[1]
            at += 3
        else:
            value = object()
            changes.add(at, value)
            plain[at] = value
    assert dict(changes) == plain and list(changes.items()) == list(plain.items())
    assert all(changes.get(i) is plain.get(i) for i in range(at + 2))
    window = {i - first: v for i, v in changes.items() if first <= i < last}
    assert window == {i - first: v for i, v in plain.items() if first <= i < last}


def test_index_changes_refuse_an_index_out_of_order() -> None:
    changes = IndexChanges()
    changes.add(5, "x")
    with pytest.raises(ValueError, match="increasing order: 5 after 5"):
        changes.add(5, "y")


# --------------------------------------------------------- byte for byte as the code before

_CHILD = r"""
import sys, orjson
from elision import Budget, shape
for line in sys.stdin.buffer:
    body, limit = orjson.loads(line)
    got = shape(body.encode(), Budget(limit))
    sys.stdout.buffer.write(orjson.dumps([got.text, got.envelope]) + b"\n")
    sys.stdout.flush()
"""


def _records(size: int) -> bytes:
    tokens = orjson.loads(_tokens(size))
    return orjson.dumps({"rows": [{"id": i, "note": t} for i, t in enumerate(tokens)],
                         "warnings": ["partial"], "total": len(tokens)})


def _mixed(size: int) -> bytes:
    tokens = orjson.loads(_tokens(size))
    return orjson.dumps([t if i % 3 else f"ok {i}" for i, t in enumerate(tokens)]
                        + [["sk-" + "a" * 40, {"password": "hunter2"}]])


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([_tokens, _records, _mixed]),
       st.sampled_from([4096, 300 << 10]),  # 300 KB and more is read lazily
       st.sampled_from([512, 4096, 65536]))
@example(_tokens, 1 << 20, 4096)
def test_shaped_as_the_code_before_shaped(make: Any, size: int, limit: int) -> None:
    """The text and the envelope, byte for byte, as the code under ``ELISION_BEFORE_SRC``
    gives them (skipped without it)."""
    body = make(size)
    with child_before(_CHILD) as ask:
        before = ask([body.decode(), limit])
    got = shape(body, Budget(limit))
    assert [got.text, got.envelope] == before
