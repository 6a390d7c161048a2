"""The type rules of the checker as pure functions (no AST walking, no diagnostics bag).

Literal → parameter type (:func:`literal_problem`)
    ``"text"`` fits ``str``, an enum when it is a member, a code type when it matches the
    pattern (else ``E202``), ``json``. A number fits ``int`` (whole numbers only), ``float``,
    ``num``, ``json``, and an enum whose member is its text. A date fits ``date``, ``json`` and
    ``str`` (sent as ``YYYY-MM-DD`` text). ``true``/``false`` fit ``bool`` and ``json``. A list
    fits ``[T]`` when every item fits ``T``, and ``json``. An object fits only ``json``.

Field → parameter type in a junction (:func:`junction_fit`)
    ``ok``: equal types; anything into ``json``; ``int`` into ``float``/``num``;
    ``float``/``num`` into each other; a code or enum into ``str``; a date into ``str``; an enum
    into an enum holding all its members.
    ``warn`` (``W004``, checked per value at run time): ``str`` into a code type or an enum; an
    enum into an enum missing some members; ``num`` into ``int``; a number into ``str``; ``json``
    into anything.
    ``code`` (``E203``): two different code types — code types are nominal.
    ``error`` (``E206``): everything else (``float`` into ``int``, ``str`` into ``date`` …).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from ..core.diagnostics import suggestion_hint
from ..core.types import (
    BOOL,
    DATE,
    FLOAT,
    INT,
    JSON,
    NUM,
    STR,
    CodeType,
    EnumType,
    FieldType,
    ListType,
    ScalarType,
    is_date,
    is_numeric,
    is_stringish,
)
from ..reduce.coerce import coerce
from ..reduce.registry import TOP_K_MAX, PivotKind, Reducer
from ..syntax import nodes as n
from ..syntax.printer import format_literal
from .context import known

Fit = Literal["ok", "warn", "code", "error"]

LITERALS = (n.StringLit, n.NumberLit, n.DateLit, n.BoolLit, n.ListLit, n.DictLit)
"""The literal node classes (an argument value or expression that is a literal)."""


_DESCRIPTIONS: dict[type, str] = {
    n.StringLit: "a string",
    n.NumberLit: "a number",
    n.DateLit: "a date",
    n.BoolLit: "a boolean",
    n.ListLit: "a list",
    n.DictLit: "an object",
}


def describe_literal(lit: object) -> str:
    """``a string``, ``a number`` … for messages."""
    return _DESCRIPTIONS.get(type(lit), "a value")


# (literal class, scalar kind) pairs that always fit: the usual case, decided by one lookup
_SCALAR_FITS = frozenset({
    (n.StringLit, "str"), (n.DateLit, "date"), (n.DateLit, "str"), (n.BoolLit, "bool"),
    (n.NumberLit, "float"), (n.NumberLit, "num"),
})


def literal_type(lit: n.Literal_) -> FieldType:
    """The natural type of a literal."""
    if isinstance(lit, n.StringLit):
        return STR
    if isinstance(lit, n.NumberLit):
        return INT if isinstance(lit.value, int) else FLOAT
    if isinstance(lit, n.DateLit):
        return DATE
    if isinstance(lit, n.BoolLit):
        return BOOL
    if isinstance(lit, n.ListLit):
        return ListType(literal_type(lit.items[0]) if lit.items else JSON)
    return JSON


def _looks_like_number(text: str) -> bool:
    return re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text.strip()) is not None


def _looks_like_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def literal_problem(
    lit: n.Literal_, ty: FieldType
) -> tuple[n.Literal_, str, str, list[str]] | None:
    """Why ``lit`` does not fit ``ty``: (offending literal, code, message, hints), or None."""
    if ty.__class__ is ScalarType:
        kind = ty.kind
        if (
            kind == "json"
            or (lit.__class__, kind) in _SCALAR_FITS
            or (kind == "int" and lit.__class__ is n.NumberLit and isinstance(lit.value, int))
        ):
            return None
    if not known(ty) or ty == JSON:
        return None
    what = describe_literal(lit)
    if isinstance(ty, ListType):
        if not isinstance(lit, n.ListLit):
            return (
                lit,
                "E201",
                f"expected a list of {ty.item}, found {what}",
                [f"write a list: `[…]` of {ty.item} values"],
            )
        for item in lit.items:
            p = literal_problem(item, ty.item)
            if p is not None:
                return p
        return None
    if isinstance(lit, n.ListLit):
        return (
            lit,
            "E201",
            f"expected {ty}, found a list",
            ["to call the tool once per value, use `compare … over p in [...]`"],
        )
    if isinstance(lit, n.DictLit):
        return (lit, "E201", f"expected {ty}, found an object", ["only `json` takes an object"])
    if isinstance(ty, CodeType):
        if isinstance(lit, n.StringLit):
            if ty.matches(lit.value):
                return None
            doc = f"`{ty}` is {ty.doc}: " if ty.doc else ""
            return (
                lit,
                "E202",
                f'"{lit.value}" is not a valid `{ty}`',
                [f"{doc}a `{ty}` matches /{ty.pattern}/"],
            )
        return (
            lit,
            "E201",
            f"expected a `{ty}` code, found {what}",
            ["codes are strings: write the code in quotes"],
        )
    if isinstance(ty, EnumType):
        text = (
            lit.value
            if isinstance(lit, n.StringLit)
            else (str(lit.value) if isinstance(lit, n.NumberLit) else None)
        )
        if text is not None and text in ty.members:
            return None
        shown = f'"{text}"' if isinstance(lit, n.StringLit) else what
        return (
            lit,
            "E201",
            f"{shown} is not a member of {ty}",
            suggestion_hint(text, ty.members) if text is not None else [],
        )
    assert isinstance(ty, ScalarType)
    kind = ty.kind
    if isinstance(lit, n.StringLit):
        if kind == "str":
            return None
        hints = []
        if kind == "date" and _looks_like_date(lit.value):
            hints = [f"write the date without quotes: `{lit.value.strip()}`"]
        elif is_numeric(ty) and _looks_like_number(lit.value):
            hints = [f"write the number without quotes: `{lit.value.strip()}`"]
        return (lit, "E201", f"expected {kind}, found a string", hints)
    if isinstance(lit, n.NumberLit):
        if kind in ("float", "num") or (kind == "int" and isinstance(lit.value, int)):
            return None
        hints = [f'write `"{lit.value}"` for the text'] if kind == "str" else []
        return (
            lit,
            "E201",
            f"expected {kind}, found a{' fractional' if kind == 'int' else ''} number",
            hints,
        )
    if isinstance(lit, n.DateLit):
        if kind in ("date", "str"):
            return None
        return (lit, "E201", f"expected {kind}, found a date", [])
    if isinstance(lit, n.BoolLit):
        if kind == "bool":
            return None
        return (lit, "E201", f"expected {kind}, found a boolean", [])
    return None  # pragma: no cover - every literal kind handled above


def list_item_type(ty: FieldType) -> FieldType | None:
    """The type each item of a list argument holding references must fit, for a parameter of
    type ``ty``: a list's item type, anything (``json``) for a ``json`` or unknown parameter;
    None when the parameter takes one value, not a list."""
    if isinstance(ty, ListType):
        return ty.item
    return JSON if ty == JSON or not known(ty) else None


def junction_fit(src: FieldType, dst: FieldType) -> Fit:
    """How a field of type ``src`` fits a parameter of type ``dst`` (see the module docstring)."""
    if src is dst or not known(src) or not known(dst) or src == dst or dst == JSON:
        return "ok"
    if src == JSON:
        return "warn"
    if isinstance(src, ListType) or isinstance(dst, ListType):
        if isinstance(src, ListType) and isinstance(dst, ListType):
            return junction_fit(src.item, dst.item)
        return "error"
    if isinstance(src, CodeType) and isinstance(dst, CodeType):
        return "code"
    if dst == STR:
        if is_stringish(src) or is_date(src):
            return "ok"
        return "warn" if is_numeric(src) else "error"
    if isinstance(dst, CodeType | EnumType):
        if src == STR:
            return "warn"
        if isinstance(src, EnumType) and isinstance(dst, EnumType):
            return "ok" if set(src.members) <= set(dst.members) else "warn"
        return "error"
    if is_numeric(src) and is_numeric(dst):
        if src == INT or dst in (FLOAT, NUM):
            return "ok"
        return "warn" if src == NUM else "error"
    return "error"


def comparable(a: FieldType, b: FieldType) -> bool:
    """Whether two expression types may be compared in a predicate."""
    if not known(a) or not known(b):
        return True
    if is_numeric(a) and is_numeric(b):
        return True
    if is_date(a) and is_date(b):
        return True
    if is_stringish(a) and is_stringish(b):
        return not (isinstance(a, CodeType) and isinstance(b, CodeType) and a != b)
    return a == b


def type_phrase(t: FieldType) -> str:
    """``a str``, ``an int``, ``a `CorpCode` code`` … for labels."""
    if isinstance(t, CodeType):
        return f"a `{t}` code"
    if isinstance(t, EnumType):
        return "an enum"
    if isinstance(t, ListType):
        return f"a list of {t.item}"
    text = str(t)
    return f"an {text}" if text[:1] in "aeiou" else f"a {text}"


def pivot_value(lit: n.Literal_) -> object:
    """A literal as a plain Python value (dates stay ``datetime.date``)."""
    if isinstance(lit, n.ListLit):
        return [pivot_value(i) for i in lit.items]
    if isinstance(lit, n.DictLit):
        return {k: pivot_value(v) for k, v in lit.entries}
    return lit.value


def unquoted_hint(text: str, kind: str) -> list[str]:
    """The hint for a quoted pivot where a ``number`` or ``date`` literal belongs: the literal
    the text stands for, as the grammar writes it (``"55,000원"`` → ``55000``; ``"2024.12.01"``
    → ``2024-12-01``), read by the runtime's own coercion; or the form a literal takes when the
    text reads as none."""
    if kind == "number":
        value = coerce(FLOAT if "." in text else INT, text)
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown = repr(value) if isinstance(value, float) else str(value)
            return [f"write the number as a literal, without quotes, commas or unit: `{shown}`"]
        return ["a number pivot is a literal without quotes, commas or unit, e.g. `55000`"]
    if kind == "date":
        day = coerce(DATE, text)
        if isinstance(day, dt.date):
            return [f"write the date as a literal, without quotes: `{day.isoformat()}`"]
        return ["a date pivot is a literal without quotes, e.g. `2024-12-01`"]
    return []


def pivot_problem(red: Reducer, lit: n.Literal_, field_type: FieldType
                  ) -> tuple[str, list[str]] | None:
    """Why ``lit`` cannot be the pivot of reducer ``red`` on a field of ``field_type`` (and
    hints); the reducer's pivot kind (:data:`~edgedsl.reduce.registry.PivotKind`) says what
    it expects."""
    kind = red.pivot
    if kind == "count":
        if isinstance(lit, n.NumberLit) and isinstance(lit.value, int) \
                and 1 <= lit.value <= TOP_K_MAX:
            return None
        return (f"`{red.surface}` keeps the rows of the k best values, k a whole number from 1 "
                f"to {TOP_K_MAX}; found {format_literal(lit)}",
                [f"write `{red.surface} 3 …`; for every row, leave the step out"])
    if kind == "text":
        if isinstance(lit, n.StringLit):
            return None
        return (f"expected a text in quotes, found {describe_literal(lit)}",
                [f'write it in quotes: `"{format_literal(lit)}"`'])
    if kind == "list":
        if not isinstance(lit, n.ListLit):
            return (f"expected a list of values, found {describe_literal(lit)}",
                    [f"write a list: `[{format_literal(lit)}]`; for one value, `==`"])
        if not lit.items:
            return ("an empty list keeps no row", ["list at least one value: `in [a, b]`"])
        for item in lit.items:
            problem = _value_problem("field", item, field_type)
            if problem is not None:
                return (f"list element `{format_literal(item)}`: {problem[0]}", problem[1])
        return None
    return _value_problem(kind, lit, field_type)


def _value_problem(kind: PivotKind, lit: n.Literal_, field_type: FieldType
                   ) -> tuple[str, list[str]] | None:
    """Why ``lit`` is not a value of pivot kind ``kind`` (a number, a date, or a value of the
    field's own type) for a field of ``field_type``."""
    what = describe_literal(lit)
    if kind == "field":  # a literal of the field's own type
        kind = "number" if is_numeric(field_type) else "date" if is_date(field_type) else kind
    unquote = unquoted_hint(lit.value, kind) if isinstance(lit, n.StringLit) else []
    if kind == "number":
        return (
            None if isinstance(lit, n.NumberLit) else (f"expected a number, found {what}", unquote)
        )
    if kind == "date":
        return None if isinstance(lit, n.DateLit) else (f"expected a date, found {what}", unquote)
    if kind == "field" and field_type == BOOL:
        return (
            None
            if isinstance(lit, n.BoolLit)
            else (f"expected `true` or `false`, found {what}", [])
        )
    if kind == "field":
        p = literal_problem(lit, field_type)
        return None if p is None else (p[2], p[3])
    return None
