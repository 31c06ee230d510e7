"""Records (:mod:`elision._record`) behave as the dataclasses they replaced (issue 24).

The records on a hook's path were dataclasses, whose methods are compiled with ``exec`` as a
module loads. Each property here draws a class's fields and options, makes it both ways (a
record, and ``dataclasses.make_dataclass`` of the same fields) and checks that the two agree:
``__init__`` and its defaults, ``__eq__``, ``__hash__``, ``__repr__``, a frozen one's refusal to
change, ``inspect.signature``, and ``dataclasses.fields``/``asdict``/``replace``/``is_dataclass``.
The table at the end checks each converted class kept its dataclass options.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision._record import field, record_class, replace

NAMES = ["alpha", "beta", "gamma", "delta", "ref", "size"]
VALUES = st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3), st.booleans(),
                   st.tuples(st.integers(0, 2)), st.floats(allow_nan=True))


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    """A class's fields (name, kind, repr, compare) and options (frozen, eq)."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    kinds = []
    defaulted = False
    for _ in names:
        # A required field may not follow one with a default.
        kind = draw(st.sampled_from(["default", "factory", "no-init"] if defaulted else
                                    ["required", "default", "factory", "no-init"]))
        defaulted = defaulted or kind in ("default", "factory")
        kinds.append(kind)
    return {
        "fields": [(name, kind, draw(VALUES), draw(st.booleans()), draw(st.booleans()))
                   for name, kind in zip(names, kinds, strict=True)],
        "frozen": draw(st.booleans()), "eq": draw(st.booleans()),
    }


def both(spec: dict[str, Any]) -> tuple[type, type]:
    """The record and the dataclass of ``spec``, both named ``Thing``."""
    record_ns: dict[str, Any] = {"__annotations__": {}}
    dc_fields = []
    for name, kind, value, shown, compared in spec["fields"]:
        record_ns["__annotations__"][name] = "Any"
        options: dict[str, Any] = {"repr": shown, "compare": compared}
        if kind == "default":
            options["default"] = value
        elif kind == "factory":
            options["default_factory"] = (lambda v=value: [v])
        elif kind == "no-init":
            options["init"] = False
            options["default_factory"] = (lambda v=value: (v,))
        record_ns[name] = field(**options)
        dc_fields.append((name, "Any", dataclasses.field(**options)))
    made = record_class(frozen=spec["frozen"], eq=spec["eq"])(type("Thing", (), record_ns))
    twin = dataclasses.make_dataclass("Thing", dc_fields, frozen=spec["frozen"], eq=spec["eq"])
    return made, twin


def args_for(spec: dict[str, Any], values: list[Any]) -> dict[str, Any]:
    """Keyword arguments: a drawn value for each required field and for some of the others."""
    out = {}
    for (name, kind, _, _, _), value in zip(spec["fields"], values, strict=False):
        if kind == "required" or (kind != "no-init" and value is not None):
            out[name] = value
    return out


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return "value", call()
    except Exception as exc:  # both must fail alike
        return "raised", (type(exc).__name__, str(exc).replace("Thing.__init__", "__init__"))


@given(specs(), st.lists(VALUES, min_size=5, max_size=5), st.lists(VALUES, min_size=5,
                                                                   max_size=5))
def test_a_record_behaves_as_the_dataclass_of_its_fields(
    spec: dict[str, Any], values: list[Any], others: list[Any]
) -> None:
    made, twin = both(spec)
    kwargs, other_kwargs = args_for(spec, values), args_for(spec, others)
    a, b = made(**kwargs), made(**other_kwargs)
    ta, tb = twin(**kwargs), twin(**other_kwargs)
    assert repr(a) == repr(ta)
    assert (a == b) == (ta == tb)
    assert (a == made(**kwargs)) == (ta == twin(**kwargs))
    assert a.__eq__(object()) is ta.__eq__(object())
    assert (made.__hash__ is None) == (twin.__hash__ is None)  # type: ignore[comparison-overlap]
    if twin.__hash__ is not None and spec["eq"]:  # type: ignore[comparison-overlap]
        assert outcome(lambda: hash(a)) == outcome(lambda: hash(ta))
    # Positional arguments bind as the dataclass's do.
    positional = [kwargs[name] for name, kind, *_ in spec["fields"] if kind == "required"]
    assert outcome(lambda: repr(made(*positional))) == outcome(lambda: repr(twin(*positional)))
    assert outcome(lambda: made(*positional, *range(9))) [0] == "raised"
    assert outcome(lambda: made(nonesuch=1))[0] == outcome(lambda: twin(nonesuch=1))[0]
    # What help and tools read of its constructor.
    assert str(inspect.signature(made)) == str(inspect.signature(twin))
    # What dataclasses reads of a record.
    assert dataclasses.is_dataclass(a) and dataclasses.is_dataclass(made)
    assert [(f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(a)] == [
        (f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(ta)]
    assert dataclasses.asdict(a) == dataclasses.asdict(ta)
    changes = {k: v for k, v in other_kwargs.items() if k in kwargs}
    assert repr(replace(a, **changes)) == repr(dataclasses.replace(ta, **changes))
    assert repr(dataclasses.replace(a, **changes)) == repr(dataclasses.replace(ta, **changes))
    # Frozen: assignment and deletion refused, as the dataclass refuses them.
    for name, *_ in spec["fields"][:2]:
        assert outcome(lambda n=name: setattr(a, n, 1)) == outcome(  # type: ignore[misc]
            lambda n=name: setattr(ta, n, 1))
        assert outcome(lambda n=name: delattr(b, n)) == outcome(  # type: ignore[misc]
            lambda n=name: delattr(tb, n))
    if spec["frozen"]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.extra = 1


#: Each class converted from a dataclass, with its options then: (frozen, hashable). Not
#: here: ``elision.redact.keywords:Present``, built once for each piece judged, is a plain
#: class of slots (a record cost about ten times as much to build: issue 23).
CONVERTED = {
    "elision.audit.checkpoint:Checkpoint": (True, True),
    "elision.audit.checkpoint:HmacSigner": (True, True),
    "elision.budget:Budget": (True, True),
    "elision.pipeline:AuditRecord": (True, True),
    "elision.pipeline:Capture": (True, True),
    "elision.pipeline:Decision": (True, True),
    "elision.pipeline:Pipeline": (False, False),
    "elision.pipeline:Redacted": (True, True),
    "elision.redact:Redaction": (True, True),
    "elision.redact.encodings:View": (True, True),
    "elision.redact.families:Family": (True, True),
    "elision.redact.references:LaneOutcome": (False, False),
    "elision.redact.resolve:ReadPlan": (True, True),
    "elision.shape:ShapeContext": (False, False),
    "elision.shape:Shaped": (True, True),
    "elision.shape.lines:Decoded": (True, True),
    "elision.store.base:GcResult": (True, True),
    "elision.store.base:RefInfo": (True, True),
    "elision.store.base:Retention": (True, True),
    "elision.store.base:StoreStats": (True, True),
    "elision.store.memory:_Ref": (False, False),
    "elision.store.memory:_Tombstone": (False, False),
}


@pytest.mark.parametrize("where", sorted(CONVERTED))
def test_each_converted_class_keeps_its_dataclass_options(where: str) -> None:
    module, name = where.split(":")
    cls = getattr(importlib.import_module(module), name)
    frozen, hashable = CONVERTED[where]
    assert "__record_fields__" in vars(cls)  # a record, not a dataclass compiled with exec
    assert dataclasses.is_dataclass(cls)
    params = cls.__dataclass_params__
    assert (params.frozen, params.eq) == (frozen, True)
    assert (cls.__hash__ is not None) == hashable
    assert [f.name for f in dataclasses.fields(cls)] == list(cls.__annotations__)
