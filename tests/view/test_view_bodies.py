"""The call view's two bodies, in-process through the app and its guard: a body no longer
kept says so with its digest, the raw body only behind --show-raw, and the marks drawn."""

from __future__ import annotations

import hashlib
import html
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from elision import Budget, Pipeline
from elision.audit.log import AuditLog
from elision.audit.stage import AUDIT_SCOPE, LogAuditor
from elision.store import SQLiteStore
from elision.view.app import Viewer, build_app
from elision.view.bodies import ELIDED, WITHHELD, draw_full, draw_shown, visible
from elision.view.calls import open_calls
from elision.view.chain import ChainWatch

TOKEN = "t" * 43
HOST = "127.0.0.1:8765"
SIGNED = ("https://bucket.s3.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
          "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
          "&X-Amz-Date=20261130T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
          "&X-Amz-Signature=" + "cd" * 32)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of three results shaped by the library pipeline, its bodies kept by the
    auditor: a cut document, a small one with a signed URL, and one whose bodies the store
    then let go."""
    folder = tmp_path_factory.mktemp("bodies")
    store = SQLiteStore(folder / "store.db")
    with AuditLog(folder / "audit.db") as log:
        auditor = LogAuditor(log, session_id="s1", store=store)
        pipeline = Pipeline(budget=Budget(1024), store=store, auditor=auditor)
        pipeline.run(json.dumps({"items": [{"n": i, "text": "x" * 40} for i in range(200)]}),
                     tool="items")
        pipeline.run(json.dumps({"link": SIGNED, "ok": True}), tool="link")
        gone = pipeline.run(json.dumps({"gone": list(range(500))}), tool="gone")
        auditor.close()  # the bodies are kept off the call's path: wait for them
    # The store lets both go (as its TTL or quota would): the full body and the shown one.
    for digest in (gone.sha256, hashlib.sha256(gone.body).hexdigest()):
        for ref in store.refs_for(digest):
            store.remove(ref)
    store.close()
    return folder


def client(folder: Path, *, raw: bool = False, store: bool = True) -> TestClient:
    calls = open_calls(str(folder / "audit.db"))
    chain = ChainWatch(folder / "audit.db")
    chain.start()
    chain.wait(30)
    viewer = Viewer(calls, SQLiteStore(folder / "store.db") if store else None, chain,
                    show_raw=raw)
    app = build_app(viewer, token=TOKEN, hosts={HOST})
    test = TestClient(app, base_url=f"http://{HOST}")
    test.cookies.set("elision_view", TOKEN)
    return test


def test_the_auditor_keeps_both_bodies_in_a_scope_no_client_has(folder: Path) -> None:
    store = SQLiteStore(folder / "store.db")
    try:
        with AuditLog(folder / "audit.db") as log:
            first = next(log.entries())
        for which in ("full", "shown"):
            refs = store.refs_for(first[which]["sha256"])
            assert refs, which
        # Not in the unscoped space an agent without a scope reads, nor in a client's.
        from elision.errors import RefNotFound

        ref = store.refs_for(first["shown"]["sha256"])[0]
        with pytest.raises(RefNotFound):
            store.read(ref, scope=None)
        with pytest.raises(RefNotFound):
            store.read(ref, scope="conn:someone")
        assert store.read(ref, scope=AUDIT_SCOPE)
    finally:
        store.close()


def test_a_body_no_longer_kept_says_so_and_shows_its_digest(folder: Path) -> None:
    with AuditLog(folder / "audit.db") as log:
        gone = list(log.entries())[2]
    page = client(folder).get("/call/3")
    assert page.status_code == 200
    # the shown body and the full one
    assert page.text.count("not in the store this viewer reads") == 2
    assert gone["full"]["sha256"] in page.text and gone["shown"]["sha256"] in page.text
    assert "<pre class=\"body\"" not in page.text  # nothing drawn, nothing blank either


def test_a_store_that_is_not_the_proxys_is_named_with_the_flag_that_picks_it(
        folder: Path, tmp_path: Path) -> None:
    """Found as a security reviewer: `elision view --log audit.db` without the proxy's
    --store read the default store and said every body was "no longer kept: the store's
    retention let it go", as if the evidence had expired; it was in the other store."""
    other = tmp_path / "other.db"
    SQLiteStore(other).close()
    calls = open_calls(str(folder / "audit.db"))
    chain = ChainWatch(folder / "audit.db")
    chain.start()
    chain.wait(30)
    test = TestClient(build_app(Viewer(calls, SQLiteStore(other), chain, show_raw=False),
                                token=TOKEN, hosts={HOST}), base_url=f"http://{HOST}")
    test.cookies.set("elision_view", TOKEN)
    text = html.unescape(test.get("/call/1").text)
    assert text.count(f"not in the store this viewer reads ({other})") == 2
    assert "another store (give that one as --store)" in text
    # and every page's top bar names it beside the log
    assert f'id="bodies" title="the store the bodies are read from (--store)">bodies: {other}<' \
        in html.unescape(test.get("/").text)


@pytest.mark.parametrize(("call", "said"), [
    (2, "no: values were withheld, nothing was cut"),  # a signed URL in a result that fits
    (1, "no: the model got part of it"),  # a cut document
])
def test_complete_says_whether_it_was_cut_or_only_withheld(
        folder: Path, call: int, said: str) -> None:
    """Found as a security reviewer: a small result whose one token was withheld read
    "complete: no: the model got part of it", as if it had been cut."""
    page = client(folder).get(f"/call/{call}").text
    assert f'<dd id="complete">{said}</dd>' in page


def test_without_a_store_the_page_says_there_is_none(folder: Path) -> None:
    page = client(folder, store=False).get("/call/1")
    assert page.status_code == 200 and page.text.count("no store was given") == 2
    assert ">bodies: no store<" in page.text


def test_the_raw_body_only_behind_show_raw(folder: Path) -> None:
    redacted = client(folder).get("/call/2").text
    assert "X-Amz-Signature" not in redacted and "credential withheld" in redacted
    assert "RAW BODIES SHOWN" not in redacted
    raw = client(folder, raw=True).get("/call/2").text
    assert "X-Amz-Signature=" + "cd" * 32 in raw and "RAW BODIES SHOWN" in raw


def test_the_list_counts_elided_nodes_from_the_kept_shown_body(folder: Path) -> None:
    page = client(folder).get("/")
    rows = page.text.split("<tr class=")[1:]
    assert len(rows) == 3
    items = next(r for r in rows if ">items<" in r)
    gone = next(r for r in rows if ">gone<" in r)
    assert '<td class="num">1</td>' in items  # $.items was cut: one trimmed node
    assert "the shown body is not kept" in gone  # unknown, said so: not a zero


@pytest.mark.parametrize(("full", "shown", "elided"), [
    # An array cut to its first two elements: the rest is what the model did not get.
    ({"a": [1, 2, 3, 4]}, {"__elision__": {"v": 1}, "a": [1, 2]}, ["3", "4"]),
    # A member the shown object lacks, whole.
    ({"keep": 1, "drop": "y" * 120}, {"__elision__": {"v": 1}, "keep": 1},
     ['"drop": ', '"' + "y" * 120 + '"']),
    # A string cut short: only its missing tail.
    ({"s": "abcdefghij" * 20}, {"__elision__": {"v": 1}, "s": "abcdefghij"},
     ["abcdefghij" * 19]),
    # A root array, wrapped as {"__elision__", "value"} for the model.
    ([10, 20, 30], {"__elision__": {"v": 1}, "value": [10]}, ["20", "30"]),
])
def test_what_is_marked_elided_is_exactly_what_the_model_lacks(
    full: Any, shown: Any, elided: list[str]
) -> None:
    drawn, _ = draw_full(json.dumps(full).encode(), json.dumps(shown).encode(), raw=False)
    marked = [text.rstrip(",") for line in drawn.lines for text, kind in line if kind == ELIDED]
    assert marked == elided


def test_a_withheld_value_is_marked_where_it_sits() -> None:
    body = json.dumps({"rows": [{"u": "fine"}, {"u": SIGNED}]}).encode()
    drawn, where = draw_full(body, None, raw=False)
    assert where == ["$.rows[1].u"]
    marked = [t for line in drawn.lines for t, k in line if k == WITHHELD]
    assert marked == ['"[credential withheld: aws-sigv4-url]"']
    shown = draw_shown(json.dumps({"__elision__": {"withheld": [
        {"path": "$.rows[1].u", "reason": "aws-sigv4-url"}]}, "rows": [
        {"u": "fine"}, {"u": "[credential withheld: aws-sigv4-url]"}]}).encode())
    assert [t for line in shown.lines for t, k in line if k == WITHHELD] == [
        '"[credential withheld: aws-sigv4-url]"']


@pytest.mark.parametrize(("raw", "marked"), [
    # the redacted view: the stub is the withheld part, the words around it are not
    (False, ["[credential withheld: github-token]"]),
    # the raw view shows the value, whose place the entry does not give: the line, whole
    (True, ["token ghp_" + "a1B2c3D4e5" * 3 + "abcdef and the rest"]),
])
def test_a_withheld_value_in_a_full_text_is_marked_at_its_stub(
        raw: bool, marked: list[str]) -> None:
    """Found as a security reviewer in `elision view`: a text result with a GitHub token in
    one line showed that whole line, words and all, as the withheld value on the full side,
    while the model's side marked the stub alone."""
    token = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
    drawn, where = draw_full(f"first\ntoken {token} and the rest\nlast\n".encode(), None,
                             raw=raw)
    assert where == ["line 2"]
    assert [t for line in drawn.lines for t, k in line if k == WITHHELD] == marked
    assert "".join(t for t, _ in drawn.lines[1][1:]) == (
        f"token {token} and the rest" if raw else
        "token [credential withheld: github-token] and the rest")


@pytest.mark.parametrize("stub", [
    "[credential withheld: aws-sigv4-url]",
    "[credential-dense text withheld: 41,230 bytes]",  # the density bound's one entry
])
def test_a_stub_in_a_shown_text_is_marked_withheld(stub: str) -> None:
    shown = draw_shown(f"first line\nkey={stub} and the rest\nlast line\n".encode())
    marked = [t for line in shown.lines for t, k in line[1:] if k == WITHHELD]
    assert marked == [stub]


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[2J", "\\x1b[2J"),  # CSI: clear the screen
    ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),  # OSC 52: write the clipboard
    ("a\u202eb", "a\\u202eb"),  # a bidi override that reorders what follows
    ("\x9b31m", "\\x9b31m"),  # the C1 form of CSI
    ("a\u2028b", "a\\u2028b"),  # a line separator, which some viewers break a line at
])
def test_control_characters_are_spelled_not_sent(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_a_body_keeps_its_tabs_and_spells_its_controls() -> None:
    drawn, _ = draw_full(b"a\tb\x1b[31mred\n", None, raw=False)
    assert drawn.lines[0][-1][0] == "a\tb\\x1b[31mred"


@pytest.mark.skipif(not os.environ.get("ELISION_TEST_POSTGRES_URL"),
                    reason="set ELISION_TEST_POSTGRES_URL to a PostgreSQL database")
def test_a_postgresql_log_and_store_show_the_same_call_view() -> None:
    import psycopg

    from elision.audit.pglog import PgAuditLog
    from elision.store.postgres import PostgresStore

    url = os.environ["ELISION_TEST_POSTGRES_URL"]
    schema = "elision_view_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    scoped = f"{url}?options=-csearch_path%3D{schema}"
    try:
        store = PostgresStore(scoped, schema=schema)
        with PgAuditLog(scoped, schema=schema) as log:
            auditor = LogAuditor(log, session_id="pg", store=store)
            pipeline = Pipeline(budget=Budget(1024), store=store, auditor=auditor)
            pipeline.run(json.dumps({"items": list(range(2000))}), tool="pg_items")
            auditor.close()
        calls = open_calls(scoped)
        chain = ChainWatch(scoped)
        chain.start()
        chain.wait(60)
        viewer = Viewer(calls, store, chain)
        client = TestClient(build_app(viewer, token=TOKEN, hosts={HOST}),
                            base_url=f"http://{HOST}")
        client.cookies.set("elision_view", TOKEN)
        listed = client.get("/", params={"tool": "pg_items"}).text
        assert "/call/1" in listed
        text = client.get("/call/1").text
        assert "not in the store this viewer reads" not in text and 'id="full-1"' in text
        assert text.count('class="elided"') > 1000  # the items the model did not get
        assert "log: 1 entry verifies; no signed checkpoint" in html.unescape(text)
        calls.close()
        store.close()
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_bodies_are_kept_off_the_calls_path_and_none_past_the_bound(tmp_path: Path) -> None:
    """The auditor's copies wait on a thread of their own; past the bound they are left
    unkept (counted), never kept by making the call wait."""
    from elision.audit.stage import BodyKeeper

    store = SQLiteStore(tmp_path / "store.db")
    keeper = BodyKeeper(store, pending_bytes=10)
    big = b"x" * 11
    keeper.keep(big, hashlib.sha256(big).hexdigest(), "text")
    assert keeper.dropped == 1
    small = b"small"
    keeper.keep(small, hashlib.sha256(small).hexdigest(), "text")
    keeper.close()
    assert store.refs_for(hashlib.sha256(small).hexdigest())
    assert not store.refs_for(hashlib.sha256(big).hexdigest())
    keeper.keep(small, hashlib.sha256(small).hexdigest(), "text")  # after close: not kept
    assert keeper.dropped == 2
    store.close()
