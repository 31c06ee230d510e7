"""Record classes made without compiling source: :func:`record_class`, :func:`field`.

A hook runs on every tool call, so its start is the cost of each call (issue 24). The
``dataclasses`` decorator writes each class's ``__init__``, ``__eq__``, ``__repr__`` and
``__setattr__`` as source and compiles it with ``exec`` as the module loads: the records on the
hook's path cost ~18% of its instructions that way, and ``dataclasses`` imports ``inspect``
(and with it ``ast``, ``dis`` and ``tokenize``). :func:`record_class` makes the same methods from
closures over the fields, so a class costs no compile.

A record behaves as the dataclass it replaced: the same ``__init__`` (defaults, default
factories, ``init=False``, ``__post_init__``), ``__eq__`` over the compared fields, ``__hash__``
where the dataclass had one (frozen, with ``eq``), the same ``__repr__``, and a frozen record's
assignment raises ``dataclasses.FrozenInstanceError``. ``__dataclass_fields__`` is made on first
use (it imports ``dataclasses`` then), so ``dataclasses.fields``, ``asdict``, ``replace`` and
``is_dataclass`` work on a record. ``tests/test_records.py`` checks each record against the
dataclass made from the same fields.

Not carried over, as no record here uses them: ``order``, ``slots``, ``kw_only``,
``unsafe_hash``, ``InitVar``, ``ClassVar`` fields and inheritance between records. A
recursive ``__repr__`` is not guarded (a record that holds itself recurses).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
_MISSING: Any = object()


class _Field:
    """One field's options, as ``dataclasses.field`` takes them."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr", "type")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.name = ""
        self.type: Any = None


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING,
          init: bool = True, repr: bool = True, compare: bool = True) -> Any:
    """A field's options, as ``dataclasses.field``: a default or a factory of one, and whether
    the field is an ``__init__`` parameter, is shown by ``__repr__`` and is compared."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _Field(default, default_factory, init, repr, compare)


def _frozen_error(doing: str, name: str) -> Exception:
    # Imported only when raising: it is the error a frozen dataclass raises.
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot {doing} field {name!r}")


class _AsDataclass:
    """``__dataclass_fields__`` or ``__dataclass_params__``, made on first read by ``dataclasses``
    itself (from a dataclass of the same fields and options) and then set on the class, both
    together, in place of this."""

    def __init__(self, attribute: str, fields: tuple[_Field, ...], frozen: bool, eq: bool
                 ) -> None:
        self.attribute = attribute
        self.fields = fields
        self.frozen = frozen
        self.eq = eq

    def __get__(self, instance: object, owner: type) -> Any:
        import dataclasses

        spec = []
        for f in self.fields:
            options: dict[str, Any] = {"init": f.init, "repr": f.repr, "compare": f.compare}
            if f.default is not _MISSING:
                options["default"] = f.default
            if f.default_factory is not _MISSING:
                options["default_factory"] = f.default_factory
            spec.append((f.name, f.type, dataclasses.field(**options)))
        twin: Any = dataclasses.make_dataclass(owner.__name__, spec, frozen=self.frozen,
                                               eq=self.eq)
        for attribute in ("__dataclass_fields__", "__dataclass_params__"):
            type.__setattr__(owner, attribute, getattr(twin, attribute))
        return getattr(twin, self.attribute)


class _Signature:
    """``__signature__``, as ``inspect.signature`` shows a dataclass: made on first read (it
    imports ``inspect``), so help and tools see the fields, not ``(*args, **kwargs)``."""

    def __init__(self, fields: tuple[_Field, ...]) -> None:
        self.fields = fields

    def __get__(self, instance: object, owner: type) -> Any:
        if instance is not None:
            raise AttributeError("__signature__")
        import inspect

        parameters = [
            inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=f.type,
                              default=(f.default if f.default is not _MISSING else
                                       _FACTORY if f.default_factory is not _MISSING else
                                       inspect.Parameter.empty))
            for f in self.fields if f.init]
        return inspect.Signature(parameters, return_annotation=None)


class _FactoryDefault:
    """What a signature shows for a default made by a factory, as a dataclass's shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _FactoryDefault()


def _fields_of(cls: type) -> tuple[_Field, ...]:
    out = []
    # Not inspect.get_annotations: inspect is what this module spares the start.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    for name, annotation in annotations.items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True, True)
        f.name, f.type = name, annotation
        if isinstance(value, _Field):
            # As dataclasses does: the class keeps a plain default as its attribute, not the
            # field; a factory's field has no class attribute.
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        out.append(f)
    return tuple(out)


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of a record as one tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = names[0]
        return lambda obj: (getattr(obj, one),)
    return lambda obj: ()


def _make_init(cls: type, fields: tuple[_Field, ...]) -> Callable[..., None]:
    params = [f for f in fields if f.init]
    names = tuple(f.name for f in params)
    seen_default = False
    for f in params:
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    # (name, default, factory) for parameters; (name, factory or default) for init=False fields.
    plan = tuple((f.name, f.default, f.default_factory) for f in params)
    rest = tuple((f.name, f.default, f.default_factory) for f in fields if not f.init)
    count = len(names)
    known = frozenset(names)
    post_init = getattr(cls, "__post_init__", None)
    qualname = cls.__qualname__

    # Fields are plain attributes (no slots, no descriptors), so the instance's dict is filled
    # directly: one C call for the usual all-positional call, where a loop of setattr calls made
    # a record's construction 2.5x a dataclass's (callgrind). A keyword call leaves the dict in
    # the caller's order, which nothing reads: repr, ==, hash and asdict go by the fields.
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) == count and not kwargs:
            self.__dict__.update(zip(names, args, strict=True))
        else:
            if len(args) > count:
                raise TypeError(f"{qualname}.__init__() takes {count + 1} positional arguments "
                                f"but {len(args) + 1} were given")
            values = dict(zip(names, args, strict=False))
            if not kwargs.keys() <= known:
                unknown = next(name for name in kwargs if name not in known)
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument "
                                f"{unknown!r}")
            if args and not values.keys().isdisjoint(kwargs):
                twice = next(name for name in kwargs if name in values)
                raise TypeError(f"{qualname}.__init__() got multiple values for argument "
                                f"{twice!r}")
            values.update(kwargs)
            if len(values) < count:
                for name, default, factory in plan:
                    if name in values:
                        continue
                    if default is not _MISSING:
                        values[name] = default
                    elif factory is not _MISSING:
                        values[name] = factory()
                    else:
                        raise TypeError(f"{qualname}.__init__() missing 1 required positional "
                                        f"argument: {name!r}")
            self.__dict__.update(values)
        if rest:
            fill = self.__dict__
            for name, default, factory in rest:
                if factory is not _MISSING:
                    fill[name] = factory()
                elif default is not _MISSING:
                    fill[name] = default
        if post_init is not None:
            self.__post_init__()

    __init__.__qualname__ = f"{qualname}.__init__"
    return __init__


def _install(cls: Any, frozen: bool, eq: bool) -> None:
    # ``cls: Any``: mypy takes ``__match_args__`` and the dunders below as read-only on a type.
    fields = _fields_of(cls)
    shown = tuple(f.name for f in fields if f.repr)
    compared = tuple(f.name for f in fields if f.compare)
    names = frozenset(f.name for f in fields)

    key = _key(compared)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def __eq__(self: Any, other: object) -> bool:
        # As the dataclass's: the compared fields as tuples (so ``is`` counts, as it does there).
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error("assign to", name)
        object.__setattr__(self, name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error("delete", name)
        object.__delattr__(self, name)

    methods: dict[str, Any] = {"__init__": _make_init(cls, fields)}
    if "__repr__" not in cls.__dict__:
        methods["__repr__"] = __repr__
    if eq and "__eq__" not in cls.__dict__:
        methods["__eq__"] = __eq__
    if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
        # dataclasses' rule: eq and frozen hash the compared fields; eq alone makes a record
        # unhashable; no eq keeps object's hash.
        if eq and frozen:
            methods["__hash__"] = __hash__
        elif eq:
            methods["__hash__"] = None
    if frozen:
        methods["__setattr__"] = __setattr__
        methods["__delattr__"] = __delattr__
    for name, method in methods.items():
        if method is not None:
            method.__qualname__ = f"{cls.__qualname__}.{name}"
            method.__module__ = cls.__module__
        setattr(cls, name, method)
    cls.__match_args__ = tuple(f.name for f in fields if f.init)  # type: ignore[misc]
    cls.__record_fields__ = fields
    cls.__signature__ = _Signature(fields)
    # A dataclass that derives from a record reads both (dataclasses.fields reads the first).
    cls.__dataclass_fields__ = _AsDataclass("__dataclass_fields__", fields, frozen, eq)
    cls.__dataclass_params__ = _AsDataclass("__dataclass_params__", fields, frozen, eq)


@dataclass_transform(field_specifiers=(field,))
def record_class(cls: type[_T] | None = None, /, *, frozen: bool = False, eq: bool = True
           ) -> Any:
    """Make ``cls`` a record, as ``@dataclass`` (``frozen``, ``eq``) would, without ``exec``."""

    def wrap(cls: type[_T]) -> type[_T]:
        _install(cls, frozen, eq)
        return cls

    return wrap if cls is None else wrap(cls)


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of ``obj`` with ``changes``, as ``dataclasses.replace`` (a record or a dataclass)."""
    fields: tuple[_Field, ...] | None = type(obj).__dict__.get("__record_fields__")
    if fields is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in fields:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be "
                                 "specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


__all__ = ["field", "record_class", "replace"]
