"""End to end: credentials in an upstream's results never reach the client, over real processes.

A real upstream (``test_mcp_pipeline_upstream.py``) seeds signed URLs (AWS SigV4, GCS, Azure
SAS), a JWT, a Bearer header, a PEM key, a GitHub token, reference lanes and embedded
resources at every depth, in JSON and in plain text. A real proxy sits in front of it and the
official ``mcp.Client`` calls through it. Every byte the client is given - results, every page
of every ``elision_fetch`` walk, every error - and the proxy's stderr and its audit log are
searched for each seeded secret.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.pages import META, text_of
from support.pages import walk as walk_pages
from support.processes import started, stderr_to_file

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM_PATH = HERE / "test_mcp_pipeline_upstream.py"
UPSTREAM = [sys.executable, str(UPSTREAM_PATH)]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 4096


def _load_upstream() -> Any:
    spec = importlib.util.spec_from_file_location("pipeline_upstream", UPSTREAM_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


up = _load_upstream()
SECRETS: dict[str, str] = up.SECRETS


class Seen:
    """Everything the client was given, to be searched for secrets at the end."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, result: types.CallToolResult) -> types.CallToolResult:
        self.texts.append(result.model_dump_json(by_alias=True))
        self.texts.extend(b.text for b in result.content if isinstance(b, types.TextContent))
        return result

    def assert_clean(self, where: str = "what the client saw") -> None:
        assert self.texts, "nothing was seen: the test checked nothing"
        for text in self.texts:
            assert_no_secret(text, where)


def assert_no_secret(text: str, where: str) -> None:
    for name, secret in SECRETS.items():
        assert secret not in text, f"the {name} secret reached {where}"


async def walk(client: Client, seen: Seen, first: dict[str, Any]) -> int:
    """Follow ``next`` to the end; every page within budget and free of secrets."""
    return await walk_pages(client, first, BUDGET, seen.add)


def stdio_proxy(tmp: Path, *args: str) -> StdioServerParameters:
    # A shell redirect: the proxy's stderr (its own warnings and the upstream's) goes to a file
    # the test can search, while stdout stays the MCP channel.
    command = [*ELISION, "proxy", "--budget", str(BUDGET), "--store", str(tmp / "store.db"),
               "--audit", str(tmp / "audit.db"), *args, "--", *UPSTREAM]
    return stderr_to_file(command, tmp / "stderr.log")


def assert_files_clean(tmp: Path) -> None:
    for name in ("stderr.log", "audit.db", "audit.db-wal"):
        path = tmp / name
        if path.exists():
            assert_no_secret(path.read_bytes().decode("utf-8", "replace"), name)


def test_stdio_client_sees_stubs_in_every_result_page_and_error(tmp_path: Path) -> None:
    seen = Seen()

    async def main() -> None:
        async with Client(stdio_proxy(tmp_path), mode="legacy") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"elision_fetch", "elision_fetch_reference", "secret_json"} <= tools

            # JSON: every secret withheld with its path and reason; ordinary URLs kept.
            result = seen.add(await client.call_tool("secret_json", {"rows": 300}))
            doc = json.loads(text_of(result))
            env = doc["__elision__"]
            assert env["complete"] is False and result.meta is not None
            assert result.meta[META] == env and result.structured_content == doc
            withheld = {(w["path"], w["reason"]) for w in env["withheld"]}
            assert {
                ("$.rows[7].download", "aws-sigv4-url"),
                ("$.rows[257].download", "aws-sigv4-url"),
                ("$.auth.headers.Authorization", "bearer-token"),
                ("$.auth.session", "jwt"),
                ("$.deep.a.b.c[0].note", "private-key"),
                ("$.deep.a.b.c[1].github", "github-token"),
                ("$.attachments[0].uri", "signed-uri"),
                ("$.attachments[1].resource.text", "inline-with-uri"),
                ("$.azure", "azure-sas-url"),
            } <= withheld
            assert doc["rows"][0]["download"] == up.ORDINARY_URL
            assert doc["attachments"][2]["uri"] == up.LINK_URI  # a resource_link stays
            assert doc["attachments"][1]["resource"]["uri"] == up.FILE_URI
            assert await walk(client, seen, env) > 3
            # Pages picked anywhere are redacted by the same rules, with their own entries.
            row = seen.add(await client.call_tool(
                "elision_fetch", {"ref": env["ref"], "path": "$.rows[7]"}))
            assert "aws-sigv4-url" in text_of(row)
            page_env = row.meta[META]  # type: ignore[index]
            assert [w["path"] for w in page_env["withheld"]] == ["$.rows[7].download"]
            for selector in ({"path": "$.auth"}, {"path": "$.deep.a.b.c[0].note[40:]"},
                             {"bytes": "0-"}, {"lines": "1-"}):
                seen.add(await client.call_tool("elision_fetch", {"ref": env["ref"], **selector}))

            # The embedded resource's stub reads back through resources/read upstream.
            stub = doc["attachments"][1]["resource"]["text"]
            whole = {"stub": stub, "budget": 8192}  # the report is over the 4 KiB budget
            back = seen.add(await client.call_tool("elision_fetch_reference", whole))
            assert not back.is_error and text_of(back) == up.FILE_TEXT
            # The signed lane's uri is the credential: only the upstream could read it, it
            # cannot, and the refusal does not repeat the uri.
            signed = doc["attachments"][0]["uri"]
            refused = seen.add(await client.call_tool("elision_fetch_reference", {"stub": signed}))
            assert refused.is_error and "could not read" in text_of(refused)
            unknown = seen.add(await client.call_tool("elision_fetch_reference",
                                                      {"stub": "[ref_nosuchstub]"}))
            assert unknown.is_error and "ref_nosuchstub" in text_of(unknown)

            # Plain text: the header first, stubs in place, every line page clean.
            log = seen.add(await client.call_tool("secret_text", {"lines": 2000}))
            assert text_of(log).startswith("[elision] partial:")
            log_env = log.meta[META]  # type: ignore[index]
            assert {"aws-sigv4-url", "bearer-token", "jwt", "private-key"} == {
                w["reason"] for w in log_env["withheld"]}
            assert await walk(client, seen, log_env) > 3
            key_page = seen.add(await client.call_tool(
                "elision_fetch", {"ref": log_env["ref"], "lines": "995-1010"}))
            assert "[credential withheld: private-key]" in text_of(key_page)

            # Content blocks: the embedded resource is a stub, the link stays, the header goes.
            blocks = seen.add(await client.call_tool("secret_blocks", {}))
            first, link, header = blocks.content
            assert isinstance(link, types.ResourceLink) and str(link.uri) == up.LINK_URI
            assert isinstance(header, types.TextContent) and up.ORDINARY_URL in header.text
            embedded = first.model_dump_json()
            assert up.FILE_TEXT not in embedded and "ref_" in embedded
            stub_id = re.search(r"\[(ref_[a-z0-9]+)\]", embedded)
            assert stub_id is not None
            again = seen.add(await client.call_tool("elision_fetch_reference",
                                                    {"stub": stub_id[1], "budget": 8192}))
            assert text_of(again) == up.FILE_TEXT

            # An error that quotes a credential is an error without it.
            failed = seen.add(await client.call_tool("secret_error", {}))
            assert failed.is_error and "403" in text_of(failed)

    anyio.run(main)
    seen.assert_clean()
    assert_files_clean(tmp_path)


@contextmanager
def http_proxy(tmp: Path) -> Iterator[str]:
    """A listening proxy; what it wrote to stderr ends up in ``stderr.log`` for the checks."""
    lines: list[str] = []
    try:
        with started(
            [*ELISION, "proxy", "--budget", str(BUDGET), "--store", str(tmp / "store.db"),
             "--audit", str(tmp / "audit.db"), "--listen", "127.0.0.1:0", "--", *UPSTREAM],
        ) as proxy:
            lines = proxy.lines  # still filling until the proxy has stopped
            yield proxy.url
    finally:
        (tmp / "stderr.log").write_text("".join(lines))


def test_over_http_a_stub_resolves_only_for_the_client_that_was_shown_it(tmp_path: Path) -> None:
    seen = Seen()
    with http_proxy(tmp_path) as url:

        async def main() -> None:
            async with Client(url, mode="legacy") as alice, Client(url, mode="legacy") as bob:
                doc = json.loads(text_of(seen.add(await alice.call_tool("secret_json", {}))))
                stub = doc["attachments"][1]["resource"]["text"]
                whole = {"stub": stub, "budget": 8192}  # the report is over the 4 KiB budget
                mine = seen.add(await alice.call_tool("elision_fetch_reference", whole))
                assert not mine.is_error and text_of(mine) == up.FILE_TEXT
                theirs = seen.add(await bob.call_tool("elision_fetch_reference", whole))
                assert theirs.is_error and "no reference record" in text_of(theirs)
                assert up.FILE_TEXT not in text_of(theirs)

        anyio.run(main)
    seen.assert_clean()
    assert_files_clean(tmp_path)
