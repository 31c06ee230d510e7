"""The YAML reader behind the Goose and Continue targets: what it reads it reads as YAML does
(PyYAML, in the test environment only, is the oracle), and what it does not read it refuses with
the line and column, rather than guessing."""

from __future__ import annotations

import pytest
import yaml

from elision.install import yamlcfg, yamledit

# Each case is in the subset; PyYAML must read it to the same value.
READ = [
    # Goose's layout: a mapping of extensions, a flow list of args, a flow mapping of envs
    "extensions:\n  gh:\n    args: [-y, \"@x/y\"]  # note\n    cmd: npx\n    envs: {A: '1'}\n",
    # Continue's layout: a list of mappings, the first key on the dash line
    "mcpServers:\n  - name: SQLite\n    command: npx\n    args:\n      - \"-y\"\n      - db\n",
    # a list at the same indentation as its key
    "args:\n- a\n- b\nnext: 1\n",
    # the core schema's scalars
    "a: ~\nb: null\nc: true\nd: 12\ne: 0x1f\nf: 1.5\ng: -.inf\nh: text with spaces\n",
    # quoting: '' in single quotes, escapes in double quotes
    "a: 'it''s'\nb: \"tab\\there \\u00e9 \\x41\"\nc: \"#not a comment\"\nd: a#b\n",
    # a document marker, comments and blank lines anywhere
    "---\n# top\n\nkey:   # trailing\n  # inside\n  inner: v\n\n",
    # nested lists, a list item holding a mapping, an empty flow list
    "l:\n  - - x\n    - y\n  - k: v\n    j: []\n  -\n    deep: 1\n",
    # as Goose itself writes it (serde_yaml): block lists at the key's indentation, quoted
    # scalars where a plain one would not do, null and empty collections spelled out
    "extensions:\n  github:\n    args:\n    - -y\n    - '@modelcontextprotocol/server-github'\n"
    "    bundled: null\n    cmd: npx\n    description: null\n    enabled: true\n"
    "    env_keys: []\n    envs: {}\n    name: github\n    timeout: 300\n    type: stdio\n"
    "GOOSE_MODEL: claude-4.5-sonnet\n",
    # Continue's secret templates are plain scalars
    "args:\n  - ${{ secrets.TOKEN }}\n",
    # Windows line ends
    "a: 1\r\nb:\r\n  - x\r\n",
    "",
]


@pytest.mark.parametrize("text", READ)
def test_the_subset_reads_as_yaml_reads_it(text: str) -> None:
    assert yamlcfg.load(text, "t") == (yaml.safe_load(text) or {})


# Each case is outside the subset: refused with where and what.
REFUSED = [
    ("a: &x 1\nb: *x\n", "1:4", "anchor"),
    ("a: !!str 1\n", "1:4", "tag"),
    ("a: |\n  text\n", "1:4", "multi-line (| or >)"),
    ("a: >-\n  text\n", "1:4", "multi-line (| or >)"),
    ("a: plain\n  continued\n", "2:3", "over several lines"),
    ("a: 'quoted\n  on'\n", "1:4", "quoted scalar that goes on"),
    ("a: [1,\n  2]\n", "1:4", "[ ] that goes on over several lines"),
    ("a: {b: 1,\n  c: 2}\n", "1:4", "{ } that goes on over several lines"),
    ("a: 1\n---\nb: 2\n", "2:1", "second document"),
    ("a:\n\t- x\n", "2:1", "tab in indentation"),
    ("a: 1\na: 2\n", "2:1", "'a' appearing twice"),
    ("a: b: c\n", "1:4", "mapping written on one line"),
    ("a: \"\\q\"\n", "1:5", "unknown escape"),
    ("%YAML 1.2\n---\na: 1\n", "1:1", "directive"),
    ("a:\n  - x\n   - y\n", "3:4", "goes on over several lines"),
    ("? complex\n: key\n", "1:1", "starting with '?'"),
]


@pytest.mark.parametrize(("text", "where", "what"), REFUSED)
def test_outside_the_subset_is_refused_with_where_and_what(text: str, where: str,
                                                           what: str) -> None:
    with pytest.raises(yamlcfg.Refused) as caught:
        yamlcfg.load(text, "config.yaml")
    message = str(caught.value)
    assert f"config.yaml:{where}:" in message and what in message
    assert "nothing was changed" in message


@pytest.mark.parametrize("value", ["plain", "", "it's \"q\"", "\\", "tab\tnl\nbell\x07",
                                   "é ünï ☃ 𝄞", "\x85\u2028\ufeff", "#x", "- y", "null",
                                   "12"])
def test_a_quoted_scalar_reads_back_as_the_string_written(value: str) -> None:
    text = f"k: {yamledit.quote(value)}\nl: {yamledit.flow_list([value, value])}\n"
    assert yamlcfg.load(text, "t") == {"k": value, "l": [value, value]}
    assert yaml.safe_load(text) == {"k": value, "l": [value, value]}
