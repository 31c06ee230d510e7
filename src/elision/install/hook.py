"""``elision install claude-code --hook``: elision's ``PostToolUse`` hook in Claude Code's settings.

The hook (``elision hook claude-code``, :mod:`elision.adapters.claude_hook`) shapes and redacts
the results of the tools the proxy never sees: Bash, Read, WebFetch, Grep. Claude Code reads
hooks from ``~/.claude/settings.json`` (the user's) and ``.claude/settings.json`` (a project's),
as ``{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": …}]}]}}``;
``"*"`` matches every tool.

The install inserts one group into that list (creating ``hooks``, ``PostToolUse`` or the file
when missing) and touches no other byte; the record keeps the inserted text, so uninstall removes
exactly it, and a file edited elsewhere since keeps the edit. A second install finds the hook and
changes nothing.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elision.errors import InputError
from elision.install import jsonc, record
from elision.install.entries import Settings
from elision.install.harnesses import harness
from elision.install.plan import Change, Plan, replace_text

EVENT = "PostToolUse"
#: every tool: Claude Code's matcher "*" (a regex would be ".*"; "*" is what its docs give)
MATCHER = "*"
_WHERE = ("hooks", EVENT)


def settings_paths() -> list[Path]:
    """A project's ``.claude/settings.json``, then the user's (the one created if neither is)."""
    return [Path.cwd() / ".claude" / "settings.json", Path.home() / ".claude" / "settings.json"]


def default_settings() -> Path:
    paths = settings_paths()
    return next((p for p in paths if p.is_file()), paths[-1])


def other_readers(path: Path) -> list[str]:
    """The other harnesses that run the hooks in Claude Code's settings file at ``path``.

    VS Code's agent hooks load ``.claude/settings.json``, ``.claude/settings.local.json`` and
    ``~/.claude/settings.json`` by default (its ``chat.hookFilesLocations``; VS Code docs, "Agent
    hooks"), and its ``PostToolUse`` can add context or block but not replace a result.
    """
    where = path.absolute()
    if where.parent.name == ".claude" and where.name in ("settings.json", "settings.local.json"):
        return ["VS Code (agent hooks)"]
    return []


def hook_command(settings: Settings) -> str:
    """The shell command Claude Code runs: this installation's elision, its store and log."""
    budget = [] if settings.budget is None else ["--budget", str(settings.budget)]
    return shlex.join([*settings.executable, "hook", "claude-code", *budget,
                       "--store", settings.store, "--audit", settings.audit])


def group(settings: Settings) -> dict[str, Any]:
    return {"matcher": MATCHER, "hooks": [{"type": "command", "command": hook_command(settings)}]}


def runs_elision_hook(command: Any) -> bool:
    """Whether a hook's command runs ``elision hook claude-code`` (any path, any options)."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if argv and Path(argv[0]).name.lower() in ("elision", "elision.exe"):
        rest = argv[1:]
    elif argv[1:3] == ["-m", "elision"]:  # python -m elision
        rest = argv[3:]
    else:
        return False
    return rest[:2] == ["hook", "claude-code"]


def elision_groups(doc: Any) -> list[int]:
    """The places in ``hooks.PostToolUse`` of the groups that run elision's hook."""
    post = doc.get("hooks", {}).get(EVENT) if isinstance(doc, dict) and isinstance(
        doc.get("hooks"), dict) else None
    if not isinstance(post, list):
        return []
    return [i for i, g in enumerate(post) if isinstance(g, dict) and isinstance(
        g.get("hooks"), list) and any(isinstance(h, dict) and runs_elision_hook(h.get("command"))
                                      for h in g["hooks"])]


@dataclass(frozen=True)
class _Insertion:
    offset: int
    text: str


def _into_object(text: str, node: jsonc.Node, key: str, value: Any) -> _Insertion:
    member = f"{json.dumps(key)}: "
    unit = jsonc.indent_unit(text)
    if not node.members:
        base = jsonc.line_indent(text, node.start)
        rendered = jsonc.render(value, base=base + unit, unit=unit)
        return _Insertion(node.start + 1, f"\n{base}{unit}{member}{rendered}\n{base}")
    _, key_at, last = node.members[-1]
    if "\n" not in text[node.start:node.end]:
        inline = jsonc.render(value, base="", unit="", inline=True)
        return _Insertion(last.end, f", {member}{inline}")
    indent = jsonc.line_indent(text, key_at)
    return _Insertion(last.end, f",\n{indent}{member}{jsonc.render(value, base=indent, unit=unit)}")


def _into_array(text: str, node: jsonc.Node, value: Any) -> _Insertion:
    unit = jsonc.indent_unit(text)
    if not node.items:
        base = jsonc.line_indent(text, node.start)
        rendered = jsonc.render(value, base=base + unit, unit=unit)
        return _Insertion(node.start + 1, f"\n{base}{unit}{rendered}\n{base}")
    last = node.items[-1]
    if "\n" not in text[node.start:node.end]:
        return _Insertion(last.end, f", {jsonc.render(value, base='', unit='', inline=True)}")
    indent = jsonc.line_indent(text, last.start)
    return _Insertion(last.end, f",\n{indent}{jsonc.render(value, base=indent, unit=unit)}")


def _insertion(text: str, where: str, value: dict[str, Any]) -> _Insertion:
    root = jsonc.parse(text, where)
    if root.kind != "object":
        raise InputError(f"{where} holds a JSON {root.kind}, not the object of settings Claude "
                         "Code reads; fix the file (nothing was changed)")
    hooks = root.get("hooks")
    if hooks is None:
        return _into_object(text, root, "hooks", {EVENT: [value]})
    if hooks.kind != "object":
        raise InputError(f"{where}: \"hooks\" is not an object; fix it (nothing was changed)")
    post = hooks.get(EVENT)
    if post is None:
        return _into_object(text, hooks, EVENT, [value])
    if post.kind != "array":
        raise InputError(f"{where}: \"hooks.{EVENT}\" is not a list; fix it (nothing was "
                         "changed)")
    return _into_array(text, post, value)


def _read(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text; fix the file (nothing was changed)"
                         ) from None


def plan_install(path: Path, settings: Settings) -> Plan:
    current = _read(path)
    text = "{}\n" if current is None else current
    plan = Plan(harness("claude-code"), path, "install", current or "", text)
    change = Change(_WHERE, "elision", "left")
    plan.changes.append(change)
    if elision_groups(jsonc.parse(text, str(path)).value()):
        change.why = "elision's hook is there already"
        return plan
    inserted = _insertion(text, str(path), group(settings))
    plan.after = text[:inserted.offset] + inserted.text + text[inserted.offset:]
    doc = jsonc.parse(plan.after, str(path)).value()
    if len(elision_groups(doc)) != 1:
        raise InputError(f"elision could not add its hook to {path} safely; nothing was "
                         "changed. Please report this file's layout as a bug.")
    change.outcome, change.after = "added", inserted.text
    change.value = {"offset": inserted.offset, "inserted": inserted.text,
                    "created": current is None, "after": plan.after}
    return plan


def plan_uninstall(path: Path) -> Plan:
    current = _read(path)
    plan = Plan(harness("claude-code"), path, "uninstall", current or "", current or "")
    change = Change(_WHERE, "elision", "left")
    plan.changes.append(change)
    if current is None:
        change.why = f"{path} does not exist"
        return plan
    kept = record.load_hook(path)
    present = elision_groups(jsonc.parse(current, str(path)).value())
    if kept is None:
        change.why = ("runs elision's hook, but this install kept no record of it; remove the "
                      f"{EVENT} group whose command runs `elision hook claude-code` by hand"
                      if present else "elision's hook is not there")
        return plan
    if current == kept["after"] and kept["created"]:
        plan.after, change.outcome = "", "removed"  # the install made the file: it goes
        return plan
    if current.count(kept["inserted"]) != 1:
        raise InputError(
            f"{path}: elision's {EVENT} hook changed since it was installed, so uninstall would "
            f"overwrite your edit; nothing was changed. Remove the {EVENT} group whose command "
            "runs `elision hook claude-code` by hand.")
    at = current.index(kept["inserted"])
    plan.after = current[:at] + current[at + len(kept["inserted"]):]
    if elision_groups(jsonc.parse(plan.after, str(path)).value()):
        raise InputError(f"{path} holds another elision hook elision did not add; nothing was "
                         "changed. Remove it by hand.")
    change.outcome = "removed"
    return plan


def write(plan: Plan) -> None:
    """Write the plan, and keep (install) or drop (uninstall) its record."""
    if not plan.changed:
        return
    if plan.action == "install":
        record.save_hook(plan.path, plan.changes[0].value)
        replace_text(plan.path, plan.after, create=True)
        return
    kept = record.load_hook(plan.path)
    if plan.after == "" and kept is not None and kept["created"]:
        plan.path.unlink()
    else:
        replace_text(plan.path, plan.after)
    record.forget_hook(plan.path)
