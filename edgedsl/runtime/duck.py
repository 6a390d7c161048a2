"""Relations in DuckDB: shredding records once into typed columns, reducing them in SQL.

A :class:`Relation` is a handle on a DuckDB table holding one *shredded* relation:

* ``__row`` (BIGINT) — input order, 0-based;
* ``__arm`` (VARCHAR, nullable) — the fan / compare branch a row came from;
* one column per *declared* field, named after the field (through
  :func:`edgedsl.core.sqlquote.quote_ident`), holding the value coerced to the field's type
  (BIGINT, DOUBLE, DATE, BOOLEAN, VARCHAR; list fields as JSON text) — see
  :mod:`edgedsl.reduce.registry` for the coercion rules;
* ``__raw`` (VARCHAR) — the original record as JSON text.

The columns themselves — serialising records, coercing them (all at once or on first read),
writing whole columns — are :mod:`edgedsl.runtime.columns`; where a relation lives is decided by
:mod:`edgedsl.runtime.relations`.

Undeclared fields are *not* given columns; they stay available in ``__raw`` (and therefore in
:meth:`Relation.records`). Field names ``__row``, ``__arm`` and ``__raw`` are reserved, and two
field names that DuckDB would confuse (equal up to ASCII case) are rejected.

Shredding is columnar and never inserts Python rows one by one. Each record is serialised once
with orjson (its ``__raw`` text) and every value is coerced from the record *as that JSON reads
back*, by one of two equivalent paths producing identical tables:

* **python** (small inputs): :func:`edgedsl.reduce.coerce.coerce` coerces each field in Python and
  one
  ``CREATE TABLE … AS SELECT unnest(?::BIGINT[]) AS …, unnest(?::DATE[]) AS …`` loads whole
  typed columns bound as lists — one statement, with no JSON or regex work left for DuckDB to
  plan (planning dominated the cost of small shreds);
* **sql** (large inputs, :func:`edgedsl.runtime.columns.write_sql_shredded`): the record texts
  are bound as one column (packed into one text when large, :mod:`edgedsl.runtime.bind`),
  DuckDB reads the declared fields of each record by their JSON pointers (one call per record
  for their values, one for their JSON types, one for their texts) and
  :func:`edgedsl.reduce.coerce.coerce_sql` coerces in SQL, each text matched once against its
  type's pattern, in one ``CREATE TABLE … AS`` statement. The records are not read back whole:
  only list and json fields need Python values, and those are taken column by column
  (:func:`edgedsl.runtime.columns.record_texts`).

List and ``json`` fields are stored as canonical JSON text made in Python on both paths (see
:func:`edgedsl.reduce.coerce.json_text`). The choice is by the number of cells (records × (fields
+ 1)) against :data:`PYTHON_SHRED_MAX_CELLS`, measured with ``benchmarks/bench_drv.py``; the
differential tests check that both paths agree with :func:`edgedsl.reduce.coerce.coerce`, and a
property test that they build identical tables. Records must be JSON-serialisable by orjson
(``datetime.date`` becomes ISO text, tuples become arrays, NaN becomes null, integers beyond 64
bits are refused), so :meth:`Relation.records` returns the records as that JSON reads back.

A relation built by the python path keeps its typed columns in memory as well, so reading its
distinct hand-off values costs no query, and a reduction of it (:func:`select_relation` with
``source``) fetches only the kept ``__row`` ids and builds the kept relation from those
columns; distinct values of any relation are computed at most once per field (relations never
change once built).

Small reductions (measured with ``benchmarks/bench_drv.py``: a DuckDB statement through the
Python binding costs more to parse, bind and plan than to run over a few dozen rows) take a
shorter road, with the same SQL semantics:

* the reduction of an in-memory relation always reads the relation *inline* — its columns bound
  as lists and unnested in a subquery named like the relation, only the fields the query
  reads — whether or not its table is written, so it needs no table and runs on the connection
  its caller gives: the executor gives the *scratch* connection of
  :mod:`edgedsl.runtime.relations` (one thread, optimizer off), which also decides the
  reduction's form and owns every threshold of where a relation lives;
* the statement is rendered for it (:func:`edgedsl.reduce.render.render_kept`): each block
  read once is a subquery where it is read, and the last block selects ``"__row"`` itself —
  with the optimizer off DuckDB plans every CTE and ``SELECT`` layer it is given (the 27-record
  step: ~0.98 → ~0.87 ms warm, 2.1 → 1.3 ms cold);
* the lists are bound without a ``::T[]`` cast (DuckDB types them from the Python values, which
  are already the stored type; a column with no value at all is a typed ``NULL``), which DuckDB
  binds markedly faster; a large text, integer or date column is bound *packed*, as one text
  (:mod:`edgedsl.runtime.bind`), since converting a list costs DuckDB a Python value at a time;
* only the kept ``__row`` ids are fetched, unsorted (sorted in Python);
* the parsed statement is cached by its text (:func:`execute_cached`), so a reduction run again
  — the same ``drv`` in the next run of a plan — is not parsed again;
* over a stored response's columns as the store caches them
  (:class:`~edgedsl.runtime.columns.StoredColumns`, which never change while cached), the kept
  ids are remembered by the statement's text and the query's values, so a replayed ``drv`` does
  not run its statement again (the trace records the same text and parameters; measured with
  ``benchmarks/bench_replay.py``: the five-call replay's CPU time per run 2.0 → 1.1 ms).
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

import duckdb
import orjson

from edgedsl.core.sqlquote import ident_key, qualified, quote_ident
from edgedsl.core.types import FieldType, is_date, is_numeric
from edgedsl.reduce.coerce import (
    decode_stored,
    sql_type,
)
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form, render, render_kept

from .bind import BindMode, bind_column, column_sql
from .columns import (
    RESERVED_COLUMNS,
    LazyColumns,
    StoredColumns,
    check_fields,
    columns_of,
    create_table_as,
    lazy_columns,
    opaque_fields,
    python_columns,
    record_texts,
    serialise,
    source_columns,
    stored_columns,
    take,
    write_columns,
    write_sql_shredded,
)

__all__ = [
    "AGGREGATES",
    "PYTHON_SHRED_MAX_CELLS",
    "RESERVED_COLUMNS",
    "LazyColumns",
    "Relation",
    "Selection",
    "aggregate_sql",
    "create_table_as",
    "execute_cached",
    "inline_query",
    "lazy_columns",
    "python_columns",
    "run_selection",
    "select_relation",
    "shred",
    "source_columns",
]

AGGREGATES = ("sum", "avg", "min", "max")
#: Above this many cells (records × (fields + 1)) :func:`shred` coerces in SQL instead of Python.
#: Measured with ``benchmarks/bench_drv.py`` (2 noisy cores, 5 fields): 27 records — python
#: 1.7 ms, SQL 7.1 ms; 1,000 records — 11 ms vs 13 ms; 20,000 records — 228 ms vs 123 ms. The
#: paths crossed near 1,500 records of 5 fields (~10,000 cells). Since the SQL path's rewrite (no
#: readback, each text matched once; CPU time, median of 7, load 12): 27 records — 2.9 vs
#: 9.9 ms; 1,000 — 14.1 vs 14.0 ms; 2,000 — 25 vs 20 ms; 20,000 — 211 vs 89 ms: they cross near
#: 1,000 records (~6,000 cells); the bound stays (up to it the two differ by under 5 ms).
PYTHON_SHRED_MAX_CELLS = 10_000
ShredMethod = Literal["auto", "python", "sql"]
_counter = itertools.count()
#: The bound of each memo of statement texts and parsed statements (``functools.lru_cache``).
STATEMENT_CACHE_SIZE = 1024
_PARSER_LOCAL = threading.local()


def _forget_parser() -> None:  # a forked child opens its own parser connection
    global _PARSER_LOCAL
    _PARSER_LOCAL = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_parser)


def _parser() -> duckdb.DuckDBPyConnection:
    """This thread's connection for parsing statements (parsing reads no catalog)."""
    con: duckdb.DuckDBPyConnection | None = getattr(_PARSER_LOCAL, "con", None)
    if con is None:
        con = _PARSER_LOCAL.con = duckdb.connect(":memory:")
    return con


@functools.lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def _statement(sql: str) -> duckdb.Statement | None:
    """``sql`` parsed, when it is exactly one statement."""
    parsed = _parser().extract_statements(sql)
    return parsed[0] if len(parsed) == 1 else None


def execute_cached(con: duckdb.DuckDBPyConnection, sql: str,
                   params: Sequence[object] = ()) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql, params)`` for one statement, parsing ``sql`` only the first time.

    DuckDB parses a statement's text on every ``execute`` (~0.4 ms for a reduction with its
    inline source here); the parsed :class:`duckdb.Statement` is kept by text (the last
    :data:`STATEMENT_CACHE_SIZE`) and executed instead (binding and planning still happen per
    call, so parameters and the catalog are read afresh). A text that is not exactly one
    statement runs as text.
    """
    st = _statement(sql)
    if st is None:
        return con.execute(sql, list(params))
    return con.execute(st, list(params))


@functools.lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def _kept_text(query: ReduceQuery, form: Form, names: tuple[str, ...],
               modes: tuple[BindMode, ...], stypes: tuple[str, ...]) -> str:
    """The kept-rows statement of ``query`` (a skeleton: values are bound) in ``form``, its
    source read inline as ``names`` bound by their modes and stored types
    (:func:`~edgedsl.reduce.render.render_kept`)."""
    parts = [column_sql(m, t, n) for n, m, t in zip(names, modes, stypes, strict=True)]
    return render_kept(query, form, f"SELECT {', '.join(parts)}")


def _stype(name: str, types: Mapping[str, FieldType]) -> str:
    """The stored SQL type of column ``name`` (a reserved one or a field of ``types``)."""
    if name == "__row":
        return "BIGINT"
    if name in RESERVED_COLUMNS:
        return "VARCHAR"
    return sql_type(types[name])


def _fields_only(types: Mapping[str, FieldType]) -> Mapping[str, FieldType]:
    """``types`` without the reserved columns: the relation of a ``compare`` or of a call with a
    ``fan`` argument types ``__arm`` too (the compared or fanned parameter's type, for answers),
    but the column is always written as the text tag it is."""
    if any(r in types for r in RESERVED_COLUMNS):
        return {f: t for f, t in types.items() if f not in RESERVED_COLUMNS}
    return types


def _fresh_name() -> str:
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
        """Wrap an existing shredded table; prefer :func:`shred` or :meth:`from_table`.

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
            fields = _fields_only(self.types)
            if isinstance(cols, LazyColumns) and cols.ordinal and \
                    self.row_count * (len(fields) + 1) > PYTHON_SHRED_MAX_CELLS and \
                    not any(cols.made(f) for f in fields):
                # large and unread: the SQL path coerces faster than Python (identical table)
                arms = cols["__arm"]
                write_sql_shredded(self.con, cols["__raw"], fields,
                                   None if arms.count(None) == len(arms) else arms, self.table,
                                   True, {f: cols[f] for f in opaque_fields(fields)})
            else:
                write_columns(self.con, self.table, fields, cols, temp=True)
            self._pending = False
        return self

    def _kept_query(self, query: ReduceQuery, form: Form) -> tuple[str, list[object]]:
        """The statement (and the parameters it binds before the query's own) fetching the
        ``__row`` ids of the rows ``query`` — a reduction of this in-memory relation — keeps,
        reading this relation inline (see :meth:`_select_kept`): ``__row`` and the fields the
        query reads, each one bound column. The texts are cached."""
        cols = self._columns
        assert cols is not None and isinstance(self.table, str)
        if query.source != self.table:  # the inline copy is named like this relation
            query = ReduceQuery(self.table, query.filters)
        names = ["__row", *query.fields()]
        params: list[object] = []
        modes: list[BindMode] = []
        stypes = tuple(_stype(n, self.types) for n in names)
        for n, t in zip(names, stypes, strict=True):
            mode, param = bind_column(cols[n], t, row=n == "__row",
                                      ordinal=n == "__row" and self._is_ordinal())
            modes.append(mode)
            if mode != "null":
                params.append(param)
        # keyed by the stored types too: the same query may read a field of another type elsewhere
        got = _kept_text(query.skeleton(), form, tuple(names), tuple(modes), stypes)
        return got, params

    def _is_ordinal(self) -> bool:
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

    def _select_kept(self, name: str, types: Mapping[str, FieldType], query: ReduceQuery,
                     form: Form, con: duckdb.DuckDBPyConnection
                     ) -> Selection | None:
        """See :func:`select_relation`: the kept rows of ``query`` (a reduction of this
        in-memory relation) as a pending relation built from this one's columns, with the text
        and parameters that ran; None when this relation's columns do not cover ``types``.

        The statement reads this relation inline, written or not: a subquery of the same name
        holds ``__row`` and the fields the query reads, each one list bound without a cast —
        DuckDB types it from the Python values, which are the stored type already; a column
        holding no value is a typed NULL. It fetches only the kept ``__row`` ids, unsorted, and
        runs on ``con``."""
        cols = self._columns
        if cols is None or not isinstance(self.table, str) or any(
                f not in cols or (self.types.get(f) != t and f not in RESERVED_COLUMNS)
                for f, t in types.items()):  # ``__arm`` may be typed (see _fields_only)
            return None
        text, inline = self._kept_query(query, form)
        values = query.params()
        params = [*inline, *values]
        # over a stored response's cached columns, the ids are remembered (StoredColumns)
        stored = cols if isinstance(cols, StoredColumns) else None
        key = (text, tuple((type(v), v) for v in values))
        ids = None if stored is None else stored.kept.get(key)
        remembered = ids is not None
        if ids is None:
            rows = execute_cached(con, text, params).fetchall()
            ids = sorted([r[0] for r in rows])
            if stored is not None:
                stored.remember(key, ids)
        if self._is_ordinal():
            idx = ids
        else:
            pos = {v: i for i, v in enumerate(cols["__row"])}
            idx = [pos[r] for r in ids]
        kept: Mapping[str, list[Any]]
        if isinstance(cols, LazyColumns):
            kept = cols.rows(idx, types)
        else:
            kept = {k: take(cols[k], idx) for k in ("__row", "__arm", *types, "__raw")}
        return Selection(Relation(self.con, name, types, len(idx), columns=kept, pending=True),
                         text, params, remembered)

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
        target = name or _fresh_name()
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


class Selection(NamedTuple):
    """What :func:`run_selection` returns: the kept relation, the statement's text and
    parameters, and ``remembered`` — True when the kept rows were the remembered result of that
    same statement over the same stored response (:class:`~edgedsl.runtime.columns.StoredColumns`),
    so that DuckDB did not execute it again in this run."""

    relation: Relation
    sql: str
    params: list[object]
    remembered: bool = False


def select_relation(con: duckdb.DuckDBPyConnection, name: str, types: Mapping[str, FieldType],
                    query: ReduceQuery, *, form: Form = "window",
                    source: Relation | None = None,
                    inline_on: duckdb.DuckDBPyConnection | None = None) -> Relation:
    """Run a reduction and keep its rows in memory as a *pending* relation ``name`` (for small
    results: distinct values then cost no query, and the table is written only if SQL needs
    it). One statement; :func:`run_selection` also returns its text and parameters."""
    return run_selection(con, name, types, query, form=form, source=source,
                         inline_on=inline_on)[0]


def run_selection(con: duckdb.DuckDBPyConnection, name: str, types: Mapping[str, FieldType],
                  query: ReduceQuery, *, form: Form = "window",
                  source: Relation | None = None,
                  inline_on: duckdb.DuckDBPyConnection | None = None
                  ) -> Selection:
    """:func:`select_relation`, with the exact SQL text DuckDB executed and its parameters.

    With ``source`` — the relation ``query`` reduces — holding its columns in memory, the
    statement (:func:`~edgedsl.reduce.render.render_kept`) fetches only the kept ``__row``
    values and the kept relation's columns are taken from the source's (no ``__raw`` or typed
    values cross from DuckDB to Python). The source is read inline, written or not: its rows
    enter the statement as a subquery of the same name (``__row`` and the fields the query
    reads, each bound as one column), so the statement reads no table and runs on
    ``inline_on`` (default ``con``; the executor passes the connection
    :func:`edgedsl.runtime.relations.inline_connection` chooses, and ``form`` from
    :func:`edgedsl.runtime.relations.reduction_form`). Otherwise the query runs rendered in
    ``form`` on ``con``. The reduction itself always runs in DuckDB.
    """
    if source is not None and source.in_memory:
        kept = source._select_kept(name, types, query, form, inline_on or con)
        if kept is not None:
            return kept
    if source is not None:
        source.ensure()
    sql, params = render(query, form), query.params()
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description or ()]
    rows = cur.fetchall()
    cols = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    return Selection(Relation(con, name, types, len(rows), columns=cols, pending=True), sql,
                     params)


#: SQL types that a list of Python values would not be typed as by itself (ints → INTEGER when
#: they fit 32 bits, where the written table holds BIGINT: arithmetic could overflow).
_CAST_LISTS = frozenset({"BIGINT"})


@functools.lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def _inline_cte(table: str, names: tuple[str, ...], stypes: tuple[str, ...],
                modes: tuple[BindMode, ...]) -> str:
    """The leading CTE of relation ``table`` read inline: ``names`` bound by their modes."""
    parts = [column_sql(m, t, n) for n, t, m in zip(names, stypes, modes, strict=True)]
    return f"{quote_ident(table)} AS (SELECT {', '.join(parts)})"


def inline_query(sql: str, relations: Sequence[tuple[Relation, Sequence[str]]]
                 ) -> tuple[str, list[object]] | None:
    """``sql`` reading each of ``relations`` — in-memory relations it reads, each with the
    fields it reads (derived from the typed query) — *inline*, and the parameters the inline
    copies bind (before ``sql``'s own); None when a relation does not hold its columns in
    memory.

    Each relation becomes a leading CTE of its own name holding ``__row`` and the fields read,
    each one whole column bound as a list (BIGINT columns cast to BIGINT, as the table stores
    them; a column with no value is a typed NULL), so the statement needs no table written: an
    answer or an ``if`` predicate over small relations costs one statement that binds only the
    columns it reads, instead of one ``CREATE TABLE`` per relation (which binds every column
    and writes a table). Same SQL semantics as the tables: the same names, column types and
    rows. ``sql`` is a statement of the compiler's (one ``SELECT``, never ``*``).
    """
    if not relations:
        return None
    pieces: list[str] = []
    params: list[object] = []
    for rel, fields in relations:
        cols = rel._columns
        if cols is None or not isinstance(rel.table, str):
            return None
        read = set(fields)
        names = ["__row", *(n for n in ("__arm", *_fields_only(rel.types), "__raw")
                            if n in read and n in cols)]
        stypes = [_stype(n, rel.types) for n in names]
        modes: list[BindMode] = []
        for n, t in zip(names, stypes, strict=True):
            mode, param = bind_column(cols[n], t, cast=n in rel.types and t in _CAST_LISTS,
                                      row=n == "__row",
                                      ordinal=n == "__row" and rel._is_ordinal())
            modes.append(mode)
            if mode != "null":
                params.append(param)
        pieces.append(_inline_cte(rel.table, tuple(names), tuple(stypes), tuple(modes)))
    return "WITH " + ",\n     ".join(pieces) + "\n" + sql, params


def shred(
    con: duckdb.DuckDBPyConnection,
    records: Sequence[Mapping[str, Any]],
    types: Mapping[str, FieldType],
    *,
    arm: Sequence[str | None] | None = None,
    name: str | None = None,
    temp: bool | None = None,
    method: ShredMethod = "auto",
    lazy: bool = False,
) -> Relation:
    """Shred ``records`` once into a typed DuckDB table and return its :class:`Relation`.

    ``arm`` optionally tags each record with the branch it came from. ``name`` names the table
    (default: a fresh name); the table is temporary unless a ``name`` is given (``temp``
    overrides), so that a store can keep shredded responses in its DuckDB file. ``method``
    forces the python or the sql path (see the module docstring); both build identical tables.
    ``lazy`` (python path only) returns a *pending* relation whose table is written only when
    SQL first needs it (see :meth:`Relation.ensure`).
    """
    check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    target = name or _fresh_name()
    is_temp = name is None if temp is None else temp
    cells = len(records) * (len(types) + 1)
    if method == "python" or (method == "auto" and cells <= PYTHON_SHRED_MAX_CELLS):
        raws, back = serialise(records)
        return _shred_python(con, raws, back, types, arm, target, is_temp, lazy)
    raws, column = record_texts(records)
    opaque = stored_columns({f: types[f] for f in opaque_fields(types)}, column)
    write_sql_shredded(con, raws, types, arm, target, is_temp, opaque)
    return Relation(con, target, types, len(raws))


def _shred_python(con: duckdb.DuckDBPyConnection, raws: list[str], back: list[Any],
                  types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
                  is_temp: bool, lazy: bool) -> Relation:
    columns = columns_of(raws, back, types, arm)
    if lazy and is_temp:
        return Relation(con, target, types, len(raws), columns=columns, pending=True)
    write_columns(con, target, types, columns, temp=is_temp)
    return Relation(con, target, types, len(raws), columns=columns)
