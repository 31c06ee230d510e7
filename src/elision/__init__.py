"""elision: make the results of LLM agent tools fit a size budget honestly.

The pieces of a :class:`Pipeline` are here too: the stores (``Store``, ``MemoryStore``,
``SQLiteStore``, ``open_store``), the guard (``Guardian`` with its ``SizeCeiling`` and
``ToolLists`` policies, adapted by ``GuardStage``), the redactor (``RedactStage``) and the
auditor (``LogAuditor`` over an ``AuditLog``), with the protocols a stage of your own meets
(``Guard``, ``Redactor``, ``Auditor``). They, and ``Pipeline`` itself, are imported when first
used, so ``import elision`` stays cheap: every command imports it first, and ``elision proxy``
starts its server only after that (issue 24).
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from elision.budget import Budget
from elision.errors import (
    BudgetError,
    ElisionError,
    InputError,
    RefExpired,
    RefNotFound,
    SelectorError,
    StoreError,
)
from elision.shape import Shaped, shape

if _TYPE_CHECKING:
    from elision.audit.log import AuditLog
    from elision.audit.stage import LogAuditor
    from elision.guard.policy import Guardian, SizeCeiling, ToolLists
    from elision.guard.stage import GuardStage
    from elision.pipeline import Auditor, Guard, Pipeline, Redactor
    from elision.redact import RedactStage
    from elision.store import MemoryStore, SQLiteStore, Store, open_store

#: Exported names that live in modules loaded on first use, and those modules.
_LAZY = {
    "AuditLog": "elision.audit.log",
    "Auditor": "elision.pipeline",
    "Guard": "elision.pipeline",
    "Pipeline": "elision.pipeline",
    "Redactor": "elision.pipeline",
    "GuardStage": "elision.guard.stage",
    "Guardian": "elision.guard.policy",
    "LogAuditor": "elision.audit.stage",
    "MemoryStore": "elision.store",
    "RedactStage": "elision.redact",
    "SQLiteStore": "elision.store",
    "SizeCeiling": "elision.guard.policy",
    "Store": "elision.store",
    "ToolLists": "elision.guard.policy",
    "open_store": "elision.store",
}


def __getattr__(name: str) -> _Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'elision' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AuditLog",
    "Auditor",
    "Budget",
    "BudgetError",
    "ElisionError",
    "Guard",
    "GuardStage",
    "Guardian",
    "InputError",
    "LogAuditor",
    "MemoryStore",
    "Pipeline",
    "RedactStage",
    "Redactor",
    "RefExpired",
    "RefNotFound",
    "SQLiteStore",
    "SelectorError",
    "Shaped",
    "SizeCeiling",
    "Store",
    "StoreError",
    "ToolLists",
    "open_store",
    "shape",
]
