"""Allow and deny lists match a normalized tool name (issue 22).

``--deny-tool shell`` let ``Shell``, fullwidth ``shell``, ``shell`` + U+200B, ``shell`` with
a Cyrillic U+0435 and ``srv/shell`` through: the list matched the name exactly. Found by an
attacker's upstream that renamed its tool until the list missed it.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.guard.names import LOOK_ALIKES, skeleton
from elision.guard.policy import ToolCall, ToolLists, ToolResult

RESULT = ToolResult({"ok": True}, 12, "")


def denied(lists: ToolLists, tool: str, server: str | None = None) -> bool:
    return lists.decide(RESULT, ToolCall(tool, server)).kind == "deny"


@pytest.mark.parametrize(
    ("tool", "server"),
    [
        ("shell", None),
        ("Shell", None),  # case
        ("SHELL", None),
        ("\uff53\uff48\uff45\uff4c\uff4c", None),  # fullwidth: NFKC folds it
        ("shell\u200b", None),  # a zero-width space (Cf)
        ("sh\u200dell", None),  # a zero-width joiner (Cf)
        ("\ufeffshell", None),  # a byte order mark (Cf)
        ("shel\u00adl", None),  # a soft hyphen (Cf)
        ("shell\ufe0f", None),  # a variation selector (Mn, invisible)
        ("sh\u0435ll", None),  # a Cyrillic e (U+0435)
        ("\u0455hell", None),  # a Cyrillic dze (U+0455)
        ("she\u04cfl", None),  # a Cyrillic palochka for an l
        ("SH\u0395LL", None),  # a Greek capital epsilon
        ("srv__shell", None),  # the proxy's <server>__ prefix
        ("srv/shell", None),  # the server/tool form
        ("shell", "srv"),  # a call on a named server
        ("Srv__Sh\u0435ll\u200b", None),  # all of it at once
    ],
)
def test_a_denied_name_is_denied_however_it_is_spelled(tool: str, server: str | None) -> None:
    assert denied(ToolLists(deny=("shell",)), tool, server)


@pytest.mark.parametrize(
    ("pattern", "tool", "server"),
    [
        ("srv/shell", "srv__shell", None),
        ("srv__shell", "shell", "srv"),
        ("srv__shell", "SRV/Shell", None),
        ("*/delete_*", "db__delete_rows", None),
        ("read_*", "files__Read_File", None),
    ],
)
def test_patterns_with_servers_match_every_spelling(pattern: str, tool: str,
                                                    server: str | None) -> None:
    assert denied(ToolLists(deny=(pattern,)), tool, server)


@pytest.mark.parametrize("tool", ["shellcheck", "myshell", "shell_history", "bash", "sh"])
def test_other_names_are_not_denied(tool: str) -> None:
    assert not denied(ToolLists(deny=("shell",)), tool)


@pytest.mark.parametrize(
    ("tool", "allowed"),
    [
        ("search", True),
        ("Search", True),  # case folds
        ("\uff53\uff45\uff41\uff52\uff43\uff48", True),  # fullwidth folds
        ("srv__search", True),  # a server's prefix
        ("s\u0435arch", False),  # a Cyrillic look-alike of an allowed name is another tool
        ("search\u200b", False),  # so is one hiding an invisible character
        ("shell", False),
    ],
)
def test_an_allow_list_refuses_look_alikes(tool: str, allowed: bool) -> None:
    assert denied(ToolLists(allow=("search",)), tool) is not allowed


_INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",
                              "\u202e", "\ufe0f", "\u034f"])
_LETTER_FORMS: dict[str, list[str]] = {}
for _fake, _real in LOOK_ALIKES.items():
    _LETTER_FORMS.setdefault(_real, []).append(_fake)


@st.composite
def spellings(draw: st.DrawFn, name: str) -> str:
    """``name`` re-spelled: each letter in any case, fullwidth or a look-alike, invisible
    characters between, and a server's prefix in front, as a hostile upstream may."""
    out: list[str] = []
    for c in name:
        choices = [c, c.upper(), chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c,
                   *_LETTER_FORMS.get(c, [])]
        out.append(draw(st.sampled_from(choices)))
        if draw(st.integers(0, 4)) == 0:
            out.append(draw(_INVISIBLE))
    prefix = draw(st.sampled_from(["", "srv__", "srv/", "Other__"]))
    return prefix + "".join(out)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), name=st.sampled_from(["shell", "exec", "delete_file", "run_sql"]))
def test_any_spelling_that_reads_as_a_denied_name_is_denied(data: st.DataObject,
                                                            name: str) -> None:
    """Property: a name whose skeleton is a denied name's (after its server prefix) is
    denied; the skeleton is what the normalizer reads."""
    tool = data.draw(spellings(name))
    assert skeleton(tool).split("/")[-1] == name
    assert denied(ToolLists(deny=(name,)), tool)


def test_the_skeleton_removes_every_format_character() -> None:
    # Every assigned Cf character in the BMP: none survives, so none can split a name.
    cf = [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Cf"]
    assert skeleton("sh" + "".join(cf) + "ell") == "shell"


@pytest.mark.parametrize("command", ["proxy", "guardian"])
def test_help_says_names_are_normalized(command: str) -> None:
    from click.testing import CliRunner

    from elision.cli import main

    text = " ".join(CliRunner().invoke(main, [command, "--help"]).output.split())
    assert "NFKC" in text and "look-alike" in text


def test_a_deny_message_quotes_a_huge_or_hostile_name_bounded() -> None:
    """A 200 KB tool name, or one with terminal escapes, was echoed whole in the reason."""
    lists = ToolLists(deny=("shell*",))
    reason = lists.decide(RESULT, ToolCall("shell" + "\x1b[2J" + "x" * 200_000)).reason
    assert len(reason) < 400
    assert "\x1b" not in reason and "200,009 chars" in reason
