"""Emission, judging and refinement over tg.edge on the python backend, where every edge's
fate is known: detail succeeds, broken fails structurally, flaky environmentally, empty
returns nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from edgedsl.api import compile as compile_source
from edgedsl.api import parse
from edgedsl.core.source import Source
from edgedsl.recipe.graph.beta import Evidence, PruneRule
from edgedsl.recipe.graph.model import Binding, graph_to_json, load_graph
from edgedsl.recipe.graph.observe import ValuePool
from edgedsl.recipe.graph.probe import probe
from edgedsl.recipe.graph.refine import RefineConfig, Refiner, emitter_for, refine
from edgedsl.recipe.graph.rollout import PathSpec, Step, run_paths
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax.printer import format_module
from tests.recipe.graph.graph_tools import TOOLS, catalog, graph

CAT = catalog()


def backend() -> PythonBackend:
    return PythonBackend(TOOLS)


def run(paths: list[PathSpec]):  # type: ignore[no-untyped-def]
    return asyncio.run(run_paths(paths, emitter_for(graph(), CAT), backend()))


CODE = (Binding(field="code", param="code"),)


def test_a_path_is_emitted_formatted_and_compiles() -> None:
    em = emitter_for(graph(), CAT)
    path = PathSpec((Step("tg.items"), Step("tg.detail", bindings=CODE),
                     Step("tg.by_owner", (("year", 2024),), (Binding(field="owner",
                                                                     param="owner"),))))
    src = em.source([em.trajectory(path, "p0")], "<t>")
    assert src.text == format_module(parse(src))  # already in the canonical layout
    assert "h1 = drv s0 | most_frequent code" in src.text
    assert "s2 = tg.by_owner(owner: seq h2.owner, year: 2024)" in src.text
    plan = compile_source(src, search_paths=em.search_paths)
    assert [t.name for t in plan.trajectories] == ["p0"]


def test_outcomes_per_edge() -> None:
    ok, broken, flaky, empty = run([
        PathSpec((Step("tg.items"), Step("tg.detail", bindings=CODE))),
        PathSpec((Step("tg.items"), Step("tg.broken", bindings=CODE))),
        PathSpec((Step("tg.items"), Step("tg.flaky", bindings=CODE))),
        PathSpec((Step("tg.items"), Step("tg.empty", bindings=CODE),
                  Step("tg.detail", bindings=CODE))),
    ])
    assert ok.passed and ok.steps == ok.steps_ok == 2
    assert [e.outcome for e in ok.edges] == ["success"]
    assert not broken.passed and [e.outcome for e in broken.edges] == ["structural"]
    assert [e.outcome for e in flaky.edges] == ["environmental"] and flaky.environmental == 1
    # the empty step fails its edge; the edge after it is never tried
    assert [(e.edge, e.outcome) for e in empty.edges] == [(("tg.items", "tg.empty"),
                                                           "structural")]
    assert empty.steps == 2 and empty.steps_ok == 1


def test_a_path_that_does_not_check_fails_its_edge_statically() -> None:
    # an Item's `size` (int) bound to a Code parameter: a type error, caught before any call
    bad = PathSpec((Step("tg.items"),
                    Step("tg.broken", bindings=(Binding(field="size", param="code"),))))
    good = PathSpec((Step("tg.items"), Step("tg.detail", bindings=CODE)))
    out_bad, out_good = run([bad, good])
    assert out_good.passed  # the batch fell back to one module per path
    assert [(e.edge, e.outcome) for e in out_bad.edges] == [(("tg.items", "tg.broken"),
                                                             "structural")]
    assert out_bad.code.startswith("E")


def _cfg(iterations: int, **kw: object) -> RefineConfig:
    return RefineConfig(iterations=iterations, paths=8, seed=3, min_iterations=iterations,
                        epsilon=0.3, **kw)  # type: ignore[arg-type]


def _refined(iterations: int = 12, **kw: object) -> object:
    return asyncio.run(refine(graph(), CAT, backend(), _cfg(iterations, **kw)))


def test_refinement_prunes_failing_edges_and_keeps_working_ones() -> None:
    g = _refined(20)
    kept = {e.key: e for e in g.edges}
    pruned = {e.key: e for e in g.pruned}
    assert ("tg.items", "tg.broken") in pruned
    assert ("tg.items", "tg.empty") in pruned
    assert ("tg.items", "tg.detail") in kept and kept[("tg.items", "tg.detail")].successes > 0
    flaky = kept[("tg.items", "tg.flaky")]  # environmental failures are no evidence
    assert flaky.failures.environmental > 0 and flaky.failures.structural == 0
    assert flaky.beta == pytest.approx(2.0 * 0.4)
    bad = pruned[("tg.items", "tg.broken")]
    assert bad.successes == 0 and bad.trials >= 3 and "P(p > 0.3)" in bad.reason
    assert g.stage == "refined" and len(g.iterations) == 20
    # defaults observed during refinement are written into G*: by_owner's year
    assert 2024 in g.tool("tg.by_owner").defaults["year"]


def test_weak_environmental_evidence_is_configurable() -> None:
    g = _refined(20, evidence=Evidence(environmental=1.0), prune=PruneRule(n_min=3))
    assert ("tg.items", "tg.flaky") in {e.key for e in g.pruned}


def test_refinement_is_reproducible_from_its_seed() -> None:
    a = graph_to_json(_refined(6))  # type: ignore[arg-type]
    b = graph_to_json(_refined(6))  # type: ignore[arg-type]
    assert a == b


def test_an_interrupted_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    full = _refined(8)
    ckpt = tmp_path / "g.ckpt"
    cfg = _cfg(8)
    r = Refiner(graph(), CAT, backend(), cfg, checkpoint=ckpt)

    async def interrupted() -> None:
        for _ in range(3):
            await r.step()
            r.save_checkpoint()

    asyncio.run(interrupted())
    assert orjson.loads(ckpt.read_bytes())["iteration"] == 3
    resumed = asyncio.run(refine(graph(), CAT, backend(), cfg, checkpoint=ckpt))
    assert graph_to_json(resumed) == graph_to_json(full)  # type: ignore[arg-type]


def test_convergence_stops_early() -> None:
    cfg = RefineConfig(iterations=200, paths=8, seed=1, window=3, min_iterations=6,
                       tolerance=1.0)
    g = asyncio.run(refine(graph(), CAT, backend(), cfg))
    assert len(g.iterations) < 200 and g.config["stopped"] == "converged"


def test_directed_paths_try_every_reachable_edge_the_minimum_number_of_times() -> None:
    # a strong prior for items → detail: Thompson sampling alone keeps choosing it; the
    # directed paths aim at the least-tried reachable edges until each has min_trials
    # informative trials, is pruned, or was aimed at give_up times without a verdict (flaky:
    # environmental failures are no evidence)
    cfg = RefineConfig(iterations=8, paths=8, seed=5, epsilon=0.0, min_trials=3, directed=0.5,
                       give_up=4)
    g = asyncio.run(refine(graph(score=0.9), CAT, backend(), cfg))
    informative = {e.key: e.successes + e.failures.structural for e in g.edges}
    assert {k for k, n in informative.items() if n < 3} == {("tg.items", "tg.flaky")}
    assert g.config["below_min_trials"] == 0 and g.config["given_up"] == 1
    assert {("tg.items", "tg.broken"), ("tg.items", "tg.empty")} <= {e.key for e in g.pruned}


def test_convergence_waits_for_every_reachable_edge_to_be_judged() -> None:
    # the same stable pass rate as test_convergence_stops_early, but no directed paths and a
    # minimum no edge reaches: refinement runs to its budget and says so
    cfg = RefineConfig(iterations=12, paths=8, seed=1, window=3, min_iterations=6,
                       tolerance=1.0, directed=0.0, min_trials=1000)
    g = asyncio.run(refine(graph(), CAT, backend(), cfg))
    assert len(g.iterations) == 12 and g.config["stopped"] == "iterations"
    assert g.config["below_min_trials"] == len(g.edges) and g.config["unreachable"] == 0


def test_probe_seeds_defaults_in_rounds() -> None:
    pool = ValuePool()
    rep = asyncio.run(probe(graph(), CAT, backend(), pool))
    # round 1: items and kinds (no or enum parameters); then the code-taking tools
    assert rep.rounds >= 2
    assert {"tg.items", "tg.kinds", "tg.detail"} <= set(rep.answered)
    assert "tg.broken" in rep.failed and "tg.flaky" in rep.failed
    assert rep.uncallable == []  # by_owner: owner seen in detail's records, year from dates


def test_graph_file_round_trip_and_errors(tmp_path: Path) -> None:
    from edgedsl.recipe.graph.model import GraphFileError, save_graph

    g = _refined(4)
    p = tmp_path / "g.json"
    save_graph(g, p)  # type: ignore[arg-type]
    assert load_graph(p) == g
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(GraphFileError, match="not valid JSON"):
        load_graph(p)
    p.write_bytes(orjson.dumps({"version": 99}))
    with pytest.raises(GraphFileError, match="version 99"):
        load_graph(p)
    p.write_bytes(orjson.dumps({"version": 1, "tools": 3}))
    with pytest.raises(GraphFileError, match="schema"):
        load_graph(p)
    with pytest.raises(GraphFileError, match="cannot read"):
        load_graph(tmp_path / "missing.json")


def test_source_text_never_built_by_concatenation() -> None:
    # a hostile default (quotes, braces, newline) is written through the formatter's quoting
    em = emitter_for(graph(), CAT)
    path = PathSpec((Step("tg.detail", (("code", "A001"),)),
                     Step("tg.by_owner", (("year", 2024),),
                          (Binding(field="owner", param="owner"),))))
    hostile = PathSpec((Step("tg.kinds", (("kind", "A"),)),
                        Step("tg.detail", bindings=CODE)))
    src = em.source([em.trajectory(path, "a"), em.trajectory(hostile, "b")], "<t>")
    assert parse(Source("<t>", src.text)) == parse(src)


def test_a_graph_on_some_platforms_keeps_their_tools_and_the_edges_between_them() -> None:
    from edgedsl.recipe.graph.evidence import default_graph_path
    from edgedsl.recipe.graph.model import load_graph

    g = load_graph(default_graph_path())
    sub = g.on_platforms(["neis", "nec"])
    assert sub.catalog.modules == ["neis", "nec"]
    assert {t.name.partition(".")[0] for t in sub.tools} == {"neis", "nec"}
    inside = {(e.source, e.target) for e in g.edges
              if {e.source.split(".")[0], e.target.split(".")[0]} <= {"neis", "nec"}}
    assert {(e.source, e.target) for e in sub.edges} == inside and inside
    assert all({e.source.split(".")[0], e.target.split(".")[0]} <= {"neis", "nec"}
               for e in sub.pruned)
    assert len(g.tools) > len(sub.tools)  # the original is left as it was
    with pytest.raises(ValueError, match="no tool of platform nowhere"):
        g.on_platforms(["neis", "nowhere"])
