"""행정안전부 법정동코드 (StanReginCd), 도로명주소 (juso.go.kr), 국토교통부 (실거래가, 건축물대장).

- ``mois.getStanReginCdList`` serves the **real** legal-district table
  (:mod:`edgedsl.world.regions`), hub-shaped JSON under ``StanReginCd``, filtered by a part of
  the address name (``locatadd_nm``).
- ``juso.addrLinkApi`` / ``addrEngApi`` search the shared address universe
  (:mod:`edgedsl.world.addresses`): every keyword token must occur in the road address, the lot
  address or the building name; a keyword that names only a 시도 is ``E0006``, a one-letter one
  ``E0008``. ``addrCoordApi`` answers the entrance of one building in UTM-K metres
  (:mod:`edgedsl.world.geo`), computed from the address's WGS84 position.
- ``molit`` serves apartment trades and rents per (``LAWD_CD``, ``DEAL_YMD``) from
  :mod:`edgedsl.world.platforms.region_data`, and the building register (표제부) of the buildings
  of the address universe by parcel (``sigunguCd`` + ``bjdongCd`` + ``bun`` + ``ji``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING

from ..addresses import addresses, english_address
from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..engine import WorldError
from ..geo import wgs84_to_utmk
from ..rand import hash_unit
from ..regions import legal_dongs
from ..successions import lawd_now
from .region_data import (
    FIRST_YM,
    LAST_YM,
    Complex,
    apt_rents,
    apt_trades,
    complex_addresses,
    complexes,
    jsonish,
)

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "coord_row", "keyword_matches"]

# ---------------------------------------------------------------- 행정안전부 법정동코드


def build_regions(world: World) -> list[Row]:
    """Every legal district in force now as a ``getStanReginCdList`` row (code order)."""
    rows: list[Row] = []
    order: dict[str, int] = {}
    for d in sorted(legal_dongs(), key=lambda d: d.code):
        level = d.level
        parent = {"sido": "0000000000", "sgg": d.code[:2] + "00000000",
                  "umd": d.code[:5] + "00000", "ri": d.code[:8] + "00"}[level]
        order[parent] = order.get(parent, 0) + 1
        low = d.ri_nm or d.umd_nm or (d.sgg_nm.split()[-1] if d.sgg_nm else d.sido_nm)
        rows.append({
            "region_cd": d.code, "sido_cd": d.code[:2], "sgg_cd": d.code[2:5],
            "umd_cd": d.code[5:8], "ri_cd": d.code[8:], "locatjumin_cd": d.code,
            "locatjijuk_cd": d.code, "locatadd_nm": d.full_name, "locat_order": order[parent],
            "locat_rm": None, "locathigh_cd": parent, "locallow_nm": low,
            "adpt_de": d.created if level in ("umd", "ri") else "",
        })
    return rows


# ---------------------------------------------------------------- juso.go.kr

_SIDO_SHORT = frozenset({
    "서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "경기", "강원", "충북", "충남",
    "전북", "전남", "경북", "경남", "제주", "서울시", "부산시", "대구시", "인천시", "광주시",
    "대전시", "울산시", "세종시", "제주도"})


@cache
def _sido_only() -> frozenset[str]:
    """The texts that name only a 시도 (a juso keyword refuses them): the table's 시도 names and
    their short forms (built on first use: the table is not read when no address is asked)."""
    return frozenset(d.sido_nm for d in legal_dongs() if d.level == "sido") | _SIDO_SHORT


@cache
def juso_rows(seed: int) -> tuple[Row, ...]:
    """Every building juso knows: the address universe, then the apartment complexes."""
    return addresses(seed) + complex_addresses(seed)


_WORD = re.compile(r"[\s(),\x00]+")


@cache
def _haystacks(seed: int) -> tuple[tuple[str, frozenset[str]], ...]:
    """Per building: its searchable text and the words of it (numbers are matched whole)."""
    out = []
    for a in juso_rows(seed):
        text = f"{a['roadAddr']}\x00{a['jibunAddr']}\x00{a['bdNm']}"
        out.append((text, frozenset(_WORD.split(text))))
    return tuple(out)


_LOT = re.compile(r"[0-9]+(?:-[0-9]+)?번지")
"""A lot number written with 번지 (``985번지``, ``123-4번지``)."""


def keyword_matches(seed: int, keyword: str) -> list[Row]:
    """The addresses a juso keyword finds: every whitespace-separated token occurs in the road
    address, the lot address or the building name — a number (``12``, ``159-5``) as a whole
    building or lot number (``중앙로 12`` is not ``중앙로 120``), also when written with
    ``번지`` as the building register writes a lot (``장지동 985번지``), other tokens as any
    part. Raises the juso input errors."""
    text = keyword.strip()
    if not text:
        raise WorldError("missing_param", "keyword")
    if len(text) < 2:
        raise WorldError("bad_number", "검색어는 두글자 이상")
    if text in _sido_only():
        raise WorldError("bad_param", "시도명만 입력")
    tokens = [t.removesuffix("번지") if _LOT.fullmatch(t) else t for t in text.split()]
    numbers = frozenset(t for t in tokens if t.replace("-", "").isdigit())
    parts = [t for t in tokens if t not in numbers]
    rows = juso_rows(seed)
    return [rows[i] for i, (h, words) in enumerate(_haystacks(seed))
            if numbers <= words and all(t in h for t in parts)]


def _juso_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    return keyword_matches(world.seed, params.get("keyword", ""))


def _eng_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    for a in keyword_matches(world.seed, params.get("keyword", "")):
        yield {**{k: a[k] for k in _ENG_KEEP}, **english_address(a),
               "korAddr": a["roadAddrPart1"]}


_ENG_KEEP = ("zipNo", "admCd", "rnMgtSn", "bdMgtSn", "bdKdcd", "udrtYn", "buldMnnm",
             "buldSlno", "mtYn", "lnbrMnnm", "lnbrSlno")


def _group_by_adm(rows: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for a in rows:
        out.setdefault(a["admCd"], []).append(a)
    return out


@cache
def _by_adm(seed: int) -> dict[str, list[Row]]:
    """Every building juso knows, by its 10-digit 법정동 code."""
    return _group_by_adm(juso_rows(seed))


@cache
def _addresses_by_adm(seed: int) -> dict[str, list[Row]]:
    """The address universe's buildings (the complexes aside: their register rows are their
    own), by 법정동 code."""
    return _group_by_adm(addresses(seed))


def coord_row(a: Row) -> Row:
    """The ``addrCoordApi`` answer for address ``a``: its entrance in UTM-K (strings, metres)."""
    x, y = wgs84_to_utmk(a["_lat"], a["_lon"])
    keep = ("admCd", "rnMgtSn", "bdMgtSn", "udrtYn", "buldMnnm", "buldSlno", "bdNm")
    return {**{k: a[k] for k in keep}, "entX": repr(round(x, 10)), "entY": repr(round(y, 10))}


def _coord_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    for a in _by_adm(world.seed).get(params.get("admCd", "").strip(), []):
        yield coord_row(a)


# ---------------------------------------------------------------- 국토교통부

_YM = re.compile(r"([0-9]{4})(0[1-9]|1[0-2])")


def _lawd_month(params: Mapping[str, str]) -> tuple[str, str, int, int] | None:
    """(the code asked, the code in force now of its district, year, month), or None when the
    request names no district's month: a malformed code or month, a month outside the data, or
    a code not in force that month (:func:`edgedsl.world.successions.lawd_now`)."""
    lawd, ym = params.get("LAWD_CD", "").strip(), params.get("DEAL_YMD", "").strip()
    m = _YM.fullmatch(ym)
    if not re.fullmatch(r"[0-9]{5}", lawd) or m is None:
        return None
    y, mo = int(m.group(1)), int(m.group(2))
    if not FIRST_YM <= (y, mo) <= LAST_YM:
        return None
    now = lawd_now(lawd, y, mo)
    return None if now is None else (lawd, now, y, mo)


def _as_asked(rows: tuple[Row, ...], asked: str, now: str) -> Iterable[Row]:
    """The rows under the code asked (the world makes a district's rows under its code in
    force now; a month before a renumbering is asked under the code retired since)."""
    if asked == now:
        return rows
    code = jsonish(asked)  # as the rows write a code (the JSON number the service sends)
    return tuple(r | {"sggCd": code, "roadNmSggCd": code} if "roadNmSggCd" in r
                 else r | {"sggCd": code} for r in rows)


def _month_rows(gen: Callable[[int, str, int, int], tuple[Row, ...]], world: World,
                params: Mapping[str, str]) -> Iterable[Row]:
    """The rows ``gen`` (trades or leases) makes for the district and month asked, under the
    code asked."""
    key = _lawd_month(params)
    if key is None:
        return ()
    asked, now, y, mo = key
    return _as_asked(gen(world.seed, now, y, mo), asked, now)


def _trade_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    return _month_rows(apt_trades, world, params)


def _rent_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    return _month_rows(apt_rents, world, params)


_STRUCT = (("21", "철근콘크리트구조"), ("11", "벽돌구조"), ("31", "일반철골구조"))
_PURPOSE = {"1": ("02000", "공동주택", "아파트"), "0": ("14000", "업무시설", "사무소")}


def _titles(seed: int, a: Row) -> list[Row]:
    """The 표제부 rows of the buildings at address ``a`` (apartments have several 동)."""
    r = random.Random(int(hash_unit(seed, "molit-br", a["bdMgtSn"]) * 2**53))
    apt = "아파트" in a["bdNm"]
    n_dong = r.randint(2, 8) if apt else 1
    year = r.randint(1975, 2023)
    purpose = _PURPOSE["1" if apt else "0"] if apt or r.random() < 0.5 else \
        ("01000", "단독주택", "다가구주택")
    struct = _STRUCT[0] if apt else r.choice(_STRUCT)
    plat = round(r.uniform(150, 30000 if apt else 1200), 2)
    bun, ji = f"{int(a['lnbrMnnm']):04d}", f"{int(a['lnbrSlno']):04d}"
    place = {"platPlc": f"{a['jibunAddr']}번지", "sigunguCd": a["admCd"][:5],
             "bjdongCd": a["admCd"][5:], "bun": bun, "ji": ji, "pk": a["bdMgtSn"],
             "newPlatPlc": f" {a['roadAddr']}", "bldNm": a["bdNm"], "naRoadCd": a["rnMgtSn"],
             "naBjdongCd": a["admCd"][5:8] + "01", "naUgrndCd": a["udrtYn"],
             "naMainBun": a["buldMnnm"], "naSubBun": a["buldSlno"]}
    return [_title(seed, r, i, place, apt=apt, n_dong=n_dong, year=year, purpose=purpose,
                   struct=struct, plat=plat, floors=r.randint(12, 35) if apt else r.randint(1, 15))
            for i in range(n_dong)]


def _complex_titles(seed: int, c: Complex) -> list[Row]:
    """The 표제부 rows of apartment complex ``c``: one per 동, completed in its build year and no
    taller than its floors — the building a trade of it names (issue 21 §9: a 법정동 held the
    four buildings of its addresses and none of its complexes)."""
    r = random.Random(int(hash_unit(seed, "molit-br-complex", c.seq) * 2**53))
    n_dong = r.randint(2, 12)
    plat = round(r.uniform(8000, 60000), 2)
    sgg, bjd = c.dong.code[:5], c.dong.code[5:]
    place = {"platPlc": f"{c.dong.full_name} {c.bonbun}" + (f"-{c.bubun}" if c.bubun else "")
             + "번지", "sigunguCd": sgg, "bjdongCd": bjd, "bun": f"{c.bonbun:04d}",
             "ji": f"{c.bubun:04d}", "pk": c.seq, "newPlatPlc":
             f" {c.dong.sido_nm} {c.dong.sgg_nm} {c.road} {c.road_no}", "bldNm": c.name,
             "naRoadCd": c.road_mgt_sn,
             "naBjdongCd": bjd[:3] + "01", "naUgrndCd": "0", "naMainBun": str(c.road_no),
             "naSubBun": "0"}
    return [_title(seed, r, i, place, apt=True, n_dong=n_dong, year=c.build_year,
                   purpose=_PURPOSE["1"], struct=_STRUCT[0], plat=plat,
                   floors=c.floors if i == 0 else r.randint(max(5, c.floors - 8), c.floors))
            for i in range(n_dong)]


def _title(seed: int, r: random.Random, i: int, place: Mapping[str, str], *, apt: bool,
           n_dong: int, year: int, purpose: tuple[str, str, str], struct: tuple[str, str],
           plat: float, floors: int) -> Row:
    """One 표제부 row: building ``i`` of ``n_dong`` on a lot at ``place`` (its codes, lot and
    road address, name, and the key of its register number)."""
    arch = round(plat * r.uniform(0.15, 0.5) / n_dong, 2)
    tot = round(arch * floors * r.uniform(0.8, 1.0), 2)
    row = {
        "rnum": str(i + 1), "platPlc": place["platPlc"],
        "sigunguCd": place["sigunguCd"], "bjdongCd": place["bjdongCd"], "platGbCd": "0",
        "bun": place["bun"], "ji": place["ji"],
        "mgmBldrgstPk": f"{place['sigunguCd']}-{int(hash_unit(seed, place['pk'], i) * 1e8)}",
        "regstrGbCd": "1", "regstrGbCdNm": "일반", "regstrKindCd": "2",
        "regstrKindCdNm": "일반건축물", "newPlatPlc": place["newPlatPlc"],
        "bldNm": place["bldNm"], "splotNm": "", "block": "", "lot": "", "bylotCnt": "0",
        "naRoadCd": place["naRoadCd"], "naBjdongCd": place["naBjdongCd"],
        "naUgrndCd": place["naUgrndCd"], "naMainBun": place["naMainBun"],
        "naSubBun": place["naSubBun"],
        "dongNm": f"{101 + i}동" if apt else "", "mainAtchGbCd": "0",
        "mainAtchGbCdNm": "주건축물", "platArea": str(plat), "archArea": str(arch),
        "bcRat": str(round(arch * n_dong / plat * 100, 2)), "totArea": str(tot),
        "vlRatEstmTotArea": str(tot), "vlRat": str(round(tot * n_dong / plat * 100, 2)),
        "strctCd": struct[0], "strctCdNm": struct[1], "etcStrct": struct[1],
        "mainPurpsCd": purpose[0], "mainPurpsCdNm": purpose[1], "etcPurps": purpose[2],
        "roofCd": "10", "roofCdNm": "(철근)콘크리트", "etcRoof": "",
        "hhldCnt": str(floors * 4 if apt else 0), "fmlyCnt": "0",
        "heit": str(round(floors * 2.9, 1)), "grndFlrCnt": str(floors),
        "ugrndFlrCnt": str(r.randint(1, 3) if apt or floors > 5 else 0),
        "rideUseElvtCnt": str(2 if floors > 5 else 0), "emgenUseElvtCnt": "0",
        "atchBldCnt": "0", "atchBldArea": "0", "totDongTotArea": str(tot),
        "pmsDay": f"{year - 3}0{r.randint(1, 9)}{r.randint(10, 28)}",
        "stcnsDay": f"{year - 2}0{r.randint(1, 9)}{r.randint(10, 28)}",
        "useAprDay": f"{year}{r.randint(10, 12)}{r.randint(10, 28)}",
        "crtnDay": f"{year}{r.randint(10, 12)}{r.randint(10, 28)}",
    }
    return {k: jsonish(v) for k, v in row.items()}


def _title_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    sgg = params.get("sigunguCd", "").strip()
    bjd = params.get("bjdongCd", "").strip()
    if params.get("platGbCd", "0").strip() not in ("", "0"):
        return
    bun, ji = params.get("bun", "").strip(), params.get("ji", "").strip()
    for a in _addresses_by_adm(world.seed).get(sgg + bjd, []):
        if _on_lot(bun, ji, int(a["lnbrMnnm"]), int(a["lnbrSlno"])):
            yield from _titles(world.seed, a)
    for c in complexes(world.seed, sgg):  # the district's apartment complexes on this 법정동
        if c.dong.code == sgg + bjd and _on_lot(bun, ji, c.bonbun, c.bubun):
            yield from _complex_titles(world.seed, c)


def _on_lot(bun: str, ji: str, main: int, sub: int) -> bool:
    """Whether a building on lot ``main``-``sub`` matches the ``bun`` and ``ji`` asked (each
    optional; a non-number matches nothing)."""
    return (not bun or (bun.isdigit() and int(bun) == main)) and \
        (not ji or (ji.isdigit() and int(ji) == sub))


# ---------------------------------------------------------------- declarations

DATASETS: tuple[Dataset, ...] = (
    Dataset("mois_regions", build=build_regions, index=("region_cd",),
            doc="행정안전부 법정동코드: the real table, codes in force"),
    Dataset("juso_search", rows=_juso_rows, doc="juso keyword search over the address universe"),
    Dataset("juso_coords", rows=_coord_rows, doc="building entrances in UTM-K"),
    Dataset("juso_english", rows=_eng_rows, doc="English road-name addresses"),
    Dataset("molit_apt_trades", rows=_trade_rows, doc="아파트 매매 per (LAWD_CD, DEAL_YMD)"),
    Dataset("molit_apt_rents", rows=_rent_rows, doc="아파트 전월세 per (LAWD_CD, DEAL_YMD)"),
    Dataset("molit_br_titles", rows=_title_rows, doc="건축물대장 표제부 per parcel"),
)

_JUSO_PAGING = Paging(page="currentPage", size="countPerPage", default_size=10, max_size=100)
# 실거래가 answers a month in one request of any size (issue 21 §8): PublicDataReader, the
# most used client, asks numOfRows=99999 once and never pages, which holds only if the service
# answers every row; a month is at most a few thousand trades, so the size costs nothing.
_MOLIT_PAGING = Paging(page="pageNo", size="numOfRows", default_size=10, max_size=100_000)

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("mois", "getStanReginCdList", "/1741000/StanReginCd/getStanReginCdList", "hub",
             dataset="mois_regions", service="StanReginCd",
             filters=(Filter("locatadd_nm", op="contains"),), params=("flag",),
             paging=Paging(page="pageNo", size="numOfRows", default_size=10, max_size=1000)),
    Endpoint("juso", "addrLinkApi", "/addrlink/addrLinkApi.do", "juso", dataset="juso_search",
             service="juso", required=("keyword",), params=("hstryYn", "firstSort"),
             paging=_JUSO_PAGING),
    Endpoint("juso", "addrCoordApi", "/addrlink/addrCoordApi.do", "juso", dataset="juso_coords",
             service="juso", required=("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno"),
             filters=(Filter("rnMgtSn"), Filter("udrtYn"), Filter("buldMnnm"),
                      Filter("buldSlno"))),
    Endpoint("juso", "addrEngApi", "/addrlink/addrEngApi.do", "juso", dataset="juso_english",
             service="juso", required=("keyword",), paging=_JUSO_PAGING),
    Endpoint("molit", "getRTMSDataSvcAptTrade",
             "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade", "data_go_kr",
             dataset="molit_apt_trades", service="items", required=("LAWD_CD", "DEAL_YMD"),
             paging=_MOLIT_PAGING,
             # the detailed operation (the columns served here) under the name PublicDataReader
             # calls (issue 21 §4)
             aliases=("/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev",)),
    Endpoint("molit", "getRTMSDataSvcAptRent",
             "/1613000/RTMSDataSvcAptRent/getRTMSDataSvcAptRent", "data_go_kr",
             dataset="molit_apt_rents", service="items", required=("LAWD_CD", "DEAL_YMD"),
             paging=_MOLIT_PAGING),
    Endpoint("molit", "getBrTitleInfo", "/1613000/BldRgstHubService/getBrTitleInfo",
             "data_go_kr", dataset="molit_br_titles", service="items",
             required=("sigunguCd", "bjdongCd"), params=("platGbCd", "bun", "ji", "startDate",
                                                         "endDate"),
             paging=Paging(page="pageNo", size="numOfRows", default_size=10, max_size=100)),
)

