"""Open the audit log a spec names: a ``postgresql://`` URL or a SQLite file.

Front ends (proxy, Guardian) call :func:`open_audit_log` instead of a backend's class, so
``--audit postgresql://…`` gives every replica one shared chain. psycopg is imported only
for a URL: a SQLite user need not install the ``postgres`` extra.
"""

from __future__ import annotations

import os
from typing import Any

from elision.audit.pgread import is_pg_url
from elision.errors import AuditError


def open_audit_log(spec: str | os.PathLike[str] | None = None, **options: Any) -> Any:
    """A :class:`~elision.audit.pglog.PgAuditLog` for a URL, else an
    :class:`~elision.audit.log.AuditLog` (``None``: ``$ELISION_AUDIT``, else the default
    file). Both take the same options (``key``, ``checkpoint_path``, ``checkpoint_every``,
    ``origin``) and have the same methods."""
    if spec is None:
        spec = os.environ.get("ELISION_AUDIT") or None
    if is_pg_url(spec):
        try:
            from elision.audit.pglog import PgAuditLog
        except ImportError:
            raise AuditError(
                "a postgresql:// audit log needs psycopg; install elision[postgres], or give "
                "a SQLite file path"
            ) from None
        assert isinstance(spec, str)
        return PgAuditLog(spec, **options)
    from elision.audit.log import AuditLog

    return AuditLog(spec, **options)
