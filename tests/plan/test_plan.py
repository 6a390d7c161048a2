"""Stage `plan`: IR → Plan, JSON round trip, reload without the source, corrupt plans."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.check import ir
from edgedsl.core.diagnostics import CompileError
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import (
    PLAN_VERSION,
    CallStep,
    DrvStep,
    IfStep,
    decode_value,
    encode_value,
    load_plan,
    plan_to_json,
)
from edgedsl.reduce.answer import facts, predicate_from_json, value_from_json_data
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.registry import ReduceStep
from edgedsl.runtime import PythonBackend, run
from tests.plan_fixtures import (
    CORP_CODE,
    FILING_TYPES,
    T_CORP,
    T_FILINGS,
    TOOLS,
    call,
    drv,
    field,
    junc,
    latest_filing,
    lit,
    program,
    traj,
)


def _after_program() -> ir.ProgramIR:
    t = traj(
        "recent",
        call("corp", T_CORP, lit("corp_name", "solo")),
        call(
            "filings",
            T_FILINGS,
            junc("corp_code", "seq", "corp", "corp_code", CORP_CODE),
            pages="all",
        ),
        drv(
            "recent",
            "filings",
            FILING_TYPES,
            ReduceStep("after", "rcept_dt", dt.date(2024, 12, 10)),
            ReduceStep("ge", "amount", 2**64),
            ReduceStep("le", "amount", 10**20),
        ),
        drv(
            "late", "filings", FILING_TYPES, ReduceStep("after", "rcept_dt", dt.date(2024, 12, 10))
        ),
        answer=ir.AnswerIR(expr=field("late", "report_nm")),
    )
    return program(latest_filing(), t)


def test_plan_shape() -> None:
    plan = compile_program(_after_program())
    assert plan.version == PLAN_VERSION and plan.source_name == "demo.edge"
    assert set(plan.tools) == {"demo.corp", "demo.filings"}
    spec = plan.tools["demo.filings"]
    assert spec.secret == "api_key" and spec.base == "https://demo.example/api"
    assert spec.paging.total == "total_count" and spec.at == "list"
    assert spec.params[1].type == "date" and spec.fields["corp_code"]["code"] == "demo.CorpCode"
    tp = plan.trajectory("recent")
    assert tp.layers == [["corp"], ["filings"], ["recent", "late"]]  # independent drv nodes
    filings = tp.steps["filings"]
    assert isinstance(filings, CallStep)
    j = filings.request.junctions["corp_code"]
    assert (j.kind, j.source, j.field, j.bound) == ("seq", "corp", "corp_code", 1)
    assert filings.deps == ["corp"] and filings.request.pages == "all"
    recent = tp.steps["recent"]
    assert isinstance(recent, DrvStep) and recent.query["source"] == "filings"
    assert recent.query["filters"][0]["value"] == {"$date": "2024-12-10"}
    assert tp.steps["corp"].span.line == 1
    ans = tp.answer.fields[0]
    assert ans.type == "str" and facts(value_from_json_data(ans.query)).shape == "values"


def test_round_trip_is_equal_and_runs_without_the_source(tmp_path: Path) -> None:
    plan = compile_program(_after_program())
    data = plan_to_json(plan)
    again = load_plan(data)
    assert again == plan
    assert plan_to_json(again) == data
    path = tmp_path / "p.json"
    path.write_bytes(data)
    assert load_plan(path) == plan and load_plan(str(path)) == plan
    assert load_plan(data.decode()) == plan
    # pivots reload exactly: the bound parameters are the same Python values
    before, after = (
        plan.trajectory("recent").steps["recent"],
        again.trajectory("recent").steps["recent"],
    )
    assert isinstance(before, DrvStep) and isinstance(after, DrvStep)
    params = ReduceQuery.from_json(after.query).params()
    assert params == ReduceQuery.from_json(before.query).params()
    assert isinstance(params[0], dt.date)
    assert params[1] == 2**64
    direct = run(plan, "recent", PythonBackend(TOOLS))
    reloaded = run(again, "recent", PythonBackend(TOOLS))
    assert direct.ok and reloaded.ok
    assert reloaded.answer == direct.answer == ["감사보고서", "주요사항", "분기보고서", "정정신고"]
    assert run(again, "latest_filing", PythonBackend(TOOLS)).answer["n"] == 7


def test_if_steps_are_keyed_per_branch() -> None:
    cond = ir.ExistsP(source="corp")
    t = traj(
        "cond",
        call("corp", T_CORP, lit("corp_name", "solo")),
        ir.IfIR(
            id="if1",
            cond=cond,
            then=(
                call("x", T_CORP, lit("corp_name", "group")),
                drv("y", "x", {"corp_code": CORP_CODE}, ReduceStep("most_frequent", "corp_code")),
            ),
            orelse=(call("y", T_CORP, lit("corp_name", "none")),),
            binds=("y",),
        ),
        answer=ir.AnswerIR(expr=ir.CountE(source="y")),
    )
    tp = compile_program(program(t)).trajectory("cond")
    step = tp.steps["if1"]
    assert isinstance(step, IfStep)
    assert step.then == [["if1/then/x"], ["if1/then/y"]] and step.orelse == [["if1/else/y"]]
    assert step.deps == ["corp"] and tp.layers == [["corp"], ["if1"]]
    assert tp.steps["if1/then/y"].relation == tp.steps["if1/else/y"].relation == "y"
    assert tp.steps["if1/then/y"].deps == ["if1/then/x"]
    # the predicate is its typed query (JSON), not SQL text
    assert step.predicate.query == {"kind": "exists", "source": "corp"}
    assert facts(predicate_from_json(step.predicate.query)).reads == {"corp": ()}


@pytest.mark.parametrize(
    "data",
    [
        b"{not json",
        b"[1, 2]",
        b'{"trajectories": []}',
        b'{"version": %d, "trajectories": [{"name": 3}]}' % PLAN_VERSION,
    ],
)
def test_corrupt_plans_are_e401(data: bytes) -> None:
    with pytest.raises(CompileError) as e:
        load_plan(data)
    (d,) = e.value.diagnostics
    assert d.code == "E401" and e.value.stage == "plan"


def test_schema_violation_names_the_problem() -> None:
    raw = orjson.loads(plan_to_json(compile_program(_after_program())))
    raw["trajectories"][0]["steps"]["corp"]["kind"] = "teleport"
    with pytest.raises(CompileError) as e:
        load_plan(orjson.dumps(raw))
    assert "trajectories.0.steps.corp" in e.value.diagnostics[0].message
    raw = orjson.loads(plan_to_json(compile_program(_after_program())))
    raw["trajectories"][0]["layers"].append(["ghost"])
    with pytest.raises(CompileError, match="ghost"):
        load_plan(orjson.dumps(raw))
    # an answer's query that does not read back is refused on load, not at run time
    raw = orjson.loads(plan_to_json(compile_program(_after_program())))
    (recent,) = (t for t in raw["trajectories"] if t["name"] == "recent")
    recent["answer"]["fields"][0]["query"] = {"kind": "agg", "fn": "median", "source": "late",
                                              "field": "report_nm"}
    with pytest.raises(CompileError, match="bad answer: an aggregate is one of"):
        load_plan(orjson.dumps(raw))


def test_schema_problems_read_as_before_the_dataclasses() -> None:
    """The E401 summary names each problem as the pydantic models did (an unknown key is an
    extra input, not a keyword argument of a dataclass)."""
    raw = orjson.loads(plan_to_json(compile_program(_after_program())))
    raw["trajectories"][0]["span"]["colour"] = "red"
    del raw["trajectories"][0]["name"]
    with pytest.raises(CompileError) as e:
        load_plan(orjson.dumps(raw))
    assert e.value.diagnostics[0].message == (
        "plan does not match the schema: trajectories.0.name: Field required; "
        "trajectories.0.span.colour: Extra inputs are not permitted")
    raw["trajectories"][0]["span"] = 3
    with pytest.raises(CompileError) as e:
        load_plan(orjson.dumps(raw))
    assert e.value.diagnostics[0].message.endswith(
        "trajectories.0.span: Input should be a valid dictionary or instance of SpanInfo")


def test_other_version_is_e402() -> None:
    raw = orjson.loads(plan_to_json(compile_program(_after_program())))
    raw["version"] = 7
    with pytest.raises(CompileError) as e:
        load_plan(orjson.dumps(raw))
    (d,) = e.value.diagnostics
    assert d.code == "E402"
    assert d.message == (f"plan version 7, this edgedsl reads version {PLAN_VERSION}; "
                         "recompile the source")
    raw["version"] = 2  # before reductions were stored as typed queries
    with pytest.raises(CompileError, match=f"plan version 2, this edgedsl reads version "
                                           f"{PLAN_VERSION}"):
        load_plan(orjson.dumps(raw))
    raw["version"] = 3  # before answers and predicates were stored as typed queries
    with pytest.raises(CompileError, match=f"plan version 3, this edgedsl reads version "
                                           f"{PLAN_VERSION}"):
        load_plan(orjson.dumps(raw))


def test_a_version_5_plan_loads_as_it_is() -> None:
    """Version 6 added list arguments holding references (`lists`); a version 5 plan has
    none, so it loads unchanged but for its version."""
    plan = compile_program(_after_program())
    raw = orjson.loads(plan_to_json(plan))
    for t in raw["trajectories"]:
        for s in t["steps"].values():
            if "request" in s:
                assert s["request"].pop("lists") == {}
    raw["version"] = 5
    assert load_plan(orjson.dumps(raw)) == plan



def test_missing_plan_file_is_e401(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match="cannot read plan file"):
        load_plan(tmp_path / "nope.json")


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.dates()
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "$date", "$int", "$dict", "b"]), inner, max_size=2)
    ),
    max_leaves=8,
)


@given(_values)
def test_value_codec_round_trips_through_json(v: object) -> None:
    assert decode_value(orjson.loads(orjson.dumps(encode_value(v)))) == v


def test_each_step_kind_picks_its_model_on_load() -> None:
    """The plan is validated in one piece: each step's ``kind`` picks its model, and a ``kind``
    that names no step kind is a schema error."""
    import edgedsl

    text = (
        'platform p { record R { f: int } tool t () -> [R] }\n'
        'trajectory t "q" { a = p.t()\n b = drv a | max f\n answer b.f }\n'
    )
    plan = edgedsl.compile(text)
    loaded = load_plan(plan_to_json(plan))
    assert [type(s) for s in loaded.trajectories[0].steps.values()] == [CallStep, DrvStep]
    raw = orjson.loads(plan_to_json(plan))
    raw["trajectories"][0]["steps"]["a"]["kind"] = "loop"
    with pytest.raises(CompileError) as exc:
        load_plan(orjson.dumps(raw))
    assert exc.value.diagnostics[0].code == "E401"
