"""The lazy logger (:mod:`elision._lazylog`) drops what ``logging`` would drop and emits the rest.

It stands in for ``logging.getLogger`` on a hook's path so that a small result does not import
``logging`` (issue 24); what it must not do is lose a warning, or a record an application
asked for by configuring ``logging``.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from elision._lazylog import get_logger

FRESH = """
import sys
from elision._lazylog import get_logger
log = get_logger("elision.test")
log.debug("dropped %s", 1)
log.info("dropped %s", 2)
assert log.isEnabledFor(30) and not log.isEnabledFor(20)
print("logging" in sys.modules, flush=True)
log.warning("shown %s", 3)
print("logging" in sys.modules, flush=True)
"""


def test_unconfigured_it_drops_debug_unloaded_and_still_shows_a_warning() -> None:
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "True"]
    assert done.stderr == "shown 3\n"  # logging's last resort handler, as getLogger gives


@pytest.mark.parametrize("level", [logging.DEBUG, logging.INFO, logging.WARNING])
def test_once_logging_is_configured_every_enabled_record_reaches_it(
    caplog: pytest.LogCaptureFixture, level: int
) -> None:
    log = get_logger("elision.test")
    with caplog.at_level(level, logger="elision.test"):
        log.debug("d %s", 1)
        log.info("i %s", 2)
        log.warning("w %s", 3)
    expected = [m for lv, m in [(10, "d 1"), (20, "i 2"), (30, "w 3")] if lv >= level]
    assert [r.getMessage() for r in caplog.records] == expected
    assert {r.name for r in caplog.records} == {"elision.test"}
    assert {r.funcName for r in caplog.records} == {
        "test_once_logging_is_configured_every_enabled_record_reaches_it"}


def test_once_logging_is_loaded_the_real_logger_is_looked_up_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every redaction asks isEnabledFor(DEBUG); logging.getLogger takes the module lock each
    # time (~1 us, seen as ~7% of a small redact_text), so the real logger is kept once found.
    looked_up: list[str] = []
    real = logging.getLogger

    def counting(name: str | None = None) -> logging.Logger:
        looked_up.append(str(name))
        return real(name)

    monkeypatch.setattr(logging, "getLogger", counting)
    log = get_logger("elision.test.once")
    for _ in range(50):
        log.isEnabledFor(logging.DEBUG)
        log.debug("d")
    assert looked_up == ["elision.test.once"]
