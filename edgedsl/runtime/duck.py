"""Relations in DuckDB: shredding records once into typed columns, reducing them in SQL.

A :class:`Relation` is a handle on a DuckDB table holding one *shredded* relation:

* ``__row`` (BIGINT) — input order, 0-based;
* ``__arm`` (VARCHAR, nullable) — the fan / compare branch a row came from;
* one column per *declared* field, named after the field (through
  :func:`edgedsl.sqlquote.quote_ident`), holding the value coerced to the field's type
  (BIGINT, DOUBLE, DATE, BOOLEAN, VARCHAR; list fields as JSON text) — see
  :mod:`edgedsl.reducers` for the coercion rules;
* ``__raw`` (VARCHAR) — the original record as JSON text.

Undeclared fields are *not* given columns; they stay available in ``__raw`` (and therefore in
:meth:`Relation.records`). Field names ``__row``, ``__arm`` and ``__raw`` are reserved, and two
field names that DuckDB would confuse (equal up to ASCII case) are rejected.

Shredding is columnar: the records are serialised once with orjson into one JSON array, bound as
one parameter, split by DuckDB (``json_extract(…, '$[*]')`` + ``unnest … WITH ORDINALITY``) and
coerced in SQL, in one ``CREATE TABLE … AS`` statement. No Python row is inserted one by one.
Records must be JSON-serialisable by orjson (``datetime.date`` becomes ISO text, tuples become
arrays, NaN becomes null, integers beyond 64 bits are refused), so :meth:`Relation.records`
returns the records as that JSON reads back.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import orjson

from edgedsl.reducers import ReduceStep, coerce_sql, reduce_sql
from edgedsl.sqlquote import ident_key, qualified, quote_ident
from edgedsl.types import FieldType, ListType, is_date, is_numeric

__all__ = ["AGGREGATES", "RESERVED_COLUMNS", "Relation", "aggregate_sql", "shred"]

RESERVED_COLUMNS = ("__row", "__arm", "__raw")
AGGREGATES = ("sum", "avg", "min", "max")
_counter = itertools.count()


def _fresh_name() -> str:
    return f"__edge_rel_{uuid.uuid4().hex[:12]}_{next(_counter)}"


def _check_fields(types: Mapping[str, FieldType]) -> None:
    seen: dict[str, str] = {}
    for name in types:
        quote_ident(name)  # rejects NUL and empty names
        key = ident_key(name)
        if key in (ident_key(r) for r in RESERVED_COLUMNS):
            raise ValueError(f"field name {name!r} is reserved")
        if key in seen:
            raise ValueError(f"fields {seen[key]!r} and {name!r} differ only by ASCII case")
        seen[key] = name


def _json_pointer(field: str) -> str:
    return "/" + field.replace("~", "~0").replace("/", "~1")


def aggregate_sql(source: str | tuple[str, ...], fn: str, field: str) -> tuple[str, list[object]]:
    """SQL (and parameters) computing ``fn(field)`` over a shredded relation ``source``.

    ``fn`` is one of ``sum``, ``avg``, ``min``, ``max``; nulls are ignored (an all-null or empty
    relation gives NULL). ``count`` is ``SELECT count(*)`` and needs no builder.
    """
    if fn not in AGGREGATES:
        raise ValueError(f"unknown aggregate {fn!r}; expected one of {AGGREGATES}")
    return f"SELECT {fn}({quote_ident(field)}) FROM {qualified(source)}", []


class Relation:
    """A handle on a shredded relation stored in a DuckDB table (see the module docstring)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        table: str | tuple[str, ...],
        types: Mapping[str, FieldType],
        row_count: int,
    ) -> None:
        """Wrap an existing shredded table; prefer :func:`shred` or :meth:`from_table`."""
        self.con = con
        self.table = table
        self.types: dict[str, FieldType] = dict(types)
        self.row_count = row_count

    def __repr__(self) -> str:
        return f"Relation({qualified(self.table)}, {self.row_count} rows, {list(self.types)})"

    def __len__(self) -> int:
        return self.row_count

    @property
    def sql_name(self) -> str:
        """The quoted (possibly qualified) table name."""
        return qualified(self.table)

    @classmethod
    def from_table(
        cls,
        con: duckdb.DuckDBPyConnection,
        table: str,
        types: Mapping[str, FieldType],
        *,
        schema: str | None = None,
    ) -> Relation:
        """A relation over an already-shredded table (e.g. a stored response), without copying.

        Checks that the table has ``__row``, ``__arm``, ``__raw`` and one column per field.
        """
        _check_fields(types)
        name: str | tuple[str, ...] = table if schema is None else (schema, table)
        cols = {
            ident_key(r[0])
            for r in con.execute(f"SELECT * FROM {qualified(name)} LIMIT 0").description or ()
        }
        missing = [c for c in (*RESERVED_COLUMNS, *types) if ident_key(c) not in cols]
        if missing:
            raise ValueError(f"table {table!r} lacks columns {missing}")
        (n,) = con.execute(f"SELECT count(*) FROM {qualified(name)}").fetchone()  # type: ignore[misc]
        return cls(con, name, types, int(n))

    def _fetch(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return self.con.execute(sql, list(params)).fetchall()

    def _col(self, field: str) -> str:
        if field not in self.types and field not in RESERVED_COLUMNS:
            raise KeyError(f"unknown field {field!r}; fields: {list(self.types)}")
        return quote_ident(field)

    def _decode(self, field: str, value: Any) -> Any:
        if value is not None and isinstance(self.types.get(field), ListType):
            return orjson.loads(value)
        return value

    def count(self) -> int:
        """Number of rows."""
        return self.row_count

    def reduce(self, steps: Sequence[ReduceStep], *, name: str | None = None) -> Relation:
        """Apply reducer steps left to right in DuckDB; the result is a new temp table."""
        sql, params = reduce_sql(self.table, steps, self.types)
        target = name or _fresh_name()
        self.con.execute(f"CREATE TEMP TABLE {quote_ident(target)} AS {sql}", params)
        (n,) = self._fetch(f"SELECT count(*) FROM {quote_ident(target)}")[0]
        return Relation(self.con, target, self.types, int(n))

    def row_ids(self) -> list[int]:
        """The ``__row`` of every row (input indexes of the kept rows), in order."""
        return [r[0] for r in self._fetch(f'SELECT "__row" FROM {self.sql_name} ORDER BY "__row"')]

    def column(self, field: str) -> list[Any]:
        """Typed values of ``field`` per row, in order (None for null)."""
        col = self._col(field)
        rows = self._fetch(f'SELECT {col} FROM {self.sql_name} ORDER BY "__row"')
        return [self._decode(field, r[0]) for r in rows]

    def arms(self) -> list[str | None]:
        """The ``__arm`` tag of every row, in order."""
        return [r[0] for r in self._fetch(f'SELECT "__arm" FROM {self.sql_name} ORDER BY "__row"')]

    def distinct(self, field: str) -> list[Any]:
        """Distinct non-null values of ``field`` in first-occurrence order, as Python values."""
        col = self._col(field)
        rows = self._fetch(
            f"SELECT {col} FROM {self.sql_name} WHERE {col} IS NOT NULL "
            f'GROUP BY {col} ORDER BY min("__row")'
        )
        return [self._decode(field, r[0]) for r in rows]

    def records(self) -> list[dict[str, Any]]:
        """The original records (as their JSON reads back), in order."""
        (blob,) = self._fetch(
            f"SELECT '[' || coalesce(string_agg(\"__raw\", ',' ORDER BY \"__row\"), '') || ']' "
            f"FROM {self.sql_name}"
        )[0]
        return orjson.loads(blob)  # type: ignore[no-any-return,unused-ignore]

    def aggregate(self, fn: str, field: str) -> Any:
        """``sum``/``avg``/``min``/``max`` of a field, computed in DuckDB (None when no value)."""
        self._col(field)
        t = self.types[field]
        if fn in ("sum", "avg") and not is_numeric(t):
            raise ValueError(f"{fn} needs a numeric field; {field!r} is {t}")
        if fn in ("min", "max") and not (is_numeric(t) or is_date(t)):
            raise ValueError(f"{fn} needs a numeric or date field; {field!r} is {t}")
        sql, params = aggregate_sql(self.table, fn, field)
        return self._fetch(sql, params)[0][0]

    def drop(self) -> None:
        """Drop the underlying table (the handle must not be used afterwards)."""
        self.con.execute(f"DROP TABLE IF EXISTS {self.sql_name}")


def shred(
    con: duckdb.DuckDBPyConnection,
    records: Sequence[Mapping[str, Any]],
    types: Mapping[str, FieldType],
    *,
    arm: Sequence[str | None] | None = None,
    name: str | None = None,
    temp: bool | None = None,
) -> Relation:
    """Shred ``records`` once into a typed DuckDB table and return its :class:`Relation`.

    ``arm`` optionally tags each record with the branch it came from. ``name`` names the table
    (default: a fresh name); the table is temporary unless a ``name`` is given (``temp``
    overrides), so that a store can keep shredded responses in its DuckDB file.
    """
    _check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    payload: object = records if arm is None else list(zip(arm, records, strict=True))
    try:
        blob = orjson.dumps(payload)
    except TypeError as exc:  # orjson.JSONEncodeError subclasses TypeError
        raise ValueError(f"records are not JSON-serialisable: {exc}") from exc
    target = name or _fresh_name()
    is_temp = name is None if temp is None else temp
    if arm is None:
        rec, arm_sql = "u.j", "CAST(NULL AS VARCHAR)"
    else:
        rec, arm_sql = "json_extract(u.j, '$[1]')", "json_extract_string(u.j, '$[0]')"
    names = list(types)
    q = [
        (quote_ident(f"__v{i}"), quote_ident(f"__t{i}"), quote_ident(f"__s{i}"))
        for i in range(len(names))
    ]
    extract = "".join(f", json_extract(rec, ?) AS {v}" for v, _, _ in q)
    derived = "".join(f", json_type({v}) AS {jt}, {v} ->> '$' AS {tx}" for v, jt, tx in q)
    typed = "".join(
        f", {coerce_sql(v, types[f], jtype=jt, text=tx)} AS {quote_ident(f)}"
        for f, (v, jt, tx) in zip(names, q, strict=True)
    )
    sql = (
        f"CREATE {'TEMP ' if is_temp else ''}TABLE {quote_ident(target)} AS\n"
        f"WITH __src AS (SELECT u.r - 1 AS __row, {arm_sql} AS __arm, {rec} AS rec\n"
        f"  FROM unnest(json_extract(CAST(? AS VARCHAR), '$[*]')) WITH ORDINALITY AS u(j, r)),\n"
        f"__ext AS (SELECT __row, __arm, rec{extract} FROM __src),\n"
        f"__der AS (SELECT *{derived} FROM __ext)\n"
        f'SELECT CAST(__row AS BIGINT) AS "__row", CAST(__arm AS VARCHAR) AS "__arm"{typed}, '
        f'CAST(rec AS VARCHAR) AS "__raw"\nFROM __der ORDER BY __row'
    )
    con.execute(sql, [blob.decode(), *(_json_pointer(f) for f in names)])
    return Relation(con, target, types, len(records))
