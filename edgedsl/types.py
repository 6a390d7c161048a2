"""Semantic types shared by the catalog, the checker, the reducers and the runtime.

A *field type* is what a record field or a tool parameter holds. Scalars are ``str``,
``int``, ``float``, ``num`` (int or float), ``date``, ``bool`` and ``json`` (any JSON value,
opaque to reducers and compared as its canonical JSON text); an ``enum[...]`` is a
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

ScalarKind = Literal["str", "int", "float", "num", "date", "bool", "json"]
SCALAR_KINDS: tuple[str, ...] = ("str", "int", "float", "num", "date", "bool", "json")
NUMERIC_KINDS: frozenset[str] = frozenset({"int", "float", "num"})


@dataclass(frozen=True, slots=True)
class ScalarType:
    """A built-in scalar: ``str``, ``int``, ``float``, ``num``, ``date``, ``bool`` or ``json``."""

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
JSON = ScalarType("json")


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


def type_to_json(t: FieldType) -> object:
    """A JSON form of a field type (plans and store keys carry types in this form)."""
    if isinstance(t, ScalarType):
        return t.kind
    if isinstance(t, EnumType):
        return {"enum": list(t.members)}
    if isinstance(t, CodeType):
        return {"code": t.name, "pattern": t.pattern, "doc": t.doc}
    return {"list": type_to_json(t.item)}


def type_from_json(data: object) -> FieldType:
    """Inverse of :func:`type_to_json`; raises ValueError on anything else."""
    if isinstance(data, str) and data in SCALAR_KINDS:
        return ScalarType(data)  # type: ignore[arg-type]
    if isinstance(data, dict):
        if "enum" in data and isinstance(data["enum"], list):
            return EnumType(tuple(str(m) for m in data["enum"]))
        if "code" in data:
            return CodeType(str(data["code"]), str(data["pattern"]), str(data.get("doc", "")))
        if "list" in data:
            return ListType(type_from_json(data["list"]))
    raise ValueError(f"not a field type: {data!r}")
