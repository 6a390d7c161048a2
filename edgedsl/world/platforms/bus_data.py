"""The bus networks of the world: TAGO cities, stops near addresses, routes and vehicles.

A city's network is generated on demand (cached per seed and city) from the shared address
universe: every address of the city gets a few pairs of stops (one on each side of the road,
same name) within ~400 m, so that an address → coordinates → nearby stops chain always finds
stops. Routes are windows over two space-filling orders of the stop pairs (outbound on one side,
inbound on the other), 50–150 stops each in the big cities; a few vehicles run on each route at
positions fixed by the seed, so arrivals (``arrtime`` seconds, ``arrprevstationcnt``) and
vehicle locations agree and never depend on the wall clock.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..addresses import addresses
from ..rand import rng
from ..regions import legal_dongs

__all__ = ["City", "Network", "Stop", "cities", "cities_near", "city_of_sgg", "network",
           "seoul_network", "wire"]

# 법정동 시도 → TAGO 시도 번호 (광역시·세종·제주는 그 자체가 도시코드)
_METRO = {"26": ("21", "BSB"), "27": ("22", "DGB"), "28": ("23", "ICB"), "29": ("24", "GJB"),
          "30": ("25", "DJB"), "31": ("26", "USB"), "36": ("12", "SJB"), "50": ("39", "JJB")}
_PROVINCE = {"41": ("31", "GGB"), "51": ("32", "GWB"), "43": ("33", "CBB"), "44": ("34", "CNB"),
             "52": ("35", "JBB"), "46": ("36", "JNB"),
             "47": ("37", "GBB"), "48": ("38", "GNB")}
_CITY_PREFIX = {"천안시": "CAB", "아산시": "ASB", "창원시": "CWB", "청주시": "CJB", "전주시": "JUB",
                "포항시": "PHB", "김해시": "GHB", "구미시": "GMB", "원주시": "WJB", "춘천시": "CCB"}

SEOUL_SIDO = "11"

_STOP_SUFFIX = ("입구", "사거리", "삼거리", "주민센터", "초등학교", "시장", "우체국", "파출소",
                "공원", "아파트", "정류장", "종점", "농협", "보건소", "교회", "중학교")


@dataclass(frozen=True, slots=True)
class City:
    """A TAGO city: ``citycode`` (2 digits for metros, 5 otherwise), name, id prefix and the
    5-digit 시군구 codes (법정동 앞 5자리) it covers."""

    code: str
    name: str
    prefix: str
    index: int
    sgg: tuple[str, ...]


@dataclass(slots=True)
class Stop:
    """One bus stop (one side of the road)."""

    nodeid: str
    nodenm: str
    nodeno: str
    lat: float
    lon: float
    sgg: str
    routes: list[tuple[int, int]] = field(default_factory=list)  # (route index, nodeord)


@dataclass(slots=True)
class Network:
    """Stops, routes (stop index sequences with their metadata) and vehicles of one city."""

    stops: list[Stop]
    routes: list[dict[str, Any]]
    sequences: list[list[int]]
    vehicles: list[list[tuple[int, str, str]]]  # per route: (nodeord, vehicleno, vehicletp)
    by_id: dict[str, int]


@cache
def cities() -> tuple[City, ...]:
    """Every TAGO city of the world, from the real 시군구 table (Seoul is not covered)."""
    metros: dict[str, list[str]] = {}
    provinces: dict[str, dict[str, list[str]]] = {}
    names: dict[str, str] = {}
    for d in legal_dongs():
        if d.level != "sgg" or not d.sgg_nm:
            continue
        if d.sido_cd in _METRO:
            metros.setdefault(d.sido_cd, []).append(d.sgg_cd)
            names[d.sido_cd] = d.sido_nm
        elif d.sido_cd in _PROVINCE:
            city = d.sgg_nm.split(" ")[0]
            prov = provinces.setdefault(_PROVINCE[d.sido_cd][0], {})
            if not city.endswith(("시", "군")):  # 출장소 (전주시효자출): its parent city
                city = next((c for c in prov if city.startswith(c)), "")
                if not city:
                    continue
            prov.setdefault(city, []).append(d.sgg_cd)
    out: list[City] = []
    for sido, sggs in sorted(metros.items(), key=lambda kv: _METRO[kv[0]][0]):
        code, prefix = _METRO[sido]
        out.append(City(code, names[sido], prefix, len(out) + 1, tuple(sggs)))
    for prov_code, cs in sorted(provinces.items()):
        prefix = next(p for c, p in _PROVINCE.values() if c == prov_code)
        for i, (city, sggs) in enumerate(cs.items()):
            out.append(City(f"{prov_code}{(i + 1) * 10:03d}", city, _CITY_PREFIX.get(city, prefix),
                            len(out) + 1, tuple(sggs)))
    return tuple(sorted(out, key=lambda c: (len(c.code), c.code)))


@cache
def city_of_sgg() -> dict[str, City]:
    """The TAGO city covering each 5-digit 시군구 code."""
    return {s: c for c in cities() for s in c.sgg}


def wire(v: object) -> Any:
    """A value as data.go.kr's XML→JSON conversion sends it: digit strings without a leading
    zero become JSON numbers (``nodeno`` 44510, ``routeno`` 102, ``citycode`` 25), others stay
    strings (``"0530"``, ``"DJB8001793"``, ``"102-1"``)."""
    s = str(v)
    if s.isdigit() and (s == "0" or not s.startswith("0")):
        return int(s)
    try:
        if "." in s and not s.startswith(".") and not s.endswith("."):
            f = float(s)
            if math.isfinite(f) and s.replace(".", "", 1).lstrip("-").isdigit():
                return f
    except ValueError:
        pass
    return s


def _offset(lat: float, lon: float, metres: float, bearing: float) -> tuple[float, float]:
    dlat = metres * math.cos(bearing) / 111_320.0
    dlon = metres * math.sin(bearing) / (111_320.0 * math.cos(math.radians(lat)))
    return lat + dlat, lon + dlon


def _stop_name(r: random.Random, a: dict[str, Any]) -> str:
    pick = r.random()
    if a["bdNm"] and pick < 0.25:
        return str(a["bdNm"])
    if pick < 0.55:
        return f"{a['rn']}{r.choice(_STOP_SUFFIX[:3])}"
    return f"{a['emdNm']}{r.choice(_STOP_SUFFIX)}"


def _snake(pairs: list[tuple[float, float]], by_lat: bool, cell: float) -> list[int]:
    def key(i: int) -> tuple[int, float]:
        lat, lon = pairs[i]
        band = int((lat if by_lat else lon) / cell)
        along = lon if by_lat else lat
        return band, along if band % 2 == 0 else -along
    return sorted(range(len(pairs)), key=key)


def build_network(seed: int, key: str, addrs: list[dict[str, Any]], pairs_per_addr: int,
                  make_ids: Any, window: tuple[int, int]) -> Network:
    """The stops and routes over ``addrs``; ``make_ids(n, sgg)`` names stop ``n`` of the city."""
    r = rng(seed, f"bus_network_{key}")
    stops: list[Stop] = []
    pair_pos: list[tuple[float, float]] = []
    for a in addrs:
        for _ in range(pairs_per_addr):
            lat, lon = _offset(a["_lat"], a["_lon"], r.uniform(40, 420), r.uniform(0, 2 * math.pi))
            name = _stop_name(r, a)
            side = r.uniform(0, 2 * math.pi)
            for k in range(2):
                la, lo = _offset(lat, lon, 18 * k, side)
                nodeid, nodeno = make_ids(len(stops), a["admCd"][:5])
                stops.append(Stop(nodeid, name, nodeno, round(la, 7), round(lo, 7),
                                  a["admCd"][:5]))
            pair_pos.append((lat, lon))
    sequences: list[list[int]] = []
    n = len(pair_pos)
    if n == 0:
        return Network(stops, [], [], [], {})
    for by_lat in (True, False):
        order = _snake(pair_pos, by_lat, 0.012)
        start = r.randrange(max(1, min(n, window[0])))
        while start < n or not sequences:
            w = min(n, r.randint(*window))
            chunk = order[start:start + w] if start + w <= n else order[max(0, n - w):]
            sequences.append([2 * p for p in chunk] + [2 * p + 1 for p in reversed(chunk)])
            start += max(1, w // 2)
            if start + w // 2 >= n:
                break
    routes: list[dict[str, Any]] = []
    vehicles: list[list[tuple[int, str, str]]] = []
    for ri, seq in enumerate(sequences):
        for o, si in enumerate(seq, start=1):
            stops[si].routes.append((ri, o))
        routes.append({"_first": stops[seq[0]].nodenm, "_last": stops[seq[len(seq) // 2]].nodenm,
                       "_len": len(seq)})
        k = r.choice((0, 1, 2, 3, 3, 4, 5, 6)) if len(seq) > 6 else r.randint(0, 1)
        where = sorted(r.sample(range(1, len(seq) + 1), min(k, len(seq))))
        vehicles.append([(o, f"{r.randint(70, 79)}{r.choice('가나다라마바사아자')}"
                            f"{r.randint(1000, 9999)}",
                          "저상버스" if r.random() < 0.35 else "일반차량") for o in where])
    return Network(stops, routes, sequences, vehicles, {s.nodeid: i for i, s in enumerate(stops)})


@cache
def _addresses_by_sgg(seed: int) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for a in addresses(seed):
        out.setdefault(a["admCd"][:5], []).append(a)
    return out


@cache
def network(seed: int, citycode: str) -> Network | None:
    """The network of one TAGO city (None for an unknown city code); cached per seed."""
    city = next((c for c in cities() if c.code == citycode), None)
    if city is None:
        return None
    by_sgg = _addresses_by_sgg(seed)
    addrs = [a for s in city.sgg for a in by_sgg.get(s, ())]

    def ids(n: int, _sgg: str) -> tuple[str, str]:
        return f"{city.prefix}{city.index:03d}{n:06d}", str(10001 + n)

    return build_network(seed, citycode, addrs, 2, ids, (25, 75))


@cache
def _address_grid(seed: int) -> dict[tuple[int, int], set[str]]:
    """``(lat, lon) cell of 0.01° → 시군구 codes`` of the addresses in that cell."""
    grid: dict[tuple[int, int], set[str]] = {}
    for a in addresses(seed):
        grid.setdefault((int(a["_lat"] * 100), int(a["_lon"] * 100)), set()).add(a["admCd"][:5])
    return grid


def cities_near(seed: int, lat: float, lon: float) -> list[str]:
    """The TAGO city codes with an address within about 1.2 km of a point: only they can have
    stops within 500 m (every stop lies within ~420 m of its address)."""
    grid, by_sgg = _address_grid(seed), city_of_sgg()
    ci, cj = int(lat * 100), int(lon * 100)
    codes = {by_sgg[s].code for di in (-1, 0, 1) for dj in (-2, -1, 0, 1, 2)
             for s in grid.get((ci + di, cj + dj), ()) if s in by_sgg}
    return sorted(codes)


@cache
def seoul_network(seed: int) -> Network:
    """Seoul's network (서울 버스, ws.bus.go.kr): stops keyed by ``arsId``."""
    by_sgg = _addresses_by_sgg(seed)
    gus = sorted(s for s in by_sgg if s.startswith(SEOUL_SIDO))
    gu_index = {s: i + 1 for i, s in enumerate(gus)}
    counters: dict[str, int] = {}
    addrs = [a for s in gus for a in by_sgg[s]]

    def ids(_n: int, sgg: str) -> tuple[str, str]:
        counters[sgg] = counters.get(sgg, 0) + 1
        gi, k = gu_index[sgg], counters[sgg]
        return f"1{gi - 1:02d}000{k:03d}", f"{gi:02d}{k:03d}"  # stId (9), arsId (5)

    return build_network(seed, "seoul", addrs, 1, ids, (25, 60))
