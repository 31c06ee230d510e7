"""Reference lanes and JSON structure: fixtures/lanes.toml, plus the API's other promises."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import orjson
import pytest

from elision.errors import RefNotFound, UpstreamError
from elision.redact import (
    RedactStage,
    is_stub,
    lookup_reference,
    read_plan,
    redact_value,
)
from elision.shape.jsonparse import RawNumber, parse_json

CASES: list[dict[str, Any]] = tomllib.loads(
    (Path(__file__).parent / "fixtures" / "lanes.toml").read_text("utf-8")
)["case"]


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_lane_corpus(case: dict[str, Any]) -> None:
    doc = orjson.loads(case["doc"])
    before = copy.deepcopy(doc)
    result = redact_value(doc)
    assert doc == before, "the input must never be mutated"
    assert [[e["path"], e["reason"]] for e in result.withheld] == case["withheld"]
    out = orjson.dumps(result.value).decode()
    if "secret" in case:
        assert case["secret"] not in out
    if not case["withheld"]:
        assert result.value == doc
        assert result.complete
    # Every stub id in an entry has a host-private record, and only those do.
    stub_ids = {e["stub"] for e in result.withheld if "stub" in e}
    assert set(result.references) == stub_ids
    assert redact_value(result.value).withheld == ()


def test_reference_record_keeps_the_real_uri_out_of_the_value() -> None:
    uri = "https://b.s3.amazonaws.com/k.png?X-Amz-Signature=0123abcd"
    doc = {"content": [{"type": "image", "uri": uri, "mimeType": "image/png", "size": 122880}]}
    result = redact_value(doc, server="files", path_root="$.page")
    (entry,) = result.withheld
    assert entry["path"] == "$.page.content[0].uri"
    stub = result.value["content"][0]["uri"]
    assert is_stub(stub)
    assert stub == f"[{entry['stub']}] image/png, ~120 KB — fetch with elision_fetch_reference"
    record = result.references[entry["stub"]]
    assert record["uri"] == uri
    assert record["server"] == "files"
    assert uri not in repr(result)
    plan = read_plan(stub, lookup_reference(stub, records=result.references))
    assert (plan.server, plan.uri, plan.mime_type) == ("files", uri, "image/png")
    assert uri not in repr(plan)


def test_stub_ids_are_random_not_derived() -> None:
    doc = {"type": "resource", "uri": "https://h/o?X-Amz-Signature=abc"}
    ids = {redact_value(doc).withheld[0]["stub"] for _ in range(20)}
    assert len(ids) == 20


@pytest.mark.parametrize(
    ("record", "message"),
    [
        # no upstream server: refuse rather than fetch the uri from the result
        ({"uri": "http://169.254.169.254/latest/meta-data/"}, "never fetches an address"),
        # nothing to read back at all
        ({"server": "files"}, "no uri on record"),
    ],
)
def test_read_plan_refuses_without_an_upstream_server(
    record: dict[str, Any], message: str
) -> None:
    with pytest.raises(UpstreamError, match=message) as info:
        read_plan("ref_abcd234567", record)
    assert "169.254" not in str(info.value)


def test_read_plan_serves_a_disposition_ref_payload_from_the_record() -> None:
    doc = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "disposition": "ref"}
    result = redact_value(doc)
    stub_id = result.withheld[0]["stub"]
    plan = read_plan(stub_id, result.references[stub_id])
    assert plan.payload == "iVBORw0KGgo="
    assert plan.server is None


def test_lookup_of_an_unknown_stub_is_refused_by_name() -> None:
    with pytest.raises(RefNotFound, match="ref_nothere"):
        lookup_reference("ref_nothere", records={})


class _RecordingStore:
    def __init__(self) -> None:
        self.kept: dict[tuple[str, str | None], dict[str, Any]] = {}

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None:
        self.kept[(stub_id, scope)] = record

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]:
        try:
            return self.kept[(stub_id, scope)]
        except KeyError:
            raise RefNotFound(f"no record for {stub_id!r}") from None


def test_stage_puts_records_in_the_store_under_its_scope() -> None:
    from elision.pipeline import Pipeline

    store = _RecordingStore()
    stage = RedactStage(store=store, scope="tenant-a")
    body = b'{"type":"resource","uri":"https://h/o?X-Amz-Signature=abc","mimeType":"text/csv"}'
    pipeline = Pipeline()
    capture = pipeline.capture(body, server="files")
    redacted = stage.redact(capture)
    (entry,) = redacted.withheld
    assert stage.lookup(entry["stub"])["server"] == "files"
    assert (entry["stub"], "tenant-a") in store.kept
    assert stage.references == {}


def test_raw_numbers_and_deep_nesting() -> None:
    # 10,000 levels: the walk is iterative, and a secret at the bottom is still found.
    deep: Any = "Authorization: Bearer abcdef0123456789xyz"
    for _ in range(10_000):
        deep = [deep]
    result = redact_value({"n": RawNumber(b"1E5"), "deep": deep})
    assert result.value["n"] is not None and result.value["n"].raw == b"1E5"
    (entry,) = result.withheld
    assert entry["path"].endswith("[0]" * 10_000)
    inner = result.value["deep"]
    for _ in range(10_000):
        inner = inner[0]
    assert inner == "Authorization: Bearer [credential withheld: bearer-token]"


def test_body_with_unicode_escapes_is_not_trusted_as_clean() -> None:
    # \u0041 is "A": the raw body never spells AKIA, the parsed value does.
    body = b'{"k":"\\u0041KIAIOSFODNN7EXAMPLE"}'
    result = redact_value(parse_json(body), body=body)
    assert result.value == {"k": "[credential withheld: aws-access-key-id]"}


def test_clean_runs_are_shared_and_dirty_ones_found() -> None:
    rows: list[Any] = [{"id": i, "url": f"https://example.com/items/{i}"} for i in range(1000)]
    rows[777] = {"id": 777, "url": "https://example.com/items/777?access_token=FIXTURE123"}
    result = redact_value({"rows": rows})
    assert [e["path"] for e in result.withheld] == ["$.rows[777].url"]
    assert result.value["rows"][3] is rows[3]
    assert result.value["rows"][:777] == rows[:777]
    assert result.value["rows"][778:] == rows[778:]
    assert rows[777]["url"].endswith("FIXTURE123"), "the input is untouched"


@pytest.mark.parametrize(
    ("leaf", "withheld"),
    [
        # clean and too deep for orjson: the raw body alone says there is nothing to find
        ("just text", 0),
        # the same depth with a credential: the node-by-node walk finds it
        ("key AKIAIOSFODNN7EXAMPLE", 1),
    ],
)
def test_body_spares_a_deep_clean_document_the_walk(
    leaf: str, withheld: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elision.redact import walk

    body = ("[" * 300 + orjson.dumps(leaf).decode() + "]" * 300).encode()
    value = parse_json(body)
    walked: list[bool] = []
    real_run = walk.Walker.run

    def counting_run(self: walk.Walker, *args: Any, **kwargs: Any) -> Any:
        walked.append(True)
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(walk.Walker, "run", counting_run)
    result = redact_value(value, body=body)
    assert walked == ([True] if withheld else [])
    assert len(result.withheld) == withheld
    if not withheld:
        assert result.value is value


def test_stage_conforms_to_the_pipeline_protocol() -> None:
    from elision.pipeline import Redactor

    assert isinstance(RedactStage(), Redactor)
