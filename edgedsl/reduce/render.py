"""Renderers of a :class:`~edgedsl.reduce.query.ReduceQuery`: one SQL text per form the
runtime runs, each made directly from the query (nothing is parsed back out of SQL).

Forms (:data:`Form`):

``"window"``
    For a source read inline from memory (a few dozen rows): ``max``/``min`` are one window
    (``QUALIFY f = max(f) OVER ()``), reading the previous relation once.
``"table"``
    For a source stored as a table: ``max``/``min`` are a scalar subquery (``WHERE f = (SELECT
    max(f) FROM prev)``) that reads one column, where a window would carry every column of every
    row (up to 7× slower on 224,958 stored records; ``benchmarks/bench_drv.py``). A step holding
    only ``WHERE`` filters that the next step reads twice is ``NOT MATERIALIZED``.

Filters reading only the current row (:class:`~edgedsl.reduce.query.Compare`,
:class:`~edgedsl.reduce.query.KeepNone`, and a window) are folded into one ``SELECT`` — ANDed
to its ``WHERE``, or as its ``QUALIFY`` when it has none (``WHERE`` filters before windows are
computed, so the rows are the same) — since DuckDB spends more time planning each nested
``SELECT`` than running a small one. A filter reading the previous relation as a whole (a
subquery over it) or following a ``QUALIFY`` starts a new block.

:func:`render` writes the blocks as chained CTEs selecting all columns ordered by ``__row`` (the
statement a stored table is reduced by, and a relation's whole result); :func:`render_counts`
the same CTEs in the table form ending in the kept rows' count per value of one field (the
statement a ``drv`` over a stored table runs: its row count and hand-off values at once);
:func:`render_kept`
writes the statement that fetches only the kept ``__row`` ids of a source bound inline (its
columns as a ``SELECT`` of bound lists), for the scratch connection whose optimizer is off: a
block read once is a subquery in place of its reader's ``FROM``, only a block read twice is a
CTE, and the last block selects ``"__row"`` itself (measured on the 27-record ``eq | ge | max``
step: ~0.85 ms as chained CTEs, ~0.68 ms so). Parameters bind in filter order in every form
(:meth:`~edgedsl.reduce.query.ReduceQuery.params`, after the inline source's own).

Answers and ``if`` predicates (:mod:`edgedsl.reduce.answer`) render to one ``SELECT`` each over
the run's relation tables: :func:`render_answer` (a field reference: the distinct non-null values
in first-occurrence order; anything else: ``SELECT <scalar> AS value``) and
:func:`render_predicate` (``SELECT <boolean> AS value``), each with its parameters (the literals,
in text order). The runtime reads in-memory relations inline by prefixing CTEs of their names
(:func:`edgedsl.runtime.selection.inline_query`), so the text never changes with where they live.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from edgedsl.core.sqlquote import qualified, quote_ident
from edgedsl.core.types import FieldType

from .answer import (
    Agg,
    And,
    Arith,
    Cmp,
    Count,
    Distinct,
    Exists,
    Lit,
    Neg,
    Not,
    Or,
    Predicate,
    Round,
    Value,
)
from .query import (
    TEXT_OPS,
    Compare,
    Extreme,
    Filter,
    KeepNone,
    Member,
    Mode,
    Present,
    Rank,
    ReduceQuery,
)
from .registry import ReduceStep, build_query

__all__ = ["Form", "reduce_sql", "render", "render_answer", "render_counts", "render_kept",
           "render_predicate", "render_ties", "tie_filters"]

#: Where a reduction runs: ``"window"`` over a source read inline, ``"table"`` over a stored one.
Form = Literal["window", "table"]
_ROW = quote_ident("__row")


@dataclass(frozen=True, slots=True)
class _Block:
    """One ``SELECT`` of the rendering: row conditions and at most one window condition over the
    previous block, or one filter reading the previous block whole (``whole``)."""

    wheres: tuple[str, ...] = ()
    qualify: str | None = None
    whole: Filter | None = None


def _condition(f: Filter, form: Form) -> tuple[Literal["where", "qualify", "whole"], str]:
    if isinstance(f, Compare):
        col = quote_ident(f.field)
        if f.op in TEXT_OPS:
            return "where", f"{f.op}({col}, CAST(? AS {f.cast}))"
        return "where", f"{col} {f.op} CAST(? AS {f.cast})"
    if isinstance(f, Member):
        each = ", ".join([f"CAST(? AS {f.cast})"] * len(f.values))
        return "where", f"{quote_ident(f.field)} IN ({each})"
    if isinstance(f, KeepNone):
        return "where", "false"
    if isinstance(f, Present):
        return "where", f"{quote_ident(f.field)} IS NOT NULL"
    if isinstance(f, Extreme) and form == "window":
        col = quote_ident(f.field)
        return "qualify", f"{col} = {f.fn}({col}) OVER ()"
    if isinstance(f, Rank) and form == "window":
        col = quote_ident(f.field)
        order = "DESC" if f.fn == "max" else "ASC"
        return "qualify", (f"{col} IS NOT NULL AND rank() OVER (ORDER BY {col} {order} "
                           f"NULLS LAST) <= {int(f.k)}")
    return "whole", ""


def _boundary(f: Rank, prev: str) -> str:
    """The scalar subquery of the boundary value of ``f`` over ``prev``: the ``k``-th best
    non-null value counted with repetition (the worst of them when there are fewer)."""
    col = quote_ident(f.field)
    order, worst = ("DESC", "min") if f.fn == "max" else ("ASC", "max")
    return (f"(SELECT {worst}({col}) FROM (SELECT {col} FROM {prev} WHERE {col} IS NOT NULL "
            f"ORDER BY {col} {order} LIMIT {int(f.k)}) AS {quote_ident('__best')})")


def _blocks(q: ReduceQuery, form: Form) -> list[_Block]:
    blocks = [_Block()]
    for f in q.filters:
        kind, cond = _condition(f, form)
        last = blocks[-1]
        if kind == "whole":
            blocks.append(_Block(whole=f))
        elif last.whole is not None or last.qualify is not None:
            blocks.append(_Block((cond,)) if kind == "where" else _Block(qualify=cond))
        elif kind == "where":
            blocks[-1] = _Block((*last.wheres, cond))
        else:
            blocks[-1] = _Block(last.wheres, cond)
    return blocks


def _whole_sql(f: Filter, prev: str, select: str) -> str:
    col = quote_ident(f.field)  # type: ignore[union-attr]
    if isinstance(f, Rank):
        cmp = ">=" if f.fn == "max" else "<="
        return f"SELECT {select} FROM {prev} WHERE {col} {cmp} {_boundary(f, prev)}"
    if isinstance(f, Extreme):
        return f"SELECT {select} FROM {prev} WHERE {col} = (SELECT {f.fn}({col}) FROM {prev})"
    assert isinstance(f, Mode)
    order = "DESC" if f.ties == "largest" else "ASC"
    winner = (f"SELECT {col} FROM {prev} WHERE {col} IS NOT NULL GROUP BY {col} "
              f"ORDER BY count(*) DESC, {col} {order} LIMIT 1")
    return f"SELECT {select} FROM {prev} WHERE {col} = ({winner})"


def _block_sql(b: _Block, prev: str, select: str) -> str:
    if b.whole is not None:
        return _whole_sql(b.whole, prev, select)
    text = f"SELECT {select} FROM {prev}"
    if b.wheres:
        text += " WHERE " + (b.wheres[0] if len(b.wheres) == 1
                             else " AND ".join(f"({w})" for w in b.wheres))
    if b.qualify is not None:
        text += f" QUALIFY {b.qualify}"
    return text


def _name(i: int) -> str:
    return quote_ident(f"__reduce_{i}")


def _as_cte(blocks: list[_Block], i: int, form: Form, body: str) -> str:
    read_twice = i + 1 < len(blocks) and blocks[i + 1].whole is not None
    lazy = form == "table" and read_twice and blocks[i].qualify is None \
        and blocks[i].whole is None
    return f"{_name(i)} AS {'NOT MATERIALIZED ' if lazy else ''}({body})"


def _chained(q: ReduceQuery, form: Form) -> tuple[str, str]:
    """The blocks of ``q`` as chained CTEs selecting every column (the ``WITH`` clause), and
    the name of the last one."""
    blocks = _blocks(q, form)
    ctes = [_as_cte(blocks, i, form, _block_sql(b, qualified(q.source) if i == 0 else _name(i - 1),
                                                 "*"))
            for i, b in enumerate(blocks)]
    return "WITH " + ",\n     ".join(ctes), _name(len(blocks) - 1)


@functools.lru_cache(maxsize=4096)
def _render(q: ReduceQuery, form: Form) -> str:
    ctes, last = _chained(q, form)
    return f"{ctes}\nSELECT * FROM {last} ORDER BY {_ROW}"


def render(q: ReduceQuery, form: Form) -> str:
    """The reduction as one statement in ``form``: chained CTEs ``"__reduce_0"`` … selecting
    every column of the kept rows, ordered by ``__row``; it binds :meth:`ReduceQuery.params`."""
    return _render(q.skeleton(), form)


@functools.lru_cache(maxsize=4096)
def _render_counts(q: ReduceQuery, field: str) -> str:
    ctes, last = _chained(q, "table")
    col = quote_ident(field)
    return f"{ctes}\nSELECT {col}, count(*) FROM {last} GROUP BY {col} ORDER BY min({_ROW})"


def render_counts(q: ReduceQuery, field: str) -> str:
    """The reduction of a stored source in the table form, returning rows ``(value, count)``:
    for each distinct value of ``field`` among the kept rows (``NULL`` included), how many kept
    rows hold it, in first-occurrence order — so the counts add up to the kept rows and the
    non-null values are ``field``'s distinct values. Same rows as :func:`render` in the table
    form; binds :meth:`ReduceQuery.params`."""
    return _render_counts(q.skeleton(), field)


@functools.lru_cache(maxsize=4096)
def _render_kept(q: ReduceQuery, form: Form, inline: str) -> str:
    blocks = _blocks(q, form)
    source = f"({inline}) AS {quote_ident(q.source)}" if isinstance(q.source, str) \
        else qualified(q.source)
    ctes: list[str] = []
    ref = source
    last = len(blocks) - 1
    for i, b in enumerate(blocks):
        body = _block_sql(b, ref, _ROW if i == last else "*")
        if i == last:
            return ("WITH " + ",\n     ".join(ctes) + "\n" if ctes else "") + body
        if blocks[i + 1].whole is not None:  # read twice by the next block: a CTE
            ctes.append(_as_cte(blocks, i, form, body))
            ref = _name(i)
        else:
            ref = f"({body}) AS {_name(i)}"
    raise AssertionError("unreachable: a query has at least one block")


def render_kept(q: ReduceQuery, form: Form, inline: str) -> str:
    """The statement fetching the ``__row`` ids of the rows ``q`` keeps (unsorted), its source
    read inline as the ``SELECT`` text ``inline`` (bound columns; its parameters come first).
    Same rows as :func:`render` in the same form."""
    return _render_kept(q.skeleton(), form, inline)


def tie_filters(q: ReduceQuery) -> tuple[int, ...]:
    """The positions of the filters of ``q`` that can meet a tie: ``most_frequent``
    (:class:`~edgedsl.reduce.query.Mode`), ``max`` / ``min``
    (:class:`~edgedsl.reduce.query.Extreme`) and ``top`` / ``bottom``
    (:class:`~edgedsl.reduce.query.Rank`)."""
    return tuple(i for i, f in enumerate(q.filters) if isinstance(f, Mode | Extreme | Rank))


@functools.lru_cache(maxsize=1024)
def _render_ties(q: ReduceQuery) -> str:
    facts = []
    for i in tie_filters(q):
        f = q.filters[i]
        assert isinstance(f, Mode | Extreme | Rank)
        col, into = quote_ident(f.field), quote_ident("__in")
        # the relation entering filter i: the query's prefix, in the table form (no window)
        entering = _render(ReduceQuery(q.source, q.filters[:i]), "table")
        if isinstance(f, Mode):  # values sharing the top count
            n, grouped = quote_ident("__n"), quote_ident("__g")
            fact = (f"WITH {into} AS ({entering}), {grouped} AS (SELECT count(*) AS {n} "
                    f"FROM {into} WHERE {col} IS NOT NULL GROUP BY {col}) "
                    f"SELECT count(*) FROM {grouped} WHERE {n} = (SELECT max({n}) "
                    f"FROM {grouped})")
        elif isinstance(f, Rank):  # rows holding the boundary value
            fact = (f"WITH {into} AS ({entering}) SELECT count(*) FROM {into} "
                    f"WHERE {col} = {_boundary(f, into)}")
        else:  # rows at the extreme
            fact = (f"WITH {into} AS ({entering}) SELECT count(*) FROM {into} "
                    f"WHERE {col} = (SELECT {f.fn}({col}) FROM {into})")
        facts.append(f"({fact}) AS {quote_ident(f'__tie_{i}')}")
    return "SELECT " + ",\n       ".join(facts)


def render_ties(q: ReduceQuery) -> tuple[str, list[object]] | None:
    """One statement holding the tie facts of ``q`` (None when it has no ``most_frequent``,
    ``max`` or ``min``), and its parameters: one row, one column per filter of
    :func:`tie_filters` in order — for ``most_frequent``, how many distinct values share the
    top count among the rows entering it; for ``max`` / ``min``, how many rows hold the
    extreme; for ``top k`` / ``bottom k``, how many rows hold the boundary value (the worst
    value kept: when more than ``k`` rows are kept, the tie at the boundary is why). Each fact
    reads the relation entering its filter (the query's prefix, rendered in the table form over
    ``q.source``), so every one is a count DuckDB makes, not Python."""
    at = tie_filters(q)
    if not at:
        return None
    params: list[object] = []
    for i in at:
        params += ReduceQuery(q.source, q.filters[:i]).params()
    return _render_ties(q.skeleton()), params


def reduce_sql(source: str | tuple[str, ...], steps: Sequence[ReduceStep],
               types: Mapping[str, FieldType], *, form: Form = "window"
               ) -> tuple[str, list[object]]:
    """The query of ``steps`` over ``source`` (:func:`~edgedsl.reduce.registry.build_query`)
    rendered in ``form``, and its parameters: the statement the runtime runs over a source
    stored as ``source``."""
    query = build_query(source, steps, types)
    return render(query, form), query.params()


# ---------------------------------------------------------------- answers and predicates

_CMP_SQL = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _distinct_sql(q: Distinct) -> str:
    c = quote_ident(q.field)
    return (f"SELECT {c} AS value FROM {quote_ident(q.source)} WHERE {c} IS NOT NULL "
            f"GROUP BY {c} ORDER BY min({_ROW})")


def _value_sql(q: Value, params: list[object]) -> str:
    if isinstance(q, Lit):
        params.append(q.value)
        return "CAST(? AS DATE)" if isinstance(q.value, _dt.date) else "?"
    if isinstance(q, Distinct):
        return f"({_distinct_sql(q)})"
    if isinstance(q, Count):
        return f"(SELECT count(*) FROM {quote_ident(q.source)})"
    if isinstance(q, Agg):
        call = f"count(DISTINCT {quote_ident(q.field)})" if q.fn == "count_distinct" \
            else f"{q.fn}({quote_ident(q.field)})"
        return f"(SELECT {call} FROM {quote_ident(q.source)})"
    if isinstance(q, Arith):
        return f"({_value_sql(q.left, params)} {q.op} {_value_sql(q.right, params)})"
    if isinstance(q, Neg):
        return f"(-{_value_sql(q.operand, params)})"
    assert isinstance(q, Round)
    rounded = f"round({_value_sql(q.operand, params)}, {int(q.digits)})"
    return f"TRY_CAST({rounded} AS HUGEINT)" if q.digits == 0 else rounded


def _predicate_sql(p: Predicate, params: list[object]) -> str:
    if isinstance(p, Cmp):
        return (f"({_value_sql(p.left, params)} {_CMP_SQL[p.op]} "
                f"{_value_sql(p.right, params)})")
    if isinstance(p, Exists):
        return f"(EXISTS (SELECT 1 FROM {quote_ident(p.source)}))"
    if isinstance(p, Not):
        return f"(NOT {_predicate_sql(p.operand, params)})"
    joiner = " AND " if isinstance(p, And) else " OR "
    assert isinstance(p, And | Or)
    return "(" + joiner.join(_predicate_sql(o, params) for o in p.operands) + ")"


def render_answer(q: Value) -> tuple[str, list[object]]:
    """An answer field's statement and its parameters: for a field reference (a
    :class:`~edgedsl.reduce.answer.Distinct`), its distinct non-null values as rows ``value`` in
    first-occurrence order; otherwise one row holding the scalar ``value``."""
    if isinstance(q, Distinct):
        return _distinct_sql(q), []
    params: list[object] = []
    return f"SELECT {_value_sql(q, params)} AS value", params


def render_predicate(p: Predicate) -> tuple[str, list[object]]:
    """An ``if`` predicate's statement (one row, one boolean ``value``; NULL reads as false)
    and its parameters."""
    params: list[object] = []
    return f"SELECT {_predicate_sql(p, params)} AS value", params
