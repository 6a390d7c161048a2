"""Relations in DuckDB: the :class:`Relation` handle on one shredded relation.

A :class:`Relation` is a handle on a DuckDB table holding one *shredded* relation:

* ``__row`` (BIGINT) — input order, 0-based;
* ``__arm`` (VARCHAR, nullable) — the fan / compare branch a row came from;
* one column per *declared* field, named after the field (through
  :func:`edgedsl.core.sqlquote.quote_ident`), holding the value coerced to the field's type
  (BIGINT, DOUBLE, DATE, BOOLEAN, VARCHAR; list fields as JSON text) — see
  :mod:`edgedsl.reduce.registry` for the coercion rules;
* ``__raw`` (VARCHAR) — the record as JSON text: a text that parses (``orjson.loads``) to the
  same value as the record's own orjson round trip, keys in the same order. It need not be
  byte-identical to the record's ``orjson.dumps`` (the SQL shredding path keeps the text DuckDB
  reads out of the whole response's one JSON array), so whatever reads ``__raw`` compares
  parsed values, never texts.

Shredding records into such a relation is :mod:`edgedsl.runtime.shred`; the columns themselves —
serialising records, coercing them (all at once or on first read), writing whole columns — are
:mod:`edgedsl.runtime.columns`; running a reduction and keeping its rows, reading in-memory
relations inline, is :mod:`edgedsl.runtime.selection`; where a relation lives is decided by
:mod:`edgedsl.runtime.relations`.

Undeclared fields are *not* given columns; they stay available in ``__raw`` (and therefore in
:meth:`Relation.records`). Field names ``__row``, ``__arm`` and ``__raw`` are reserved, and two
field names that DuckDB would confuse (equal up to ASCII case) are rejected.

A relation may keep its typed columns in memory as well (built by the python path of shredding,
or kept by a reduction): reading its distinct hand-off values then costs no query, and it is
*pending* — its table written only when SQL first needs it (:meth:`Relation.ensure`). Distinct
values of any relation are computed at most once per field (relations never change once built).
:meth:`Relation.reduce` runs a reduction into a new table; :meth:`Relation.aggregate` computes an
aggregate in DuckDB.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import orjson

from edgedsl.core.sqlquote import ident_key, qualified, quote_ident
from edgedsl.core.types import FieldType, is_date, is_numeric
from edgedsl.reduce.coerce import decode_stored
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form, render

from .columns import (
    RESERVED_COLUMNS,
    LazyColumns,
    StoredColumns,
    check_fields,
    create_table_as,
    opaque_fields,
    python_shreds,
    write_columns,
)
from .sqlshred import scan_parts, texts_blobs, write_sql_shredded

__all__ = [
    "AGGREGATES",
    "Relation",
    "aggregate_sql",
    "fields_only",
    "fresh_name",
]

AGGREGATES = ("sum", "avg", "min", "max")
_counter = itertools.count()


def fields_only(types: Mapping[str, FieldType]) -> Mapping[str, FieldType]:
    """``types`` without the reserved columns: the relation of a ``compare`` or of a call with a
    ``fan`` argument types ``__arm`` too (the compared or fanned parameter's type, for answers),
    but the column is always written as the text tag it is."""
    if any(r in types for r in RESERVED_COLUMNS):
        return {f: t for f, t in types.items() if f not in RESERVED_COLUMNS}
    return types


def fresh_name() -> str:
    """A fresh table name for a relation (unique in the process)."""
    return f"__edge_rel_{uuid.uuid4().hex[:12]}_{next(_counter)}"


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
        *,
        columns: Mapping[str, list[Any]] | None = None,
        view: bool = False,
        pending: bool = False,
        defined: tuple[str, list[object]] | None = None,
        distinct: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        """Wrap an existing shredded table; prefer :func:`~edgedsl.runtime.shred.shred` or
        :meth:`from_table`.

        ``columns`` (optional) holds every column the table holds — ``__row``, ``__arm``, each
        field's stored value, ``__raw`` — as lists in ``__row`` order. ``pending`` says the table
        is not written yet: the first method that needs SQL writes it from ``columns`` (one
        statement); ``view`` says the name is a view (for :meth:`drop`). ``defined`` — a
        ``SELECT`` over the connection's tables and its parameters — makes the relation
        *deferred*: pending, its rows that statement's, written by :meth:`ensure` (see
        :func:`edgedsl.runtime.relations.reduce_stored`). ``distinct`` holds fields' distinct
        non-null stored values already read, in first-occurrence order (see :meth:`distinct`).
        """
        if pending and columns is None and defined is None:
            raise ValueError("a pending relation needs its columns")
        self.con = con
        self.table = table
        self.types: dict[str, FieldType] = dict(types)
        self.row_count = row_count
        self._columns = columns
        self._view = view
        self._pending = pending or defined is not None
        self._defined = defined
        self._distinct: dict[str, list[Any]] = {
            f: [self._decode(f, v) for v in vs] for f, vs in (distinct or {}).items()}
        self._ordinal: bool | None = None  # in-memory ``__row`` is 0 … n-1 (computed once)

    @property
    def pending(self) -> bool:
        """True while the table is not written yet (see :meth:`ensure`)."""
        return self._pending

    @property
    def in_memory(self) -> bool:
        """True when the relation's columns are also held in Python (distinct costs no query)."""
        return self._columns is not None

    def ensure(self) -> Relation:
        """Write a pending relation's table (one ``CREATE TEMP TABLE … AS``); returns self."""
        if self._pending and self._defined is not None:
            assert isinstance(self.table, str)
            create_table_as(self.con, self.table, *self._defined)
            self._defined = None
            self._pending = False
        if self._pending:
            cols = self._columns
            assert cols is not None and isinstance(self.table, str)
            fields = fields_only(self.types)
            if isinstance(cols, LazyColumns) and cols.ordinal and \
                    not python_shreds(self.row_count, len(fields)) and \
                    not any(cols.made(f) for f in fields):
                # large and unread: the SQL path coerces faster than Python (the same table)
                arms = cols["__arm"]
                write_sql_shredded(self.con, texts_blobs(cols["__raw"], scan_parts(
                                       self.con, self.row_count)), self.row_count, fields,
                                   None if arms.count(None) == len(arms) else arms, self.table,
                                   True, {f: cols[f] for f in opaque_fields(fields)})
            else:
                write_columns(self.con, self.table, fields, cols, temp=True)
            self._pending = False
        return self

    def is_ordinal(self) -> bool:
        """True when the in-memory ``__row`` is ``0 … n-1`` (worked out once)."""
        if self._ordinal is None:
            cols = self._columns
            assert cols is not None
            self._ordinal = (isinstance(cols, LazyColumns) and cols.ordinal) or all(
                type(v) is int and v == i for i, v in enumerate(cols["__row"]))
        return self._ordinal

    def stored_memo(self) -> StoredColumns | None:
        """The memo kept with this relation's columns when they are a stored response's as the
        store caches them (:class:`~edgedsl.runtime.columns.StoredColumns`: they never change
        while cached, so a statement's result over them may be remembered), else None."""
        cols = self._columns
        return cols if isinstance(cols, StoredColumns) else None

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
        row_count: int | None = None,
    ) -> Relation:
        """A relation over an already-shredded table (e.g. a stored response), without copying.

        Checks that the table has ``__row``, ``__arm``, ``__raw`` and one column per field, and
        counts its rows, in one statement (none for the count when ``row_count`` is given).
        """
        check_fields(types)
        name: str | tuple[str, ...] = table if schema is None else (schema, table)
        cur = con.execute(f"SELECT count(*) FROM {qualified(name)}" if row_count is None
                          else f"SELECT * FROM {qualified(name)} LIMIT 0")
        if row_count is None:
            (n,) = cur.fetchone()  # type: ignore[misc]
            cur = con.execute(f"SELECT * FROM {qualified(name)} LIMIT 0")
            row_count = int(n)
        cols = {ident_key(r[0]) for r in cur.description or ()}
        missing = [c for c in (*RESERVED_COLUMNS, *types) if ident_key(c) not in cols]
        if missing:
            raise ValueError(f"table {table!r} lacks columns {missing}")
        return cls(con, name, types, row_count)

    def _fetch(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        self.ensure()
        return self.con.execute(sql, list(params)).fetchall()

    def _col(self, field: str) -> str:
        if field not in self.types and field not in RESERVED_COLUMNS:
            raise KeyError(f"unknown field {field!r}; fields: {list(self.types)}")
        return quote_ident(field)

    def _decode(self, field: str, value: Any) -> Any:
        return decode_stored(self.types.get(field), value)

    def count(self) -> int:
        """Number of rows."""
        return self.row_count

    def reduce(self, steps: Sequence[ReduceStep], *, name: str | None = None,
               form: Form = "table") -> Relation:
        """Apply reducer steps left to right in DuckDB; the result is a new temp table.

        One statement, rendered in ``form`` (:data:`~edgedsl.reduce.render.Form`; the
        ``"table"`` form suits a table): ``CREATE TEMP TABLE … AS`` reports the number of rows
        it wrote.
        """
        query = build_query(self.table, steps, self.types)
        self.ensure()
        target = name or fresh_name()
        return Relation(self.con, target, self.types, create_table_as(
            self.con, target, render(query, form), query.params()))

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
        """Distinct non-null values of ``field`` in first-occurrence order, as Python values.

        Values are compared as stored (a json or list field as its canonical text). Computed
        once per field; without a query when the relation keeps its columns in memory.
        """
        got = self._distinct.get(field)
        if got is None:
            col = self._col(field)
            if self._columns is not None and field in self._columns:
                stored: list[Any] = list(
                    dict.fromkeys(v for v in self._columns[field] if v is not None))
            else:
                stored = [r[0] for r in self._fetch(
                    f"SELECT {col} FROM {self.sql_name} WHERE {col} IS NOT NULL "
                    f'GROUP BY {col} ORDER BY min("__row")')]
            got = self._distinct[field] = [self._decode(field, v) for v in stored]
        return list(got)

    def records(self) -> list[dict[str, Any]]:
        """The original records (as their JSON reads back), in order.

        A pending relation reads them from its in-memory ``__raw`` column — the same texts in
        the same (``__row``) order the table would hold — without writing the table."""
        if self._pending and self._columns is not None:
            return orjson.loads(  # type: ignore[no-any-return,unused-ignore]
                "[" + ",".join(self._columns["__raw"]) + "]")
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
        """Drop the underlying table or view (the handle must not be used afterwards)."""
        if self._pending:
            self._pending = False
            return
        self.con.execute(f"DROP {'VIEW' if self._view else 'TABLE'} IF EXISTS {self.sql_name}")
