"""Property: for any config a harness could hold, install then uninstall gives back every byte."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.install import HARNESSES, install, uninstall
from support.built import strategies_built

JSON_HARNESSES = sorted(n for n, h in HARNESSES.items() if h.format == "json")

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                max_size=12)
strings = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), strings)
env = st.dictionaries(names, strings, max_size=3)
# The composites' parts, built once: built on every draw they were most of drawing's CPU.
_ENTRY_KINDS = st.sampled_from(["stdio", "stdio", "url", "odd"])
_URL_TYPES = st.sampled_from(["http", "sse", "remote"])
_URL_PATHS = st.text("abc/", max_size=5)
_ARGS = st.lists(strings, max_size=3)
_HARNESS_NAMES = st.sampled_from(JSON_HARNESSES)
_OTHER_SETTINGS = st.dictionaries(st.sampled_from(["theme", "model", "x"]), scalars, max_size=2)
_INDENTS = st.sampled_from([None, 2, 4, "\t"])


@st.composite
def entry(draw: st.DrawFn, array: bool) -> dict[str, Any]:
    kind = draw(_ENTRY_KINDS)
    if kind == "odd":  # something the installer must leave alone
        return {"note": draw(scalars)}
    if kind == "url":
        return {"type": draw(_URL_TYPES),
                "url": "http://127.0.0.1:9/" + draw(_URL_PATHS)}
    program = draw(names)
    args = draw(_ARGS)
    out: dict[str, Any] = {"command": [program, *args]} if array else {
        "command": program, "args": args}
    if draw(st.booleans()):
        out["env"] = draw(env)
    return out


_SERVERS = {array: st.dictionaries(names, entry(array), min_size=1, max_size=4)
            for array in (False, True)}


@st.composite
def config(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(_HARNESS_NAMES)
    h = HARNESSES[name]
    servers = draw(_SERVERS[h.command_array])
    doc: dict[str, Any] = draw(_OTHER_SETTINGS)
    doc[h.containers[0][0]] = servers
    indent = draw(_INDENTS)
    return name, json.dumps(doc, indent=indent, ensure_ascii=draw(st.booleans()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config())
def test_install_then_uninstall_gives_back_every_byte(case: tuple[str, str]) -> None:
    name, text = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        path.write_bytes(text.encode())
        plan = install(name, config=path, store=str(Path(tmp) / "s.db"),
                       audit=str(Path(tmp) / "a.db"))
        servers = json.loads(text)[HARNESSES[name].containers[0][0]]
        # Every stdio entry was rewritten: the property is not met by doing nothing.
        stdio = {n for n, e in servers.items() if "command" in e}
        assert stdio <= {c.name for c in plan.changes if c.outcome == "proxied"}
        assert plan.changed or not stdio
        uninstall(name, config=path)
        assert path.read_bytes() == text.encode()


def test_drawing_configs_builds_no_strategy() -> None:
    """Red before: each draw built its parts again (764-962 strategies for 20 configs). What is
    left is Hypothesis's own: a dictionary filters its keys with a strategy of each draw."""
    assert strategies_built(config(), examples=5) < 30
