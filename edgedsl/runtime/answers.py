"""Answers and ``if`` predicates at run time: their statements and their values.

The plan holds each answer field and each ``if`` predicate as a typed query
(:mod:`edgedsl.reduce.answer`, JSON); :func:`answer_statement` / :func:`predicate_statement`
render it (:mod:`edgedsl.reduce.render`) once per distinct query — keyed by its JSON text, so
runs of one plan, and plans compiled from the same source, render each once. The statement runs
through :func:`edgedsl.runtime.relations.query`, which reads the in-memory relations the plan's
``reads`` name inline (a fallback to the tables is recorded in the trace). A whole relation's
value (``whole``: a field's distinct values, a row count) is read from its handle when it can
be. Values come out as JSON (:func:`format_value`).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
from collections.abc import Mapping
from typing import Any

import duckdb
import orjson

from ..core.types import FieldType, ListType, ScalarType, type_from_json
from ..plan.model import AnswerField, PredicateSpec
from ..reduce.answer import predicate_from_json, value_from_json_data
from ..reduce.coerce import decode_stored, is_json
from ..reduce.render import render_answer, render_predicate
from . import relations
from .duck import Relation
from .trace import FallbackTrace

__all__ = [
    "answer_statement",
    "answer_value",
    "format_value",
    "jsonable",
    "predicate_statement",
    "predicate_value",
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


@functools.lru_cache(maxsize=4096)
def _answer_text(key: bytes) -> tuple[str, tuple[object, ...]]:
    text, params = render_answer(value_from_json_data(orjson.loads(key)))
    return text, tuple(params)


@functools.lru_cache(maxsize=4096)
def _predicate_text(key: bytes) -> tuple[str, tuple[object, ...]]:
    text, params = render_predicate(predicate_from_json(orjson.loads(key)))
    return text, tuple(params)


def answer_statement(f: AnswerField) -> tuple[str, list[object]]:
    """The statement an answer field runs and its parameters (a fresh list)."""
    text, params = _answer_text(orjson.dumps(f.query))
    return text, list(params)


def predicate_statement(p: PredicateSpec) -> tuple[str, list[object]]:
    """The statement an ``if`` predicate runs and its parameters (a fresh list)."""
    text, params = _predicate_text(orjson.dumps(p.query))
    return text, list(params)


def predicate_value(con: duckdb.DuckDBPyConnection, rels: Mapping[str, Relation],
                    p: PredicateSpec, text: str, params: list[object],
                    fallbacks: list[FallbackTrace], step: str) -> bool:
    """Whether predicate ``p`` (rendered as ``text`` with ``params``) holds; NULL is false.
    Raises ``duckdb.Error`` when the statement fails."""
    row = relations.query(con, rels, text, params, p.reads, fallbacks, statement="predicate",
                          step=step).fetchone()
    return bool(row and row[0])


def answer_value(con: duckdb.DuckDBPyConnection, rels: Mapping[str, Relation], f: AnswerField,
                 fallbacks: list[FallbackTrace]) -> Any:
    """The JSON value of answer field ``f``: a scalar, or a field's distinct values (one value
    bare, several as a list, none as null). Raises ``duckdb.Error`` when the statement fails."""
    t = None if f.type is None else type_from_json(f.type)
    if f.whole is not None:
        ((source, fields),) = f.reads.items()
        rel = rels.get(source)
        if f.whole == "count" and rel is not None:
            return format_value(rel.count(), t)
        if f.whole == "field" and rel is not None and rel.in_memory:
            values = [format_value(v, t) for v in rel.distinct(fields[0])]
            return None if not values else values[0] if len(values) == 1 else values
    text, params = answer_statement(f)
    rows = relations.query(con, rels, text, params, f.reads, fallbacks,
                           statement="answer").fetchall()
    if f.shape == "scalar":
        return format_value(rows[0][0] if rows else None, t)
    values = [format_value(r[0], t) for r in rows]
    return None if not values else values[0] if len(values) == 1 else values
