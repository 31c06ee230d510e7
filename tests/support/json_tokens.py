"""JSON documents generated as token trees, for properties of the parse layer.

Each node carries the text fed to the parser (with whitespace and escapes as a writer might
spell them) and the compact bytes an exact parse must give back, so a property can compare the
two without a second parser as its oracle.
"""

from __future__ import annotations

import json

import orjson
from hypothesis import strategies as st

Token = tuple[str, bytes]  # (text fed to the parser, compact bytes expected back)


def json_documents(
    numbers: st.SearchStrategy[str],
    strings: st.SearchStrategy[str],
    keys: st.SearchStrategy[str],
    whitespace: st.SearchStrategy[str],
    *,
    max_items: int,
    max_leaves: int,
    literals: tuple[str, ...] = ("true", "false", "null"),
) -> st.SearchStrategy[Token]:
    """Documents whose leaves are ``numbers`` (spellings), ``strings`` and ``literals``,
    whose arrays and objects hold up to ``max_items`` members keyed by ``keys``, with
    ``whitespace`` around every token."""

    @st.composite
    def string_tokens(draw: st.DrawFn) -> Token:
        text = draw(strings)
        # Escaped (\u00e9, \ud83d\ude00) and raw spellings must both come back as the raw text.
        spelled = json.dumps(text, ensure_ascii=draw(st.booleans()))
        return spelled, orjson.dumps(text)

    leaves = st.one_of(
        numbers.map(lambda spelling: (spelling, spelling.encode("ascii"))),
        string_tokens(),
        st.sampled_from([(word, word.encode()) for word in literals]),
    )

    @st.composite
    def array_tokens(draw: st.DrawFn, children: st.SearchStrategy[Token]) -> Token:
        items = draw(st.lists(children, max_size=max_items))
        spelled = ",".join(draw(whitespace) + text + draw(whitespace) for text, _ in items)
        expected = b"[" + b",".join(e for _, e in items) + b"]"
        return "[" + (spelled or draw(whitespace)) + "]", expected

    @st.composite
    def object_tokens(draw: st.DrawFn, children: st.SearchStrategy[Token]) -> Token:
        names = draw(st.lists(keys, max_size=max_items, unique=True))
        members = [(name, draw(children)) for name in names]
        spelled = ",".join(
            f"{draw(whitespace)}{json.dumps(name)}{draw(whitespace)}:{draw(whitespace)}{text}"
            f"{draw(whitespace)}"
            for name, (text, _) in members
        )
        expected = b",".join(orjson.dumps(name) + b":" + e for name, (_, e) in members)
        return "{" + (spelled or draw(whitespace)) + "}", b"{" + expected + b"}"

    return st.recursive(
        leaves,
        lambda children: st.one_of(array_tokens(children), object_tokens(children)),
        max_leaves=max_leaves,
    )
