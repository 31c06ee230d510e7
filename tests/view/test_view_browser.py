"""End to end in a real browser: Playwright driving Debian's chromium over ``elision view``
on a log a real proxy wrote (see conftest.py). Each test leaves a screenshot of the views it
opened in its output folder (``tmp_path``)."""

from __future__ import annotations

import os
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
def browser() -> Iterator[Any]:
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
