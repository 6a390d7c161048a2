"""Junction typing: how an upstream relation's records reach a downstream parameter.

Given the records a step returned and the fields an edge binds (the *hand-off* fields, the first
one primary), :func:`type_junction` types the junction by the number ``d`` of distinct
(coerced, non-null) values of the primary field:

* ``d = 1`` → **seq**;
* ``2 ≤ d ≤ φ`` → **fan** (one call per value);
* ``d > φ`` → **drv**: a reducer first narrows the records (the hand-off field and up to
  :data:`FIELDS` other fields, a sample fixed per relation, are tried). The reducer follows
  the type of the field it reads — numbers: ``max``, ``min``, ``>=``, ``<=``; dates: ``max``,
  ``min``, ``after``; enums: ``==``; anything else: ``most_frequent`` — and a threshold or
  equality pivot is taken from the observed values (:func:`edgedsl.reduce.pivot.choose_pivot`) so
  that 1 … φ distinct hand-off values remain. Among the reducers that work one is drawn;
  ``most_frequent`` on the hand-off field itself (always one value) is the fallback.

Secondary hand-off fields must have exactly one value where the primary is handed off; when they
do not, ``most_frequent`` steps narrow them (the primary to one value first).

A narrowing reads a field a question narrows by (issue 18 §2–§3): with the catalog's
declarations (:class:`Columns` ``ops``, :func:`edgedsl.recipe.synth.knowable.column_ops`) an
amount, a count, a size or a score (a number with a unit) by ``max``/``min``/thresholds, a date
that is not record-keeping by ``max``/``min``/``after``, a category by ``==``/``most_frequent``,
an entity code by ``most_frequent``, an entity's name by ``==`` — never an address, a floor, a
coordinate or an order. A narrowing must mean something (issue 18 §2, the rules of
:mod:`edgedsl.recipe.synth.meaning`
applied before anything runs): it must hand on fewer distinct values than it was given (no
no-op ``drv``), and a ``most_frequent`` step must not choose among values tied for the top
count (:func:`mf_tie`; a field whose values are all distinct is the purest tie). A junction
that could only be narrowed by a tie is not proposed (None).
Every reduction is evaluated here with the reducers' pure-Python reference — the semantics the
DuckDB SQL is tested against — so the typing holds when the program runs.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...core.types import FieldType
from ...reduce.pivot import choose_pivot_on_columns
from ...reduce.registry import REDUCERS, SYNTH_OPS, coerced_column, synth_words

__all__ = ["Columns", "JunctionPlan", "Prefer", "ReduceChoice", "distinct", "mf_tie",
           "narrowings", "reducer_ops", "stated", "type_junction", "value_key"]

Prefer = Literal["any", "seq", "fan"]
"""The hand-off kind a narrowing is drawn toward when both would work."""

#: candidate reducer fields evaluated per junction: the hand-off field and ``FIELDS`` others
#: drawn at random (``FEW`` others above ``LARGE`` rows) — each evaluation coerces every row
FIELDS = 5
LARGE = 5_000
FEW = 2
#: stated names proposed per name field and relation (equality on each is a candidate)
NAMES = 3


@dataclass(frozen=True)
class ReduceChoice:
    """One reducer step: ``op`` on ``field`` with an optional ``pivot`` (a coerced value)."""

    op: str
    field: str
    pivot: object | None = None


@dataclass(frozen=True)
class JunctionPlan:
    """A typed junction: ``kind`` (``drv`` when ``steps`` narrow first), the kind the hand-off
    then has (``seq`` or ``fan``), the distinct hand-off values before (``cardinality``) and
    after narrowing (``passed``, ``values``), and every value of every bound field handed on
    (``handed``, as text)."""

    kind: Literal["seq", "fan", "drv"]
    handoff: Literal["seq", "fan"]
    steps: tuple[ReduceChoice, ...]
    cardinality: int
    passed: int
    values: tuple[Any, ...] = ()
    handed: frozenset[str] = frozenset()


def mf_tie(values: Sequence[Any]) -> str | None:
    """``"distinct"`` when the non-null ``values`` are several and all distinct, ``"tie"`` when
    two or more share the top count, else None (``most_frequent`` picks by the data, not by
    its tie-break)."""
    counts = Counter(value_key(v) for v in values if v is not None)
    if len(counts) < 2:
        return None
    top = counts.most_common(2)
    if top[0][1] == 1:
        return "distinct"
    return "tie" if top[0][1] == top[1][1] else None


def value_key(v: object) -> object:
    """A coerced value as a set member: equal values are one value (``0.0`` and ``-0.0``), a
    list or a mapping by its text (:func:`distinct`, :func:`~.wanted.is_constant`)."""
    return repr(v) if isinstance(v, list | dict) else v


def _distinct_of(values: Sequence[Any]) -> list[Any]:
    seen: dict[object, Any] = {}
    for v in values:
        if v is not None:
            seen.setdefault(value_key(v), v)
    return list(seen.values())


def distinct(rows: Sequence[Mapping[str, Any]], field: str, ftype: FieldType) -> list[Any]:
    """Distinct coerced non-null values of ``field``, in first-occurrence order."""
    return _distinct_of(coerced_column(rows, field, ftype))


def reducer_ops(t: FieldType) -> tuple[str, ...]:
    """The reducers a field of type ``t`` is narrowed with (see the module doc), in registry
    order: the reducers whose synthesis words say they narrow such a field."""
    return tuple(op for op in SYNTH_OPS if synth_words(op).narrows(t))


class Columns:
    """One relation's records with their fields coerced once, on first use: junction typing
    evaluates many reducers over the same records, on row indexes."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], types: Mapping[str, FieldType],
                 names: frozenset[str] = frozenset(),
                 ops: Mapping[str, frozenset[str]] | None = None) -> None:
        self.rows = rows
        self.types = types
        #: fields naming an entity (a school's 학교명): narrowed by equality on a stated name
        #: (:func:`~edgedsl.recipe.synth.entities.name_fields`)
        self.names = frozenset(f for f in names if f in types)
        #: field → the reducers a question may narrow it with, from the catalog declaration
        #: (:func:`~edgedsl.recipe.synth.knowable.column_ops`); None: every reducer its type has
        self.ops = ops
        self._cols: dict[str, list[Any]] = {}
        self._all: dict[str, list[Any]] = {}  # distinct values over all rows, by field
        self._cands: dict[tuple[str, int], list[tuple[ReduceChoice, list[int]]]] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def col(self, field: str) -> list[Any]:
        """Field ``field`` of every row, coerced."""
        got = self._cols.get(field)
        if got is None:
            got = self._cols[field] = coerced_column(self.rows, field, self.types[field])
        return got

    def distinct(self, field: str, idx: Sequence[int] | None = None) -> list[Any]:
        """Distinct values of ``field`` over the rows ``idx`` (all rows when None: computed
        once per field; treat the list as read-only). ``idx`` holds distinct row indexes."""
        if idx is None or len(idx) == len(self.rows):
            got = self._all.get(field)
            if got is None:
                got = self._all[field] = _distinct_of(self.col(field))
            return got
        col = self.col(field)
        return _distinct_of([col[i] for i in idx])

    def echoes(self, upstream: Columns) -> frozenset[str]:
        """The fields holding one value here that ``upstream`` (the relation these records were
        handed from) already returned in its field of the same name: asking for one would ask
        for what the call before had answered (the 건물명 juso's record held, repeated by the
        coordinate service)."""
        out = set()
        for f in self.types:
            if f in upstream.types:
                mine = self.distinct(f)
                if len(mine) == 1 and str(mine[0]) in {str(v) for v in upstream.distinct(f)}:
                    out.add(f)
        return frozenset(out)

    def apply(self, step: ReduceChoice, idx: Sequence[int]) -> list[int]:
        """The rows of ``idx`` that ``step`` keeps (the reducer's reference semantics)."""
        col = self.col(step.field)
        keep = REDUCERS[step.op].on_column([col[i] for i in idx], step.pivot,
                                           self.types[step.field])
        return [idx[k] for k in keep]

    def tied(self, step: ReduceChoice, idx: Sequence[int]) -> bool:
        """True when ``step`` is a ``most_frequent`` choosing among tied values over the rows
        ``idx`` (:func:`mf_tie`)."""
        if step.op != "most_frequent":
            return False
        col = self.col(step.field)
        return mf_tie([col[i] for i in idx]) is not None

    def subset(self, idx: Sequence[int]) -> Columns:
        """The rows ``idx`` as a relation of their own (indexes restart at 0)."""
        return Columns([self.rows[i] for i in idx], self.types, self.names, self.ops)

    def allows(self, op: str, field: str) -> bool:
        """True when a question may narrow ``field`` with ``op`` (:attr:`ops`; every reducer
        when no declaration was given)."""
        return self.ops is None or op in self.ops.get(field, frozenset())

    def pivot(self, op: str, field: str, primary: str, idx: Sequence[int],
              phi: int) -> object | None:
        """:func:`~edgedsl.reduce.pivot.choose_pivot` over the rows ``idx``, among the values a
        question can state (:func:`stated`: never a blank text)."""
        c, h = self.col(field), self.col(primary)
        return choose_pivot_on_columns([c[i] if stated(c[i]) else None for i in idx],
                                       [h[i] for i in idx], op, self.types[field], phi)


def stated(v: object) -> bool:
    """True when a question can state ``v`` as a value to narrow by: not missing and not a blank
    text (session 35 read "그중 건물명이 인 것으로 좁힌 뒤": ``where bdNm == ""``)."""
    return v is not None and not (isinstance(v, str) and not v.strip())


def _narrow_secondaries(cols: Columns, idx: list[int], fields: Sequence[str],
                        handoff: Literal["seq", "fan"], rng: random.Random | None = None,
                        ) -> tuple[list[int], list[ReduceChoice], Literal["seq", "fan"]] | None:
    """Make every secondary field single-valued. A secondary of several values is narrowed to
    one the way a primary is (:func:`_candidates` over the rows kept so far, with one value to
    keep: a stated name, an extreme, a threshold — drawn with ``rng``, the informative ones
    first), else by ``most_frequent`` on the primary then the secondary (never a tie). None
    when a secondary then has no value at all (its ``seq`` would see nothing), or only a tie
    would narrow it."""
    steps: list[ReduceChoice] = []
    primary, rest = fields[0], fields[1:]
    for f in rest:
        if len(cols.distinct(f, idx)) <= 1:
            continue
        sub = cols if len(idx) == len(cols) else cols.subset(idx)
        cands = [c for c in _candidates(sub, f, 1)
                 if cols.distinct(primary, [idx[k] for k in c[1]])]
        informative = [c for c in cands if c[0].op != "most_frequent"] or cands
        if informative:
            step, kept = informative[(rng or random.Random(0)).randrange(len(informative))]
            idx = [idx[k] for k in kept]
            steps.append(step)
            continue
        for g in (primary, f):  # the old way: the most frequent value of each, never a tie
            if len(cols.distinct(g, idx)) <= 1:
                continue
            step = ReduceChoice("most_frequent", g)
            if cols.tied(step, idx) or not cols.allows("most_frequent", g):
                return None
            idx = cols.apply(step, idx)
            steps.append(step)
    if any(len(cols.distinct(f, idx)) != 1 for f in rest):
        return None
    if steps:
        handoff = "seq" if len(cols.distinct(primary, idx)) == 1 else "fan"
    return idx, steps, handoff


def _handed(cols: Columns, idx: Sequence[int], fields: Sequence[str]) -> frozenset[str]:
    """Every value handed on, of every bound field, as text."""
    return frozenset(str(v) for f in fields for v in cols.distinct(f, idx))


def _candidates(cols: Columns, primary: str, phi: int) -> list[tuple[ReduceChoice, list[int]]]:
    """Every working narrowing of the hand-off field ``primary`` and the rows it keeps, over the
    hand-off field and a sample of the others (the sample depends on the relation only, so the
    list is computed once per relation and hand-off field): it keeps 1 … ``phi`` distinct
    values of ``primary``, fewer than it was given, and is not a ``most_frequent`` tie."""
    got = cols._cands.get((primary, phi))
    if got is None:
        got = cols._cands[(primary, phi)] = _search(cols, primary, phi)
    return got


def _search(cols: Columns, primary: str, phi: int) -> list[tuple[ReduceChoice, list[int]]]:
    types = cols.types
    fields = [f for f, t in types.items() if not f.startswith("__") and reducer_ops(t)
              and (cols.ops is None or cols.ops.get(f) or f in cols.names)]
    names = sorted(f for f in cols.names if f != primary)
    others = [f for f in fields if f != primary and f not in cols.names]
    k = FEW if len(cols) > LARGE else FIELDS
    sampler = random.Random(f"{primary}:{len(cols)}:{len(others)}")
    fields = [primary, *names, *sampler.sample(others, min(k, len(others)))]
    everything = list(range(len(cols)))
    d = len(cols.distinct(primary))
    out: list[tuple[ReduceChoice, list[int]]] = []
    for f in fields:
        ops = reducer_ops(types[f])
        if f in cols.names and "eq" not in ops:
            ops = ("eq", *ops)  # a stated name: `where SCHUL_NM == "금호중학교"`
        ops = tuple(op for op in ops if cols.allows(op, f))  # meaningful narrowings only
        for op in ops:
            if op == "eq" and f in cols.names:
                pivots = _stated_names(cols, f, primary, min(phi, d - 1), sampler)
            elif REDUCERS[op].needs_pivot:
                pivots = [cols.pivot(op, f, primary, everything, phi)]
            else:
                pivots = [None]
            for pivot in pivots:
                if pivot is None and REDUCERS[op].needs_pivot:
                    continue
                step = ReduceChoice(op, f, pivot)
                if cols.tied(step, everything):
                    continue
                kept = cols.apply(step, everything)
                if 1 <= len(cols.distinct(primary, kept)) <= min(phi, d - 1):
                    out.append((step, kept))
    return out


def _stated_names(cols: Columns, field: str, primary: str, most: int,
                  sampler: random.Random) -> list[object]:
    """Up to :data:`NAMES` values of the name field ``field`` whose rows hold 1 … ``most``
    distinct values of ``primary`` (one school of a register, one candidate of a list), drawn
    with ``sampler``: several, so that drafts from the same records state different names."""
    by_name: dict[object, set[object]] = {}
    for v, h in zip(cols.col(field), cols.col(primary), strict=True):
        if stated(v) and h is not None:
            by_name.setdefault(v, set()).add(value_key(h))
    ok = sorted((v for v, hs in by_name.items() if 1 <= len(hs) <= most), key=str)
    return sampler.sample(ok, min(NAMES, len(ok)))


def type_junction(rows: Sequence[Mapping[str, Any]] | Columns, fields: Sequence[str],
                  types: Mapping[str, FieldType], *, phi: int = 5,
                  rng: random.Random | None = None,
                  prefer: Prefer = "any",
                  single: bool = False, width: int | None = None,
                  narrow: bool = False) -> JunctionPlan | None:
    """Type the junction handing ``fields`` (primary first) of ``rows`` downstream; None when
    the primary field has no value at all, or a secondary none where the primary is handed
    off, or when the only narrowing would choose among ties (see the module doc). ``rows`` may
    be a :class:`Columns` of them (its coerced columns are reused). ``prefer`` breaks the draw
    among reducers toward one hand-off kind when both are possible; ``single`` asks for one
    value (a fan is narrowed to one value as a larger relation is). ``width`` (≤ φ) bounds the
    values a narrowing keeps (a junction of 2 … φ values needs no narrowing and keeps them all
    — unless ``narrow``: then a ``drv`` narrows it to one value, drawn among the narrowings
    that keep one as for a larger relation, so that one call follows instead of a fan)."""
    rng = rng or random.Random(0)
    cols = rows if isinstance(rows, Columns) else Columns(rows, types)
    primary = fields[0]
    d = len(cols.distinct(primary))
    if d == 0:
        return None
    steps: list[ReduceChoice] = []
    kept = list(range(len(cols)))
    if d == 1 or (d <= phi and not narrow and not single):
        handoff: Literal["seq", "fan"] = "seq" if d == 1 else "fan"
    else:
        one = single or d <= phi
        cands = _candidates(cols, primary, 1 if one else min(phi, width or phi))
        informative = [c for c in cands if c[0].op != "most_frequent" or c[0].field != primary]
        pool = informative or cands
        if prefer != "any":
            wanted = [c for c in pool
                      if (len(cols.distinct(primary, c[1])) == 1) == (prefer == "seq")]
            pool = wanted or pool
        if pool:
            step, kept = pool[rng.randrange(len(pool))]
        else:
            step = ReduceChoice("most_frequent", primary)
            if cols.tied(step, kept) or not cols.allows("most_frequent", primary):
                return None
            kept = cols.apply(step, kept)
        steps.append(step)
        handoff = "seq" if len(cols.distinct(primary, kept)) == 1 else "fan"
    narrowed = _narrow_secondaries(cols, kept, fields, handoff, rng)
    if narrowed is None:
        return None
    kept, more, handoff = narrowed
    steps += more
    passed = cols.distinct(primary, kept)
    kind: Literal["seq", "fan", "drv"] = "drv" if steps else handoff
    return JunctionPlan(kind, handoff, tuple(steps), d, len(passed), tuple(passed),
                        _handed(cols, kept, fields))


def narrowings(rows: Sequence[Mapping[str, Any]] | Columns, fields: Sequence[str],
               types: Mapping[str, FieldType], *, phi: int = 5,
               rng: random.Random | None = None, width: int | None = None) -> list[JunctionPlan]:
    """Every ``drv`` narrowing of ``rows`` that leaves 1 … φ distinct values of the primary
    field (one per working reducer, secondaries narrowed as :func:`type_junction` does), for a
    conditional to choose two from; empty when the primary has no value."""
    rng = rng or random.Random(0)
    cols = rows if isinstance(rows, Columns) else Columns(rows, types)
    primary = fields[0]
    d = len(cols.distinct(primary))
    if d == 0:
        return []
    out: list[JunctionPlan] = []
    for step, kept in _candidates(cols, primary, min(phi, width or phi)):
        handoff: Literal["seq", "fan"] = "seq" if len(cols.distinct(primary, kept)) == 1 \
            else "fan"
        narrowed = _narrow_secondaries(cols, kept, fields, handoff, rng)
        if narrowed is None:
            continue
        kept2, more, handoff = narrowed
        passed = cols.distinct(primary, kept2)
        out.append(JunctionPlan("drv", handoff, (step, *more), d, len(passed), tuple(passed),
                                _handed(cols, kept2, fields)))
    return out
