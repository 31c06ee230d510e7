"""The public API is a small, curated list: adding to it is a decision, so it is tested."""

from __future__ import annotations

import elision
import elision.errors


def test_all_is_sorted_and_exact() -> None:
    assert elision.__all__ == sorted(elision.__all__)
    public = {name for name in dir(elision) if not name.startswith("_")}
    # Submodules are attributes too once imported; the API is what __all__ lists.
    modules = {name for name in public if type(getattr(elision, name)).__name__ == "module"}
    assert set(elision.__all__) == public - modules


def test_the_pieces_of_a_pipeline_are_public() -> None:
    """Issue 14: Store and the guard, redactor and auditor of Pipeline(...) could not be
    imported from elision, so the README could not show how to build one."""
    from elision.audit.log import AuditLog
    from elision.audit.stage import LogAuditor
    from elision.guard.policy import Guardian, SizeCeiling, ToolLists
    from elision.guard.stage import GuardStage
    from elision.pipeline import Auditor, Guard, Redactor
    from elision.redact import RedactStage
    from elision.store import MemoryStore, SQLiteStore, Store, open_store

    for value in (AuditLog, Auditor, Guard, GuardStage, Guardian, LogAuditor, MemoryStore,
                  RedactStage, Redactor, SQLiteStore, SizeCeiling, Store, ToolLists, open_store):
        assert getattr(elision, value.__name__) is value


def test_importing_elision_leaves_the_stages_unloaded() -> None:
    import subprocess
    import sys

    code = ("import sys, elision; print(sorted(m for m in ('elision.guard.policy', "
            "'elision.audit.log', 'elision.store.sqlite') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"
    assert "no attribute 'Nope'" in subprocess.run(
        [sys.executable, "-c", "import elision; elision.Nope"], capture_output=True, text=True,
        timeout=60).stderr


def test_every_error_is_an_elision_error_and_drawn_in_the_docstring() -> None:
    doc = elision.errors.__doc__ or ""
    for name, value in vars(elision.errors).items():
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, elision.errors.ElisionError), name
            assert name in doc, f"{name} is missing from the hierarchy drawn in errors.py"
