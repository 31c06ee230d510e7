"""An array of many tiny strings that each hold a trigger costs a walk, not a pin a string.

Found by ``bench/fuzz_linear.py`` (issue 23): ``["sk-", "sk-", …]`` took 7.4 s a MB (629x
prose), each string pinned to its offset by halving its run and then run through the rules.
Such a run is walked without offsets, and a short string's redaction is kept for the walk.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, walk
from elision.redact.families import FAMILIES, sample
from redact.test_redact_prefilter_differential import _no_prefilter, _normalized


def test_a_repeated_short_string_is_redacted_once_a_walk() -> None:
    calls: list[str] = []
    real = walk.redact_spans

    def counting(text: str) -> Any:
        calls.append(text)
        return real(text)

    token = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
    value = ["sk-", token] * 5000
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "redact_spans", counting)
        done = redact_value(value, body=orjson.dumps(value))
    assert len(calls) == 2
    assert len(done.withheld) == 5000  # each ghp_ token has its own entry, at its own path
    assert done.withheld[-1]["path"] == "$[9999]"


_FAKE = [sample(f, 0, "dense")[0] for f in FAMILIES if f.finder != "field"][:40]
_ITEMS = st.one_of(
    st.sampled_from(["sk-", "ghp_", "eyJ", "password=x", "token: abc", "ok", "the dog", ""]),
    st.sampled_from(_FAKE),
    st.builds(lambda fake, i: {"id": i, "note": fake}, st.sampled_from(_FAKE),
              st.integers(0, 10**6)),
    st.lists(st.sampled_from(["sk-", "ok"]), max_size=3),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ITEMS, min_size=60, max_size=300))
def test_a_dense_array_is_redacted_as_a_walk_of_every_node(items: list[Any]) -> None:
    doc = {"rows": items, "total": len(items)}
    got = _normalized(redact_value(doc, body=orjson.dumps(doc)))
    with _no_prefilter():
        assert got == _normalized(redact_value(doc))
