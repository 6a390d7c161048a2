"""Relations in DuckDB: shred, reduce, distinct, records, aggregates, stored tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from edgedsl.reducers import ReduceStep
from edgedsl.runtime.duck import Relation, aggregate_sql, shred
from edgedsl.types import DATE, FLOAT, INT, STR, ListType

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
    from edgedsl.reducers import reduce_sql
    from edgedsl.runtime.duck import select_relation

    src = shred(con, ROWS, TYPES, name="src", temp=True, lazy=lazy)
    sql, params = reduce_sql("src", chain, TYPES)
    kept = select_relation(con, "kept", TYPES, sql, params, source=src)
    assert src.pending == lazy  # the source was not written to reduce it
    assert kept.pending and kept.in_memory
    # a reduction of the pending kept relation (its __row no longer 0 … n-1), read inline
    again = select_relation(con, "again", TYPES, *reduce_sql("kept", [ReduceStep("min", "amt")],
                                                             TYPES), source=kept)
    assert kept.pending
    shred(con, ROWS, TYPES, name="ref_src", temp=True)
    ref = select_relation(con, "ref", TYPES, *reduce_sql("ref_src", chain, TYPES))
    assert kept.count() == ref.count()
    for f in TYPES:
        assert kept.distinct(f) == ref.distinct(f)
    assert kept.records() == ref.records()
    assert _table(kept) == _table(ref)
    ref2 = select_relation(con, "ref2", TYPES, *reduce_sql("ref", [ReduceStep("min", "amt")],
                                                           TYPES))
    assert _table(again) == _table(ref2)
