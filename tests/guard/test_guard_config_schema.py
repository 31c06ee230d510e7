"""guard.toml is checked against its schema: every problem names the file, the key path and
what is expected.

Found in a QA pass: an unknown table (``[guardain]``), an unknown key in a policy entry
(``optionz``) or ``[guardian.policies]`` written as a table instead of ``[[...]]`` were
accepted silently or reported without saying where, so a typo could drop a ceiling or a
policy's options. The schema ships as ``elision/data/guard.schema.json``.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from elision.guard.config import ConfigError, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "guard.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an unknown table: its ceiling would be dropped without a word
        ("[guardain]\nmax_bytes = 3\n", "guardain: unknown key; did you mean 'guardian'?"),
        # a typo in a rule's own keys: its options would be dropped
        ("[[guardian.policies]]\nuse = 'm:f'\noptionz = {a = 1}\n",
         "guardian.policies[1].optionz: unknown key; did you mean 'options'?"),
        # a table where an array of tables is meant
        ("[guardian.policies]\nuse = 'm:f'\n",
         "guardian.policies must be an array of [[guardian.policies]] tables, got a table"),
        # a rule without its factory
        ("[[guardian.policies]]\noptions = {a = 1}\n",
         "guardian.policies[1] must have use = \"package.module:factory\""),
        ("[[guardian.policies]]\nuse = 'nowhere'\n",
         "guardian.policies[1].use must be \"package.module:factory\", got 'nowhere'"),
        ("[[guardian.policies]]\nuse = 'm:f'\noptions = 3\n",
         "guardian.policies[1].options must be a table of keyword arguments (for the "
         "factory), got 3"),
        # wrong types, each named by its path
        ("[guardian]\nmax_bytes = '10MB'\n",
         "guardian.max_bytes must be a positive integer (bytes), got '10MB'"),
        ("[guardian]\nmax_bytes = 0\n", "guardian.max_bytes must be a positive integer"),
        ("[guardian]\nallow_tools = ['ok', 3]\n",
         "guardian.allow_tools[2] must be a tool name (a non-empty string), got 3"),
        ("[guardian]\ndeny_tools = 'shell'\n",
         "guardian.deny_tools must be a list of tool names, got 'shell'"),
        ("[guardian]\nredact = 'yes'\n", "guardian.redact must be true or false, got 'yes'"),
        ("[guardian]\non_partial_evidence = 'allow'\n",
         "guardian.on_partial_evidence must be \"deny\" or \"defer\", got 'allow'"),
        ("[audit]\ncheckpoint_every = true\n",
         "audit.checkpoint_every must be a positive integer (entries), got True"),
        ("[audit]\nlgo = 'x.db'\n", "audit.lgo: unknown key; did you mean 'log'?"),
        ("guardian = 3\n", "guardian must be a table ([guardian]), got 3"),
    ],
)
def test_a_config_off_the_schema_is_refused_naming_file_path_and_expectation(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message  # the file first
    assert expected in message, message


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "[guardian]\nmax_bytes = 'x'\nredact = 1\n[audit]\nlgo = 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: 3 problems")
    assert message.index("audit.lgo") < message.index("guardian.max_bytes")  # by path
    assert "guardian.redact" in message


def test_the_audit_key_is_never_quoted(tmp_path: Path) -> None:
    path = write(tmp_path, "[audit]\nkey = 12345678901234567\n")
    with pytest.raises(ConfigError, match=r"audit\.key must be a string") as info:
        load_config(path)
    assert "12345678901234567" not in str(info.value)


def test_the_shipped_schema_is_a_valid_schema() -> None:
    text = files("elision").joinpath("data/guard.schema.json").read_text("utf-8")
    Draft202012Validator.check_schema(json.loads(text))
