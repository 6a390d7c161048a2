"""The store: record, strict replay, misses, canonical keys, transactional writes, secrets."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import duckdb
import pytest

from edgedsl.plan.compile import compile_program
from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend, run
from edgedsl.runtime.backends import make_backend
from edgedsl.runtime.store import canonical_args, store_key
from tests.plan_fixtures import TOOLS, latest_filing, program

SECRET = "SEKRET-9f8e7d"


def _plan():
    return compile_program(program(latest_filing()))


def _record(path: Path):
    plan = _plan()
    with Store(path) as store:
        res = run(
            plan,
            "latest_filing",
            RecordingBackend(PythonBackend(TOOLS, secrets={"demo": SECRET}), store),
        )
        assert res.ok, res.diagnostics
        assert store.count() == 4  # corp + three pages of filings
    return plan, res


def test_record_then_strict_replay_hits(tmp_path: Path) -> None:
    plan, recorded = _record(tmp_path / "s.duckdb")
    backend = StoreBackend(tmp_path / "s.duckdb", strict=True)
    replay = run(plan, "latest_filing", backend)
    assert replay.ok, replay.diagnostics
    assert replay.answer == recorded.answer
    st = replay.trace.step("filings")
    assert (st.store_hits, st.store_misses, st.pages_read, st.total_reported) == (3, 0, 3, 7)
    assert all(c.store_hit for s in replay.trace.steps for c in s.calls)
    assert replay.trace.step("corp").store_hit is True
    backend.store.close()


def test_store_hit_carries_shredded_rows(tmp_path: Path) -> None:
    plan, _ = _record(tmp_path / "s.duckdb")
    tool = plan.tools["demo.filings"]
    with Store(tmp_path / "s.duckdb") as store:
        hit = store.get(tool, {"corp_code": "C1"}, 2)
        assert hit is not None and hit.from_store and hit.total == 7
        assert hit.stored is not None and hit.stored.count == 3
        rel = hit.stored.relation()
        assert rel.column("rcept_dt") == [
            dt.date(2024, 12, 11),
            dt.date(2024, 12, 20),
            dt.date(2024, 12, 23),
        ]
        assert rel.column("amount") == [50, 400, 10]  # typed columns, coerced once
        assert [r["report_nm"] for r in hit.records] == ["감사보고서", "주요사항", "분기보고서"]


def test_strict_miss_names_the_call(tmp_path: Path) -> None:
    plan = _plan()
    Store(tmp_path / "empty.duckdb").close()  # an empty store (replay never creates one)
    res = run(plan, "latest_filing", StoreBackend(tmp_path / "empty.duckdb"))
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R505"
    assert 'demo.corp(corp_name="solo")' in d.message
    assert "--record" in d.message
    assert res.trace.step("corp").store_misses == 1


def test_strict_miss_on_a_later_page(tmp_path: Path) -> None:
    plan, _ = _record(tmp_path / "s.duckdb")
    with Store(tmp_path / "s.duckdb") as store:
        store.con.execute("DELETE FROM responses WHERE page = 3")
    res = run(plan, "latest_filing", StoreBackend(tmp_path / "s.duckdb"))
    (d,) = res.diagnostics
    assert d.code == "R505" and 'demo.filings(corp_code="C1", page=3)' in d.message


def test_non_strict_falls_through_to_inner(tmp_path: Path) -> None:
    plan = _plan()
    Store(tmp_path / "x.duckdb").close()
    backend = make_backend(
        "store", path=tmp_path / "x.duckdb", strict=False, inner=PythonBackend(TOOLS)
    )
    res = run(plan, "latest_filing", backend)
    assert res.ok and res.trace.step("corp").store_hit is False


def test_secret_never_reaches_the_store_file(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    _, res = _record(path)
    assert SECRET not in res.trace.model_dump_json()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert SECRET.encode() not in data
    with Store(path) as store:  # the echo field was scrubbed, not dropped
        raw = store.con.execute(
            "SELECT raw FROM responses WHERE tool = 'filings' LIMIT 1"
        ).fetchone()[0]
        assert b"key=***" in bytes(raw)


def test_keys_are_canonical() -> None:
    plan = _plan()
    tool = plan.tools["demo.filings"]
    a = store_key(tool, {"corp_code": "C1", "bgn_de": dt.date(2024, 12, 1)}, 1)
    b = store_key(tool, {"bgn_de": "2024-12-01", "corp_code": "C1", "api_key": "k"}, 1)
    assert a == b
    assert store_key(tool, {"corp_code": "C1"}, 1) == store_key(
        tool, {"corp_code": "C1", "bgn_de": None}, 1
    )
    assert store_key(tool, {"corp_code": "C1"}, 1) != store_key(tool, {"corp_code": "C1"}, 2)
    changed = dataclasses.replace(tool, declaration_hash="0" * 16)
    assert store_key(changed, {"corp_code": "C1"}, 1) != store_key(tool, {"corp_code": "C1"}, 1)
    assert canonical_args(tool, {"api_key": "k", "x": 2.0}) == {"x": 2}


def test_a_failed_write_leaves_nothing_visible(tmp_path: Path, monkeypatch) -> None:
    plan = _plan()
    path = tmp_path / "s.duckdb"

    def crash(self, *args):  # the disk fails mid-write: environmental, rolled back
        raise duckdb.IOException("IO Error: crash mid-write")

    monkeypatch.setattr(Store, "_insert_records", crash)
    with Store(path) as store:
        res = run(plan, "latest_filing", RecordingBackend(PythonBackend(TOOLS), store))
        assert not res.ok and res.diagnostics[0].code == "R510"
        assert store.count() == 0
    monkeypatch.undo()
    with Store(path) as store:
        assert store.count() == 0
        assert store.get(plan.tools["demo.corp"], {"corp_name": "solo"}, None) is None


def test_rerecording_replaces(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    _record(path)
    _record(path)
    with Store(path) as store:
        assert store.count() == 4
        (n,) = store.con.execute(
            f'SELECT count(*) FROM "{Store.table_name(_plan().tools["demo.filings"])}"'
        ).fetchone()
        assert n == 7


@pytest.mark.parametrize("strict", [True, False])
def test_store_backend_from_registry(tmp_path: Path, strict: bool) -> None:
    Store(tmp_path / "r.duckdb").close()
    b = make_backend("store", path=tmp_path / "r.duckdb", strict=strict)
    assert isinstance(b, StoreBackend) and b.strict is strict


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.skipif(not (EXAMPLES / "tools.py").exists(), reason="example tools not present")
@pytest.mark.parametrize("name", ["samsung_filing.edge", "school_day.edge", "market_day.edge"])
def test_examples_end_to_end_record_replay(tmp_path: Path, name: str) -> None:
    """Checker → plan → JSON → reload → run on python tools, record, strict replay: same answers."""
    import edgedsl
    from edgedsl.plan.model import load_plan, plan_to_json
    from edgedsl.runtime import load_python_tools, run_plan_sync

    plan = load_plan(plan_to_json(edgedsl.compile(EXAMPLES / name, search_paths=[EXAMPLES])))
    tools = load_python_tools(EXAMPLES / "tools.py")
    with Store(tmp_path / "s.duckdb") as store:
        recorded = run_plan_sync(plan, RecordingBackend(PythonBackend(tools), store))
        assert all(r.ok for r in recorded), [r.diagnostics for r in recorded]
    replay = run_plan_sync(plan, StoreBackend(tmp_path / "s.duckdb", strict=True))
    assert [r.answer for r in replay] == [r.answer for r in recorded]
    assert all(s.store_hit is not False for r in replay for s in r.trace.steps)


def test_a_stored_source_is_reduced_in_the_table_form(tmp_path: Path, monkeypatch) -> None:
    """A `drv` over a relation held in memory runs the plan's query in the window form (a window
    for `max`), reading the source inline; over a stored table, in the table form (a scalar
    subquery): same rows, and the trace records the text that ran."""
    import dataclasses

    from edgedsl.reduce.query import ReduceQuery
    from edgedsl.reduce.render import render
    from edgedsl.runtime import relations

    plan, recorded = _record(tmp_path / "s.duckdb")
    drv = plan.trajectory("latest_filing").steps["latest"]
    query = ReduceQuery.from_json(drv.query)
    table_sql = render(query, "table")
    assert " OVER ()" in render(query, "window") and " OVER ()" not in table_sql
    assert 'AS NOT MATERIALIZED (SELECT * FROM "filings"' in table_sql
    inline = run(plan, "latest_filing", StoreBackend(tmp_path / "s.duckdb", strict=True))
    ran = inline.trace.step("latest").sql
    assert ran is not None and " OVER ()" in ran and 'AS "filings"' in ran
    # no stored response is read into memory: the filings' three pages become one table
    monkeypatch.setattr(relations, "SETTINGS",
                        dataclasses.replace(relations.SETTINGS, in_memory_max_cells=-1))
    stored = run(plan, "latest_filing", StoreBackend(tmp_path / "s.duckdb", strict=True))
    assert stored.ok, stored.diagnostics
    assert stored.trace.step("latest").sql == table_sql
    assert stored.answer == inline.answer == recorded.answer


def test_a_replayed_drv_over_a_stored_response_runs_its_statement_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept ids of a reduction over a stored response's cached columns are remembered with
    them (columns.StoredColumns): a second replay runs no statement for the `drv` and traces
    and answers as the first; a response recorded again under its key is reduced anew."""
    from edgedsl.runtime import determinacy, selection
    from edgedsl.runtime.backends import Response

    plan = compile_program(program(latest_filing(pages=1)))
    ran: list[str] = []
    real = selection.execute_cached

    def counting(con, sql, params=()):  # type: ignore[no-untyped-def]
        ran.append(sql)
        return real(con, sql, params)

    with Store(tmp_path / "s.duckdb") as store:
        recorded = run(plan, "latest_filing", RecordingBackend(
            PythonBackend(TOOLS, secrets={"demo": SECRET}), store))
        monkeypatch.setattr(selection, "execute_cached", counting)
        monkeypatch.setattr(determinacy, "execute_cached", counting)
        backend = StoreBackend(store, strict=True)
        first = run(plan, "latest_filing", backend)
        sql = first.trace.step("latest").sql
        assert sql is not None and ran.count(sql) == 1
        assert len(ran) == 2  # the reduction and its tie counts (determinacy.tie_facts)
        before = len(ran)
        second = run(plan, "latest_filing", backend)
        assert ran.count(sql) == 1  # remembered
        assert len(ran) == before  # the tie counts too (determinacy.tie_facts)
        for res in (first, second):
            assert res.ok and res.answer == recorded.answer
        a, b = first.trace.step("latest"), second.trace.step("latest")
        assert (a.sql, a.params, a.records) == (b.sql, b.params, b.records)
        # the trace says which run executed the statement and which reused its result
        assert (a.remembered, b.remembered) == (False, True)
        # the page recorded again, its latest filing another one: reduced anew
        tool = plan.tools["demo.filings"]
        (call,) = first.trace.step("filings").calls
        args, page = call.args, call.page
        hit = store.get(tool, args, page)
        assert hit is not None
        again = [{**r, "report_nm": f"{r['report_nm']}*"} for r in hit.records]
        store.put(tool, args, page, Response(records=again, total=hit.total))
        third = run(plan, "latest_filing", backend)
        assert ran.count(sql) == 2
        assert not third.trace.step("latest").remembered
        assert third.answer["report"] != first.answer["report"]


def test_the_memo_of_a_stored_response_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reductions of one cached response are remembered up to StoredColumns.MAX_KEPT (the
    first ones), each with the ids its statement keeps."""
    from edgedsl.core.types import INT
    from edgedsl.reduce.registry import ReduceStep, build_query
    from edgedsl.runtime.columns import StoredColumns, python_columns
    from edgedsl.runtime.duck import Relation
    from edgedsl.runtime.selection import select_relation

    monkeypatch.setattr(StoredColumns, "MAX_KEPT", 2)
    types = {"n": INT}
    cols = StoredColumns(python_columns([{"n": i} for i in range(6)], types))
    con = duckdb.connect()
    for pivot, want in ((4, [4, 5]), (1, [1, 2, 3, 4, 5]), (5, [5]), (4, [4, 5])):
        src = Relation(con, "r", types, 6, columns=cols, pending=True)
        kept = select_relation(con, "k", types,
                               build_query("r", [ReduceStep("ge", "n", str(pivot))], types),
                               source=src)
        assert [r["n"] for r in kept.records()] == want  # from memory: no table written
    assert sorted(ids for ids in cols.kept.values()) == [[1, 2, 3, 4, 5], [4, 5]]
