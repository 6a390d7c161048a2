"""The report: bootstrap intervals, fresh executions per edge set, the table and the plot."""

from __future__ import annotations

import asyncio
import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.graph.refine import RefineConfig, refine
from edgedsl.recipe.graph.report import (
    IterationRow,
    bootstrap_ci,
    evaluate,
    graph_report,
    plot_svg,
    render_report,
)
from edgedsl.recipe.graph.show import neighbourhood, render_neighbourhood
from edgedsl.runtime.python_backend import PythonBackend
from tests.recipe.graph.graph_tools import TOOLS, catalog, graph

CAT = catalog()


@pytest.fixture(scope="module")
def gstar():  # type: ignore[no-untyped-def]
    cfg = RefineConfig(iterations=25, paths=8, seed=3, min_iterations=25, epsilon=0.3)
    g = asyncio.run(refine(graph(), CAT, PythonBackend(TOOLS), cfg))
    assert {e.key for e in g.pruned} == {("tg.items", "tg.broken"), ("tg.items", "tg.empty")}
    return g


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5)).filter(lambda t: t[0] <= t[1]),
                min_size=1, max_size=30), st.integers(0, 10))
def test_bootstrap_interval_contains_the_rate(per_edge: list[tuple[int, int]], seed: int) -> None:
    rate, lo, hi = bootstrap_ci(per_edge, samples=200, seed=seed)
    assert rate is not None and lo is not None and hi is not None
    assert 0.0 <= lo <= hi <= 1.0
    assert lo - 1e-9 <= rate <= hi + 1e-9 or len(per_edge) == 1
    assert rate == sum(s for s, _ in per_edge) / sum(n for _, n in per_edge)


def test_bootstrap_interval_narrows_with_more_edges() -> None:
    rng = random.Random(0)
    few = [(int(rng.random() < 0.5), 1) for _ in range(20)]
    many = [(int(rng.random() < 0.5), 1) for _ in range(2000)]
    _, lo1, hi1 = bootstrap_ci(few, samples=500)
    _, lo2, hi2 = bootstrap_ci(many, samples=500)
    assert (hi2 - lo2) < (hi1 - lo1)
    assert bootstrap_ci([]) == (None, None, None)


def test_fresh_executions_reach_edges_through_prefixes(gstar) -> None:  # type: ignore[no-untyped-def]
    edges = {e.key: e for e in [*gstar.edges]}
    out = asyncio.run(evaluate(gstar, CAT, PythonBackend(TOOLS),
                               [edges[("tg.detail", "tg.by_owner")],
                                edges[("tg.items", "tg.flaky")]], runs=2))
    # detail is no root (it needs a code): reached through items → detail
    assert out[("tg.detail", "tg.by_owner")] == ["success", "success"]
    assert out[("tg.items", "tg.flaky")] == ["environmental", "environmental"]


def test_report_separates_the_edge_sets(gstar) -> None:  # type: ignore[no-untyped-def]
    rep = asyncio.run(graph_report(gstar, CAT, PythonBackend(TOOLS), runs=2, samples=200))
    rates = {s.name: s for s in rep.sets}
    assert rates["gstar"].rate == 1.0  # kept edges all work (flaky does not count)
    assert rates["pruned"].rate == 0.0
    assert rates["gstar"].rate > rates["skeleton"].rate > rates["pruned"].rate
    assert rep.environmental >= 2 and rep.pruned_never_succeeded == 1.0
    text = render_report(rep)
    assert "skeleton" in text and "62.7%" in text and "per iteration" in text
    assert rep.model_validate_json(rep.model_dump_json()) == rep
    # which stopping rule fired, from G*'s config (25 iterations: the budget)
    assert rep.stopped == "iterations" and rep.iterations_run == 25
    assert "refinement stopped after 25 iterations: its iteration budget ran out" in text
    assert rep.below_min_trials == gstar.config["below_min_trials"]
    assert rep.given_up == gstar.config["given_up"] and "given up on" in text


def test_plot_is_an_svg_with_both_series() -> None:
    rows = [IterationRow(iteration=i, paths=8, pass_rate=i / 10, step_rate=0.5 + i / 20,
                         pruned=0, edges=7) for i in range(1, 11)]
    svg = plot_svg(rows, title="<t> & co")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    lines = [e for e in root.iter() if e.tag.endswith("polyline")]
    assert len(lines) == 2 and all(len(e.get("points", "").split()) == 10 for e in lines)
    assert "&lt;t&gt; &amp; co" in svg  # the title is escaped
    ET.fromstring(plot_svg(rows[:1]))  # one iteration still draws


def test_show_lists_the_neighbourhood(gstar) -> None:  # type: ignore[no-untyped-def]
    view = neighbourhood(gstar, "tg.items")
    assert {e["tool"] for e in view["out"]} >= {"tg.detail"}
    assert {e["tool"] for e in view["pruned_out"]} >= {"tg.broken", "tg.empty"}
    text = render_neighbourhood(view)
    assert "code → code" in text and "pruned at iteration" in text
    with pytest.raises(KeyError):
        neighbourhood(gstar, "tg.nope")
