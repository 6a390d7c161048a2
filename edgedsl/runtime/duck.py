"""Relations in DuckDB: shredding records once into typed columns, reducing them in SQL.

A :class:`Relation` is a handle on a DuckDB table holding one *shredded* relation:

* ``__row`` (BIGINT) — input order, 0-based;
* ``__arm`` (VARCHAR, nullable) — the fan / compare branch a row came from;
* one column per *declared* field, named after the field (through
  :func:`edgedsl.sqlquote.quote_ident`), holding the value coerced to the field's type
  (BIGINT, DOUBLE, DATE, BOOLEAN, VARCHAR; list fields as JSON text) — see
  :mod:`edgedsl.reduce.registry` for the coercion rules;
* ``__raw`` (VARCHAR) — the original record as JSON text.

Undeclared fields are *not* given columns; they stay available in ``__raw`` (and therefore in
:meth:`Relation.records`). Field names ``__row``, ``__arm`` and ``__raw`` are reserved, and two
field names that DuckDB would confuse (equal up to ASCII case) are rejected.

Shredding is columnar and never inserts Python rows one by one. Each record is serialised once
with orjson (its ``__raw`` text) and every value is coerced from the record *as that JSON reads
back*, by one of two equivalent paths producing identical tables:

* **python** (small inputs): :func:`.coerce` coerces each field in Python and one
  ``CREATE TABLE … AS SELECT unnest(?::BIGINT[]) AS …, unnest(?::DATE[]) AS …`` loads whole
  typed columns bound as lists — one statement, with no JSON or regex work left for DuckDB to
  plan (planning dominated the cost of small shreds);
* **sql** (large inputs): the record texts are bound as one ``VARCHAR[]``, DuckDB parses each
  record once and :func:`.coerce_sql` coerces in SQL, in one ``CREATE TABLE …
  AS`` statement.

List and ``json`` fields are stored as canonical JSON text made in Python on both paths (see
:func:`.json_text`). The choice is by the number of cells (records × (fields + 1))
against :data:`PYTHON_SHRED_MAX_CELLS`, measured with ``benchmarks/bench_drv.py``; the
differential tests check that both paths agree with :func:`.coerce`, and a property
test that they build identical tables. Records must be JSON-serialisable by orjson
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
  as lists and unnested in a leading CTE named like the relation, only the columns the SQL
  names — whether or not its table is written, so it needs no table and runs on a *scratch*
  connection (:func:`scratch_cursor`): a process-wide in-memory database with one thread (no
  hand-off to a worker thread), whose per-thread cursors have the query optimizer switched off
  (planning cost more than it saved on relations this small; results never depend on it, and the
  property tests check the path against the reference reducers);
* the statement is rendered for it (:func:`edgedsl.reduce.render.render_kept`): each block
  read once is a subquery where it is read, and the last block selects ``"__row"`` itself —
  with the optimizer off DuckDB plans every CTE and ``SELECT`` layer it is given (the 27-record
  step: ~0.98 → ~0.87 ms warm, 2.1 → 1.3 ms cold);
* the lists are bound without a ``::T[]`` cast (DuckDB types them from the Python values, which
  are already the stored type; a column with no value at all is a typed ``NULL``), which DuckDB
  binds markedly faster; a large text, integer or date column is bound *packed*, as one text
  (:mod:`edgedsl.runtime.bind`), since converting a list costs DuckDB a Python value at a time;
* a source of more than :data:`SCRATCH_MAX_WINDOW_ROWS` rows is reduced in the reduction's
  ``"table"`` form (:func:`reduction_form`), which has no window and so needs no optimizer: every
  inline statement but a large window runs on the scratch connection (:func:`scratch_fits`);
* only the kept ``__row`` ids are fetched, unsorted (sorted in Python);
* the parsed statement is cached by its text (:func:`execute_cached`), so a reduction run again
  — the same ``drv`` in the next run of a plan — is not parsed again.
"""

from __future__ import annotations

import itertools
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import duckdb
import orjson

from edgedsl.reduce.coerce import (
    coerce_bool,
    coerce_date,
    coerce_float,
    coerce_int,
    coerce_sql,
    coerce_text,
    decode_stored,
    json_text,
    sql_type,
    storage_of,
)
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form, render, render_kept
from edgedsl.sqlquote import ident_key, qualified, quote_ident
from edgedsl.types import FieldType, is_date, is_numeric

from .bind import BindMode, bind_column, column_sql
from .redact import excerpt

if TYPE_CHECKING:
    from .backends import ColumnSource

__all__ = [
    "AGGREGATES",
    "PYTHON_SHRED_MAX_CELLS",
    "RESERVED_COLUMNS",
    "SCRATCH_MAX_WINDOW_ROWS",
    "LazyColumns",
    "Relation",
    "aggregate_sql",
    "create_table_as",
    "execute_cached",
    "inline_query",
    "lazy_columns",
    "python_columns",
    "reduction_form",
    "scratch_cursor",
    "scratch_fits",
    "select_relation",
    "shred",
    "source_columns",
]

RESERVED_COLUMNS = ("__row", "__arm", "__raw")
AGGREGATES = ("sum", "avg", "min", "max")
#: Above this many cells (records × (fields + 1)) :func:`shred` coerces in SQL instead of Python.
#: Measured with ``benchmarks/bench_drv.py`` (2 noisy cores, 5 fields): 27 records — python
#: 1.7 ms, SQL 7.1 ms; 1,000 records — 11 ms vs 13 ms; 20,000 records — 228 ms vs 123 ms. The
#: paths cross near 1,500 records of 5 fields (~10,000 cells).
PYTHON_SHRED_MAX_CELLS = 10_000
ShredMethod = Literal["auto", "python", "sql"]
_counter = itertools.count()
#: Parsed statements by SQL text (see :func:`execute_cached`); cleared when full.
_STATEMENTS: dict[str, duckdb.Statement] = {}
STATEMENT_CACHE_SIZE = 1024
#: An inline statement with a window over the whole relation (the inline form of ``max`` /
#: ``min``: ``QUALIFY f = max(f) OVER ()``) runs on the scratch connection (no optimizer) only
#: over at most this many rows: without the optimizer its cost grows faster than the rows —
#: 11 ms against 1.4 ms planned at 1,000 rows, 3 s at 22,671. Any other inline statement runs
#: there at any size: the table form of a reduction over 22,671 rows took 12–15 ms there
#: against 26–99 ms planned (the optimizer inlines the source's CTE into each reader).
#: It is also the largest source a ``drv`` reduces in the inline form (see
#: :func:`reduction_form`).
SCRATCH_MAX_WINDOW_ROWS = 128
_SCRATCH: duckdb.DuckDBPyConnection | None = None
_SCRATCH_LOCK = threading.Lock()
_SCRATCH_LOCAL = threading.local()


def scratch_fits(window: bool, rows: int) -> bool:
    """True when an inline statement reading ``rows`` rows (its largest relation's) should run
    on the scratch connection rather than on its relation's own: always, unless it has a
    whole-relation ``window`` over more than :data:`SCRATCH_MAX_WINDOW_ROWS` rows."""
    return rows <= SCRATCH_MAX_WINDOW_ROWS or not window


def reduction_form(rows: int) -> Form:
    """The form to reduce an in-memory source of ``rows`` rows in: ``"window"`` (a window:
    one scan, the cheapest plan for a few dozen rows — 0.70 against 1.05 ms at 27) up to
    :data:`SCRATCH_MAX_WINDOW_ROWS`, ``"table"`` (subqueries, no window) above, on the scratch
    connection either way (``benchmarks/bench_inline.py``)."""
    return "window" if rows <= SCRATCH_MAX_WINDOW_ROWS else "table"


def execute_cached(con: duckdb.DuckDBPyConnection, sql: str,
                   params: Sequence[object] = ()) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql, params)`` for one statement, parsing ``sql`` only the first time.

    DuckDB parses a statement's text on every ``execute`` (~0.4 ms for a reduction with its
    inline source here); the parsed :class:`duckdb.Statement` is kept by text and executed
    instead (binding and planning still happen per call, so parameters and the catalog are
    read afresh). A text that is not exactly one statement runs as text.
    """
    st = _STATEMENTS.get(sql)
    if st is None:
        parsed = con.extract_statements(sql)
        if len(parsed) != 1:
            return con.execute(sql, list(params))
        if len(_STATEMENTS) >= STATEMENT_CACHE_SIZE:
            _STATEMENTS.clear()
        st = _STATEMENTS[sql] = parsed[0]
    return con.execute(st, list(params))


def _forget_scratch() -> None:  # a forked child opens its own scratch database
    global _SCRATCH, _SCRATCH_LOCAL, _SCRATCH_LOCK
    _SCRATCH, _SCRATCH_LOCAL, _SCRATCH_LOCK = None, threading.local(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_scratch)


def scratch_cursor() -> duckdb.DuckDBPyConnection:
    """This thread's cursor on the scratch database (see the module docstring): a process-wide
    in-memory DuckDB with ``threads=1``; the cursor has the optimizer off. Holds no tables: only
    self-contained statements (an inline reduction) run on it."""
    cur: duckdb.DuckDBPyConnection | None = getattr(_SCRATCH_LOCAL, "cursor", None)
    if cur is None:
        global _SCRATCH
        with _SCRATCH_LOCK:
            if _SCRATCH is None:
                _SCRATCH = duckdb.connect(":memory:", config={"threads": 1})
            cur = _SCRATCH.cursor()
        cur.execute("PRAGMA disable_optimizer")
        _SCRATCH_LOCAL.cursor = cur
    return cur


#: Inline reduction texts by (query skeleton, form, columns' bind modes and stored types).
_KEPT_TEXTS: dict[tuple[object, ...], str] = {}


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


def _check_fields(types: Mapping[str, FieldType]) -> None:
    seen: dict[str, str] = {}
    reserved = {ident_key(r) for r in RESERVED_COLUMNS}
    for name in types:
        quote_ident(name)  # rejects NUL and empty names
        key = ident_key(name)
        if key in reserved:
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
        *,
        columns: Mapping[str, list[Any]] | None = None,
        view: bool = False,
        pending: bool = False,
    ) -> None:
        """Wrap an existing shredded table; prefer :func:`shred` or :meth:`from_table`.

        ``columns`` (optional) holds every column the table holds — ``__row``, ``__arm``, each
        field's stored value, ``__raw`` — as lists in ``__row`` order. ``pending`` says the table
        is not written yet: the first method that needs SQL writes it from ``columns`` (one
        statement); ``view`` says the name is a view (for :meth:`drop`).
        """
        if pending and columns is None:
            raise ValueError("a pending relation needs its columns")
        self.con = con
        self.table = table
        self.types: dict[str, FieldType] = dict(types)
        self.row_count = row_count
        self._columns = columns
        self._view = view
        self._pending = pending
        self._distinct: dict[str, list[Any]] = {}
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
        if self._pending:
            cols = self._columns
            assert cols is not None and isinstance(self.table, str)
            fields = _fields_only(self.types)
            if isinstance(cols, LazyColumns) and cols.ordinal and \
                    self.row_count * (len(fields) + 1) > PYTHON_SHRED_MAX_CELLS and \
                    not any(cols.made(f) for f in fields):
                # large and unread: the SQL path coerces faster than Python (identical table)
                arms = cols["__arm"]
                _shred_sql(self.con, cols["__raw"], cols.back(), fields,
                           None if arms.count(None) == len(arms) else arms, self.table, True)
            else:
                _write_columns(self.con, self.table, fields, cols, temp=True)
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
        stypes = [_stype(n, self.types) for n in names]
        for n, t in zip(names, stypes, strict=True):
            mode, param = bind_column(cols[n], t, row=n == "__row",
                                      ordinal=n == "__row" and self._is_ordinal())
            modes.append(mode)
            if mode != "null":
                params.append(param)
        key = (query.skeleton(), form, *modes, *stypes)
        got = _KEPT_TEXTS.get(key)
        if got is None:
            if len(_KEPT_TEXTS) >= STATEMENT_CACHE_SIZE:
                _KEPT_TEXTS.clear()
            parts = [column_sql(m, t, n) for n, m, t in zip(names, modes, stypes, strict=True)]
            got = _KEPT_TEXTS[key] = render_kept(query, form, f"SELECT {', '.join(parts)}")
        return got, params

    def _is_ordinal(self) -> bool:
        """True when the in-memory ``__row`` is ``0 … n-1`` (worked out once)."""
        if self._ordinal is None:
            cols = self._columns
            assert cols is not None
            self._ordinal = (isinstance(cols, LazyColumns) and cols.ordinal) or all(
                type(v) is int and v == i for i, v in enumerate(cols["__row"]))
        return self._ordinal

    def _select_kept(self, name: str, types: Mapping[str, FieldType], query: ReduceQuery,
                     form: Form, con: duckdb.DuckDBPyConnection | None
                     ) -> tuple[Relation, str, list[object]] | None:
        """See :func:`select_relation`: the kept rows of ``query`` (a reduction of this
        in-memory relation) as a pending relation built from this one's columns, with the text
        and parameters that ran; None when this relation's columns do not cover ``types``.

        The statement reads this relation inline, written or not: a subquery of the same name
        holds ``__row`` and the fields the query reads, each one list bound without a cast —
        DuckDB types it from the Python values, which are the stored type already; a column
        holding no value is a typed NULL. It fetches only the kept ``__row`` ids, unsorted, and
        runs on ``con`` (default: :func:`scratch_cursor`)."""
        cols = self._columns
        if cols is None or not isinstance(self.table, str) or any(
                f not in cols or (self.types.get(f) != t and f not in RESERVED_COLUMNS)
                for f, t in types.items()):  # ``__arm`` may be typed (see _fields_only)
            return None
        text, inline = self._kept_query(query, form)
        if con is None:  # the scratch connection plans without an optimizer: small sources only
            con = scratch_cursor() if scratch_fits(query.has_window(form), self.row_count) \
                else self.con
        params = [*inline, *query.params()]
        rows = execute_cached(con, text, params).fetchall()
        ids = sorted([r[0] for r in rows])
        if self._is_ordinal():
            idx = ids
        else:
            pos = {v: i for i, v in enumerate(cols["__row"])}
            idx = [pos[r] for r in ids]
        kept: Mapping[str, list[Any]]
        if isinstance(cols, LazyColumns):
            kept = cols.rows(idx, types)
        else:
            kept = {k: _take(cols[k], idx) for k in ("__row", "__arm", *types, "__raw")}
        return Relation(self.con, name, types, len(idx), columns=kept, pending=True), text, params

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
        _check_fields(types)
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
                  ) -> tuple[Relation, str, list[object]]:
    """:func:`select_relation`, with the exact SQL text DuckDB executed and its parameters.

    With ``source`` — the relation ``query`` reduces — holding its columns in memory, the
    statement (:func:`~edgedsl.reduce.render.render_kept`) fetches only the kept ``__row``
    values and the kept relation's columns are taken from the source's (no ``__raw`` or typed
    values cross from DuckDB to Python). The source is read inline, written or not: its rows
    enter the statement as a subquery of the same name (``__row`` and the fields the query
    reads, each bound as one column), so the statement reads no table and runs on
    ``inline_on`` (default: :func:`scratch_cursor` unless :func:`scratch_fits` says otherwise,
    else the source's connection). Otherwise the query runs rendered in ``form`` on ``con``.
    The reduction itself always runs in DuckDB.
    """
    if source is not None and source.in_memory:
        kept = source._select_kept(name, types, query, form, inline_on)
        if kept is not None:
            return kept
    if source is not None:
        source.ensure()
    sql, params = render(query, form), query.params()
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description or ()]
    rows = cur.fetchall()
    cols = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    return Relation(con, name, types, len(rows), columns=cols, pending=True), sql, params


#: Inline CTE texts by (relation, field types, columns, typed-NULL mask); cleared when full.
_INLINE_CTES: dict[tuple[str, tuple[tuple[str, str], ...], tuple[BindMode, ...]], str] = {}
#: SQL types that a list of Python values would not be typed as by itself (ints → INTEGER when
#: they fit 32 bits, where the written table holds BIGINT: arithmetic could overflow).
_CAST_LISTS = frozenset({"BIGINT"})


def inline_query(sql: str, relations: Sequence[tuple[Relation, Sequence[str]]]
                 ) -> tuple[str, list[object]] | None:
    """``sql`` reading each of ``relations`` — in-memory relations it reads, each with the
    fields it reads (the plan's ``reads``) — *inline*, and the parameters the inline copies
    bind (before ``sql``'s own); None when a relation does not hold its columns in memory.

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
        key = (rel.table, tuple(zip(names, stypes, strict=True)), tuple(modes))
        text = _INLINE_CTES.get(key)
        if text is None:
            parts = [column_sql(m, t, n) for n, t, m in zip(names, stypes, modes, strict=True)]
            text = f"{quote_ident(rel.table)} AS (SELECT {', '.join(parts)})"
            if len(_INLINE_CTES) >= STATEMENT_CACHE_SIZE:
                _INLINE_CTES.clear()
            _INLINE_CTES[key] = text
        pieces.append(text)
    return "WITH " + ",\n     ".join(pieces) + "\n" + sql, params


def create_table_as(con: duckdb.DuckDBPyConnection, name: str, sql: str,
                    params: Sequence[object] = (), *, temp: bool = True) -> int:
    """``CREATE [TEMP] TABLE name AS sql`` in one statement; returns the number of rows written."""
    row = con.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {quote_ident(name)} AS {sql}",
                      list(params)).fetchone()
    return int(row[0]) if row else 0


# ---------------------------------------------------------------------------------------------
# Shredding
# ---------------------------------------------------------------------------------------------


def _list_text(v: object) -> str | None:
    if not isinstance(v, list):
        return None
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()


_STORED: dict[str, Callable[[object], object]] = {
    "integer": coerce_int,
    "double": coerce_float,
    "date": coerce_date,
    "bool": coerce_bool,
    "text": coerce_text,
    "list": _list_text,
    "json": json_text,
}


def _stored_value(t: FieldType) -> Callable[[object], object]:
    """Raw value (as JSON reads back) → the value the shredded column stores."""
    return _STORED[storage_of(t)]


def _serialise(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[Any]]:
    """Each record's JSON text and the records as that JSON reads back."""
    try:
        raws = [orjson.dumps(r).decode() for r in records]
    except TypeError as exc:  # orjson.JSONEncodeError subclasses TypeError
        raise ValueError(f"records are not JSON-serialisable: {exc}") from exc
    back = orjson.loads("[" + ",".join(raws) + "]") if raws else []
    bad = next((i for i, r in enumerate(back) if not isinstance(r, dict)), None)
    if bad is not None:  # by index: the item may itself be None
        raise ValueError(f"a record must be a JSON object, not {excerpt(back[bad])}")
    return raws, back


def _arm_texts(arm: Sequence[object]) -> list[str | None]:
    return [a if a is None or isinstance(a, str) else orjson.dumps(a).decode() for a in arm]


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
    _check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    raws, back = _serialise(records)
    target = name or _fresh_name()
    is_temp = name is None if temp is None else temp
    names = list(types)
    cells = len(records) * (len(names) + 1)
    if method == "python" or (method == "auto" and cells <= PYTHON_SHRED_MAX_CELLS):
        return _shred_python(con, raws, back, types, arm, target, is_temp, lazy)
    return _shred_sql(con, raws, back, types, arm, target, is_temp)


def python_columns(records: Sequence[Mapping[str, Any]], types: Mapping[str, FieldType],
                   arm: Sequence[object] | None = None) -> dict[str, list[Any]]:
    """The columns :func:`shred` would write, computed in Python (``__row``, ``__arm``, fields,
    ``__raw``); see :class:`Relation` ``columns``."""
    _check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    raws, back = _serialise(records)
    return _columns_of(raws, back, types, arm)


def _columns_of(raws: list[str], back: list[Any], types: Mapping[str, FieldType],
                arm: Sequence[object] | None) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {
        "__row": list(range(len(raws))),
        "__arm": [None] * len(raws) if arm is None else _arm_texts(arm),
    }
    for f, t in types.items():
        conv = _stored_value(t)
        columns[f] = [conv(r.get(f)) for r in back]
    columns["__raw"] = raws
    return columns


class LazyColumns(Mapping[str, list[Any]]):
    """A relation's columns (see :class:`Relation` ``columns``) computed on first use.

    ``__row`` and ``__arm`` are held; each field's stored values are coerced from the records
    (as their JSON reads back) the first time that column is read, and ``__raw`` is each
    record's JSON text, made the first time it is read. A reduction, a junction or an answer
    reads a few columns of a relation, so the columns nothing reads — most of a wide response,
    all but one of a 20,000-record list searched by name — are never coerced. The values are
    those of :func:`python_columns`, computed by the same functions.

    The records may be held as columns instead (``source``, a
    :class:`~edgedsl.runtime.backends.ColumnSource` of JSON-native records): a field's column
    is then coerced from the source's column, and no record is built unless ``__raw`` or
    :meth:`back` asks for them all (:meth:`rows` builds only the kept ones).

    ``ordinal``: ``__row`` is ``0 … n-1`` (a fresh relation, not a reduction's kept rows).
    """

    __slots__ = ("_back", "_cols", "_names", "_source", "_types", "ordinal")

    def __init__(self, back: list[Any] | None, types: Mapping[str, FieldType], row: list[Any],
                 arm: list[Any], *, raws: list[str] | None = None,
                 known: Mapping[str, list[Any]] | None = None, ordinal: bool = False,
                 source: ColumnSource | None = None) -> None:
        """``back``: the records as their JSON reads back (or None with ``source``);
        ``known``: columns already made."""
        if back is None and source is None:
            raise ValueError("lazy columns need records or a column source")
        self._back = back
        self._source = source
        self._types = dict(types)
        self._cols: dict[str, list[Any]] = {"__row": row, "__arm": arm, **(known or {})}
        if raws is not None:
            self._cols["__raw"] = raws
        self._names = ("__row", "__arm", *self._types, "__raw")
        self.ordinal = ordinal

    def __getitem__(self, name: str) -> list[Any]:
        got = self._cols.get(name)
        if got is None:
            if name == "__raw":
                got = [orjson.dumps(r).decode() for r in self.back()]
            elif name in self._types:
                if self._source is not None and self._back is None:
                    raw = self._source.column(name)
                else:  # the records are dicts (JSON objects)
                    raw = list(map(dict.get, self._back or (), itertools.repeat(name)))
                got = _coerce_column(self._types[name], raw)
            else:
                raise KeyError(name)
            self._cols[name] = got
        return got

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def made(self, name: str) -> bool:
        """True when column ``name`` has been computed already."""
        return name in self._cols

    def rows(self, idx: Sequence[int], types: Mapping[str, FieldType]) -> LazyColumns:
        """The columns of the rows at positions ``idx`` (a reduction's kept rows), fields of
        ``types``: made columns are sliced, the others stay to be made from those rows."""
        known = {n: _take(c, idx) for n, c in self._cols.items() if n in types or n == "__raw"}
        cols = self._cols
        if self._back is None and self._source is not None:
            back = list(map(self._source.record, idx))
        else:
            back = _take(self.back(), idx)
        return LazyColumns(back, types, _take(cols["__row"], idx), _take(cols["__arm"], idx),
                           known=known)

    def back(self) -> list[Any]:
        """The records as their JSON reads back."""
        if self._back is None:
            assert self._source is not None
            self._back = self._source.records()
        return self._back


def _take(values: Sequence[Any], idx: Sequence[int]) -> list[Any]:
    """``[values[i] for i in idx]``, in C."""
    return list(map(values.__getitem__, idx))


#: Storage kinds whose coercion is worth doing once per distinct text (a date column of 4,000
#: rows holds a few dates; a number column repeats values).
_MEMO_KINDS = frozenset({"integer", "double", "date", "bool"})
_TEXT_ONLY = frozenset({str, type(None)})


def _coerce_column(t: FieldType, raw: list[Any]) -> list[Any]:
    """``[stored(v) for v in raw]`` for one field of type ``t`` (see :func:`_stored_value`):
    a column of texts (and nulls) is kept as is for a text field and coerced once per distinct
    text otherwise — the same values, computed by the same function."""
    kind = storage_of(t)
    conv = _STORED[kind]
    if (kind == "text" or kind in _MEMO_KINDS) and set(map(type, raw)) <= _TEXT_ONLY:
        if kind == "text":  # coerce_text keeps a str and a None as they are
            return list(raw)
        memo = {v: conv(v) for v in dict.fromkeys(raw)}
        return list(map(memo.__getitem__, raw))
    return [conv(v) for v in raw]


def lazy_columns(records: Sequence[Mapping[str, Any]], types: Mapping[str, FieldType],
                 arm: Sequence[object] | None = None, *, native: bool = False) -> LazyColumns:
    """:func:`python_columns`, each field's column (and ``__raw``) made on first use (see
    :class:`LazyColumns`). ``native``: the records are values a JSON decoder made (their JSON
    text reads back as themselves), so they are not serialised and read back first; otherwise
    they are, now (a record that is not JSON-serialisable fails here, as in :func:`shred`)."""
    _check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    n = len(records)
    arms: list[Any] = [None] * n if arm is None else _arm_texts(arm)
    if native and set(map(type, records)) <= {dict}:
        return LazyColumns(list(records), types, list(range(n)), arms, ordinal=True)
    raws, back = _serialise(records)
    return LazyColumns(back, types, list(range(n)), arms, raws=raws, ordinal=True)


def source_columns(source: ColumnSource, types: Mapping[str, FieldType],
                   arm: Sequence[object] | None = None) -> LazyColumns:
    """:func:`lazy_columns` of the JSON-native records ``source`` holds as columns, without
    building them (see :class:`LazyColumns`)."""
    _check_fields(types)
    n = len(source)
    if arm is not None and len(arm) != n:
        raise ValueError(f"{len(arm)} arm tags for {n} records")
    arms: list[Any] = [None] * n if arm is None else _arm_texts(arm)
    return LazyColumns(None, types, list(range(n)), arms, ordinal=True, source=source)


def _write_columns(con: duckdb.DuckDBPyConnection, target: str, types: Mapping[str, FieldType],
                   columns: Mapping[str, list[Any]], *, temp: bool) -> int:
    """One ``CREATE TABLE … AS SELECT unnest(?::T[]) …`` from whole typed columns."""
    typed = "".join(f", unnest(?::{sql_type(t)}[]) AS {quote_ident(f)}" for f, t in types.items())
    sql = (f'SELECT unnest(?::BIGINT[]) AS "__row", unnest(?::VARCHAR[]) AS "__arm"{typed}, '
           f'unnest(?::VARCHAR[]) AS "__raw"')
    params = [columns["__row"], columns["__arm"], *(columns[f] for f in types), columns["__raw"]]
    return create_table_as(con, target, sql, params, temp=temp)


def _shred_python(con: duckdb.DuckDBPyConnection, raws: list[str], back: list[Any],
                  types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
                  is_temp: bool, lazy: bool) -> Relation:
    columns = _columns_of(raws, back, types, arm)
    if lazy and is_temp:
        return Relation(con, target, types, len(raws), columns=columns, pending=True)
    _write_columns(con, target, types, columns, temp=is_temp)
    return Relation(con, target, types, len(raws), columns=columns)


def _shred_sql(con: duckdb.DuckDBPyConnection, raws: list[str], back: list[Any],
               types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
               is_temp: bool) -> Relation:
    names = list(types)
    params: list[object] = [raws]
    arm_sql = "CAST(NULL AS VARCHAR)"
    if arm is not None:
        arm_sql = "unnest(?::VARCHAR[])"
        params.append(_arm_texts(arm))
    opaque: list[str] = []  # list and json fields: canonical text made in Python
    for f, t in types.items():
        if storage_of(t) in ("list", "json"):
            conv = _stored_value(t)
            params.append([conv(r.get(f)) for r in back])
            opaque.append(f)
    extra = "".join(f", unnest(?::VARCHAR[]) AS {quote_ident(f'__o{i}')}"
                    for i in range(len(opaque)))
    scalar = [f for f in names if f not in opaque]
    params += [_json_pointer(f) for f in scalar]
    q = {f: (quote_ident(f"__v{i}"), quote_ident(f"__t{i}"), quote_ident(f"__s{i}"))
         for i, f in enumerate(scalar)}
    extract = "".join(f", json_extract(rec, ?) AS {v}" for v, _, _ in q.values())
    derived = "".join(f", json_type({v}) AS {jt}, {v} ->> '$' AS {tx}" for v, jt, tx in q.values())
    cols = []
    for f in names:
        if f in opaque:
            cols.append(f"{quote_ident(f'__o{opaque.index(f)}')} AS {quote_ident(f)}")
        else:
            v, jt, tx = q[f]
            cols.append(f"{coerce_sql(v, types[f], jtype=jt, text=tx)} AS {quote_ident(f)}")
    typed = "".join(", " + c for c in cols)
    sql = (
        f"WITH __src AS (SELECT unnest(?::VARCHAR[]) AS __text, {arm_sql} AS __arm{extra}, "
        f"unnest(range({len(raws)})) AS __row),\n"
        f"__rec AS (SELECT *, CAST(__text AS JSON) AS rec FROM __src),\n"
        f"__ext AS (SELECT *{extract} FROM __rec),\n"
        f"__der AS (SELECT *{derived} FROM __ext)\n"
        f'SELECT CAST(__row AS BIGINT) AS "__row", CAST(__arm AS VARCHAR) AS "__arm"{typed}, '
        f'__text AS "__raw"\nFROM __der ORDER BY __row'
    )
    create_table_as(con, target, sql, params, temp=is_temp)
    return Relation(con, target, types, len(raws))
