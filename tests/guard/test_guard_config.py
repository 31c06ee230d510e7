"""Policies from a TOML config file, and the Guardian as the pipeline's guard stage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from elision.guard.config import ConfigError, load_config
from elision.guard.policy import Decision, RedactionPolicy, SizeCeiling, ToolCall, ToolLists
from elision.guard.policy import ToolResult as Result


class NoNumbers:
    """A user policy: denies any result that mentions a forbidden word."""

    def __init__(self, word: str) -> None:
        self.id = f"no-{word}"
        self.word = word

    def decide(self, result: Result, call: ToolCall) -> Decision:
        if self.word in str(result.value):
            return Decision.deny(f"mentions {self.word!r}")
        return Decision.allow()


def make_policy(**options: Any) -> NoNumbers:
    return NoNumbers(**options)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "guardian.toml"
    path.write_text(text)
    return path


def test_a_full_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "user_policies", sys.modules[__name__])
    config = load_config(write(tmp_path, """
[guardian]
max_bytes = 1_000
allow_tools = ["search"]
deny_tools = ["shell"]
redact = true
on_partial_evidence = "defer"

[[guardian.policies]]
use = "user_policies:make_policy"
options = { word = "forbidden" }

[audit]
log = "/tmp/x/audit.db"
checkpoint_every = 5
"""))
    kinds = [type(p) for p in config.policies]
    assert kinds == [SizeCeiling, ToolLists, RedactionPolicy, NoNumbers]
    assert config.audit_log == Path("/tmp/x/audit.db")
    assert config.checkpoint_every == 5
    assert config.on_partial_evidence == "defer"
    assert load_config(write(tmp_path, "")).on_partial_evidence == "deny"  # fails closed
    verdict = config.guardian().evaluate(Result("a forbidden word", 16, "0" * 64),
                                         ToolCall("search"))
    assert verdict.decision == "deny" and verdict.policy_ids == ("no-forbidden",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[guardian]\nmax_byte = 3\n", "max_byte"),  # a typo must not silently drop a ceiling
        ("[guardian]\nmax_bytes = -1\n", "-1"),  # not a usable ceiling
        ("[guardian]\ndeny_tools = 'shell'\n", "'shell'"),  # a string, not a list
        ("[guardian]\nredact = 'yes'\n", "'yes'"),  # not a boolean
        ("[[guardian.policies]]\nuse = 'nowhere'\n", "'nowhere'"),  # no ':factory'
        ("[[guardian.policies]]\nuse = 'no_such_mod_x:f'\n", "no_such_mod_x"),  # import fails
        ("[guardian\n", "not valid TOML"),  # a syntax error
        ("[guardian]\non_partial_evidence = 'allow'\n", "'allow'"),  # never allow on a prefix
    ],
)
def test_bad_configs_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_config(write(tmp_path, text))


def test_the_audit_key_is_never_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[audit]\nkey = 12345678901234567\n"))
    assert "12345678901234567" not in str(info.value)
