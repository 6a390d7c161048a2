"""A ``drv`` over a relation held in SQL: one statement counting the kept rows and reading the
hand-off values (:func:`~edgedsl.runtime.relations.reduce_stored`); the kept rows are a *deferred*
relation, written only when a statement needs their table."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.plan.compile import compile_program
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import render, render_counts
from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend, relations, run
from edgedsl.runtime.relations import reduce_stored
from edgedsl.runtime.shred import shred
from edgedsl.testing import reducer_cases, reference_reduce
from tests.plan_fixtures import (
    CORP_CODE,
    FILING_TYPES,
    T_CORP,
    T_FILINGS,
    TOOLS,
    answer,
    call,
    drv,
    field,
    junc,
    lit,
    program,
    traj,
)
from tests.profiles import examples
from tests.runtime.test_duck import ROWS, TYPES


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    yield c
    c.close()


def _tables(con: duckdb.DuckDBPyConnection) -> int:
    return len(con.execute("SELECT * FROM duckdb_tables()").fetchall())


def test_the_kept_rows_wait_until_a_statement_needs_their_table(
        con: duckdb.DuckDBPyConnection) -> None:
    """Counting and the hand-off values cost one statement and write nothing; reading another
    field writes the table once, with the rows the written reduction holds; without a hand-off
    the table is written at once."""
    src = shred(con, ROWS, TYPES)
    steps = [ReduceStep("eq", "name", "삼성전자")]
    written = src.reduce(steps)
    before = _tables(con)
    query = build_query(src.table, steps, TYPES)
    kept, sql, params = reduce_stored(con, "kept", TYPES, query, "dt")
    assert sql == render_counts(query, "dt") and params == query.params()
    assert kept.pending and not kept.in_memory and kept.count() == 2
    assert kept.distinct("dt") == written.distinct("dt")
    assert _tables(con) == before  # nothing written
    assert kept.distinct("amt") == written.distinct("amt")  # another field: the table
    assert not kept.pending and _tables(con) == before + 1
    assert kept.records() == written.records() == [ROWS[0], ROWS[2]]
    assert kept.row_ids() == written.row_ids()
    # no hand-off: the table is written at once, with the rows of render's statement
    now, sql, _ = reduce_stored(con, "now", TYPES, query, None)
    assert sql == render(query, "table") and not now.pending and now.count() == 2
    assert _tables(con) == before + 2
    assert now.records() == written.records()


def test_nothing_kept(con: duckdb.DuckDBPyConnection) -> None:
    src = shred(con, ROWS, TYPES)
    query = build_query(src.table, [ReduceStep("eq", "name", "없음")], TYPES)
    for handoff in ("name", None):
        kept, _, _ = reduce_stored(con, f"k{handoff}", TYPES, query, handoff)
        assert kept.count() == 0 and kept.records() == []
        if handoff:
            assert kept.distinct(handoff) == []


_SHARED = duckdb.connect()


@settings(max_examples=examples(40), deadline=None)
@given(case=reducer_cases(), pick=st.integers(min_value=-1, max_value=8))
def test_a_deferred_reduction_agrees_with_the_reference(case: Any, pick: int) -> None:
    """Any chain over a written table: the deferred relation counts the rows the reference
    reducers keep, its hand-off values are the written relation's, and written it holds the
    same rows."""
    types, rows, steps = case
    handoff = None if pick < 0 else list(types)[pick % len(types)]
    src = shred(_SHARED, rows, types, method="python")
    try:
        query = build_query(src.table, steps, types)
        kept, _, _ = reduce_stored(_SHARED, "deferred", types, query, handoff)
        written = src.reduce(steps)
        want = reference_reduce(rows, steps, types)
        assert kept.count() == written.count() == len(want)
        if handoff is not None:
            assert kept.distinct(handoff) == written.distinct(handoff)
        assert kept.row_ids() == written.row_ids() == want
        kept.drop()
        written.drop()
    finally:
        src.drop()


def _handed_off():
    """corp → filings (three pages) → drv latest (max rcept_dt) → again: filings of
    ``seq latest.corp_code``."""
    return traj(
        "handed_off",
        call("corp", T_CORP, lit("corp_name", "solo"), line=3),
        call("filings", T_FILINGS, junc("corp_code", "seq", "corp", "corp_code", CORP_CODE),
             pages="all", line=4),
        drv("latest", "filings", FILING_TYPES, ReduceStep("max", "rcept_dt"), line=5),
        call("again", T_FILINGS, junc("corp_code", "seq", "latest", "corp_code", CORP_CODE),
             pages="all", line=6),
        answer=answer(report=field("latest", "report_nm"), n=field("again", "report_nm")),
    )


def test_handoff_field_names_the_field_a_junction_reads() -> None:
    tp = compile_program(program(_handed_off())).trajectory("handed_off")
    assert relations.handoff_field(tp, "latest") == "corp_code"
    assert relations.handoff_field(tp, "corp") == "corp_code"
    assert relations.handoff_field(tp, "again") is None


def test_a_drv_over_a_stored_table_hands_off_from_its_one_statement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replayed with every stored response held in SQL, the `drv` runs its counting statement
    with the junction's field, and the run answers as with the responses in memory."""
    plan = compile_program(program(_handed_off()))
    with Store(tmp_path / "s.duckdb") as store:
        recorded = run(plan, "handed_off", RecordingBackend(PythonBackend(TOOLS), store))
    assert recorded.ok, recorded.diagnostics
    monkeypatch.setattr(relations, "SETTINGS",
                        dataclasses.replace(relations.SETTINGS, in_memory_max_cells=-1))
    stored = run(plan, "handed_off", StoreBackend(tmp_path / "s.duckdb", strict=True))
    assert stored.ok, stored.diagnostics
    query = ReduceQuery.from_json(plan.trajectory("handed_off").steps["latest"].query)
    assert stored.trace.step("latest").sql == render_counts(query, "corp_code")
    assert stored.answer == recorded.answer
    assert stored.trace.step("latest").records == recorded.trace.step("latest").records
    assert stored.trace.step("again").junctions == recorded.trace.step("again").junctions
