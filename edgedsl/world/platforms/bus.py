"""Buses: 국토교통부 TAGO (``apis.data.go.kr/1613000``) and 서울 버스 (``ws.bus.go.kr/api/rest``).

TAGO serves every city but Seoul: city codes (``getCtyCodeList``), stops near a WGS84 point
(``getCrdntPrxmtSttnList``, within 500 m), stops by name or number, routes through a stop,
arrivals at a stop (``arrtime`` in seconds), routes by number, route details, the stop sequence
of a route (both directions, ``updowncd`` 0/1) and the vehicles on a route. Values come as the
gateway's XML→JSON conversion sends them: digit strings become JSON numbers (``citycode`` 25,
``nodeno`` 44510, ``routeno`` 102, ``arrtime`` 480), the rest stay strings (``"0530"``).

서울 버스 serves Seoul: stations by name (``stSrch``) with ``arsId`` (5) and ``stId`` (9), the
arrivals of every route at a station (``getStationByUid``), the arrivals along a route
(``getArrInfoByRouteAll``), the stations of a route (``getStaionByRoute``, sic) and routes by
number (``getBusRouteList``). Every value is a string.

The networks are generated per city from the shared address universe (:mod:`.bus_data`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..rand import hash_unit
from .bus_data import Network, cities, cities_near, network, seoul_network, wire

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "NEAR_METRES", "route_meta", "seoul_route_meta"]

TAGO = "/1613000"
SEOUL = "/api/rest"
NEAR_METRES = 500.0
"""The radius of ``getCrdntPrxmtSttnList``."""
STD_DATE = "20241202"

_TYPES = ("일반버스", "일반버스", "일반버스", "일반버스", "좌석버스", "마을버스", "마을버스",
          "급행버스", "지선버스")


def _metres(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 12_742_000.0 * math.asin(min(1.0, math.sqrt(h)))


def _float(v: Any) -> float | None:
    try:
        return float(str(v).strip())
    except ValueError:
        return None


# ------------------------------------------------------------------ TAGO


@cache
def route_meta(seed: int, citycode: str) -> tuple[dict[str, Any], ...]:
    """Per route of a city: routeid, routeno, routetp, start/end stops, times, headways."""
    net = network(seed, citycode)
    city = next(c for c in cities() if c.code == citycode)
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    assert net is not None
    for ri, meta in enumerate(net.routes):
        u = hash_unit(seed, "tago_route", citycode, ri)
        tp = _TYPES[int(u * len(_TYPES))]
        n = 1 + int(hash_unit(seed, "tago_routeno", citycode, ri) * 999)
        no = {"급행버스": f"급행{n % 9 + 1}", "마을버스": f"{n % 90 + 1}-{ri % 3 + 1}",
              "좌석버스": str(1000 + n), "지선버스": str(100 + n)}.get(tp, str(n))
        while no in used:
            no += "-1"
        used.add(no)
        headway = 8 + int(hash_unit(seed, "tago_head", citycode, ri) * 30)
        out.append({
            "routeid": f"{city.prefix}{city.index:03d}3{ri:05d}", "routeno": no, "routetp": tp,
            "startnodenm": meta["_first"], "endnodenm": meta["_last"],
            "startvehicletime": f"05{int(u * 6) * 5 + 20:02d}",
            "endvehicletime": f"22{int(u * 10) * 5:02d}",
            "intervaltime": headway, "intervalsattime": headway + 5,
            "intervalsuntime": headway + 10,
        })
    return tuple(out)


def _tago_net(world: World, params: Mapping[str, str]) -> tuple[str, Network] | None:
    code = str(params.get("cityCode", "")).strip()
    net = network(world.seed, code)
    return None if net is None else (code, net)


def _stop_row(s: Any, citycode: str | None = None) -> Row:
    row: Row = {"gpslati": s.lat, "gpslong": s.lon, "nodeid": s.nodeid, "nodenm": s.nodenm,
                "nodeno": wire(s.nodeno)}
    if citycode is not None:
        row = {"citycode": wire(citycode), **row}
    return row


def _city_rows(world: World) -> list[Row]:
    return [{"citycode": wire(c.code), "cityname": c.name} for c in cities()]


def _near_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    lat, lon = _float(params.get("gpsLati")), _float(params.get("gpsLong"))
    if lat is None or lon is None:
        return []
    found: list[tuple[float, Row]] = []
    for code in cities_near(world.seed, lat, lon):
        net = network(world.seed, code)
        assert net is not None
        for s in net.stops:
            if abs(s.lat - lat) > 0.005 or abs(s.lon - lon) > 0.007:
                continue
            m = _metres(lat, lon, s.lat, s.lon)
            if m <= NEAR_METRES:
                found.append((m, _stop_row(s, code)))
    return [row for _, row in sorted(found, key=lambda mr: mr[0])]


def _stops_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _tago_net(world, params)
    return [] if got is None else [_stop_row(s) for s in got[1].stops]


def _stop_route_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _tago_net(world, params)
    if got is None:
        return []
    code, net = got
    i = net.by_id.get(str(params.get("nodeid", "")).strip())
    if i is None:
        return []
    meta = route_meta(world.seed, code)
    return [{k: wire(meta[ri][k]) for k in ("endnodenm", "routeid", "routeno", "routetp",
                                            "startnodenm")}
            for ri, _ in net.stops[i].routes]


def _arrival_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _tago_net(world, params)
    if got is None:
        return []
    code, net = got
    i = net.by_id.get(str(params.get("nodeId", "")).strip())
    if i is None:
        return []
    stop, meta = net.stops[i], route_meta(world.seed, code)
    out: list[tuple[int, Row]] = []
    for ri, o in stop.routes:
        for p, _, vtp in net.vehicles[ri]:
            if 0 < o - p <= 15:
                secs = int((o - p) * (70 + 50 * hash_unit(world.seed, "tago_arr", code, ri, p)))
                out.append((secs, {
                    "arrprevstationcnt": o - p, "arrtime": secs, "nodeid": stop.nodeid,
                    "nodenm": stop.nodenm, "routeid": meta[ri]["routeid"],
                    "routeno": wire(meta[ri]["routeno"]), "routetp": meta[ri]["routetp"],
                    "vehicletp": vtp}))
    return [row for _, row in sorted(out, key=lambda sr: sr[0])]


def _route_index(world: World, params: Mapping[str, str]) -> tuple[str, Network, int] | None:
    got = _tago_net(world, params)
    if got is None:
        return None
    code, net = got
    rid = str(params.get("routeId", "")).strip()
    meta = route_meta(world.seed, code)
    ri = next((k for k, m in enumerate(meta) if m["routeid"] == rid), None)
    return None if ri is None else (code, net, ri)


def _route_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _tago_net(world, params)
    if got is None:
        return []
    keys = ("endnodenm", "endvehicletime", "routeid", "routeno", "routetp", "startnodenm",
            "startvehicletime")
    return [{k: wire(m[k]) for k in keys} for m in route_meta(world.seed, got[0])]


def _route_info_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _route_index(world, params)
    if got is None:
        return []
    m = route_meta(world.seed, got[0])[got[2]]
    return [{k: wire(v) for k, v in sorted(m.items())}]


def _route_stop_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _route_index(world, params)
    if got is None:
        return []
    code, net, ri = got
    seq, rid = net.sequences[ri], route_meta(world.seed, code)[ri]["routeid"]
    half = len(seq) // 2
    return [{**_stop_row(net.stops[si]), "nodeord": o, "routeid": rid,
             "updowncd": 0 if o <= half else 1}
            for o, si in enumerate(seq, start=1)]


def _location_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    got = _route_index(world, params)
    if got is None:
        return []
    code, net, ri = got
    m = route_meta(world.seed, code)[ri]
    city = next(c for c in cities() if c.code == code)
    region = city.name[:2]
    out: list[Row] = []
    for o, plate, _ in net.vehicles[ri]:
        s = net.stops[net.sequences[ri][o - 1]]
        out.append({"gpslati": s.lat, "gpslong": s.lon, "nodeid": s.nodeid, "nodenm": s.nodenm,
                    "nodeord": o, "routenm": wire(m["routeno"]), "routetp": m["routetp"],
                    "vehicleno": f"{region}{plate}"})
    return out


# ------------------------------------------------------------------ 서울 버스


def _pos(lat: float, lon: float) -> tuple[str, str]:
    """Approximate TM (GRS80 중부원점) metres, as ``posX``/``posY`` strings."""
    return f"{200000 + (lon - 127.0) * 88_300:.4f}", f"{500000 + (lat - 38.0) * 111_000:.4f}"


@cache
def seoul_route_meta(seed: int) -> tuple[dict[str, str], ...]:
    """Per Seoul route: busRouteId (9), busRouteNm, routeType, term, first/last times."""
    net = seoul_network(seed)
    out: list[dict[str, str]] = []
    used: set[str] = set()
    for ri, meta in enumerate(net.routes):
        u = hash_unit(seed, "seoul_route", ri)
        first = net.stops[net.sequences[ri][0]]
        gu = int(first.nodeno[:2])
        if u < 0.45:
            rtype, name = "4", f"{gu % 7 + 1}{gu % 10}{int(u * 200) % 100:02d}"
        elif u < 0.8:
            rtype, name = "3", f"{gu % 7 + 1}{int(u * 1000) % 100:02d}"
        elif u < 0.95:
            rtype, name = "2", f"{first.nodenm[:2]}{int(u * 1000) % 20 + 1:02d}"
        else:
            rtype, name = "6", f"9{int(u * 10000) % 1000:03d}"
        while name in used:
            name += "-1"
        used.add(name)
        out.append({
            "busRouteId": f"1001{ri:05d}", "busRouteNm": name, "routeType": rtype,
            "term": str(5 + int(u * 60) % 15), "stStationNm": str(meta["_first"]),
            "edStationNm": str(meta["_last"]), "firstTm": "04:30", "lastTm": "22:30",
        })
    return tuple(out)


@cache
def _ars_index(seed: int) -> dict[str, int]:
    return {s.nodeno: i for i, s in enumerate(seoul_network(seed).stops)}


def _seoul_station_rows(world: World) -> list[Row]:
    out: list[Row] = []
    for s in seoul_network(world.seed).stops:
        px, py = _pos(s.lat, s.lon)
        out.append({"stId": s.nodeid, "stNm": s.nodenm, "tmX": f"{s.lon:.7f}",
                    "tmY": f"{s.lat:.7f}", "posX": px, "posY": py, "arsId": s.nodeno})
    return out


def _seoul_route_list_rows(world: World) -> list[Row]:
    net = seoul_network(world.seed)
    out: list[Row] = []
    for ri, m in enumerate(seoul_route_meta(world.seed)):
        out.append({
            "busRouteId": m["busRouteId"], "busRouteNm": m["busRouteNm"],
            "busRouteAbrv": m["busRouteNm"], "length": f"{len(net.sequences[ri]) * 0.45:.1f}",
            "routeType": m["routeType"], "stStationNm": m["stStationNm"],
            "edStationNm": m["edStationNm"], "term": m["term"], "lastBusYn": " ",
            "firstBusTm": f"{STD_DATE}043000", "lastBusTm": f"{STD_DATE}223000",
            "corpNm": f"{m['stStationNm'][:2]}운수  02-{900 + ri % 99}-{1000 + ri:04d}",
        })
    return out


def _arrmsg(stops_away: int, secs: int) -> str:
    if secs < 60 and stops_away <= 1:
        return "곧 도착"
    return f"{secs // 60}분{secs % 60}초후[{stops_away}번째 전]"


def _seoul_arrival_row(seed: int, net: Network, ri: int, o: int) -> Row:
    m = seoul_route_meta(seed)[ri]
    seq = net.sequences[ri]
    s = net.stops[seq[o - 1]]
    half = len(seq) // 2
    coming = sorted(((o - p, plate, tp) for p, plate, tp in net.vehicles[ri] if 0 < o - p <= 20))
    row: Row = {
        "stId": s.nodeid, "stNm": s.nodenm, "arsId": s.nodeno, "busRouteId": m["busRouteId"],
        "rtNm": m["busRouteNm"], "busRouteAbrv": m["busRouteNm"],
        "sectNm": f"{net.stops[seq[max(0, o - 2)]].nodenm}~{s.nodenm}",
        "gpsX": f"{s.lon:.7f}", "gpsY": f"{s.lat:.7f}",
        "posX": _pos(s.lat, s.lon)[0], "posY": _pos(s.lat, s.lon)[1], "stationTp": "1",
        "firstTm": m["firstTm"], "lastTm": m["lastTm"], "term": m["term"],
        "routeType": m["routeType"], "nextBus": "N", "staOrd": str(o),
        "adirection": m["edStationNm"] if o <= half else m["stStationNm"],
        "nxtStn": net.stops[seq[o % len(seq)]].nodenm, "deTourAt": "00",
    }
    for k in (1, 2):
        if len(coming) >= k:
            away, plate, tp = coming[k - 1]
            secs = int(away * (80 + 40 * hash_unit(seed, "seoul_arr", ri, o - away)))
            p = o - away
            row.update({
                f"vehId{k}": f"1{ri:04d}{p:04d}", f"plainNo{k}": f"서울{plate}",
                f"sectOrd{k}": str(p), f"stationNm{k}": net.stops[seq[p - 1]].nodenm,
                f"traTime{k}": str(secs), f"isArrive{k}": "0", f"isLast{k}": "0",
                f"busType{k}": "1" if tp == "저상버스" else "0", f"arrmsg{k}": _arrmsg(away, secs)})
        else:
            row.update({f"vehId{k}": "0", f"plainNo{k}": " ", f"sectOrd{k}": "0",
                        f"stationNm{k}": " ", f"traTime{k}": "0", f"isArrive{k}": "0",
                        f"isLast{k}": "0", f"busType{k}": "0",
                        f"arrmsg{k}": "운행종료" if k == 1 else "출발대기"})
    return row


def _seoul_by_uid_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    i = _ars_index(world.seed).get(str(params.get("arsId", "")).strip())
    if i is None:
        return []
    net = seoul_network(world.seed)
    return [_seoul_arrival_row(world.seed, net, ri, o) for ri, o in net.stops[i].routes]


def _seoul_route(world: World, params: Mapping[str, str]) -> int | None:
    rid = str(params.get("busRouteId", "")).strip()
    if not (rid.isdigit() and rid.startswith("1001") and len(rid) == 9):
        return None
    ri = int(rid[4:])
    return ri if ri < len(seoul_network(world.seed).sequences) else None


def _seoul_route_arrival_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    ri = _seoul_route(world, params)
    if ri is None:
        return []
    net = seoul_network(world.seed)
    return [_seoul_arrival_row(world.seed, net, ri, o)
            for o in range(1, len(net.sequences[ri]) + 1)]


def _seoul_route_station_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    ri = _seoul_route(world, params)
    if ri is None:
        return []
    net, m = seoul_network(world.seed), seoul_route_meta(world.seed)[ri]
    seq = net.sequences[ri]
    half = len(seq) // 2
    turn = net.stops[seq[half]]
    out: list[Row] = []
    for o, si in enumerate(seq, start=1):
        s = net.stops[si]
        px, py = _pos(s.lat, s.lon)
        out.append({
            "busRouteId": m["busRouteId"], "busRouteNm": m["busRouteNm"],
            "busRouteAbrv": m["busRouteNm"], "seq": str(o), "section": f"1{ri:04d}{o:04d}",
            "station": s.nodeid, "arsId": s.nodeno, "stationNm": s.nodenm,
            "gpsX": f"{s.lon:.7f}", "gpsY": f"{s.lat:.7f}", "posX": px, "posY": py,
            "direction": m["edStationNm"] if o <= half else m["stStationNm"],
            "fullSectDist": str(int(300 + 400 * hash_unit(world.seed, "seoul_sect", ri, o))),
            "sectSpd": str(int(12 + 20 * hash_unit(world.seed, "seoul_spd", ri, o))),
            "stationNo": s.nodeno, "routeType": m["routeType"], "beginTm": m["firstTm"],
            "lastTm": m["lastTm"], "trnstnid": turn.nodeid, "transYn": "Y" if o == half + 1
            else "N",
        })
    return out


# ------------------------------------------------------------------ declarations

_TAGO_PAGE = Paging(page="pageNo", size="numOfRows", default_size=10, max_size=1000)


def _tago(tool: str, op: str, dataset: str, **kw: Any) -> Endpoint:
    return Endpoint("tago", tool, f"{TAGO}/{op}", "data_go_kr", dataset=dataset,
                    service="items", paging=_TAGO_PAGE, **kw)


def _seoul(tool: str, op: str, dataset: str, required: str, **kw: Any) -> Endpoint:
    return Endpoint("seoulbus", tool, f"{SEOUL}/{op}", "seoul_bus", dataset=dataset,
                    service="itemList", required=(required,), **kw)


DATASETS: tuple[Dataset, ...] = (
    Dataset("tago_cities", build=_city_rows, doc="TAGO 도시코드"),
    Dataset("tago_stops_near", rows=_near_rows, doc="좌표 500 m 안의 정류소"),
    Dataset("tago_stops", rows=_stops_rows, doc="도시별 정류소"),
    Dataset("tago_stop_routes", rows=_stop_route_rows, doc="정류소별 경유노선"),
    Dataset("tago_arrivals", rows=_arrival_rows, doc="정류소별 도착예정"),
    Dataset("tago_routes", rows=_route_rows, doc="도시별 노선"),
    Dataset("tago_route_info", rows=_route_info_rows, doc="노선 기본정보"),
    Dataset("tago_route_stops", rows=_route_stop_rows, doc="노선별 경유정류소"),
    Dataset("tago_bus_locations", rows=_location_rows, doc="노선별 버스위치"),
    Dataset("seoulbus_stations", build=_seoul_station_rows, index=("arsId",),
            doc="서울 버스정류소"),
    Dataset("seoulbus_routes", build=_seoul_route_list_rows, index=("busRouteId",),
            doc="서울 버스노선"),
    Dataset("seoulbus_arrivals_by_stop", rows=_seoul_by_uid_rows, doc="정류소 노선별 도착"),
    Dataset("seoulbus_arrivals_by_route", rows=_seoul_route_arrival_rows, doc="노선 전체 도착"),
    Dataset("seoulbus_route_stations", rows=_seoul_route_station_rows, doc="노선별 정류소"),
)

ENDPOINTS: tuple[Endpoint, ...] = (
    _tago("cities", "BusSttnInfoInqireService/getCtyCodeList", "tago_cities"),
    _tago("stops_near", "BusSttnInfoInqireService/getCrdntPrxmtSttnList", "tago_stops_near",
          required=("gpsLati", "gpsLong")),
    _tago("stops", "BusSttnInfoInqireService/getSttnNoList", "tago_stops",
          filters=(Filter("nodeNm", "nodenm", "contains"), Filter("nodeNo", "nodeno")),
          required=("cityCode",)),
    _tago("stop_routes", "BusSttnInfoInqireService/getSttnThrghRouteList", "tago_stop_routes",
          required=("cityCode", "nodeid")),
    _tago("arrivals", "ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList",
          "tago_arrivals", required=("cityCode", "nodeId")),
    _tago("routes", "BusRouteInfoInqireService/getRouteNoList", "tago_routes",
          filters=(Filter("routeNo", "routeno", "contains"),), required=("cityCode",)),
    _tago("route_info", "BusRouteInfoInqireService/getRouteInfoIem", "tago_route_info",
          required=("cityCode", "routeId")),
    _tago("route_stops", "BusRouteInfoInqireService/getRouteAcctoThrghSttnList",
          "tago_route_stops", required=("cityCode", "routeId")),
    _tago("bus_locations", "BusLcInfoInqireService/getRouteAcctoBusLcList",
          "tago_bus_locations", required=("cityCode", "routeId")),
    _seoul("stations", "stationinfo/getStationByName", "seoulbus_stations", "stSrch",
           filters=(Filter("stSrch", "stNm", "contains"),)),
    _seoul("station_arrivals", "stationinfo/getStationByUid", "seoulbus_arrivals_by_stop",
           "arsId"),
    _seoul("route_arrivals", "arrive/getArrInfoByRouteAll", "seoulbus_arrivals_by_route",
           "busRouteId"),
    _seoul("route_stations", "busRouteInfo/getStaionByRoute", "seoulbus_route_stations",
           "busRouteId"),
    _seoul("routes", "busRouteInfo/getBusRouteList", "seoulbus_routes", "strSrch",
           filters=(Filter("strSrch", "busRouteNm", "contains"),)),
)
