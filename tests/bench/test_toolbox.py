"""The toolbox: schemas, one call on the world, classified refusals, budgets, loops, and the
backend adapter that runs a gold program through it."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from edgedsl.bench.bundle import Bundle
from edgedsl.bench.gold import fresh_backend, run_gold, task_plan
from edgedsl.bench.toolbox import PAGE_ARG, Budgets, ToolBox, ToolBoxBackend
from edgedsl.runtime.executor import run_trajectory


def _box(bundle: Bundle, task: str = "two_bridges", **budgets: int) -> ToolBox:
    return ToolBox(bundle.task(task), fresh_backend("world"), Budgets(**budgets), bundle=bundle)


def test_schemas_are_the_exposed_tools_with_a_page_on_paged_ones(small_bundle: Bundle) -> None:
    box = _box(small_bundle)
    task = small_bundle.task("two_bridges")
    names = [s["function"]["name"] for s in box.schemas()]
    assert names == [q.replace(".", "__") for q in task.tools]
    assert box.schemas() == task.schemas
    by = {s["function"]["name"]: s["function"]["parameters"] for s in box.schemas()}
    assert PAGE_ARG in by["fsc__fs_summary"]["properties"]
    assert PAGE_ARG not in by["dart__company"]["properties"]
    assert set(task.gold_tools) <= set(task.tools)


def test_a_call_runs_on_the_backend_and_is_recorded(small_bundle: Bundle) -> None:
    box = _box(small_bundle)
    res = asyncio.run(box.call("dart__company", {"corp_code": "00164779"}))
    assert res.ok and res.count == 1 and res.records[0]["corp_name"] == "SK하이닉스(주)"
    rec = box.calls[0]
    assert (rec.tool, rec.ok, rec.count, rec.page, rec.write) == (
        "dart.company", True, 1, None, False)
    content = orjson.loads(res.content())
    assert content["count"] == 1 and content["records"][0]["corp_code"] == "00164779"
    # a paged tool: page 1 by default, the page read and whether more are left
    res = asyncio.run(box.call("fsc__fs_summary", '{"crno": "1101114299859", "bizYear": 2023}'))
    assert res.ok and res.page == 1 and res.has_more is False and res.total == res.count


@pytest.mark.parametrize(("name", "arguments", "kind", "message"), [
    ("dart__nope", {}, "unknown_tool", "no tool `dart__nope`"),
    ("dart__company", "{not json", "malformed_call", "not JSON"),
    ("dart__company", "[1, 2]", "malformed_call", "JSON object"),
    ("dart__company", {}, "invalid_arguments", "needs `corp_code`"),
    ("dart__company", {"corp_code": "123"}, "invalid_arguments", "code matching"),
    ("dart__company", {"corp_code": "00164779", "x": 1}, "invalid_arguments", "no parameter `x`"),
    ("dart__company", {"corp_code": "00164779", "page": 2}, "invalid_arguments", "no parameter"),
    ("fsc__fs_summary", {"crno": "1101114299859", "bizYear": "2023"}, "invalid_arguments",
     "must be an integer"),
    ("fsc__fs_summary", {"crno": "1101114299859", "page": 0}, "invalid_arguments", "≥ 1"),
])
def test_refusals_are_classified(small_bundle: Bundle, name: str, arguments: object, kind: str,
                                 message: str) -> None:
    box = _box(small_bundle)
    res = asyncio.run(box.call(name, arguments))  # type: ignore[arg-type]
    assert not res.ok and res.error is not None
    assert res.error.kind == kind and message in res.error.message
    assert box.calls[0].error == res.error and box.stopped is None
    assert orjson.loads(res.content())["error"]["kind"] == kind


def test_a_tool_failure_keeps_the_backends_classification(small_bundle: Bundle) -> None:
    faulty = fresh_backend("world", options={"faults": {"rules": [
        {"platform": "dart", "kind": "5xx"}]}})
    box = ToolBox(small_bundle.task("two_bridges"), faulty, bundle=small_bundle)
    res = asyncio.run(box.call("dart__company", {"corp_code": "00164779"}))
    assert not res.ok and res.error is not None
    assert res.error.kind == "tool_failure" and res.error.failure == "environmental"
    assert res.error.code is not None and box.stopped is None


def test_the_time_budget_cuts_a_slow_call(small_bundle: Bundle) -> None:
    slow = fresh_backend("world", options={"faults": {"rules": [
        {"platform": "dart", "kind": "latency", "latency": 5.0}]}})
    box = ToolBox(small_bundle.task("two_bridges"), slow, Budgets(seconds=0.3),
                  bundle=small_bundle)
    res = asyncio.run(box.call("dart__company", {"corp_code": "00164779"}))
    assert res.error is not None and res.error.kind == "time_budget"
    assert box.stopped == "time_budget"


def test_budgets_and_loops_stop_the_episode(small_bundle: Bundle) -> None:
    box = _box(small_bundle, calls=2)
    args = {"corp_code": "00164779"}
    assert asyncio.run(box.call("dart__company", args)).ok
    assert asyncio.run(box.call("dart__company", args)).ok
    res = asyncio.run(box.call("dart__company", args))
    assert res.error is not None and res.error.kind == "call_budget"
    assert box.stopped == "call_budget"
    box = _box(small_bundle, repeats=2)
    for _ in range(2):
        assert asyncio.run(box.call("dart__company", args)).ok
    res = asyncio.run(box.call("dart__company", {"corp_code": "00164779"}))
    assert res.error is not None and res.error.kind == "loop" and box.stopped == "loop"


def test_a_program_runs_through_the_toolbox_as_it_runs_directly(small_bundle: Bundle) -> None:
    task = small_bundle.task("rights_offering_sweep")
    direct, gold = asyncio.run(run_gold(task.program, task.trajectory, fresh_backend("world")))
    box = ToolBox(task, fresh_backend("world"), bundle=small_bundle)
    plan = task_plan(task.program)
    via = asyncio.run(run_trajectory(plan, task.trajectory, ToolBoxBackend(box)))
    assert via.ok and via.answer == direct.answer
    assert [(c.tool, c.arguments, c.page) for c in box.calls] == [
        (g.tool, g.arguments, g.page) for g in gold.calls]
