"""The scale catalog: thousands of generated tools, served by the generic engine."""

from __future__ import annotations

from collections import Counter

import orjson
import pytest

from edgedsl.api import check, compile
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World
from edgedsl.world.synth import SYSTEMS, SynthCatalog, holdings, synthetic_catalog, universe

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


# ---------------------------------------------------------------- shared code systems


def _wire(w: World, platform: str, tool: str, params: dict[str, str]) -> list[dict[str, str]]:
    """The rows of one call (first page of 1,000 or 100), [] for the family's "no data"."""
    ep = w.endpoint_for(platform, tool)
    assert ep is not None
    if ep.dialect == "hub":
        body = orjson.loads(w.call("GET", ep.path, {"serviceKey": "k", "Type": "json",
                                                    "pSize": "1000", **params}).body)
        return [] if "RESULT" in body else body[ep.service][1]["row"]
    body = orjson.loads(w.call("GET", ep.path, {"serviceKey": "k", "resultType": "json",
                                                "numOfRows": "100", **params}).body)
    items = body["response"]["body"]["items"]
    return items["item"] if items else []


def _cross_pair(cat: SynthCatalog) -> tuple[str, str, str]:
    """A tool that takes its local code and returns a shared code S, and a tool of another
    platform that takes S: (source, target, S)."""
    for src, (takes, returns) in sorted(cat.tool_codes.items()):
        if takes is not None or returns is None or src.endswith(".op0"):
            continue
        for dst, (dst_takes, _) in sorted(cat.tool_codes.items()):
            if dst_takes == returns and dst.split(".")[0] != src.split(".")[0]:
                return src, dst, returns
    raise AssertionError("no cross-platform pair")


def test_shared_systems_are_drawn_from_the_seed(catalog) -> None:
    assert synthetic_catalog(2318).source == catalog.source  # deterministic
    other = synthetic_catalog(2318, seed=1)
    assert other.shared != catalog.shared
    names = {s.type: s.names for s in SYSTEMS}
    spoken: Counter[str] = Counter()
    for platform, systems in catalog.shared.items():
        assert 1 <= len(systems) <= 3, platform
        for system, field in systems.items():
            assert field in names[system]
            spoken[system] += 1
    # real catalogs share a few systems across many platforms; here too
    assert sum(1 for n in spoken.values() if n >= 2) >= 5
    takes = sum(1 for t, _ in catalog.tool_codes.values() if t is not None)
    returns = sum(1 for _, r in catalog.tool_codes.values() if r is not None)
    assert 0 < takes < 0.25 * catalog.tools and 0 < returns < 0.5 * catalog.tools  # most local


def test_shared_code_types_are_the_standard_ones(catalog) -> None:
    res = check(catalog.source + TRAJECTORY)
    _, dst, system = _cross_pair(catalog)
    platform, tool = dst.split(".")
    (param,) = res.catalog.platforms[platform].tools[tool].params
    assert param.type.name == f"codes.{system}"


def test_a_shared_code_crosses_platforms(catalog) -> None:
    src, dst, system = _cross_pair(catalog)
    a_platform, a_tool = src.split(".")
    b_platform, b_tool = dst.split(".")
    field_a = catalog.shared[a_platform][system]
    field_b = catalog.shared[b_platform][system]
    w = World(seed=3, modules=[catalog])
    everything = set(universe(3, system))
    _, held_b = holdings(3, system, b_platform)
    accepted = refused = 0
    for code in ("12345678", "00000001"):
        for row in _wire(w, a_platform, a_tool, {"inCode": code}):
            value = row[field_a]
            assert value in everything  # one world of entities for every platform
            got = _wire(w, b_platform, b_tool, {field_b: value})
            if value in held_b:  # held by both: the hand-off is a real edge
                assert got and all(r[field_b] == value for r in got)
                accepted += 1
            else:  # another platform's entity: no data, as the services answer
                assert got == []
                refused += 1
    assert accepted > refused > 0
    # a well-shaped code of nobody is no entity either
    nobody = next((v for v in universe(4, system) if v not in everything), "Z99")
    assert _wire(w, b_platform, b_tool, {field_b: nobody}) == []
    # every platform holds most of the universe
    assert 0.6 * len(everything) < len(held_b) < len(everything)


def _pairs(cat: SynthCatalog) -> list[tuple[str, str, str]]:
    return [(src, dst, returns)
            for src, (takes, returns) in sorted(cat.tool_codes.items())
            if takes is None and returns is not None and not src.endswith(".op0")
            for dst, (dst_takes, _) in sorted(cat.tool_codes.items())
            if dst_takes == returns and dst.split(".")[0] != src.split(".")[0]]


def test_a_trajectory_hands_a_shared_code_to_another_platform(catalog) -> None:
    # by hand: the chain's values on the world, until a pair whose handed-on entity the second
    # platform holds; then the same chain as a trajectory must give the same count
    w = World(seed=0, modules=[catalog])
    for src, dst, system in _pairs(catalog)[:40]:
        a_platform, a_tool = src.split(".")
        b_platform, b_tool = dst.split(".")
        field_a = catalog.shared[a_platform][system]
        field_b = catalog.shared[b_platform][system]
        first = _wire(w, a_platform, "op0", {})
        top = max(first, key=lambda r: int(r["amount"].replace(",", "")))
        second = _wire(w, a_platform, a_tool, {"inCode": top["outCode"]})
        pick = max(second, key=lambda r: int(r["amount"].replace(",", "")))
        if pick[field_a] in holdings(0, system, b_platform)[1]:
            break
    else:
        raise AssertionError("no pair hands on an entity both platforms hold")
    expected = _wire(w, b_platform, b_tool, {field_b: pick[field_a]})
    source = catalog.source + f"""
trajectory cross "공유 코드: {a_platform}에서 {b_platform}로"
{{
  a = {a_platform}.op0()
  top = drv a | max amount
  b = {src}(inCode: seq top.outCode)
  pick = drv b | max amount
  c = {dst}({field_b}: seq pick.{field_a})
  answer count(c)
}}
"""
    backend = make_world_backend(world=World(seed=0, modules=[catalog]))
    (res,) = run_plan_sync(compile(source), backend)
    assert res.ok, res.diagnostics
    assert res.answer == len(expected) > 0
