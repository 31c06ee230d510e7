"""servers.json is checked against its documented schema; ``disabled`` and ``unit`` are read.

Found by hand (issue 14, item 12): a misspelt ``"budgt"`` and a top-level ``toolBudgets`` were
ignored without a word, so the budgets a user wrote never applied; ``"disabled": true`` from a
Cline or Windsurf file started the server anyway.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from elision.cli import main
from elision.errors import InputError
from elision.mcp.upstream.config import load_config, parse_config


def server(**extra: Any) -> dict[str, Any]:
    return {"mcpServers": {"ledger": {"command": "python", **extra}}}


@pytest.mark.parametrize(("config", "expected"), [
    # a misspelt server key: named with its path and the key it was meant to be
    (server(budgt=4096), "config: mcpServers.ledger.budgt: unknown key 'budgt'; "
                         "did you mean 'budget'?"),
    # a server key at the top level: where it belongs
    ({**server(), "toolBudgets": {"x": 1024}},
     "config: toolBudgets: unknown key 'toolBudgets'; toolBudgets belongs in a server entry"),
    # a misspelt top-level key
    ({**server(), "timout": 5}, "config: timout: unknown key 'timout'; did you mean 'timeout'?"),
    # a key of another client that means something the proxy cannot do: said so, not ignored
    (server(headers={"X": "y"}), "mcpServers.ledger.headers: unknown key 'headers'; "
                                 "the proxy sends no headers upstream"),
    # nothing close: the keys that are allowed
    (server(zzz=1), "unknown key 'zzz'; the keys here are alwaysAllow, args, autoApprove"),
    # the unit is file-wide
    (server(unit="tokens"), "mcpServers.ledger.unit: unknown key 'unit'; the unit is file-wide"),
    # wrong types, by path, with the value
    (server(args="-m x"), "config: mcpServers.ledger.args must be a list of strings, "
                          "got '-m x'"),
    (server(args=["-m", 3]), "config: mcpServers.ledger.args must be a list of strings "
                             "(item 1 is not)"),
    (server(budget=4096.5), "mcpServers.ledger.budget must be a whole number"),
    (server(disabled="yes"), "mcpServers.ledger.disabled must be true or false, got 'yes'"),
    ({**server(), "unit": "words"}, "config: unit must be one of bytes, chars, tokens, "
                                    "got 'words'"),
    (server(type="sse"), "SSE servers are not supported"),
    # another client's type that disagrees with the entry
    (server(type="http"), "mcpServers.ledger.type is 'http' but the entry has a command"),
])
def test_a_config_that_breaks_the_schema_is_refused_by_path(
    config: dict[str, Any], expected: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_config(config)
    assert expected in str(info.value)


def test_every_problem_is_listed_at_once() -> None:
    config = {"budgt": 1, "mcpServers": {"a": {"command": "x", "timout": 1},
                                         "b": {"url": "http://127.0.0.1:1/mcp", "mod": "auto"}}}
    with pytest.raises(InputError) as info:
        parse_config(config, source="servers.json")
    message = str(info.value)
    assert message.startswith("servers.json has 3 problems:")
    for where in ("budgt", "mcpServers.a.timout", "mcpServers.b.mod"):
        assert f"servers.json: {where}: unknown key" in message


def test_an_env_value_is_never_quoted() -> None:
    with pytest.raises(InputError) as info:
        parse_config(server(env={"TOKEN": ["sk-secret-value-123"]}))
    message = str(info.value)
    assert "mcpServers.ledger.env must map names to strings ('TOKEN' is not)" in message
    assert "sk-secret" not in message


def test_other_clients_keys_that_change_nothing_are_accepted() -> None:
    specs, _ = parse_config(server(type="stdio", autoApprove=["search"], alwaysAllow=[]))
    assert [s.name for s in specs] == ["ledger"]


@pytest.mark.parametrize(("entries", "started"), [
    # the disabled one is left out, the other starts
    ({"a": {"command": "x", "disabled": True}, "b": {"command": "y"}}, ["b"]),
    # disabled false is the default
    ({"a": {"command": "x", "disabled": False}}, ["a"]),
])
def test_a_disabled_server_is_not_started(entries: dict[str, Any], started: list[str]) -> None:
    specs, _ = parse_config({"mcpServers": entries})
    assert [s.name for s in specs] == started


def test_a_config_whose_every_server_is_disabled_says_so() -> None:
    with pytest.raises(InputError, match="every server in \"mcpServers\" is disabled"):
        parse_config(server(disabled=True))


@pytest.mark.parametrize(("file_unit", "cli_unit", "expected"), [
    (None, "bytes", "bytes"),  # nothing said: bytes
    (None, "tokens", "tokens"),  # --unit applies to the file's numbers too
    ("chars", "tokens", "chars"),  # the file's own unit wins for its numbers
])
def test_config_budgets_are_counted_in_the_unit(
    file_unit: str | None, cli_unit: str, expected: str
) -> None:
    config: dict[str, Any] = {"budget": 2048, **server(budget=1024, toolBudgets={"t": 600})}
    if file_unit:
        config["unit"] = file_unit
    specs, file_budget = parse_config(config, unit=cli_unit)
    assert file_budget is not None and file_budget.unit == expected
    assert specs[0].budget is not None and specs[0].budget.unit == expected
    assert specs[0].tool_budgets["t"].unit == expected


def test_the_shipped_schema_is_a_valid_schema_and_accepts_the_readme_example() -> None:
    from elision.mcp.upstream.config_schema import schema

    Draft202012Validator.check_schema(schema())
    example = {"budget": 8192, "timeout": 60, "mcpServers": {
        "ledger": {"command": "python", "args": ["-m", "elision.demo.server"], "env": {},
                   "budget": 16384, "timeout": 30, "toolBudgets": {"search_trades": 4096}},
        "docs": {"url": "http://127.0.0.1:9000/mcp", "mode": "auto", "disabled": True}}}
    assert not list(Draft202012Validator(schema()).iter_errors(example))


def test_load_config_passes_the_unit(tmp_path: Any) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(server(budget=600)))
    specs, _ = load_config(path, unit="tokens")
    assert specs[0].budget is not None
    assert (specs[0].budget.limit, specs[0].budget.unit) == (600, "tokens")


def test_the_proxy_takes_a_unit() -> None:
    result = CliRunner().invoke(main, ["proxy", "--help"])
    assert "--unit [bytes|chars|tokens]" in result.output


def test_the_proxy_refuses_a_budget_below_the_unit_s_minimum(tmp_path: Any) -> None:
    result = CliRunner().invoke(main, ["proxy", "--unit", "tokens", "--budget", "100",
                                       "--no-store", "--no-audit", "--", "true"])
    assert result.exit_code != 0
    assert "budget must be at least 512 tokens, got 100" in result.output
