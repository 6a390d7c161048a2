"""Semantic types shared by the catalog, the checker, the reducers and the runtime.

A *field type* is what a record field or a tool parameter holds. Scalars are ``str``,
``int``, ``float``, ``num`` (int or float), ``date``, ``bool`` and ``json`` (any JSON value,
opaque to reducers and compared as its canonical JSON text); an ``enum[...]`` is a
closed set of strings; a code type (``type CorpCode = code /^[0-9]{8}$/``) is a *nominal*
string type: two code types are equal only when they have the same qualified name.
A list type wraps any of these.

These are frozen dataclasses so that they hash and compare structurally, and carry no spans
(spans live on the AST; types are values).

A code type's pattern is compiled in one place, :func:`code_pattern`, with RE2 (``google-re2``):
matching takes time linear in the text whatever the pattern, so no declaration can make
``check`` (literals) or the graph (observed values) backtrack for minutes.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import re2

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
        """True when ``value`` matches the code's regular expression (searched with RE2, in time
        linear in ``value``); :class:`CodePatternError` when the pattern is not one."""
        return code_pattern(self.pattern).search(value) is not None


MAX_PATTERN_GROUPS = 64
"""The most ``(`` a code pattern may hold: Python's ``re`` parses nested groups by recursion,
and Hypothesis (``edgedsl.testing``) reads patterns with it."""

RE2_HINT = "code patterns use RE2 syntax: no backreferences or lookaround"


class CodePatternError(ValueError):
    """A code pattern that cannot be used; ``hint`` says what code patterns may hold."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def _re2_options() -> Any:
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, not RE2's to print on stderr
    return options


_RE2_OPTIONS = _re2_options()


@functools.lru_cache(maxsize=4096)
def code_pattern(pattern: str) -> Any:
    """``pattern`` compiled by RE2, once per text: the one compiled form of a code pattern,
    used by the catalog check and :meth:`CodeType.matches`.

    Raises :class:`CodePatternError` when RE2 cannot compile it (backreferences, lookaround,
    repetitions over 1000, …), when Python's ``re`` cannot read it (``\\p{…}``: Hypothesis
    draws values with it), or when it holds more than :data:`MAX_PATTERN_GROUPS` ``(``."""
    if pattern.count("(") > MAX_PATTERN_GROUPS:
        raise CodePatternError(f"more than {MAX_PATTERN_GROUPS} parentheses",
                               "write the code pattern with fewer parentheses")
    try:
        compiled = re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as err:
        raise CodePatternError(_message(err), RE2_HINT) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `[[:alpha:]]` reads as a nested set: a FutureWarning
            re.compile(pattern)
    except re.error as err:
        raise CodePatternError(str(err), "code patterns use the syntax RE2 and Python's `re` "
                               "share: no `\\p{…}` classes or `\\C`") from None
    return compiled


def _message(err: Exception) -> str:
    text = err.args[0] if err.args else str(err)
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)


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
    """One field of a record type: its name, type and whether it may be missing (``?``); its
    Korean ``label`` and ``unit`` when declared (documentation: not part of equality)."""

    name: str
    type: FieldType
    optional: bool = False
    label: str | None = field(default=None, compare=False)
    unit: str | None = field(default=None, compare=False)


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
