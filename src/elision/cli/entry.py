"""The ``elision`` executable: a hook's call answered without loading click.

A harness runs ``elision hook claude-code`` on every tool call, and some run ``elision shape``
as often; click was a tenth of their start (issue 24). So :func:`run` reads those two commands'
arguments itself when they are plain (each option known, given once, with a value click would
take as it is) and calls the same functions their click commands call
(:mod:`elision.cli.actions`). Anything else, or anything click would answer with a message of
its own (``--help``, a budget below 512, a file that is not there, an unknown option, shell
completion), goes to the click group, so every help text, usage error and exit code is click's.
"""

from __future__ import annotations

import codecs
import errno
import functools
import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from typing import Any

from elision.cli._common import reports_errors
from elision.cli.actions import HOOK_BUDGET, HOOK_BUDGET_MIN, HOOK_LINES_MIN, SHAPE_BUDGET

#: A count as click's int types read it and this reader takes it: ASCII digits only (click
#: would also take "+600", " 600" or "6_00"; those go to click).
_COUNT = re.compile(r"[0-9]+")

Options = dict[str, str | bool]


def run() -> None:
    """Answer the command line in ``sys.argv``: plainly when :func:`plain_call` can, else by
    the click group."""
    call = plain_call(sys.argv[1:])
    if call is None:
        from elision.cli.group import main

        main()
        return
    _as_click_would(call)


def plain_call(args: Sequence[str]) -> Callable[[], None] | None:
    """The call that answers ``args`` without click, or ``None`` when click must answer."""
    if not _plain_process():
        return None
    if list(args[:2]) == ["hook", "claude-code"]:
        hook = hook_params(args[2:])
        return None if hook is None else functools.partial(_answer_hook, hook)
    if args[:1] == ["shape"]:
        shape = shape_params(args[1:])
        return None if shape is None else functools.partial(_answer_shape, shape)
    return None


def hook_params(args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters click would call ``elision hook claude-code ARGS`` with, or ``None``
    when this reader is not as sure of them as click (click then reads them)."""
    read = read_options(args, values={"--budget": "budget", "--lines": "lines",
                                      "--store": "store", "--audit": "audit"},
                        flags={"--no-audit": "no_audit"})
    if read is None or read[1]:
        return None
    options = read[0]
    budget = _count(options.get("budget", str(HOOK_BUDGET)))
    lines = _count(options["lines"]) if "lines" in options else None
    if budget is None or budget < HOOK_BUDGET_MIN or (
        "lines" in options and (lines is None or lines < HOOK_LINES_MIN)
    ):
        return None
    return {"budget": budget, "lines": lines, "store": _text(options.get("store")),
            "audit": _text(options.get("audit")), "no_audit": bool(options.get("no_audit"))}


def shape_params(args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters click would call ``elision shape ARGS`` with, or ``None`` (as
    :func:`hook_params`). ``--explain`` draws a table with rich: that is click's path."""
    from elision.budget import UNITS
    from elision.shape import FORMATS

    read = read_options(
        args,
        values={"--budget": "budget", "-b": "budget", "--unit": "unit", "--format": "fmt",
                "--store": "store_spec"},
        flags={"--no-store": "no_store", "--no-redact": "no_redact"},
    )
    if read is None or len(read[1]) > 1:
        return None
    options, files = read
    file = files[0] if files else "-"
    budget = _count(options.get("budget", str(SHAPE_BUDGET)))
    unit, fmt = options.get("unit", "bytes"), options.get("fmt", "auto")
    if budget is None or unit not in UNITS or fmt not in FORMATS or not _readable_file(file):
        return None
    return {"file": file, "budget": budget, "unit": unit, "fmt": fmt, "explain": False,
            "no_store": bool(options.get("no_store")),
            "store_spec": _text(options.get("store_spec")),
            "no_redact": bool(options.get("no_redact"))}


def _answer_hook(params: dict[str, Any]) -> None:
    from elision.cli.actions import claude_code_answer

    answer = reports_errors(claude_code_answer)(sys.stdin.buffer.read(), **params)
    if answer is not None:
        sys.stdout.write(answer + "\n")  # as click.echo writes it to a stream it takes as is
        sys.stdout.flush()


def _answer_shape(params: dict[str, Any]) -> None:
    from elision.cli.actions import shape_and_print

    del params["explain"]  # always False here
    reports_errors(shape_and_print)(**params)


def read_options(
    args: Sequence[str], *, values: dict[str, str], flags: dict[str, str]
) -> tuple[Options, list[str]] | None:
    """``args`` as options (by name) and positional arguments, or ``None`` for anything this
    reader does not take as surely as click: an option it does not know, one given twice, a
    value that is empty or starts with ``-``, ``--``, a positional argument starting with
    ``-`` (other than ``-`` itself), ``--flag=value``."""
    options: Options = {}
    positional: list[str] = []
    rest = iter(args)
    for arg in rest:
        value: str | bool | None
        name, equals, inline = arg.partition("=")
        if equals and arg.startswith("--") and name in values:
            option, value = values[name], inline
        elif arg in values:
            option, value = values[arg], next(rest, None)
        elif arg in flags:
            option, value = flags[arg], True
        elif arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        else:
            return None
        if value is None or option in options or (
            isinstance(value, str) and (not value or value.startswith("-"))
        ):
            return None
        options[option] = value
    return options, positional


def _count(value: str | bool) -> int | None:
    return int(value) if isinstance(value, str) and _COUNT.fullmatch(value) else None


def _text(value: str | bool | None) -> str | None:
    return value if isinstance(value, str) else None


def _readable_file(file: str) -> bool:
    """What click.Path(exists=True, dir_okay=False, allow_dash=True) takes without a word."""
    if file == "-":
        return True
    try:
        mode = os.stat(file).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISDIR(mode) and os.access(file, os.R_OK)


def _plain_process() -> bool:
    """Whether click would write to this process's streams as they are and do nothing of its
    own first: not Windows (it expands arguments there), no shell completion asked for, and
    standard streams whose encoding is known and not ASCII (click rewraps those as UTF-8)."""
    if os.name == "nt" or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return False
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if encoding is None or getattr(stream, "errors", None) is None:
            return False
        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def _as_click_would(call: Callable[[], None]) -> None:
    """Run ``call`` with the endings click's standalone mode gives a command: a closed pipe
    exits 1 quietly, an interrupt writes ``Aborted!`` and exits 1."""
    try:
        call()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # What is still buffered goes nowhere: the reader is gone (Python's own advice for
        # SIGPIPE), so the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\nAborted!\n")
        sys.stderr.flush()
        sys.exit(1)
