"""A line whose bulk is one long text is read with the text held once
(elision.mcp.upstream.longtext),
and gives the message the whole parse gives, or the whole parse decides.

The thresholds are shrunk so that lines of a few hundred bytes take the long-text route and
are decoded in many pieces. The old path is ``_parse`` on ``bytes`` (the long-text route only
takes the reader's own ``bytearray``), so each test holds the new reading to it byte for byte
(``repr`` tells 1 from 1.0 and True from 1), and to the SDK's own parser.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.mcp.gate.results import ResultShaper
from elision.mcp.upstream import longtext
from elision.mcp.upstream.stdio import _parse
from elision.pipeline import Pipeline
from support.linereader import read_all


@pytest.fixture(autouse=True)
def tiny() -> Iterator[None]:
    """Texts of 24 bytes and more are long; they are decoded 8 bytes at a time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(longtext, "LONG_TEXT", 24)
        patch.setattr(longtext, "PIECE", 8)
        yield


def _outcome(line: bytes | bytearray) -> tuple[str, str]:
    parsed = _parse(line)
    if isinstance(parsed, Exception):
        return "error", type(parsed).__name__
    return "ok", repr(parsed.message)


def _sdk(line: bytes) -> tuple[str, str]:
    try:
        message = types.jsonrpc_message_adapter.validate_json(
            line.decode("utf-8", "replace"), by_name=False
        )
    except ValueError as exc:
        return "error", type(exc).__name__
    return "ok", repr(message)


def _check(line: bytes) -> Any:
    """The new reading of ``line`` (the long-text route's message, or ``None``), after holding
    what ``_parse`` gives for it to the old path and the SDK; a declined line is untouched."""
    buffer = bytearray(line)
    taken = longtext.read_long_text(buffer)
    if taken is None:
        assert buffer == line  # declined: the whole parse gets the line as it came
    old = _outcome(line)
    new = _outcome(bytearray(line))
    assert new == old
    if old[0] == "ok" or _sdk(line)[0] == "ok":
        assert old[1].split("(")[0] == _sdk(line)[1].split("(")[0] or old == _sdk(line)
    if taken is not None:
        assert ("ok", repr(taken)) == old
        assert buffer == b""  # its bytes were let go
    return taken


def _line(result: str, *, head: str = '"jsonrpc":"2.0","id":7', tail: str = "") -> bytes:
    return ("{" + head + ',"result":' + result + tail + "}").encode("utf-8", "surrogatepass")


def _echoed(
    text: str, echo: str | None = None, *, extra: str = "", head: str = '"jsonrpc":"2.0","id":7'
) -> bytes:
    """MCPServer's wire form: the text, then its ``{"result": ...}`` echo, both spelled
    ``text`` unless ``echo`` spells the echo."""
    return _line('{"content":[{"text":' + text + ',"type":"text"}],"isError":false'
                 ',"structuredContent":{"result":' + (echo or text) + "}" + extra + "}",
                 head=head)


_LOG = json.dumps("2026-12-02T07:00:00Z INFO step ok (took 12ms)\n" * 6)
_JSON = json.dumps(json.dumps([{"id": i, "memo": "settled \"ok\""} for i in range(6)]))


def test_an_echoed_long_text_is_held_once() -> None:
    """Found by bench/proxy.py --peak: the text and its structuredContent echo were two
    strings of N each, beside the line (2N) and orjson's copy of it (2N): 6N for one result."""
    for text in (_LOG, _JSON):
        line = _echoed(text) + b"\n"
        (parsed,) = read_all(line, list(range(0, len(line), 64)))
        assert not isinstance(parsed, Exception)
        message = parsed.message  # type: ignore[attr-defined]
        assert isinstance(message, types.JSONRPCResponse)
        result = message.result
        assert result["content"][0]["text"] == json.loads(text)
        assert result["content"][0]["text"] is result["structuredContent"]["result"]


@pytest.mark.parametrize(("line", "taken"), [
    pytest.param(_echoed(_LOG), True, id="MCPServer's echo"),
    pytest.param(_echoed(_JSON), True, id="a JSON text full of escapes"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}]}"), True,
                 id="no echo"),
    pytest.param(_line('{"structuredContent":{"result":' + _LOG + '},"content":[{"type":"text",'
                       '"text":' + _LOG + "}]}"), True, id="the echo first"),
    pytest.param(_line('{ "content" : [ { "type" : "text" , "text" : ' + _LOG + " } ] , "
                       '"structuredContent" : { "result" : ' + _LOG + " } }\n\t "), True,
                 id="white space everywhere"),
    pytest.param(_echoed(_LOG, extra=',"_meta":{"k":1}').replace(b'"isError":false',
                                                                 b'"isError":true'),
                 True, id="isError and _meta"),
    pytest.param(_echoed(_LOG, _LOG[:-3] + 'X\\n"'), False,
                 id="the echo of a different text of the same length"),
    pytest.param(_echoed('"caf\\u00e9 ' + "x" * 30 + '"', '"café ' + "x" * 30 + '"'), False,
                 id="the echo spelled \\u00e9 where the text has é: a second text, parsed whole"),
    pytest.param(_echoed('"a/b ' + "x" * 30 + '"', '"a\\/b ' + "x" * 30 + '"'), False,
                 id="the echo spelling / as \\/"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + '}],"structuredContent":'
                       '{"result":' + _LOG + '},"structuredContent":{"result":"other"}}'),
                 False, id="structuredContent twice: the echo shadowed, so one text is missing"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + ',"text":"short"}]}'),
                 False, id="text twice in a block: msgspec and orjson both keep the last"),
    pytest.param(_line('{"content":[{"type":"text","text":"short"},{"type":"text","text":'
                       + _LOG + '}],"content":[{"type":"text","text":' + _LOG + "}]}"),
                 False, id="content twice: a text shadowed"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + '},{"type":"text",'
                       '"text":' + _LOG + "}]}"), True, id="a second block of the same text"),
    pytest.param(_echoed(_LOG, head='"jsonrpc":"2.0","id":18446744073709551616'), False,
                 id="an id past 64 bits"),
    pytest.param(_echoed(_LOG, extra=',"n":123456789012345678901234567890'), False,
                 id="a number past 64 bits beside the text"),
    pytest.param(_echoed('"' + "x" * 30 + '\\ud800 tail"'), False, id="a lone surrogate escape"),
    pytest.param(_echoed('"' + "x" * 30 + '\\udc00 tail"'), False, id="a lone low surrogate"),
    pytest.param(_echoed('"' + "\\ud83d\\ude00" * 30 + '"'), True,
                 id="surrogate pairs across every piece's edge"),
    pytest.param(_echoed('"' + "x" * 30 + '"').replace(b"x" * 30, b"x" * 29 + b"\xff"), False,
                 id="a byte that is not UTF-8 in the text"),
    pytest.param(_echoed('"' + "é" * 30 + '"').replace("é".encode(), b"\xc3", 1), False,
                 id="a UTF-8 character cut short"),
    pytest.param(_echoed('"' + "x" * 30 + '\\q"'), False, id="an invalid escape"),
    pytest.param(_echoed('"' + "x" * 30 + '\\u12"'), False, id="a short unicode escape"),
    pytest.param(_echoed('"' + "x" * 30 + '\t"'), False, id="a raw tab in the text"),
    pytest.param(_echoed('"' + "\\\\" * 60 + '\\"' * 50 + '"'), True,
                 id="runs of escaped backslashes and quotes"),
    pytest.param(_echoed('"' + "日本語" * 40 + '"'), True, id="no ASCII at all"),
    pytest.param(_line('{"note":"a\\' + _LOG + ',"content":[{"type":"text","text":' + _LOG
                       + "}]}"), False, id="the text's bytes inside another string first"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + '}],"structuredContent":{'
                       + _LOG + ":1}}"), False, id="the text as a key"),
    pytest.param(_echoed(_LOG, head='"jsonrpc":"2.0","id":' + _LOG), False,
                 id="the text as the id"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}]}",
                       head='"jsonrpc":"2.0","id":1,"method":"tools/call"'), False,
                 id="a request beside a result"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}]}",
                       head='"jsonrpc":"1.0","id":1'), False, id="not JSON-RPC 2.0"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}]}", tail=' "x"'),
                 False, id="trailing bytes"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}]"), False,
                 id="cut short"),
    pytest.param(_line('{"content":[{"type":"text","text":' + _LOG + "}],"
                       '"pad":"' + "y" * 400 + '"}'), False, id="more besides the text than it"),
    pytest.param(_line('{"content":[{"type":"resource","resource":{"uri":"file:///a.log",'
                       '"mimeType":"text/plain","text":' + _LOG + "}}]}"), True,
                 id="the text of an embedded resource"),
    pytest.param(_line('{"content":[{"type":"resource","resource":"file:///a.log","text":'
                       + _LOG + "}]}"), False, id="a resource that is no object: not skimmed"),
    pytest.param(_line('{"content":[{"type":"text","text":"short"}]}'), False, id="no long text"),
    pytest.param(_line('{"content":[{"type":"image","data":' + _LOG + ',"mimeType":"x"}]}'),
                 False, id="a long value that is no text"),
])
def test_sharp_edges_read_as_the_whole_parse_reads_them(line: bytes, taken: bool) -> None:
    assert (_check(line) is not None) is taken


# Texts with what a writer may put in them: escapes, quotes, backslashes, surrogate pairs,
# characters of every width; spelled with escapes or raw, and with / escaped or not.
_texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from(
    ['"', "\\", "\n", "/", "é", "😀", "\u2028", "\x00"]), min_size=0, max_size=60)


@st.composite
def _spelled(draw: st.DrawFn, text: str) -> str:
    spelling = json.dumps(text, ensure_ascii=draw(st.booleans()))
    return spelling.replace("/", "\\/") if draw(st.booleans()) else spelling


@st.composite
def _results(draw: st.DrawFn) -> bytes:
    # Repeated, so that many texts outweigh the message around them and take the route.
    text = draw(_texts.filter(bool)) * draw(st.integers(4, 40))
    spelling = draw(_spelled(text))
    ws = draw(st.sampled_from(["", " ", "\n"]))
    blocks = [f'{{"type":"text",{ws}"text":{spelling}}}' if draw(st.integers(0, 3)) else
              f'{{"type":"resource","resource":{{"uri":"file:///x","text":{spelling}}}}}']
    if draw(st.booleans()):
        blocks.insert(draw(st.integers(0, 1)), f'{{"type":"text","text":{draw(_spelled(text))}}}')
    members = [f'"content":[{",".join(blocks)}]']
    # Weighted to the forms servers send, so that most examples take the route.
    echo = draw(st.sampled_from(["same"] * 4 + ["none"] * 2 + ["respelled", "other", "key",
                                                               "bad"]))
    if echo == "same":
        members.append(f'"structuredContent":{{"result":{ws}{spelling}}}')
    elif echo == "respelled":
        members.append(f'"structuredContent":{{"result":{draw(_spelled(text))}}}')
    elif echo == "other":
        members.append(f'"structuredContent":{{"result":{json.dumps(draw(_texts))}}}')
    elif echo == "key":
        members.append(f'"structuredContent":{{{spelling}:1}}')
    elif echo == "bad":
        members.append('"structuredContent":{"result":"\\ud800"}')
    if draw(st.booleans()):
        members.append(f'"isError":{draw(st.sampled_from(["true", "false", "1"]))}')
    if draw(st.integers(0, 3)) == 0:
        members.append(f'"_meta":{{"n":{draw(st.sampled_from(["1", "1.0", "1e400", "2"]))}}}')
    order = draw(st.permutations(members))
    ident = draw(st.sampled_from(["1"] * 4 + ['"a"', "18446744073709551616", "1.5", spelling]))
    body = f'{{"jsonrpc":"2.0",{ws}"id":{ident},"result":{{{",".join(order)}}}}}'
    return body.encode("utf-8", "surrogatepass")


def _shaped(line: bytes | bytearray) -> str:
    """What the proxy sends for the result on ``line``: the ResultShaper's output."""
    parsed = _parse(line)
    if isinstance(parsed, Exception) or not isinstance(parsed.message, types.JSONRPCResponse):
        return "no result"
    try:
        result = types.CallToolResult.model_validate(parsed.message.result, by_name=False)
    except ValueError as exc:
        return type(exc).__name__
    shaped = ResultShaper(Pipeline(budget=Budget(512))).shape(result, tool="t", server="s")
    return shaped.model_dump_json(by_alias=True, exclude_none=True)


@given(_results())
@settings(max_examples=150)
@example(_echoed('"' + "\\ud83d\\ude00" * 30 + '"'))
@example(_echoed('"' + "a\\\\" * 100 + '"'))
def test_generated_results_read_and_shape_as_the_whole_parse_does(line: bytes) -> None:
    _check(line)
    assert _shaped(bytearray(line)) == _shaped(line)


@given(_texts.filter(bool), st.integers(1, 30), st.booleans(), st.integers(1, 12))
@example("\\" * 40 + "tail", 3, False, 8)  # a run of escaped backslashes longer than a piece
@example("😀", 40, True, 8)  # surrogate pairs, a cut before each high half
@example("日本", 40, False, 4)  # no ASCII: cuts between characters
def test_pieces_decode_apart_as_the_whole_literal_decodes(
    text: str, times: int, ascii_only: bool, piece: int
) -> None:
    """The cutting rule alone: spans that cover the literal's inside, each of a piece's length
    or more (but the last), and decode apart to what the whole decodes to."""
    literal = json.dumps(text * times, ensure_ascii=ascii_only).encode()
    line = bytearray(b"[" + literal + b"]")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(longtext, "PIECE", piece)
        spans = list(longtext._pieces(line, 2, len(line) - 2))
    assert spans[0][0] == 2 and spans[-1][1] == len(line) - 2
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(b - a >= piece for a, b in spans[:-1])
    # Past a run of backslashes (no clean cut inside one), the next window cuts again.
    run = max((len(r) for r in re.findall(rb"\\+", literal)), default=0)
    assert all(b - a <= run + 2 * piece + 12 for a, b in spans)
    decoded = "".join(json.loads(b'"' + line[a:b] + b'"') for a, b in spans)
    assert decoded == text * times
