"""A rollout never judges an edge through a ``most_frequent`` tie (issue 18 §4): a tied hand-off
whose target returned nothing is judged again through a fan of values the source produced
(edgedsl.recipe.graph.handoff, edgedsl.recipe.graph.rollout)."""

from __future__ import annotations

import asyncio

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.handoff import arg_value, fan_values
from edgedsl.recipe.graph.model import Binding, ToolNode
from edgedsl.recipe.graph.refine import emitter_for
from edgedsl.recipe.graph.rollout import Emitter, PathOutcome, PathSpec, Step, run_paths
from edgedsl.recipe.graph.signature import tool_node
from edgedsl.runtime.backends import make_backend
from edgedsl.runtime.executor import run_trajectory
from edgedsl.runtime.python_backend import PythonBackend
from tests.recipe.graph.graph_tools import DETAIL_FIELDS, ITEMS, TOOLS, catalog, graph

CAT = catalog()
CODE = [Binding(field="code", param="code")]


def _emitter() -> Emitter:
    g = graph()
    latest = ToolNode(name="tg.latest", domain="tg", params=[DETAIL_FIELDS[0]],
                      fields=DETAIL_FIELDS)
    return emitter_for(g.model_copy(update={"tools": [*g.tools, latest]}), CAT)


def _run(*paths: PathSpec) -> list[PathOutcome]:
    return asyncio.run(run_paths(list(paths), _emitter(), PythonBackend(TOOLS)))


def _path(source: str, target: str) -> PathSpec:
    return PathSpec((Step(source), Step(target, (), tuple(CODE))))


def test_the_tie_break_hands_on_the_smallest_code_and_the_trace_says_it_was_a_tie() -> None:
    em = _emitter()
    plan = em.compile([em.trajectory(_path("tg.items", "tg.latest"), "p")], "<p>")
    got = asyncio.run(run_trajectory(plan, "p", PythonBackend(TOOLS), keep=("h1",)))
    assert [r["code"] for r in got.relations["h1"]] == ["A001"]  # six codes, each once
    hand = next(s for s in got.trace.steps if s.id == "h1")  # type: ignore[union-attr]
    assert [(t.op, t.tied, t.broken) for t in hand.ties] == [("most_frequent", 6, True)]


def test_a_tied_hand_off_is_judged_through_a_fan_not_through_the_tie() -> None:
    # the tie goes to A001, for which tg.latest answers nothing; A005 (the latest) answers
    (out,) = _run(_path("tg.items", "tg.latest"))
    (edge,) = out.edges
    assert edge.edge == ("tg.items", "tg.latest") and edge.outcome == "success"
    assert edge.code == "fan" and "1 of 5 values" in edge.message
    assert not out.passed and out.steps_ok == 1  # the path's own program still failed there


def test_a_tied_hand_off_fails_when_no_value_of_the_fan_answers() -> None:
    (out,) = _run(_path("tg.items", "tg.empty"))
    (edge,) = out.edges
    assert edge.outcome == "structural" and "none of 5 values" in edge.message
    (broken,) = _run(_path("tg.items", "tg.broken"))
    assert broken.edges[0].outcome == "structural"


def test_a_hand_off_without_a_tie_is_judged_as_it_ran() -> None:
    # the tied value answered: a success; then tg.detail's one record: nothing to fan over
    (out,) = _run(PathSpec((Step("tg.items"), Step("tg.detail", (), tuple(CODE)),
                            Step("tg.empty", (), tuple(CODE)))))
    first, second = out.edges
    assert first.outcome == "success" and first.code == ""
    assert second.outcome == "structural" and "values" not in second.message


def test_fan_values_latest_first_spread_and_fitting() -> None:
    items = graph().tools[0]
    detail = graph().tools[1]
    rows = [*ITEMS, {"code": "bad", "day": "2030-01-01"}, {"code": None, "day": "2031-01-01"}]
    got = [a[0][1] for a in fan_values(rows, items, detail, CODE, CAT.code_types)]
    by_day = [r["code"] for r in sorted(ITEMS, key=lambda r: r["day"], reverse=True)]
    assert got[0] == by_day[0] == "A005" and got[-1] == by_day[-1]  # latest … oldest
    assert len(got) == 5 and len(set(got)) == 5 and set(got) <= set(by_day)
    undated = items.model_copy(update={"fields": [f for f in items.fields if f.type != "date"]})
    spread = [a[0][1] for a in fan_values(rows, undated, detail, CODE, CAT.code_types, phi=3)]
    assert spread == ["A001", "A003", "A006"]  # smallest, middle (index 2.5 → 2), largest
    assert fan_values(rows[-2:], items, detail, CODE, CAT.code_types) == []


def test_arg_value_writes_record_values_as_parameter_literals() -> None:
    assert arg_value("date", "20240301") == "2024-03-01"
    assert arg_value("int", "1,200") == 1200
    assert arg_value("enum[0, 1]", 1.0) == "1"
    assert arg_value("str", "") is None and arg_value("tg.Code", None) is None


def test_nec_elections_to_candidates_is_judged_through_elections_that_have_candidates() -> None:
    """The edge the shipped G* of d80129d pruned. Its hand-off broke two ties: two election ids
    hold seven types each (2005-04-30 won, the smaller), and the seven types are tied (the
    type ``0``, the umbrella record of an election, won) — and no candidate is registered
    under type 0. The fan reads the election list whole (three pages) and tries the latest
    (the coming 2026 지방선거: no candidates yet) down to the oldest."""
    cat = load_catalog(["nec"])
    nodes = {t.qualname: tool_node(t, "nec") for t in cat.platforms["nec"].tools.values()
             if t.qualname in ("nec.elections", "nec.candidates")}
    em = Emitter(nodes, cat.code_types, frozenset(nodes), ("nec",))
    bind = (Binding(field="sgId", param="sgId"), Binding(field="sgTypecode", param="sgTypecode"))
    path = PathSpec((Step("nec.elections"), Step("nec.candidates", (), bind)))
    world = make_backend("world", seed=0)
    plan = em.compile([em.trajectory(path, "p")], "<p>")
    first = asyncio.run(run_trajectory(plan, "p", world, keep=("h1",)))
    assert [(r["sgId"], r["sgTypecode"]) for r in first.relations["h1"]] == [("20050430", "0")]
    hand = next(s for s in first.trace.steps if s.id == "h1")  # type: ignore[union-attr]
    assert [(t.field, t.tied, t.broken) for t in hand.ties] == [("sgId", 2, True),
                                                                 ("sgTypecode", 7, True)]
    assert first.answer == 0
    (out,) = asyncio.run(run_paths([path], em, world))
    assert out.edges[0].outcome == "success" and out.edges[0].code == "fan"
