"""What each route a text takes shows of one line: a text, a JSON string, NDJSON lines, the
proxy's egress gate, and ``shape()`` of a JSON body carrying it in a string. A leak is asked
of all of them: each reads the line by a path of its own."""

from __future__ import annotations

import json

import orjson

from elision import shape
from elision.mcp.gate.egress import Egress
from elision.redact import redact_text, redact_value
from support.engines import trigger_engines, using_engine


def egress(line: str) -> str:
    """What the proxy's egress gate shows of ``line`` in a tool result's text."""
    message = {"jsonrpc": "2.0", "id": 1,
               "result": {"content": [{"type": "text", "text": line}]}}
    out = orjson.loads(Egress().gate_bytes(orjson.dumps(message), "result"))
    return str(out["result"]["content"][0]["text"])


def by_route(line: str) -> dict[str, str]:
    """What each redaction route shows of ``line``, decoded back to text."""
    ndjson = "\n".join(json.dumps({"n": i, "msg": line}) for i in range(3))
    return {
        "text": str(redact_text(f"request sent\n{line}\nresponse 200").value).split("\n")[1],
        "json": str(redact_value({"log": line}).value["log"]),
        "ndjson": "\n".join(json.loads(row)["msg"]
                            for row in str(redact_text(ndjson).value).splitlines()),
        "proxy": egress(line),
    }


def every_route(line: str) -> dict[str, str]:
    """:func:`by_route`'s, and ``shape()``'s of a JSON body carrying ``line`` in a string."""
    shown = by_route(line)
    body = orjson.loads(shape(orjson.dumps({"log": line}), budget=100_000).text)
    shown["shape"] = str(body["log"])
    return shown


def on_every_engine(line: str) -> dict[str, str]:
    """:func:`every_route`'s, on each trigger engine (hyperscan and the regex passes), each
    route's name after its engine's."""
    shown: dict[str, str] = {}
    for engine in trigger_engines():
        with using_engine(engine):
            shown |= {f"{type(engine).__name__}:{route}": text
                      for route, text in every_route(line).items()}
    return shown


def member_routes(name: str, value: str) -> dict[str, str]:
    """What a JSON member ``name: value`` shows of its value: walked as a parsed value
    (``redact_value``), as a JSON text (``redact_text``), and through ``shape()``."""
    member = {name: value}
    return {
        "value": str(redact_value(member).value[name]),
        "text": str(json.loads(str(redact_text(json.dumps(member)).value))[name]),
        "shape": str(orjson.loads(shape(orjson.dumps(member), budget=100_000).text)[name]),
    }


def value_routes(value: object) -> dict[str, str]:
    """What each route that reads a parsed JSON ``value`` shows of it, on each trigger engine:
    the walk (``redact_value``, alone and with the body it was parsed from), the body read as
    a JSON text (``redact_text``), and ``shape()`` of the body."""
    shown: dict[str, str] = {}
    body = orjson.dumps(value)
    for engine in trigger_engines():
        with using_engine(engine):
            at = type(engine).__name__
            shown[f"{at}:value"] = json.dumps(redact_value(value).value)
            shown[f"{at}:value with body"] = json.dumps(
                redact_value(json.loads(body), body=body).value)
            shown[f"{at}:text"] = str(redact_text(json.dumps(value)).value)
            shown[f"{at}:shape"] = shape(body, budget=100_000).text
    return shown
