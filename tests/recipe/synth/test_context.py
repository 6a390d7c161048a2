"""A chain keeps its context (:meth:`~edgedsl.recipe.synth.engine.Engine.context`): a parameter
no hand-off fills takes the value an earlier call of the draft was given for a parameter of the
same code type (or of the same name on the same platform) — the literal or the ``seq``
reference — instead of a default drawn afresh. TAGO's route ids belong to one city; with a
``cityCode`` drawn again, the route's stops and details came back empty (seed 1: 25 of 30
runs of ``tago.routes``' out-edges)."""

from __future__ import annotations

import asyncio
import random

import pytest

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.engine import Draft, Engine
from edgedsl.recipe.synth.roots import internal_args, probe
from edgedsl.runtime.http import make_world_backend
from edgedsl.syntax import nodes as n


@pytest.fixture(scope="module")
def eng() -> Engine:
    """An engine over the shipped G* and the world (seed 1)."""
    graph = load_graph(default_graph_path())
    return Engine(graph, load_catalog(graph.catalog.modules, []), make_world_backend(seed=1))


def _city(stmt: n.Stmt) -> n.ArgValue:
    """The ``cityCode`` argument of the call a binding statement makes."""
    assert isinstance(stmt, n.Binding) and isinstance(stmt.node, n.Call)
    return next(a.value for a in stmt.node.args if a.name == "cityCode")


def test_a_route_is_followed_in_the_city_it_was_listed_in(eng: Engine) -> None:
    """From a list of one city's routes, the route's stops and details are asked in that city,
    and the world answers them."""
    # a list of routes is called with a city code, which a question cannot state (the
    # roots of synthesis never start there: roots.internal_args), so the draft is made from
    # a probed call directly
    probed = asyncio.run(probe(eng, "tago.routes"))
    assert probed and all(internal_args(eng, "tago.routes", p.args) for p in probed)
    root = asyncio.run(eng.root_draft("tago.routes", probed[0]))
    assert root is not None
    city = _city(root.body[-1])
    assert isinstance(city, n.StringLit)
    assert eng.context(root, "tago.route_stops") == {"cityCode": city}
    for target in ("tago.route_stops", "tago.route_info"):
        edge = next(e for e in eng.out["tago.routes"] if e.target == target)
        for seed in range(3):  # every draw of the other defaults keeps the city
            rng = random.Random(seed)
            jp = eng.junction(root, edge, rng, prefer="seq")
            assert jp is not None
            grown = asyncio.run(eng.follow(root, edge, jp, rng))
            assert grown is not None, (target, seed)  # the world answered with records
            assert _city(grown.body[-1]) == city


def _draft(*calls: tuple[str, str, tuple[n.Arg, ...]]) -> Draft:
    body = tuple(n.Binding(name=name, node=n.Call(platform=tool.partition(".")[0],
                                                  tool=tool.partition(".")[2], args=args))
                 for name, tool, args in calls)
    last, tool, _ = calls[-1]
    return Draft(body=body, last=last, last_tool=tool, rows=({},),
                 tools=tuple(t for _, t, _ in calls))


def _seq(*parts: str) -> n.SeqArg:
    return n.SeqArg(ref=n.Ref(parts=parts))


def test_a_reference_is_carried_and_a_fan_is_not(eng: Engine) -> None:
    """A city handed on by a ``seq`` reference is carried as that reference; one handed as a
    ``fan`` names several cities and is not; a value of another code type is not either."""
    near = ("near", "tago.stops_near", (n.Arg(name="gpsLati", value=n.NumberLit(value=36.6)),
                                         n.Arg(name="gpsLong", value=n.NumberLit(value=127.4))))
    by_ref = _draft(near, ("arr", "tago.arrivals", (
        n.Arg(name="cityCode", value=_seq("near", "citycode")),
        n.Arg(name="nodeId", value=n.FanArg(ref=n.Ref(parts=("near", "nodeid")))))))
    assert eng.context(by_ref, "tago.route_stops") == {"cityCode": _seq("near", "citycode")}
    by_fan = _draft(near, ("arr", "tago.arrivals", (
        n.Arg(name="cityCode", value=n.FanArg(ref=n.Ref(parts=("near", "citycode")))),
        n.Arg(name="nodeId", value=_seq("near", "nodeid")))))
    assert "cityCode" not in eng.context(by_fan, "tago.route_stops")
    # a node id is no route id: nothing of tago.arrivals' nodeId reaches routeId
    assert "routeId" not in eng.context(by_ref, "tago.route_stops")


def test_refinement_paths_keep_their_context(eng: Engine) -> None:
    """Refinement and the report fill a path's next call the way synthesis does
    (:meth:`ArgChooser.path_args`): the city the routes were listed in reaches the route's
    stops, a later literal does not replace the first, and a code of another type is no
    context (before, a city drawn afresh left TAGO's route edges pruned)."""
    earlier = [("tago.routes", (("cityCode", "31010"),)),
               ("tago.stops_near", (("gpsLati", 36.6), ("gpsLong", 127.4)))]
    assert eng.args.context(earlier, "tago.route_stops") == {"cityCode": "31010"}
    later = [*earlier, ("tago.cities", (("cityCode", "22"),))]
    assert eng.args.context(later, "tago.route_stops") == {"cityCode": "31010"}
    assert eng.args.context([("nec.winners", (("sgId", "20240410"),))],
                            "tago.route_stops") == {}
    edge = next(e for e in [*eng.graph.edges, *eng.graph.pruned]
                if e.key == ("tago.routes", "tago.route_stops"))
    assert "cityCode" not in {b.param for b in edge.bindings}
    for seed in range(3):
        args = dict(eng.args.path_args(edge, random.Random(seed), earlier))
        assert args["cityCode"] == "31010"
