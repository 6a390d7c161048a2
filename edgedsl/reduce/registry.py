"""The single registry of the seven reducers of a ``drv`` node, and the value coercions they share.

Each reducer has a static type rule, a DuckDB SQL builder (what the runtime runs) and a short
pure-Python reference (what tests and :mod:`edgedsl.testing` compare the SQL with — never used by
the runtime). Both implement exactly the semantics below.

Coercion (a raw JSON value → the field's catalog type; anything that does not coerce is null)
-----------------------------------------------------------------------------------------------
*Whitespace* means ASCII space, tab, LF and CR only.

``int`` / ``float`` / ``num`` (numbers)
    JSON numbers as they are (booleans are not numbers). A JSON string is a number when, after
    optional whitespace, it reads: an optional sign ``+``/``-``; an integer part that is either
    plain digits or 1–3 digits followed by groups of ``,ddd``; an optional ``.digits`` decimal part;
    optional whitespace; an optional *unit* made of ``%``, ``‰``, ASCII letters or Hangul syllables
    other than the magnitude words ``십 백 천 만 억 조 경``; optional whitespace. So ``"1,999원"`` →
    1999, ``"-4.57"`` → -4.57, ``" +12 %"`` → 12, ``"3주"`` → 3, but ``"3억"``, ``"1e5"``,
    ``"1,2345"``, ``".5"``, ``"5."``, ``"₩100"`` and ``""`` are null (no scaling is ever guessed).
    ``int`` fields keep a value only when it is integral (``"7.00"`` and ``7.0`` → 7, ``7.5`` →
    null) and within the signed 64-bit range. ``float``/``num`` fields are doubles; a text that
    overflows to infinity is null.
``date``
    ``YYYYMMDD``, ``YYYY-MM-DD`` or ``YYYY.MM.DD`` strings (surrounding whitespace allowed), or a
    JSON integer 10000101…99991231 read as ``YYYYMMDD``; year 0000 and impossible calendar dates
    are null.
``bool``
    JSON booleans; JSON integers 1 / 0; the strings ``true y yes 1`` / ``false n no 0``
    (ASCII case-insensitive, surrounding whitespace allowed).
``str``, enums and codes
    JSON strings as they are (no trimming); JSON integers → their decimal text; JSON doubles →
    the shortest round-trip text (Python ``repr``, e.g. ``3.0``, ``1e+20``). Enum membership and
    code patterns are *not* re-checked here (the checker checks pivots, backends check responses),
    so an unexpected member is still visible as text.
``[T]`` (lists)
    JSON arrays, kept as JSON text in DuckDB (elements as that JSON reads back); reducers never
    apply to lists.
``json``
    Any JSON value except null, kept as its *canonical JSON text*: ``orjson`` with sorted object
    keys (``OPT_SORT_KEYS``), compact, after orjson's own normalisation (NaN → null, a
    ``datetime.date`` → ISO text, a tuple → an array). Two json values are equal exactly when their
    canonical texts are equal: key order never matters (``{"a":1,"b":2}`` equals
    ``{"b":2,"a":1}``), but an integer and a float stay different (``1`` ≠ ``1.0``), so that a
    float such as ``3.0`` reads back as a float. :func:`coerce` returns the value as its canonical
    text reads back (an object → a ``dict``, ``3.0`` → ``3.0``, ``true`` → ``True``); the DuckDB
    column holds the text (:func:`json_text`) and every reader decodes it (:func:`decode_stored`).
    The canonical text is always made in Python: DuckDB can neither sort object keys nor write
    doubles the way orjson does (it writes ``1e+20`` as ``100000000000000000000.0``). The only
    reducer that applies to a json field is ``most_frequent`` (grouping and tie-breaking on the
    canonical text, code-point order).

Reducers (input order is always kept; the output is a sub-relation of the input)
--------------------------------------------------------------------------------
``max f`` / ``min f``: rows whose f equals the max / min non-null value (ties kept).
``where f >= p`` / ``<= p``: numeric comparison with the pivot (pivot text is read like a value,
as an integer when it has no decimal part); on an ``int`` field the comparison is exact
(``>= p`` is ``>= ceil(p)``). ``where f == v``: equality after coercing v to the field's type.
``where f after d``: strictly later date. ``most_frequent f``: rows whose f equals the most
frequent non-null value, ties going to the smallest value (text: code-point order). A pivot that
does not coerce is null and a null never satisfies a comparison, so such a step keeps nothing.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from edgedsl.source import fast_frozen_init
from edgedsl.sqlquote import qualified, quote_ident
from edgedsl.types import (
    FieldType,
    ListType,
    is_date,
    is_numeric,
    is_stringish,
    storage_kind,
)

from .coerce import (
    INT64_MAX,
    INT64_MIN,
    coerce,
    coerce_date,
    coerce_float,
    coerce_number,
    coerce_sql,
    decode_stored,
    is_json,
    json_text,
    sql_type,
    storage_of,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "REDUCERS",
    "ReduceForm",
    "ReduceStep",
    "Reducer",
    "choose_pivot",
    "choose_pivot_on_columns",
    "coerce",
    "coerce_number",
    "coerce_sql",
    "coerced_column",
    "decode_stored",
    "is_json",
    "json_text",
    "reduce_sql",
    "sql_type",
    "storage_of",
    "table_form_differs",
]


# ---------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------

Rows = Sequence[Mapping[str, Any]]
SqlBuilder = Callable[[str, str, object, FieldType], tuple[str, list[object]]]
#: How :func:`reduce_sql` writes ``max``/``min``: ``"inline"`` as one window (``QUALIFY f =
#: max(f) OVER ()``, reading the previous relation once: best for a relation read inline from
#: bound lists, and on a connection without an optimizer); ``"table"`` as a scalar subquery
#: (``WHERE f = (SELECT max(f) FROM prev)``: best for a stored table, where the window would
#: carry every column of every row — ``__raw`` included — and the subquery reads one column).
#: Both keep the same rows; only the plan DuckDB makes differs (measured in
#: ``benchmarks/bench_drv.py``).
ReduceForm = Literal["inline", "table"]
ColumnReference = Callable[[Sequence[Any], object, FieldType], list[int]]


@dataclass(frozen=True, slots=True)
class ReduceStep:
    """One reducer applied to one field: ``ReduceStep("ge", "dealAmount", 100000)``."""

    op: str
    field: str
    pivot: object | None = None

    def __str__(self) -> str:
        r = REDUCERS.get(self.op)
        if r is None:
            return f"<unknown reducer {self.op!r}> {self.field}"
        if not r.needs_pivot:
            return f"{r.surface} {self.field}"
        return f"where {self.field} {r.surface} {self.pivot!r}"


fast_frozen_init(ReduceStep)  # made for every reducer of every compiled `drv`


@dataclass(frozen=True, slots=True)
class Reducer:
    """A reducer: its spelling, static type rule, SQL builder and pure-Python reference.

    ``sql(prev, column, pivot, ftype)`` returns the body of one CTE selecting ``*`` from the
    trusted relation expression ``prev``; ``column`` is already quoted. ``table_sql``, when set,
    is the same reducer written for a stored table (see :data:`ReduceForm`), with the same
    parameters; ``whole`` says that ``sql`` reads ``prev`` as a whole (a subquery over it).
    ``reference(rows, field, pivot, ftype)`` returns the indexes of the kept rows (tests and
    :mod:`edgedsl.testing`); ``on_column(values, pivot, ftype)`` is the same reference over a
    column already coerced with :func:`coerced_column` (synthesis evaluates many reducers over
    one relation).
    """

    op: str
    surface: str
    needs_pivot: bool
    accepts: Callable[[FieldType], bool]
    sql: SqlBuilder
    on_column: ColumnReference
    doc: str
    table_sql: SqlBuilder | None = None
    whole: bool = False

    def reference(self, rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
        """The indexes of the rows of ``rows`` this reducer keeps."""
        return self.on_column(coerced_column(rows, field, ftype), pivot, ftype)


def coerced_column(rows: Rows, field: str, ftype: FieldType) -> list[Any]:
    """Field ``field`` of every row, coerced as the reducers compare it (a json field as its
    canonical text, like the SQL column)."""
    if is_json(ftype):
        return [json_text(r.get(field)) for r in rows]
    return [coerce(ftype, r.get(field)) for r in rows]


def _extreme_ref(pick: Callable[[Iterable[Any]], Any]) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        present = [v for v in vals if v is not None]
        if not present:
            return []
        best = pick(present)
        return [i for i, v in enumerate(vals) if v is not None and v == best]

    return ref


def _extreme_sql(fn: str) -> SqlBuilder:
    # the "inline" form: a window (QUALIFY) reads ``prev`` once; a scalar subquery would
    # reference it twice, which DuckDB runs markedly slower over a relation read inline
    def sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
        return f"SELECT * FROM {prev} QUALIFY {col} = {fn}({col}) OVER ()", []

    return sql


def _extreme_table_sql(fn: str) -> SqlBuilder:
    # the "table" form: the subquery reads one column of ``prev``; only the kept rows are
    # carried whole (a window over a stored table carries every column of every row)
    def sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
        return f"SELECT * FROM {prev} WHERE {col} = (SELECT {fn}({col}) FROM {prev})", []

    return sql


def _threshold_pivot(ftype: FieldType, pivot: object, upper: bool) -> int | float | None:
    """The pivot as the comparison runs it: a double, or an exact bound on an int field."""
    if storage_kind(ftype) != "integer":
        return coerce_float(pivot)
    p = coerce_number(pivot)
    if p is None:
        return None
    bound = math.ceil(p) if upper else math.floor(p)
    return max(-(2**64), min(2**64, bound))  # beyond every BIGINT: the answer is the same


def _threshold_sql(cmp: str) -> SqlBuilder:
    def sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
        p = _threshold_pivot(ftype, pivot, upper=cmp == ">=")
        if p is None:
            return f"SELECT * FROM {prev} WHERE false", []
        cast = "HUGEINT" if storage_kind(ftype) == "integer" else "DOUBLE"
        return f"SELECT * FROM {prev} WHERE {col} {cmp} CAST(? AS {cast})", [p]

    return sql


def _threshold_ref(ge: bool) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        p = coerce_number(pivot) if storage_kind(ftype) == "integer" else coerce_float(pivot)
        if p is None:
            return []
        return [i for i, v in enumerate(vals) if v is not None and (v >= p if ge else v <= p)]

    return ref


def _eq_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    p = coerce(ftype, pivot)
    if p is None:
        return f"SELECT * FROM {prev} WHERE false", []
    return f"SELECT * FROM {prev} WHERE {col} = CAST(? AS {sql_type(ftype)})", [p]


def _eq_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce(ftype, pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(vals) if v is not None and v == p]


def _after_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    p = coerce_date(pivot)
    if p is None:
        return f"SELECT * FROM {prev} WHERE false", []
    return f"SELECT * FROM {prev} WHERE {col} > CAST(? AS DATE)", [p]


def _after_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce_date(pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(vals) if v is not None and v > p]


def _mf_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    winner = (
        f"SELECT {col} FROM {prev} WHERE {col} IS NOT NULL GROUP BY {col} "
        f"ORDER BY count(*) DESC, {col} ASC LIMIT 1"
    )
    return f"SELECT * FROM {prev} WHERE {col} = ({winner})", []


def _mf_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    counts = Counter(v for v in vals if v is not None)
    if not counts:
        return []
    best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return [i for i, v in enumerate(vals) if v is not None and v == best]


def _orderable(t: FieldType) -> bool:
    return is_numeric(t) or is_date(t)


def _scalar(t: FieldType) -> bool:
    return not isinstance(t, ListType)


def _eq_accepts(t: FieldType) -> bool:
    return is_stringish(t) or is_numeric(t) or is_date(t) or storage_kind(t) == "bool"


REDUCERS: dict[str, Reducer] = {
    r.op: r
    for r in (
        Reducer(
            "max",
            "max",
            False,
            _orderable,
            _extreme_sql("max"),
            _extreme_ref(max),
            "rows whose field equals the maximum non-null value",
            _extreme_table_sql("max"),
        ),
        Reducer(
            "min",
            "min",
            False,
            _orderable,
            _extreme_sql("min"),
            _extreme_ref(min),
            "rows whose field equals the minimum non-null value",
            _extreme_table_sql("min"),
        ),
        Reducer(
            "ge",
            ">=",
            True,
            is_numeric,
            _threshold_sql(">="),
            _threshold_ref(True),
            "rows whose number is at least the pivot",
        ),
        Reducer(
            "le",
            "<=",
            True,
            is_numeric,
            _threshold_sql("<="),
            _threshold_ref(False),
            "rows whose number is at most the pivot",
        ),
        Reducer(
            "eq",
            "==",
            True,
            _eq_accepts,
            _eq_sql,
            _eq_ref,
            "rows whose value equals the pivot after coercion",
        ),
        Reducer(
            "after",
            "after",
            True,
            is_date,
            _after_sql,
            _after_ref,
            "rows whose date is strictly later than the pivot",
        ),
        Reducer(
            "most_frequent",
            "most_frequent",
            False,
            _scalar,
            _mf_sql,
            _mf_ref,
            "rows holding the most frequent non-null value (ties: smallest value)",
            whole=True,
        ),
    )
}


def check_step(step: ReduceStep, types: Mapping[str, FieldType]) -> Reducer:
    """Validate ``step`` against ``types`` and return its reducer; raise ValueError otherwise."""
    red = REDUCERS.get(step.op)
    if red is None:
        raise ValueError(f"unknown reducer {step.op!r}; expected one of {sorted(REDUCERS)}")
    if step.field not in types:
        raise ValueError(f"reducer `{red.surface}` on unknown field {step.field!r}")
    ftype = types[step.field]
    if not red.accepts(ftype):
        raise ValueError(f"reducer `{red.surface}` does not apply to {step.field!r}: {ftype}")
    if red.needs_pivot and step.pivot is None:
        raise ValueError(f"reducer `{red.surface}` needs a pivot")
    if not red.needs_pivot and step.pivot is not None:
        raise ValueError(f"reducer `{red.surface}` takes no pivot")
    return red


def table_form_differs(steps: Sequence[ReduceStep]) -> bool:
    """Whether :func:`reduce_sql` writes ``steps`` differently in its two forms: a step has a
    table form of its own (``max``/``min``), or one reads the previous relation whole (then
    the CTE before it is marked ``NOT MATERIALIZED`` in the table form). Unknown reducers
    count as differing (``reduce_sql`` reports them)."""
    for step in steps:
        red = REDUCERS.get(step.op)
        if red is None or red.table_sql is not None or red.whole:
            return True
    return False


_REDUCED: dict[tuple[object, ...], tuple[str, tuple[object, ...]]] = {}
_REDUCED_MAX = 4096
_MISSING = object()
_KEYED_PIVOTS = frozenset({type(None), str, int, bool, _dt.date})


def _reduce_key(
    source: str | tuple[str, ...], steps: Sequence[ReduceStep], types: Mapping[str, FieldType],
    form: ReduceForm = "inline",
) -> tuple[object, ...] | None:
    """What :func:`reduce_sql`'s result depends on, as a dict key; None when a pivot is of a type
    whose equal values may still differ (``1 == 1.0 == True`` are told apart by their type, a
    float by its ``repr``: ``0.0`` and ``-0.0``; lists, dicts and other values are not keyed)."""
    key: list[object] = [source, form]
    for step in steps:
        pivot = step.pivot
        kind = type(pivot)
        if kind is float:
            pivot = repr(pivot)
        elif kind not in _KEYED_PIVOTS:
            return None
        key += (step.op, step.field, kind, pivot, types.get(step.field, _MISSING))
    return tuple(key)


def reduce_sql(
    source: str | tuple[str, ...],
    steps: Sequence[ReduceStep],
    types: Mapping[str, FieldType],
    *,
    form: ReduceForm = "inline",
) -> tuple[str, list[object]]:
    """One deterministic SQL text (chained CTEs) and its bound parameters.

    ``form`` says where the statement will run (see :data:`ReduceForm`); both forms keep the
    same rows and bind the same parameters. Memoised on the source, the steps, the types of
    their fields and the form (the same reduction is planned again and again in a corpus of
    trajectories); see :func:`_reduce_sql` for the text.
    """
    try:
        key = _reduce_key(source, steps, types, form)
        hit = None if key is None else _REDUCED.get(key)
    except TypeError:  # an unhashable source or field type: not memoised
        key = hit = None
    if hit is None:
        sql, params = _reduce_sql(source, steps, types, form)
        if key is None:
            return sql, params
        if len(_REDUCED) >= _REDUCED_MAX:
            _REDUCED.clear()
        hit = _REDUCED[key] = (sql, tuple(params))
    return hit[0], list(hit[1])


def _reduce_sql(
    source: str | tuple[str, ...],
    steps: Sequence[ReduceStep],
    types: Mapping[str, FieldType],
    form: ReduceForm = "inline",
) -> tuple[str, list[object]]:
    """The SQL of :func:`reduce_sql` (not memoised).

    ``source`` names a shredded typed table or view (a name, or a ``(schema, name)`` tuple) with
    one column per field and a ``__row`` input-order column. The query selects **all columns** of
    the kept rows ordered by ``__row``, so its result has the source's shape and can be reduced
    again. Parameters are positional ``?`` in text order.

    A step whose filter reads only the current row (``WHERE`` on the row's own values, or one
    ``QUALIFY`` window) is folded into the preceding CTE — ANDed to its ``WHERE``, or as its
    ``QUALIFY`` when it has none (``WHERE`` filters before windows are computed, so the rows are
    the same) — since DuckDB spends more time planning each nested ``SELECT`` than running a
    small one (measured in ``benchmarks/bench_drv.py``). A step reading the previous relation
    as a whole (a subquery over it) or following a ``QUALIFY`` starts a new CTE.

    In the ``"table"`` form ``max``/``min`` read the previous relation as a whole (a scalar
    subquery), and a CTE holding only ``WHERE`` filters that the next one reads twice is ``NOT
    MATERIALIZED``: two filtered scans of one or two columns, where materialising it would copy
    every column of its rows. A CTE with a subquery of its own keeps DuckDB's default (it holds
    the kept rows; inlining it too would double the scans at every such step).
    """
    # each CTE: FROM text, WHERE conditions, QUALIFY condition (0 or 1), or an opaque body
    ctes: list[tuple[str, list[str], list[str], str | None]] = [(qualified(source), [], [], None)]
    params: list[object] = []
    for step in steps:
        red = check_step(step, types)
        prev = quote_ident(f"__reduce_{len(ctes) - 1}")
        build = red.table_sql if form == "table" and red.table_sql is not None else red.sql
        body, ps = build(prev, quote_ident(step.field), step.pivot, types[step.field])
        params.extend(ps)
        head = f"SELECT * FROM {prev} "
        rest = body[len(head):] if body.startswith(head) else ""
        kind = next((k for k in ("WHERE", "QUALIFY") if rest.startswith(k + " ")), None)
        if kind is None or prev in rest:
            ctes.append(("", [], [], body))  # reads the previous relation as a whole
            continue
        cond = rest[len(kind) + 1:]
        _, wheres, qualify, opaque = ctes[-1]
        if opaque is not None or qualify:
            ctes.append((prev, [], [], None))
            _, wheres, qualify, _ = ctes[-1]
        (wheres if kind == "WHERE" else qualify).append(cond)
    named = []
    not_materialized = "NOT MATERIALIZED " if form == "table" else ""
    for i, (src, wheres, qualify, opaque) in enumerate(ctes):
        name = quote_ident(f"__reduce_{i}")
        if opaque is not None:
            named.append(f"{name} AS ({opaque})")
            continue
        text = f"SELECT * FROM {src}"
        if wheres:
            text += " WHERE " + (wheres[0] if len(wheres) == 1
                                 else " AND ".join(f"({w})" for w in wheres))
        if qualify:
            text += f" QUALIFY {qualify[0]}"
        read_twice = i + 1 < len(ctes) and ctes[i + 1][3] is not None
        named.append(f"{name} AS {not_materialized if read_twice and not qualify else ''}({text})")
    last = quote_ident(f"__reduce_{len(named) - 1}")
    sql = (
        "WITH " + ",\n     ".join(named) + f"\nSELECT * FROM {last} ORDER BY {quote_ident('__row')}"
    )
    return sql, params


# ---------------------------------------------------------------------------------------------
# Pivot choice (synthesis)
# ---------------------------------------------------------------------------------------------


def _key(v: object) -> object:
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS) if isinstance(v, list | dict) else v


def choose_pivot(
    rows: Rows,
    op: str,
    field: str,
    handoff: str,
    ftype: FieldType,
    handoff_type: FieldType,
    phi: int = 5,
) -> object | None:
    """Choose a pivot for a ``ge``/``le``/``eq``/``after`` step among the values of ``field``.

    The pivot is a coerced observed value such that the reduced relation keeps between 1 and
    ``phi`` distinct non-null values of ``handoff``. Among those, the pivot keeping the most
    distinct values wins; ties go to the smallest pivot. Returns None ("no pivot") when no
    observed value works. Runs in O(n log n). :func:`choose_pivot_on_columns` does the same
    over columns already coerced.
    """
    return choose_pivot_on_columns(
        [coerce(ftype, r.get(field)) for r in rows],
        [coerce(handoff_type, r.get(handoff)) for r in rows], op, ftype, phi)


def choose_pivot_on_columns(values: Sequence[Any], handoffs: Sequence[Any], op: str,
                            ftype: FieldType, phi: int = 5) -> object | None:
    """:func:`choose_pivot` over ``values`` (the field, coerced) and ``handoffs`` (the hand-off
    field, coerced), row by row."""
    red = REDUCERS.get(op)
    if red is None or not red.needs_pivot:
        raise ValueError(f"reducer {op!r} takes no pivot")
    if not red.accepts(ftype):
        raise ValueError(f"reducer `{red.surface}` does not apply to a {ftype} field")
    buckets: dict[Any, set[object]] = {}
    for v, h in zip(values, handoffs, strict=True):
        if v is None:
            continue
        bucket = buckets.setdefault(v, set())
        if h is not None:
            bucket.add(_key(h))
    scored: list[tuple[int, Any]] = []
    if op == "eq":
        scored = [(len(hs), p) for p, hs in buckets.items()]
    else:
        # ge/after: sweep from the largest pivot down; le: from the smallest up.
        order = sorted(buckets, reverse=op != "le")
        seen: set[object] = set()
        for p in order:
            if op == "after":
                scored.append((len(seen), p))  # rows strictly later than p
                seen |= buckets[p]
            else:
                seen |= buckets[p]
                scored.append((len(seen), p))
    ok = [(k, p) for k, p in scored if 1 <= k <= phi]
    if not ok:
        return None
    return min(ok, key=lambda kp: (-kp[0], kp[1]))[1]
