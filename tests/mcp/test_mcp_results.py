"""ResultShaper: every block of a CallToolResult shaped, consistently, within one budget."""

from __future__ import annotations

import base64
import json
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.mcp.gate.results import ResultShaper, _shares
from elision.mcp.gate.tools import run_fetch, shaped_output_schema
from elision.mcp.upstream.config import parse_config
from elision.pipeline import Pipeline
from elision.store import MemoryStore

DOC = {
    "rows": [{"id": i, "name": f"row {i}", "ok": i % 3 == 0} for i in range(600)],
    "warnings": ["searched 528 of 22,933 rows"],
    "total_rows": 22933,
}


def shaper(limit: int = 2048, **kwargs: Any) -> tuple[ResultShaper, MemoryStore]:
    store = MemoryStore()
    # Shaping alone: these cases are about shaping, and an embedded resource is a reference
    # lane the default redactor would withhold.
    pipeline = Pipeline(budget=Budget(limit), store=store, redactor=None)
    return ResultShaper(pipeline, **kwargs), store


def texts(result: types.CallToolResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, types.TextContent)]


def test_structured_content_and_its_text_echo_say_the_same_thing() -> None:
    rs, _ = shaper()
    result = types.CallToolResult(
        content=[types.TextContent(text=json.dumps(DOC, indent=2))], structured_content=DOC
    )
    out = rs.shape(result, scope="a")
    (text,) = texts(out)
    assert len(text.encode()) <= 2048
    assert json.loads(text) == out.structured_content
    assert out.meta is not None and out.meta[META_KEY] == json.loads(text)[ENVELOPE_KEY]


def test_a_wrapped_text_echo_keeps_the_wrapper_and_the_whole_budget() -> None:
    log = "".join(f"line {i}\n" for i in range(5000))
    rs, _ = shaper()
    out = rs.shape(types.CallToolResult(
        content=[types.TextContent(text=log)], structured_content={"result": log}
    ))
    (text,) = texts(out)
    assert out.structured_content == {"result": text}
    assert 1800 < len(text.encode()) <= 2048  # not split in two halves


def test_a_fitting_result_is_returned_unchanged_without_an_envelope() -> None:
    rs, _ = shaper()
    result = types.CallToolResult(content=[types.TextContent(text='{"ok": true}')],
                                  structured_content={"ok": True})
    out = rs.shape(result)
    assert out.content == result.content and out.structured_content == {"ok": True}
    assert not (out.meta or {}).get(META_KEY)


def test_an_error_result_is_shaped_and_stays_an_error() -> None:
    rs, _ = shaper()
    message = "bad input: " + ", ".join(f"field_{i} is missing" for i in range(2000))
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=message)],
                                        is_error=True))
    assert out.is_error
    assert len(texts(out)[0].encode()) <= 2048


def test_several_texts_share_the_budget() -> None:
    rs, _ = shaper()
    blocks = [types.TextContent(text="short note"),
              types.TextContent(text="a" * 5000 + "\n" + "b" * 5000),
              types.TextContent(text=json.dumps(DOC))]
    out = rs.shape(types.CallToolResult(content=blocks))
    shown = texts(out)
    assert shown[0] == "short note"
    assert sum(len(t.encode()) for t in shown) <= 2048
    assert len(out.meta[META_KEY]["parts"]) == 2  # type: ignore[index]


def test_a_document_in_pieces_is_joined_and_shaped_once() -> None:
    text = json.dumps(DOC)
    cut = [text[:1000], text[1000:7000], text[7000:]]
    rs, _ = shaper()
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=t) for t in cut]))
    (joined,) = texts(out)
    assert json.loads(joined)["total_rows"] == 22933


def test_big_media_becomes_a_stub_with_a_fetchable_ref_and_links_are_kept() -> None:
    data = base64.b64encode(bytes(range(256)) * 2000).decode()
    link = types.ResourceLink(uri="file:///report.pdf", name="report")
    rs, store = shaper(media_budget=10_000)
    out = rs.shape(types.CallToolResult(content=[
        types.ImageContent(data=data, mime_type="image/png"), link,
        types.AudioContent(data="AAAA", mime_type="audio/wav"),
    ]), scope="a")
    stub, kept_link, small_audio = out.content
    assert isinstance(stub, types.TextContent) and "image/png" in stub.text
    assert kept_link == link and isinstance(small_audio, types.AudioContent)
    env = out.meta[META_KEY]  # type: ignore[index]
    assert store.read(env["ref"], scope="a") == data.encode()


def test_embedded_text_resources_are_shaped() -> None:
    rs, _ = shaper()
    resource = types.TextResourceContents(uri="test://log", text="x\n" * 10_000)
    out = rs.shape(types.CallToolResult(content=[types.EmbeddedResource(resource=resource)]))
    block = out.content[0]
    assert isinstance(block, types.EmbeddedResource)
    assert isinstance(block.resource, types.TextResourceContents)
    assert block.resource.text.startswith("[elision] partial")


@pytest.mark.parametrize(
    ("schema", "binds"),
    [
        # Pydantic-style: required members and a $ref into $defs at the root.
        ({"type": "object", "$defs": {"Row": {"type": "object", "required": ["id"],
                                             "properties": {"id": {"type": "integer"}}}},
         "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/Row"},
                                 "minItems": 600},
                        "warnings": {"type": "array"}, "total_rows": {"type": "integer"}},
         "required": ["rows", "warnings", "total_rows"], "additionalProperties": False},
         True),
        # MCPServer's dict output: anything goes.
        ({"type": "object", "additionalProperties": True}, False),
    ],
)
def test_the_rewritten_output_schema_accepts_shaped_and_unshaped_content(
    schema: dict[str, Any], binds: bool,
) -> None:
    rewritten = shaped_output_schema(schema)
    assert rewritten is not None
    jsonschema.validate(DOC, rewritten)  # a result that fits is still checked as before
    rs, _ = shaper()
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=json.dumps(DOC))],
                                        structured_content=DOC))
    jsonschema.validate(out.structured_content, rewritten)
    if binds:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"rows": "not a list"}, rewritten)  # the original still binds


def test_fetch_is_scoped_and_reports_bad_arguments_as_errors() -> None:
    rs, store = shaper()
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=json.dumps(DOC))]),
                   scope="alice")
    ref = out.meta[META_KEY]["ref"]  # type: ignore[index]
    page = run_fetch(store, {"ref": ref, "path": "$.rows[10:]"}, budget=Budget(1024),
                     scope="alice")
    assert not page.is_error and json.loads(texts(page)[0])["value"][0]["id"] == 10
    other = run_fetch(store, {"ref": ref, "path": "$.rows[10:]"}, budget=Budget(1024),
                      scope="bob")
    assert other.is_error and ref in texts(other)[0]
    for arguments, needle in [
        ({"ref": ""}, "ref must be a non-empty string"),  # empty ref
        ({"ref": ref, "path": "$", "lines": "1-2"}, "give one of path, lines or bytes"),
        ({"ref": ref, "budget": 10}, "at least 512"),  # budget below the minimum
    ]:
        bad = run_fetch(store, arguments, budget=Budget(1024), scope="alice")
        assert bad.is_error and needle in texts(bad)[0]
    assert "--no-store" in texts(run_fetch(None, {"ref": ref}, budget=Budget(1024),
                                           scope=None))[0]


@given(sizes=st.lists(st.integers(min_value=0, max_value=50_000), min_size=1, max_size=8),
       limit=st.integers(min_value=512, max_value=20_000))
def test_shares_never_exceed_the_budget_beyond_the_minimum_per_piece(
    sizes: list[int], limit: int,
) -> None:
    shares = _shares(sizes, Budget(limit))
    assert len(shares) == len(sizes)
    if sum(sizes) > limit and len(sizes) > 1:
        shown = [min(size, share) for size, share in zip(sizes, shares, strict=True)]
        assert sum(shown) <= max(limit, 512 * len(sizes))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, 'must be an object with an "mcpServers" object'),  # not the layout
        ({"mcpServers": {}}, "is empty"),  # nothing to proxy
        ({"mcpServers": {"a__b": {"command": "x"}}}, "without '__'"),  # breaks namespacing
        ({"mcpServers": {"a": {}}}, "needs exactly one of command or url"),  # neither
        ({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}, "exactly one"),  # both
        ({"mcpServers": {"a": {"command": "x", "budget": 12}}}, "at least 512"),  # tiny
        ({"mcpServers": {"a": {"command": "x", "timeout": 0}}}, "positive number"),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "env must map"),
    ],
)
def test_config_errors_say_what_is_wrong(config: dict[str, Any], message: str) -> None:
    from elision.errors import InputError

    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        parse_config(config)


def test_config_budgets_resolve_tool_then_server_then_file() -> None:
    specs, file_budget = parse_config({"budget": 4096, "mcpServers": {
        "a": {"command": "x", "budget": 2048, "toolBudgets": {"big": 1024}},
        "b": {"url": "http://127.0.0.1:1/mcp"},
    }})
    a, b = specs
    default = file_budget or Budget(8192)
    assert a.budget_for("big", default).limit == 1024
    assert a.budget_for("other", default).limit == 2048
    assert b.budget_for("any", default).limit == 4096


records = st.lists(
    st.fixed_dictionaries({"id": st.integers(), "name": st.text(max_size=30)}), max_size=200
)


@given(rows=records, limit=st.integers(min_value=512, max_value=6000),
       indent=st.sampled_from([None, 2]))
def test_any_echoed_result_fits_and_both_forms_agree(
    rows: list[dict[str, Any]], limit: int, indent: int | None,
) -> None:
    doc = {"rows": rows, "warnings": ["partial scan"], "total": len(rows)}
    rs, _ = shaper(limit)
    out = rs.shape(types.CallToolResult(
        content=[types.TextContent(text=json.dumps(doc, indent=indent))], structured_content=doc
    ))
    (text,) = texts(out)
    assert len(text.encode()) <= limit
    shown = json.loads(text)
    assert shown == out.structured_content
    if ENVELOPE_KEY in shown:
        assert shown["warnings"] == ["partial scan"] and shown["total"] == len(rows)
        assert out.meta is not None and out.meta[META_KEY] == shown[ENVELOPE_KEY]
    else:
        assert shown == doc  # nothing cut: every value is there


class _Records:
    """An auditor that keeps what it is given."""

    def __init__(self) -> None:
        self.records: list[Any] = []

    def record(self, record: Any) -> None:
        self.records.append(record)


_IDS = __import__("re").compile(r"\b(ref|el)_[A-Za-z0-9_\-]+")
_SECRET = "https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&X-Amz-Credential=AK"


def _said(result: types.CallToolResult) -> str:
    # Stub and ref ids are random per run; everything else must be the same.
    return _IDS.sub(r"\1_X", result.model_dump_json(by_alias=True, exclude_none=True))


@given(
    text=st.one_of(
        st.builds(lambda d: json.dumps(d), st.dictionaries(
            st.sampled_from(["a", "url", "rows", "note"]),
            st.one_of(st.integers(), st.text(max_size=30), st.just(_SECRET),
                      st.lists(st.integers(), max_size=40)),
            max_size=4,
        )),
        st.text(max_size=200),
        st.just(f"see {_SECRET} for the file"),
    ),
    echo=st.sampled_from(["none", "wrapped", "document"]),
    slack=st.integers(-60, 60),
)
def test_short_path_for_a_fitting_text_matches_the_general_path(
    text: str, echo: str, slack: int
) -> None:
    # A text that fits a bytes budget takes the short path. With nothing to withhold, a chars
    # budget of the same limit (which never takes it) must give the same result and audit
    # record; with something withheld, the general path must give what it gives when it
    # redacts again itself - and the redact stage must have run once.
    from elision.redact import RedactStage

    text = text.encode("ascii", "replace").decode()  # chars and bytes agree
    structured: Any = None
    if echo == "wrapped":
        structured = {"result": text}
    elif echo == "document":
        try:
            structured = json.loads(text)
        except ValueError:
            structured = None
        if not isinstance(structured, dict):
            structured = None
    result = types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured
    )
    limit = max(512, len(text) + slack)

    def run(unit: str, *, redact_again: bool = False) -> tuple[Any, str, tuple[Any, ...], int]:
        store = MemoryStore()
        records = _Records()
        stage = RedactStage(store=store)
        calls = []
        real_redact = RedactStage.redact

        def counted(self: RedactStage, capture: Any) -> Any:
            calls.append(1)
            return real_redact(self, capture)

        pipeline = Pipeline(budget=Budget(limit, unit), store=store, redactor=stage,
                            auditor=records)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(RedactStage, "redact", counted)
            if redact_again:
                real = Pipeline.redact_and_shape
                mp.setattr(Pipeline, "redact_and_shape",
                           lambda self, capture, **kw: real(self, capture,
                                                            **{**kw, "redacted": None}))
            out = ResultShaper(pipeline).shape(result, scope="s", tool="t", server="u")
        (rec,) = records.records
        audit = (rec.capture.sha256, _IDS.sub(r"\1_X", rec.shaped.text), rec.shaped.complete,
                 rec.decision.allowed,
                 [w.get("reason") for w in (rec.shaped.envelope or {}).get("withheld", [])])
        return out, _said(out), audit, len(calls)

    out, said, audit, redactions = run("bytes")
    if _SECRET not in text:
        _, said_chars, audit_chars, _ = run("chars")
        assert (said, audit) == (said_chars, audit_chars)
        if len(text) <= limit:
            assert out is result  # nothing to change: not even copied
    else:
        _, said_again, audit_again, _ = run("bytes", redact_again=True)
        assert (said, audit) == (said_again, audit_again)
        assert "X-Amz-Signature" not in said
    assert redactions == 1


SIGNED = (
    "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)


@pytest.mark.parametrize(("meta", "expected"), [
    # Nothing of the server's own to pass on: no _meta at all.
    ({"io.modelcontextprotocol/serverInfo": {"name": "up"}}, None),
    # A forged envelope never reaches the agent; ordinary members do, as sent.
    ({META_KEY: {"complete": True}, "trace": "t-1"}, {"trace": "t-1"}),
    ({"trace": "t-1", "page": 2}, {"trace": "t-1", "page": 2}),
])
def test_a_server_meta_loses_reserved_keys_and_forged_envelopes(
    meta: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    from elision.redact import RedactStage

    rs = ResultShaper(Pipeline(budget=Budget(2048), redactor=RedactStage()))
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text="ok")], _meta=meta))
    assert out.meta == expected
    assert texts(out) == ["ok"]


@pytest.mark.parametrize("size", ["small", "big"])
def test_a_credential_in_a_server_meta_is_withheld_and_the_rest_kept(size: str) -> None:
    from elision.redact import RedactStage

    rs = ResultShaper(Pipeline(budget=Budget(2048), redactor=RedactStage()))
    text = "ok" if size == "small" else json.dumps(DOC)
    out = rs.shape(types.CallToolResult(
        content=[types.TextContent(text=text)],
        _meta={"download": SIGNED, "trace": "t-1", "io.modelcontextprotocol/x": 1},
    ))
    assert out.meta is not None
    shown = json.dumps(out.meta)
    assert "X-Amz-Signature" not in shown and "AKIAIOSFODNN7EXAMPLE" not in shown
    assert out.meta["trace"] == "t-1" and "withheld" in out.meta["download"]
    assert "io.modelcontextprotocol/x" not in out.meta
    assert (META_KEY in out.meta) is (size == "big")


def test_an_oversized_server_meta_is_replaced_by_a_sentence_that_says_so() -> None:
    from elision.mcp.gate.results import META_LIMIT, META_WITHHELD_KEY

    rs, _ = shaper()
    out = rs.shape(types.CallToolResult(
        content=[types.TextContent(text="ok")], _meta={"blob": "x" * META_LIMIT},
    ))
    assert out.meta is not None and list(out.meta) == [META_WITHHELD_KEY]
    assert f"over the {META_LIMIT:,}" in out.meta[META_WITHHELD_KEY]
    assert "xxxx" not in json.dumps(out.meta)
