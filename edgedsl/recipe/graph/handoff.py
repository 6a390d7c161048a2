"""Values a rollout hands on when its ``most_frequent`` hand-off was a tie (issue 18 §4).

A rollout narrows the source's records to one value with ``most_frequent FIELD``. When the
values are tied for the top count (every value appears once, the common case for an id field)
the language's tie-break hands on the *smallest* one: an arbitrary record, e.g. the oldest
election of ``nec.elections``, which has no candidates. Judging the edge on that value alone
would prune real edges. So when the runtime's tie facts say the hand-off broke a tie
(:class:`~edgedsl.runtime.trace.TieTrace` ``broken``) and the target returned nothing, the
edge is judged again through a **fan**: :func:`fan_values` chooses up to φ (5) distinct values
the source really produced, by a deterministic rule, and the edge succeeds when the target
returns records for at least one of them (:func:`edgedsl.recipe.graph.rollout.run_paths`).

The rule (:func:`fan_values`): the distinct hand-offs are ordered — **latest first** when the
source's records carry a date field (the first of the source's declared ``date`` fields holding
a value; records of one date in input order), else in the type's order (the tie-break's choice
first) — and φ of them are taken **evenly spread** from the first to the last, both included.
The latest value alone is not enough: NEC's election list ends with the coming 지방선거, which
has no registered candidates yet, as the real service's does; the spread covers the source's
range (the latest, the oldest and three between) instead of a run of neighbours.

A hand-off is one record's values of every bound field (``sgId`` with its ``sgTypecode``);
distinct hand-offs are counted, so the latest election's several types are several values. A
record whose value does not fit the target's parameter (a code type's pattern, an enum's
members) is skipped. The source's records are read again for it, up to :data:`SOURCE_PAGES`
pages when the tool is paged (a rollout reads one page; the latest records of a chronological
list are on its last pages).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.types import CodeType
from ...reduce.coerce import coerce_bool, coerce_date, coerce_float, coerce_int
from .model import Binding, Scalar, ToolNode
from .observe import value_ok

__all__ = ["PHI", "SOURCE_PAGES", "arg_value", "fan_values"]

PHI = 5
"""The most values a tied hand-off is judged through (the language's fan bound φ)."""

SOURCE_PAGES = 10
"""Pages of a paged source read for :func:`fan_values` (``pages 10``: bounded, never an error)."""

Args = tuple[tuple[str, Scalar], ...]


def arg_value(port_type: str, raw: object) -> Scalar | None:
    """``raw`` (a record's value) as a literal argument of a parameter of type ``port_type``
    (``date`` as an ISO string, numbers and booleans coerced, anything else as text), or
    None when it is null, empty or does not coerce."""
    if raw is None or raw == "":
        return None
    if port_type == "date":
        d = raw if isinstance(raw, _dt.date) else coerce_date(raw)
        return d.isoformat() if d is not None else None
    if port_type == "int":
        return coerce_int(raw)
    if port_type in ("float", "num"):
        return coerce_float(raw)
    if port_type == "bool":
        return coerce_bool(raw)
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    return raw if isinstance(raw, str) else str(raw)


def _order_key(v: Scalar) -> tuple[int, Any]:
    if isinstance(v, bool):
        return (0, int(v))
    return (0, v) if isinstance(v, int | float) else (1, str(v))


def _date_field(source: ToolNode, rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The first declared ``date`` field of ``source`` that some record holds."""
    for port in source.fields:
        if port.type == "date" and any(coerce_date(r.get(port.name)) for r in rows):
            return port.name
    return None


def _spread(n: int, k: int) -> list[int]:
    """``k`` indexes evenly spread over ``0 … n-1``, both ends included (all when n ≤ k)."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [0]
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def fan_values(rows: Sequence[Mapping[str, Any]], source: ToolNode, target: ToolNode,
               bindings: Sequence[Binding], codes: Mapping[str, CodeType], *,
               phi: int = PHI) -> list[Args]:
    """Up to ``phi`` hand-offs of ``bindings`` (the first binding's field primary) drawn from
    the source's records ``rows`` by the module's rule: per value, the target parameters'
    arguments, each fitting its parameter. Empty when no record holds a fitting value."""
    params = {p.name: p for p in target.params}
    bound = [b for b in bindings if b.param in params]
    if not bound:
        return []

    def args_of(row: Mapping[str, Any]) -> Args | None:
        out: list[tuple[str, Scalar]] = []
        for b in bound:
            port = params[b.param]
            v = arg_value(port.type, row.get(b.field))
            if v is None or not value_ok(port, v, codes):
                return None
            out.append((b.param, v))
        return tuple(out)

    date = _date_field(source, rows)
    ordered: list[tuple[Mapping[str, Any], Args]] = []
    for row in rows:
        got = args_of(row)
        if got is not None:
            ordered.append((row, got))
    if date is not None:
        def latest(item: tuple[Mapping[str, Any], Args]) -> int:
            d = coerce_date(item[0].get(date))
            return -d.toordinal() if d is not None else 1  # undated records last
        ordered.sort(key=latest)  # stable: input order among records of the same date
    first: dict[Args, None] = {}
    for _, got in ordered:
        first.setdefault(got, None)
    values = list(first) if date is not None else sorted(
        first, key=lambda a: tuple(_order_key(v) for _, v in a))
    return [values[i] for i in _spread(len(values), phi)]
