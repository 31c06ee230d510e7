"""The chain's verdict for the viewer: ``elision audit verify`` run once, off the request path.

Verifying recomputes every hash (seconds for 100,000 entries), so it runs in a process of
its own (``python -m elision.view.chain``: a thread would hold the interpreter's lock that
the pages need) when the viewer starts and again when asked; pages show the last verdict,
or that it is still running. The key goes to that process through its environment, never
its command line. The verdict is the verifier's own (:mod:`elision.audit.verify`, which
imports nothing from the writer); this module only words it for one entry.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from elision.audit.verify import VerifyResult, read_checkpoints
from elision.errors import ElisionError


@dataclass
class Verdict:
    """The last verification of the log, or that it is running."""

    running: bool = True
    result: VerifyResult | None = None
    error: str = ""
    finished: float | None = None
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    checkpoint_file: str = ""
    #: session id -> (entries, first seq, last seq), as the verifier read the log.
    sessions: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    def about_log(self) -> tuple[str, str]:
        """``(state, words)``: state is ``ok``, ``bad``, ``unknown`` or ``running``."""
        if self.running and self.result is None and not self.error:
            return "running", "verifying the chain (reload for the verdict)"
        if self.error:
            return "bad", self.error
        assert self.result is not None
        r = self.result
        if r.ok:
            signed = (f"{r.checkpoints} signed checkpoint(s) verified" if r.checkpoints else
                      "no signed checkpoint, so a cut tail or a rewrite of the whole log "
                      "would not show (set ELISION_AUDIT_KEY where the log is written)")
            return ("ok" if r.checkpoints else "unknown",
                    f"{r.entries:,} {'entry verifies' if r.entries == 1 else 'entries verify'}"
                    f"; {signed}")
        return "bad", r.problem or "the log does not verify"

    def about_entry(self, seq: int) -> str:
        """The verdict as it bears on entry ``seq``."""
        if self.result is None:
            return "no verdict yet" if not self.error else "the log could not be verified"
        bad = self.result.first_bad
        if bad is None:
            covered = max((int(c["size"]) for c in self.checkpoints
                           if isinstance(c.get("size"), int)), default=0)
            signed = (f"; a signed checkpoint covers it (size {covered:,})" if covered >= seq
                      else "; no signed checkpoint covers it yet")
            return ("this entry and every entry before it recompute and link" +
                    (signed if self.result.ok else ""))
        if seq < bad:
            return (f"this entry recomputes and links; the chain breaks later, at entry "
                    f"{bad:,}")
        if seq == bad:
            return "the chain breaks at this entry: " + (self.result.problem or "")
        return (f"the chain breaks at entry {bad:,}, before this one: nothing from there on "
                "can be trusted")

    def about_session(self, session: str | None) -> str:
        """The verdict as it bears on the entries of ``session``."""
        if not session:
            return "the entry names no session"
        found = self.sessions.get(session)
        if self.result is None or found is None:
            return "no verdict yet" if self.result is None else (
                "the session was not seen by the last verification (verify again)")
        count, first, last = found
        span = f"{count:,} entr{'y' if count == 1 else 'ies'}, #{first:,} to #{last:,}"
        bad = self.result.first_bad
        if bad is None or bad > last:
            return f"{span}: every one recomputes and links"
        if bad < first:
            return f"{span}: all after the break at entry {bad:,}, so none can be trusted"
        return f"{span}: the chain breaks inside it, at entry {bad:,}"


class ChainWatch:
    """Runs the verifier on a thread and keeps its last verdict."""

    def __init__(self, log_spec: str | Path, *, key: str | None = None) -> None:
        self.log_spec = log_spec
        self.key = key if key is not None else (os.environ.get("ELISION_AUDIT_KEY") or None)
        self.verdict = Verdict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self.verdict = Verdict(result=self.verdict.result, running=True,
                                   checkpoints=self.verdict.checkpoints,
                                   checkpoint_file=self.verdict.checkpoint_file)
            self._thread = threading.Thread(target=self._run, name="elision-view-verify",
                                            daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        import subprocess
        import sys

        verdict = Verdict(running=False)
        env = {k: v for k, v in os.environ.items() if k != "ELISION_AUDIT_KEY"}
        if self.key:
            env["ELISION_AUDIT_KEY"] = self.key
        try:
            done = subprocess.run(
                [sys.executable, "-m", "elision.view.chain", os.fspath(self.log_spec)],
                capture_output=True, env=env, timeout=3600, check=False)
            answer = orjson.loads(done.stdout)
            verdict.error = answer.get("error", "")
            if answer.get("result") is not None:
                verdict.result = VerifyResult(**answer["result"])
            verdict.checkpoints = answer.get("checkpoints", [])
            verdict.sessions = {k: (int(v[0]), int(v[1]), int(v[2]))
                                for k, v in answer.get("sessions", {}).items()}
            verdict.checkpoint_file = answer.get("checkpoint_file", "")
        except (OSError, subprocess.SubprocessError, orjson.JSONDecodeError, TypeError,
                AttributeError):
            verdict.error = "the verifier could not be run; run elision audit verify"
        verdict.finished = time.time()
        with self._lock:
            self.verdict = verdict


def verify_to_json(spec: str) -> bytes:
    """What the verifier's process prints: the verdict, the checkpoints, or the error."""
    from dataclasses import asdict

    out: dict[str, Any] = {}
    key = os.environ.get("ELISION_AUDIT_KEY") or None
    try:
        if spec.startswith(("postgresql://", "postgres://")):
            from elision.audit.pgread import default_pg_checkpoint_path, read_pg_log

            entries, used = read_pg_log(spec)
            path = default_pg_checkpoint_path(spec, used)
        else:
            from elision.audit.verify import read_log

            entries = read_log(spec)
            path = Path(spec).with_name(Path(spec).name + ".checkpoints")
        from elision.audit.verify import verify_against_files

        result = verify_against_files(entries, [path], key=key)
        out["result"] = asdict(result)
        out["sessions"] = _sessions(entries)
        out["checkpoint_file"] = str(path)
        try:
            out["checkpoints"] = read_checkpoints(path)
        except ElisionError:
            out["checkpoints"] = []
    except ElisionError as exc:
        from elision.redact.messages import redact_message

        out["error"] = redact_message(str(exc))
    except Exception as exc:  # the viewer keeps serving; the page says what failed
        out["error"] = f"the verifier failed ({type(exc).__name__}); run elision audit verify"
    return orjson.dumps(out)


def _sessions(entries: list[Any]) -> dict[str, list[int]]:
    """Each session's entry count and first and last position in the log."""
    out: dict[str, list[int]] = {}
    for n, entry in enumerate(entries, start=1):
        session = entry.get("session_id") if isinstance(entry, dict) else None
        if isinstance(session, str) and session:
            found = out.setdefault(session, [0, n, n])
            found[0] += 1
            found[2] = n
    return out


if __name__ == "__main__":
    import sys

    sys.stdout.buffer.write(verify_to_json(sys.argv[1]))
