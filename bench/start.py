"""How long a server takes to start behind ``elision proxy``, and a hook to answer, side by side.

    .venv/bin/python bench/start.py [--runs 9] [--baseline SRC] [--servers-only]

Each path is a fresh process per run, and the runs go round-robin over the paths so machine
noise hits all alike. For a server it times the ``initialize`` answer, then the
``tools/list`` answer (what a harness waits on before the tools exist) and the answer to a first
``tools/call`` (``account_summary``, a small result: what the agent waits on), over raw JSON-RPC on
stdio, for the bundled demo server run directly (``bare``) and behind the proxy as a harness
starts it (``proxy``: ``python -m elision proxy``, as ``elision install`` writes it when no
``elision`` script is found; store, audit and redaction on, the store and log in a temporary
folder).
For a hook it times one answer of ``elision hook claude-code`` to a two-line Bash result and
``elision shape`` of a 7-byte file, each started as ``python -m elision`` (the command
``elision install --hook`` writes), beside ``python -c pass`` (the floor of any Python
command), with each median's ratio to that floor's and, given ``--baseline``, to the code
before's. Each line gives the median and the spread in seconds, the median CPU seconds and
the median peak RSS (both from the child's own rusage; a proxy's CPU includes its server's,
which it reaps), and for a server its own CPU up to the call's answer without its children's
(``own cpu``, from /proc: for the proxy, what it spends itself). On a shared machine the CPU
figures move less with the load than the times.

Both sources are compiled to bytecode first: where ``PYTHONDONTWRITEBYTECODE`` is set (as on
this project's CI hosts) every run would otherwise compile each module of elision from source,
which an installed package never does.

``--commands-only`` leaves the servers out (a quick look at the hook and shape alone),
``--servers-only`` the commands, and
``--instructions`` also counts each command's instructions once with valgrind's callgrind, a
figure the host's load does not move.
``--baseline SRC`` adds the same proxy and hook paths run from another copy of the source
(``git archive <commit> src | tar -x -C /tmp/base``, then ``--baseline /tmp/base/src``), so a
change is measured before and after in the same run. The target (issue 24): the proxy adds at
most 0.3 s to ``initialize`` over the bare server, and the hook or ``elision shape`` of a small
result answers in at most 100 ms median.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve()
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench-start", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "account_summary", "arguments": {"account": "ACC-0007"}}}
BASH_EVENT = {"session_id": "bench", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "ls"},
              "tool_response": {"stdout": "a.txt\nb.txt\n", "stderr": "", "interrupted": False}}


def _env(src: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _wait(proc: subprocess.Popen[bytes]) -> tuple[float, int]:
    """The child's CPU seconds and peak RSS in KiB, reaped by its own rusage."""
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def own_cpu(pid: int) -> float:
    """CPU seconds the live process ``pid`` has spent itself, without its children's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Started = tuple[float, float, float, float, float, int]


def server_start(command: Sequence[str], env: dict[str, str]) -> Started:
    """Seconds to the ``initialize``, ``tools/list`` and first ``tools/call`` answers; the
    process's own CPU by then; its CPU with its children's at exit; peak RSS."""
    began = time.perf_counter()
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(ident: int) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == ident:
                if "result" not in message:
                    raise SystemExit(f"{command[-1]}: {message}")
                return
        raise SystemExit(f"{' '.join(command)} exited before answering request {ident}")

    send(INITIALIZE)
    answer(1)
    initialized = time.perf_counter() - began
    send(INITIALIZED)
    send(LIST)
    answer(2)
    listed = time.perf_counter() - began
    send(CALL)
    answer(3)
    called = time.perf_counter() - began
    own = own_cpu(proc.pid)
    proc.stdin.close()
    return initialized, listed, called, own, *_wait(proc)


def command_time(
    command: Sequence[str], stdin: bytes, env: dict[str, str]
) -> tuple[float, float, int]:
    began = time.perf_counter()
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    cpu, peak = _wait(proc)
    return time.perf_counter() - began, cpu, peak


def instructions(command: Sequence[str], stdin: bytes, env: dict[str, str]) -> int:
    """Instructions the command runs, counted by valgrind's callgrind: the same on a busy host
    as on an idle one, where times on a shared 2-core host move 2-5x with the load."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *command], input=stdin, capture_output=True, env=env, check=True)
    found = re.search(rb"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count for {command}: {done.stderr[-300:]!r}")
    return int(found.group(1).replace(b",", b""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", metavar="SRC", help="another copy of src/ to compare")
    parser.add_argument("--commands-only", action="store_true",
                        help="time the hook and shape commands only, no server")
    parser.add_argument("--servers-only", action="store_true",
                        help="time the servers only, no hook or shape command")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each command's instructions once (valgrind)")
    args = parser.parse_args()
    # Removed however the run ends: each run left its stores and audit logs behind before.
    with tempfile.TemporaryDirectory(prefix="elision-bench-start-") as folder:
        run(args, Path(folder))


def run(args: argparse.Namespace, work: Path) -> None:
    small = work / "small.txt"
    small.write_bytes(b"hello\n\n")
    py = sys.executable
    demo = [py, "-m", "elision.demo.server"]

    def proxy(tag: str) -> list[str]:
        return [py, "-m", "elision", "proxy", "--store", str(work / f"{tag}.db"),
                "--audit", str(work / f"{tag}-audit.db"), "--", *demo]

    def hook(tag: str) -> list[str]:
        return [py, "-m", "elision", "hook", "claude-code", "--store",
                str(work / f"{tag}.db"), "--audit", str(work / f"{tag}-audit.db")]

    def shape(tag: str) -> list[str]:
        return [py, "-m", "elision", "shape", str(small), "--store", str(work / f"{tag}.db")]

    sources: list[tuple[str, str | None]] = [("", None)]
    if args.baseline:
        sources.append((" (baseline)", str(Path(args.baseline).resolve())))
    for _, src in sources:
        where = src or str(HERE.parents[1] / "src")
        subprocess.run([py, "-m", "compileall", "-q", where], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": where})
    servers = [] if args.commands_only else [("bare", demo, _env(None))] + [
        (f"proxy{label}", proxy(f"p{i}"), _env(src)) for i, (label, src) in enumerate(sources)]
    event = json.dumps(BASH_EVENT).encode()
    commands = [] if args.servers_only else [("python -c pass", [py, "-c", "pass"], b"",
                                               _env(None))]
    for i, (label, src) in enumerate(sources if commands else []):
        commands.append((f"hook claude-code{label}", hook(f"h{i}"), event, _env(src)))
        commands.append((f"shape 7 bytes{label}", shape(f"s{i}"), b"", _env(src)))

    started: dict[str, list[Started]] = {
        name: [] for name, _, _ in servers}
    ran: dict[str, list[tuple[float, float, int]]] = {name: [] for name, *_ in commands}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, command, env in servers:
            started[name].append(server_start(command, env))
        for name, command, stdin, env in commands:
            ran[name].append(command_time(command, stdin, env))
    print(f"{args.runs} runs each, round-robin; load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    if started:
        print(f"{'server':<18} {'initialize':>12} {'tools/list':>12} {'tools/call':>12} "
              f"{'over bare':>10} {'÷ bare':>7} {'own cpu':>9} {'cpu':>9} {'peak MB':>8}")
        bare = statistics.median(t[0] for t in started["bare"])
    for name, runs in started.items():
        init, listed, called, own, cpu = (statistics.median(t[i] for t in runs)
                                          for i in range(5))
        peak = statistics.median(t[5] for t in runs) / 1024
        print(f"{name:<18} {init:>10.3f} s {listed:>10.3f} s {called:>10.3f} s "
              f"{init - bare:>+8.3f} s {init / bare:>6.2f}x {own:>7.3f} s {cpu:>7.3f} s "
              f"{peak:>8.1f}")
    if not ran:
        return
    medians = {name: statistics.median(t for t, _, _ in timed) for name, timed in ran.items()}
    floor = medians["python -c pass"]
    print(f"{'command':<28} {'median':>9} {'÷ pass':>7} {'÷ before':>9} {'min-max':>15} "
          f"{'cpu':>9} {'peak MB':>8}")
    for name, timed in ran.items():
        times = [t for t, _, _ in timed]
        cpu = statistics.median(c for _, c, _ in timed)
        peak = statistics.median(p for _, _, p in timed) / 1024
        before = medians.get(f"{name} (baseline)")
        versus = f"{medians[name] / before:>8.2f}x" if before else f"{'':>9}"
        print(f"{name:<28} {medians[name]:>7.3f} s {medians[name] / floor:>6.1f}x {versus} "
              f"{min(times):>6.3f}-{max(times):.3f} s {cpu:>7.3f} s {peak:>8.1f}")
    if args.instructions:
        # After the timed runs, so each store and audit log is in the state a hook meets.
        counted = {name: instructions(command, stdin, env)
                   for name, command, stdin, env in commands}
        print(f"{'command':<28} {'instructions':>14} {'÷ pass':>7} {'÷ before':>9}")
        for name, count in counted.items():
            before = counted.get(f"{name} (baseline)")
            versus = f"{count / before:>8.2f}x" if before else ""
            print(f"{name:<28} {count / 1e6:>12.1f} M {count / counted['python -c pass']:>6.1f}x "
                  f"{versus}")


if __name__ == "__main__":
    main()
