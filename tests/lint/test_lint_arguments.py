"""Arguments made from input schemas, and the verdicts on tools that gave no answer to judge.

Found by hand (issue 14, item 9): with no scenarios the lint called nothing and said PASS;
rules 3 and 4 passed on zero answers; a text log showing 1 of 2,000 commits with no count
passed rule 3; a 5,000-entry listing wrapped in ``{"content": text}`` passed rule 2.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from jsonschema import Draft202012Validator

from elision.lint.arguments import ArgumentsError, generate_arguments
from elision.lint.judge import judge_tool
from elision.lint.rules import Response
from elision.lint.runner import response_of


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props,
            "required": list(props) if required is None else required, **extra}


@pytest.mark.parametrize(("schema", "expected"), [
    # no arguments at all
    ({"type": "object", "properties": {}}, {}),
    # optional properties are left to the server's defaults
    (obj({"q": {"type": "string"}}, required=[]), {}),
    # ... unless the schema suggests a value for them
    (obj({"q": {"type": "string", "default": "x"}}, required=[]), {"q": "x"}),
    # const, enum (first non-null), default, examples, in that order
    (obj({"a": {"const": 3}, "b": {"enum": [None, "on"]}, "c": {"type": "integer", "default": 7},
          "d": {"type": "string", "examples": ["e.g."]}}),
     {"a": 3, "b": "on", "c": 7, "d": "e.g."}),
    # string formats
    (obj({"d": {"type": "string", "format": "date"}, "t": {"type": "string",
          "format": "date-time"}, "m": {"type": "string", "format": "email"},
          "u": {"type": "string", "format": "uri"}}),
     {"d": "2026-01-01", "t": "2026-01-01T00:00:00Z", "m": "user@example.com",
      "u": "https://example.com/"}),
    # a pattern picks a candidate that matches; lengths are met
    (obj({"repo": {"type": "string", "pattern": "^[a-z]+/[a-z]+$"},
          "code": {"type": "string", "minLength": 10}, "tiny": {"type": "string",
          "maxLength": 2}}),
     {"repo": "a/b", "code": "exampleaaa", "tiny": "ex"}),
    # numbers within bounds
    (obj({"n": {"type": "integer", "minimum": 5}, "x": {"type": "number", "maximum": 0.5},
          "e": {"type": "integer", "exclusiveMinimum": 9}, "m": {"type": "integer",
          "minimum": 2, "multipleOf": 4}}),
     {"n": 5, "x": 0.5, "e": 10, "m": 4}),
    # booleans, null, a type list takes its first non-null type
    (obj({"b": {"type": "boolean"}, "z": {"type": "null"}, "l": {"type": ["null", "integer"]}}),
     {"b": False, "z": None, "l": 1}),
    # nested objects and arrays with minItems
    (obj({"w": obj({"since": {"type": "string", "format": "date"}}),
          "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2}}),
     {"w": {"since": "2026-01-01"}, "tags": ["example", "example"]}),
    # anyOf / oneOf take the first option that is not null; allOf is merged
    (obj({"a": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 3}]},
          "o": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
          "m": {"allOf": [obj({"x": {"type": "integer"}}), obj({"y": {"type": "boolean"}})]}}),
     {"a": 3, "o": "2026-01-01", "m": {"x": 1, "y": False}}),
    # a local $ref (as pydantic writes nested models)
    (obj({"w": {"$ref": "#/$defs/W"}}, **{"$defs": {"W": obj({"days": {"type": "integer",
                                                                        "minimum": 1}})}}),
     {"w": {"days": 1}}),
    # an optional limit-like argument is left out: the limit call sets it to 1
    (obj({"limit": {"type": "integer", "default": 20}}, required=[]), {}),
    # a required one gets a large page
    (obj({"limit": {"type": "integer", "maximum": 50}}), {"limit": 50}),
])
def test_arguments_follow_the_schema_and_validate(
    schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    from elision.lint.rules import limit_argument

    arguments = generate_arguments(schema, limit_argument(schema))
    assert arguments == expected
    assert not list(Draft202012Validator(schema).iter_errors(arguments))


def test_arguments_that_cannot_satisfy_the_schema_are_refused_with_the_reason() -> None:
    schema = obj({"x": {"type": "string", "pattern": "^zz[0-9]{3}$"}})
    with pytest.raises(ArgumentsError, match=r"arguments\.x: 'example' does not match"):
        generate_arguments(schema)


def text(body: str, limit: int | None = None, is_error: bool = False) -> Response:
    return Response("r" if limit is None else "r at 1", body.encode(), is_error, None, limit)


def test_a_text_answer_cut_by_the_limit_with_no_count_fails_rule_3() -> None:
    log = [f"commit {i:040x}" for i in range(30)]
    report = judge_tool("commits", obj({"limit": {"type": "integer"}}, required=[]), None,
                        [text("\n".join(log))], [text(log[0], limit=1)])
    verdict = report.verdicts[2]
    assert verdict.status == "fail"
    assert verdict.evidence == [
        "r at 1: text answer of 1 data line at limit=1, where the call without it showed 30, "
        "and no line says how much there is or how to get more; say shown-of-total, e.g. "
        "'1 of 2,000 commits shown'"]


def test_the_same_cut_that_says_shown_of_total_keeps_rule_3() -> None:
    log = [f"commit {i:040x}" for i in range(30)]
    report = judge_tool("commits", obj({"limit": {"type": "integer"}}, required=[]), None,
                        [text("\n".join(log))],
                        [text("1 of 2,000 commits shown\n" + log[0], limit=1)])
    assert report.verdicts[2].status == "pass"


@pytest.mark.parametrize(("lines", "status"), [
    (5000, "fail"),  # the filesystem server's listing: nothing bounds it
    (100, "pass"),  # at the threshold
])
def test_a_long_text_answer_from_a_tool_without_a_limit_fails_rule_2(
    lines: int, status: str
) -> None:
    body = "\n".join(f"[FILE] f{i}.txt" for i in range(lines))
    report = judge_tool("list", obj({"path": {"type": "string"}}), None, [text(body)], [])
    assert report.verdicts[1].status == status


@pytest.mark.parametrize("key", ["content", "result", "text"])
def test_structured_content_that_wraps_the_text_is_read_as_text(key: str) -> None:
    listing = "\n".join(f"[FILE] f{i}.txt" for i in range(3))
    answer = response_of(types.CallToolResult(
        content=[types.TextContent(text=listing)], structured_content={key: listing}), "r")
    assert answer.scan is None and answer.body == listing.encode()


def test_only_error_answers_exercise_nothing_and_no_rule_passes() -> None:
    schema = obj({"account": {"type": "string"}})
    output = {"type": "object", "properties": {"balance": {"type": ["number", "null"]}}}
    report = judge_tool("t", schema, output, [text("no such account", is_error=True)], [])
    assert report.exercised is False
    assert [v.status for v in report.verdicts] == ["not exercised"] * 4
    # rule 4 reads the schema, but a schema is not an answer
    assert "no answer to read" in report.verdicts[3].evidence[-1]


@pytest.mark.parametrize(("annotations", "called"), [
    (None, True),  # nothing said: called with made-up arguments
    (types.ToolAnnotations(destructive_hint=True), False),  # says it destroys: scenario only
    (types.ToolAnnotations(destructive_hint=False), True),
    (types.ToolAnnotations(read_only_hint=True, destructive_hint=True), True),  # read-only wins
])
def test_a_destructive_tool_is_called_only_by_a_scenario(
    annotations: types.ToolAnnotations | None, called: bool
) -> None:
    from elision.lint.runner import plan
    from elision.lint.scenarios import Scenario

    tool = types.Tool(name="drop", input_schema=obj({"table": {"type": "string"}}),
                      annotations=annotations)
    calls, why_not = plan([tool], {})["drop"]
    assert bool(calls) is called
    assert (why_not is None) is called
    given = plan([tool], {"drop": [Scenario("drop", "mine", {"table": "t"})]})["drop"]
    assert given == ([Scenario("drop", "mine", {"table": "t"})], None)
