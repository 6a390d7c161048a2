"""The typed queries of answers and ``if`` predicates: small trees of frozen dataclasses.

An answer field (``answer e`` / ``answer {name: e}``) compiles to a :data:`Value` and an ``if``
condition to a :data:`Predicate`; the SQL text the runtime runs is *rendered* from them
(:func:`edgedsl.reduce.render.render_answer`, :func:`edgedsl.reduce.render.render_predicate`),
never stored, never read back. Values:

* :class:`Lit` — a literal, bound as a parameter;
* :class:`Distinct` — the distinct non-null values of ``source.field`` in first-occurrence order
  (a field reference; inside an expression it must have one value at run time);
* :class:`Count` — a relation's row count (``count(x)``);
* :class:`Agg` — ``sum`` / ``avg`` / ``min`` / ``max`` of a field over a relation, or
  ``count_distinct``: how many distinct non-null values it holds;
* :class:`Arith`, :class:`Neg`, :class:`Round` — arithmetic over values.

Predicates (three-valued; the runtime reads NULL as false): :class:`Cmp` (two values compared by
a surface operator ``==`` ``!=`` ``<`` ``<=`` ``>`` ``>=``), :class:`Exists`, :class:`Not`,
:class:`And`, :class:`Or`.

The plan stores them as JSON (:func:`to_json`, :func:`value_from_json_data`,
:func:`predicate_from_json`) and nothing derived from them: :func:`reads` names the relations and
fields a query reads, and :func:`facts` derives everything the runtime needs to know about a
query besides its text (what it reads, the shape of its result, whether it is a whole
relation's value) — the one place these are worked out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from ..core.source import fast_frozen_init
from .query import value_from_json, value_to_json

__all__ = [
    "Agg",
    "And",
    "Arith",
    "Cmp",
    "Count",
    "Distinct",
    "Exists",
    "Lit",
    "Neg",
    "Not",
    "Or",
    "Predicate",
    "QueryFacts",
    "Round",
    "Value",
    "facts",
    "predicate_from_json",
    "reads",
    "to_json",
    "value_from_json_data",
]

AggFn = Literal["sum", "avg", "min", "max", "count_distinct"]
ArithOp = Literal["+", "-", "*", "/"]
CmpOp = Literal["==", "!=", "<", "<=", ">", ">="]
_AGG_FNS: tuple[str, ...] = ("sum", "avg", "min", "max", "count_distinct")
_ARITH_OPS: tuple[str, ...] = ("+", "-", "*", "/")
_CMP_OPS: tuple[str, ...] = ("==", "!=", "<", "<=", ">", ">=")


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Lit:
    """A literal value (``None``, bool, int, float, str or date), bound as a parameter."""

    value: object


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Distinct:
    """The distinct non-null values of ``source.field``, in first-occurrence (``__row``) order."""

    source: str
    field: str


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Count:
    """The number of rows of relation ``source``."""

    source: str


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Agg:
    """``fn`` (``sum`` / ``avg`` / ``min`` / ``max`` / ``count_distinct``) of
    ``source.field``."""

    fn: AggFn
    source: str
    field: str


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Arith:
    """``left op right`` for ``op`` in ``+ - * /``."""

    op: ArithOp
    left: Value
    right: Value


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Neg:
    """``-operand``."""

    operand: Value


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Round:
    """``operand`` rounded to ``digits`` decimal digits (half away from zero); with ``digits``
    0 the result is an integer (null beyond the 128-bit range)."""

    operand: Value
    digits: int


Value: TypeAlias = Lit | Distinct | Count | Agg | Arith | Neg | Round


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Cmp:
    """``left op right`` for a surface comparison operator (``==`` ``!=`` ``<`` …)."""

    op: CmpOp
    left: Value
    right: Value


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Exists:
    """True when relation ``source`` has a row."""

    source: str


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Not:
    """The negation of ``operand``."""

    operand: Predicate


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class And:
    """All of ``operands``."""

    operands: tuple[Predicate, ...]


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Or:
    """Any of ``operands``."""

    operands: tuple[Predicate, ...]


Predicate: TypeAlias = Cmp | Exists | Not | And | Or


# ---------------------------------------------------------------- reads


def reads(q: Value | Predicate) -> dict[str, list[str]]:
    """The relations ``q`` reads, each with the fields it reads (sorted; a relation read only
    as a whole, by :class:`Count` or :class:`Exists`, with none)."""
    out: dict[str, set[str]] = {}
    _reads(q, out)
    return {src: sorted(fields) for src, fields in sorted(out.items())}


def _reads(q: Value | Predicate, out: dict[str, set[str]]) -> None:
    if isinstance(q, Distinct | Agg):
        out.setdefault(q.source, set()).add(q.field)
    elif isinstance(q, Count | Exists):
        out.setdefault(q.source, set())
    elif isinstance(q, Arith | Cmp):
        _reads(q.left, out)
        _reads(q.right, out)
    elif isinstance(q, Neg | Round | Not):
        _reads(q.operand, out)
    elif isinstance(q, And | Or):
        for o in q.operands:
            _reads(o, out)


@dataclass(frozen=True, slots=True)
class QueryFacts:
    """What a query's typed form says besides its SQL (:func:`facts`).

    ``reads``: the relations it reads, each with the fields it reads (as :func:`reads`; read-only,
    tuples). ``shape``: ``values`` — rows of a field's distinct non-null values in
    first-occurrence order (a field reference, :class:`Distinct`) — or ``scalar``, one row with
    one value (every other value; a predicate's boolean). ``whole``: the value is a whole
    relation's, so it can be read from the relation itself — ``field``, the distinct values of
    its one field read, or ``count``, its row count — or None."""

    reads: Mapping[str, tuple[str, ...]]
    shape: Literal["values", "scalar"]
    whole: Literal["field", "count"] | None


def facts(q: Value | Predicate) -> QueryFacts:
    """The :class:`QueryFacts` of an answer value or a predicate, derived from the query alone
    (the plan stores only the query, so these cannot disagree with it)."""
    read = MappingProxyType({src: tuple(fields) for src, fields in reads(q).items()})
    if isinstance(q, Distinct):
        return QueryFacts(read, "values", "field")
    return QueryFacts(read, "scalar", "count" if isinstance(q, Count) else None)


# ---------------------------------------------------------------- JSON


def to_json(q: Value | Predicate) -> dict[str, Any]:
    """The query as JSON data, a ``kind`` tag per node (dates and big ints tagged as in
    :func:`edgedsl.reduce.query.value_to_json`)."""
    if isinstance(q, Lit):
        return {"kind": "lit", "value": value_to_json(q.value)}
    if isinstance(q, Distinct):
        return {"kind": "field", "source": q.source, "field": q.field}
    if isinstance(q, Count):
        return {"kind": "count", "source": q.source}
    if isinstance(q, Agg):
        return {"kind": "agg", "fn": q.fn, "source": q.source, "field": q.field}
    if isinstance(q, Arith):
        return {"kind": "arith", "op": q.op, "left": to_json(q.left), "right": to_json(q.right)}
    if isinstance(q, Neg):
        return {"kind": "neg", "operand": to_json(q.operand)}
    if isinstance(q, Round):
        return {"kind": "round", "operand": to_json(q.operand), "digits": q.digits}
    if isinstance(q, Cmp):
        return {"kind": "cmp", "op": q.op, "left": to_json(q.left), "right": to_json(q.right)}
    if isinstance(q, Exists):
        return {"kind": "exists", "source": q.source}
    if isinstance(q, Not):
        return {"kind": "not", "operand": to_json(q.operand)}
    return {"kind": "and" if isinstance(q, And) else "or",
            "operands": [to_json(o) for o in q.operands]}


def _str(data: Mapping[str, Any], key: str) -> str:
    v = data.get(key)
    if not isinstance(v, str):
        raise ValueError(f"a {data.get('kind')} query names its {key}, not {v!r}")
    return v


def _node(data: object) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ValueError(f"a query node is an object, not {data!r}")
    return data


def value_from_json_data(data: object) -> Value:
    """The :data:`Value` of :func:`to_json`'s data; ValueError when it is not one."""
    d = _node(data)
    kind = d.get("kind")
    if kind == "lit":
        return Lit(value_from_json(d.get("value")))
    if kind == "field":
        return Distinct(_str(d, "source"), _str(d, "field"))
    if kind == "count":
        return Count(_str(d, "source"))
    if kind == "agg":
        fn = d.get("fn")
        if fn not in _AGG_FNS:
            raise ValueError(f"an aggregate is one of {_AGG_FNS}, not {fn!r}")
        return Agg(fn, _str(d, "source"), _str(d, "field"))
    if kind == "arith":
        op = d.get("op")
        if op not in _ARITH_OPS:
            raise ValueError(f"an arithmetic operator is one of {_ARITH_OPS}, not {op!r}")
        return Arith(op, value_from_json_data(d.get("left")),
                     value_from_json_data(d.get("right")))
    if kind == "neg":
        return Neg(value_from_json_data(d.get("operand")))
    if kind == "round":
        digits = d.get("digits")
        if isinstance(digits, bool) or not isinstance(digits, int):
            raise ValueError(f"round's digits are an integer, not {digits!r}")
        return Round(value_from_json_data(d.get("operand")), digits)
    raise ValueError(f"unknown value query {kind!r}")


def predicate_from_json(data: object) -> Predicate:
    """The :data:`Predicate` of :func:`to_json`'s data; ValueError when it is not one."""
    d = _node(data)
    kind = d.get("kind")
    if kind == "cmp":
        op = d.get("op")
        if op not in _CMP_OPS:
            raise ValueError(f"a comparison operator is one of {_CMP_OPS}, not {op!r}")
        return Cmp(op, value_from_json_data(d.get("left")), value_from_json_data(d.get("right")))
    if kind == "exists":
        return Exists(_str(d, "source"))
    if kind == "not":
        return Not(predicate_from_json(d.get("operand")))
    if kind in ("and", "or"):
        operands = d.get("operands")
        if not isinstance(operands, list) or not operands:
            raise ValueError(f"an {kind} predicate has a list of operands")
        parts = tuple(predicate_from_json(o) for o in operands)
        return And(parts) if kind == "and" else Or(parts)
    raise ValueError(f"unknown predicate {kind!r}")
