"""One body, one verdict: the model is never shown a byte the guard and the redactor did not see.

Found by trying elision as an attacker would (issue 12, item 1): with a repeated key, the guard
and the redactor judged the parsed value, in which only the last member lives, while a body
that fit went out byte for byte - so ``{"note":"ghp_…","note":"ok"}`` showed the model a live
token the redactor never saw, and a deny marker the guard never saw. Here every front end that
runs the pipeline is tried: the library pipeline, the proxy's result shaper (text blocks and
their structured echo) and the pages ``elision_fetch`` serves; then a property over any JSON
text, repeated keys and escapes included.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import DUPLICATE_KEY, ENVELOPE_KEY, META_KEY
from elision.mcp.gate.results import ResultShaper
from elision.mcp.gate.tools import run_fetch
from elision.pipeline import NOT_JSON, Capture, Decision, Pipeline, Redacted
from elision.redact import RedactStage
from elision.shape.jsondump import RawNumber
from elision.store import MemoryStore
from support.honesty import strict_loads
from support.hostile_json import SECRET, Members, hostile_documents, leaves, pairs_loads

#: A body whose shadowed first member holds a live token; the member that wins is harmless.
SHADOWED = '{"note":"' + SECRET + '","note":"ok","rows":[1,2,3]}'


class Witness:
    """A guard and a redactor that change nothing and remember everything they were shown."""

    def __init__(self) -> None:
        self.shown: list[Any] = []

    def _see(self, capture: Capture) -> Any:
        value = capture.value if capture.is_json else capture.body.decode("utf-8", "replace")
        self.shown.append(value)
        return value

    def decide(self, capture: Capture) -> Decision:
        self._see(capture)
        return Decision()

    def redact(self, capture: Capture) -> Redacted:
        return Redacted(self._see(capture))


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("limit", [1024, 600])  # fits; over the budget
def test_the_pipeline_never_shows_a_shadowed_member(limit: int) -> None:
    store = MemoryStore()
    pipeline = Pipeline(budget=Budget(limit), store=store, redactor=RedactStage(store=store))
    body = SHADOWED if limit == 1024 else SHADOWED[:-1] + ',"pad":"' + "x" * 900 + '"}'
    shaped = pipeline.run(body)
    assert SECRET not in shaped.text
    doc = strict_loads(shaped.text)  # refuses a repeated key
    assert doc["note"] == "ok" and doc[ENVELOPE_KEY]["complete"] is False
    assert {"path": "$.note", "reason": DUPLICATE_KEY} in doc[ENVELOPE_KEY]["withheld"]
    # Every page of the kept body is served from the same judged view, never its raw bytes.
    ref = doc[ENVELOPE_KEY]["ref"]
    for selector in ({}, {"byte_range": "0-4000"}, {"lines": "1-9"}, {"path": "$"}):
        page = store.fetch(ref, budget=Budget(2048), **selector)
        assert SECRET not in page.text and "ghp_" not in page.text, selector


def test_the_proxy_result_shaper_never_shows_a_shadowed_member() -> None:
    witness = Witness()
    store = MemoryStore()
    rs = ResultShaper(Pipeline(budget=Budget(2048), store=store, guard=witness,
                               redactor=witness))
    # MCPServer sends structured content and its JSON text echo; the SDK parsed the one, the
    # tool wrote the other.
    result = types.CallToolResult(
        content=[types.TextContent(text=SHADOWED)],
        structured_content={"note": "ok", "rows": [1, 2, 3]},
    )
    out = rs.shape(result, scope="a")
    text = text_of(out)
    assert SECRET not in text and SECRET not in json.dumps(out.structured_content)
    doc = strict_loads(text)
    assert doc["note"] == "ok" and out.structured_content == doc
    assert out.meta is not None and out.meta[META_KEY]["complete"] is False
    assert all(SECRET not in json.dumps(value) for value in witness.shown)  # nobody saw it
    page = run_fetch(store, {"ref": doc[ENVELOPE_KEY]["ref"], "bytes": "0-4000"},
                     budget=Budget(1024), scope="a")
    assert not page.is_error and SECRET not in text_of(page)


@pytest.mark.parametrize("redactor", [None, RedactStage()])  # redaction opted out; on
def test_a_result_of_many_blocks_never_shows_a_shadowed_member(
    redactor: RedactStage | None,
) -> None:
    """600 blocks cannot share 8 KB, so the content list is shaped as one array; a block
    that fits there used to be kept as it came unless the redactor withheld something."""
    witness = Witness()
    rs = ResultShaper(Pipeline(budget=Budget(8192), guard=witness, redactor=redactor))
    blocks = [types.TextContent(text=SHADOWED)]
    blocks += [types.TextContent(text=f"row {i} " + "x" * 40) for i in range(600)]
    out = rs.shape(types.CallToolResult(content=blocks))
    shown = [b.text for b in out.content if isinstance(b, types.TextContent)]
    assert len(shown) < 600 and all(SECRET not in text for text in shown)
    first = next(text for text in shown if '"note"' in text)
    assert strict_loads(first)["note"] == "ok"


def test_a_result_without_repeats_still_goes_out_as_it_came() -> None:
    rs = ResultShaper(Pipeline(budget=Budget(2048)))
    result = types.CallToolResult(content=[types.TextContent(text='{"note": "ok"}')])
    assert rs.shape(result) is result


# -- the property ----------------------------------------------------------------------------


def _spelling(value: Any) -> str:
    """A scalar as JSON spells it, so 1 and true (equal in Python) stay apart."""
    if isinstance(value, RawNumber):
        return value.raw.decode()
    return json.dumps(value)


def _covers(seen: list[Any], shown: Any) -> list[str]:
    """What in ``shown`` (read keeping every member) no judged value accounts for."""
    strings = [leaf for value in seen for leaf in leaves(value) if isinstance(leaf, str)]
    scalars = {_spelling(leaf) for value in seen for leaf in leaves(value)
               if not isinstance(leaf, str)}
    problems = []
    stack = [shown]
    while stack:
        node = stack.pop()
        if isinstance(node, Members):
            keys = [key for key, _ in node]
            if len(keys) != len(set(keys)):
                problems.append(f"a repeated key reaches the model: {keys}")
            stack.extend(child for _, child in node)
        elif isinstance(node, list):
            stack.extend(node)
    for leaf in leaves(shown):
        # A shaped string may be cut to a prefix of the judged one; nothing else is new.
        if isinstance(leaf, str):
            if not any(judged.startswith(leaf) for judged in strings):
                problems.append(f"never judged: {leaf[:40]!r}")
        elif _spelling(leaf) not in scalars:
            problems.append(f"never judged: {_spelling(leaf)}")
    return problems


def _model_root(text: str, sent: str, judged_root: Any) -> Any:
    """The document the model got, read keeping every member, less elision's envelope (a
    text passed through as it was ``sent`` has none: an ``__elision__`` in it is the tool's)."""
    doc = pairs_loads(text)
    if text != sent and isinstance(doc, Members) and doc and doc[0][0] == ENVELOPE_KEY:
        rest = Members(doc[1:])
        if not isinstance(judged_root, dict) or ENVELOPE_KEY in judged_root:
            ((key, root),) = rest
            assert key == "value"
            return root
        return rest
    return doc


@given(hostile_documents(), st.integers(512, 2048))
def test_what_the_model_gets_was_judged_whole(text: str, limit: int) -> None:
    """For any JSON text, every value the guard or the redactor was shown covers every value
    the model gets, read as a lenient reader would (every member of a repeated key kept)."""
    for front in ("pipeline", "proxy"):
        witness = Witness()
        pipeline = Pipeline(budget=Budget(limit), store=MemoryStore(), guard=witness,
                            redactor=witness)
        if front == "pipeline":
            out = pipeline.run(text).text
        else:
            result = types.CallToolResult(content=[types.TextContent(text=text)])
            out = text_of(ResultShaper(pipeline).shape(result))
        judged = [value for value in witness.shown if value is not NOT_JSON]
        assert judged, "the guard and the redactor were shown nothing"
        problems = _covers(judged, _model_root(out, text, judged[0]))
        assert not problems, (front, problems)
