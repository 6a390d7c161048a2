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
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from edgedsl.sqlquote import qualified, quote_ident, sql_string_literal
from edgedsl.types import (
    FieldType,
    ListType,
    ScalarType,
    is_date,
    is_numeric,
    is_stringish,
    storage_kind,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "REDUCERS",
    "ReduceStep",
    "Reducer",
    "choose_pivot",
    "coerce",
    "coerce_number",
    "coerce_sql",
    "decode_stored",
    "is_json",
    "json_text",
    "reduce_sql",
    "sql_type",
    "storage_of",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# ---------------------------------------------------------------------------------------------
# Coercion: one set of regular expressions, read by Python's ``re`` and by DuckDB's RE2 alike.
# ---------------------------------------------------------------------------------------------

MAGNITUDE_CHARS = "십백천만억조경"
_WS = r"[ \t\n\r]*"


def _unit_class() -> str:
    """Characters of a unit: ``%``, ``‰``, ASCII letters, Hangul syllables minus magnitude words."""
    lo, parts = 0xAC00, []
    for cp in sorted(ord(c) for c in MAGNITUDE_CHARS):
        if cp > lo:
            parts.append((lo, cp - 1))
        lo = cp + 1
    parts.append((lo, 0xD7A3))
    body = "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in parts)
    return f"[%‰A-Za-z{body}]"


_UNIT = _unit_class()
_INT_PART = r"(?:[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+)"
NUMBER_PATTERN = rf"^{_WS}[+-]?{_INT_PART}(?:\.[0-9]+)?{_WS}(?:{_UNIT}+{_WS})?$"
INTEGER_PATTERN = rf"^{_WS}[+-]?{_INT_PART}(?:\.0+)?{_WS}(?:{_UNIT}+{_WS})?$"
NUMBER_CORE = r"[+-]?[0-9][0-9,]*(?:\.[0-9]+)?"
INTEGER_CORE = r"[+-]?[0-9][0-9,]*"
_DATE_FORMS = r"[0-9]{8}|[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}\.[0-9]{2}\.[0-9]{2}"
DATE_PATTERN = rf"^{_WS}(?:{_DATE_FORMS}){_WS}$"
TRUE_WORDS = ("true", "y", "yes", "1")
FALSE_WORDS = ("false", "n", "no", "0")

_NUMBER_RE = re.compile(NUMBER_PATTERN)
_INTEGER_RE = re.compile(INTEGER_PATTERN)
_NUMBER_CORE_RE = re.compile(NUMBER_CORE)
_INTEGER_CORE_RE = re.compile(INTEGER_CORE)
_DATE_RE = re.compile(DATE_PATTERN)
_NON_DIGIT_RE = re.compile(r"[^0-9]")


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def coerce_int(v: object) -> int | None:
    """Coerce a raw value to a 64-bit integer, or None (see the module docstring)."""
    if _is_int(v):
        return v if INT64_MIN <= v <= INT64_MAX else None  # type: ignore[operator,return-value]
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and INT64_MIN <= int(v) <= INT64_MAX:
            return int(v)
        return None
    if isinstance(v, str) and _INTEGER_RE.fullmatch(v):
        m = _INTEGER_CORE_RE.search(v)
        assert m is not None
        n = int(m.group(0).replace(",", ""))
        return n if INT64_MIN <= n <= INT64_MAX else None
    return None


def coerce_float(v: object) -> float | None:
    """Coerce a raw value to a finite double, or None."""
    if _is_int(v):
        try:
            return float(v)  # type: ignore[arg-type]
        except OverflowError:
            return None
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str) and _NUMBER_RE.fullmatch(v):
        m = _NUMBER_CORE_RE.search(v)
        assert m is not None
        x = float(m.group(0).replace(",", ""))
        return x if math.isfinite(x) else None
    return None


def coerce_number(v: object) -> int | float | None:
    """Coerce a pivot to an exact number: int when it has no decimal part, else a finite float."""
    if _is_int(v):
        return v  # type: ignore[return-value]
    if isinstance(v, str) and _NUMBER_RE.fullmatch(v):
        m = _NUMBER_CORE_RE.search(v)
        assert m is not None
        core = m.group(0).replace(",", "")
        if "." not in core:
            return int(core)
    return coerce_float(v)


def coerce_date(v: object) -> _dt.date | None:
    """Coerce a raw value to a date, or None."""
    if isinstance(v, _dt.datetime):
        return None
    if isinstance(v, _dt.date):
        return v
    if _is_int(v) and 10000101 <= v <= 99991231:  # type: ignore[operator]
        v = str(v)
    if isinstance(v, str) and _DATE_RE.fullmatch(v):
        d = _NON_DIGIT_RE.sub("", v)
        y, m, day = int(d[:4]), int(d[4:6]), int(d[6:8])
        try:
            return _dt.date(y, m, day) if y > 0 else None
        except ValueError:
            return None
    return None


def coerce_bool(v: object) -> bool | None:
    """Coerce a raw value to a boolean, or None."""
    if isinstance(v, bool):
        return v
    if _is_int(v):
        return True if v == 1 else False if v == 0 else None
    if isinstance(v, str):
        w = v.strip(" \t\n\r").lower()
        if w in TRUE_WORDS:
            return True
        if w in FALSE_WORDS:
            return False
    return None


def coerce_text(v: object) -> str | None:
    """Coerce a raw value to text: strings as is, numbers to their canonical text, else None."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else None
    if isinstance(v, _dt.date):  # serialised by orjson as ISO text
        return v.isoformat()
    return None


def is_json(t: FieldType | None) -> bool:
    """True for the ``json`` scalar type."""
    return isinstance(t, ScalarType) and t.kind == "json"


def storage_of(t: FieldType) -> str:
    """:func:`edgedsl.types.storage_kind`, with ``json`` told apart from text."""
    return "json" if is_json(t) else storage_kind(t)


def json_text(v: object) -> str | None:
    """The canonical JSON text of a json field's raw value (None for null / missing)."""
    if v is None:
        return None
    text = orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()
    return None if text == "null" else text


def decode_stored(t: FieldType | None, v: object) -> object:
    """A value read from a shredded column as a Python value (list and json fields decoded)."""
    if isinstance(v, str) and (isinstance(t, ListType) or is_json(t)):
        return orjson.loads(v)
    return v


def coerce(t: FieldType, v: object) -> object:
    """Coerce raw value ``v`` to field type ``t`` (Python reference of :func:`coerce_sql`)."""
    kind = storage_of(t)
    if kind == "json":
        text = json_text(v)
        return None if text is None else orjson.loads(text)
    if kind == "integer":
        return coerce_int(v)
    if kind == "double":
        return coerce_float(v)
    if kind == "date":
        return coerce_date(v)
    if kind == "bool":
        return coerce_bool(v)
    if kind == "list":
        # kept as JSON text in DuckDB: elements read back as JSON (NaN → None, date → ISO text)
        return orjson.loads(orjson.dumps(v)) if isinstance(v, list | tuple) else None
    return coerce_text(v)


_SQL_TYPES = {
    "integer": "BIGINT",
    "double": "DOUBLE",
    "date": "DATE",
    "bool": "BOOLEAN",
    "text": "VARCHAR",
    "list": "VARCHAR",
    "json": "VARCHAR",
}


def sql_type(t: FieldType) -> str:
    """The DuckDB column type a field of type ``t`` is shredded into (lists: JSON text)."""
    return _SQL_TYPES[storage_of(t)]


def _date_from_text_sql(s: str) -> str:
    dash = sql_string_literal(r"^([0-9]{4})([0-9]{2})([0-9]{2})$")
    return (
        f"CASE WHEN regexp_matches({s}, {sql_string_literal(DATE_PATTERN)}) "
        f"AND NOT regexp_matches({s}, {sql_string_literal('^' + _WS + '0000')}) "
        f"THEN TRY_CAST(regexp_replace(regexp_replace({s}, '[^0-9]', '', 'g'), {dash}, "
        r"'\1-\2-\3') AS DATE) END"
    )


def coerce_sql(v: str, t: FieldType, *, jtype: str | None = None, text: str | None = None) -> str:
    """SQL expression coercing JSON expression ``v`` (SQL NULL when missing) to type ``t``.

    ``v`` must be a trusted SQL expression (e.g. a quoted column name). ``jtype`` and ``text``
    may name precomputed ``json_type(v)`` and ``v ->> '$'`` expressions (cheaper to plan). The
    result has type :func:`sql_type` ``(t)``. Semantics are those of :func:`coerce`.

    A ``json`` field is the exception: ``v`` must already hold the canonical JSON text (or JSON
    whose text is canonical) — see :func:`json_text` for why only Python makes it — and the
    result is that text (SQL NULL for JSON null).
    """
    kind = storage_of(t)
    jt = jtype or f"json_type({v})"
    s = text or f"({v} ->> '$')"
    if kind == "integer":
        d = f"CAST({v} AS DOUBLE)"
        body = (
            f"CASE {jt} WHEN 'BIGINT' THEN CAST({v} AS BIGINT) "
            f"WHEN 'UBIGINT' THEN TRY_CAST(CAST({v} AS UBIGINT) AS BIGINT) "
            f"WHEN 'DOUBLE' THEN CASE WHEN {d} = trunc({d}) THEN TRY_CAST({d} AS BIGINT) END "
            f"WHEN 'VARCHAR' THEN CASE WHEN regexp_matches({s}, "
            f"{sql_string_literal(INTEGER_PATTERN)}) THEN TRY_CAST(replace(regexp_extract({s}, "
            f"{sql_string_literal(INTEGER_CORE)}), ',', '') AS BIGINT) END END"
        )
    elif kind == "double":
        parsed = (
            f"TRY_CAST(replace(regexp_extract({s}, {sql_string_literal(NUMBER_CORE)}), ',', '') "
            "AS DOUBLE)"
        )
        body = (
            f"CASE {jt} WHEN 'BIGINT' THEN CAST({v} AS DOUBLE) "
            f"WHEN 'UBIGINT' THEN CAST({v} AS DOUBLE) WHEN 'DOUBLE' THEN CAST({v} AS DOUBLE) "
            f"WHEN 'VARCHAR' THEN CASE WHEN "
            f"regexp_matches({s}, {sql_string_literal(NUMBER_PATTERN)}) "
            f"THEN nullif(nullif({parsed}, 'inf'::DOUBLE), '-inf'::DOUBLE) END END"
        )
    elif kind == "date":
        as_text = (
            f"CASE {jt} WHEN 'VARCHAR' THEN {s} "
            f"WHEN 'BIGINT' THEN CASE WHEN CAST({v} AS BIGINT) BETWEEN 10000101 AND 99991231 "
            f"THEN CAST({v} AS VARCHAR) END "
            f"WHEN 'UBIGINT' THEN CASE WHEN TRY_CAST({v} AS BIGINT) BETWEEN 10000101 AND 99991231 "
            f"THEN CAST({v} AS VARCHAR) END END"
        )
        body = _date_from_text_sql(f"({as_text})")
    elif kind == "bool":
        w = f"lower(regexp_replace({s}, {sql_string_literal(f'^{_WS}|{_WS}$')}, '', 'g'))"
        trues = ", ".join(sql_string_literal(x) for x in TRUE_WORDS)
        falses = ", ".join(sql_string_literal(x) for x in FALSE_WORDS)
        body = (
            f"CASE {jt} WHEN 'BOOLEAN' THEN CAST({v} AS BOOLEAN) "
            f"WHEN 'BIGINT' THEN CASE CAST({v} AS BIGINT) WHEN 1 THEN true WHEN 0 THEN false END "
            f"WHEN 'UBIGINT' THEN CASE TRY_CAST({v} AS BIGINT) "
            "WHEN 1 THEN true WHEN 0 THEN false END "
            f"WHEN 'VARCHAR' THEN CASE WHEN {w} IN ({trues}) THEN true "
            f"WHEN {w} IN ({falses}) THEN false END END"
        )
    elif kind == "list":
        body = f"CASE WHEN {jt} = 'ARRAY' THEN CAST({v} AS VARCHAR) END"
    elif kind == "json":
        body = f"CASE WHEN {jt} <> 'NULL' THEN CAST({v} AS VARCHAR) END"
    else:
        body = (
            f"CASE {jt} WHEN 'VARCHAR' THEN {s} WHEN 'BIGINT' THEN CAST({v} AS VARCHAR) "
            f"WHEN 'UBIGINT' THEN CAST({v} AS VARCHAR) "
            f"WHEN 'DOUBLE' THEN CAST(CAST({v} AS DOUBLE) AS VARCHAR) END"
        )
    return f"CAST(({body}) AS {sql_type(t)})"


# ---------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------

Rows = Sequence[Mapping[str, Any]]
SqlBuilder = Callable[[str, str, object, FieldType], tuple[str, list[object]]]
Reference = Callable[[Rows, str, object, FieldType], list[int]]


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


@dataclass(frozen=True, slots=True)
class Reducer:
    """A reducer: its spelling, static type rule, SQL builder and pure-Python reference.

    ``sql(prev, column, pivot, ftype)`` returns the body of one CTE selecting ``*`` from the
    trusted relation expression ``prev``; ``column`` is already quoted. ``reference(rows, field,
    pivot, ftype)`` returns the indexes of the kept rows (tests and :mod:`edgedsl.testing` only).
    """

    op: str
    surface: str
    needs_pivot: bool
    accepts: Callable[[FieldType], bool]
    sql: SqlBuilder
    reference: Reference
    doc: str


def _coerced(rows: Rows, field: str, ftype: FieldType) -> list[Any]:
    if is_json(ftype):  # compared as the canonical text, like the SQL column
        return [json_text(r.get(field)) for r in rows]
    return [coerce(ftype, r.get(field)) for r in rows]


def _extreme_ref(pick: Callable[[Iterable[Any]], Any]) -> Reference:
    def ref(rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
        vals = _coerced(rows, field, ftype)
        present = [v for v in vals if v is not None]
        if not present:
            return []
        best = pick(present)
        return [i for i, v in enumerate(vals) if v is not None and v == best]

    return ref


def _extreme_sql(fn: str) -> SqlBuilder:
    # a window (QUALIFY) reads ``prev`` once; a scalar subquery would reference the CTE twice,
    # which DuckDB plans and runs markedly slower (measured in benchmarks/bench_drv.py)
    def sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
        return f"SELECT * FROM {prev} QUALIFY {col} = {fn}({col}) OVER ()", []

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


def _threshold_ref(ge: bool) -> Reference:
    def ref(rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
        p = coerce_number(pivot) if storage_kind(ftype) == "integer" else coerce_float(pivot)
        if p is None:
            return []
        vals = _coerced(rows, field, ftype)
        return [i for i, v in enumerate(vals) if v is not None and (v >= p if ge else v <= p)]

    return ref


def _eq_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    p = coerce(ftype, pivot)
    if p is None:
        return f"SELECT * FROM {prev} WHERE false", []
    return f"SELECT * FROM {prev} WHERE {col} = CAST(? AS {sql_type(ftype)})", [p]


def _eq_ref(rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
    p = coerce(ftype, pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(_coerced(rows, field, ftype)) if v is not None and v == p]


def _after_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    p = coerce_date(pivot)
    if p is None:
        return f"SELECT * FROM {prev} WHERE false", []
    return f"SELECT * FROM {prev} WHERE {col} > CAST(? AS DATE)", [p]


def _after_ref(rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
    p = coerce_date(pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(_coerced(rows, field, ftype)) if v is not None and v > p]


def _mf_sql(prev: str, col: str, pivot: object, ftype: FieldType) -> tuple[str, list[object]]:
    winner = (
        f"SELECT {col} FROM {prev} WHERE {col} IS NOT NULL GROUP BY {col} "
        f"ORDER BY count(*) DESC, {col} ASC LIMIT 1"
    )
    return f"SELECT * FROM {prev} WHERE {col} = ({winner})", []


def _mf_ref(rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
    vals = _coerced(rows, field, ftype)
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
        ),
        Reducer(
            "min",
            "min",
            False,
            _orderable,
            _extreme_sql("min"),
            _extreme_ref(min),
            "rows whose field equals the minimum non-null value",
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


def reduce_sql(
    source: str | tuple[str, ...],
    steps: Sequence[ReduceStep],
    types: Mapping[str, FieldType],
) -> tuple[str, list[object]]:
    """One deterministic SQL text (chained CTEs) and its bound parameters.

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
    """
    # each CTE: FROM text, WHERE conditions, QUALIFY condition (0 or 1), or an opaque body
    ctes: list[tuple[str, list[str], list[str], str | None]] = [(qualified(source), [], [], None)]
    params: list[object] = []
    for step in steps:
        red = check_step(step, types)
        prev = quote_ident(f"__reduce_{len(ctes) - 1}")
        body, ps = red.sql(prev, quote_ident(step.field), step.pivot, types[step.field])
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
    texts = []
    for src, wheres, qualify, opaque in ctes:
        if opaque is not None:
            texts.append(opaque)
            continue
        text = f"SELECT * FROM {src}"
        if wheres:
            text += " WHERE " + (wheres[0] if len(wheres) == 1
                                 else " AND ".join(f"({w})" for w in wheres))
        if qualify:
            text += f" QUALIFY {qualify[0]}"
        texts.append(text)
    named = [f"{quote_ident(f'__reduce_{i}')} AS ({t})" for i, t in enumerate(texts)]
    last = quote_ident(f"__reduce_{len(texts) - 1}")
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
    observed value works. Runs in O(n log n).
    """
    red = REDUCERS.get(op)
    if red is None or not red.needs_pivot:
        raise ValueError(f"reducer {op!r} takes no pivot")
    if not red.accepts(ftype):
        raise ValueError(f"reducer `{red.surface}` does not apply to a {ftype} field")
    buckets: dict[Any, set[object]] = {}
    for r in rows:
        v = coerce(ftype, r.get(field))
        if v is None:
            continue
        h = coerce(handoff_type, r.get(handoff))
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
