"""A session's ACS ContextEntries as the standard writes them (§8.1, §8.2).

The audit log holds every session's entries in one log-wide chain; each entry the Guardian
decided also carries its place in its session's own chain as the member ``acs``
(``entry_id``, ``previous_hash``, ``entry_hash``: see :mod:`elision.guard.acs_session`). An
auditor with another ACS verifier needs the session's chain as ACS defines it: each
ContextEntry is the log entry without the log's members, with the session's ``entry_id``,
and with that session's ``previous_hash`` and ``entry_hash`` beside it; ``entry_hash`` is the
§8.2 hash of the entry without those two, after ``previous_hash``. This module gives exactly
that object, so ``elision audit show --acs`` can print it in JCS form for any verifier.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from elision.guard.acs_session import context_entry


def acs_sessions(log_entries: Iterable[Any]) -> dict[str, list[dict[str, Any]]]:
    """Each ACS session in the log (in the order it first appears) and its ContextEntries,
    oldest first; entries with no session link (the proxy's own) are left out."""
    sessions: dict[str, list[dict[str, Any]]] = {}
    for entry in log_entries:
        link = entry.get("acs") if isinstance(entry, dict) else None
        if not isinstance(link, dict) or "entry_id" not in link:
            continue
        context = context_entry(entry, str(link["entry_id"]))
        context["previous_hash"] = link.get("previous_hash")
        context["entry_hash"] = link.get("entry_hash")
        sessions.setdefault(str(entry.get("session_id", "")), []).append(context)
    return sessions
