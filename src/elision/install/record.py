"""What an install changed, kept so that uninstall can put each entry back byte for byte.

One JSON file per config file, in elision's data directory (``installs/``), keyed by the config
file's absolute path. For every rewritten entry it keeps the text before and after and the
value before; for a hook (``install claude-code --hook``), the text inserted and where. A
second install into the same file adds to the record; an uninstall removes what it restored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elision.errors import InputError
from elision.private import make_private_dir, problem, write_private
from elision.store import default_store_path

if TYPE_CHECKING:
    from elision.install.plan import Plan

Key = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class Kept:
    before: str
    after: str
    value: Any


def record_path(config: Path) -> Path:
    name = hashlib.sha256(str(config.resolve()).encode()).hexdigest()[:32]
    return default_store_path().parent / "installs" / f"{name}.json"


def _read(config: Path) -> dict[str, Any]:
    path = record_path(config)
    if not path.is_file():
        return {"config": str(config.resolve()), "entries": []}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"elision's install record {path} cannot be read ({exc}); move it "
                         "away to uninstall by hand") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise InputError(f"elision's install record {path} is not one elision wrote; move it "
                         "away to uninstall by hand")
    return data


def load(config: Path) -> dict[Key, Kept]:
    out: dict[Key, Kept] = {}
    for item in _read(config)["entries"]:
        key = (tuple(item["container"]), item["name"])
        out[key] = Kept(item["before"], item["after"], item["value"])
    return out


def _write(config: Path, data: dict[str, Any]) -> None:
    path = record_path(config)
    if not data["entries"] and not data.get("hook"):
        path.unlink(missing_ok=True)
        return
    # It holds the entries as they were, `env` tokens and headers included (uninstall puts
    # them back): as private as the 0600 config they came from, or more.
    make_private_dir(path.parent)
    refused = problem(path.parent, "elision's install record directory")
    if refused:
        raise InputError(refused)
    write_private(path, json.dumps(data, indent=1, ensure_ascii=False).encode("utf-8"))


def save_install(plan: Plan) -> None:
    data = _read(plan.path)
    by_key = {(tuple(e["container"]), e["name"]): e for e in data["entries"]}
    for change in plan.changes:
        if change.outcome == "proxied":
            by_key[(change.container, change.name)] = {
                "container": list(change.container), "name": change.name,
                "before": change.before, "after": change.after, "value": change.value,
            }
    data["harness"] = plan.harness.name
    data["entries"] = list(by_key.values())
    _write(plan.path, data)


def forget(plan: Plan) -> None:
    data = _read(plan.path)
    restored = {(c.container, c.name) for c in plan.changes if c.outcome == "restored"}
    data["entries"] = [e for e in data["entries"]
                       if (tuple(e["container"]), e["name"]) not in restored]
    _write(plan.path, data)


def load_hook(config: Path) -> dict[str, Any] | None:
    """What ``install --hook`` inserted into ``config`` (:mod:`elision.install.hook`)."""
    hook = _read(config).get("hook")
    return hook if isinstance(hook, dict) else None


def save_hook(config: Path, inserted: dict[str, Any]) -> None:
    data = _read(config)
    data["hook"] = inserted
    _write(config, data)


def forget_hook(config: Path) -> None:
    data = _read(config)
    data.pop("hook", None)
    _write(config, data)
