"""Running a reduction and keeping its rows; reading in-memory relations inline.

:func:`run_selection` (and :func:`select_relation`) runs a rendered reduction and keeps its rows
as a *pending* relation (:class:`~edgedsl.runtime.duck.Relation`, its table written only if SQL
needs it); a reduction of a relation that keeps its columns in memory fetches only the kept
``__row`` ids and builds the kept relation from those columns.

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

:func:`inline_query` reads in-memory relations inline into any statement of the compiler's (an
answer, an ``if`` predicate) in the same way.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import duckdb

from edgedsl.core.sqlquote import quote_ident
from edgedsl.core.types import FieldType
from edgedsl.reduce.coerce import sql_type
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.render import Form, render, render_kept

from .bind import BindMode, bind_column, column_sql
from .columns import RESERVED_COLUMNS, LazyColumns, StoredColumns, take
from .duck import Relation, fields_only

__all__ = [
    "STATEMENT_CACHE_SIZE",
    "Selection",
    "execute_cached",
    "inline_query",
    "run_selection",
    "select_relation",
]

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
        kept = _select_kept(source, name, types, query, form, inline_on or con)
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


def _kept_query(rel: Relation, query: ReduceQuery, form: Form) -> tuple[str, list[object]]:
    """The statement (and the parameters it binds before the query's own) fetching the
    ``__row`` ids of the rows ``query`` — a reduction of in-memory relation ``rel`` — keeps,
    reading ``rel`` inline (see :func:`_select_kept`): ``__row`` and the fields the
    query reads, each one bound column. The texts are cached."""
    cols = rel._columns
    assert cols is not None and isinstance(rel.table, str)
    if query.source != rel.table:  # the inline copy is named like this relation
        query = ReduceQuery(rel.table, query.filters)
    names = ["__row", *query.fields()]
    params: list[object] = []
    modes: list[BindMode] = []
    stypes = tuple(_stype(n, rel.types) for n in names)
    for n, t in zip(names, stypes, strict=True):
        mode, param = bind_column(cols[n], t, row=n == "__row",
                                  ordinal=n == "__row" and rel.is_ordinal())
        modes.append(mode)
        if mode != "null":
            params.append(param)
    # keyed by the stored types too: the same query may read a field of another type elsewhere
    got = _kept_text(query.skeleton(), form, tuple(names), tuple(modes), stypes)
    return got, params


def _select_kept(rel: Relation, name: str, types: Mapping[str, FieldType], query: ReduceQuery,
                 form: Form, con: duckdb.DuckDBPyConnection) -> Selection | None:
    """See :func:`select_relation`: the kept rows of ``query`` (a reduction of
    in-memory relation ``rel``) as a pending relation built from its columns, with the text
    and parameters that ran; None when ``rel``'s columns do not cover ``types``.

    The statement reads ``rel`` inline, written or not: a subquery of the same name
    holds ``__row`` and the fields the query reads, each one list bound without a cast —
    DuckDB types it from the Python values, which are the stored type already; a column
    holding no value is a typed NULL. It fetches only the kept ``__row`` ids, unsorted, and
    runs on ``con``."""
    cols = rel._columns
    if cols is None or not isinstance(rel.table, str) or any(
            f not in cols or (rel.types.get(f) != t and f not in RESERVED_COLUMNS)
            for f, t in types.items()):  # ``__arm`` may be typed (see fields_only)
        return None
    text, inline = _kept_query(rel, query, form)
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
    if rel.is_ordinal():
        idx = ids
    else:
        pos = {v: i for i, v in enumerate(cols["__row"])}
        idx = [pos[r] for r in ids]
    kept: Mapping[str, list[Any]]
    if isinstance(cols, LazyColumns):
        kept = cols.rows(idx, types)
    else:
        kept = {k: take(cols[k], idx) for k in ("__row", "__arm", *types, "__raw")}
    return Selection(Relation(rel.con, name, types, len(idx), columns=kept, pending=True),
                     text, params, remembered)


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
        names = ["__row", *(n for n in ("__arm", *fields_only(rel.types), "__raw")
                            if n in read and n in cols)]
        stypes = [_stype(n, rel.types) for n in names]
        modes: list[BindMode] = []
        for n, t in zip(names, stypes, strict=True):
            mode, param = bind_column(cols[n], t, cast=n in rel.types and t in _CAST_LISTS,
                                      row=n == "__row",
                                      ordinal=n == "__row" and rel.is_ordinal())
            modes.append(mode)
            if mode != "null":
                params.append(param)
        pieces.append(_inline_cte(rel.table, tuple(names), tuple(stypes), tuple(modes)))
    return "WITH " + ",\n     ".join(pieces) + "\n" + sql, params
