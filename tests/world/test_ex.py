"""The 한국도로공사 world (edgedsl/world/platforms/ex.py) and its catalog (stdlib/ex.edge)."""

from __future__ import annotations

import json
import math
import re
import types
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import check, parse
from edgedsl.syntax.nodes import PlatformDecl, RecordDecl, ToolDecl
from edgedsl.world.engine import World
from edgedsl.world.platforms import ex
from edgedsl.world.rand import rng

ROOT = Path(__file__).resolve().parents[2]
KEY = {"key": "test-key", "type": "json"}


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[ex])


def call(world: World, path: str, **params: str) -> dict[str, Any]:
    resp = world.call("GET", f"/openapi/{path}", {**KEY, **params})
    assert resp.status == 200
    out: dict[str, Any] = json.loads(resp.body)
    return out


# ------------------------------------------------------------------ datasets


def test_cardinalities_match_the_real_service(world: World) -> None:
    assert len(world.rows("ex_rest_areas")) == 203
    assert len(world.rows("ex_fuel_stations")) == 226
    assert len(world.rows("ex_station_facilities")) == 429
    assert len(world.rows("ex_rep_menus")) == 221
    assert 5000 <= len(world.rows("ex_menus")) <= 7500
    gyeongbu = [r for r in world.rows("ex_rest_areas") if r["routeNo"] == "0010"]
    assert 30 <= len(gyeongbu) <= 45


def test_field_names_are_spelt_as_the_service_spells_them(world: World) -> None:
    rest = world.rows("ex_rest_areas")[0]
    assert {k for k in rest if not k.startswith("_")} == {
        "unitCode", "unitName", "routeNo", "routeName", "xValue", "yValue", "stdRestCd",
        "serviceAreaCode"}
    station = world.rows("ex_fuel_stations")[0]
    assert "diselPrice" in station and "dieselPrice" not in station
    assert station["pageNo"] is None and station["numOfRows"] is None
    assert "trafficAmout" in world.rows("ex_congestion")[0]
    facility = world.rows("ex_station_facilities")[0]
    assert {"stdRestCd", "stdRestNm", "stime", "etime", "psCode", "psName", "psDesc",
            "redDtime", "lsttmAltrDttm", "svarAddr", "routeCd", "routeNm"} <= set(facility)


def test_the_first_rest_area_is_the_real_one(world: World) -> None:
    first = world.rows("ex_rest_areas")[0]
    assert (first["unitCode"], first["unitName"], first["routeNo"], first["routeName"],
            first["stdRestCd"], first["serviceAreaCode"]) == (
        "001", "서울만남(부산)휴게소", "0010", "경부선", "000001", "A00001")
    station = world.rows("ex_fuel_stations")[0]
    assert station["serviceAreaName"] == "서울만남(부산)주유소"
    assert station["serviceAreaCode2"] == "000002"  # its own standard code, not the rest area's


def test_wire_values_keep_units_and_markers(world: World) -> None:
    for s in world.rows("ex_fuel_stations"):
        assert re.fullmatch(r"[0-9],[0-9]{3}원", s["gasolinePrice"])
        assert re.fullmatch(r"[0-9],[0-9]{3}원", s["diselPrice"])
        assert (s["lpgPrice"] == "X") == (s["lpgYn"] == "N")
    for m in world.rows("ex_rep_menus"):
        assert re.fullmatch(r"￦[0-9]{1,2},[0-9]{3}", m["salePrice"])
    for m in world.rows("ex_menus")[:200]:
        assert m["foodCost"].isdigit()
    for r in world.rows("ex_rest_areas"):
        assert re.fullmatch(r"1[23][0-9]\.[0-9]{6}", r["xValue"])
        assert re.fullmatch(r"3[3-8]\.[0-9]{6}", r["yValue"])


def test_codes_are_unique_and_link_stations_to_facilities(world: World) -> None:
    rests, stations = world.rows("ex_rest_areas"), world.rows("ex_fuel_stations")
    rest_codes = [r["stdRestCd"] for r in rests]
    station_codes = [s["serviceAreaCode2"] for s in stations]
    assert len(set(rest_codes)) == 203 and len(set(station_codes)) == 226
    assert not set(rest_codes) & set(station_codes)
    assert len({r["unitName"] for r in rests}) == 203
    facility_codes = {f["stdRestCd"] for f in world.rows("ex_station_facilities")}
    assert facility_codes == set(station_codes)
    # a rest area reaches its station by name (휴게소 → 주유소), as on the real service
    names = {s["serviceAreaName"] for s in stations}
    linked = [r for r in rests if r["unitName"].replace("휴게소", "주유소") in names]
    assert len(linked) >= 180
    menu_codes = {m["stdRestCd"] for m in world.rows("ex_menus")}
    assert menu_codes == set(rest_codes)


def test_rest_area_addresses_come_from_the_address_universe(world: World) -> None:
    places = {f"{a['sggNm']} {a['emdNm']}{a['liNm']} " for a in world.rows("addresses")}
    for s in world.rows("ex_fuel_stations")[:60]:
        assert any(p in s["svarAddr"] for p in places), s["svarAddr"]


def test_generation_is_deterministic_per_seed() -> None:
    w0 = types.SimpleNamespace(seed=0, state={})
    w1 = types.SimpleNamespace(seed=1, state={})
    assert ex._menu_rows(w0) == ex._menu_rows(w0)  # type: ignore[arg-type]
    assert ex._rep_rows(w0) == ex._rep_rows(w0)  # type: ignore[arg-type]
    od = {"iStartUnitCode": "101", "iEndUnitCode": "103"}
    assert list(ex._travel_rows(w0, od)) == list(ex._travel_rows(w0, od))  # type: ignore[arg-type]
    assert list(ex._travel_rows(w0, od)) != list(ex._travel_rows(w1, od))  # type: ignore[arg-type]
    plan0 = ex._plan_rest_areas(rng(0, "ex_network"))
    assert plan0 == ex._plan_rest_areas(rng(0, "ex_network"))
    assert plan0 != ex._plan_rest_areas(rng(1, "ex_network"))


def test_travel_times_of_one_od_pair(world: World) -> None:
    rows = list(ex._travel_rows(world, {"iStartUnitCode": "101", "iEndUnitCode": "103"}))
    assert 550 <= len(rows) <= 660
    assert {r["tcsCarTypeCode"] for r in rows} == {"1", "2", "3", "4", "5", "6"}
    assert rows[0]["startUnitCode"] == "101 " and rows[0]["endUnitCode"] == "103 "
    assert rows[0]["startUnitNm"] == "서울" and rows[0]["endUnitNm"] == "수원신갈"
    assert any(re.fullmatch(r"[0-9]{2}  ", r["stdTime"]) for r in rows)  # hourly "01  " rows
    for r in rows:
        assert float(r["timeMin"]) <= float(r["timeAvg"]) <= float(r["timeMax"])
    assert list(ex._travel_rows(world, {"iStartUnitCode": "101", "iEndUnitCode": "999"})) == []


# ------------------------------------------------------------------ endpoints


def test_rest_areas_filtered_and_paged(world: World) -> None:
    body = call(world, "locationinfo/locationinfoRest", routeNo="0010", numOfRows="7",
                pageNo="2")
    assert body["code"] == "SUCCESS" and body["message"] == "인증키가 유효합니다."
    total = sum(r["routeNo"] == "0010" for r in world.rows("ex_rest_areas"))
    assert body["count"] == total and isinstance(body["count"], int)
    assert body["pageSize"] == math.ceil(total / 7)  # pageSize is the number of pages
    assert body["pageNo"] == 2 and len(body["list"]) == 7
    assert all(r["routeNo"] == "0010" for r in body["list"])
    assert not any(k.startswith("_") for r in body["list"] for k in r)


def test_fuel_price_of_a_station_code(world: World) -> None:
    body = call(world, "business/curStateStation", serviceAreaCode2="000002")
    assert body["count"] == 1 and body["list"][0]["serviceAreaName"] == "서울만남(부산)주유소"
    facilities = call(world, "restinfo/restOilList", stdRestCd="000002")
    assert facilities["list"] and {f["stdRestCd"] for f in facilities["list"]} == {"000002"}
    assert "pageSize" not in facilities  # no paging: everything in one answer
    assert call(world, "restinfo/restOilList")["count"] == 429


def test_travel_times_endpoint(world: World) -> None:
    body = call(world, "trtm/realUnitTrtm", iStartUnitCode="101 ", iEndUnitCode="103",
                numOfRows="99", tcsCarTypeCode="1")
    assert body["realUnitTrtmVO"] and "list" not in body
    assert {r["tcsCarTypeCode"] for r in body["realUnitTrtmVO"]} == {"1"}
    refused = call(world, "trtm/realUnitTrtm", iStartUnitCode="101")
    assert refused["code"] != "SUCCESS"


def test_ic_traffic_and_congestion(world: World) -> None:
    body = call(world, "trafficapi/trafficIc", unitCode="101", inoutType="0", carType="1")
    assert body["count"] == (ex.STD_HOUR + 1) * 2 and "trafficIc" in body
    assert all(re.fullmatch(r"[0-9,]+", r["trafficAmout"]) for r in body["trafficIc"])
    congest = call(world, "odtraffic/trafficAmountByCongest", routeNo="0500", numOfRows="99")
    assert congest["count"] > 10
    assert {r["routeName"] for r in congest["list"]} == {"영동선"}


def test_a_wrong_key_is_refused() -> None:
    w = World(seed=0, modules=[ex], keys=frozenset({"good"}))
    body = json.loads(w.call("GET", "/openapi/locationinfo/locationinfoRest",
                             {"key": "bad", "type": "json"}).body)
    assert body["code"] != "SUCCESS" and "유효하지" in body["message"]


# ------------------------------------------------------------------ catalog


def _platform(name: str, file: str) -> PlatformDecl:
    module = parse((ROOT / "stdlib" / file).read_text(encoding="utf-8"))
    return next(i for i in module.items if isinstance(i, PlatformDecl) and i.name == name)


_ARGS = {"travel_times": {"iStartUnitCode": "101", "iEndUnitCode": "103"},
         "ic_traffic": {"unitCode": "101"}}


def test_catalog_and_world_agree(world: World) -> None:
    plat = _platform("ex", "ex.edge")
    records = {i.name: i for i in plat.items if isinstance(i, RecordDecl)}
    tools = [i for i in plat.items if isinstance(i, ToolDecl)]
    assert len(tools) >= 7
    for tool in tools:
        ep = world.endpoint_for("ex", tool.name)
        assert ep is not None, tool.name
        assert tool.path is not None and tool.path.endswith("?type=json")
        assert ep.path == "/openapi" + tool.path.split("?")[0]
        accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params)
        if ep.paging is not None:
            accepted |= {ep.paging.page, ep.paging.size}
            assert tool.paged is not None
        for p in tool.params:
            assert p.name in accepted, (tool.name, p.name)
        assert set(ep.required) <= {p.name for p in tool.params}
        body = call(world, tool.path.split("?")[0].lstrip("/"), **_ARGS.get(tool.name, {}))
        assert tool.at is not None
        rows = body[tool.at]
        assert rows, tool.name
        for f in records[tool.returns].fields:
            assert f.name in rows[0], (tool.name, f.name)


def test_trajectories_over_the_catalog_type_check() -> None:
    src = """use ex

trajectory cheapest_gasoline "경부선 주유소 중 휘발유가 가장 싼 곳과 그 편의시설은?" {
  stations = ex.fuel_prices(routeCode: "0010") pages all
  best = drv stations | min gasolinePrice
  facilities = ex.station_facilities(stdRestCd: seq best.serviceAreaCode2)
  answer {
    name: best.serviceAreaName,
    price: best.gasolinePrice,
    facilities: facilities.psName,
  }
}

trajectory seoul_suwon "서울에서 수원신갈까지 소형차 통행시간이 가장 긴 시각은?" {
  times = ex.travel_times(iStartUnitCode: "101", iEndUnitCode: "103", tcsCarTypeCode: "1") pages all
  slow = drv times | max timeAvg
  answer slow.stdTime
}
"""
    result = check(src)
    assert len(result.program.trajectories) == 2
