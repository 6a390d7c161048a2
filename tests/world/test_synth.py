"""The scale catalog: thousands of generated tools, served by the generic engine."""

from __future__ import annotations

import orjson
import pytest

from edgedsl.api import check, compile
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World
from edgedsl.world.synth import synthetic_catalog

TRAJECTORY = """
trajectory chain "합성 체인: 첫 도구의 가장 큰 항목 → 다음 도구"
{
  a = synth3.op0()
  top = drv a | max amount
  b = synth3.op1(inCode: seq top.outCode)
  answer count(b)
}
"""


@pytest.fixture(scope="module")
def catalog():
    return synthetic_catalog(2318)


def test_size_and_declarations(catalog) -> None:
    assert catalog.tools == 2318
    assert len(catalog.ENDPOINTS) == 2318
    assert len({(e.platform, e.tool) for e in catalog.ENDPOINTS}) == 2318
    assert catalog.source.count("\n  tool ") == 2318


def test_catalog_type_checks(catalog) -> None:
    res = check(catalog.source + TRAJECTORY)
    assert [t.name for t in res.program.trajectories] == ["chain"]


def test_world_serves_every_dialect(catalog) -> None:
    w = World(seed=0, modules=[catalog])
    hub = orjson.loads(w.call("GET", "/synth3/op1", {"serviceKey": "k", "Type": "json",
                                                    "inCode": "12345678"}).body)
    assert hub["op1"][1]["row"][0]["inCode"] == "12345678"
    gokr = orjson.loads(w.call("GET", "/synth2/op0", {"serviceKey": "k",
                                                     "resultType": "json"}).body)
    assert gokr["response"]["header"]["resultCode"] == "00"
    assert len(gokr["response"]["body"]["items"]["item"]) == 10
    # deterministic: another world with the same seed answers byte for byte the same
    w2 = World(seed=0, modules=[catalog])
    assert w2.call("GET", "/synth3/op1", {"serviceKey": "k", "Type": "json",
                                          "inCode": "12345678"}).body == \
        w.call("GET", "/synth3/op1", {"serviceKey": "k", "Type": "json",
                                      "inCode": "12345678"}).body


def test_trajectory_runs_on_the_world(catalog) -> None:
    plan = compile(catalog.source + TRAJECTORY)
    backend = make_world_backend(world=World(seed=0, modules=[catalog]))
    (res,) = run_plan_sync(plan, backend)
    assert res.ok, res.diagnostics
    # recompute by hand: the largest amount of op0's first page, then op1's rows for it
    w = World(seed=0, modules=[catalog])
    first = orjson.loads(w.call("GET", "/synth3/op0", {"serviceKey": "k", "Type": "json",
                                                      "pSize": "1000"}).body)["op0"][1]["row"]
    top = max(first, key=lambda r: int(r["amount"].replace(",", "")))
    second = orjson.loads(w.call("GET", "/synth3/op1", {
        "serviceKey": "k", "Type": "json", "inCode": top["outCode"], "pSize": "1000"}).body)
    assert res.answer == len(second["op1"][1]["row"])
