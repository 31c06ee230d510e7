"""What the Guardian keeps per ACS session: the negotiated methods, replay memory, and the
session's own chain (§8: rooted at the session's first entry, ``previous_hash: null``).

Each session's ContextEntries form one chain; the audit log, which holds every session's
entries, chains them all again under elision's signed checkpoints. An entry's session link is
the member ``acs`` of the log entry: ``{"entry_id", "previous_hash", "entry_hash"}``, where
``entry_hash`` is the §8.2 hash of the ContextEntry - the log entry without its log links and
without ``acs``, with ``acs.entry_id`` as its ``entry_id`` - after ``acs.previous_hash``. The
head of that chain is the ``chain_hash`` the Guardian publishes for the session.

Sessions live in memory: a session is bound to the Guardian process it shook hands with.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from elision.audit.chain import entry_hash

#: Request ids (and nonces) remembered per session for replay detection.
REPLAY_MEMORY = 100_000
#: The log's own members, which are not part of a session's ContextEntry.
LOG_MEMBERS = ("entry_id", "entry_hash", "previous_hash", "acs")


@dataclass
class Session:
    session_id: str
    methods: frozenset[str]
    request_ids: OrderedDict[str, None] = field(default_factory=OrderedDict)
    nonces: OrderedDict[str, None] = field(default_factory=OrderedDict)
    size: int = 0
    head: str | None = None
    #: Serializes this session's appends, so its chain never forks.
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remember(self, request_id: str, nonce: str | None) -> str | None:
        """Note a request; what was replayed (``request_id`` or ``nonce``), else ``None``."""
        if request_id in self.request_ids:
            return "request_id"
        if nonce is not None and nonce in self.nonces:
            return "nonce"
        _bounded_add(self.request_ids, request_id)
        if nonce is not None:
            _bounded_add(self.nonces, nonce)
        return None

    def link(self, content: dict[str, Any]) -> dict[str, Any]:
        """``content`` with its session link as ``acs`` (the head moves on :meth:`advance`)."""
        entry_id = str(self.size + 1)
        link = {"entry_id": entry_id, "previous_hash": self.head,
                "entry_hash": entry_hash(context_entry(content, entry_id), self.head)}
        return {**content, "acs": link}

    def advance(self, linked: Mapping[str, Any]) -> str:
        self.size += 1
        self.head = str(linked["acs"]["entry_hash"])
        return self.head


def context_entry(log_entry: Mapping[str, Any], session_entry_id: str) -> dict[str, Any]:
    """The ACS ContextEntry a log entry carries: its content without the log's members, with
    the session's ``entry_id``."""
    body = {k: v for k, v in log_entry.items() if k not in LOG_MEMBERS}
    return {"entry_id": session_entry_id, **body}


def _bounded_add(seen: OrderedDict[str, None], key: str) -> None:
    seen[key] = None
    if len(seen) > REPLAY_MEMORY:
        seen.popitem(last=False)


class Sessions:
    """The sessions this Guardian has shaken hands with."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self, session_id: str, methods: frozenset[str]) -> Session:
        """A handshake: a new session, or a known one with the methods negotiated again
        (its chain and replay memory go on)."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = self._sessions[session_id] = Session(session_id, methods)
            else:
                session.methods = methods
            return session

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            return self._sessions.get(session_id)
