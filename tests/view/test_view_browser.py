"""End to end in a real browser: Playwright driving Debian's chromium over ``elision view``
on a log a real proxy wrote (see conftest.py). Each test leaves a screenshot of the views it
opened in its output folder (``tmp_path``)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

CHROMIUM = os.environ.get("ELISION_TEST_CHROMIUM", "/usr/bin/chromium")
#: Offline and quiet: no first-run, no background fetches, no QUIC.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).is_file():
        return (f"no chromium at {CHROMIUM}: apt-get install chromium (or set "
                "ELISION_TEST_CHROMIUM to a Chromium binary)")
    return None


if (_reason := _missing()) is not None:
    pytest.skip(_reason, allow_module_level=True)


@pytest.fixture(scope="module")
def browser(viewer: Any) -> Iterator[Any]:
    """``viewer`` first: the log is made with anyio, which cannot run inside the event loop
    Playwright's sync API keeps running on this thread."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, viewer: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    dialogs: list[str] = []
    tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    tab.dialogs = dialogs
    try:
        yield tab
    finally:
        context.close()


def _open_call(page: Any, viewer: Any, tool: str, shots: Path, name: str) -> None:
    """From the list, click through to the call of ``tool`` (as the list shows its name)."""
    page.goto(viewer.url)
    page.screenshot(path=str(shots / "calls.png"), full_page=True)
    row = page.locator("#calls tbody tr").filter(has=page.locator("td.tool", has_text=tool))
    assert row.count() == 1, f"one row for {tool!r}"
    row.locator("a.open").click()
    page.wait_for_selector("section.sides")
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def test_a_cut_json_result_shows_its_elided_rows_where_they_sit(
    page: Any, viewer: Any, tmp_path: Path
) -> None:
    got = json.loads(viewer.proxy.got["rows"])
    env = got["__elision__"]
    shown_rows = len(got["rows"])
    assert env["elided"] == [{"path": "$.rows", "kind": "array", "shown": shown_rows,
                              "total": 400}]
    _open_call(page, viewer, "rows", tmp_path, "call-rows")
    # The model's account of the cut, node by node.
    table = page.locator("#elided-list tbody tr")
    assert table.count() == 1
    assert table.first.inner_text().split() == ["$.rows", "array", str(shown_rows), "of", "400"]
    # On the full side, exactly the rows the model did not get are marked, and no other.
    full = page.locator("#full-1")
    elided = full.locator(".elided")
    assert elided.count() == 400 - shown_rows
    assert json.loads(elided.first.inner_text().rstrip(",")) == {
        "id": shown_rows, "name": f"row {shown_rows}"}
    assert json.loads(elided.last.inner_text().rstrip(",")) == {"id": 399, "name": "row 399"}
    assert f'"id":{shown_rows - 1},' not in "".join(elided.all_inner_texts())
    # The model's side marks elision's envelope, and holds no elided part.
    assert page.locator("#shown-1 .envelope").count() > 0
    assert page.locator("#shown-1 .elided").count() == 0
    # The next call links to its page, which a click opens.
    link = page.locator("a.next").first
    assert "path=$.rows[" in link.inner_text()
    link.click()
    page.wait_for_selector("#page")
    page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
    assert f'"id":{shown_rows},' in page.locator("#page").inner_text()


def test_a_cut_text_marks_the_lines_its_header_says_were_not_shown(
    page: Any, viewer: Any, tmp_path: Path
) -> None:
    header = viewer.proxy.got["build_log"].splitlines()[0]
    match = re.search(r"lines 1-(\d+) and (\d+)-601 of 601 shown", header)
    assert match, header
    head, tail = int(match[1]), int(match[2])
    _open_call(page, viewer, "build_log", tmp_path, "call-text")
    lines = page.locator("#full-1 .line")
    assert lines.count() == 601
    elided_numbers = [int(t.split()[0]) for t in
                      page.locator("#full-1 .line:has(.elided)").all_inner_texts()]
    assert elided_numbers == list(range(head + 1, tail))
    # The model's side: its header line and its marker are elision's account.
    envelope = page.locator("#shown-1 .envelope").all_inner_texts()
    assert envelope[0] == header and "lines elided" in envelope[1]


def test_a_withheld_value_is_marked_on_both_sides_and_raw_stays_hidden(
    page: Any, viewer: Any, tmp_path: Path
) -> None:
    from view_upstream import SIGNED

    _open_call(page, viewer, "signed_link", tmp_path, "call-withheld")
    shown = page.locator("#shown-1 .withheld").all_inner_texts()
    full = page.locator("#full-1 .withheld").all_inner_texts()
    assert shown == ['"[credential withheld: aws-sigv4-url]"']
    assert any("[credential withheld: aws-sigv4-url]" in t for t in full)
    assert page.locator("#withheld-list tbody tr").first.inner_text().split()[:2] == [
        "$.download", "aws-sigv4-url"]
    # Not started with --show-raw: the signed URL appears nowhere on the page.
    assert "X-Amz-Signature" not in page.content()
    assert SIGNED not in page.content()


def test_a_hostile_tool_name_is_shown_as_text_and_runs_nothing(
    page: Any, viewer: Any, tmp_path: Path
) -> None:
    from view_upstream import HOSTILE_TOOL

    from elision.view.bodies import visible

    shown_name = visible(HOSTILE_TOOL)
    assert "\x1b" not in shown_name and "\\x1b" in shown_name
    _open_call(page, viewer, shown_name, tmp_path, "call-hostile")
    assert page.locator("#tool").inner_text() == shown_name
    # Nothing ran: no dialog, no script element, and the markup is not markup.
    assert page.dialogs == []
    assert page.locator("script").count() == 0
    assert page.locator("b, bold").count() == 0
    assert page.evaluate("document.title").startswith("call 5")


def test_the_chain_view_gives_the_verifiers_verdict(
    page: Any, viewer: Any, tmp_path: Path
) -> None:
    page.goto(viewer.url)
    page.goto(viewer.base + "/chain")
    page.wait_for_selector("#log-verdict:not(.verdict-running)", timeout=30_000)
    page.screenshot(path=str(tmp_path / "chain.png"), full_page=True)
    text = page.locator("#log-verdict").inner_text()
    assert text.startswith("5 entries verify"), text


def test_without_the_token_the_browser_gets_nothing(page: Any, viewer: Any,
                                                     tmp_path: Path) -> None:
    response = page.goto(viewer.base + "/call/1")
    assert response.status == 403
    page.screenshot(path=str(tmp_path / "no-token.png"))
    assert "rows" not in page.content() and "needs its token" in page.content()
