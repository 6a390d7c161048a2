"""``reduce.render``: the texts of a reduction query in each form — by example, and
differentially in DuckDB over random reductions with hostile field names (the kept-row statement
over bound columns keeps the rows the stored-table statement keeps, with and without the
optimizer)."""

from __future__ import annotations

from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.core.sqlquote import quote_ident
from edgedsl.core.types import DATE, INT, STR
from edgedsl.reduce.query import Compare, Extreme, KeepNone, Mode, ReduceQuery
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form, render, render_counts, render_kept
from edgedsl.runtime.columns import python_columns
from edgedsl.runtime.relations import scratch_cursor
from edgedsl.runtime.selection import _stype
from edgedsl.runtime.shred import shred
from edgedsl.testing import reducer_cases
from tests.profiles import examples

HEAD = 'SELECT unnest(?) AS "__row", unnest(?) AS "k"'


def test_row_filters_and_a_window_are_one_select() -> None:
    q = ReduceQuery("h", (Compare("k", "=", "VARCHAR", "a"), Extreme("k", "max")))
    assert render(q, "window") == (
        'WITH "__reduce_0" AS (SELECT * FROM "h" WHERE "k" = CAST(? AS VARCHAR) '
        'QUALIFY "k" = max("k") OVER ())\nSELECT * FROM "__reduce_0" ORDER BY "__row"')
    assert render_kept(q, "window", HEAD) == (
        f'SELECT "__row" FROM ({HEAD}) AS "h" '
        'WHERE "k" = CAST(? AS VARCHAR) QUALIFY "k" = max("k") OVER ()')
    assert q.params() == ["a"] and q.fields() == ("k",) and q.has_window("window")
    assert not q.has_window("table")


def test_a_block_read_twice_is_a_cte() -> None:
    q = ReduceQuery("h", (Compare("k", ">=", "HUGEINT", 3), Mode("k")))
    assert render_kept(q, "table", HEAD) == (
        f'WITH "__reduce_0" AS NOT MATERIALIZED (SELECT * FROM ({HEAD}) AS "h" '
        'WHERE "k" >= CAST(? AS HUGEINT))\n'
        'SELECT "__row" FROM "__reduce_0" WHERE "k" = (SELECT "k" FROM "__reduce_0" '
        'WHERE "k" IS NOT NULL GROUP BY "k" ORDER BY count(*) DESC, "k" ASC LIMIT 1)')
    # the window form materialises nothing by hand; a window after a whole step is its own block
    q2 = ReduceQuery("h", (Mode("k"), Extreme("k", "min"), KeepNone()))
    assert render(q2, "window") == (
        'WITH "__reduce_0" AS (SELECT * FROM "h"),\n'
        '     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "k" = (SELECT "k" FROM '
        '"__reduce_0" WHERE "k" IS NOT NULL GROUP BY "k" ORDER BY count(*) DESC, "k" ASC '
        'LIMIT 1)),\n'
        '     "__reduce_2" AS (SELECT * FROM "__reduce_1" QUALIFY "k" = min("k") OVER ()),\n'
        '     "__reduce_3" AS (SELECT * FROM "__reduce_2" WHERE false)\n'
        'SELECT * FROM "__reduce_3" ORDER BY "__row"')


def test_a_pivot_that_does_not_coerce_keeps_nothing_and_binds_nothing() -> None:
    q = build_query("h", [ReduceStep("after", "d", "not a date")], {"d": DATE})
    assert q.filters == (KeepNone(),) and q.params() == []
    assert render_kept(q, "window", HEAD) == f'SELECT "__row" FROM ({HEAD}) AS "h" WHERE false'


def test_hostile_names_are_quoted_never_structure() -> None:
    name = 'x") AS "h" FROM "h" WHERE (1'
    q = build_query("h", [ReduceStep("eq", name, "a")], {name: STR})
    head = f'SELECT unnest(?) AS "__row", unnest(?) AS {quote_ident(name)}'
    text = render_kept(q, "window", head)
    assert text == (f'SELECT "__row" FROM ({head}) AS "h" '
                    f'WHERE {quote_ident(name)} = CAST(? AS VARCHAR)')
    con = duckdb.connect()
    args = [[0, 1, 2], ["a", "b", "a"], *q.params()]
    assert sorted(con.execute(text, args).fetchall()) == [(0,), (2,)]


def test_values_never_reach_the_text() -> None:
    q = build_query("h", [ReduceStep("ge", "n", 10**30), ReduceStep("eq", "s", "'; --")],
                    {"n": INT, "s": STR})
    assert q.params() == [2**64, "'; --"]
    assert "'; --" not in render(q, "table") and str(2**64) not in render(q, "table")


_CON = duckdb.connect()


@settings(max_examples=examples(60), deadline=None)
@given(case=reducer_cases(), form=st.sampled_from(["window", "table"]))
def test_the_kept_statement_keeps_the_rows_of_the_table_statement(case: Any, form: Form) -> None:
    """Any reduction chain's kept-row statement over bound columns keeps the rows its
    stored-table statement keeps — with and without the optimizer."""
    types, rows, steps = case
    rel = shred(_CON, rows, types, method="python")
    try:
        q = build_query(rel.table, steps, types)
        cur = _CON.execute(render(q, form), q.params())
        at = [d[0] for d in cur.description or ()].index("__row")
        want = [r[at] for r in cur.fetchall()]  # ordered by __row
        cols = python_columns(rows, types)
        names = ["__row", *q.fields()]
        head = "SELECT " + ", ".join(
            f"unnest(?::{_stype(n, types)}[]) AS {quote_ident(n)}" for n in names)
        args = [cols[n] for n in names] + q.params()
        for con in (_CON, scratch_cursor()):
            got = sorted(r[0] for r in con.execute(render_kept(q, form, head), args).fetchall())
            assert got == want
    finally:
        rel.drop()


def test_the_counting_statement_reads_the_table_form_once() -> None:
    """``render_counts`` is the table form's blocks with a grouped last select."""
    q = ReduceQuery("h", (Compare("k", "=", "VARCHAR", "a"), Extreme("d", "max")))
    ctes = ('WITH "__reduce_0" AS NOT MATERIALIZED (SELECT * FROM "h" WHERE "k" = CAST(? AS '
            'VARCHAR)),\n     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "d" = '
            '(SELECT max("d") FROM "__reduce_0"))\n')
    assert render(q, "table") == ctes + 'SELECT * FROM "__reduce_1" ORDER BY "__row"'
    assert render_counts(q, "k") == ctes + (
        'SELECT "k", count(*) FROM "__reduce_1" GROUP BY "k" ORDER BY min("__row")')


@settings(max_examples=examples(60), deadline=None)
@given(case=reducer_cases(), pick=st.integers(min_value=0, max_value=8))
def test_the_counting_statement_counts_the_kept_rows_and_their_distinct_values(
        case: Any, pick: int) -> None:
    """Any reduction chain's counting statement adds up to the rows its table statement keeps,
    and its non-null values are the kept rows' distinct values of the field, in
    first-occurrence order (a hostile field name included)."""
    types, rows, steps = case
    field = list(types)[pick % len(types)]
    rel = shred(_CON, rows, types, method="python")
    try:
        q = build_query(rel.table, steps, types)
        kept = _CON.execute(render(q, "table"), q.params()).fetchall()
        got = _CON.execute(render_counts(q, field), q.params()).fetchall()
        assert sum(n for _, n in got) == len(kept)
        at = [*types].index(field) + 2  # after __row and __arm, as shredded
        want = list(dict.fromkeys(r[at] for r in kept if r[at] is not None))
        assert [v for v, _ in got if v is not None] == want
    finally:
        rel.drop()
