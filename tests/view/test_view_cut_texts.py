"""A cut text counts as elided in the viewer, and an empty log says what writes one (QA pass
as a security reviewer).

Found by making audit records through a real proxy and a `elision hook claude-code` call and
opening `elision view`: a text result cut to 1,863 of 46,334 bytes (and a hook's `stdout` cut
to 23,993 of 30,008) listed "elided 0" beside a JSON cut's "2", because only the JSON
envelope's ``elided`` entries were counted; a text's cut is told by its header line, which
the call page did not show either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from elision import Budget, Pipeline
from elision.audit.log import AuditLog
from elision.audit.stage import LogAuditor
from elision.store import SQLiteStore
from elision.view.app import Viewer, build_app
from elision.view.bodies import account_of
from elision.view.calls import open_calls
from elision.view.chain import ChainWatch

TOKEN = "t" * 43
HOST = "127.0.0.1:8765"
HEADER = ("[elision] partial: lines 1-3 and 98-100 of 100 shown; 412 of 4,890 bytes; "
          "sha256=" + "ab" * 32 + "; ref=el_AAAAAAAAAAAAAAAAAAAAAAAA")
TEXT = HEADER + "\nline 1\n[… 94 lines elided …]\nline 100\n"


@pytest.mark.parametrize(("shown", "texts"), [
    # a text result: its header is its first line
    (TEXT, [HEADER]),
    # an MCP result audited whole: the header opens a text block's text
    (json.dumps({"content": [{"type": "text", "text": TEXT}]}), [HEADER]),
    # a hook's answer: the header opens the cut stdout
    (json.dumps({"stdout": TEXT, "stderr": ""}), [HEADER]),
    # two blocks, each cut: two cut texts
    (json.dumps({"content": [{"type": "text", "text": TEXT}] * 2}), [HEADER, HEADER]),
    # a CSV keeps its header row first and its notice as one quoted row
    ('a,b\n"' + HEADER + '"\n1,2\n', [HEADER]),
    # a JSON cut is told by its envelope, not a header
    (json.dumps({"__elision__": {"elided": [{"path": "$.a"}]}, "a": [1]}), []),
    # data that only mentions the words, not at a line's or a string's start
    ("see [elision] partial: in the docs\n", []),
    (json.dumps({"note": "a [elision] partial: header"}), []),
])
def test_each_cut_text_is_counted_by_its_header(shown: str, texts: list[str]) -> None:
    assert account_of(shown.encode()).texts == texts


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of a text cut by lines and a JSON cut, shaped by the library pipeline."""
    folder = tmp_path_factory.mktemp("cut-texts")
    store = SQLiteStore(folder / "store.db")
    with AuditLog(folder / "audit.db") as log:
        auditor = LogAuditor(log, session_id="s1", store=store)
        pipeline = Pipeline(budget=Budget(1024), store=store, auditor=auditor)
        pipeline.run("".join(f"build step {i} ok\n" for i in range(400)), tool="log")
        pipeline.run(json.dumps({"items": list(range(900))}), tool="items")
        auditor.close()
    store.close()
    return folder


def _client(folder: Path) -> TestClient:
    chain = ChainWatch(folder / "audit.db")
    chain.start()
    chain.wait(30)
    viewer = Viewer(open_calls(str(folder / "audit.db")), SQLiteStore(folder / "store.db"),
                    chain, show_raw=False)
    test = TestClient(build_app(viewer, token=TOKEN, hosts={HOST}), base_url=f"http://{HOST}")
    test.cookies.set("elision_view", TOKEN)
    return test


def test_the_list_counts_a_cut_text_as_elided_and_its_page_shows_the_header(
    folder: Path,
) -> None:
    test = _client(folder)
    rows = test.get("/").text.split("<tr class=")[1:]
    text_row = next(r for r in rows if ">log<" in r)
    assert '<td class="num">1</td>' in text_row  # one cut text, not "0"
    page = test.get("/call/1").text
    assert 'id="cut-texts"' in page and "[elision] partial: lines 1-" in page


def test_an_empty_log_says_what_writes_one(tmp_path: Path) -> None:
    """Found as a security reviewer opening `elision view` on a log no proxy had written to
    yet: the page said "no call in this log" and nothing of how calls get there."""
    AuditLog(tmp_path / "audit.db").close()
    text = _client(tmp_path).get("/").text
    assert "no call in this log yet" in text and "--audit" in text
    assert "elision hook claude-code" in text
