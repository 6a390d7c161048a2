"""Chains 13–17 of the reference (§13) as trajectories on the world backend.

Each ``examples/world/NN_*.edge`` file is compiled and run on the world backend (seed 0), and its
answer is compared with a value recomputed here *independently of edgedsl*: plain Python calls
the world's wire endpoints with the same parameters (``World.call``), pages by hand, parses the
JSON envelopes and applies the reducers of docs/language.md (number coercion of ``"1,697원"`` /
``"82,500"``, ties kept, distinct values in first-occurrence order, most-frequent ties to the
smallest value, DuckDB's round half away from zero). A pinned literal is asserted as well, so a
change of the world's data shows up as a deliberate edit here.

- 13 highway stop planner (EX): drv ==, parallel, max date, min/max
- 14 bus arrival from an address (juso → std → TAGO): fan over the nearby stops, min, ==, max
- 15 neighbourhood housing (juso → std → MOLIT): compare over months, ==, >=, <=, max; the
  서울 열린데이터광장 cross-check with date-after
- 16 company HQ's representative (DART → juso → NEC → 열린국회): drv == over the ~22,700 corp
  codes, most_frequent
- 17 trading-day fallback (FSC): empty ≠ error, if/else, max date
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import compile
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.http import make_world_backend
from edgedsl.runtime.result import RunResult
from edgedsl.world.engine import World
from edgedsl.world.geo import utmk_to_wgs84

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "world"
STDLIB = ROOT / "stdlib"


@pytest.fixture(scope="module")
def backend() -> Any:
    return make_world_backend(seed=0)


@pytest.fixture(scope="module")
def world(backend: Any) -> World:
    w: World = backend.world  # the same world: its datasets are built once for both sides
    return w


def run(backend: Any, name: str) -> RunResult:
    path = EXAMPLES / name
    plan = compile(path.read_text(encoding="utf-8"), str(path), search_paths=[STDLIB])
    (result,) = run_plan_sync(plan, backend)
    assert result.ok, result.diagnostics
    return result


# ====================================================================== reference semantics

_NUM = re.compile(
    r"^\s*([+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?)\s*(?:[%A-Za-z가-힣]+\s*)?$"
)


def num(v: Any) -> int | float | None:
    """A JSON number, or a numeric string with separators and a unit (``"1,697원"``)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return v
    m = _NUM.match(str(v))
    if m is None:
        return None
    text = m.group(1).replace(",", "")
    return float(text) if "." in text else int(text)


def day(v: Any) -> _dt.date | None:
    """``YYYYMMDD`` / ``YYYY-MM-DD`` → date."""
    s = str(v).strip().replace("-", "")
    if not re.fullmatch(r"[0-9]{8}", s):
        return None
    try:
        return _dt.date(int(s[:4]), int(s[4:6]), int(s[6:]))
    except ValueError:
        return None


def rnd(x: float, digits: int) -> float:
    """DuckDB's round: half away from zero."""
    scaled = decimal.Decimal(abs(x) * 10**digits).quantize(decimal.Decimal(1),
                                                            decimal.ROUND_HALF_UP)
    return math.copysign(float(scaled), x) / 10**digits


def distinct(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v is not None and v not in out:
            out.append(v)
    return out


def field(rows: list[dict[str, Any]], name: str, conv: Any = None) -> Any:
    """What an answer field reference prints: null, the one distinct value, or the list."""
    vals = distinct((conv(r.get(name)) if conv else r.get(name)) for r in rows)
    return None if not vals else vals[0] if len(vals) == 1 else vals


def keep_max(rows: list[dict[str, Any]], key: Any) -> list[dict[str, Any]]:
    vals = [key(r) for r in rows if key(r) is not None]
    return [r for r in rows if vals and key(r) == max(vals)]


def keep_min(rows: list[dict[str, Any]], key: Any) -> list[dict[str, Any]]:
    vals = [key(r) for r in rows if key(r) is not None]
    return [r for r in rows if vals and key(r) == min(vals)]


# ====================================================================== wire helpers


def body(world: World, path: str, params: dict[str, str]) -> Any:
    resp = world.call("GET", path, params)
    assert resp.status == 200, (path, resp.status)
    return json.loads(resp.body)


def ex_all(world: World, op: str, list_key: str = "list", **params: str) -> list[dict[str, Any]]:
    """한국도로공사: every page at 99 rows (``count`` is the total)."""
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        b = body(world, f"/openapi/{op}", {"key": "k", "type": "json", "numOfRows": "99",
                                           "pageNo": str(page), **params})
        assert b["code"] == "SUCCESS"
        rows = b.get(list_key) or []
        out.extend(rows)
        if len(rows) < 99 or len(out) >= int(b["count"]):
            return out
        page += 1


def gateway_items(b: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """data.go.kr: ``response.body.items.item`` (one item collapses to an object)."""
    resp = b["response"]
    assert resp["header"]["resultCode"] in ("00", "000", "INFO-00"), resp["header"]
    got = resp["body"]["items"]["item"] if resp["body"]["items"] else []
    return ([got] if isinstance(got, dict) else got), int(resp["body"]["totalCount"])


def gateway_all(world: World, path: str, size: int, **params: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        rows, total = gateway_items(body(world, path, {**params, "numOfRows": str(size),
                                                       "pageNo": str(page)}))
        out.extend(rows)
        if len(rows) < size or len(out) >= total:
            return out
        page += 1


def tago_all(world: World, op: str, **params: str) -> list[dict[str, Any]]:
    return gateway_all(world, f"/1613000/{op}", 1000, serviceKey="k", _type="json", **params)


def juso(world: World, api: str, **params: str) -> list[dict[str, Any]]:
    b = body(world, f"/addrlink/{api}.do", {"confmKey": "k", "resultType": "json", **params})
    assert b["results"]["common"]["errorCode"] == "0"
    rows: list[dict[str, Any]] = b["results"]["juso"] or []
    return rows


# ====================================================================== 13 highway stop planner


def test_13_highway_stop_planner(backend: Any, world: World) -> None:
    got = run(backend, "13_highway_stop.edge").answer

    rests = ex_all(world, "locationinfo/locationinfoRest")
    assert len(rests) == 203
    gyeongbu = [r for r in rests if r["routeNo"] == "0010"]
    stop = [r for r in gyeongbu if r["unitName"] == "안성(부산)휴게소"]
    assert len(stop) == 1
    (route,) = distinct(r["routeNo"] for r in stop)
    # the rest area and its fuel station: linked by route and name, their codes differ
    fuel = ex_all(world, "business/curStateStation", routeCode=route, serviceAreaName="안성(부산)")
    facilities = ex_all(world, "restinfo/restOilList", routeCd=route, stdRestNm="안성(부산)")
    assert {s["serviceAreaCode2"] for s in fuel} == {f["stdRestCd"] for f in facilities}
    assert stop[0]["stdRestCd"] not in {s["serviceAreaCode2"] for s in fuel}
    trips = ex_all(world, "trtm/realUnitTrtm", "realUnitTrtmVO",
                   iStartUnitCode="101", iEndUnitCode="111")
    assert len(trips) > 500  # ~600 slot × car-type rows, read over several pages
    small = [t for t in trips if t["tcsCarTypeCode"] == "1"]
    today = keep_max(small, lambda t: day(t["stdDate"]))
    fastest = keep_min(today, lambda t: num(t["timeAvg"]))
    slowest = keep_max(today, lambda t: num(t["timeAvg"]))

    expected = {
        "gyeongbu_rest_areas": len(gyeongbu),
        "rest_area": field(stop, "unitName"),
        "station": field(fuel, "serviceAreaName"),
        "station_code": field(fuel, "serviceAreaCode2"),
        "facility_code": field(facilities, "stdRestCd"),
        "gasoline": field(fuel, "gasolinePrice", num),
        "diesel": field(fuel, "diselPrice", num),
        "facilities": field(facilities, "psName"),
        "date": field(today, "stdDate", lambda v: day(v).isoformat()),  # type: ignore[union-attr]
        "slots": len(today),
        "fastest_at": field(fastest, "stdTime"),
        "fastest_min": rnd(float(num(fastest[0]["timeAvg"])), 1),  # type: ignore[arg-type]
        "slowest_at": field(slowest, "stdTime"),
        "slowest_min": rnd(float(num(slowest[0]["timeAvg"])), 1),  # type: ignore[arg-type]
    }
    assert got == expected
    assert got == {
        "gyeongbu_rest_areas": 41, "rest_area": "안성(부산)휴게소", "station": "안성(부산)주유소",
        "station_code": "000012", "facility_code": "000012", "gasoline": 1697, "diesel": 1608,
        "facilities": ["경정비", "쉼터", "ATM"], "date": "2024-12-02", "slots": 227,
        "fastest_at": "03:20", "fastest_min": 84.7, "slowest_at": "08:30", "slowest_min": 114.8,
    }


# ====================================================================== 14 bus arrival


def test_14_bus_arrival_from_an_address(backend: Any, world: World) -> None:
    result = run(backend, "14_bus_from_address.edge")
    got = result.answer

    (addr,) = juso(world, "addrLinkApi", keyword="대전광역시 대덕구 삼정로 217",
                   countPerPage="100")
    (coord,) = juso(world, "addrCoordApi", **{k: addr[k] for k in (
        "admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")})
    lat, lon = utmk_to_wgs84(float(coord["entX"]), float(coord["entY"]))
    near = tago_all(world, "BusSttnInfoInqireService/getCrdntPrxmtSttnList",
                    gpsLati=str(round(lat, 7)), gpsLong=str(round(lon, 7)))
    (city,) = distinct(str(s["citycode"]) for s in near)
    nodes = distinct(s["nodeid"] for s in near)
    assert 2 <= len(nodes) <= 5  # a fan over every nearby stop
    arrivals = [a for n in nodes for a in tago_all(
        world, "ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList", cityCode=city, nodeId=n)]
    first = keep_min(arrivals, lambda a: num(a["arrtime"]))
    (route_id,) = distinct(a["routeid"] for a in first)
    stops = tago_all(world, "BusRouteInfoInqireService/getRouteAcctoThrghSttnList",
                     cityCode=city, routeId=route_id)
    up = [s for s in stops if str(s["updowncd"]) == "0"]
    terminal = keep_max(up, lambda s: num(s["nodeord"]))

    expected = {
        "stops_nearby": len(near),
        "arrivals": len(arrivals),
        "stop": field(first, "nodenm"),
        "route_no": field(first, "routeno", str),
        "minutes": rnd(first[0]["arrtime"] / 60, 1),
        "stops_left": field(first, "arrprevstationcnt"),
        "route_stops": len(stops),
        "terminal": field(terminal, "nodenm"),
    }
    assert got == expected
    assert got == {
        "stops_nearby": 4, "arrivals": 15, "stop": "삼정로사거리", "route_no": "47-2",
        "minutes": 1.7, "stops_left": 1, "route_stops": 52, "terminal": "역전로삼거리",
    }
    assert result.say == (
        "삼정로사거리 정류소에 47-2번 버스가 약 1.7분 뒤(1정류장 전) 도착합니다. "
        "이 노선은 52개 정류소를 지나 역전로삼거리까지 갑니다.")
    assert result.trace is not None
    fans = [j for s in result.trace.steps for j in s.junctions if j.kind == "fan"]
    assert [(j.field, j.cardinality, j.would_be) for j in fans] == [("nodeid", 4, "fan")]


# ====================================================================== 15 neighbourhood housing


def test_15_neighbourhood_housing(backend: Any, world: World) -> None:
    got = run(backend, "15_neighbourhood_housing.edge").answer

    addrs = juso(world, "addrLinkApi", keyword="송파구 가락동", countPerPage="100")
    (adm,) = distinct(a["admCd"] for a in addrs)
    lawd = adm[:5]
    trades: list[dict[str, Any]] = []
    for ym in ("202404", "202405", "202406"):
        rows = gateway_all(world, "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade", 1000,
                           serviceKey="k", _type="json", LAWD_CD=lawd, DEAL_YMD=ym)
        trades.extend({**r, "__arm": ym} for r in rows)
    dong = [t for t in trades if t["umdNm"] == "가락동"]
    top = keep_max(dong, lambda t: num(t["dealAmount"]))
    mid = [t for t in dong if 59 <= num(t["excluUseAr"]) <= 85]  # type: ignore[operator]
    (apt,) = distinct(t["aptNm"] for t in top)
    seoul_path = f"/k/json/tbLnOpendataRtmsV/1/1000/2024/{lawd}/ / / / / / /{apt}/ /아파트"
    seoul = body(world, seoul_path, {})["tbLnOpendataRtmsV"]
    same = seoul["row"]
    assert len(same) == seoul["list_total_count"]
    later = [s for s in same if day(s["CTRT_DAY"]) > _dt.date(2024, 3, 31)]  # type: ignore[operator]
    check = keep_max(later, lambda s: num(s["THING_AMT"]))

    expected = {
        "lawd_cd": lawd,
        "district_trades": len(trades),
        "dong_trades": len(dong),
        "top_apt": apt,
        "top_month": field(top, "__arm"),
        "top_price": field(top, "dealAmount", num),
        "mid_trades": len(mid),
        "mid_avg": rnd(sum(num(t["dealAmount"]) for t in mid) / len(mid), 0),  # type: ignore[misc]
        "seoul_price": field(check, "THING_AMT", num),
        "seoul_day": field(check, "CTRT_DAY", lambda v: day(v).isoformat()),  # type: ignore[union-attr]
    }
    assert got == expected
    assert got["seoul_price"] == got["top_price"]  # the two platforms agree on the deal
    assert got == {
        "lawd_cd": "11710", "district_trades": 493, "dong_trades": 53,
        "top_apt": "센트레빌센트럴", "top_month": "202405", "top_price": 657500,
        "mid_trades": 24, "mid_avg": 174510.0, "seoul_price": 657500,
        "seoul_day": "2024-05-05",
    }


# ====================================================================== 16 HQ's representative


def test_16_company_hq_representative(backend: Any, world: World) -> None:
    got = run(backend, "16_hq_representative.edge").answer

    corps = [c for c in world.rows("dart_corps") if c["corp_name"] == "현대건설"]
    (corp_code,) = distinct(c["corp_code"] for c in corps)
    company = body(world, "/api/company.json", {"crtfc_key": "k", "corp_code": corp_code})
    assert company["status"] == "000"
    addr = juso(world, "addrLinkApi", keyword=company["adres"], countPerPage="100")
    (si,) = distinct(a["siNm"] for a in addr)
    (sgg,) = distinct(a["sggNm"] for a in addr)
    winners = gateway_all(world, "/9760000/WinnerInfoInqireService2/getWinnerInfoInqire", 100,
                          serviceKey="k", resultType="json", sgId="20240410", sgTypecode="2",
                          sdName=si, sggName=sgg)
    (name,) = distinct(w["name"] for w in winners)
    bills: list[dict[str, Any]] = []
    page = 1
    while True:
        b = body(world, "/portal/openapi/nzmimeepazxkubdpn",
                 {"KEY": "k", "Type": "json", "AGE": "22", "PROPOSER": name,
                  "pIndex": str(page), "pSize": "1000"})
        head, rows = b["nzmimeepazxkubdpn"]
        bills.extend(rows["row"])
        if len(rows["row"]) < 1000 or len(bills) >= head["head"][0]["list_total_count"]:
            break
        page += 1
    assert all(b["RST_PROPOSER"] == name for b in bills)  # the name is no one else's part
    freq = Counter(b["COMMITTEE"] for b in bills)
    best = max(freq.values())
    committee = min(c for c, n in freq.items() if n == best)

    expected = {
        "address": company["adres"],
        "district": field(winners, "sggName"),
        "member": name,
        "party": field(winners, "jdName"),
        "bills": len(bills),
        "committee": committee,
        "committee_bills": best,
    }
    assert got == expected
    assert got == {
        "address": "서울특별시 종로구 중앙로 183 (계동)", "district": "종로구", "member": "백석웅",
        "party": "더불어민주당", "bills": 24, "committee": "교육위원회", "committee_bills": 5,
    }


# ====================================================================== 17 trading-day fallback


def test_17_trading_day_fallback(backend: Any, world: World) -> None:
    result = run(backend, "17_trading_day_fallback.edge")
    got = result.answer

    prices = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
    wire = {"serviceKey": "k", "resultType": "json", "mrktCls": "KOSPI"}
    # a Saturday: resultCode 00 with totalCount 0 — empty, not an error
    asked, total = gateway_items(body(world, prices, {**wire, "basDt": "20241228"}))
    assert asked == [] and total == 0
    week = gateway_all(world, prices, 10000, **wire, beginBasDt="20241221", endBasDt="20241228")
    last = keep_max(week, lambda p: day(p["basDt"]))
    top = keep_max(last, lambda p: num(p["fltRt"]))

    expected = {
        "asked_rows": 0,
        "trading_day": field(top, "basDt", lambda v: day(v).isoformat()),  # type: ignore[union-attr]
        "listed": len(last),
        "name": field(top, "itmsNm"),
        "rate": field(top, "fltRt", num),
        "close": field(top, "clpr", num),
    }
    assert got == expected
    assert got == {"asked_rows": 0, "trading_day": "2024-12-27", "listed": 998,
                   "name": "천일파워", "rate": 1.88, "close": 37950}
    assert result.say == ("2024년 12월 27일 기준 코스피 상승률 1위는 천일파워(1.88%), "
                          "종가 37,950원입니다.")
    assert result.trace is not None
    assert [s.branch for s in result.trace.steps if s.branch is not None] == ["then"]
