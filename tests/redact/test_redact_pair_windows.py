"""An array of name/value records is walked a window at a time, its pairs judged together, and
a table's repeated short line is read once (issue 23, the pairsperf task).

Found by ``bench/fuzz_linear.py``'s classes: ``json-pairs`` (a MB of
``{"name": "DB_PASSWORD_i", "value": "v{i}x"}``) cost 536x prose alone and ``shape()`` held
10x the input: each record was walked as a moved object and its pair judged alone (7 us, the
kept tables of distinct values filled and emptied for nothing), and the set of the records'
strings the batch pass told clean was held for the whole walk (2x the body). ``text-pairs``
(the same pair a line, read as a table) read each line a cell at a time. What is withheld is
the same as each record walked alone and each pair judged alone (the differentials below).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import columns, generic, redact_value, walk
from elision.redact.rules import Span
from elision.redact.secrets import credential_pairs, is_credential_field
from elision.redact.walk import Walker, walk_parsed
from elision.shape.jsonparse import parse_json
from support.calls import counted
from support.engines import hyperscan_only
from support.traced import held

_SECRET = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"

#: Names a pair may carry: strong, weak, cursors, the working directory, a scheme's header,
#: affixed, camel, folded, a stub inside, a line break inside, none at all.
_NAMES = st.sampled_from([
    "DB_PASSWORD_7", "db_password", "api_key", "apiKey", "API_KEY_2", "token", "page_token",
    "next_token", "PWD", "OLDPWD", "Authorization", "cookie", "secret", "user", "name", "",
    "pass", "ssh_key", "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44", "pass\u200bword",
    "x\ny_password",
    "password [credential withheld: credential-field]", "/prod/db/password_1",
])
#: Values: a secret, placeholders, messages, paths, URLs, schemes, a stub, numbers, a token
#: of a family, an affixed name's own text, empty and masked, a repeat of a name.
_STRINGS = st.one_of(
    st.sampled_from([
        _SECRET, "", "   ", "xxxxxxxx", "********", "${DB_PASSWORD}", "<password>", "changeme",
        "must be at least 12 characters", "incorrect", "/etc/passwd", "~/.pgpass",
        "https://example.com/x", "C:\\creds\\db", "Bearer abcdefghijklmnop", "Basic dXNlcjpw",
        "[credential withheld: credential-field]", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        f"password={_SECRET}", "sk-" + _SECRET, "v7x", "0000000000", "a" * 200, "/home/me",
        "DB_PASSWORD_7", "line\nbreak", "true",
    ]),
    st.text(max_size=12),
)
_VALUES = st.one_of(
    _STRINGS, _STRINGS, st.integers(-10, 10**12),
    st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(),
)
#: The pair's keys as formats spell them, and keys that are no pair's.
_KEYS = st.sampled_from([("name", "value"), ("key", "value"), ("Name", "Value"),
                         ("Key", "Value"), ("ParameterKey", "ParameterValue"),
                         ("header", "content"), ("name", "content"), ("id", "value")])
#: Members beside the pair: scalars, a string with a token, a lane's, a container.
_EXTRA = st.sampled_from([
    {}, {}, {}, {"n": 1}, {"note": "sk-" + _SECRET}, {"type": "resource"}, {"type": "text"},
    {"disposition": "never"}, {"disposition": "never", "text": "a payload"},
    {"ok": True, "none": None}, {"tags": ["a"]}, {"meta": {"k": 1}},
    {"password": _SECRET}, {"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8": 1},
])


@st.composite
def _record(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 9))
    if kind == 0:  # not a record at all
        return draw(st.sampled_from(["DB_PASSWORD", 5, None, ["x"], [], {}]))
    name_key, value_key = draw(_KEYS)
    name = draw(st.one_of(_NAMES, _NAMES, st.sampled_from([5, None])))
    value: Any = draw(_VALUES) if kind > 1 else draw(st.sampled_from([{"a": _SECRET}, [_SECRET]]))
    record = {name_key: name, value_key: value}
    extra = draw(_EXTRA)
    if draw(st.booleans()):
        return {**extra, **record}  # the pair after other members
    return {**record, **extra}


def _pairs(count: int) -> list[dict[str, str]]:
    return [{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"} for i in range(count)]


def _walked(doc: Any, *, windows: bool) -> tuple[bytes, list[dict[str, Any]]]:
    body = orjson.dumps(doc)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "PAIRS", windows)
        mp.setattr(walk, "TOGETHER", windows)
        mp.setattr(walk, "FLAT", windows)
        mp.setattr(walk, "PAIR_WINDOW", 7)  # many windows, and records cut across them
        done = redact_value(parse_json(body), body=body)
    return orjson.dumps(done.value), [dict(e) for e in done.withheld]


@settings(max_examples=60, deadline=None)
@given(st.lists(_record(), max_size=40), st.integers(40, 90), st.integers(0, 200))
def test_pair_windows_withhold_what_each_record_walked_alone_does(
    mixed: list[Any], count: int, at: int,
) -> None:
    """Hostile records (odd names and values, lanes, containers, non-records) among many
    pairs, walked a window of 7 at a time, withhold what each record walked and each pair
    judged alone withholds: the same value, the same entries in the same order."""
    doc: list[Any] = _pairs(count)
    at = min(at, len(doc))
    doc[at:at] = mixed
    assert _walked(doc, windows=True) == _walked(doc, windows=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=60))
def test_pairs_judged_together_are_judged_as_each_alone(pairs: list[tuple[str, Any]]) -> None:
    names = [name for name, _ in pairs]
    values = [value for _, value in pairs]
    assert credential_pairs(names, values) == [
        is_credential_field(name, value) for name, value in pairs]


@pytest.mark.parametrize("shapes", [True, False])  # names by their shape, or each afresh
def test_pairs_judged_together_follow_the_name_shapes_switch(shapes: bool) -> None:
    names = [f"password_{i}" for i in range(50)] + ["user", "PWD", "apiKey"]
    # a word, a secret, a path, a number, a stub, a bool, an empty value, a mask, a message
    values = ["x", "v1", _SECRET, "/tmp/a", 7, "[credential withheld: credential-field]",
              True, "", "****", "incorrect"] * 5 + [_SECRET, "/home/x", "abc"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "NAME_SHAPES", shapes)
        assert credential_pairs(names, values) == list(map(is_credential_field, names, values))


@hyperscan_only("the records' strings are told together by hyperscan's pass alone")
def test_a_document_of_pairs_is_walked_a_window_at_a_time() -> None:
    """Red before: each of the 5,000 records was a step of the walk's loop (``_enter``)."""
    with pytest.MonkeyPatch.context() as mp:
        entered = counted(mp, Walker, "_enter")
        body = orjson.dumps(_pairs(5000))
        done = redact_value(parse_json(body), body=body)
    assert len(done.withheld) == 5000
    assert len(entered) < 100, len(entered)


@hyperscan_only("the records' strings are told together by hyperscan's pass alone")
def test_the_strings_told_clean_are_held_a_window_at_a_time() -> None:
    """Red before: the set of the records' strings told clean, 2x the body, was held for the
    whole walk. Traced: what a walk holds once it is done, beyond the redacted value (each
    changed record's copy: 4x the body) and the search's serialization and positions."""
    body = orjson.dumps(_pairs(16000))
    value = parse_json(body)
    walk_parsed(Walker(), value, raw=body)  # the judges' tables filled: not this walk's

    def walked() -> Any:
        walker = Walker()
        out = walk_parsed(walker, value, raw=body)
        assert all(new is not old for new, old in zip(out, value, strict=True))
        walker._data = walker._hits = None  # the search's own: what any walk holds
        return walker, out

    def copies() -> list[dict[str, str]]:
        return [{**record, "value": "[credential withheld: credential-field]"}
                for record in value]

    extra = held(walked) - held(copies)
    assert extra < len(body), f"{extra / len(body):.2f}x the body"


_LINE = '{"name":"api_key","value":"abc"}'
_PASSWORD = '{"name":"password","value":"' + _SECRET + '"}'


@pytest.mark.parametrize("text", [
    # the bench class: one JSON pair a line, read as a table, its column named by its header
    (_LINE + "\n") * 300,
    # a password column's cells withheld, the same line again and again
    "user,password\n" + "bob,hunter2hunter2\n" * 50 + "amy,\n" + "bob,hunter2hunter2",
    # \r\n and lone \r line ends, the same line with each
    "user,password\r\n" + "bob,s3cr3t9x\r\n" * 20 + "bob,s3cr3t9x\r" * 20 + "bob,s3cr3t9x\n",
    # a quoted cell over lines: the second line alone reads as another record
    "user,password\n" + 'bob,"multi\nline"\n' * 20 + "line\"\n" * 3,
    # a quoted cell reopened after its quote, doubled quotes, an unclosed quote at the end
    "id,secret\n" + '1,"a""b"c\n' * 10 + '2,"x\n',
    # lines 127-130 chars long then \r\n or \r: about where the search for a break ends
    *("user,password\n" + ("u" * 100 + "," + "p" * n + "\r\n") * 5
      + ("u" * 100 + "," + "p" * n + "\r") * 5 for n in (26, 27, 28, 29)),
    # lines past the longest kept, and a last line with no break
    "user,token\n" + ("u" * 90 + "," + "t" * 90 + "\n") * 5 + "bob,tok",
    # a tab-separated table
    "user\tpassword\n" + "bob\thunter2hunter2\n" * 10,
])
def test_a_tables_kept_lines_withhold_what_each_line_read_does(text: str) -> None:
    assert columns.column_spans(text, []) == _each_line(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([
    "bob,hunter2hunter2", "amy,", 'bob,"a,b"', 'bob,"open', 'close",x', "bob,xxxxxxxx",
    "eve," + _SECRET, 'eve,"' + _SECRET + '"', '"q""q",' + _SECRET, "", "a,b,c", "a" * 130,
]), max_size=30), st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3))
def test_tables_of_repeated_lines_withhold_what_each_line_read_does(
    lines: list[str], breaks: list[str],
) -> None:
    text = "user,password\n" + "".join(
        line + breaks[i % len(breaks)] for i, line in enumerate(lines + lines))
    assert columns.column_spans(text, []) == _each_line(text)


def _each_line(text: str) -> list[Span]:
    """:func:`columns.column_spans` with each record read afresh (no line kept)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_line_record", lambda text, pos, d, named, spans, _: (
            columns._record(text, pos, d, named, spans)))
        return columns.column_spans(text, [])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_STRINGS, st.sampled_from([
    "none", "NULL", "(none)", "Example", "vault:x", "ARN:AWS:x:", "op://a", "file:x", "s3://b",
    "HTTPS://x.y", "c:\\x\\y", "z:/a/b", "./a", "../a", "~/a", "/a/b", "/", "-_-", "x", "X?",
    "#", "abcdefgh", "aaaaaaaa", "a<b>", "${X}", "{{x}}", "$HOME", "%(x)s", "{x}", "[hidden]",
    "incorrect.", "(Required)", "é", "a\u00a0b", "tab\tin", "",
    # a bind parameter's openings (the review of 2026-12-05: told together, withheld)
    ":pass", "@pw", ":1", "?", "@p1", ":password", "$1", "%s", ":hunter", "@lohomora",
])), max_size=40))
def test_values_told_together_stand_for_nothing_as_each_alone(values: list[str]) -> None:
    """Placeholders, messages and locations of every opening, case and spacing, among plain
    one-word values: told together, each is told as it is alone."""
    assert generic.stand_for_nothing(values) == list(map(generic.stands_for_nothing, values))
