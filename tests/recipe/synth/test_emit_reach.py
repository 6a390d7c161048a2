"""A synthesized file ``use``s the *module* declaring each platform it calls: platform ``tago``
lives in module ``bus`` and ``mois`` in ``region``, so a file writing ``use tago`` did not
compile and no bus or region trajectory was ever synthesized (issue 18 §2, reach)."""

from __future__ import annotations

import asyncio
import random

from edgedsl import api
from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.engine import Engine, emit_module
from edgedsl.runtime.http import make_world_backend
from edgedsl.syntax import nodes as n


def _traj(platform: str, tool: str) -> n.Trajectory:
    call = n.Call(platform=platform, tool=tool, args=(), pages=1)
    return n.Trajectory(name="t", query="q", body=(
        n.Binding(name="x", node=call),
        n.AnswerStmt(expr=n.FuncCall(name="count", args=(n.NameExpr(name="x"),))),
    ))


def test_the_use_names_the_declaring_module() -> None:
    catalog = load_catalog(["bus", "region", "neis"])
    assert catalog.platforms["tago"].module == "bus"
    assert catalog.platforms["mois"].module == "region"
    text = emit_module(_traj("tago", "cities"), catalog=catalog)
    assert text.startswith("use bus\n")
    assert api.compile(text).trajectories[0].name == "t"  # it compiles
    assert emit_module(_traj("neis", "schools"), catalog=catalog).startswith("use neis\n")


def test_bus_and_region_roots_run_in_the_engine() -> None:
    graph = load_graph(default_graph_path())
    catalog = load_catalog(graph.catalog.modules, [])
    eng = Engine(graph, catalog, make_world_backend(seed=1))

    async def rows(tool: str) -> int:
        d = await eng.root(tool, random.Random(0))
        return 0 if d is None else len(d.rows)

    for tool in ("tago.cities", "mois.getStanReginCdList"):
        assert tool in eng.roots()
        assert asyncio.run(rows(tool)) > 0, tool


def test_drafts_start_on_every_platform_alike() -> None:
    """Roots are drawn platform first: drawn among all roots at once, DART's 19 roots started
    ten times as many drafts as the region's 3 or Seoul's 2 (a corpus of 200 had 3 region and
    2 Seoul tasks)."""
    from collections import Counter

    from edgedsl.recipe.synth.chains import start

    graph = load_graph(default_graph_path())
    catalog = load_catalog(graph.catalog.modules, [])
    eng = Engine(graph, catalog, make_world_backend(seed=1))
    groups = eng.roots_by_platform()
    assert set(groups) == {"assembly", "bus", "dart", "ex", "fsc", "law", "nec", "neis",
                           "region", "seoul"}  # the ten platforms; std starts nothing
    assert sorted(t for ts in groups.values() for t in ts) == sorted(
        t for t in eng.roots() if not t.startswith("std."))
    drawn: Counter[str] = Counter()

    async def never(tool: str, rng: random.Random, *,
                    few: bool = False) -> None:  # record the draw, run nothing
        drawn[catalog.platforms[tool.partition(".")[0]].module] += 1

    eng.root = never  # type: ignore[method-assign,assignment]
    for seed in range(400):
        assert asyncio.run(start(eng, random.Random(seed))) is None
    # a start whose root fails tries every other root of the same platform before drawing a
    # platform again: each of its 4 draws of a platform calls all of that platform's roots
    assert all(drawn[p] % len(groups[p]) == 0 for p in groups), drawn
    starts = {p: drawn[p] // len(groups[p]) for p in groups}
    total = sum(starts.values())
    assert total == 1600
    assert all(0.06 <= starts[p] / total <= 0.14 for p in groups), starts
