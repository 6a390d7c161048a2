"""A plan's typed queries written back in the language's own spelling, for drawings and
summaries: a reducer (``where clpr >= 55000``, ``max rcept_dt``), an ``if`` predicate
(``count(top) > 0 and exists(filings)``) and an answer value (``round(avg(trades.price), 1)``).

Written from the plan's JSON forms (``DrvStep.reducers``, :func:`edgedsl.reduce.answer.to_json`),
never from SQL. A query node this module does not know is written as its kind and its
operands, so a new kind of node is drawn (less prettily) before it is taught here."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from ..core.values import decode_value
from ..reduce.query import value_from_json
from ..reduce.registry import REDUCERS

__all__ = ["literal_text", "predicate_text", "reducer_text", "value_text"]

_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def literal_text(value: object) -> str:
    """A literal as source writes it: ``"법률"``, ``55000``, ``2024-12-27``, ``true``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal_text(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def reducer_text(step: Mapping[str, Any]) -> str:
    """One step of a ``drv`` chain as written (``DrvStep.reducers`` entry)."""
    op, field = str(step.get("op")), str(step.get("field"))
    red = REDUCERS.get(op)
    if red is None:
        return f"{op} {field}"
    if red.needs_pivot:
        return f"where {field} {red.surface} {literal_text(decode_value(step.get('pivot')))}"
    return f"{red.surface} {field}"


def _prec(q: Mapping[str, Any]) -> int:
    if q.get("kind") == "arith":
        return _PREC.get(str(q.get("op")), 1)
    if q.get("kind") == "neg":
        return 3
    return 4


def value_text(q: Mapping[str, Any]) -> str:
    """An answer or predicate value (:func:`edgedsl.reduce.answer.to_json` data) as written."""
    kind = q.get("kind")
    if kind == "lit":
        return literal_text(value_from_json(q.get("value")))
    if kind == "field":
        return f"{q.get('source')}.{q.get('field')}"
    if kind == "count":
        return f"count({q.get('source')})"
    if kind == "agg":
        return f"{q.get('fn')}({q.get('source')}.{q.get('field')})"
    if kind == "arith":
        p = _PREC.get(str(q.get("op")), 1)
        left, right = _node(q.get("left")), _node(q.get("right"))
        lt, rt = value_text(left), value_text(right)
        lt = f"({lt})" if _prec(left) < p else lt
        rt = f"({rt})" if _prec(right) <= p else rt
        return f"{lt} {q.get('op')} {rt}"
    if kind == "neg":
        operand = _node(q.get("operand"))
        inner = value_text(operand)
        return f"-({inner})" if _prec(operand) < 3 else f"-{inner}"
    if kind == "round":
        return f"round({value_text(_node(q.get('operand')))}, {q.get('digits')})"
    return _generic(q)


def _pred_prec(q: Mapping[str, Any]) -> int:
    return {"or": 1, "and": 2, "not": 3}.get(str(q.get("kind")), 4)


def predicate_text(q: Mapping[str, Any]) -> str:
    """An ``if`` predicate (:func:`edgedsl.reduce.answer.to_json` data) as written."""
    kind = q.get("kind")

    def sub(x: object, need: int) -> str:
        node = _node(x)
        text = predicate_text(node)
        return f"({text})" if _pred_prec(node) < need else text

    if kind == "cmp":
        return (f"{value_text(_node(q.get('left')))} {q.get('op')} "
                f"{value_text(_node(q.get('right')))}")
    if kind == "exists":
        return f"exists({q.get('source')})"
    if kind == "not":
        return "not " + sub(q.get("operand"), 3)
    if kind in ("and", "or"):
        need = 3 if kind == "and" else 2
        return f" {kind} ".join(sub(o, need) for o in q.get("operands") or ())
    return _generic(q)


def _node(x: object) -> Mapping[str, Any]:
    return x if isinstance(x, Mapping) else {"kind": "lit", "value": x}


def _generic(q: Mapping[str, Any]) -> str:
    """A node of a kind not taught here: ``kind(operand, …)``."""
    parts = []
    for k, v in q.items():
        if k == "kind":
            continue
        if isinstance(v, Mapping) and "kind" in v:
            parts.append(value_text(v) if v.get("kind") not in ("cmp", "exists", "not", "and",
                                                                  "or") else predicate_text(v))
        else:
            parts.append(literal_text(v) if not isinstance(v, Mapping) else json.dumps(v))
    return f"{q.get('kind')}({', '.join(parts)})"
