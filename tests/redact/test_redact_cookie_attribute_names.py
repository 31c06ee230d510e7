"""A cookie named as a cookie's attribute (found by the review of the seventh session's merged
head): the singular-cookie change kept a cookie's attributes (``path``, ``domain``,
``session``…) under any weak container, so a parsed header's map showed a cookie so named
(``{"cookies": {"session": S}}``) where the code before withheld it. An attribute is kept in
a jar's entry (beside ``name``/``value``), or elsewhere only in its own shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.redact import redact_value
from support.routes import value_routes

S = "hunter2hunter2"
ATTRIBUTES = ["session", "path", "domain", "comment", "priority", "storeId", "Max-Age",
              "sameSite", "expires", "hostOnly"]


@pytest.mark.parametrize("container", ["cookies", "cookie", "authCookies", "session_cookie"])
@pytest.mark.parametrize("name", ATTRIBUTES)
def test_a_cookie_named_as_an_attribute_is_withheld_in_a_map(container: str, name: str) -> None:
    # Red on the merged head: session, path… The walk's routes and shape(); the body read as
    # a JSON text withholds a generated value only in a cookie map (so on the code before).
    for route, shown in value_routes({container: {name: S}}).items():
        if not route.endswith(":text"):
            assert S not in shown, route


@pytest.mark.parametrize("value", ["/", "/app/", ".example.com", "Lax"])
def test_an_options_object_keeps_its_attributes_shape(value: str) -> None:
    key = {"/": "path", "/app/": "path", ".example.com": "domain", "Lax": "sameSite"}[value]
    doc = {"cookie": {key: value, "secure": True}}
    assert redact_value(doc).value == doc


def test_a_jar_entry_keeps_its_attributes_and_withholds_its_value() -> None:
    doc = {"cookies": [{"name": "sid", "value": S, "path": "/x", "domain": "example.com",
                        "priority": "Medium", "sameSite": "lax"}]}
    out = redact_value(doc).value
    assert S not in json.dumps(out)
    entry = out["cookies"][0]
    assert (entry["path"], entry["domain"], entry["priority"]) == ("/x", "example.com", "Medium")


@given(name=st.sampled_from(ATTRIBUTES),
       value=st.text(alphabet="abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789&%!",
                     min_size=12, max_size=24))
def test_property_a_generated_value_under_an_attribute_name_in_a_map_is_withheld(
    name: str, value: str
) -> None:
    """A value of a cookie's kind (12+ chars, letters, digits and a symbol, no path or host
    shape) under an attribute's name in a cookie map is withheld by the walk."""
    out = redact_value({"cookies": {name: value}}).value
    if value in json.dumps(out):
        # shown only where the code before showed it too: not generated-looking at all
        assert redact_value({"cookies": {"sid": value}}).value == {"cookies": {"sid": value}}


def test_a_map_is_asked_whether_it_is_a_jar_entry_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before (the merge's own fix): asked once a member, a map of 20,000 cookies was read
    20,000 times over, 42 s where 5,000 took 2.7 s."""
    from elision.redact import fields

    asked: list[int] = []
    real = fields._jar_entry

    def counted(node: dict[Any, Any]) -> bool:
        asked.append(len(node))
        return real(node)

    monkeypatch.setattr(fields, "_jar_entry", counted)
    cookies = {f"c{i}": f"v{i}" for i in range(2_000)}
    redact_value({"cookies": cookies})
    assert asked == [2_000]
