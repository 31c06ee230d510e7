"""A large body is parsed with the cycle collector paused, and the collector's state is kept."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from typing import Any

import pytest

from elision._startup import collector_paused
from elision.pipeline import GC_PAUSE_BYTES, Pipeline
from elision.shape.lazyjson import materialize


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def test_paused_inside_resumed_after(collector_on: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_resumed_after_an_error(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_never_turned_on_when_it_was_off(collector_on: None) -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_a_large_body_is_parsed_paused_and_whole(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    import elision.pipeline as pipeline

    real = pipeline.parse_document

    def spy(body: bytes, **options: Any) -> object:
        seen.append(gc.isenabled())
        return real(body, **options)

    monkeypatch.setattr(pipeline, "parse_document", spy)
    small = json.dumps({"rows": [1, 2, 3]})
    count = GC_PAUSE_BYTES // 10
    large = json.dumps({"rows": [{"id": i, "n": i * 0.5} for i in range(count)]})
    assert len(large) > GC_PAUSE_BYTES
    p = Pipeline()
    assert p.capture(small).value == {"rows": [1, 2, 3]}
    captured = p.capture(large)
    assert seen == [True, False]  # the small body is parsed as usual, the large one paused
    assert gc.isenabled()
    # A record array costs 5-8x its bytes parsed whole, so since issue 23 a body of 64 KB and
    # more is read lazily at any size (elision.shape.lazyjson.reads_lazily): the same value.
    assert materialize(captured.value) == json.loads(large)
