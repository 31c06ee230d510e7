"""Install and uninstall as plans: the file before, the file after, and each entry's fate.

A plan is computed in full before anything is written, so ``--dry-run`` shows exactly what an
install would do, a broken config is refused untouched, and every edit is checked by reading
the new text back and comparing it with what was meant (the rest of the file unchanged, each
rewritten entry equal to its intended value).

Uninstall puts back the exact text each entry had, from the record the install kept
(:mod:`elision.install.record`), and only where the entry still reads as the install left it: an
entry the user edited since is refused, clearly, rather than overwritten.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elision.errors import InputError
from elision.install import jsonc, record, tomlcfg, yamlcfg, yamledit
from elision.install.entries import Settings, classify, read_proxied, rewritten
from elision.install.harnesses import Harness


@dataclass
class Change:
    """One server entry: what happens to it, and its text before and after."""

    container: tuple[str, ...]
    name: str
    #: "proxied", "restored", or "left" (then ``why`` says why)
    outcome: str
    why: str = ""
    start: int = 0
    end: int = 0
    before: str = ""
    after: str = ""
    #: the entry's value before the install (kept in the record, checked on uninstall)
    value: Any = None


@dataclass
class Plan:
    harness: Harness
    path: Path
    action: str
    before: str
    after: str
    changes: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
            fromfile=str(self.path), tofile=f"{self.path} ({self.action}ed)")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class _Located:
    container: tuple[str, ...]
    name: str
    value: Any
    start: int
    end: int
    #: the entry's tree (JSON, YAML) or table (TOML), for edits
    node: Any
    #: where the entry sits in the document: keys, and a list index for Continue's items
    address: tuple[str | int, ...] = ()


def read_config(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"{path} does not exist: add your MCP servers to the harness first, "
                         "or point --config at the file that holds them")
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text; fix the file (nothing was changed)"
                         ) from None


def located_entries(harness: Harness, path: Path, text: str) -> tuple[Any, list[_Located]]:
    """The document's plain value and every server entry with its span."""
    if harness.format == "toml":
        data = tomlcfg.load(text, str(path))
        servers = data.get(harness.containers[0][0])
        if servers is None:
            return data, []
        if not isinstance(servers, dict):
            raise InputError(f"{path}: {harness.containers[0][0]} is not a table")
        blocks = tomlcfg.blocks(text, harness.containers[0][0])
        found = []
        for name, value in servers.items():
            block = blocks.get(name)
            start, end = (block.header_start, block.span_end) if block else (0, 0)
            found.append(_Located(harness.containers[0], name, value, start, end, block))
        return data, found
    if harness.format == "yaml":
        return _yaml_entries(harness, path, text)
    root = jsonc.parse(text, str(path))
    if root.kind != "object":
        raise InputError(f"{path} holds a JSON {root.kind}, not the object of settings "
                         f"{harness.title} reads; fix the file (nothing was changed)")
    found = []
    for container in harness.containers:
        for concrete, node in _walk(root, container, ()):
            if node.kind != "object":
                continue
            for name, _, entry in node.members:
                found.append(_Located(concrete, name, entry.value(), entry.start, entry.end,
                                      entry))
    return root.value(), found


def _walk(node: jsonc.Node, parts: tuple[str, ...],
          done: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], jsonc.Node]]:
    if not parts:
        yield done, node
        return
    if node.kind != "object":
        return
    head, rest = parts[0], parts[1:]
    for name, _, child in node.members:
        if head in ("*", name):
            yield from _walk(child, rest, (*done, name))


def _yaml_entries(harness: Harness, path: Path, text: str) -> tuple[Any, list[_Located]]:
    root = yamlcfg.parse(text, str(path))
    if root is None:
        return {}, []
    if root.kind != "object":
        raise InputError(f"{path} holds a YAML {'list' if root.kind == 'array' else 'scalar'}, "
                         f"not the mapping of settings {harness.title} reads; fix the file "
                         "(nothing was changed)")
    found = []
    for container in harness.containers:
        for concrete, node in _walk(root, container, ()):
            if node.kind == "object":
                for name, _, entry in node.members:
                    found.append(_Located(concrete, name, entry.value(), entry.start,
                                          entry.end, entry, (*concrete, name)))
            elif node.kind == "array" and harness.listed:
                found.extend(_listed(concrete, node))
    return root.value(), found


def _listed(container: tuple[str, ...], node: jsonc.Node) -> list[_Located]:
    """Continue's list of servers, each entry named by its ``name`` (its place if it has no
    name of its own, or one another entry has too)."""
    names = [item.value().get("name") if item.kind == "object" else None for item in node.items]
    found = []
    for i, item in enumerate(node.items):
        name = names[i]
        label = name if isinstance(name, str) and names.count(name) == 1 else f"[{i}]"
        found.append(_Located(container, label, item.value(), item.start, item.end, item,
                              (*container, i)))
    return found


def _set(doc: Any, path: tuple[str | int, ...], value: Any) -> None:
    for part in path[:-1]:
        doc = doc[part]
    doc[path[-1]] = value


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _json_edits(text: str, entry: jsonc.Node, harness: Harness, how: str,
                new: dict[str, Any]) -> list[tuple[int, int, str]]:
    command = entry.get("command")
    if how == "stdio" and command is not None and harness.command_array:
        return [(command.start, command.end, jsonc.render(new["command"], base="", unit=""))]
    if how == "stdio" and command is not None:
        edits = [(command.start, command.end, jsonc.render(new["command"], base="", unit=""))]
        args = entry.get("args")
        rendered = jsonc.render(new["args"], base="", unit="")
        if args is not None:
            edits.append((args.start, args.end, rendered))
        else:
            key_at = next(at for name, at, _ in entry.members if name == "command")
            if "\n" in text[entry.start:key_at]:
                sep = ",\n" + jsonc.line_indent(text, key_at)
            else:
                sep = ", "
            edits.append((command.end, command.end, f'{sep}"args": {rendered}'))
        return edits
    if "\n" not in text[entry.start:entry.end]:  # an entry written on one line stays on one
        return [(entry.start, entry.end, jsonc.render(new, base="", unit="", inline=True))]
    base = jsonc.line_indent(text, entry.start)
    return [(entry.start, entry.end, jsonc.render(new, base=base, unit=jsonc.indent_unit(text)))]


def plan_install(harness: Harness, path: Path, settings: Settings,
                 servers: tuple[str, ...] = ()) -> Plan:
    text = read_config(path)
    try:
        doc, located = located_entries(harness, path, text)
    except yamlcfg.Refused as exc:
        upstream = ["COMMAND", "ARG…"]
        lines = yamledit.by_hand(harness.command_key, settings.executable[0],
                                [*settings.proxy_args(), "--", *upstream])
        raise InputError(f"{exc}. Edit each server entry by hand to "
                         f"read {lines}, COMMAND and ARG… being what it runs now") from None
    names = {loc.name for loc in located}
    unknown = sorted(set(servers) - names)
    if unknown:
        listed = ", ".join(sorted(names)) or "none"
        raise InputError(f"--servers names {', '.join(unknown)}, not in {path} "
                         f"(its servers: {listed})")
    expected = copy.deepcopy(doc)
    plan = Plan(harness, path, "install", text, text)
    edits: list[tuple[int, int, str]] = []
    for loc in located:
        change = Change(loc.container, loc.name, "left", start=loc.start, end=loc.end,
                        before=text[loc.start:loc.end], value=loc.value)
        plan.changes.append(change)
        if servers and loc.name not in servers:
            change.why = "not named in --servers"
            continue
        rewrite = classify(harness, loc.value)
        if not rewrite.how:
            change.why = rewrite.why
            continue
        if harness.format == "toml" and loc.node is None:
            change.why = ("is not written as a [mcp_servers.NAME] table (an inline table or "
                          "dotted keys); write it as one to install elision")
            continue
        new = rewritten(loc.value, harness, rewrite, settings)
        if harness.format == "yaml":
            manual = _yaml_manual(harness, loc.node, rewrite.how, new)
            if manual:
                change.why = manual
                continue
            entry_edits = yamledit.stdio_edits(text, loc.node, harness.command_key,
                                              new[harness.command_key], new["args"])
        elif harness.format == "toml":
            make = tomlcfg.stdio_edits if rewrite.how == "stdio" else tomlcfg.url_edits
            entry_edits = make(text, loc.node, new["command"], new["args"])
        else:
            entry_edits = _json_edits(text, loc.node, harness, rewrite.how, new)
        edits.extend(entry_edits)
        shift = [(s - loc.start, e - loc.start, t) for s, e, t in entry_edits]
        change.outcome, change.after = "proxied", _apply(change.before, shift)
        _set(expected, loc.address or (*loc.container, loc.name), new)
    plan.after = _apply(text, edits)
    _check(harness, path, plan.after, expected)
    return plan


def _yaml_manual(harness: Harness, node: jsonc.Node, how: str, new: dict[str, Any]) -> str:
    """Why a YAML entry is left for the user to edit, with the lines to write; "" if it is not.

    The YAML editor rewrites only a block entry's command and args lines: a remote entry (whose
    type and url lines would change too) and an entry written as ``{…}`` are the user's to edit.
    """
    lines = yamledit.by_hand(harness.command_key, new[harness.command_key], new["args"])
    if how == "url":
        url_key = next(k for k, _ in harness.url_keys if k in node.value())
        return (f"is remote; elision edits only the command and args of a YAML entry, so edit "
                f"it by hand: remove its {url_key} line, set its type to stdio, and write {lines}")
    if node.flow or node.get(harness.command_key) is None or (
            node.get(harness.command_key).kind != "scalar"):  # type: ignore[union-attr]
        return (f"is written as {{…}} on one line, which elision does not edit; edit it by "
                f"hand to read {lines}")
    return ""


def _check(harness: Harness, path: Path, text: str, expected: Any) -> None:
    """The new text must read as exactly the intended document, or nothing is written."""
    if harness.format == "toml":
        got = tomlcfg.load(text, str(path))
    elif harness.format == "yaml":
        got = yamlcfg.load(text, str(path))
    else:
        got = jsonc.parse(text, str(path)).value()
    if got != expected:
        raise InputError(f"elision could not rewrite {path} safely (the edited text would not "
                         "read as intended); nothing was changed. Please report this file's "
                         "layout as a bug.")


def plan_uninstall(harness: Harness, path: Path) -> Plan:
    text = read_config(path)
    doc, located = located_entries(harness, path, text)
    kept = record.load(path)
    plan = Plan(harness, path, "uninstall", text, text)
    edits: list[tuple[int, int, str]] = []
    edited: list[str] = []
    expected = copy.deepcopy(doc)
    for loc in located:
        current = text[loc.start:loc.end]
        change = Change(loc.container, loc.name, "left", start=loc.start, end=loc.end,
                        before=current, after=current)
        plan.changes.append(change)
        proxied = (read_proxied(loc.value, harness.command_key) if isinstance(loc.value, dict)
                   else None)
        if proxied is None:
            change.why = "does not run through elision"
            continue
        entry = kept.get((loc.container, loc.name))
        if entry is None:
            change.why = ("runs through elision, but this install kept no record of it; "
                          "edit it back by hand")
            continue
        if current != entry.after:
            edited.append(loc.name)
            continue
        edits.append((loc.start, loc.end, entry.before))
        change.outcome, change.after = "restored", entry.before
        _set(expected, loc.address or (*loc.container, loc.name), entry.value)
    if edited:
        raise InputError(
            f"{path}: {', '.join(edited)} changed since elision installed "
            f"{'it' if len(edited) == 1 else 'them'}, so uninstall would overwrite your edit; "
            "nothing was changed. Edit the entry back to its command (the part after '--' in "
            "its args) by hand, or reinstall and uninstall.")
    plan.after = _apply(text, edits)
    _check(harness, path, plan.after, expected)
    return plan


def write(plan: Plan) -> None:
    """Write the plan's text in place (atomically, keeping the file's mode) and its record."""
    if not plan.changed:
        return
    if plan.action == "install":
        record.save_install(plan)
    replace_text(plan.path, plan.after)
    if plan.action == "uninstall":
        record.forget(plan)


def replace_text(target: Path, text: str, *, create: bool = False) -> None:
    """Write ``text`` in place of ``target`` atomically, keeping its mode; with ``create``, a
    missing file (and its directory) is made, 0644 as an editor would."""
    if create and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o644
    else:
        mode = target.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
