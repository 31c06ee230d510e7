"""Resources and prompts are bounded like tool results (issue 14, item 5).

Found trying the proxy as an integrator: resources/read and prompts/get were redacted but never
shaped, so a 3 MB resource went to the model whole.
"""

from __future__ import annotations

import mcp_types as types

from elision.budget import Budget
from elision.envelope import META_KEY
from elision.mcp.gate.bounded import bounded_prompt, bounded_read, shaper_for_reads
from elision.mcp.gate.results import ResultShaper
from elision.mcp.gate.tools import run_fetch
from elision.pipeline import Pipeline
from elision.redact import RedactStage
from elision.store import MemoryStore

LOG = "".join(f"2026-12-01 line {i} of the build log\n" for i in range(90_000))  # ~3 MB
SIGNED = "https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&X-Amz-Credential=AK"


def shaper() -> tuple[ResultShaper, MemoryStore]:
    store = MemoryStore()
    pipeline = Pipeline(budget=Budget(8192), store=store, redactor=RedactStage(store=store))
    return shaper_for_reads(pipeline, 256 * 1024), store


def text(uri: str, body: str) -> types.TextResourceContents:
    return types.TextResourceContents(uri=uri, mime_type="text/plain", text=body)


def test_a_big_resource_is_cut_to_its_budget_and_the_rest_is_fetchable() -> None:
    rs, store = shaper()
    result = types.ReadResourceResult(contents=[text("file:///build.log", LOG)])
    out = bounded_read(rs, result, "file:///build.log", budget=Budget(4096),
                       scope="a", server=None)
    (shown,) = out.contents
    assert isinstance(shown, types.TextResourceContents) and shown.uri == result.contents[0].uri
    assert shown.text.startswith("[elision] partial:") and len(shown.text.encode()) <= 4096
    env = out.meta[META_KEY]  # type: ignore[index]
    assert env["bytes"]["total"] == len(LOG.encode())
    page = run_fetch(store, {"ref": env["ref"], "lines": "1000-1001"}, budget=Budget(4096),
                     scope="a")
    assert "line 999 of the build log" in page.content[0].text  # type: ignore[union-attr]


def test_many_contents_are_one_array_with_a_notice_first() -> None:
    rs, _ = shaper()
    result = types.ReadResourceResult(
        contents=[text(f"file:///d/{i}", f"file {i}\n" * 20) for i in range(600)]
    )
    out = bounded_read(rs, result, "file:///d/", budget=Budget(8192),
                       scope="a", server=None)
    notice, *kept = out.contents
    assert isinstance(notice, types.TextResourceContents)
    assert "content blocks 1-" in notice.text and "of 600 shown" in notice.text
    assert kept == result.contents[: len(kept)] and 0 < len(kept) < 600
    assert sum(len(c.text.encode()) for c in out.contents  # type: ignore[union-attr]
               ) <= 8192


def test_a_small_clean_resource_goes_out_as_it_came() -> None:
    rs, _ = shaper()
    result = types.ReadResourceResult(contents=[text("test://hello", "hello")])
    assert bounded_read(rs, result, "test://hello", budget=Budget(8192),
                        scope="a", server=None) is result


def test_a_credential_in_a_resource_is_still_withheld() -> None:
    rs, _ = shaper()
    result = types.ReadResourceResult(contents=[text("test://n", f"the report: {SIGNED}")])
    out = bounded_read(rs, result, "test://n", budget=Budget(8192),
                       scope="a", server=None)
    assert SIGNED not in out.model_dump_json()


def test_a_big_prompt_is_cut_to_its_budget() -> None:
    rs, _ = shaper()
    result = types.GetPromptResult(messages=[
        types.PromptMessage(role="user", content=types.TextContent(text="Summarise this log:")),
        types.PromptMessage(role="user", content=types.EmbeddedResource(
            resource=text("file:///build.log", LOG))),
    ])
    out = bounded_prompt(rs, result, "summarise", budget=Budget(4096),
                         scope="a", server="up")
    first, second = out.messages
    assert first == result.messages[0]
    assert isinstance(second.content, types.EmbeddedResource)
    shown = second.content.resource
    assert isinstance(shown, types.TextResourceContents) and len(shown.text.encode()) < 4096
    assert out.meta is not None and META_KEY in out.meta


def test_resources_have_their_own_budget_in_the_budgets_unit() -> None:
    from elision.mcp.launch import Stages, build_proxy

    quiet = Stages(audit=False)
    proxy = build_proxy(command=["true"], no_store=True, budget=2048, unit="chars",
                        resource_budget=1024, stages=quiet)
    assert proxy.resource_budget == Budget(1024, "chars")
    default = build_proxy(command=["true"], no_store=True, budget=2048, stages=quiet)
    assert default.resource_budget == Budget(2048)
