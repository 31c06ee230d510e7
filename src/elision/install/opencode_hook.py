"""``elision install opencode --hook``: a plugin file that puts OpenCode's own tools' output
through ``elision hook claude-code``.

OpenCode runs a plugin's ``tool.execute.after`` with the tool's result, whose ``output.output``
is the text the model gets, and uses it as the hook left it (OpenCode 1.18: the object the hook
was given is the one returned). The plugin sends that text to ``elision hook claude-code`` as a
``PostToolUse`` event whose ``tool_response`` has Bash's shape (``stdout``, and the file OpenCode
spilled the whole output to, when it cut it, as ``persistedOutputPath``), and puts the shaped
``stdout`` of the answer in place of the text. An MCP tool's result (``content`` blocks, no
``output`` string) is left alone: the proxy shapes those.

The plugin is a file of its own (``.opencode/plugins/elision.js`` in a project, or
``~/.config/opencode/plugins/elision.js``), which OpenCode loads at start; install writes it and
uninstall deletes it when it is still as written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from elision.errors import InputError
from elision.install import record
from elision.install.entries import Settings
from elision.install.harnesses import harness
from elision.install.plan import Change, Plan

#: the first line of every plugin elision writes, so one is known as elision's
MARKER = "// elision: shapes and redacts what OpenCode's own tools return"

_TEMPLATE = MARKER + """ (bash, read, webfetch, grep…).
// Written by `elision install opencode --hook`; `elision uninstall opencode --hook` removes it.
import { spawnSync } from "node:child_process"

const ELISION = __ARGV__

export const ElisionPlugin = async () => ({
  "tool.execute.after": async (input, output) => {
    if (typeof output?.output !== "string") return // an MCP result: the proxy shapes it
    const response = { stdout: output.output, stderr: "" }
    const spilled = output.metadata?.outputPath // OpenCode cut the text and kept it whole here
    if (typeof spilled === "string" && spilled) response.persistedOutputPath = spilled
    const event = { hook_event_name: "PostToolUse", tool_name: input?.tool ?? "",
                    session_id: input?.sessionID, tool_input: input?.args ?? {},
                    tool_response: response }
    const done = spawnSync(ELISION[0], ELISION.slice(1),
                           { input: JSON.stringify(event), encoding: "utf-8",
                             maxBuffer: 1 << 30 })
    if (done.status !== 0 || !done.stdout || !done.stdout.trim()) return // fits as it is
    let answer
    try { answer = JSON.parse(done.stdout) } catch { return }
    const updated = answer?.hookSpecificOutput?.updatedToolOutput
    const text = typeof updated === "string" ? updated : updated?.stdout
    if (typeof text === "string") output.output = text
  },
})
"""


def plugin_paths() -> list[Path]:
    """A project's plugin folder, then the user's (the one used when the project has none)."""
    value = os.environ.get("XDG_CONFIG_HOME")
    config = Path(value) if value and os.path.isabs(value) else Path.home() / ".config"
    return [Path.cwd() / ".opencode" / "plugins" / "elision.js",
            config / "opencode" / "plugins" / "elision.js"]


def default_plugin() -> Path:
    project, user = plugin_paths()
    return project if project.parent.parent.is_dir() else user


def plugin_text(settings: Settings) -> str:
    budget = [] if settings.budget is None else ["--budget", str(settings.budget)]
    if settings.lines is not None:  # OpenCode keeps a text's first 2,000 lines only
        budget += ["--lines", str(settings.lines)]
    argv = [*settings.executable, "hook", "claude-code", *budget, "--store", settings.store,
            "--audit", settings.audit]
    return _TEMPLATE.replace("__ARGV__", json.dumps(argv, ensure_ascii=False))


def plan_install(path: Path, settings: Settings) -> Plan:
    text = plugin_text(settings)
    current = path.read_text("utf-8") if path.is_file() else None
    plan = Plan(harness("opencode"), path, "install", current or "", current or "")
    change = Change(("plugin",), "elision", "left")
    plan.changes.append(change)
    if current is not None:
        if not current.startswith(MARKER):
            raise InputError(f"{path} exists and is not a plugin elision wrote; nothing was "
                             "changed. Move it away, or pass --config with another file name.")
        change.why = ("elision's plugin is there already" if current == text else
                      "elision's plugin is there already, with other settings: run "
                      "`elision uninstall opencode --hook` first to write it anew")
        return plan
    plan.after = text
    change.outcome, change.after = "added", text
    change.value = {"offset": 0, "inserted": text, "created": True, "after": text}
    return plan


def plan_uninstall(path: Path) -> Plan:
    current = path.read_text("utf-8") if path.is_file() else None
    plan = Plan(harness("opencode"), path, "uninstall", current or "", current or "")
    change = Change(("plugin",), "elision", "left")
    plan.changes.append(change)
    kept = record.load_hook(path)
    if current is None:
        change.why = f"{path} does not exist"
    elif kept is None:
        change.why = ("is elision's plugin, but this install kept no record of it; delete "
                      f"{path} by hand" if current.startswith(MARKER)
                      else "is not a plugin elision wrote")
    elif current != kept["after"]:
        raise InputError(f"{path} changed since elision wrote it, so uninstall would lose "
                         "your edit; nothing was changed. Delete the file by hand.")
    else:
        plan.after, change.outcome = "", "removed"
    return plan
