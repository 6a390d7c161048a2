"""The bus world (TAGO and 서울 버스, edgedsl/world/platforms/bus.py) and stdlib/bus.edge."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import check, parse
from edgedsl.syntax.nodes import PlatformDecl, RecordDecl, ToolDecl
from edgedsl.world.engine import World
from edgedsl.world.platforms import bus, bus_data

ROOT = Path(__file__).resolve().parents[2]
TAGO_KEY = {"serviceKey": "test-key", "_type": "json"}
SEOUL_KEY = {"serviceKey": "test-key", "resultType": "json"}


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[bus])


def tago(world: World, op: str, **params: str) -> tuple[list[dict[str, Any]], int]:
    resp = world.call("GET", f"/1613000/{op}", {**TAGO_KEY, "numOfRows": "1000", **params})
    body = json.loads(resp.body)["response"]["body"]
    items = body["items"]["item"] if body["items"] else []
    return (items if isinstance(items, list) else [items]), body["totalCount"]


def seoul(world: World, op: str, **params: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    body = json.loads(world.call("GET", f"/api/rest/{op}", {**SEOUL_KEY, **params}).body)
    return body["msgBody"].get("itemList") or [], body["msgHeader"]


def _addresses(world: World, seoul_only: bool, n: int) -> list[dict[str, Any]]:
    rows = [a for a in world.rows("addresses") if a["admCd"].startswith("11") == seoul_only]
    return random.Random(7).sample(rows, n)


# ------------------------------------------------------------------ TAGO


def test_city_codes() -> None:
    cities = {c.code: c.name for c in bus_data.cities()}
    assert 120 <= len(cities) <= 180
    assert cities["25"] == "대전광역시" and cities["21"] == "부산광역시"
    assert cities["34010"] == "천안시" and cities["31010"] == "수원시"
    assert all(re.fullmatch(r"[0-9]{2}|[0-9]{5}", c) for c in cities)
    assert not any("서울" in n for n in cities.values())  # Seoul is not covered by TAGO


def test_cities_endpoint_sends_numbers(world: World) -> None:
    items, total = tago(world, "BusSttnInfoInqireService/getCtyCodeList")
    assert total == len(bus_data.cities()) == len(items)
    assert {"citycode": 25, "cityname": "대전광역시"} in items


def test_an_address_finds_nearby_stops_and_arrivals(world: World) -> None:
    """Chain 14: address → WGS84 → stops within 500 m → arrivals → the route's stops."""
    arrivals_seen = 0
    for a in _addresses(world, False, 12):
        stops, total = tago(world, "BusSttnInfoInqireService/getCrdntPrxmtSttnList",
                            gpsLati=str(a["_lat"]), gpsLong=str(a["_lon"]))
        assert total >= 2, a["roadAddr"]
        for s in stops:
            d = math.dist((s["gpslati"], s["gpslong"] * math.cos(math.radians(a["_lat"]))),
                          (a["_lat"], a["_lon"] * math.cos(math.radians(a["_lat"])))) * 111_320
            assert d <= 505
        city = bus_data.city_of_sgg()[a["admCd"][:5]]
        assert any(str(s["citycode"]) == city.code for s in stops)
        for s in stops[:5]:
            arr, _ = tago(world, "ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList",
                          cityCode=str(s["citycode"]), nodeId=s["nodeid"])
            assert len(arr) <= 20
            for x in arr:
                arrivals_seen += 1
                assert isinstance(x["arrtime"], int) and x["arrprevstationcnt"] >= 1
                seq, _ = tago(world, "BusRouteInfoInqireService/getRouteAcctoThrghSttnList",
                              cityCode=str(s["citycode"]), routeId=x["routeid"])
                assert s["nodeid"] in {r["nodeid"] for r in seq}
    assert arrivals_seen > 10


def test_a_seoul_address_has_no_tago_stops(world: World) -> None:
    a = _addresses(world, True, 1)[0]
    stops, total = tago(world, "BusSttnInfoInqireService/getCrdntPrxmtSttnList",
                        gpsLati=str(a["_lat"]), gpsLong=str(a["_lon"]))
    assert total == 0 and stops == []


def test_routes_of_a_metro_have_50_to_150_stops(world: World) -> None:
    routes, total = tago(world, "BusRouteInfoInqireService/getRouteNoList", cityCode="25")
    assert total >= 60
    for r in routes[:12]:
        seq, n = tago(world, "BusRouteInfoInqireService/getRouteAcctoThrghSttnList",
                      cityCode="25", routeId=r["routeid"])
        assert 50 <= n <= 150
        assert [s["nodeord"] for s in seq] == list(range(1, n + 1))
        assert {s["updowncd"] for s in seq} == {0, 1}
        assert re.fullmatch(r"DJB[0-9]+", r["routeid"])


def test_arrivals_agree_with_bus_locations(world: World) -> None:
    net = bus_data.network(0, "25")
    assert net is not None
    checked = 0
    for stop in net.stops[:150]:
        arr, _ = tago(world, "ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList",
                      cityCode="25", nodeId=stop.nodeid)
        for x in arr:
            order = dict((net.stops[si].nodeid, o) for o, si in
                         enumerate(net.sequences[int(x["routeid"][-5:])], start=1))
            buses, _ = tago(world, "BusLcInfoInqireService/getRouteAcctoBusLcList",
                            cityCode="25", routeId=x["routeid"])
            assert order[stop.nodeid] - x["arrprevstationcnt"] in {b["nodeord"] for b in buses}
            checked += 1
    assert checked > 5


def test_route_info_is_one_collapsed_item(world: World) -> None:
    routes, _ = tago(world, "BusRouteInfoInqireService/getRouteNoList", cityCode="34010")
    resp = world.call("GET", "/1613000/BusRouteInfoInqireService/getRouteInfoIem",
                      {**TAGO_KEY, "cityCode": "34010", "routeId": routes[0]["routeid"]})
    item = json.loads(resp.body)["response"]["body"]["items"]["item"]
    assert isinstance(item, dict) and item["routeid"] == routes[0]["routeid"]
    assert isinstance(item["intervaltime"], int)
    assert isinstance(item["startvehicletime"], str) and item["startvehicletime"].startswith("05")


def test_stop_search_by_name_and_number(world: World) -> None:
    net = bus_data.network(0, "26")
    assert net is not None
    target = net.stops[10]
    found, _ = tago(world, "BusSttnInfoInqireService/getSttnNoList", cityCode="26",
                    nodeNm=target.nodenm)
    assert target.nodeid in {s["nodeid"] for s in found}
    assert all(target.nodenm in s["nodenm"] for s in found)
    by_no, n = tago(world, "BusSttnInfoInqireService/getSttnNoList", cityCode="26",
                    nodeNo=target.nodeno)
    assert n == 1 and by_no[0]["nodeid"] == target.nodeid
    through, _ = tago(world, "BusSttnInfoInqireService/getSttnThrghRouteList", cityCode="26",
                      nodeid=target.nodeid)
    assert len(through) == len(target.routes) >= 1


def test_missing_city_code_is_an_error(world: World) -> None:
    resp = world.call("GET", "/1613000/BusRouteInfoInqireService/getRouteNoList", TAGO_KEY)
    assert json.loads(resp.body)["response"]["header"]["resultCode"] != "00"


def test_networks_are_deterministic_per_seed() -> None:
    build = bus_data.network.__wrapped__  # type: ignore[attr-defined]
    a, b = build(0, "25"), build(0, "25")
    assert [(s.nodeid, s.nodenm, s.lat) for s in a.stops] == [
        (s.nodeid, s.nodenm, s.lat) for s in b.stops]
    assert a.sequences == b.sequences and a.vehicles == b.vehicles
    city = next(c for c in bus_data.cities() if c.code == "25")
    addrs = [x for x in World(seed=0, modules=[]).rows("addresses") if x["admCd"][:5] in city.sgg]
    c = bus_data.build_network(1, "25", addrs, 2, lambda n, _s: (f"DJB{n}", str(n)), (25, 75))
    assert [s.nodenm for s in a.stops[:50]] != [s.nodenm for s in c.stops[:50]]
    assert len(c.stops) == len(a.stops)


# ------------------------------------------------------------------ 서울 버스


def test_seoul_stations_by_name_and_uid(world: World) -> None:
    stop = bus_data.seoul_network(0).stops[100]
    items, header = seoul(world, "stationinfo/getStationByName", stSrch=stop.nodenm)
    assert header["headerCd"] == "0" and header["itemCount"] == len(items)
    assert stop.nodeno in {s["arsId"] for s in items}
    for s in items:
        assert re.fullmatch(r"[0-9]{5}", s["arsId"]) and re.fullmatch(r"[0-9]{9}", s["stId"])
        assert isinstance(s["tmX"], str) and 126.7 < float(s["tmX"]) < 127.3
    arrivals, _ = seoul(world, "stationinfo/getStationByUid", arsId=stop.nodeno)
    assert len(arrivals) == len(stop.routes) >= 1
    for x in arrivals:
        assert x["arsId"] == stop.nodeno and re.fullmatch(r"[0-9]{9}", x["busRouteId"])
        assert re.fullmatch(r"[0-9]+분[0-9]+초후\[[0-9]+번째 전\]|곧 도착|운행종료", x["arrmsg1"])
        stations, _ = seoul(world, "busRouteInfo/getStaionByRoute", busRouteId=x["busRouteId"])
        assert stop.nodeno in {s["arsId"] for s in stations}
        assert [int(s["seq"]) for s in stations] == list(range(1, len(stations) + 1))


def test_seoul_codes_are_well_formed_and_unique() -> None:
    stops = bus_data.seoul_network(0).stops
    assert 3000 <= len(stops) <= 12000
    assert all(re.fullmatch(r"[0-9]{5}", s.nodeno) for s in stops)
    assert all(re.fullmatch(r"1[0-9]{8}", s.nodeid) for s in stops)
    assert len({s.nodeno for s in stops}) == len({s.nodeid for s in stops}) == len(stops)


def test_seoul_route_search_and_route_arrivals(world: World) -> None:
    meta = bus.seoul_route_meta(0)[3]
    routes, _ = seoul(world, "busRouteInfo/getBusRouteList", strSrch=meta["busRouteNm"])
    assert meta["busRouteId"] in {r["busRouteId"] for r in routes}
    along, header = seoul(world, "arrive/getArrInfoByRouteAll", busRouteId=meta["busRouteId"])
    assert header["itemCount"] == len(along) and len(along) >= 40
    assert all(isinstance(v, str) for x in along for v in x.values())


def test_seoul_unknown_station_and_missing_parameter(world: World) -> None:
    items, header = seoul(world, "stationinfo/getStationByUid", arsId="99999")
    assert items == [] and header["headerCd"] != "0"
    _, header = seoul(world, "stationinfo/getStationByName")
    assert header["headerCd"] not in ("0",)


# ------------------------------------------------------------------ catalog


def _platform(name: str) -> PlatformDecl:
    module = parse((ROOT / "stdlib" / "bus.edge").read_text(encoding="utf-8"))
    return next(i for i in module.items if isinstance(i, PlatformDecl) and i.name == name)


def _args(world: World, platform: str, tool: str) -> dict[str, str]:
    dj = bus_data.network(0, "25")
    assert dj is not None
    stop, route = dj.stops[0], bus.route_meta(0, "25")[0]["routeid"]
    seoul_stop = bus_data.seoul_network(0).stops[0]
    return {
        "stops_near": {"gpsLati": str(stop.lat), "gpsLong": str(stop.lon)},
        "stops": {"cityCode": "25"}, "routes": {"cityCode": "25"},
        "stop_routes": {"cityCode": "25", "nodeid": stop.nodeid},
        "arrivals": {"cityCode": "25", "nodeId": dj.stops[1].nodeid},
        "route_info": {"cityCode": "25", "routeId": route},
        "route_stops": {"cityCode": "25", "routeId": route},
        "bus_locations": {"cityCode": "25", "routeId": route},
        "stations": {"stSrch": seoul_stop.nodenm},
        "station_arrivals": {"arsId": seoul_stop.nodeno},
        "route_arrivals": {"busRouteId": "100100000"},
        "route_stations": {"busRouteId": "100100000"},
    }.get(tool, {}) if platform == "tago" or tool != "routes" else {
        "strSrch": bus.seoul_route_meta(0)[0]["busRouteNm"]}


@pytest.mark.parametrize(("platform", "base", "switch", "minimum"), [
    ("tago", "/1613000", "_type=json", 9), ("seoulbus", "/api/rest", "resultType=json", 4)])
def test_catalog_and_world_agree(world: World, platform: str, base: str, switch: str,
                                 minimum: int) -> None:
    plat = _platform(platform)
    records = {i.name: i for i in plat.items if isinstance(i, RecordDecl)}
    tools = [i for i in plat.items if isinstance(i, ToolDecl)]
    assert len(tools) >= minimum
    for tool in tools:
        ep = world.endpoint_for(platform, tool.name)
        assert ep is not None and tool.path is not None, tool.name
        path, query = tool.path.split("?")
        assert query == switch and ep.path == base + path
        accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params)
        if ep.paging is not None:
            accepted |= {ep.paging.page, ep.paging.size}
        assert {p.name for p in tool.params} <= accepted, tool.name
        args = _args(world, platform, tool.name)
        if platform == "tago":
            rows, _ = tago(world, ep.path.removeprefix("/1613000/"), **args)
        else:
            rows, _ = seoul(world, ep.path.removeprefix("/api/rest/"), **args)
        assert rows, tool.name
        for f in records[tool.returns].fields:
            assert f.name in rows[0], (tool.name, f.name)


def test_trajectories_over_the_catalog_type_check() -> None:
    src = """use bus

trajectory bus_near_point
  "대전 시청 근처 정류소에 가장 먼저 도착하는 버스의 노선은 몇 정류장을 지나나?"
{
  near = tago.stops_near(gpsLati: 36.3504, gpsLong: 127.3845) pages all
  first = drv near | max gpslati
  arrivals = tago.arrivals(cityCode: seq first.citycode, nodeId: seq first.nodeid) pages all
  soon = drv arrivals | min arrtime
  stops = tago.route_stops(cityCode: seq first.citycode, routeId: seq soon.routeid) pages all
  answer {
    route: soon.routeno,
    seconds: soon.arrtime,
    stops: count(stops),
  }
}

trajectory seoul_station "광화문 정류소에서 곧 오는 버스는?" {
  stations = seoulbus.stations(stSrch: "광화문")
  one = drv stations | max tmY
  arrivals = seoulbus.station_arrivals(arsId: seq one.arsId)
  soon = drv arrivals | min traTime1
  answer soon.rtNm
}
"""
    assert len(check(src).program.trajectories) == 2
