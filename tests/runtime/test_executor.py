"""The executor: junctions, fan concurrency, drv chains, structures, pages, answers, failures."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import re
from pathlib import Path

import orjson
import pytest

from edgedsl.check import ir
from edgedsl.core.types import DATE, FLOAT, INT, STR
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import PredicateSpec
from edgedsl.reduce.registry import ReduceStep
from edgedsl.runtime import PythonBackend, answers, load_python_tools, run, trace_summary
from edgedsl.runtime.answers import prepared
from edgedsl.runtime.executor import run_plan_sync
from tests.plan_fixtures import (
    CORP_CODE,
    FILING_TYPES,
    LOG,
    PRICE_TYPES,
    RENDEZVOUS,
    T_CORP,
    T_FILINGS,
    T_PRICE,
    TOOLS,
    answer,
    call,
    day_of,
    drv,
    field,
    junc,
    latest_filing,
    lit,
    program,
    shared,
    sync_price,
    traj,
)

D = dt.date(2024, 12, 30)


def go(t: ir.TrajectoryIR, tools=None, **kw):
    plan = compile_program(program(t))
    return run(plan, t.name, PythonBackend(tools or TOOLS, secrets=kw.pop("secrets", None)), **kw)


def test_seq_chain_drv_and_answer_formatting() -> None:
    res = go(latest_filing())
    assert res.ok, res.diagnostics
    assert res.answer == {
        "report": ["분기보고서", "정정신고"],  # two ties on the max date, input order
        "day": "2024-12-23",  # one distinct value → scalar, ISO date
        "n": 7,
        "total": 2015,  # "1,000" and "50원" coerced by shredding
        "mean": 287.9,
        "twice": 4,  # int * int stays an int
        "half": 0.5,
    }
    assert isinstance(res.answer["n"], int) and isinstance(res.answer["twice"], int)
    assert res.say == "분기보고서, 정정신고 on 2024-12-23 (7 filings)"
    st = res.trace.step("filings")
    assert (st.pages_read, st.total_reported, st.records) == (3, 7, 7)
    j = st.junctions[0]
    assert (j.cardinality, j.would_be, j.values) == (1, "seq", ["C1"])
    ran = res.trace.step("latest").sql  # the text that ran: the source read inline
    assert ran is not None and 'SELECT "__row" FROM (SELECT ' in ran and 'AS "filings"' in ran
    out = res.to_json()
    assert set(out) == {"trajectory", "ok", "answer", "say"}
    assert "filings" in trace_summary(res.trace)


def test_a_count_answer_field_is_read_from_the_relation(
        statements: list[tuple[object, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """``count(x)`` as a whole answer field is the relation's row count, with no statement; a
    count inside an expression still runs as SQL. The answer is the same either way."""
    res = go(latest_filing())
    ran = [sql for _, sql in statements]
    assert res.ok and res.answer["n"] == 7 and res.answer["twice"] == 4

    def counts(q: str, name: str) -> bool:  # the relation read by name or inlined as `(…) AS`
        return re.search(rf'count\(\*\) FROM (?:"{name}"|\(SELECT .*?\) AS "{name}")', q,
                         re.DOTALL) is not None

    assert not any(counts(q, "filings") for q in ran)
    assert any(counts(q, "latest") for q in ran)  # inside `twice`
    # the same plan with no value read from a handle: every answer field runs as SQL
    t = latest_filing()
    plan = compile_program(program(t))
    answer = plan.trajectory(t.name).answer
    assert answer is not None
    assert {prepared(f).facts.whole for f in answer.fields} >= {"count", "field"}
    monkeypatch.setattr(answers, "_from_handle", lambda *_: answers._NEEDS_SQL)
    assert run(plan, t.name, PythonBackend(TOOLS)).answer == res.answer


def test_answers_and_predicates_are_prepared_once_per_distinct_query() -> None:
    """An answer field's and a predicate's statement and facts come from one cache keyed by the
    query's JSON: a second run of the plan, or another plan compiled from the same source,
    prepares nothing again."""
    t = latest_filing()
    plan = compile_program(program(t))
    answers._prepare.cache_clear()
    first = run(plan, t.name, PythonBackend(TOOLS))
    misses = answers._prepare.cache_info().misses
    answer = plan.trajectory(t.name).answer
    assert answer is not None
    assert misses == len({orjson.dumps(f.query) for f in answer.fields}) > 1
    again = compile_program(program(latest_filing()))
    assert run(again, t.name, PythonBackend(TOOLS)).answer == first.answer
    assert answers._prepare.cache_info().misses == misses
    f = answer.fields[0]
    assert prepared(dataclasses.replace(f)) is prepared(f)
    # one cache for both kinds: a predicate prepared next to the answers
    pred = PredicateSpec(query={"kind": "exists", "source": "filings"})
    assert prepared(pred).text == 'SELECT (EXISTS (SELECT 1 FROM "filings")) AS value'
    assert prepared(pred).facts.reads == {"filings": ()}
    assert answers._prepare.cache_info().misses == misses + 1


@pytest.mark.parametrize(("pages", "read", "records"), [(None, 1, 3), (2, 2, 6), ("all", 3, 7)])
def test_pages(pages, read, records) -> None:
    res = go(latest_filing(pages=pages))
    assert res.ok
    st = res.trace.step("filings")
    assert (st.pages_read, st.records) == (read, records)
    assert [c.page for c in st.calls] == list(range(1, read + 1))


def test_pages_all_bound_is_a_structural_failure() -> None:
    res = go(latest_filing(), max_pages=2)
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R506" and "2 pages" in d.message and "6 of 7" in d.message
    assert d.span is not None and d.span.line == 4
    assert res.trace.step("filings").failure.kind == "structural"


def _fan(bound: int, corp_name: str = "group", kind: str = "fan", tool_fn=None):
    t = traj(
        "fan_prices",
        call("corps", T_CORP, lit("corp_name", corp_name), line=2),
        call(
            "prices",
            T_PRICE,
            junc("code", kind, "corps", "corp_code", CORP_CODE, bound, line=3),
            day_of(D),
            line=3,
        ),
        drv("top", "prices", PRICE_TYPES, ReduceStep("max", "close"), line=4),
        answer=answer(
            codes=field("prices", "code"),
            top=field("top", "code"),
            vol=ir.AggE(fn="sum", source="prices", field="volume", type=INT),
            best=ir.AggE(fn="max", source="prices", field="close", type=FLOAT),
        ),
    )
    tools = dict(TOOLS)
    if tool_fn is not None:
        tools["demo.price"] = tool_fn
    return go(t, tools)


@pytest.mark.parametrize("tool_fn", [None, sync_price], ids=["async", "sync-thread"])
def test_fan_branches_run_concurrently(tool_fn) -> None:
    LOG.clear()
    RENDEZVOUS.update(expect=3, started=0)
    try:
        res = _fan(5, tool_fn=tool_fn)
    finally:
        RENDEZVOUS.update(expect=0, started=0)
    assert res.ok, res.diagnostics
    assert len(LOG) == 3
    # every branch started before any branch finished: they overlapped
    assert max(start for _, start, _ in LOG) < min(end for _, _, end in LOG)
    st = res.trace.step("prices")
    assert sorted(c.arm for c in st.calls) == ["C1", "C2", "C3"]
    assert st.junctions[0].would_be == "fan"
    if tool_fn is None:
        assert res.answer == {"codes": ["C1", "C2", "C3"], "top": "C1", "vol": 3000, "best": 1234.5}


def test_fan_rows_are_tagged_with_their_arm() -> None:
    t = traj(
        "arms",
        call("corps", T_CORP, lit("corp_name", "group")),
        call(
            "f",
            T_FILINGS,
            junc("corp_code", "fan", "corps", "corp_code", CORP_CODE, 5),
            pages="all",
        ),
        drv(
            "c2",
            "f",
            FILING_TYPES,
            ReduceStep("eq", "report_nm", "사업보고서"),
            ReduceStep("min", "rcept_dt"),
        ),
        answer=ir.AnswerIR(expr=field("c2", "corp_code", CORP_CODE)),
    )
    res = go(t)
    assert res.ok and res.answer == "C3"
    assert res.trace.step("f").records == 10


def test_seq_over_several_values_is_r502_with_span_and_hint() -> None:
    res = _fan(1, kind="seq")
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R502"
    assert "3 distinct values" in d.message
    assert d.span.line == 3 and d.span.file == "demo.edge"
    assert any("use `fan`" in h for h in d.hints)
    assert any(lb.message == "`corps` comes from here" and not lb.primary for lb in d.labels)
    st = res.trace.step("prices")
    assert st.status == "failed" and st.junctions[0].would_be == "fan"
    assert res.trace.step("corps").status == "ok"  # the partial trace keeps earlier steps


def test_fan_over_bound_is_r502_and_empty_is_r501() -> None:
    res = _fan(2)
    assert [d.code for d in res.diagnostics] == ["R502"]
    assert any("drv" in h for h in res.diagnostics[0].hints)
    assert any("fan(3)" in h for h in res.diagnostics[0].hints)
    res = _fan(5, corp_name="none")
    (d,) = res.diagnostics
    assert d.code == "R501" and "0 distinct values" in d.message
    assert any("returned no records" in h for h in d.hints)


def test_parallel_branches_with_shared_args() -> None:
    group = ir.ParallelIR(
        id="day",
        shared=(junc("code", "seq", "corp", "stock_code"), lit("d", D, DATE)),
        branches=(
            call("day.a", T_PRICE, shared("code", "code"), shared("day", "d", DATE)),
            call("day.b", T_PRICE, lit("code", "B"), shared("day", "d", DATE)),
        ),
    )
    t = traj(
        "par",
        call("corp", T_CORP, lit("corp_name", "solo")),
        group,
        answer=answer(
            a=field("day.a", "code"),
            b=field("day.b", "close", FLOAT),
            when=field("day.a", "day", DATE),
            branches=ir.CountE(source="day"),
        ),
    )
    LOG.clear()
    RENDEZVOUS.update(expect=2, started=0)
    try:
        res = go(t)
    finally:
        RENDEZVOUS.update(expect=0, started=0)
    assert res.ok, res.diagnostics
    assert res.answer == {"a": "000001", "b": 12.25, "when": "2024-12-30", "branches": 2}
    assert max(s for _, s, _ in LOG) < min(e for _, _, e in LOG)
    plan = compile_program(program(t))
    assert plan.trajectories[0].layers == [["corp"], ["day"]]


def test_compare_arms_and_winner() -> None:
    cmp = ir.CompareIR(
        id="prices", call=call("prices", T_PRICE, day_of(D)), param="code", values=("A", "B")
    )
    t = traj(
        "cmp",
        cmp,
        drv("winner", "prices", PRICE_TYPES, ReduceStep("max", "close")),
        answer=ir.AnswerIR(expr=field("winner", "code")),
    )
    res = go(t)
    assert res.ok and res.answer == "B"
    assert sorted(c.arm for c in res.trace.step("prices").calls) == ["A", "B"]


def _if(threshold: int) -> ir.TrajectoryIR:
    cond = ir.CmpP(op=">", left=ir.CountE(source="filings"), right=ir.LitE(value=threshold))
    branch = ir.IfIR(
        id="if1",
        cond=cond,
        then=(drv("pick", "filings", FILING_TYPES, ReduceStep("most_frequent", "report_nm")),),
        orelse=(drv("pick", "filings", FILING_TYPES, ReduceStep("max", "rcept_dt")),),
        binds=("pick",),
    )
    return traj(
        "cond",
        call("corp", T_CORP, lit("corp_name", "solo")),
        call(
            "filings",
            T_FILINGS,
            junc("corp_code", "seq", "corp", "corp_code", CORP_CODE),
            pages="all",
        ),
        branch,
        answer=ir.AnswerIR(expr=field("pick", "report_nm")),
    )


@pytest.mark.parametrize(
    ("threshold", "branch", "expected"),
    [(5, "then", "분기보고서"), (10, "else", ["분기보고서", "정정신고"])],
)
def test_if_runs_the_taken_branch(threshold, branch, expected) -> None:
    res = go(_if(threshold))
    assert res.ok, res.diagnostics
    assert res.trace.step("if1").branch == branch
    assert res.answer == expected
    ran = {s.id for s in res.trace.steps}
    assert f"if1/{branch}/pick" in ran
    assert f"if1/{'else' if branch == 'then' else 'then'}/pick" not in ran


def test_predicate_and_or_not_exists_and_field_value() -> None:
    cond = ir.AndP(
        operands=(
            ir.ExistsP(source="corp"),
            ir.NotP(
                operand=ir.CmpP(op="==", left=field("corp", "corp_code"), right=ir.LitE(value="C9"))
            ),
            ir.OrP(
                operands=(
                    ir.CmpP(
                        op="<", left=ir.LitE(value=dt.date(2024, 1, 1)), right=ir.LitE(value=D)
                    ),
                    ir.CmpP(op="!=", left=ir.LitE(value=1), right=ir.LitE(value=1)),
                )
            ),
        )
    )
    t = traj(
        "pred",
        call("corp", T_CORP, lit("corp_name", "solo")),
        ir.IfIR(
            id="if1",
            cond=cond,
            then=(call("x", T_CORP, lit("corp_name", "group")),),
            orelse=(call("x", T_CORP, lit("corp_name", "none")),),
            binds=("x",),
        ),
        answer=ir.AnswerIR(expr=ir.CountE(source="x")),
    )
    res = go(t)
    assert res.ok and res.answer == 3 and res.trace.step("if1").branch == "then"


def test_answer_field_with_several_values_in_arithmetic_is_r507() -> None:
    steps = latest_filing().steps
    t = traj(
        "bad",
        *steps,
        answer=ir.AnswerIR(
            expr=ir.BinE(op="+", left=field("filings", "amount", INT), right=ir.LitE(value=1))
        ),
    )
    res = go(t)
    assert [d.code for d in res.diagnostics] == ["R507"]
    assert any("drv" in h for h in res.diagnostics[0].hints)


def test_say_errors_are_r508() -> None:
    t = latest_filing()
    t = ir.TrajectoryIR(
        name=t.name,
        query=t.query,
        steps=t.steps,
        relations=t.relations,
        answer=t.answer,
        say="{{ nonexistent }}",
        span=t.span,
    )
    res = go(t)
    assert not res.ok and res.diagnostics[0].code == "R508"
    assert res.to_json()["diagnostics"][0]["code"] == "R508"


@pytest.mark.parametrize(
    ("name", "code", "kind"), [("boom", "R503", "structural"), ("down", "R504", "environmental")]
)
def test_tool_exceptions_are_classified(name, code, kind) -> None:
    t = traj(
        "fail",
        call("corp", T_CORP, lit("corp_name", name), line=7),
        answer=ir.AnswerIR(expr=ir.CountE(source="corp")),
    )
    res = go(t, secrets={"demo": "SEKRET-XYZ"})
    (d,) = res.diagnostics
    assert d.code == code and d.span.line == 7
    assert res.trace.step("corp").failure.kind == kind
    assert "SEKRET-XYZ" not in orjson.dumps([x.to_json() for x in res.diagnostics]).decode()


def test_secret_is_redacted_in_trace() -> None:
    res = go(latest_filing(), secrets={"demo": "SEKRET-XYZ"})
    assert res.ok
    blob = res.trace.model_dump_json()
    assert "SEKRET-XYZ" not in blob
    assert all(c.args.get("api_key") in (None, "***") for s in res.trace.steps for c in s.calls)


def test_missing_tool_is_reported_before_running() -> None:
    res = go(latest_filing(), tools={"demo.corp": TOOLS["demo.corp"]})
    assert not res.ok and [d.code for d in res.diagnostics] == ["E403"]
    assert "demo.filings" in res.diagnostics[0].message and res.trace.steps == []


def test_run_plan_runs_every_trajectory() -> None:
    plan = compile_program(program(latest_filing(), _if(5)))
    results = run_plan_sync(plan, PythonBackend(TOOLS))
    assert [(r.trajectory, r.ok) for r in results] == [("latest_filing", True), ("cond", True)]


def test_load_python_tools(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("def f(x):\n    return {'x': x}\nTOOLS = {'demo.f': f}\n")
    assert list(load_python_tools(good)) == ["demo.f"]
    (tmp_path / "none.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="defines no TOOLS"):
        load_python_tools(tmp_path / "none.py")
    (tmp_path / "lst.py").write_text("TOOLS = [1]\n")
    with pytest.raises(ValueError, match="must be a dict"):
        load_python_tools(tmp_path / "lst.py")


def test_strange_relation_and_field_names_are_quoted() -> None:
    weird = 'x"; drop table corp; --'
    t = traj(
        "weird",
        call(weird, T_CORP, lit("corp_name", "solo")),
        answer=ir.AnswerIR(expr=field(weird, "corp_name", STR)),
    )
    res = go(t)
    assert res.ok and res.answer == "Solo"


def test_a_step_starts_when_its_inputs_are_ready_not_its_whole_layer() -> None:
    """``later`` (layer 1) reads only ``fast``; ``slow`` (layer 0) waits until ``later`` has
    run. Layer by layer, ``slow`` would wait out its 10 s deadline and report it; step by step
    ``later`` starts as soon as ``fast`` has finished and releases it. The trace keeps layer
    order."""
    released: list[bool] = []
    gate: dict[str, asyncio.Event] = {}

    async def corp(corp_name: str, api_key: str | None = None) -> list[dict[str, object]]:
        if corp_name == "slow":
            ev = gate.setdefault("ev", asyncio.Event())
            try:
                await asyncio.wait_for(ev.wait(), 10.0)
                released.append(True)
            except TimeoutError:
                released.append(False)
        return [{"corp_code": "C1", "corp_name": corp_name, "stock_code": "000001"}]

    async def price(code: str, day: dt.date, api_key: str | None = None) -> dict[str, object]:
        gate.setdefault("ev", asyncio.Event()).set()
        return {"code": code, "day": day.isoformat(), "close": 1.5, "volume": 3}

    t = traj(
        "dataflow",
        call("fast", T_CORP, lit("corp_name", "fast")),
        call("slow", T_CORP, lit("corp_name", "slow"), line=2),
        call("later", T_PRICE, junc("code", "seq", "fast", "corp_code", CORP_CODE),
             lit("day", D, DATE), line=3),
        answer=answer(close=field("later", "close", FLOAT), slow=field("slow", "corp_name")),
    )
    plan = compile_program(program(t))
    assert plan.trajectories[0].layers == [["fast", "slow"], ["later"]]
    res = go(t, {**TOOLS, "demo.corp": corp, "demo.price": price})
    assert res.ok, res.diagnostics
    assert released == [True]
    assert res.answer == {"close": 1.5, "slow": "slow"}
    assert [s.id for s in res.trace.steps] == ["fast", "slow", "later"]


def test_a_failure_stops_later_layers_and_raises_the_lowest_layers_error() -> None:
    """``boom`` fails in layer 0: nothing above layer 0 that needs it runs, and the run
    reports ``boom``'s failure (as layer-by-layer execution does)."""
    t = traj(
        "fails",
        call("ok", T_CORP, lit("corp_name", "solo")),
        call("bad", T_CORP, lit("corp_name", "boom"), line=2),
        call("later", T_PRICE, junc("code", "seq", "bad", "corp_code", CORP_CODE),
             lit("day", D, DATE), line=3),
        answer=answer(n=field("later", "close", FLOAT)),
    )
    res = go(t)
    assert not res.ok
    assert [d.code for d in res.diagnostics] == ["R503"]
    assert "later" not in [s.id for s in res.trace.steps]
