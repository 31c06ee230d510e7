"""The order the suite hands its files to workers (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _longest_first(config: pytest.Config) -> tuple[str, ...]:
    """The root conftest's list, from the module pytest loaded (importing it again would run
    its set-up twice: a second data directory, a second compile)."""
    for plugin in config.pluginmanager.get_plugins():
        if Path(getattr(plugin, "__file__", "") or "") == ROOT / "tests" / "conftest.py":
            return tuple(plugin.LONGEST_FIRST)
    raise AssertionError("tests/conftest.py is not loaded")


def test_every_file_named_longest_first_exists(request: pytest.FixtureRequest) -> None:
    """A renamed or split file would silently drop out of the head of the queue."""
    missing = [name for name in _longest_first(request.config) if not (ROOT / name).is_file()]
    assert missing == []


def test_the_session_runs_the_longest_files_first(request: pytest.FixtureRequest) -> None:
    """xdist's own order (most tests first) is off, so the collected order is the run's."""
    option = request.config.option
    if hasattr(option, "loadscopereorder"):
        assert option.loadscopereorder is False
    names = [item.nodeid.partition("::")[0] for item in request.session.items]
    heads = [name for name in _longest_first(request.config) if name in names]
    assert [name for name in dict.fromkeys(names) if name in heads] == heads
    if heads:
        assert names[0] == heads[0]
