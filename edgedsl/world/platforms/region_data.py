"""Generators behind the 국토교통부 endpoints of :mod:`edgedsl.world.platforms.region`.

Apartment trades and rents are generated per (시군구, 계약년월) — the unit the real services are
queried by — deterministically from the seed with :func:`~edgedsl.world.rand.hash_unit`, so any
valid request gets an answer without materialising the whole country. Each 시군구 has a fixed set
of apartment complexes (``aptSeq`` ``"11680-4123"``, a name, a real 읍면동 of that 시군구, a lot
number, a construction year, unit sizes and a price level); trades and rents of a month are drawn
from them. Volumes and prices follow the district (Seoul's 25 gu with their real price ranking),
the month (a market index from 2006 to 2025) and the complex.

Wire values follow the data.go.kr XML→JSON conversion of ``_type=json``: text that looks like a
number without a leading zero becomes a JSON number (``"dealYear": 2024``, ``"floor": 7``,
``"excluUseAr": 84.97``), while ``"82,500"`` (comma) and ``"0012"`` (leading zero) stay strings.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise
from typing import Any

from ..addresses import address_row, dong_centre, zip_head
from ..diskcache import disk_cached
from ..rand import hash_unit
from ..regions import LegalDong, legal_dongs, sigungu_list

__all__ = [
    "FIRST_YM",
    "LAST_YM",
    "Complex",
    "apt_rents",
    "apt_trades",
    "complex_addresses",
    "complexes",
    "jsonish",
    "sgg_dongs",
    "sgg_names",
]

FIRST_YM = (2006, 1)
"""The first contract month the 실거래가 services hold."""
LAST_YM = (2025, 12)
"""The last contract month of the world (later months answer no data)."""

_BRANDS = ("래미안", "자이", "힐스테이트", "e편한세상", "푸르지오", "아이파크", "롯데캐슬", "더샵",
           "SK뷰", "센트레빌", "하늘채", "위브", "해링턴플레이스", "어울림", "스위첸", "데시앙")
_OLD = ("현대", "삼성", "한신", "우성", "극동", "벽산", "대림", "동아", "한양", "신동아", "쌍용",
        "삼익", "럭키", "미성", "경남", "청구")
_SIZES = (39.6, 49.94, 59.97, 59.99, 74.52, 84.93, 84.98, 84.99, 101.92, 114.75, 134.89, 164.3)
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")

# Seoul's price ranking: relative price level of each 자치구
_SEOUL_PRICE = {
    "11680": 2.6, "11650": 2.5, "11170": 2.1, "11710": 2.0, "11200": 1.6, "11440": 1.5,
    "11215": 1.4, "11470": 1.4, "11560": 1.3, "11590": 1.3, "11740": 1.3, "11110": 1.2,
    "11140": 1.2, "11410": 1.1, "11230": 1.0, "11290": 1.0, "11500": 1.0, "11380": 0.95,
    "11530": 0.9, "11620": 0.9, "11260": 0.8, "11545": 0.8, "11350": 0.8, "11305": 0.75,
    "11320": 0.72,
}
# 만원 per ㎡ of exclusive area at price level 1.0 and market index 1.0, by 시도
_SIDO_PRICE = {"11": 750, "41": 380, "28": 290, "26": 290, "27": 270, "30": 260, "29": 220,
               "31": 240, "36": 320, "50": 290}


@lru_cache(maxsize=1 << 16)  # rows repeat names and codes: 4.6× on repeated values
def jsonish(value: str) -> Any:
    """A value as data.go.kr's XML→JSON conversion sends it: numeric text without a leading zero
    becomes a number, anything else (``"82,500"``, ``"0012"``, ``""``) stays a string."""
    if _NUMBER.fullmatch(value):
        return float(value) if "." in value else int(value)
    return value


def _market(y: int, m: int) -> float:
    """A monthly price index of the Korean apartment market (2006 = 0.55, 2021 peak ≈ 1.25)."""
    points = {2006: 0.55, 2008: 0.68, 2010: 0.64, 2013: 0.60, 2015: 0.70, 2017: 0.82,
              2019: 0.98, 2021: 1.25, 2022: 1.12, 2023: 1.00, 2024: 1.06, 2025: 1.12}
    years = sorted(points)
    t = y + (m - 1) / 12
    for a, b in pairwise(years):
        if a <= t <= b:
            return points[a] + (points[b] - points[a]) * (t - a) / (b - a)
    return points[years[-1]]


def _volume_index(y: int, m: int) -> float:
    """Trade volume relative to normal (2020–21 boom, 2022 freeze)."""
    by_year = {2006: 1.2, 2007: 0.8, 2008: 0.7, 2012: 0.6, 2015: 1.2, 2016: 1.1, 2020: 1.3,
               2021: 0.9, 2022: 0.35, 2023: 0.6, 2024: 0.8, 2025: 0.9}
    v = by_year.get(y, 0.9)
    return v * (0.8 if m in (1, 2, 8) else 1.0 if m not in (3, 6, 10) else 1.15)


@cache
def sgg_names() -> dict[str, tuple[str, str]]:
    """5-digit 시군구 code → (시도 name, 시군구 name) for every 시군구 in force."""
    return {d.sgg_cd: (d.sido_nm, d.sgg_nm) for d in legal_dongs() if d.level == "sgg"}


@cache
def _dongs_by_sgg() -> dict[str, tuple[LegalDong, ...]]:
    out: dict[str, list[LegalDong]] = {}
    for d in legal_dongs():
        if d.level == "umd":
            out.setdefault(d.sgg_cd, []).append(d)
    return {k: tuple(v) for k, v in out.items()}


def sgg_dongs(sgg_cd: str) -> tuple[LegalDong, ...]:
    """The 읍면동 in force of one 시군구, in code order (one pass over the table for all of
    them: a pass per 시군구 was 80% of making every complex of the world)."""
    return _dongs_by_sgg().get(sgg_cd, ())


@dataclass(frozen=True, slots=True)
class Complex:
    """One apartment complex (단지) of a 시군구."""

    seq: str          # aptSeq "11680-4123"
    name: str         # aptNm
    dong: LegalDong   # its 읍면동
    bonbun: int
    bubun: int
    build_year: int
    floors: int
    sizes: tuple[float, ...]
    price: float      # 만원 per ㎡ at market index 1.0
    weight: float     # share of the 시군구's trades
    road: str         # roadNm
    road_no: int      # roadNmBonbun

    @property
    def road_cd(self) -> int:
        """The number of its road within the 시군구 (the trades' ``roadNmCd``, the building
        register's ``naRoadCd`` after the 시군구 code)."""
        return int(self.seq[6:]) * 7 % 9999

    @property
    def road_mgt_sn(self) -> str:
        """Its 12-digit road-name code (도로명코드: the 시군구 code and :attr:`road_cd`), as juso's
        ``rnMgtSn`` and the building register's ``naRoadCd`` write it."""
        return f"{self.dong.sgg_cd}{self.road_cd:07d}"


def _scale(sgg_cd: str) -> tuple[int, float]:
    """(number of complexes, monthly trades per complex at volume 1.0) of a 시군구."""
    sgg_nm = sgg_names().get(sgg_cd, ("", ""))[1]
    if sgg_cd[:2] == "11":
        return 160, 1.2
    if sgg_nm.endswith("군"):
        return 8, 0.6
    if sgg_cd[:2] in ("26", "27", "28", "29", "30", "31", "41"):
        return 90, 1.3
    return 45, 1.0


@lru_cache(maxsize=512)
def complexes(seed: int, sgg_cd: str) -> tuple[Complex, ...]:
    """The apartment complexes of a 시군구 (empty when it has no 읍면동)."""
    dongs = sgg_dongs(sgg_cd)
    if not dongs:
        return ()
    r = random.Random(int(hash_unit(seed, "molit-complexes", sgg_cd) * 2**53))
    count, _ = _scale(sgg_cd)
    level = _SEOUL_PRICE.get(sgg_cd, 1.0) * _SIDO_PRICE.get(sgg_cd[:2], 170)
    if sgg_names().get(sgg_cd, ("", ""))[1].endswith("군"):
        level *= 0.6
    out: list[Complex] = []
    used: set[str] = set()
    for i in range(count):
        dong = r.choice(dongs)
        stem = dong.umd_nm.rstrip("0123456789가동읍면")
        year = r.choice((r.randint(1978, 1999), r.randint(1995, 2015), r.randint(2005, 2024)))
        if year < 2000:
            name = r.choice((f"{stem}{r.choice(_OLD)}", f"{r.choice(_OLD)}{r.randint(1, 9)}차",
                             f"{stem}주공{r.randint(1, 12)}단지"))
        else:
            name = r.choice((f"{r.choice(_BRANDS)}{stem}", f"{stem}{r.choice(_BRANDS)}",
                             f"{r.choice(_BRANDS)}{r.choice(('센트럴', '파크', '포레', '리버'))}"))
        while name in used:
            name += str(r.randint(2, 9)) + "단지"
        used.add(name)
        sizes = tuple(sorted(r.sample(_SIZES, r.randint(2, 4))))
        newness = 1.0 + max(0, year - 2000) * 0.012
        out.append(Complex(
            seq=f"{sgg_cd}-{1000 + i * 37 + r.randint(0, 36)}", name=name, dong=dong,
            bonbun=r.randint(1, 999), bubun=r.choice((0, 0, r.randint(1, 30))),
            build_year=year, floors=r.choice((5, 12, 15) if year < 1995 else (15, 20, 25, 35)),
            sizes=sizes, price=level * newness * r.uniform(0.75, 1.3),
            weight=r.uniform(0.3, 3.0),
            road=f"{stem}로{r.choice(('', str(r.randint(1, 40)) + '길'))}",
            road_no=r.randint(1, 300)))
    return tuple(out)


def complex_address(seed: int, c: Complex) -> dict[str, Any]:
    """The juso row of complex ``c``: the road address its register rows give
    (``newPlatPlc``), its lot, its name, its road's code (the trades' ``roadNmCd``)."""
    lat, lon = dong_centre(seed, c.dong)
    u, v = hash_unit(seed, "complex-at", c.seq), hash_unit(seed, "complex-lon", c.seq)
    return address_row(
        c.dong, road=c.road, road_no=c.road_mgt_sn, main=c.road_no, sub=0,
        lot=(c.bonbun, c.bubun), underground=False, name=c.name, apartment=True,
        zip_no=f"{zip_head(seed, c.dong.sgg_cd):02d}{int(u * 1000):03d}",
        serial=f"1{c.bonbun:04d}{c.bubun:04d}{int(c.seq[6:]):06d}",
        at=(lat + (u - 0.5) * 0.008, lon + (v - 0.5) * 0.01))


@cache
@disk_cached
def complex_addresses(seed: int) -> tuple[dict[str, Any], ...]:
    """The juso rows of every apartment complex of the world, 시군구 by 시군구: juso finds the
    complexes that 실거래가 and the building register name, as it finds every building."""
    return tuple(complex_address(seed, c) for d in sigungu_list()
                 for c in complexes(seed, d.sgg_cd))


def _month_count(seed: int, kind: str, sgg_cd: str, y: int, m: int, per: float) -> int:
    if (y, m) < FIRST_YM or (y, m) > LAST_YM:
        return 0
    n, rate = _scale(sgg_cd)
    base = n * rate * per * _volume_index(y, m) * (0.7 + 0.6 * hash_unit(seed, kind, sgg_cd, y, m))
    if sgg_cd[:2] == "11":
        return max(100, min(1000, int(base)))
    return int(base)


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days(y: int, m: int) -> int:
    return 29 if m == 2 and y % 4 == 0 else _MONTH_DAYS[m - 1]


def _yymmdd(y: int, m: int, d: int) -> str:
    return f"{y % 100:02d}.{m:02d}.{d:02d}"


def _standing(cplx: tuple[Complex, ...], y: int) -> bool:
    """Whether some complex of the district stands in year ``y`` (is built by then)."""
    return any(c.build_year <= y for c in cplx)


def _built_by(r: random.Random, cplx: tuple[Complex, ...], cum: list[float],
              y: int) -> Complex:
    """A complex drawn by weight among those built by year ``y`` (issue 21 §9: a trade of
    2006 was drawn among complexes built up to 2024). A complex not yet built is drawn again,
    so a month after the district's last completion draws exactly as it did before this rule
    (the months of 2024 and later keep their trades); some complex must stand (``_standing``)."""
    while True:
        c = r.choices(cplx, cum_weights=cum)[0]
        if c.build_year <= y:
            return c


@lru_cache(maxsize=512)
def _cum_weights(seed: int, sgg_cd: str) -> list[float]:
    out, acc = [], 0.0
    for c in complexes(seed, sgg_cd):
        acc += c.weight
        out.append(acc)
    return out


def _common(c: Complex, sgg_cd: str) -> dict[str, str]:
    return {
        "sggCd": sgg_cd, "umdCd": c.dong.code[5:10], "umdNm": c.dong.umd_nm,
        "aptNm": c.name, "aptSeq": c.seq,
        "jibun": f"{c.bonbun}-{c.bubun}" if c.bubun else str(c.bonbun),
        "buildYear": str(c.build_year),
    }


@lru_cache(maxsize=256)
def apt_trades(seed: int, sgg_cd: str, y: int, m: int) -> tuple[dict[str, Any], ...]:
    """The apartment sales reported for contracts of month ``y``-``m`` in ``sgg_cd``, as sent by
    ``getRTMSDataSvcAptTrade`` (ordered by contract day)."""
    cplx = complexes(seed, sgg_cd)
    count = _month_count(seed, "molit-trade-n", sgg_cd, y, m, 1.0) if _standing(cplx, y) else 0
    r = random.Random(int(hash_unit(seed, "molit-trade", sgg_cd, y, m) * 2**53))
    cum = _cum_weights(seed, sgg_cd)
    sido_nm, sgg_nm = sgg_names().get(sgg_cd, ("", ""))
    agent = f"{sido_nm[:2]} {sgg_nm.split()[0]}" if sgg_nm else sido_nm[:2]
    index = _market(y, m)
    rows: list[tuple[int, dict[str, Any]]] = []
    for _ in range(count):
        c = _built_by(r, cplx, cum, y)
        day = r.randint(1, _days(y, m))
        area = r.choice(c.sizes)
        price = c.price * area * index * r.uniform(0.9, 1.1) * (1 + 0.004 * min(area, 135))
        amount = max(3000, int(round(price / 50) * 50))
        direct = r.random() < 0.1
        cancel = r.random() < 0.025
        registered = (y, m) < (2025, 6) and r.random() < 0.85
        reg_m = m + r.randint(1, 3)
        row = _common(c, sgg_cd) | {
            "landCd": "1", "bonbun": f"{c.bonbun:04d}", "bubun": f"{c.bubun:04d}",
            "roadNm": c.road, "roadNmSggCd": sgg_cd, "roadNmCd": f"{c.road_cd:04d}",
            "roadNmSeq": "01", "roadNmbCd": "0", "roadNmBonbun": f"{c.road_no:05d}",
            "roadNmBubun": "00000",
            "excluUseAr": f"{area:.2f}".rstrip("0").rstrip("."),
            "dealYear": str(y), "dealMonth": str(m), "dealDay": str(day),
            "dealAmount": f"{amount:,}",
            "floor": str(-1 if r.random() < 0.004 else r.randint(1, c.floors)),
            "cdealType": "O" if cancel else "",
            "cdealDay": _yymmdd(y, min(12, m + 1), r.randint(1, 28)) if cancel else "",
            "dealingGbn": "직거래" if direct else "중개거래",
            "estateAgentSggNm": "" if direct else agent,
            "rgstDate": _yymmdd(y + (reg_m > 12), (reg_m - 1) % 12 + 1, r.randint(1, 28))
            if registered and not cancel else "",
            "aptDong": f"{r.randint(1, 12) + 100}" if r.random() < 0.7 else "",
            "slerGbn": r.choices(("개인", "법인", "공공기관", "기타"), (90, 6, 2, 2))[0],
            "buyerGbn": r.choices(("개인", "법인", "공공기관", "기타"), (93, 4, 1, 2))[0],
            "landLeaseholdGbn": "N",
        }
        rows.append((day, {k: jsonish(v) for k, v in row.items()}))
    rows.sort(key=lambda t: t[0])
    return tuple(row for _, row in rows)


@lru_cache(maxsize=256)
def apt_rents(seed: int, sgg_cd: str, y: int, m: int) -> tuple[dict[str, Any], ...]:
    """The apartment 전월세 contracts of month ``y``-``m`` in ``sgg_cd``, as sent by
    ``getRTMSDataSvcAptRent`` (보증금 ``deposit`` and 월세 ``monthlyRent`` in 만원)."""
    cplx = complexes(seed, sgg_cd)
    count = _month_count(seed, "molit-rent-n", sgg_cd, y, m, 1.6) if _standing(cplx, y) else 0
    r = random.Random(int(hash_unit(seed, "molit-rent", sgg_cd, y, m) * 2**53))
    cum = _cum_weights(seed, sgg_cd)
    index = _market(y, m)
    rows: list[tuple[int, dict[str, Any]]] = []
    for _ in range(count):
        c = _built_by(r, cplx, cum, y)
        day = r.randint(1, _days(y, m))
        area = r.choice(c.sizes)
        jeonse = c.price * area * index * r.uniform(0.45, 0.62)
        monthly = r.random() < 0.42
        if monthly:
            deposit = int(jeonse * r.uniform(0.1, 0.5) / 500) * 500 or 500
            rent = max(20, int((jeonse - deposit) * 0.045 / 12))
        else:
            deposit, rent = max(1000, int(jeonse / 500) * 500), 0
        renewal = y >= 2021 and r.random() < 0.3
        term_m = r.randint(1, 12)
        row = _common(c, sgg_cd) | {
            "excluUseAr": f"{area:.2f}".rstrip("0").rstrip("."),
            "dealYear": str(y), "dealMonth": str(m), "dealDay": str(day),
            "deposit": f"{deposit:,}", "monthlyRent": str(rent),
            "floor": str(r.randint(1, c.floors)),
            "contractTerm": f"{y % 100:02d}.{term_m:02d}~{(y + 2) % 100:02d}.{term_m:02d}"
            if y >= 2021 else "",
            "contractType": ("갱신" if renewal else "신규") if y >= 2021 else "",
            "useRRRight": "사용" if renewal and r.random() < 0.6 else "",
            "preDeposit": f"{int(deposit * 0.95):,}" if renewal else "",
            "preMonthlyRent": str(int(rent * 0.95)) if renewal else "",
        }
        rows.append((day, {k: jsonish(v) for k, v in row.items()}))
    rows.sort(key=lambda t: t[0])
    return tuple(row for _, row in rows)
