"""``elision proxy`` on the command line: help, and usage errors that name the bad value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["proxy", *args])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def test_help_shows_the_three_ways_to_run_it() -> None:
    code, out = invoke("--help")
    assert code == 0
    for usage in ("-- uvx some-mcp-server", "--upstream-url", "--config servers.json"):
        assert usage in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give exactly one upstream"),  # nothing to proxy
        (("--upstream-url", "http://h/mcp", "--", "cmd"),  # two upstreams at once
         "got a command after --, --upstream-url"),
        (("--upstream-url", "ftp://h/mcp"),  # not streamable HTTP
         "must be an http:// or https:// URL, got 'ftp://h/mcp'"),
        (("--budget", "100", "--", "cmd"),  # below the envelope's minimum
         "budget must be at least 512 bytes, got 100"),
        (("--timeout", "0", "--", "cmd"),  # a call could never succeed
         "--timeout must be a positive number of seconds, got 0.0"),
        (("--store", "x.db", "--no-store", "--", "cmd"),  # contradictory
         "give --store or --no-store, not both"),
        (("--config", "/nonexistent/servers.json"), "cannot read the config"),  # missing file
    ],
)
def test_usage_errors_are_one_line_and_name_the_value(args: tuple[str, ...], message: str) -> None:
    code, out = invoke(*args)
    assert code in (1, 2)
    assert "error: " in out and message in out.replace("\n", " ")


def test_a_bad_listen_address_is_refused_before_anything_starts(tmp_path: Path) -> None:
    from elision.errors import InputError
    from elision.mcp.launch import parse_listen

    assert parse_listen("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:8765") == ("::1", 8765)
    for bad in ("8765", "host:", "host:99999", "host:http"):
        with pytest.raises(InputError, match=repr(bad).replace("[", r"\[")):
            parse_listen(bad)


def test_a_config_that_is_not_json_says_so(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text("{not json")
    code, out = invoke("--config", str(config))
    assert code == 2 and "is not valid JSON" in out
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "args": "not a list"}}}))
    code, out = invoke("--config", str(config))
    assert code == 2 and "args must be a list of strings, got 'not a list'" in out


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], None),  # not given: the environment decides ($ELISION_REQUIRE_AUTH_SCOPE)
        (["--require-auth-scope"], True),  # given: refuse fetches from unnamed HTTP clients
    ],
)
def test_require_auth_scope_flag_reaches_the_proxy(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], expected: bool | None
) -> None:
    import elision.mcp.launch as launch
    import elision.mcp.serve as serve

    seen: dict[str, object] = {}

    def fake_build(**kwargs: object) -> object:
        seen.update(kwargs)
        return object()

    monkeypatch.setattr(launch, "build_proxy", fake_build)
    monkeypatch.setattr(serve, "run_proxy", lambda proxy, **_: None)
    result = CliRunner().invoke(main, ["proxy", *flags, "--", "true"])
    assert result.exit_code == 0, result.output
    assert seen["require_auth_scope"] is expected
