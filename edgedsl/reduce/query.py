"""The typed query of one reduction: a source relation and the filters its reducers build.

A ``drv`` chain is compiled once into a :class:`ReduceQuery` — a small tree of frozen dataclasses
— and every SQL text the runtime runs is *rendered* from it (:mod:`edgedsl.reduce.render`): no
module reads structure back out of SQL text. Each reducer of the registry
(:mod:`edgedsl.reduce.registry`) builds one filter:

* :class:`Compare` — a condition on the row's own value against one bound value
  (``where f >= p``, ``== v``, ``!= v``, ``after d``, ``before d``, ``contains "t"``,
  ``starts_with "t"``);
* :class:`Member` — the row's value is one of several bound values (``where f in [a, b]``);
* :class:`KeepNone` — no row at all (a pivot that does not coerce to the field's type);
* :class:`Present` — every row whose field is not null (``where f != v`` with a ``v`` that does
  not coerce: no value equals it);
* :class:`Extreme` — rows whose field equals the relation's ``max`` / ``min`` (a window in the
  window form, a scalar subquery in the table form);
* :class:`Rank` — rows among the ``k`` largest / smallest non-null values, ties at the
  boundary kept (``top k f``, ``bottom k f``; a window or a scalar subquery, like
  :class:`Extreme`);
* :class:`Mode` — rows holding the most frequent non-null value (ties: the smallest; the
  perturbation check of :mod:`edgedsl.runtime.perturb` runs it with ``ties="largest"``).

The query is plain data: :meth:`ReduceQuery.to_json` / :meth:`ReduceQuery.from_json` are what the
plan stores, and :meth:`ReduceQuery.params` are the values bound, in filter order (one per
:class:`Compare`, one per element of a :class:`Member`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from edgedsl.core.source import fast_frozen_init
from edgedsl.core.values import decode_value, encode_value

__all__ = [
    "Compare",
    "CompareOp",
    "Extreme",
    "Filter",
    "KeepNone",
    "Member",
    "Mode",
    "Present",
    "Rank",
    "ReduceQuery",
    "value_from_json",
    "value_to_json",
]

CompareOp = Literal[">=", "<=", "=", ">", "<>", "<", "contains", "starts_with"]
_COMPARE_OPS: tuple[str, ...] = (">=", "<=", "=", ">", "<>", "<", "contains", "starts_with")
#: The comparisons written as a function of the column and the value (text only), not infix.
TEXT_OPS: frozenset[str] = frozenset({"contains", "starts_with"})
#: The SQL types a compared value is cast to (a bound value is typed by DuckDB otherwise).
_CASTS = frozenset({"HUGEINT", "DOUBLE", "DATE", "BIGINT", "VARCHAR", "BOOLEAN"})


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Compare:
    """Keep the rows whose ``field`` compares by ``op`` with ``value`` cast to ``cast``
    (``"f" >= CAST(? AS HUGEINT)``; ``contains`` / ``starts_with`` as DuckDB's functions of
    that name, code points compared exactly); a null never satisfies it."""

    field: str
    op: CompareOp
    cast: str
    value: object


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class KeepNone:
    """Keep no row (the pivot did not coerce to the field's type)."""


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Present:
    """Keep the rows whose ``field`` is not null."""

    field: str


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Extreme:
    """Keep the rows whose ``field`` equals its ``fn`` (``max`` / ``min``) over the relation."""

    field: str
    fn: Literal["max", "min"]


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Mode:
    """Keep the rows whose ``field`` holds the most frequent non-null value; among values tied
    at the top count, ``ties`` picks the smallest (the language's rule) or, as a run-time
    perturbation only, the largest."""

    field: str
    ties: Literal["smallest", "largest"] = "smallest"


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Member:
    """Keep the rows whose ``field`` equals one of ``values`` (each cast to ``cast``; at least
    one); a null never does."""

    field: str
    cast: str
    values: tuple[object, ...]


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class Rank:
    """Keep the rows whose ``field`` is among the ``k`` largest (``fn`` ``max``: ``top k``) or
    smallest (``min``: ``bottom k``) non-null values counted with repetition — a row's rank
    (1 + the rows strictly better) is at most ``k`` — so rows tied at the boundary are all kept
    and more than ``k`` rows may be; nulls are never kept."""

    field: str
    fn: Literal["max", "min"]
    k: int


Filter = Compare | KeepNone | Present | Extreme | Mode | Member | Rank


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class ReduceQuery:
    """A reduction: ``source`` (a relation name, or ``(schema, name)``) narrowed by ``filters``
    left to right; the result keeps every column of the kept rows, in ``__row`` order."""

    source: str | tuple[str, ...]
    filters: tuple[Filter, ...]

    def params(self) -> list[object]:
        """The values bound by the rendered statement, in order (one per :class:`Compare`, one
        per value of a :class:`Member`)."""
        out: list[object] = []
        for f in self.filters:
            if isinstance(f, Compare):
                out.append(f.value)
            elif isinstance(f, Member):
                out.extend(f.values)
        return out

    def fields(self) -> tuple[str, ...]:
        """The fields the query reads, each once, in first-use order."""
        seen: dict[str, None] = {}
        for f in self.filters:
            if not isinstance(f, KeepNone):
                seen.setdefault(f.field, None)
        return tuple(seen)

    def skeleton(self) -> ReduceQuery:
        """The query with its bound values left out: everything a rendered text depends on
        (values are bound, never rendered), so texts are cached by it."""
        if not any((isinstance(f, Compare) and f.value is not None)
                   or (isinstance(f, Member) and any(v is not None for v in f.values))
                   for f in self.filters):
            return self
        return ReduceQuery(self.source, tuple(_skeleton(f) for f in self.filters))

    def ties_to(self, ties: Literal["smallest", "largest"]) -> ReduceQuery:
        """The query with every :class:`Mode` breaking its ties toward ``ties`` (the
        opposite policy is a perturbation of :mod:`edgedsl.runtime.perturb`)."""
        if not any(isinstance(f, Mode) and f.ties != ties for f in self.filters):
            return self
        return ReduceQuery(self.source, tuple(
            Mode(f.field, ties) if isinstance(f, Mode) else f for f in self.filters))

    def has_window(self, form: str) -> bool:
        """True when the rendering in ``form`` holds a whole-relation window (an
        :class:`Extreme` in the window form)."""
        return form == "window" and any(isinstance(f, Extreme | Rank) for f in self.filters)

    def to_json(self) -> dict[str, Any]:
        """The query as JSON data (dates tagged ``{"$date": …}``; see :meth:`from_json`)."""
        return {"source": self.source if isinstance(self.source, str) else list(self.source),
                "filters": [_filter_json(f) for f in self.filters]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReduceQuery:
        """The query of :meth:`to_json`'s data; ValueError when it is not one."""
        source = data.get("source")
        if isinstance(source, list) and source and all(isinstance(s, str) for s in source):
            source = tuple(source)
        elif not isinstance(source, str):
            raise ValueError(f"a reduction's source is a name, not {source!r}")
        filters = data.get("filters")
        if not isinstance(filters, list):
            raise ValueError("a reduction's filters are a list")
        return cls(source, tuple(_filter_of(f) for f in filters))


def _skeleton(f: Filter) -> Filter:
    if isinstance(f, Compare):
        return Compare(f.field, f.op, f.cast, None)
    if isinstance(f, Member):  # the text depends on how many values, never on them
        return Member(f.field, f.cast, (None,) * len(f.values))
    return f


def _filter_json(f: Filter) -> dict[str, Any]:
    if isinstance(f, Member):
        return {"kind": "member", "field": f.field, "cast": f.cast,
                "values": [value_to_json(v) for v in f.values]}
    if isinstance(f, Rank):
        return {"kind": "rank", "field": f.field, "fn": f.fn, "k": f.k}
    if isinstance(f, Present):
        return {"kind": "present", "field": f.field}
    if isinstance(f, Compare):
        return {"kind": "compare", "field": f.field, "op": f.op, "cast": f.cast,
                "value": value_to_json(f.value)}
    if isinstance(f, Extreme):
        return {"kind": "extreme", "field": f.field, "fn": f.fn}
    if isinstance(f, Mode):
        if f.ties == "largest":
            return {"kind": "mode", "field": f.field, "ties": "largest"}
        return {"kind": "mode", "field": f.field}
    return {"kind": "none"}


def value_to_json(v: object) -> object:
    """A bound value (null, bool, number, text or date) as JSON, tagged as the plan tags values
    (:func:`edgedsl.core.values.encode_value`)."""
    if not _is_bound(v):
        raise ValueError(f"not a bound value: {v!r}")
    return encode_value(v)


def value_from_json(v: object) -> object:
    """Inverse of :func:`value_to_json`; ValueError when ``v`` is not a bound value."""
    try:
        out = decode_value(v)
    except (TypeError, ValueError):
        out = v  # a malformed tag: refused below
    if not _is_bound(out):
        raise ValueError(f"not a bound value: {v!r}")
    return out


def _is_bound(v: object) -> bool:
    return v is None or isinstance(v, bool | int | float | str | _dt.date)


def _filter_of(data: object) -> Filter:
    if not isinstance(data, Mapping):
        raise ValueError(f"a reduction filter is an object, not {data!r}")
    kind = data.get("kind")
    if kind == "none":
        return KeepNone()
    field = data.get("field")
    if not isinstance(field, str):
        raise ValueError(f"a {kind} filter names its field")
    if kind == "mode":
        ties = data.get("ties", "smallest")
        if ties not in ("smallest", "largest"):
            raise ValueError(f"a mode filter's ties go to the smallest or largest, not {ties!r}")
        return Mode(field, ties)
    if kind == "extreme":
        fn = data.get("fn")
        if fn not in ("max", "min"):
            raise ValueError(f"an extreme filter is max or min, not {fn!r}")
        return Extreme(field, fn)
    if kind == "present":
        return Present(field)
    if kind == "member":
        cast, values = data.get("cast"), data.get("values")
        if cast not in _CASTS or not isinstance(values, list) or not values:
            raise ValueError(f"a member filter has a cast and values: {cast!r} {values!r}")
        return Member(field, cast, tuple(value_from_json(v) for v in values))
    if kind == "rank":
        fn, k = data.get("fn"), data.get("k")
        if fn not in ("max", "min") or isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"a rank filter is max or min over k >= 1, not {fn!r} {k!r}")
        return Rank(field, fn, k)
    if kind == "compare":
        op, cast, value = data.get("op"), data.get("cast"), data.get("value")
        if op not in _COMPARE_OPS or cast not in _CASTS:
            raise ValueError(f"a compare filter has an operator and a cast: {op!r} {cast!r}")
        return Compare(field, op, cast, value_from_json(value))
    raise ValueError(f"unknown reduction filter {kind!r}")
