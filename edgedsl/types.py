"""Semantic types shared by the catalog, the checker, the reducers and the runtime.

A *field type* is what a record field or a tool parameter holds. Scalars are ``str``,
``int``, ``float``, ``num`` (int or float), ``date`` and ``bool``; an ``enum[...]`` is a
closed set of strings; a code type (``type CorpCode = code /^[0-9]{8}$/``) is a *nominal*
string type: two code types are equal only when they have the same qualified name.
A list type wraps any of these.

These are frozen dataclasses so that they hash and compare structurally, and carry no spans
(spans live on the AST; types are values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

ScalarKind = Literal["str", "int", "float", "num", "date", "bool"]
SCALAR_KINDS: tuple[str, ...] = ("str", "int", "float", "num", "date", "bool")
NUMERIC_KINDS: frozenset[str] = frozenset({"int", "float", "num"})


@dataclass(frozen=True, slots=True)
class ScalarType:
    """A built-in scalar: ``str``, ``int``, ``float``, ``num``, ``date`` or ``bool``."""

    kind: ScalarKind

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class EnumType:
    """A closed set of string members, ``enum[A, B, C]``."""

    members: tuple[str, ...]

    def __str__(self) -> str:
        return f"enum[{', '.join(self.members)}]"


@dataclass(frozen=True, slots=True)
class CodeType:
    """A nominal code type: a string matching ``pattern``, distinct from every other code type.

    ``name`` is qualified (``dart.CorpCode`` or ``codes.StockCode``) so that two platforms may
    declare a ``CorpCode`` without the two being confused.
    """

    name: str
    pattern: str
    doc: str = ""

    def __str__(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def matches(self, value: str) -> bool:
        """True when ``value`` matches the code's regular expression."""
        return re.search(self.pattern, value) is not None


@dataclass(frozen=True, slots=True)
class ListType:
    """A list of values of one item type, ``[T]``."""

    item: FieldType

    def __str__(self) -> str:
        return f"[{self.item}]"


FieldType: TypeAlias = ScalarType | EnumType | CodeType | ListType

STR = ScalarType("str")
INT = ScalarType("int")
FLOAT = ScalarType("float")
NUM = ScalarType("num")
DATE = ScalarType("date")
BOOL = ScalarType("bool")


def is_numeric(t: FieldType) -> bool:
    """True for ``int``, ``float`` and ``num``."""
    return isinstance(t, ScalarType) and t.kind in NUMERIC_KINDS


def is_date(t: FieldType) -> bool:
    """True for ``date``."""
    return isinstance(t, ScalarType) and t.kind == "date"


def is_stringish(t: FieldType) -> bool:
    """True for the types whose values are strings: ``str``, enums and codes."""
    return (isinstance(t, ScalarType) and t.kind == "str") or isinstance(t, EnumType | CodeType)


def storage_kind(t: FieldType) -> Literal["text", "integer", "double", "date", "bool", "list"]:
    """The DuckDB storage class a field of type ``t`` is shredded into."""
    if isinstance(t, ListType):
        return "list"
    if isinstance(t, ScalarType):
        if t.kind == "int":
            return "integer"
        if t.kind in ("float", "num"):
            return "double"
        if t.kind == "date":
            return "date"
        if t.kind == "bool":
            return "bool"
    return "text"


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a record type: its name, type and whether it may be missing (``?``)."""

    name: str
    type: FieldType
    optional: bool = False


@dataclass(frozen=True, slots=True)
class RecordType:
    """A named record type: the shape of one element of a tool's response."""

    name: str
    fields: tuple[FieldSpec, ...]

    def field(self, name: str) -> FieldSpec | None:
        """The field called ``name``, or None."""
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def field_types(self) -> dict[str, FieldType]:
        """Field name → type, in declaration order."""
        return {f.name: f.type for f in self.fields}
