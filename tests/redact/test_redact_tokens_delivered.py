"""Many distinct withheld tokens in a run of JSON scalars: delivered without a call a token.

Issue 23 (``bench/redact.py --worst json-strings-ghp-distinct``): 24,000 distinct ``ghp_``
tokens in an array were 278x prose to redact and 14x through ``shape()``. Profiled, a third
of it was a token's delivery (``Walker._string``, ``_entry``, ``_where``, ``format_path``,
``_deliver``) and the pass's ``touched`` a match: 13 Python calls a token. The entries, the
stubs and the values are the same, in the same order.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.envelope import format_path
from elision.redact import batch, redact_value
from elision.shape import lazyjson
from elision.shape.jsonparse import parse_json
from redact.test_redact_withheld_tokens import _FAKE, _TOLD, _any_of, _tokens
from support.before import redacted
from support.calls import python_calls
from support.engines import hyperscan_only


def _calls_a_token(value: Any) -> float:
    body = orjson.dumps(value)
    redact_value(parse_json(body), body=body)  # caches built
    parsed = parse_json(body)
    calls, done = python_calls(lambda: redact_value(parsed, body=body))
    assert len(done.withheld) == len(value)
    return calls / len(value)


#: Runs of scalars are delivered together where their blocks are told together, which is
#: hyperscan's own (with the regex passes each string is judged alone: ~155 calls a token).
_TOGETHER = hyperscan_only(
    "a block of strings is told together only where hyperscan's pass tells its base64 runs"
    " quiet (triggers.quiet_runs); with the regex passes each string is judged alone")


@_TOGETHER
def test_an_array_of_distinct_tokens_is_a_few_calls_a_token() -> None:
    # The code before: 12.6 calls a token at 600 (3.7 now).
    assert _calls_a_token(_tokens(600)) < 6


@_TOGETHER
def test_an_object_of_a_token_a_key_is_a_few_calls_a_token() -> None:
    # The code before: 12.6 calls a token at 600 (4.6 now: the key's part of the path).
    assert _calls_a_token({f"k{i}": t for i, t in enumerate(_tokens(600))}) < 7


@_TOGETHER
def test_records_of_a_token_each_are_fewer_calls_a_record() -> None:
    # The code before: 28.5 calls a record at 600 (its nodes' lazy tests two calls each, its
    # token's answer two tuples); 17.5 now.
    assert _calls_a_token([{"id": i, "note": t} for i, t in enumerate(_tokens(600))]) < 21


@_TOGETHER
def test_an_array_of_distinct_tokens_peaks_lower() -> None:
    # Traced peak over the input (the parsed value not counted): 20.2x before (the set of
    # the strings held beside the entries, an answer pair a token), 17.2x now. Most of what
    # is left is the entries (the output) and orjson's serialization, traced at its capacity.
    body = orjson.dumps(_tokens(3000))
    assert _traced_peak(body, parse_json) < 19 * len(body)


def _traced_peak(body: bytes, read: Callable[[bytes], Any]) -> int:
    """The traced peak of redacting ``read(body)`` (the read value not counted), warmed."""
    redact_value(read(body), body=body)
    value = read(body)
    gc.collect()
    tracemalloc.start()
    try:
        done = redact_value(value, body=body)
        peak: int = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(done.withheld) == 3000
    return peak


#: Keys a path must quote and plain ones, none a credential's name (what a name withholds is
#: an object's, entered before its scalars: not what this file is about).
_KEYS = ["a", "x.y", "a b", "q'uote", "[0]", 'dq"', "ünï", "k-1", "", "_9"]
_SCALAR = st.one_of(_any_of(_TOLD), _any_of(_FAKE), st.sampled_from(["ok", "sk-", "", "ghp_"]),
                    st.integers(-3, 3), st.none(), st.booleans())


@st.composite
def _runs(draw: st.DrawFn) -> Any:
    """An array or an object of at least a batch of scalars (tokens of families told
    together, repeated now and then, fakes judged alone, plain strings, numbers), at the
    root or under a key."""
    items = draw(st.lists(_SCALAR, min_size=batch.BATCH, max_size=90))
    if draw(st.booleans()):
        items = items + items[: draw(st.integers(0, len(items)))]  # equal strings again
    run: Any = items
    if draw(st.booleans()):
        run = {f"{draw(st.sampled_from(_KEYS))}{i}": item for i, item in enumerate(items)}
    return {draw(st.sampled_from(_KEYS)): run} if draw(st.booleans()) else run


def _alone(doc: Any) -> tuple[Any, list[dict[str, Any]]]:
    """``doc`` redacted a scalar at a time, each at its own path: the value and entries the
    walk of the run must give."""
    if isinstance(doc, dict) and len(doc) == 1 and isinstance(next(iter(doc.values())),
                                                            dict | list):
        (key, run), = doc.items()
        root = format_path([key])
    else:
        key, run, root = None, doc, "$"
    parts = list(run) if isinstance(run, dict) else list(range(len(run)))
    items = list(run.values()) if isinstance(run, dict) else run
    values, withheld = [], []
    for part, item in zip(parts, items, strict=True):
        got = redact_value(item, path_root=format_path([part], root=root))
        values.append(got.value)
        withheld.extend(got.withheld)
    out: Any = dict(zip(parts, values, strict=True)) if isinstance(run, dict) else values
    return (out if key is None else {key: out}), withheld


@_TOGETHER
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs())
def test_a_run_of_scalars_is_withheld_as_each_scalar_alone(doc: Any) -> None:
    body = orjson.dumps(doc)
    got = redact_value(parse_json(body), body=body)
    value, withheld = _alone(doc)
    assert got.value == value
    assert list(got.withheld) == withheld


@_TOGETHER
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs())
def test_a_run_of_scalars_is_withheld_as_the_code_before_did(
    code_before_answers: Callable[[str, str], Any], doc: Any,
) -> None:
    payload = orjson.dumps(doc).decode()
    assert redacted("json", payload) == code_before_answers("json", payload)


@_TOGETHER
def test_a_lazily_read_array_of_tokens_is_withheld_as_the_parsed_one() -> None:
    # What shape() walks: the body read a piece at a time (redact/lazywalk.py), its changed
    # items told in C (a generator's step an item before).
    body = orjson.dumps([*_tokens(3000), 7, "ok", _tokens(1)[0]])
    redact_value(lazyjson.parse_document(body), body=body)
    document = lazyjson.parse_document(body)
    assert lazyjson.is_lazy(document)
    calls, done = python_calls(lambda: redact_value(document, body=body))
    eager = redact_value(parse_json(body), body=body)
    assert done.withheld == eager.withheld
    assert lazyjson.materialize(done.value) == eager.value
    assert calls < 5.5 * 3000  # the code before: 15.6 a token; 4.8 now


@_TOGETHER
def test_a_lazily_read_array_of_tokens_peaks_lower() -> None:
    # Traced peak over the input: 9.43x before, 8.90x now (the changed items' dict was
    # copied into the redacted lazy copy, beside itself: LazyNode.with_children).
    body = orjson.dumps(_tokens(3000))
    assert _traced_peak(body, lazyjson.parse_document) < 9.1 * len(body)
