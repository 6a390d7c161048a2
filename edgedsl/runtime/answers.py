"""Answers and ``if`` predicates at run time: their statements and their values.

The plan holds each answer field and each ``if`` predicate as a typed query
(:mod:`edgedsl.reduce.answer`, JSON) and nothing else about it. :func:`prepared` turns one into a
:class:`Prepared`: its statement rendered (:mod:`edgedsl.reduce.render`) and its facts derived
(:func:`edgedsl.reduce.answer.facts`: the relations and fields it reads, the shape of its result,
whether it is a whole relation's value) — once per distinct query, keyed by its JSON text, so
runs of one plan, and plans compiled from the same source, prepare each once; answers and
predicates share that one cache. The statement runs through
:func:`edgedsl.runtime.relations.query`, which reads the in-memory relations the query reads
inline (a fallback to the tables is recorded in the trace). A whole relation's value (a field's
distinct values, a row count) is read from its handle when it can be. Values come out as JSON
(:func:`format_value`).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import duckdb
import orjson

from ..core.types import FieldType, ListType, ScalarType, type_from_json
from ..plan.model import AnswerField, PredicateSpec
from ..reduce.answer import (
    And,
    Arith,
    Cmp,
    Distinct,
    Neg,
    Not,
    Or,
    Predicate,
    QueryFacts,
    Round,
    Value,
    facts,
    predicate_from_json,
    value_from_json_data,
)
from ..reduce.coerce import decode_stored, is_json
from ..reduce.render import render_answer, render_predicate
from . import relations
from .duck import Relation
from .trace import FallbackTrace

__all__ = [
    "Prepared",
    "answer_value",
    "format_value",
    "jsonable",
    "predicate_value",
    "prepared",
]


def jsonable(v: Any) -> Any:
    """``v`` as JSON data: ISO dates, integral decimals as ints, other decimals as floats."""
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list | tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    return v


def format_value(v: Any, t: FieldType | None) -> Any:
    """An answer value as JSON: ints for integral types, ISO dates, decoded list and json fields
    (a json field's value is the value itself: an object is a dict, ``3.0`` stays a float)."""
    if v is None:
        return None
    if isinstance(t, ListType) or is_json(t):
        return jsonable(decode_stored(t, v))
    number = isinstance(v, int | float | decimal.Decimal) and not isinstance(v, bool)
    if number and isinstance(t, ScalarType) and t.kind == "int":
        return int(v)
    if number and isinstance(t, ScalarType) and t.kind in ("float", "num"):
        return float(v)
    return jsonable(v)


@dataclass(frozen=True, slots=True)
class Prepared:
    """An answer field's or an ``if`` predicate's query ready to run: its statement ``text``,
    its parameters (shared: copy before binding, :meth:`statement`) and its
    :class:`~edgedsl.reduce.answer.QueryFacts` (``facts.reads`` names what it reads)."""

    text: str
    params: tuple[object, ...]
    facts: QueryFacts
    scalars: tuple[tuple[str, str], ...] = ()
    """The ``(relation, field)`` references it reads as one value (:func:`scalar_refs`)."""

    def statement(self) -> tuple[str, list[object]]:
        """The statement text and a fresh list of its parameters."""
        return self.text, list(self.params)


def scalar_refs(q: Value | Predicate, inside: bool = False) -> list[tuple[str, str]]:
    """The field references ``q`` reads as one value: compared in a predicate, or an operand of
    arithmetic, ``-`` or ``round`` (a field answered on its own is its list of values). A query
    node of another kind is not looked into."""
    if isinstance(q, Distinct):
        return [(q.source, q.field)] if inside else []
    if isinstance(q, Cmp | Arith):
        return [*scalar_refs(q.left, True), *scalar_refs(q.right, True)]
    if isinstance(q, Neg | Round):
        return scalar_refs(q.operand, True)
    if isinstance(q, Not):
        return scalar_refs(q.operand)
    if isinstance(q, And | Or):
        return [r for o in q.operands for r in scalar_refs(o)]
    return []


@functools.lru_cache(maxsize=4096)
def _prepare(kind: Literal["answer", "predicate"], key: bytes) -> Prepared:
    data = orjson.loads(key)
    if kind == "answer":
        value = value_from_json_data(data)
        text, params = render_answer(value)
        return Prepared(text, tuple(params), facts(value), tuple(scalar_refs(value)))
    pred = predicate_from_json(data)
    text, params = render_predicate(pred)
    return Prepared(text, tuple(params), facts(pred), tuple(scalar_refs(pred)))


def prepared(spec: AnswerField | PredicateSpec) -> Prepared:
    """The :class:`Prepared` query of an answer field or an ``if`` predicate (rendered and
    derived once per distinct query: keyed by its JSON text; shared, read-only)."""
    kind: Literal["answer", "predicate"] = (
        "answer" if isinstance(spec, AnswerField) else "predicate")
    return _prepare(kind, orjson.dumps(spec.query))


def predicate_value(con: duckdb.DuckDBPyConnection, rels: Mapping[str, Relation],
                    prep: Prepared, params: list[object], fallbacks: list[FallbackTrace],
                    step: str) -> bool:
    """Whether the prepared predicate ``prep`` (bound to ``params``, a copy of its own) holds;
    NULL is false. Raises ``duckdb.Error`` when the statement fails."""
    row = relations.query(con, rels, prep.text, params, prep.facts.reads, fallbacks,
                          statement="predicate", step=step).fetchone()
    return bool(row and row[0])


#: :func:`_from_handle`'s "no": the value needs its statement.
_NEEDS_SQL = object()


def _from_handle(rels: Mapping[str, Relation], f: QueryFacts, t: FieldType | None) -> Any:
    """A whole relation's value read from its handle (a row count; an in-memory relation's
    distinct values of a field), or :data:`_NEEDS_SQL`."""
    if f.whole is None:
        return _NEEDS_SQL
    ((source, fields),) = f.reads.items()
    rel = rels.get(source)
    if f.whole == "count" and rel is not None:
        return format_value(rel.count(), t)
    if f.whole == "field" and rel is not None and rel.in_memory:
        values = [format_value(v, t) for v in rel.distinct(fields[0])]
        return None if not values else values[0] if len(values) == 1 else values
    return _NEEDS_SQL


def answer_value(con: duckdb.DuckDBPyConnection, rels: Mapping[str, Relation], f: AnswerField,
                 fallbacks: list[FallbackTrace]) -> Any:
    """The JSON value of answer field ``f``: a scalar, or a field's distinct values (one value
    bare, several as a list, none as null). Raises ``duckdb.Error`` when the statement fails."""
    t = None if f.type is None else type_from_json(f.type)
    prep = prepared(f)
    value = _from_handle(rels, prep.facts, t)
    if value is not _NEEDS_SQL:
        return value
    text, params = prep.statement()
    rows = relations.query(con, rels, text, params, prep.facts.reads, fallbacks,
                           statement="answer").fetchall()
    if prep.facts.shape == "scalar":
        return format_value(rows[0][0] if rows else None, t)
    values = [format_value(r[0], t) for r in rows]
    return None if not values else values[0] if len(values) == 1 else values
