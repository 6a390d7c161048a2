"""``runtime.sqlshape.flatten``: single-use CTEs inlined and bare projections merged, only where
the result cannot change — by example, and differentially in DuckDB over random reductions with
hostile field names."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.reduce.registry import ReduceForm, reduce_sql
from edgedsl.runtime.duck import _kept_tail, _stype, python_columns, scratch_cursor, shred
from edgedsl.runtime.sqlshape import flatten
from edgedsl.sqlquote import quote_ident
from edgedsl.testing import reducer_cases

REDUCTION = (
    'WITH "h" AS (SELECT unnest(?) AS "__row", unnest(?) AS "k"),\n'
    '     "__reduce_0" AS (SELECT * FROM "h" WHERE "k" = CAST(? AS VARCHAR) '
    'QUALIFY "k" = max("k") OVER ())\n'
    'SELECT "__row" FROM "__reduce_0"')


def test_a_reduction_becomes_one_select() -> None:
    assert flatten(REDUCTION) == (
        'SELECT "__row" FROM (SELECT unnest(?) AS "__row", unnest(?) AS "k") AS "h" '
        'WHERE "k" = CAST(? AS VARCHAR) QUALIFY "k" = max("k") OVER ()')


def test_a_cte_read_twice_stays() -> None:
    sql = ('WITH "h" AS (SELECT unnest(?) AS "__row", unnest(?) AS "k"),\n'
           '     "__reduce_0" AS (SELECT * FROM "h" WHERE "k" = (SELECT "k" FROM "h" LIMIT 1))\n'
           'SELECT "__row" FROM "__reduce_0"')
    assert flatten(sql) == (
        'WITH "h" AS (SELECT unnest(?) AS "__row", unnest(?) AS "k")\n'
        'SELECT "__row" FROM "h" WHERE "k" = (SELECT "k" FROM "h" LIMIT 1)')


@pytest.mark.parametrize("sql", [
    # read with an alias, through a qualifier, or by a function of the same name
    'WITH a AS (SELECT 1 AS x)\nSELECT * FROM a AS z',
    'WITH a AS (SELECT 1 AS x)\nSELECT * FROM a z',
    'WITH a AS (SELECT 1 AS x)\nSELECT a.x FROM range(3)',
    'WITH a AS MATERIALIZED (SELECT 1 AS x)\nSELECT * FROM a',
    'WITH RECURSIVE a AS (SELECT 1 AS x)\nSELECT * FROM a',
    'WITH a(x) AS (SELECT 1)\nSELECT * FROM a',
    'WITH a AS (SELECT 1 AS x) -- a comment\nSELECT * FROM a',
    'WITH a AS (SELECT $1 AS x)\nSELECT * FROM a',
    'WITH a AS (SELECT 1 AS x)\nSELECT * FROM (WITH a AS (SELECT 2 AS x) SELECT * FROM a)',
    'WITH a AS (SELECT 1 AS "x\nFROM a"',
    # projections that do not commute with the inner query
    'SELECT "x" FROM (SELECT * FROM t GROUP BY ALL) AS q',
    'SELECT "x" FROM (SELECT DISTINCT * FROM t) AS q',
    'SELECT "x" FROM (SELECT * EXCLUDE (y) FROM t) AS q',
    'SELECT count(*) FROM (SELECT * FROM t QUALIFY x = max(x) OVER ()) AS q',
    'SELECT "x" FROM (SELECT * FROM t) AS q ORDER BY "x"',
])
def test_what_is_left_alone(sql: str) -> None:
    assert flatten(sql) == sql


def test_parameters_keep_their_order() -> None:
    """A CTE is not moved past a ``?``: ``a`` would bind the second parameter after ``b``'s."""
    sql = "WITH a AS (SELECT ? AS x), b AS (SELECT ? AS y)\nSELECT * FROM b, a"
    assert flatten(sql) == "WITH a AS (SELECT ? AS x)\nSELECT * FROM (SELECT ? AS y) AS b, a"
    con = duckdb.connect()
    assert con.execute(flatten(sql), [1, 2]).fetchall() == \
        con.execute(sql, [1, 2]).fetchall() == [(2, 1)]


def test_hostile_names_are_tokens_not_structure() -> None:
    name = quote_ident('x") AS "h" FROM "h" WHERE (1')
    sql = (f'WITH "h" AS (SELECT unnest(?) AS "__row", unnest(?) AS {name}),\n'
           f'     "__reduce_0" AS (SELECT * FROM "h" WHERE {name} = ?)\n'
           'SELECT "__row" FROM "__reduce_0"')
    assert flatten(sql) == (
        f'SELECT "__row" FROM (SELECT unnest(?) AS "__row", unnest(?) AS {name}) AS "h" '
        f'WHERE {name} = ?')
    con = duckdb.connect()
    args = [[0, 1, 2], ["a", "b", "a"], "a"]
    assert sorted(con.execute(flatten(sql), args).fetchall()) == \
        sorted(con.execute(sql, args).fetchall()) == [(0,), (2,)]


_CON = duckdb.connect()


@settings(max_examples=60, deadline=None)
@given(case=reducer_cases(), form=st.sampled_from(["inline", "table"]))
def test_flattened_reductions_keep_the_same_rows(case: Any, form: ReduceForm) -> None:
    """Any reduction chain's kept-row query, read from a written table or from an inline CTE
    of unnested lists, keeps the same rows flattened — with and without the optimizer."""
    types, rows, steps = case
    rel = shred(_CON, rows, types, method="python")
    try:
        sql, params = reduce_sql(rel.table, steps, types, form=form)
        query = _kept_tail(sql)
        want = sorted(_CON.execute(query, params).fetchall())
        assert sorted(_CON.execute(flatten(query), params).fetchall()) == want
        # the same rows read inline: the relation as a leading CTE of bound lists
        cols = python_columns(rows, types)
        names = ["__row", *types]
        head = ", ".join(f"unnest(?::{_stype(n, types)}[]) AS {quote_ident(n)}" for n in names)
        inline = f"WITH {quote_ident(rel.table)} AS (SELECT {head}),\n     {query[5:]}"
        inline_params = [cols[n] for n in names] + params
        for con in (_CON, scratch_cursor()):
            got = sorted(con.execute(flatten(inline), inline_params).fetchall())
            assert got == sorted(con.execute(inline, inline_params).fetchall()) == want
    finally:
        rel.drop()

