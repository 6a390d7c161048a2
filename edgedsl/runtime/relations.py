"""Where a relation lives and which form of a statement runs: the runtime's materialisation policy.

The mechanisms are :mod:`edgedsl.runtime.shred` (shredding), :mod:`edgedsl.runtime.duck` (the
:class:`~.duck.Relation` handle) and :mod:`edgedsl.runtime.selection` (reductions, inline
statements); this module is the one place that decides between them, from the named
settings of :class:`Settings` (:data:`SETTINGS`). The executor asks it, and nothing else decides.

**Where a relation lives** (:func:`placement`, :data:`Placement`):

* ``pending`` — fresh responses (any size): a *pending* relation whose typed columns are made
  when first read (:class:`~.columns.LazyColumns`); no table is written unless SQL needs one;
* ``in_memory`` — stored responses of at most :attr:`Settings.in_memory_max_cells` cells
  (records × (fields + 1)): a pending relation over the columns the store caches in memory;
* ``view`` — one larger stored response of a call without a fan: a view over the store's rows
  (no copy);
* ``table`` — anything else: one ``CREATE TEMP TABLE … AS`` (fresh parts shredded, stored parts
  read by key, in part order).

A pending relation's table is written (:meth:`~.duck.Relation.ensure`) only when a statement that
cannot read it inline needs it.

**The kept rows of a** ``drv`` **over a relation held in SQL** (a view or table: a large stored
response) that a junction reads (:func:`handoff_field`) are *deferred* (:func:`reduce_stored`):
one statement in the reduction's table form counts them and reads the distinct values of the
field handed off, and their table is written — the same ``CREATE TEMP TABLE … AS`` that ran
before — only when a statement needs it (an answer, an ``if``, another ``drv``, another field's
values). Kept rows no junction reads are written at once, as before (what reads them next is a
statement over their table). Measured on the 224,958-record relation of
``benchmarks/bench_drv.py`` (2026-12-02, the sides alternating run by run): the counting
statement 1.02–1.10× the hand-written query of the same predicates at load 7–12 (CPU time
1.12×), where writing the kept table and then reading the hand-off values took 1.57–1.70× (CPU
1.71×): the second statement, the table written and dropped. Deferred kept rows later needed as
a table cost one more reduction (their table is written from it then).

**Which form runs** (:func:`reduction_form`, :func:`inline_connection`): a statement over
in-memory relations reads them *inline* (their columns bound as lists in leading CTEs, see
:func:`~.selection.inline_query`) on the process's *scratch* connection (:func:`scratch_cursor`: one
thread, optimizer off — planning cost more than it saved on relations this small; results never
depend on it). Without an optimizer a whole-relation window grows faster than the rows, so a
reduction with ``max``/``min`` over more than :attr:`Settings.window_max_rows` rows runs in its
table form (scalar subqueries, no window); an inline statement with a window over more rows than
that (only a direct caller can ask for one) runs on the relation's own connection instead.

**A fast path that fails is never retried silently.** When the inline statement of an answer or
an ``if`` predicate raises, the relations are written and the statement runs on the tables (so a
user's error is the one the tables give), and the run's trace records a
:class:`~.trace.FallbackTrace`. One whose table run then succeeds means the inline path disagreed
with the tables — a bug: :func:`unexpected_fallbacks` counts them, and the test suite fails any
test that makes one without saying it expects it.

Settings, measured (2 noisy cores; ``benchmarks/bench_drv.py``, ``benchmarks/bench_inline.py``):

* ``in_memory_max_cells = 10_000`` — the value the executor has always used here, which is
  the crossover of Python and SQL shredding (:data:`~.columns.PYTHON_SHRED_MAX_CELLS`: 27
  records × 5 fields, Python 1.7 ms against SQL 7.1 ms; 1,000 records, 11 against 13 ms;
  20,000 records, 228 against 123 ms); a stored response below it is read into memory, one
  above it is read by SQL where it is stored. Not measured on its own for this decision
  (``benchmarks/bench_replay.py`` measures its effect at 5 calls).
* ``window_max_rows = 128`` — the whole-relation window of ``max``/``min`` without optimizer:
  11 ms against 1.4 ms planned at 1,000 rows, 3 s at 22,671; at 27 rows the window form costs
  0.70 ms against 1.05 ms for the table form, which runs on the scratch connection at any size
  (12–15 ms there against 26–99 ms planned at 22,671 rows).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import duckdb

from ..core.sqlquote import quote_ident as _quote_ident
from ..core.types import FieldType
from ..plan.model import CallStep, CompareStep, ParallelStep, TrajectoryPlan
from ..reduce.query import ReduceQuery
from ..reduce.render import Form, render, render_counts
from .columns import create_table_as, lazy_columns, python_columns, source_columns
from .duck import Relation
from .selection import execute_cached, inline_query
from .shred import shred
from .trace import FallbackTrace

if TYPE_CHECKING:
    from .backends import Response
    from .store import Store

__all__ = [
    "SETTINGS",
    "Placement",
    "Settings",
    "handoff_field",
    "inline_connection",
    "materialise",
    "placement",
    "query",
    "reduce_stored",
    "reduction_form",
    "scratch_cursor",
    "unexpected_fallbacks",
]

quote_ident = functools.lru_cache(maxsize=4096)(_quote_ident)
"""``sqlquote.quote_ident``, memoised (the names of a plan's relations recur in every run)."""

Placement = Literal["pending", "in_memory", "view", "table"]
"""Where a relation lives (see the module docstring)."""
Connection = Literal["scratch", "run"]
"""Which connection an inline statement runs on: the scratch one or the run's own."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The thresholds of the materialisation policy (measured: see the module docstring)."""

    #: a stored response of at most this many cells (records × (fields + 1)) is read into memory
    in_memory_max_cells: int = 10_000
    #: the largest relation a whole-relation window (``max``/``min`` inline) reads unoptimized
    window_max_rows: int = 128


SETTINGS = Settings()
"""The settings in force (tests replace them with :func:`dataclasses.replace`)."""


def placement(parts: Sequence[tuple[bool, int]], fields: int, *, tagged: bool) -> Placement:
    """Where a relation made of response ``parts`` lives — the policy function.

    ``parts``: for each response, whether it is stored (its rows are in the run's store) and its
    record count; ``fields``: the declared fields; ``tagged``: the rows carry an arm (a fan or a
    ``compare``). See the module docstring for the four answers."""
    if not any(stored for stored, _ in parts):
        return "pending"
    total = sum(n for _, n in parts)
    if total * (fields + 1) <= SETTINGS.in_memory_max_cells:
        return "in_memory"
    if len(parts) == 1 and not tagged:
        return "view"
    return "table"


def reduction_form(rows: int) -> Form:
    """The form to reduce an in-memory source of ``rows`` rows in: ``"window"`` (a window: one
    scan, the cheapest plan for a few dozen rows) up to :attr:`Settings.window_max_rows`,
    ``"table"`` (subqueries, no window) above; on the scratch connection either way."""
    return "window" if rows <= SETTINGS.window_max_rows else "table"


def inline_connection(rows: int, *, window: bool) -> Connection:
    """Where an inline statement reading at most ``rows`` rows per relation runs: the scratch
    connection, unless it has a whole-relation ``window`` (for a reduction,
    :meth:`~edgedsl.reduce.query.ReduceQuery.has_window` of its form) over more than
    :attr:`Settings.window_max_rows` rows (then the relation's own, which plans it)."""
    return "run" if window and rows > SETTINGS.window_max_rows else "scratch"


def handoff_field(tp: TrajectoryPlan, relation: str) -> str | None:
    """The field of ``relation`` whose distinct values the plan reads first as a hand-off (a
    junction of a call, a ``compare`` or a ``parallel``'s shared argument), in step order;
    None when no junction reads it. A ``drv`` over a relation held in SQL reads these values
    in its own statement (see the module docstring: "deferred")."""
    for step in tp.steps.values():
        if isinstance(step, CallStep | CompareStep):
            junctions = list(step.request.junctions.values())
        elif isinstance(step, ParallelStep):
            junctions = [sh.junction for sh in step.shared.values() if sh.junction is not None]
        else:
            continue
        for j in junctions:
            if j.source == relation:
                return j.field
    return None


# ------------------------------------------------------------------------- the scratch database

_SCRATCH: duckdb.DuckDBPyConnection | None = None
_SCRATCH_LOCK = threading.Lock()
_SCRATCH_LOCAL = threading.local()


def _forget_scratch() -> None:  # a forked child opens its own scratch database
    global _SCRATCH, _SCRATCH_LOCAL, _SCRATCH_LOCK
    _SCRATCH, _SCRATCH_LOCAL, _SCRATCH_LOCK = None, threading.local(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_scratch)


def scratch_cursor() -> duckdb.DuckDBPyConnection:
    """This thread's cursor on the scratch database: a process-wide in-memory DuckDB with
    ``threads=1`` (no hand-off to a worker thread); the cursor has the optimizer off. Holds no
    tables: only self-contained statements (an inline reduction, answer or predicate) run on it."""
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


def connection(choice: Connection, own: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The connection ``choice`` names: the scratch cursor, or ``own``."""
    return scratch_cursor() if choice == "scratch" else own


# ------------------------------------------------------------------------- placing responses


def materialise(con: duckdb.DuckDBPyConnection, owner: Store | None, relation: str,
                types: dict[str, FieldType], parts: list[tuple[str | None, Response]],
                tagged: bool) -> Relation:
    """The relation ``relation`` of response ``parts`` (each with its arm), placed by
    :func:`placement`. A stored part counts as stored only when it is in ``owner`` (the run's
    store); a part the store will not cache in memory moves the relation to SQL."""
    mine = [r.stored is not None and owner is not None and r.stored.owner is owner
            for _, r in parts]
    where = placement([(r.stored is not None, len(r)) for _, r in parts], len(types),
                      tagged=tagged)
    if where == "pending":
        return _lazy(con, relation, types, parts, tagged)
    if where == "in_memory":
        rel = _in_memory(con, owner, relation, types, parts, tagged, mine)
        if rel is not None:
            return rel
        where = "view" if len(parts) == 1 and not tagged else "table"
    if not any(mine):
        records: list[dict[str, Any]] = []
        arms: list[str | None] = []
        for arm, r in parts:
            records += r.records
            arms += [arm] * len(r.records)
        return shred(con, records, types, arm=arms if tagged else None, name=relation, temp=True)
    if where == "view":  # one stored response: a view, no copy
        stored = parts[0][1].stored
        assert stored is not None and owner is not None
        con.execute(f"CREATE TEMP VIEW {quote_ident(relation)} AS {owner.view_sql(stored, types)}")
        return Relation(con, relation, types, len(parts[0][1]), view=True)
    return _table(con, relation, types, parts, mine)


def _lazy(con: duckdb.DuckDBPyConnection, relation: str, types: dict[str, FieldType],
          parts: list[tuple[str | None, Response]], tagged: bool) -> Relation:
    """A pending relation over fresh responses whose columns are made when first read
    (:func:`~edgedsl.runtime.columns.lazy_columns`), whatever its size: a reduction, junction
    or answer coerces only the fields it reads; a table is written only if SQL needs one."""
    if len(parts) == 1 and parts[0][1].columns is not None and parts[0][1].native:
        # records held as columns (a fresh flat XML list): no record is built
        source = parts[0][1].columns
        col_arms = [parts[0][0]] * len(source) if tagged else None
        return Relation(con, relation, types, len(source),
                        columns=source_columns(source, types, col_arms), pending=True)
    if len(parts) == 1:
        records = parts[0][1].records
        arms: list[str | None] = [parts[0][0]] * len(records)
    else:
        records, arms = [], []
        for arm, r in parts:
            records += r.records
            arms += [arm] * len(r.records)
    cols = lazy_columns(records, types, arms if tagged else None,
                        native=all(r.native for _, r in parts))
    return Relation(con, relation, types, len(records), columns=cols, pending=True)


def _in_memory(con: duckdb.DuckDBPyConnection, owner: Store | None, relation: str,
               types: dict[str, FieldType], parts: list[tuple[str | None, Response]],
               tagged: bool, mine: list[bool]) -> Relation | None:
    """A pending relation from the parts' columns (shredded in Python or cached by the
    store); None when a stored part is too large for the store's cache."""
    cols: list[dict[str, list[Any]]] = []
    for (arm, r), is_mine in zip(parts, mine, strict=True):
        if is_mine:
            assert r.stored is not None and owner is not None
            c = owner.columns(r.stored, types)
            if c is None:
                return None
            if tagged:
                c = {**c, "__arm": [arm] * len(c["__row"])}
        else:
            c = python_columns(r.records, types, [arm] * len(r.records) if tagged else None)
        cols.append(c)
    if len(cols) == 1:
        merged = cols[0]
    else:
        merged = {k: [v for c in cols for v in c[k]] for k in ("__arm", *types, "__raw")}
        merged["__row"] = list(range(len(merged["__raw"])))
    return Relation(con, relation, types, len(merged["__row"]), columns=merged, pending=True)


def _table(con: duckdb.DuckDBPyConnection, relation: str, types: dict[str, FieldType],
           parts: list[tuple[str | None, Response]], mine: list[bool]) -> Relation:
    """One table of every part in part order: stored parts read by key, fresh ones shredded."""
    cols = ", ".join(quote_ident(f) for f in types)
    sel, params, tmp = [], [], []
    for i, ((arm, r), is_mine) in enumerate(zip(parts, mine, strict=True)):
        if is_mine:
            assert r.stored is not None
            src, where = quote_ident(r.stored.table), ' WHERE "__key" = ?'
            params += [arm, r.stored.key]
        else:
            t = shred(con, r.records, types, temp=True)
            tmp.append(t)
            src, where = t.sql_name, ""
            params.append(arm)
        sel.append(f'SELECT {i} AS __part, "__row" AS __r, CAST(? AS VARCHAR) AS "__arm", '
                   f'{cols}{", " if cols else ""}"__raw" FROM {src}{where}')
    n = create_table_as(
        con, relation, f'SELECT CAST(row_number() OVER '
        f'(ORDER BY __part, __r) - 1 AS BIGINT) AS "__row", "__arm", '
        f'{cols}{", " if cols else ""}"__raw" FROM ({" UNION ALL ".join(sel)}) '
        f"ORDER BY __part, __r", params)
    for t in tmp:
        t.drop()
    return Relation(con, relation, types, n)


def reduce_stored(con: duckdb.DuckDBPyConnection, name: str, types: Mapping[str, FieldType],
                  query: ReduceQuery, handoff: str | None
                  ) -> tuple[Relation, str, list[object]]:
    """A reduction of a relation held in SQL (a table or view on ``con``) as relation ``name``,
    with the text that ran and its parameters (see the module docstring).

    With ``handoff`` (:func:`handoff_field`: the field the plan hands off from it), the kept
    rows are *deferred*: one statement (:func:`~edgedsl.reduce.render.render_counts`) counts
    them and reads ``handoff``'s distinct values, and their table is written (one ``CREATE TEMP
    TABLE … AS`` of :func:`~edgedsl.reduce.render.render`'s statement) only when a statement
    needs it (:meth:`~.duck.Relation.ensure`). Without, what reads them next is a statement
    over their table, so that ``CREATE TEMP TABLE … AS`` runs at once (it reports the count)."""
    params = query.params()
    table_sql = render(query, "table")
    if handoff is None:
        return Relation(con, name, types, create_table_as(con, name, table_sql, params)), \
            table_sql, params
    sql = render_counts(query, handoff)
    rows = execute_cached(con, sql, params).fetchall()
    return Relation(con, name, types, sum(n for _, n in rows), defined=(table_sql, params),
                    distinct={handoff: [v for v, _ in rows if v is not None]}), sql, params


# ------------------------------------------------------------------------- running statements


_UNEXPECTED = [0]


def unexpected_fallbacks() -> int:
    """How many inline statements of this process failed where the tables then succeeded (each
    one a disagreement of the fast path with the tables; see the module docstring)."""
    return _UNEXPECTED[0]


def query(con: duckdb.DuckDBPyConnection, rels: Mapping[str, Relation], sql: str,
          params: list[Any], reads: Mapping[str, Sequence[str]], fallbacks: list[FallbackTrace],
          *, statement: Literal["answer", "predicate"], step: str | None = None
          ) -> duckdb.DuckDBPyConnection:
    """Run an answer's or a predicate's ``sql`` (its result ready to fetch); ``reads`` names
    the relations it reads, each with the fields it reads (derived from the typed query, never
    found in the text).

    The relations it reads that hold their columns in memory are read inline (no table is
    written for them); when all of them do, the statement runs on the scratch connection.
    Otherwise the pending relations are written and ``sql`` runs as it is. If the inline
    statement fails, the fallback is appended to ``fallbacks`` (the trace's) and ``sql`` runs
    on the tables, so an error is the one the tables give."""
    rels_read = [(name, rels[name]) for name in reads if name in rels]
    mem = [(rel, reads[name]) for name, rel in rels_read if rel.in_memory]
    fact: FallbackTrace | None = None
    if mem:
        got = inline_query(sql, mem)
        if got is not None:
            text, inline = got
            # answers and predicates have no window (the compiler writes none)
            on: Connection = "scratch" if len(mem) == len(rels_read) else "run"
            try:
                return execute_cached(connection(on, con), text, [*inline, *params])
            except duckdb.Error as exc:
                fact = FallbackTrace(statement=statement, step=step,
                                     error=f"{type(exc).__name__}: {_first_line(exc)}")
                fallbacks.append(fact)
    for _, rel in rels_read:
        if rel.pending:
            rel.ensure()
    cur = execute_cached(con, sql, params)
    if fact is not None:
        fact.recovered = True
        _UNEXPECTED[0] += 1
    return cur


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else ""
