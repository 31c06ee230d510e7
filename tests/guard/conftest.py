"""Fixtures the Guardian's ACS tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from elision.audit.log import AuditLog


@pytest.fixture
def unkeyed_log(tmp_path: Path) -> Iterator[AuditLog]:
    """An audit log with no checkpoint key: entries are chained, nothing is signed."""
    with AuditLog(tmp_path / "audit.db", key="") as audit_log:
        yield audit_log
