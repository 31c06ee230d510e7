"""Values a library caller hands :func:`elision.redact.redact_value` that are not JSON's types.

A value parsed from JSON holds dicts, lists, strings, numbers, booleans and null alone, and the
walk reads those. A Python caller may pass a tuple, a set or another mapping as well: orjson
writes a tuple as an array, so a secret in one was found by the trigger search and then passed
over by a walk that only descends into dicts and lists, and a set or a mapping proxy was not
read at all. Governed by default, as the JSON they stand for: a tuple (a named one too), a set,
a frozenset or another iterable is read as a list, another mapping or a dataclass as a dict,
a pydantic model as its ``model_dump(mode="json")`` (what its own JSON holds: iterated, it
was a list of pairs), and what changed comes back in those JSON containers. Bytes and
iterators are refused: bytes have no one text to search, and an iterator is used up by the
reading. So is a key that is a container (a tuple, a frozenset): JSON has no key it could
stand for, neither orjson nor ``json`` writes one, so whatever text reaches a model from it is
the caller's own spelling, which redaction never sees; the caller makes it a string first.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Set
from dataclasses import fields, is_dataclass
from typing import Any

from elision.errors import InputError

#: The exact types a value parsed from JSON is made of (a subclass is asked about in full).
JSON_TYPES = frozenset({str, int, float, bool, type(None), dict, list})
_is_json_type = JSON_TYPES.__contains__
_JSON = (str, int, float, type(None), dict, list)  # bool is an int


def as_json(node: Any) -> Any:
    """``node`` in JSON's containers when it is a mapping, a dataclass, a set, a tuple or
    another iterable that is not an iterator; ``node`` itself otherwise (JSON's types, and
    scalars such as a RawNumber). Raises :class:`InputError` for bytes and iterators."""
    if isinstance(node, _JSON):
        return node
    model = _pydantic_model()
    if model is not None and isinstance(node, model):
        return node.model_dump(mode="json")  # type: ignore[attr-defined]
    if isinstance(node, Mapping):
        return dict(node)
    if is_dataclass(node) and not isinstance(node, type):
        # orjson writes a dataclass as the object of its fields, in their order: the same
        # bytes as this dict's, so the trigger search found what is in them.
        return {field.name: getattr(node, field.name) for field in fields(node)}
    if isinstance(node, Set):
        try:
            return sorted(node)  # the same paths whatever the hash seed
        except TypeError:
            return list(node)
    if isinstance(node, bytes | bytearray | memoryview | Iterator):
        kind = type(node).__name__
        raise InputError(
            f"redact_value takes JSON's types and the containers that stand for them, got "
            f"{kind!r}: decode bytes to str, and pass an iterator's items as a list")
    if isinstance(node, Iterable):  # a tuple, a deque, a mapping's values…
        return list(node)
    return node


def _pydantic_model() -> type | None:
    """pydantic's ``BaseModel`` where pydantic is imported (a model exists only then, so a
    caller without pydantic pays no import)."""
    pydantic = sys.modules.get("pydantic")
    return getattr(pydantic, "BaseModel", None) if pydantic is not None else None


#: The key types JSON writers spell as a string: a member under one is read as any other.
_KEY_TYPES = frozenset({str, int, float, bool, type(None)})
_is_key_type = _KEY_TYPES.__contains__


def check_keys(node: dict[Any, Any], where: Callable[[], str]) -> None:
    """Raise :class:`InputError` if a key of ``node`` is a container (a tuple, a frozenset,
    anything :func:`as_json` reads as a list or a dict): ``where()`` names the object. The
    key itself is not quoted: it may be the secret."""
    if all(map(_is_key_type, map(type, node))):  # in C: no call a key
        return
    for key in node:
        if not _is_key_type(type(key)) and isinstance(as_json(key), dict | list):
            raise InputError(
                f"a key at {where()} is a {type(key).__name__!r}: JSON keys are strings; "
                f"make it one (str(), or orjson of it) before redact_value, so the text a "
                f"model sees is the one judged")


def members_as_json(node: dict[Any, Any]) -> dict[Any, Any]:
    """``node``, or a copy of it whose members are in JSON's containers (:func:`as_json`)."""
    if all(map(_is_json_type, map(type, node.values()))):  # in C: no call a member
        return node
    changed = {key: new for key, value in node.items() if (new := as_json(value)) is not value}
    return {**node, **changed} if changed else node


def plain(values: Collection[Any]) -> bool:
    """Whether every one of ``values`` is what :func:`as_json` leaves as it is."""
    return all(map(_is_json_type, map(type, values))) or all(as_json(v) is v for v in values)
