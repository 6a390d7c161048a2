"""NESTFUL's 13 gold sequences written in edgedsl (examples/nestful/gold.edge) run on the python
backend with examples/nestful/tools.py, and each answer matches the gold answer under NESTFUL's
own comparison rule (``answers_match``: a float prediction is rounded to the gold's decimals).

The trajectories are the gold call sequences transcribed one to one (checked against gold.json
here), and the plan schedules independent calls in the same topological layer: the plan's
layers are exactly the dependency waves recorded in gold.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import check, compile, read_source, run
from edgedsl.runtime.backends import import_file, load_python_tools
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.printer import format_module

ROOT = Path(__file__).resolve().parents[1]
NESTFUL_DIR = ROOT / "examples" / "nestful"
GOLD_EDGE = NESTFUL_DIR / "gold.edge"
CATALOG_EDGE = NESTFUL_DIR / "nestful.edge"
SEQS: list[dict[str, Any]] = json.loads((NESTFUL_DIR / "gold.json").read_text())["sequences"]
BY_NAME = {s["name"]: s for s in SEQS}


def _answers_match() -> Any:
    return import_file(NESTFUL_DIR / "tools.py").answers_match


answers_match = _answers_match()


@pytest.fixture(scope="module")
def plan() -> Any:
    return compile(read_source(GOLD_EDGE))


@pytest.fixture(scope="module")
def backend() -> PythonBackend:
    return PythonBackend(load_python_tools(NESTFUL_DIR / "tools.py"))


@pytest.mark.parametrize("path", [GOLD_EDGE, CATALOG_EDGE], ids=["gold", "catalog"])
def test_files_are_formatted_and_check_clean(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_module(parse_module(read_source(path))) == text
    result = check(read_source(path))
    assert not [d for d in result.diagnostics if d.severity == "error"]


def test_catalog_declares_every_python_tool() -> None:
    tools = load_python_tools(NESTFUL_DIR / "tools.py")
    result = check(read_source(CATALOG_EDGE))
    platform = result.catalog.platforms["nestful"]
    assert {f"nestful.{t}" for t in platform.tools} == set(tools)
    assert not any(t.has_http for t in platform.tools.values())


def _literal(v: n.Literal_) -> Any:
    if isinstance(v, n.ListLit):
        return [_literal(x) for x in v.items]
    if isinstance(v, n.DictLit):
        return {k: _literal(x) for k, x in v.entries}
    return v.value


def test_gold_edge_transcribes_gold_json() -> None:
    module = parse_module(read_source(GOLD_EDGE))
    assert module.uses == ("nestful",)
    trajs = module.trajectories
    assert [t.name for t in trajs] == [s["name"] for s in SEQS]
    for t in trajs:
        seq = BY_NAME[t.name]
        assert t.query == seq["input"].replace("\n", " ").replace('"', "'")
        bindings = [s for s in t.body if isinstance(s, n.Binding)]
        assert len(bindings) == len(seq["calls"])
        for b, call in zip(bindings, seq["calls"], strict=True):
            assert b.name == call["label"]
            assert isinstance(b.node, n.Call)
            assert (b.node.platform, b.node.tool) == ("nestful", call["tool"])
            args: dict[str, Any] = {}
            for a in b.node.args:
                if isinstance(a.value, n.SeqArg):
                    ref, fld = a.value.ref.parts
                    args[a.name] = {"ref": ref, "field": fld}
                else:
                    args[a.name] = _literal(a.value)  # type: ignore[arg-type]
            assert args == call["args"]
        answer = [s for s in t.body if isinstance(s, n.AnswerStmt)]
        assert len(answer) == 1 and isinstance(answer[0].expr, n.Ref)
        assert answer[0].expr.binding == seq["final_label"]


# Two answers are `json` fields (a float 3.0, an object): they must come back as those values.
@pytest.mark.parametrize("seq", SEQS, ids=[s["name"] for s in SEQS])
def test_gold_trajectory_answers_match_gold(
    seq: dict[str, Any], plan: Any, backend: PythonBackend
) -> None:
    [result] = run(plan, backend, trajectory=seq["name"])
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    assert answers_match(result.answer, seq["gold_answer"]), (result.answer, seq["gold_answer"])


@pytest.mark.parametrize("seq", SEQS, ids=[s["name"] for s in SEQS])
def test_independent_calls_share_a_layer(seq: dict[str, Any], plan: Any) -> None:
    tp = plan.trajectory(seq["name"])
    layer_of = {step: i for i, layer in enumerate(tp.layers) for step in layer}
    calls = [c["label"] for c in seq["calls"]]
    assert set(calls) <= set(layer_of)
    # every dependency wave of gold.json is one layer of the plan, in the same order
    assert [sorted(w) for w in seq["waves"]] == [
        sorted(s for s in layer if s in calls) for layer in tp.layers if set(layer) & set(calls)
    ]
    for a, b in seq["independent_pairs"]:
        if layer_of[a] != layer_of[b]:
            # independent but at different depths: neither waits for the other
            assert a not in tp.steps[b].deps and b not in tp.steps[a].deps
    for label, deps in seq["deps"].items():
        assert sorted(tp.steps[label].deps) == sorted(deps)


def test_some_plans_run_calls_concurrently(plan: Any) -> None:
    widest = {t.name: max(len(layer) for layer in t.layers) for t in plan.trajectories}
    assert {k: v for k, v in widest.items() if v > 1} == {
        "trench_length": 2,
        "weekly_pay_split": 2,
        "day_crew_box_fraction": 3,
        "objective_test_correct_answers": 2,
        "trip_length": 2,
    }
