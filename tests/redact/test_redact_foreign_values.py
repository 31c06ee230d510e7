"""A library caller's Python value, not parsed from JSON: its tuples, sets and mappings are
read as the JSON they stand for (elision.redact.foreign). Found by the review of issue 23's
speed-ups: a secret in a tuple inside a dict was found by the trigger search (orjson writes a
tuple as an array) and then passed over by the walk, which descended into dicts and lists
alone; a set or a mapping proxy was not read at all."""

from __future__ import annotations

import collections
import dataclasses
import types
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.errors import InputError
from elision.redact import redact_value

TOKEN = "ghp_K0000000000000000011123456789ABCDEFG"
STUB = "[credential withheld: github-token]"
Pair = collections.namedtuple("Pair", "name value")


@dataclasses.dataclass
class Login:
    user: str
    secret: Any


@dataclasses.dataclass
class Note:
    text: str


@pytest.mark.parametrize(("value", "paths"), [
    ({"a": (TOKEN,)}, ["$.a[0]"]),  # the case: a tuple in a dict
    ((TOKEN,), ["$[0]"]),  # a tuple at the root
    ({"k": {"n": (1, (TOKEN,))}}, ["$.k.n[1][0]"]),  # tuples nested in tuples
    ({"a": Pair("x", TOKEN)}, ["$.a[1]"]),  # a named tuple
    ({"a": {TOKEN}}, ["$.a[0]"]),  # a set: orjson cannot write it, so nothing was searched
    ({"a": frozenset({TOKEN})}, ["$.a[0]"]),
    (types.MappingProxyType({"a": TOKEN}), ["$.a"]),  # a mapping that is not a dict
    ({"a": collections.deque([TOKEN])}, ["$.a[0]"]),  # another iterable
    ({"a": Note(TOKEN)}, ["$.a.text"]),  # a dataclass: orjson writes it as an object
    ({"a": Login("me", ("hunter2xyz",))}, ["$.a.secret[0]"]),  # its fields' names judged
    ({"password": ("hunter2xyz",)}, ["$.password[0]"]),  # under a credential name
    ({"items": [("k", TOKEN)] * 300}, [f"$.items[{i}][1]" for i in range(300)]),  # dense
    ([(TOKEN, 1)] * 300, [f"$[{i}][0]" for i in range(300)]),  # a dense array of tuples
])
def test_a_secret_in_a_tuple_set_or_mapping_is_withheld(value: Any, paths: list[str]) -> None:
    done = redact_value(value)
    assert [e["path"] for e in done.withheld] == paths
    assert TOKEN not in repr(done.value) and "hunter2xyz" not in repr(done.value)


def test_what_changed_comes_back_as_json_and_the_rest_as_its_json_or_itself() -> None:
    done = redact_value({"a": (TOKEN, "x"), "b": (1, 2)})
    assert done.value["a"] == [STUB, "x"] and _json(done.value) == {"a": [STUB, "x"],
                                                                       "b": [1, 2]}
    clean = {"a": ("x",), "b": [(1, 2)] * 300, "c": types.MappingProxyType({"d": "e"})}
    done = redact_value(clean)
    assert done.withheld == () and _json(done.value) == _json(clean)
    assert redact_value({"a": ("x",)}).value == {"a": ("x",)}  # no trigger: not walked


@pytest.mark.parametrize("value", [
    {"a": b"ghp_K0000000000000000011123456789ABCDEFG"},  # bytes: no one text to search
    {"a": bytearray(b"x")},
    {"a": (x for x in [TOKEN])},  # an iterator is used up by the reading
    [iter([TOKEN])],
])
def test_bytes_and_iterators_are_refused(value: Any) -> None:
    with pytest.raises(InputError, match="redact_value takes JSON's types") as caught:
        redact_value(value)
    assert TOKEN not in str(caught.value)


# JSON values with credentials in them, and the same values with some of their lists turned
# into tuples (or deques): each must withhold what the JSON form does, at the same paths.
SECRETS = st.sampled_from([TOKEN, "AKIAIOSFODNN7EXAMPLF", "sk-" + "Ab3dEf6hIj9lMn2pQr5t" * 2,
                           "postgres://u:Pw9x7Kq2Lm@db.example.net/x", "plain", "SK0"])
SCALARS = st.one_of(st.none(), st.integers(), st.booleans(), SECRETS, st.text(max_size=8))
KEYS = st.sampled_from(["a", "b", "password", "token", "note", TOKEN])
JSON = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=5)
                    | st.dictionaries(KEYS, kids, max_size=4), max_leaves=30)


def _foreign(value: Any, how: st.DataObject) -> Any:
    if isinstance(value, list):
        items = [_foreign(v, how) for v in value]
        kind = how.draw(st.sampled_from(["list", "tuple", "deque"]))
        return items if kind == "list" else tuple(items) if kind == "tuple" else (
            collections.deque(items))
    if isinstance(value, dict):
        members = {k: _foreign(v, how) for k, v in value.items()}
        return types.MappingProxyType(members) if how.draw(st.booleans()) else members
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, how=st.data())
def test_a_value_of_tuples_withholds_what_its_json_does(value: Any, how: st.DataObject) -> None:
    want = redact_value(value)
    got = redact_value(_foreign(value, how))
    assert got.withheld == want.withheld
    assert _json(got.value) == want.value


def _json(value: Any) -> Any:
    if isinstance(value, dict | types.MappingProxyType):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | collections.deque):
        return [_json(v) for v in value]
    return value


class Account(pydantic.BaseModel):
    user: str
    note: str
    scopes: tuple[str, ...] = ()


def test_a_pydantic_model_is_read_as_its_json_object() -> None:
    """Red before: a BaseModel iterates as (name, value) pairs, so it was read as a list of
    pairs: the token withheld at ``$.a[1][1]``, a path the caller's JSON never has, and what
    came back a list of lists where ``model_dump(mode="json")`` is an object."""
    done = redact_value({"a": Account(user="me", note=TOKEN, scopes=("repo",))})
    assert [e["path"] for e in done.withheld] == ["$.a.note"]
    assert done.value == {"a": {"user": "me", "note": STUB, "scopes": ["repo"]}}


def test_a_clean_pydantic_model_comes_back_as_it_was() -> None:
    model = Account(user="me", note="plain")
    assert redact_value({"a": model}).value == {"a": model}


@pytest.mark.parametrize("key", [
    (TOKEN, 1),  # a tuple key
    frozenset({TOKEN}),  # a frozenset key
    Pair("x", TOKEN),  # a named tuple
    (1, 2),  # a clean one too: JSON has no key it could stand for
])
def test_a_container_key_is_refused_without_quoting_it(key: Any) -> None:
    """Red before: a dict key that is a tuple or a frozenset was passed over (the walk judges
    string keys; orjson cannot write the key, so nothing was searched) and the secret in it
    came back as it was."""
    with pytest.raises(InputError, match=r"key at \$\.a is a .*: JSON keys are strings") as caught:
        redact_value({"a": {key: 1, "b": 2}})
    assert TOKEN not in str(caught.value)


def test_scalar_keys_are_read_as_before() -> None:
    # A number or None as a key holds no text to judge: its member is read as any other.
    done = redact_value({"a": {1: TOKEN, None: "x"}})
    assert done.value == {"a": {1: STUB, None: "x"}} and len(done.withheld) == 1
