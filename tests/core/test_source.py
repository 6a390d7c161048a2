"""``source.fast_frozen_init`` and ``source.maker``: the fast ``__init__`` and the plain-function
constructor make the same objects as ``dataclasses`` would, with the same signature checks."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from edgedsl.check import ir
from edgedsl.core.source import NO_SPAN, Source, fast_frozen_init, maker
from edgedsl.reduce import answer, query
from edgedsl.reduce.registry import ReduceStep
from edgedsl.syntax import nodes as n


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _Node:
    a: int
    b: tuple[int, ...] = ()
    c: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Plain:  # no fast init: maker gives the class itself
    a: int

    def __post_init__(self) -> None:
        pass


def test_made_like_the_dataclass() -> None:
    make = maker(_Node)
    assert make is not _Node
    x, y = make(a=1), _Node(a=1)
    assert x == y and type(x) is _Node and x.c == [] and x.c is not make(a=1).c
    assert make(a=1, b=(2,), c=[3]) == _Node(a=1, b=(2,), c=[3])
    with pytest.raises(TypeError):
        make(1)  # type: ignore[call-arg]  # keyword-only, as the class
    with pytest.raises(TypeError):
        make()  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 2  # type: ignore[misc]
    assert inspect.signature(make).parameters == inspect.signature(_Node).parameters
    assert maker(_Plain) is _Plain


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _Derived(_Node):  # a and b are slots of _Node
    d: str = "d"


def test_inherited_fields_are_set_through_the_base_slots() -> None:
    """A subclass's inherited fields live in its base's slots (the plan's steps on _StepBase)."""
    make = maker(_Derived)
    assert make is not _Derived
    x = make(a=1, d="e")
    assert x == _Derived(a=1, d="e") and (x.a, x.b, x.c, x.d) == (1, (), [], "e")
    assert x != _Node(a=1) and dataclasses.replace(x, a=2).a == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 2  # type: ignore[misc]


def test_made_objects_are_of_the_class_itself() -> None:
    """maker's functions store the fields on an unfrozen twin of the class and then assign
    ``__class__``: the object they return is an ordinary, frozen instance of the class."""
    for make, cls in ((maker(_Node), _Node), (maker(_Derived), _Derived)):
        x = make(a=1)
        assert x.__class__ is cls and type(x) is cls and not hasattr(x, "__dict__")
        assert hash(x.b) == hash(()) and x == cls(a=1) and repr(x) == repr(cls(a=1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            del x.a
        with pytest.raises(dataclasses.FrozenInstanceError):
            x.b = ()  # type: ignore[misc]


@pytest.mark.parametrize("cls", [n.Ref, n.Call, n.Binding, ir.FieldE, ir.CallIR, ReduceStep,
                                 answer.Lit, answer.Cmp, query.Compare, query.ReduceQuery])
def test_shipped_nodes_have_makers(cls: type) -> None:
    """The classes the builder and the lowering make by the thousand get the fast path."""
    assert maker(cls) is not cls


def test_a_ref_made_both_ways() -> None:
    span = Source("f", "a.b").span(0, 3)
    assert maker(n.Ref)(parts=("a", "b"), span=span) == n.Ref(parts=("a", "b"), span=span)
    assert maker(ReduceStep)("max", "f") == ReduceStep("max", "f") != ReduceStep("min", "f")
    assert maker(n.Ref)(parts=("a",), span=NO_SPAN).span is NO_SPAN
