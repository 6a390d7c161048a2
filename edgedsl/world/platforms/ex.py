"""한국도로공사 고속도로 공공데이터 (``data.ex.co.kr/openapi``): rest areas, fuel, menus, traffic.

The world's expressway network is built from :mod:`.ex_data` (real route numbers and names,
real rest-area names where well known): 203 rest areas (``locationinfoRest``), 226 fuel stations
(``curStateStation``) with 429 facility rows (``restOilList``), ~6,500 food-court menu items
(``restBestfoodList``), 221 representative menus (``representFoodServiceArea``), travel times
between toll offices (``realUnitTrtm``, ~600 rows per OD pair and day), congestion-zone traffic
(``trafficAmountByCongest``) and toll-office traffic (``trafficIc``).

Wire quirks reproduced on purpose: prices ``"1,999원"`` / ``"X"`` (not sold) / ``"￦6,000"``,
the field typos ``diselPrice`` and ``trafficAmout``, toll-office codes with a trailing space
(``"101 "``), ``null`` ``pageNo``/``numOfRows`` inside list rows, hourly ``"01  "`` slots among
the 5-minute ``stdTime`` values. A rest area and its fuel station have *different* ``stdRestCd``
codes (``000001`` 서울만남(부산)휴게소, ``000002`` 서울만남(부산)주유소): ``serviceAreaCode2`` of
``curStateStation`` equals ``restOilList.stdRestCd``, while a rest area reaches its station by
name (휴게소 → 주유소) or by route and direction — as on the real service.

The world's day for the real-time services is :data:`STD_DATE`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..rand import comma, hash_unit, rng, won
from .ex_data import CAR_TYPES, FACILITIES, FOODS, OIL_COMPANIES, ROUTES, Route

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "STD_DATE", "network", "toll_offices"]

STD_DATE = "20241202"
"""The day the real-time services (travel times, traffic) report, ``YYYYMMDD``."""
STD_HOUR = 17
"""The hour of the world's "now" for the real-time services (17:00–17:59)."""

BASE = "/openapi"
REST_AREAS, STATIONS, TARGET_REST, TARGET_STATIONS, TARGET_FACILITIES = 203, 226, 203, 226, 429
REP_MENUS = 221

_SIDO_SHORT = {
    "서울특별시": "서울", "부산광역시": "부산", "대구광역시": "대구", "인천광역시": "인천",
    "광주광역시": "광주", "대전광역시": "대전", "울산광역시": "울산", "세종특별자치시": "세종",
    "경기도": "경기", "강원도": "강원", "강원특별자치도": "강원", "충청북도": "충북",
    "충청남도": "충남", "전라북도": "전북", "전북특별자치도": "전북", "전라남도": "전남",
    "경상북도": "경북", "경상남도": "경남", "제주특별자치도": "제주",
}


# ------------------------------------------------------------------ geometry


def _along(path: tuple[tuple[float, float], ...], f: float) -> tuple[float, float]:
    """The point at fraction ``f`` (0…1) of a polyline, by segment count (good enough here)."""
    f = min(max(f, 0.0), 1.0) * (len(path) - 1)
    i = min(int(f), len(path) - 2)
    t = f - i
    (a0, b0), (a1, b1) = path[i], path[i + 1]
    return a0 + (a1 - a0) * t, b0 + (b1 - b0) * t


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in kilometres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 12742.0 * math.asin(min(1.0, math.sqrt(h)))


@cache
def _address_grid(seed: int) -> dict[tuple[int, int], list[dict[str, Any]]]:
    from ..addresses import addresses

    grid: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for a in addresses(seed):
        grid.setdefault((int(a["_lat"] * 10), int(a["_lon"] * 10)), []).append(a)
    return grid


def _nearest_address(seed: int, lat: float, lon: float) -> dict[str, Any] | None:
    """The address row of the world closest to a point (searching a 0.1° grid outwards)."""
    grid = _address_grid(seed)
    ci, cj = int(lat * 10), int(lon * 10)
    for ring in range(0, 6):
        cands = [a for di in range(-ring, ring + 1) for dj in range(-ring, ring + 1)
                 for a in grid.get((ci + di, cj + dj), ())]
        if cands:
            return min(cands, key=lambda a: (a["_lat"] - lat) ** 2 + (a["_lon"] - lon) ** 2)
    return None


def _svar_addr(seed: int, lat: float, lon: float, fallback: str) -> str:
    """A rest-area address in the service's style: ``경기 안성시 원곡면반제리 137-3``."""
    a = _nearest_address(seed, lat, lon)
    if a is None:
        return fallback
    sido = _SIDO_SHORT.get(a["siNm"], a["siNm"])
    lot = a["lnbrMnnm"] + (f"-{a['lnbrSlno']}" if a["lnbrSlno"] != "0" else "")
    return f"{sido} {a['sggNm']} {a['emdNm']}{a['liNm']} {lot}".replace("  ", " ")


# ------------------------------------------------------------------ the network


def _plan_rest_areas(r: random.Random) -> list[tuple[Route, str, str, float]]:
    """``(route, base name, direction code, fraction along the route)`` for all 203 places."""
    plan: list[tuple[Route, str, str]] = [(rt, n, d) for rt in ROUTES for n, d in rt.rest_areas]
    rows = sum(2 if d == "A" else 1 for _, _, d in plan)
    spare = {rt.no: [t for t in rt.towns[1:-1] if t not in {n for n, _ in rt.rest_areas}]
             for rt in ROUTES}
    while rows < TARGET_REST:
        for rt in ROUTES:
            if rows >= TARGET_REST or not spare[rt.no]:
                continue
            town = spare[rt.no].pop(r.randrange(len(spare[rt.no])))
            d = "A" if TARGET_REST - rows >= 2 else "1"
            plan.append((rt, town, d))
            rows += 2 if d == "A" else 1
    out: list[tuple[Route, str, str, float]] = []
    for rt in ROUTES:
        mine = [(n, d) for q, n, d in plan if q is rt]
        order = {t: i for i, t in enumerate(rt.towns)}
        known = [n for n, _ in rt.rest_areas]
        # real names keep their listed order; town names sit at their town's place
        def frac(n: str, known: list[str] = known, order: dict[str, int] = order,
                 towns: int = len(rt.towns)) -> float:
            if n in order:
                return order[n] / max(1, towns - 1)
            return (known.index(n) + 0.5) / max(1, len(known))
        for n, d in sorted(mine, key=lambda nd: frac(nd[0])):
            out.append((rt, n, d, min(0.98, max(0.02, frac(n) + r.uniform(-0.02, 0.02)))))
    return out


def _dir_rows(rt: Route, name: str, d: str) -> list[tuple[str, str]]:
    """``(direction label, display stem)`` rows of one place: ``("부산", "서울만남(부산)")``."""
    if d == "B":
        return [("양방향", name)]
    dirs = {"A": (rt.ends[1], rt.ends[0]), "0": (rt.ends[0],), "1": (rt.ends[1],)}[d]
    return [(x, f"{name}({x})") for x in dirs]


@cache
def network(seed: int) -> dict[str, list[Row]]:
    """Rest areas, fuel stations, their facility rows and the toll offices of the world."""
    r = rng(seed, "ex_network")
    rests: list[Row] = []
    stations: list[Row] = []
    code = 0
    places = _plan_rest_areas(r)
    with_station = set(r.sample(range(TARGET_REST), TARGET_STATIONS - 36))
    i = 0
    for rt, name, d, f in places:
        lat, lon = _along(rt.path, f)
        for k, (direction, stem) in enumerate(_dir_rows(rt, name, d)):
            la, lo = lat + (0.0012 if k else -0.0012), lon + (0.0015 if k else -0.0015)
            addr = _svar_addr(seed, la, lo, rt.addr)
            code += 1
            rests.append({
                "unitCode": f"{len(rests) + 1:03d}", "unitName": f"{stem}휴게소",
                "routeNo": rt.no, "routeName": rt.name,
                "xValue": f"{lo:.6f}", "yValue": f"{la:.6f}",
                "stdRestCd": f"{code:06d}", "serviceAreaCode": f"A{len(rests) + 1:05d}",
                "_direction": direction, "_svarAddr": addr, "_lat": la, "_lon": lo,
            })
            if i in with_station:
                code += 1
                stations.append(_station(r, rt, stem, direction, code, addr, len(stations)))
            i += 1
    # stand-alone fuel stations (no rest area of their own), at towns along the routes
    while len(stations) < TARGET_STATIONS:
        rt = ROUTES[len(stations) % len(ROUTES)]
        town = r.choice(rt.towns[1:-1])
        direction = r.choice(rt.ends)
        stem = f"{town}({direction})"
        if any(s["serviceAreaName"] == f"{stem}주유소" for s in stations):
            continue
        code += 1
        lat, lon = _along(rt.path, r.random())
        stations.append(_station(r, rt, stem, direction, code,
                                 _svar_addr(seed, lat, lon, rt.addr), len(stations)))
    return {"rests": rests, "stations": stations, "facilities": _facilities(r, stations)}


def _station(r: random.Random, rt: Route, stem: str, direction: str, code: int, addr: str,
             n: int) -> Row:
    gas = r.randint(1620, 1780)
    lpg_yn = "Y" if r.random() < 0.45 else "N"
    return {
        "direction": direction, "pageNo": None, "numOfRows": None, "routeName": rt.name,
        "serviceAreaCode": f"B{n + 1:05d}", "serviceAreaName": f"{stem}주유소",
        "telNo": f"0{r.randint(31, 64)}-{r.randint(200, 999)}-{r.randint(1000, 9999)}",
        "routeCode": rt.no, "oilCompany": r.choice(OIL_COMPANIES), "lpgYn": lpg_yn,
        "gasolinePrice": won(gas), "diselPrice": won(gas - r.randint(60, 160)),
        "lpgPrice": won(r.randint(980, 1120)) if lpg_yn == "Y" else "X",
        "serviceAreaCode2": f"{code:06d}", "svarAddr": addr,
    }


def _facilities(r: random.Random, stations: list[Row]) -> list[Row]:
    counts = [1] * len(stations)
    for _ in range(TARGET_FACILITIES - len(stations)):
        counts[r.choice([i for i, c in enumerate(counts) if c < len(FACILITIES)])] += 1
    out: list[Row] = []
    for st, n in zip(stations, counts, strict=True):
        always_open = r.random() < 0.8
        for ps_code, ps_name, ps_desc in sorted(r.sample(FACILITIES, n)):
            out.append({
                "stdRestCd": st["serviceAreaCode2"], "stdRestNm": st["serviceAreaName"],
                "stime": "00:00" if always_open else "07:00",
                "etime": "24:00" if always_open else "22:00",
                "redId": f"MANJ{r.randint(1, 99):02d}", "redDtime": f"{r.randint(14, 23)}/0"
                f"{r.randint(1, 9)}/{r.randint(10, 28)}",
                "lsttmAltrUser": "SYSTEM", "lsttmAltrDttm": f"{STD_DATE[:4]}-{STD_DATE[4:6]}-"
                f"{STD_DATE[6:]}",
                "svarAddr": st["svarAddr"], "routeCd": st["routeCode"],
                "routeNm": st["routeName"] if r.random() < 0.9 else None,
                "psCode": ps_code, "psName": ps_name,
                "psDesc": ps_desc if r.random() < 0.85 else None,
            })
    return out


@cache
def toll_offices() -> tuple[tuple[str, str, str, float, float], ...]:
    """``(unitCode, unitName, routeNo, lat, lon)`` of every toll office (영업소)."""
    out: list[tuple[str, str, str, float, float]] = []
    seen: set[str] = set()
    for rt in ROUTES:
        for i, town in enumerate(rt.towns):
            if town in seen:
                continue
            seen.add(town)
            n = rt.unit_base + i + (1 if rt.no == "0010" and i else 0)  # 101 서울, 103 수원신갈
            lat, lon = _along(rt.path, i / max(1, len(rt.towns) - 1))
            out.append((f"{n:03d}", town, rt.no, lat, lon))
    return tuple(out)


# ------------------------------------------------------------------ dataset builders


def _rest_rows(world: World) -> list[Row]:
    return network(world.seed)["rests"]


def _station_rows(world: World) -> list[Row]:
    return network(world.seed)["stations"]


def _facility_rows(world: World) -> list[Row]:
    return network(world.seed)["facilities"]


def _menu_rows(world: World) -> list[Row]:
    r = rng(world.seed, "ex_menus")
    out: list[Row] = []
    seq = 0
    day = f"{STD_DATE[:4]}-{STD_DATE[4:6]}-{STD_DATE[6:]}"
    for i, rest in enumerate(network(world.seed)["rests"]):
        stem = rest["unitName"].removesuffix("휴게소").split("(")[0]
        for j, (food, price, kind) in enumerate(r.sample(FOODS, r.randint(26, 36))):
            seq += 1
            signature = j == 0
            out.append({
                "pageNo": None, "numOfRows": None,
                "stdRestCd": rest["stdRestCd"], "stdRestNm": rest["unitName"],
                "restCd": f"S{i + 1:06d}", "routeCd": rest["routeNo"],
                "routeNm": rest["routeName"], "svarAddr": rest["_svarAddr"], "seq": str(seq),
                "foodNm": f"{stem} {food}" if signature else food,
                "foodCost": str(price + (1000 if signature else 0) + r.choice((0, 0, 500, -500))),
                "etc": f"{kind} 메뉴" if r.random() < 0.7 else None,
                "foodMaterial": None,
                "recommendyn": "Y" if signature or r.random() < 0.08 else "N",
                "bestfoodyn": "Y" if signature else "N",
                "premiumyn": "Y" if r.random() < 0.05 else "N",
                "seasonMenu": r.choice(("4", "4", "4", "4", "S", "W")),
                "app": "Y", "lsttmAltrUser": "SYSTEM", "lsttmAltrDttm": day,
                "lastId": f"user{r.randint(100, 999)}",
                "lastDtime": f"20{r.randint(21, 24)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            })
    return out


def _rep_rows(world: World) -> list[Row]:
    r = rng(world.seed, "ex_rep_menus")
    rests = network(world.seed)["rests"]
    extra = set(r.sample(range(len(rests)), REP_MENUS - len(rests)))
    out: list[Row] = []
    for i, rest in enumerate(rests):
        stem = rest["unitName"].removesuffix("휴게소").split("(")[0]
        for k in range(2 if i in extra else 1):
            food, price, _ = r.choice(FOODS)
            out.append({
                "routeCode": rest["routeNo"], "routeName": rest["routeName"],
                "direction": rest["_direction"], "serviceAreaCode": rest["serviceAreaCode"],
                "serviceAreaName": rest["unitName"],
                "batchMenu": f"{stem} {food}" if k == 0 else food,
                "salePrice": "￦" + comma(price + 1000 * (k == 0)),
            })
    return out


_TIME_WEIGHT = (0.35, 0.25, 0.2, 0.2, 0.3, 0.6, 0.9, 1.0, 1.0, 0.95, 0.9, 0.9, 0.9, 0.9, 0.9,
                0.95, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.45)
_CAR_WEIGHT = {"1": 1.0, "2": 0.45, "3": 0.35, "4": 0.45, "5": 0.3, "6": 0.2}


def _travel_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """realUnitTrtm: every 5-minute slot × car type of one OD pair on :data:`STD_DATE`."""
    offices = {u[0]: u for u in toll_offices()}
    a = offices.get(str(params.get("iStartUnitCode", "")).strip())
    b = offices.get(str(params.get("iEndUnitCode", "")).strip())
    if a is None or b is None or a is b:
        return []
    base = max(4.0, _km(a[3], a[4], b[3], b[4]) * 1.25 / 95 * 60)  # minutes at ~95 km/h
    out: list[Row] = []
    seed = world.seed
    for car, car_name in CAR_TYPES:
        slow = {"1": 1.0, "2": 1.04, "3": 1.1, "4": 1.12, "5": 1.15, "6": 1.0}[car]
        for slot in range(288):
            hh, mm = divmod(slot * 5, 60)
            u = hash_unit(seed, "ex_trtm", a[0], b[0], car, slot)
            if u > _CAR_WEIGHT[car] * _TIME_WEIGHT[hh]:
                continue
            rush = 1.0 + (0.35 if hh in (7, 8, 18, 19) else 0.0) * hash_unit(seed, a[0], hh)
            avg = base * slow * rush * (0.95 + 0.1 * u)
            out.append(_trtm_row(a, b, car, car_name, f"{hh:02d}:{mm:02d}", avg, u))
            if car == "1" and mm == 55 and hh < 23:  # the hourly row, spelt "HH  "
                out.append(_trtm_row(a, b, car, car_name, f"{hh + 1:02d}  ", avg, u))
    return out


def _trtm_row(a: tuple[str, str, str, float, float], b: tuple[str, str, str, float, float],
              car: str, car_name: str, std_time: str, avg: float, u: float) -> Row:
    return {
        "efcvTrfl": str(int(3 + 90 * u)), "endUnitCode": f"{b[0]} ", "endUnitNm": b[1],
        "iEndUnitCode": None, "iStartEndStdTypeCode": None, "iStartUnitCode": None,
        "numOfRows": None, "pageNo": None, "startEndStdTypeCode": "2",
        "startEndStdTypeNm": "도착기준통행시간", "startUnitCode": f"{a[0]} ",
        "startUnitNm": a[1], "stdDate": STD_DATE, "stdTime": std_time,
        "sumTmUnitTypeCode": None, "tcsCarTypeCode": car, "tcsCarTypeDivCode": car,
        "tcsCarTypeDivName": car_name, "tcsCarTypeName": f"{car}종",
        "timeAvg": repr(avg), "timeMax": f"{avg * 1.23:.3f}", "timeMin": f"{avg * 0.78:.3f}",
    }


def _congest_rows(world: World) -> list[Row]:
    r = rng(world.seed, "ex_congest")
    offices = toll_offices()
    out: list[Row] = []
    for rt in ROUTES:
        mine = [o for o in offices if o[2] == rt.no]
        for k in range(len(mine) - 1):
            for updown, (p, q) in (("E", (mine[k], mine[k + 1])), ("S", (mine[k + 1], mine[k]))):
                n_vds = r.randint(1, 2)
                for v in range(n_vds):
                    speed = r.choice((r.uniform(75, 105), r.uniform(75, 105), r.uniform(35, 75),
                                      r.uniform(8, 35)))
                    grade = "1" if speed >= 70 else "2" if speed >= 40 else "3"
                    km = _km(p[3], p[4], q[3], q[4]) * 1.2
                    out.append({
                        "routeName": rt.name, "routeNo": rt.no,
                        "conzoneId": f"{rt.no}CZ{updown}{k * 10 + 10:03d}",
                        "conzoneName": f"{p[1]}IC-{q[1]}IC", "stdDate": STD_DATE,
                        "stdHour": f"{STD_HOUR:02d}00", "vdsId": f"{rt.no}VD{updown}"
                        f"{k * 10 + 10:03d}{v:02d}",
                        "speed": f"{speed:.1f}", "trafficAmout": str(r.randint(40, 1800)),
                        "shareRatio": f"{r.uniform(2, 45):.1f}", "grade": grade,
                        "updownTypeCode": updown, "timeAvg": f"{km / speed * 60:.1f}",
                    })
    return out


def _traffic_ic_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """trafficIc: hourly traffic of one toll office on :data:`STD_DATE`, up to the hour now."""
    unit = str(params.get("unitCode", "")).strip()
    office = next((o for o in toll_offices() if o[0] == unit), None)
    if office is None:
        return []
    out: list[Row] = []
    scale = 200 + 1800 * hash_unit(world.seed, "ex_ic", unit)
    for hh in range(STD_HOUR + 1):
        for inout in ("0", "1"):
            for tcs in ("1", "2"):
                for car, _ in CAR_TYPES:
                    u = hash_unit(world.seed, "ex_ic", unit, hh, inout, tcs, car)
                    share = {"1": 0.7, "2": 0.08, "3": 0.06, "4": 0.08, "5": 0.03, "6": 0.05}[car]
                    amount = int(scale * _TIME_WEIGHT[hh] * share * (0.6 if tcs == "1" else 1.4)
                                 * (0.8 + 0.4 * u))
                    out.append({
                        "stdDate": STD_DATE, "stdTime": f"{hh:02d}00", "unitCode": unit,
                        "unitName": office[1], "exDivCode": "00", "exDivName": "도로공사",
                        "inoutType": inout, "inoutName": "입구" if inout == "0" else "출구",
                        "tcsType": tcs, "tcsName": "TCS" if tcs == "1" else "hi-pass",
                        "carType": car, "trafficAmout": comma(amount), "sumTm": f"{hh:02d}00",
                        "sumDate": STD_DATE,
                    })
    return out


# ------------------------------------------------------------------ declarations

_PAGE = Paging(page="pageNo", size="numOfRows", default_size=10, max_size=99)

DATASETS: tuple[Dataset, ...] = (
    Dataset("ex_rest_areas", build=_rest_rows, index=("stdRestCd", "routeNo"),
            doc="휴게소 위치 (203)"),
    Dataset("ex_fuel_stations", build=_station_rows, index=("serviceAreaCode2", "routeCode"),
            doc="주유소 가격 (226)"),
    Dataset("ex_station_facilities", build=_facility_rows, index=("stdRestCd",),
            doc="주유소 편의시설 (429)"),
    Dataset("ex_menus", build=_menu_rows, index=("stdRestCd",), doc="휴게소 음식 메뉴"),
    Dataset("ex_rep_menus", build=_rep_rows, doc="휴게소 대표메뉴 (221)"),
    Dataset("ex_travel_times", rows=_travel_rows, doc="영업소간 통행시간, per OD pair"),
    Dataset("ex_congestion", build=_congest_rows, doc="콘존별 교통량·속도"),
    Dataset("ex_ic_traffic", rows=_traffic_ic_rows, doc="영업소별 교통량, per toll office"),
)

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("ex", "rest_areas", f"{BASE}/locationinfo/locationinfoRest", "ex",
             dataset="ex_rest_areas", service="list",
             filters=(Filter("unitCode"), Filter("unitName", op="contains"), Filter("routeNo"),
                      Filter("stdRestCd"), Filter("serviceAreaCode")),
             paging=_PAGE),
    Endpoint("ex", "station_facilities", f"{BASE}/restinfo/restOilList", "ex",
             dataset="ex_station_facilities", service="list",
             filters=(Filter("routeCd"), Filter("routeNm"), Filter("stdRestCd"),
                      Filter("stdRestNm", op="contains"))),
    Endpoint("ex", "fuel_prices", f"{BASE}/business/curStateStation", "ex",
             dataset="ex_fuel_stations", service="list",
             filters=(Filter("oilCompany"), Filter("routeCode"), Filter("routeName"),
                      Filter("serviceAreaCode"), Filter("serviceAreaCode2"),
                      Filter("serviceAreaName", op="contains"), Filter("direction")),
             paging=_PAGE),
    Endpoint("ex", "menus", f"{BASE}/restinfo/restBestfoodList", "ex",
             dataset="ex_menus", service="list",
             filters=(Filter("routeCd"), Filter("routeNm"), Filter("stdRestCd"),
                      Filter("stdRestNm", op="contains"), Filter("recommendyn"),
                      Filter("bestfoodyn"), Filter("premiumyn")),
             paging=_PAGE),
    Endpoint("ex", "signature_menus", f"{BASE}/business/representFoodServiceArea", "ex",
             dataset="ex_rep_menus", service="list",
             filters=(Filter("routeCode"), Filter("routeName"),
                      Filter("serviceAreaName", op="contains"), Filter("direction")),
             paging=_PAGE),
    Endpoint("ex", "travel_times", f"{BASE}/trtm/realUnitTrtm", "ex",
             dataset="ex_travel_times", service="realUnitTrtmVO",
             filters=(Filter("tcsCarTypeCode"), Filter("iStartEndStdTypeCode",
                                                       "startEndStdTypeCode")),
             required=("iStartUnitCode", "iEndUnitCode"), params=("sumTmUnitTypeCode",),
             paging=_PAGE),
    Endpoint("ex", "congestion", f"{BASE}/odtraffic/trafficAmountByCongest", "ex",
             dataset="ex_congestion", service="list", filters=(Filter("routeNo"),),
             paging=_PAGE),
    Endpoint("ex", "ic_traffic", f"{BASE}/trafficapi/trafficIc", "ex",
             dataset="ex_ic_traffic", service="trafficIc",
             filters=(Filter("inoutType"), Filter("tcsType"), Filter("carType"),
                      Filter("exDivCode")),
             required=("unitCode",), params=("tmType",), paging=_PAGE),
)
