"""Relations in DuckDB: shred, reduce, distinct, records, aggregates, stored tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.core.types import DATE, FLOAT, INT, STR, FieldType, ListType
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form
from edgedsl.runtime.bind import packing
from edgedsl.runtime.duck import Relation, aggregate_sql
from edgedsl.runtime.selection import select_relation
from edgedsl.runtime.shred import shred
from edgedsl.testing import reducer_cases, reference_reduce

HOSTILE = '"; drop table x; --'
TYPES = {"amt": INT, "rate": FLOAT, "dt": DATE, "name": STR, HOSTILE: STR, "tags": ListType(STR)}
ROWS = [
    {"amt": "1,999원", "rate": "-4.57", "dt": "20241220", "name": "삼성전자", HOSTILE: "a"},
    {"amt": 2500, "rate": 1.5, "dt": "2024-12-31", "name": "SK하이닉스", "tags": ["x", "y"]},
    {"amt": None, "rate": " +12 %", "dt": "2024.12.31", "name": "삼성전자", "extra": {"k": 1}},
    {"amt": "2,500", "rate": "n/a", "dt": "2024-02-30", "name": 5930, HOSTILE: "b"},
]


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    yield c
    c.close()


def test_shred_typed_columns(con: duckdb.DuckDBPyConnection) -> None:
    rel = shred(con, ROWS, TYPES)
    assert rel.count() == len(rel) == 4
    assert rel.column("amt") == [1999, 2500, None, 2500]
    assert rel.column("rate") == [-4.57, 1.5, 12.0, None]
    assert rel.column("dt") == [
        dt.date(2024, 12, 20),
        dt.date(2024, 12, 31),
        dt.date(2024, 12, 31),
        None,
    ]
    assert rel.column("name") == ["삼성전자", "SK하이닉스", "삼성전자", "5930"]
    assert rel.column(HOSTILE) == ["a", None, None, "b"]
    assert rel.column("tags") == [None, ["x", "y"], None, None]
    types = dict(con.execute(f"DESCRIBE {rel.sql_name}").fetchall()[i][:2] for i in range(9))
    assert types == {
        "__row": "BIGINT",
        "__arm": "VARCHAR",
        "amt": "BIGINT",
        "rate": "DOUBLE",
        "dt": "DATE",
        "name": "VARCHAR",
        HOSTILE: "VARCHAR",
        "tags": "VARCHAR",
        "__raw": "VARCHAR",
    }


def test_records_round_trip_including_undeclared_fields(con: duckdb.DuckDBPyConnection) -> None:
    rel = shred(con, ROWS, TYPES)
    assert rel.records() == ROWS
    assert rel.reduce([ReduceStep("eq", "name", "삼성전자")]).records() == [ROWS[0], ROWS[2]]


def test_pending_records_without_writing_the_table(con: duckdb.DuckDBPyConnection) -> None:
    """A pending relation's records come from its columns, equal to the written table's (and
    the kept rows of a reduction likewise), and no table is written for them."""
    def tables() -> int:
        return len(con.execute("SELECT * FROM duckdb_tables()").fetchall())

    before = tables()
    rel = shred(con, ROWS, TYPES, lazy=True, arm=["a", None, "b", "a"])
    assert rel.pending
    assert rel.records() == ROWS
    assert rel.pending and tables() == before  # nothing written
    kept = select_relation(con, "k", TYPES, build_query(str(rel.table), [
        ReduceStep("eq", "name", "삼성전자")], TYPES), source=rel)
    assert kept.records() == [ROWS[0], ROWS[2]]
    written = shred(con, ROWS, TYPES)
    assert not written.pending and written.records() == ROWS
    assert shred(con, [], TYPES, lazy=True).records() == []


def test_reduce_distinct_and_chain(con: duckdb.DuckDBPyConnection) -> None:
    rel = shred(con, ROWS, TYPES)
    top = rel.reduce([ReduceStep("max", "amt")])
    assert top.row_ids() == [1, 3]
    assert top.distinct("name") == ["SK하이닉스", "5930"]
    again = top.reduce([ReduceStep("eq", HOSTILE, "b")])
    assert again.row_ids() == [3]
    assert rel.distinct("name") == ["삼성전자", "SK하이닉스", "5930"]
    assert rel.distinct("dt") == [dt.date(2024, 12, 20), dt.date(2024, 12, 31)]
    empty = rel.reduce([ReduceStep("after", "dt", "2025-01-01")])
    assert empty.count() == 0 and empty.distinct("name") == [] and empty.records() == []


def test_arm_tags(con: duckdb.DuckDBPyConnection) -> None:
    rel = shred(con, ROWS, TYPES, arm=["005930", "000660", None, "005930"])
    assert rel.arms() == ["005930", "000660", None, "005930"]
    assert rel.records() == ROWS
    assert rel.reduce([ReduceStep("max", "amt")]).arms() == ["000660", "005930"]
    with pytest.raises(ValueError, match="arm tags"):
        shred(con, ROWS, TYPES, arm=["x"])


def test_aggregates(con: duckdb.DuckDBPyConnection) -> None:
    rel = shred(con, ROWS, TYPES)
    assert rel.aggregate("sum", "amt") == 1999 + 2500 + 2500
    assert rel.aggregate("avg", "rate") == pytest.approx((-4.57 + 1.5 + 12.0) / 3)
    assert rel.aggregate("min", "dt") == dt.date(2024, 12, 20)
    assert rel.aggregate("max", "rate") == 12.0
    assert rel.reduce([ReduceStep("after", "dt", "2030-01-01")]).aggregate("sum", "amt") is None
    with pytest.raises(ValueError):
        rel.aggregate("sum", "name")
    with pytest.raises(ValueError):
        rel.aggregate("median", "amt")
    sql, params = aggregate_sql("t", "sum", HOSTILE)
    assert sql == 'SELECT sum("""; drop table x; --") FROM "t"' and params == []


def test_field_name_validation(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="reserved"):
        shred(con, [], {"__row": INT})
    with pytest.raises(ValueError, match="ASCII case"):
        shred(con, [], {"Amt": INT, "amt": INT})
    with pytest.raises(ValueError):
        shred(con, [], {"a\x00": INT})
    rel = shred(con, [], {"É": INT, "é": INT})  # DuckDB folds ASCII case only
    assert rel.count() == 0 and rel.records() == []
    with pytest.raises(ValueError, match="JSON"):
        shred(con, [{"a": object()}], {"a": INT})
    with pytest.raises(KeyError):
        rel.column("nope")


def test_from_table_over_a_stored_file(tmp_path: Path) -> None:
    path = str(tmp_path / "store.duckdb")
    with duckdb.connect(path) as c:
        shred(c, ROWS, TYPES, name="resp_1")
    with duckdb.connect(path, read_only=True) as c:
        rel = Relation.from_table(c, "resp_1", TYPES)
        assert rel.count() == 4
        assert rel.reduce([ReduceStep("most_frequent", "name")]).row_ids() == [0, 2]
        with pytest.raises(ValueError, match="lacks columns"):
            Relation.from_table(c, "resp_1", {**TYPES, "missing": INT})


def test_shred_200k_records(con: duckdb.DuckDBPyConnection) -> None:
    n = 200_000
    rows = [
        {
            "amt": f"{(i * 7919) % 100_003:,}원",
            "dt": f"2024{1 + i % 12:02d}{1 + i % 28:02d}",
            "k": f"c{i % 97}",
        }
        for i in range(n)
    ]
    types = {"amt": INT, "dt": DATE, "k": STR}
    rel = shred(con, rows, types)
    assert rel.count() == n
    best = max((i * 7919) % 100_003 for i in range(n))
    want = [i for i in range(n) if (i * 7919) % 100_003 == best]
    top = rel.reduce([ReduceStep("max", "amt")])
    assert top.row_ids() == want
    assert top.distinct("k") == list(dict.fromkeys(f"c{i % 97}" for i in want))
    assert rel.aggregate("sum", "amt") == sum((i * 7919) % 100_003 for i in range(n))
    assert rel.distinct("k")[:3] == ["c0", "c1", "c2"]
    assert con.execute(
        f'SELECT count(*) FROM {rel.sql_name} WHERE "__row" <> ?', [0]
    ).fetchone() == (n - 1,)
    assert rel.reduce([ReduceStep("eq", "k", "c5")]).records()[:2] == [rows[5], rows[102]]


def _table(rel: Relation) -> list[tuple[object, ...]]:
    rel.ensure()
    return rel.con.execute(f'SELECT * FROM {rel.sql_name} ORDER BY "__row"').fetchall()


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("chain", [
    [ReduceStep("ge", "amt", 2000), ReduceStep("max", "dt")],
    [ReduceStep("most_frequent", "name"), ReduceStep("le", "rate", 100)],
    [ReduceStep("eq", HOSTILE, "b")],
    [ReduceStep("ge", "amt", 10**9)],
    [],
])
def test_select_relation_from_memory_matches_sql(con: duckdb.DuckDBPyConnection, lazy: bool,
                                                 chain: list[ReduceStep]) -> None:
    """A kept relation built from the source's in-memory columns (only ``__row`` fetched; a
    pending source read inline, never written) equals the one fetched whole from DuckDB."""
    from edgedsl.runtime.selection import select_relation

    src = shred(con, ROWS, TYPES, name="src", temp=True, lazy=lazy)
    query = build_query("src", chain, TYPES)
    kept = select_relation(con, "kept", TYPES, query, source=src)
    assert src.pending == lazy  # the source was not written to reduce it
    assert kept.pending and kept.in_memory
    # a reduction of the pending kept relation (its __row no longer 0 … n-1), read inline
    again = select_relation(con, "again", TYPES, build_query("kept", [ReduceStep("min", "amt")],
                                                             TYPES), source=kept)
    assert kept.pending
    shred(con, ROWS, TYPES, name="ref_src", temp=True)
    ref = select_relation(con, "ref", TYPES, build_query("ref_src", chain, TYPES))
    assert kept.count() == ref.count()
    for f in TYPES:
        assert kept.distinct(f) == ref.distinct(f)
    assert kept.records() == ref.records()
    assert _table(kept) == _table(ref)
    ref2 = select_relation(con, "ref2", TYPES, build_query("ref", [ReduceStep("min", "amt")],
                                                           TYPES))
    assert _table(again) == _table(ref2)


@pytest.mark.parametrize("lazy", [True, False])
def test_a_typed_arm_column_is_read_inline(con: duckdb.DuckDBPyConnection, lazy: bool) -> None:
    """The relation of a ``compare`` (or of a call with a fan) holds ``__arm``; a ``drv`` over it
    types ``__arm`` too (the compared parameter's type, for its answers). That typed column is
    the source's own ``__arm``: the reduction still reads the in-memory source inline — it used
    to write the whole source first — and the kept relation can be written and read back."""
    from edgedsl.core.types import CodeType
    from edgedsl.runtime.columns import lazy_columns, python_columns

    arm = [f"20240{4 + i % 3}" for i in range(len(ROWS))]
    cols = lazy_columns(ROWS, TYPES, arm) if lazy else python_columns(ROWS, TYPES, arm)
    src = Relation(con, "arms_src", TYPES, len(ROWS), columns=cols, pending=True)
    month = CodeType("codes.YearMonth", "^[0-9]{6}$", "")
    types = {**TYPES, "__arm": month}
    for chain, want in (
        ([ReduceStep("max", "amt")], reference_reduce(ROWS, [ReduceStep("max", "amt")], TYPES)),
        ([ReduceStep("eq", "__arm", "202405")], [i for i, a in enumerate(arm) if a == "202405"]),
    ):
        query = build_query("arms_src", chain, types)
        kept = select_relation(con, "arms_kept", types, query, source=src)
        assert src.pending  # read inline: never written
        assert kept.distinct("__arm") == list(dict.fromkeys(arm[i] for i in want))
        kept.ensure()  # written with __arm as its text tag, once
        assert kept.row_ids() == want
        assert kept.arms() == [arm[i] for i in want]
        kept.drop()

# ------------------------------------------------------------- small reductions read inline

_SHARED = duckdb.connect()  # the property tests' run connection (sources are written, dropped)


def _inline_kept(con: duckdb.DuckDBPyConnection, rows: list[dict[str, object]],
                 types: dict[str, FieldType], steps: list[ReduceStep], *, tagged: bool = False,
                 written: bool = False, on_con: bool = False, form: Form = "window"
                 ) -> tuple[list[int], Relation]:
    """The ``__row`` ids a chain keeps by the executor's small-``drv`` path (an in-memory source
    read inline by :func:`select_relation`), and the kept relation."""
    from edgedsl.runtime import relations
    from edgedsl.runtime.columns import python_columns
    from edgedsl.runtime.selection import select_relation

    arm = [f"arm{i % 2}" for i in range(len(rows))] if tagged else None
    cols = python_columns(rows, types, arm)
    src = Relation(con, "src", types, len(rows), columns=cols, pending=True)
    if written:
        src.ensure()
    query = build_query("src", steps, types)
    window = query.has_window(form)
    on = relations.connection(relations.inline_connection(len(rows), window=window), con)
    kept = select_relation(con, "kept", types, query, form=form, source=src,
                           inline_on=con if on_con else on)
    assert src.pending != written and kept.pending and kept.in_memory
    got = kept._columns["__row"] if kept._columns is not None else []
    if written:
        src.drop()
    return got, kept


@given(case=reducer_cases(), how=st.sampled_from(["scratch", "written", "run cursor"]),
       form=st.sampled_from(["window", "table"]), packed=st.booleans())
@pytest.mark.slow
def test_inline_reduction_agrees_with_reference(case: Any, how: str, form: Form,
                                                packed: bool) -> None:
    """The ``drv`` path over an in-memory source (columns bound as uncast lists or packed, a
    typed NULL for a column with no value, the optimizer off on the scratch connection, the
    parsed statement cached), in either form, keeps the rows the reference reducers keep."""
    from edgedsl.testing import reference_reduce

    types, rows, steps = case
    with packing(0 if packed else float("inf")):
        got, _ = _inline_kept(_SHARED, rows, types, steps, written=how == "written",
                              on_con=how == "run cursor", form=form)
    assert got == reference_reduce(rows, steps, types)


@given(case=reducer_cases())
@pytest.mark.slow
def test_inline_reduction_of_a_kept_relation_agrees_with_reference(case: Any) -> None:
    """A reduction of a kept relation (``__row`` no longer 0 … n-1) read inline in turn."""
    from edgedsl.runtime.selection import select_relation
    from edgedsl.testing import reference_reduce

    types, rows, steps = case
    first, rest = steps[:1], steps[1:]
    mid, kept = _inline_kept(_SHARED, rows, types, first, tagged=True)
    again = select_relation(_SHARED, "again", types, build_query("kept", rest, types),
                            source=kept)
    assert again._columns is not None
    got = again._columns["__row"]
    assert again._columns["__arm"] == [f"arm{i % 2}" for i in got]
    assert mid == reference_reduce(rows, first, types)
    assert got == reference_reduce(rows, steps, types)


def test_inline_reduction_columns_with_no_value_and_arms(con: duckdb.DuckDBPyConnection,
                                                         statements: list[tuple[object, str]]
                                                         ) -> None:
    """A column holding no value at all is a typed NULL (no list bound); ``__arm`` is read when
    the SQL names it; an empty relation keeps nothing."""
    from edgedsl.runtime import selection

    rows: list[dict[str, object]] = [{"amt": 3}, {"amt": 5}, {"amt": 5}]
    types: dict[str, FieldType] = {"amt": INT, "dt": DATE, "name": STR}
    for steps, want in (([ReduceStep("max", "dt")], []),
                        ([ReduceStep("eq", "name", "x")], []),
                        ([ReduceStep("most_frequent", "name")], []),
                        ([ReduceStep("after", "dt", "2024-01-01")], []),
                        ([ReduceStep("max", "amt")], [1, 2])):
        assert _inline_kept(con, rows, types, steps)[0] == want
    assert any("CAST(NULL AS DATE)" in q for _, q in statements)
    # the same relation and field names with other types: the typed NULL follows the type
    for t, pivot in ((DATE, "2024-01-01"), (INT, 3), (STR, "x"), (FLOAT, 1.5)):
        assert _inline_kept(con, [{}, {}], {"amt": t}, [ReduceStep("eq", "amt", pivot)])[0] == []
    assert _inline_kept(con, [], types, [ReduceStep("max", "amt")])[0] == []
    src = Relation(con, "src", types, 3, columns=python_columns_of(rows, types, ["a", None, "b"]),
                   pending=True)
    tagged = {**types, "__arm": STR}
    kept = selection.select_relation(
        con, "kept", tagged, build_query("src", [ReduceStep("most_frequent", "__arm")], tagged),
        source=src)
    assert kept._columns is not None and kept._columns["__row"] == [0]


def test_an_inline_statement_text_follows_the_fields_types(con: duckdb.DuckDBPyConnection) -> None:
    """The same reduction text over a relation and field of the same names but another type
    reads the column as that type (packed columns are cast to it)."""
    steps = [ReduceStep("max", "amt")]
    with packing(0):
        for t, rows, want in ((INT, [{"amt": 3}, {"amt": 9}, {"amt": 9}], [1, 2]),
                              (DATE, [{"amt": "20240105"}, {"amt": "20231231"}], [0])):
            assert _inline_kept(con, rows, {"amt": t}, steps, form="table")[0] == want


def python_columns_of(rows: list[dict[str, object]], types: dict[str, FieldType],
                      arm: list[str | None]) -> dict[str, list[object]]:
    from edgedsl.runtime.columns import python_columns

    return python_columns(rows, types, arm)


def test_execute_cached(con: duckdb.DuckDBPyConnection) -> None:
    """A parsed statement is reused by text (same results, parameters bound afresh); a text of
    several statements runs as text; the cache is bounded."""
    from edgedsl.runtime import selection

    sql = "SELECT ? + 1 AS x, ? AS y"
    assert selection.execute_cached(con, sql, [1, "a"]).fetchall() == [(2, "a")]
    assert selection._statement.cache_info().currsize >= 1
    assert selection.execute_cached(con, sql, [41, "b"]).fetchall() == [(42, "b")]
    several = "CREATE TEMP TABLE t1 (a INT); SELECT 7"
    assert selection.execute_cached(con, several).fetchall() == [(7,)]
    with pytest.raises(duckdb.Error):
        selection.execute_cached(con, "SELECT * FROM no_such_table")
    hits = selection._statement.cache_info().hits
    assert selection.execute_cached(con, sql, [1, "c"]).fetchall() == [(2, "c")]
    assert selection._statement.cache_info().hits == hits + 1
    assert selection._statement.cache_info().maxsize == selection.STATEMENT_CACHE_SIZE


def test_scratch_cursor_is_per_thread_and_holds_no_optimizer() -> None:
    """One cursor per thread on one process-wide scratch database (one thread, optimizer off)."""
    import threading

    from edgedsl.runtime.relations import scratch_cursor

    mine = scratch_cursor()
    assert scratch_cursor() is mine
    assert mine.execute("SELECT current_setting('threads')").fetchone() == (1,)
    # the optimizer would fold this filter away (DuckDB 1.1 has no `enable_optimizer` setting
    # to read back, so the plan tells)
    explain = "EXPLAIN SELECT x FROM (SELECT 1 AS x) WHERE x > 0"
    assert "FILTER" in mine.execute(explain).fetchall()[0][1].upper()
    assert "FILTER" not in duckdb.connect().execute(explain).fetchall()[0][1].upper()
    other: list[object] = []
    th = threading.Thread(target=lambda: other.append(scratch_cursor()))
    th.start()
    th.join()
    assert other and other[0] is not mine


# ------------------------------------------------------------------ lazy columns, inline SQL


def _table_rows(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[Any, ...]]:
    return con.execute(f'SELECT * FROM "{name}" ORDER BY "__row"').fetchall()


@pytest.mark.parametrize("native", [False, True])
def test_lazy_columns_are_python_columns(native: bool) -> None:
    from edgedsl.runtime.columns import lazy_columns, python_columns

    rows = [dict(r) for r in ROWS]  # JSON values only: native or not, the same columns
    arms = ["a", None, "b", "a"]
    eager = python_columns(rows, TYPES, arms)
    lazy = lazy_columns(rows, TYPES, arms, native=native)
    assert list(lazy) == list(eager)
    for name in reversed(list(eager)):  # any order of first reads
        assert lazy[name] == eager[name], name
    kept = lazy.rows([3, 1], TYPES)
    assert kept["__row"] == [3, 1] and kept["name"] == [eager["name"][3], eager["name"][1]]
    assert kept["amt"] == [eager["amt"][3], eager["amt"][1]]


@pytest.mark.parametrize("size", [4, 3000])
def test_lazy_relation_writes_the_table_shred_writes(con: duckdb.DuckDBPyConnection,
                                                     size: int) -> None:
    from edgedsl.runtime.columns import lazy_columns

    rows = [dict(ROWS[i % len(ROWS)], n=i) for i in range(size)]
    arms = [None if i % 3 else f"arm{i % 2}" for i in range(size)]
    shred(con, rows, TYPES, arm=arms, name="eager", temp=True)
    cols = lazy_columns(rows, TYPES, arms)
    Relation(con, "lazy", TYPES, size, columns=cols, pending=True).ensure()
    assert _table_rows(con, "lazy") == _table_rows(con, "eager")


@pytest.mark.parametrize("packed", [False, True])
def test_inline_query_answers_as_the_tables(con: duckdb.DuckDBPyConnection, packed: bool) -> None:
    """An answer reading a relation inline — its columns bound as lists, or packed — answers
    as the written table does (a BIGINT sum beyond 32 bits, a typed NULL, distinct values)."""
    from edgedsl.runtime.columns import lazy_columns
    from edgedsl.runtime.relations import scratch_cursor
    from edgedsl.runtime.selection import inline_query

    big = [{"v": str(2_000_000_000), "name": "x"}, {"v": "2,000,000,000", "name": "y"}]
    types: dict[str, FieldType] = {"v": INT, "name": STR, "none": INT}
    rel = Relation(con, "r", types, 2, columns=lazy_columns(big, types, native=True),
                   pending=True)
    queries = [  # each with the fields it reads, as the plan records them
        ('SELECT ((SELECT max("v") FROM "r") + (SELECT min("v") FROM "r")) AS value', ["v"]),
        ('SELECT (SELECT count(*) FROM "r") AS value', []),
        ('SELECT (SELECT sum("none") FROM "r") AS value', ["none"]),
        ('SELECT "name" AS value FROM "r" WHERE "name" IS NOT NULL GROUP BY "name" '
         'ORDER BY min("__row")', ["name"]),
        ('SELECT (SELECT max("__row") FROM "r") AS value', []),
    ]
    inline = []
    for q, fields in queries:
        with packing(0 if packed else float("inf")):
            got = inline_query(q, [(rel, fields)])
        assert got is not None
        text, params = got
        assert ("string_split" in text) is (packed and bool(fields) and fields != ["none"])
        inline.append(scratch_cursor().execute(text, params).fetchall())
    stored = Relation(con, "t", types, 0)
    assert inline_query("SELECT 1", [(stored, [])]) is None  # no columns in memory
    rel.ensure()
    assert inline == [con.execute(q).fetchall() for q, _ in queries]


def test_source_columns_are_python_columns() -> None:
    """Records held as columns (a flat XML list) give the columns their records give, and
    the kept rows of a reduction are built one by one, not all."""
    from edgedsl.runtime.columns import python_columns, source_columns
    from edgedsl.runtime.normalize import flat_table

    body = ("<r>" + "".join(
        f"<l><amt> {a} </amt><dt>{d}</dt><name>{n}</name></l>"
        for a, d, n in [("1,999원", "20241220", "A &amp; B"), ("", "2024-12-31", "x"),
                        ("2,500", "2024.12.31", " y "), ("7", "20241220", "")])
        + "</r>").encode()
    got = flat_table(body)
    assert got is not None
    table = got[2]
    types = {"amt": INT, "dt": DATE, "name": STR, "tags": ListType(STR)}
    arms = ["a", None, "b", "a"]
    lazy = source_columns(table, types, arms)
    eager = python_columns(table.records(), types, arms)
    for name in reversed(list(eager)):
        assert lazy[name] == eager[name], name
    fresh = source_columns(flat_table(body)[2], types)  # type: ignore[index]
    kept = fresh.rows([2, 0], types)
    assert kept["name"] == ["y", "A & B"] and kept["amt"] == [2500, 1999]
    assert kept.back() == [eager_r for i, eager_r in enumerate(table.records()) if i in (2, 0)
                           ][::-1]


@pytest.mark.parametrize("t", [INT, FLOAT, DATE, STR, ListType(STR)])
def test_coerce_column_is_value_by_value(t: FieldType) -> None:
    from edgedsl.runtime.columns import _coerce_column, _stored_value

    texts = ["1", "1", "1,000", None, "2024-12-31", "20241231", "true", "x", "1"]
    mixed = [*texts, 1, True, 1.0, ["a"], {"k": 1}]
    for raw in (texts, mixed):
        assert _coerce_column(t, raw) == [_stored_value(t)(v) for v in raw]


@pytest.mark.parametrize("op, n, form, scratch", [
    ("max", 100, "window", True), ("max", 500, "window", False), ("min", 129, "window", False),
    ("max", 5000, "table", True), ("ge", 500, "window", True),
    ("most_frequent", 500, "table", True), ("ge", 3001, "table", True),
])
def test_which_connection_an_inline_reduction_runs_on(con: duckdb.DuckDBPyConnection, op: str,
                                                      n: int, form: Form, scratch: bool,
                                                      statements: list[tuple[object, str]]
                                                      ) -> None:
    """An inline reduction runs on the scratch connection (no optimizer) at any size, except a
    whole-relation window (the inline form of ``max``, ``min``) over more than
    ``Settings.window_max_rows`` rows, since without the optimizer its cost outgrows the rows:
    that one runs on the relation's own connection. The kept rows are the same either way."""
    from edgedsl.runtime import relations
    from edgedsl.testing import reference_reduce

    rows: list[dict[str, object]] = [{"amt": (i * 7919) % 97} for i in range(n)]
    types: dict[str, FieldType] = {"amt": INT}
    steps = [ReduceStep(op, "amt", 50 if op == "ge" else None)]
    got, _ = _inline_kept(con, rows, types, steps, form=form)
    assert got == reference_reduce(rows, steps, types)
    ran = [c for c, _ in statements]
    assert (ran == [relations.scratch_cursor()]) if scratch else (ran == [con])
    limit = relations.SETTINGS.window_max_rows
    assert relations.inline_connection(limit, window=True) == "scratch"
    assert relations.inline_connection(limit + 1, window=True) == "run"
    assert relations.inline_connection(10**9, window=False) == "scratch"
    assert relations.reduction_form(limit) == "window"
    assert relations.reduction_form(limit + 1) == "table"
