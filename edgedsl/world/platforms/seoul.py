"""서울 열린데이터광장 (``openapi.seoul.go.kr:8088``): real estate, subway, parking, air quality.

Family C: the key, the format, the service, the 1-based inclusive index range and the positional
filters are all path segments (``/{KEY}/json/tbLnOpendataRtmsV/1/1000/2024/11680``); a blank
filter segment (``%20``) means "no filter". Numbers are JSON numbers where the service types them
(``THING_AMT``, ``ARCH_AREA``, ``GTON_TNOPE`` …), codes stay strings (``MNO`` ``"0012"``).

- ``tbLnOpendataRtmsV`` (부동산 실거래가) and ``tbLnOpendataRentV`` (전월세) cover 접수연도
  (``RCPT_YR``) 2024–2025. Their 아파트 rows are the 국토교통부 trades and rents of the same 구 and
  month (:mod:`edgedsl.world.platforms.region_data`), so the two platforms agree; 연립다세대,
  단독다가구 and 오피스텔 rows are added per 구-month. ``RCPT_YR`` is the year of the report,
  up to 30 days after the contract (a late-December contract is a January report).
- ``CardSubwayStatsNew``: boardings and alightings per station and line per day (2015–2025).
- ``GetParkInfo``: public car parks at addresses of the address universe (``ADDR`` filter).
- ``RealtimeCityAir``: the latest hourly measurement of the 25 district stations.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..addresses import addresses
from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..diskcache import disk_cached
from ..rand import hash_unit, rng, ymd
from .region_data import apt_rents, apt_trades, complexes, sgg_dongs, sgg_names

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "RTMS_YEARS", "SEOUL_GU", "rent_rows", "rtms_rows"]

RTMS_YEARS = (2024, 2025)
"""The 접수연도 the two real-estate services hold."""
SEOUL_GU = tuple(sorted(c for c in sgg_names() if c.startswith("11")))
"""The 25 자치구 codes."""
AIR_TIME = "202512311500"
"""The measurement time (MSRDT) RealtimeCityAir reports."""

_KINDS = (("연립다세대", 0.6), ("단독다가구", 0.1), ("오피스텔", 0.25))
_VILLA = ("빌라", "하이츠", "맨션", "빌", "하우스", "캐슬", "스테이")


def _param(params: Mapping[str, str], name: str) -> str:
    return str(params.get(name, "")).strip()


def _years(params: Mapping[str, str]) -> tuple[int, ...]:
    y = _param(params, "RCPT_YR")
    if not y:
        return RTMS_YEARS
    return (int(y),) if y.isdigit() and int(y) in RTMS_YEARS else ()


def _gus(params: Mapping[str, str]) -> tuple[str, ...]:
    code, name = _param(params, "CGG_CD"), _param(params, "CGG_NM")
    out = SEOUL_GU
    if code:
        out = tuple(g for g in out if g == code)
    if name:
        out = tuple(g for g in out if sgg_names()[g][1] == name)
    return out


def _report(seed: int, kind: str, ctrt: date, n: int) -> date:
    return ctrt + timedelta(days=1 + int(hash_unit(seed, kind, ctrt, n) * 30))


def _others(seed: int, gu: str, y: int, m: int, rent: bool) -> list[dict[str, Any]]:
    """Non-apartment contracts of one 구-month: (BLDG_USG, day, dong, name, area, floor, year)."""
    base = len(apt_rents(seed, gu, y, m) if rent else apt_trades(seed, gu, y, m))
    r = random.Random(int(hash_unit(seed, "seoul-others", gu, y, m, rent) * 2**53))
    dongs = sgg_dongs(gu)
    out = []
    for usage, share in _KINDS:
        for _ in range(int(base * share * (0.5 if rent else 1.0))):
            dong = r.choice(dongs)
            stem = dong.umd_nm.rstrip("0123456789가동")
            name = "" if usage == "단독다가구" else f"{stem}{r.choice(_VILLA)}" \
                if usage == "연립다세대" else f"{stem}오피스텔"
            out.append({"usage": usage, "day": r.randint(1, 28), "dong": dong, "name": name,
                        "area": round(r.uniform(18, 85) if usage != "단독다가구"
                                      else r.uniform(60, 250), 2),
                        "floor": r.randint(1, 5 if usage != "오피스텔" else 20),
                        "year": r.randint(1985, 2024), "mno": r.randint(1, 999),
                        "sno": r.choice((0, r.randint(1, 40))), "r": r.random()})
    return out


def _agent(gu: str) -> str:
    return f"서울 {sgg_names()[gu][1]}"


def _months(year: int) -> Iterator[tuple[int, int]]:
    yield year - 1, 12
    for m in range(1, 13):
        yield year, m


@lru_cache(maxsize=64)
@disk_cached
def _rtms_gu_year(seed: int, gu: str, year: int) -> tuple[Row, ...]:
    """Every sale of one 구 reported in ``year`` (아파트 = the 국토교통부 trades)."""
    gu_nm = sgg_names()[gu][1]
    rows: list[Row] = []
    for y, m in _months(year):
        for i, t in enumerate(apt_trades(seed, gu, y, m)):
            ctrt = date(y, m, int(t["dealDay"]))
            if _report(seed, "rtms", ctrt, i).year != year:
                continue
            cancel = t["cdealType"] == "O"
            rows.append(_rtms(year, gu, gu_nm, f"{t['umdCd']:05d}", t["umdNm"],
                              t["bonbun"], t["bubun"], t["aptNm"], ctrt,
                              int(t["dealAmount"].replace(",", "")), float(t["excluUseAr"]),
                              int(t["floor"]), str(t["buildYear"]), "아파트",
                              t["dealingGbn"], cancel, t["estateAgentSggNm"]))
        for i, o in enumerate(_others(seed, gu, y, m, rent=False)):
            ctrt = date(y, m, o["day"])
            if _report(seed, "rtms-o", ctrt, i).year != year:
                continue
            price = o["area"] * (520 if o["usage"] == "단독다가구" else 430) * (0.6 + o["r"])
            rows.append(_rtms(year, gu, gu_nm, o["dong"].code[5:], o["dong"].umd_nm,
                              f"{o['mno']:04d}", f"{o['sno']:04d}", o["name"], ctrt,
                              int(price / 10) * 10, o["area"], o["floor"], str(o["year"]),
                              o["usage"], "직거래" if o["r"] < 0.15 else "중개거래",
                              o["r"] > 0.98, "" if o["r"] < 0.15 else _agent(gu)))
    rows.sort(key=lambda row: row["CTRT_DAY"], reverse=True)
    return tuple(rows)


def _rtms(year: int, gu: str, gu_nm: str, stdg: str, stdg_nm: str, mno: str, sno: str,
          name: str, ctrt: date, amount: int, area: float, floor: int, arch_yr: str,
          usage: str, dclr: str, cancel: bool, agent: str) -> Row:
    return {
        "RCPT_YR": year, "CGG_CD": gu, "CGG_NM": gu_nm, "STDG_CD": stdg, "STDG_NM": stdg_nm,
        "LOTNO_SE": "1", "LOTNO_SE_NM": "대지", "MNO": mno, "SNO": sno, "BLDG_NM": name,
        "CTRT_DAY": ymd(ctrt), "THING_AMT": amount, "ARCH_AREA": area,
        "LAND_AREA": round(area * 0.4, 2) if usage != "단독다가구" else round(area * 1.1, 2),
        "FLR": floor, "RGHT_SE": "", "RTRCN_DAY": ymd(ctrt + timedelta(days=20))
        if cancel else "", "ARCH_YR": arch_yr, "BLDG_USG": usage, "DCLR_SE": dclr,
        "OPBIZ_RESTAGNT_SGG_NM": agent,
    }


@lru_cache(maxsize=64)
@disk_cached
def _rent_gu_year(seed: int, gu: str, year: int) -> tuple[Row, ...]:
    """Every 전월세 contract of one 구 reported in ``year`` (아파트 = the 국토교통부 rents)."""
    gu_nm = sgg_names()[gu][1]
    rows: list[Row] = []
    by_seq = {c.seq: c for c in reversed(complexes(seed, gu))}  # the first of a seq wins
    for y, m in _months(year):
        for i, t in enumerate(apt_rents(seed, gu, y, m)):
            ctrt = date(y, m, int(t["dealDay"]))
            if _report(seed, "rent", ctrt, i).year != year:
                continue
            c = by_seq[t["aptSeq"]]
            rows.append(_rent(year, gu, gu_nm, c.dong.code[5:], t["umdNm"], f"{c.bonbun:04d}",
                              f"{c.bubun:04d}", int(t["floor"]), ctrt,
                              _int(t["deposit"]), _int(t["monthlyRent"]), t["aptNm"],
                              float(t["excluUseAr"]), str(t["buildYear"]), "아파트",
                              str(t["contractTerm"]), str(t["contractType"]),
                              str(t["useRRRight"]), t["preDeposit"], t["preMonthlyRent"]))
        for i, o in enumerate(_others(seed, gu, y, m, rent=True)):
            ctrt = date(y, m, o["day"])
            if _report(seed, "rent-o", ctrt, i).year != year:
                continue
            deposit = int(o["area"] * 260 * (0.5 + o["r"]) / 100) * 100
            monthly = o["r"] < 0.6
            rows.append(_rent(year, gu, gu_nm, o["dong"].code[5:], o["dong"].umd_nm,
                              f"{o['mno']:04d}", f"{o['sno']:04d}", o["floor"], ctrt,
                              deposit // 8 if monthly else deposit,
                              int(o["area"] * 1.3) if monthly else 0, o["name"], o["area"],
                              str(o["year"]), o["usage"],
                              f"{y % 100:02d}.{m:02d}~{(y + 2) % 100:02d}.{m:02d}",
                              "신규", "", "", ""))
    rows.sort(key=lambda row: row["CTRT_DAY"], reverse=True)
    return tuple(rows)


def _int(v: Any) -> int:
    return int(str(v).replace(",", "") or 0)


def _rent(year: int, gu: str, gu_nm: str, stdg: str, stdg_nm: str, mno: str, sno: str,
          floor: int, ctrt: date, deposit: int, rent: int, name: str, area: float,
          arch_yr: str, usage: str, prd: str, new: str, use_rr: str, bfr_grfe: Any,
          bfr_rtfe: Any) -> Row:
    return {
        "RCPT_YR": year, "CGG_CD": gu, "CGG_NM": gu_nm, "STDG_CD": stdg, "STDG_NM": stdg_nm,
        "LOTNO_SE": "1", "LOTNO_SE_NM": "대지", "MNO": mno, "SNO": sno, "FLR": floor,
        "CTRT_DAY": ymd(ctrt), "RENT_SE": "월세" if rent else "전세",
        "RENT_AREA": area, "GRFE": deposit, "RTFE": rent, "BLDG_NM": name,
        "ARCH_YR": arch_yr, "BLDG_USG": usage, "CTRT_PRD": prd, "NEW_UPDT_YN": new,
        "CTRT_UPDT_USE_YN": use_rr,
        "BFR_GRFE": _int(bfr_grfe) if bfr_grfe != "" else "",
        "BFR_RTFE": _int(bfr_rtfe) if bfr_rtfe != "" else "",
    }


def rtms_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """Candidate rows of ``tbLnOpendataRtmsV`` for a request (narrowed by 구 and 접수연도)."""
    for year in _years(params):
        for gu in _gus(params):
            yield from _rtms_gu_year(world.seed, gu, year)


def rent_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """Candidate rows of ``tbLnOpendataRentV`` for a request (narrowed by 구 and 접수연도)."""
    for year in _years(params):
        for gu in _gus(params):
            yield from _rent_gu_year(world.seed, gu, year)


# ---------------------------------------------------------------- subway

_LINES = {
    "1호선": "서울역 시청 종각 종로3가 종로5가 동대문 동묘앞 신설동 제기동 청량리",
    "2호선": "시청 을지로입구 을지로3가 을지로4가 동대문역사문화공원 신당 상왕십리 왕십리 한양대 "
             "뚝섬 성수 건대입구 구의 강변 잠실나루 잠실 잠실새내 종합운동장 삼성 선릉 역삼 "
             "강남 교대 서초 방배 사당 낙성대 서울대입구 봉천 신림 신대방 구로디지털단지 대림 "
             "신도림 문래 "
             "영등포구청 당산 합정 홍대입구 신촌 이대 아현 충정로",
    "3호선": "구파발 연신내 불광 녹번 홍제 무악재 독립문 경복궁 안국 종로3가 을지로3가 충무로 "
             "동대입구 약수 금호 옥수 압구정 신사 잠원 고속터미널 교대 남부터미널 양재 매봉 도곡 "
             "대치 학여울 대청 일원 수서 가락시장 경찰병원 오금",
    "4호선": "당고개 상계 노원 창동 쌍문 수유 미아 미아사거리 길음 성신여대입구 한성대입구 혜화 "
             "동대문 동대문역사문화공원 충무로 명동 회현 서울역 숙대입구 삼각지 신용산 이촌 동작 "
             "총신대입구(이수) 사당",
    "5호선": "방화 개화산 김포공항 송정 마곡 발산 우장산 화곡 까치산 신정 목동 오목교 양평 "
             "영등포구청 영등포시장 신길 여의도 여의나루 마포 공덕 애오개 충정로 서대문 광화문 "
             "종로3가 을지로4가 동대문역사문화공원 청구 신금호 행당 왕십리 마장 답십리 장한평 군자 "
             "아차산 광나루 천호 강동 길동 굽은다리 명일 고덕 상일동",
    "6호선": "응암 역촌 불광 독바위 연신내 구산 새절 증산 디지털미디어시티 월드컵경기장 마포구청 "
             "망원 합정 상수 광흥창 대흥 공덕 효창공원앞 삼각지 녹사평 이태원 한강진 버티고개 약수 "
             "청구 신당 동묘앞 창신 보문 안암 고려대 월곡 상월곡 돌곶이 석계 태릉입구 화랑대 "
             "봉화산",
    "7호선": "장암 도봉산 수락산 마들 노원 중계 하계 공릉 태릉입구 먹골 중화 상봉 면목 사가정 "
             "용마산 중곡 군자 어린이대공원 건대입구 뚝섬유원지 청담 강남구청 학동 논현 반포 "
             "고속터미널 내방 이수 남성 숭실대입구 상도 장승배기 신대방삼거리 보라매 신풍 대림 "
             "남구로 가산디지털단지 철산 광명사거리 천왕 온수",
    "8호선": "암사 천호 강동구청 몽촌토성 잠실 석촌 송파 가락시장 문정 장지 복정",
    "9호선": "개화 김포공항 공항시장 신방화 마곡나루 양천향교 가양 증미 등촌 염창 신목동 선유도 "
             "당산 국회의사당 여의도 샛강 노량진 노들 흑석 동작 구반포 신반포 고속터미널 사평 "
             "신논현 언주 선정릉 삼성중앙 봉은사 종합운동장",
}
_BUSY = {"강남", "잠실", "홍대입구", "신림", "구로디지털단지", "서울역", "삼성", "신도림",
         "고속터미널",
         "선릉", "역삼", "을지로입구", "건대입구", "사당", "종각", "여의도", "광화문", "서울대입구"}
_FIRST_DAY, _LAST_DAY = date(2015, 1, 1), date(2025, 12, 31)


def _subway_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    raw = _param(params, "USE_YMD")
    if len(raw) != 8 or not raw.isdigit():
        return
    try:
        day = date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))
    except ValueError:
        return
    if not _FIRST_DAY <= day <= _LAST_DAY:
        return
    weekend = 0.55 if day.weekday() >= 5 else 1.0
    reg = ymd(day + timedelta(days=3))
    for line, names in _LINES.items():
        for st in names.split():
            level = 60000 if st in _BUSY else 18000
            u = hash_unit(world.seed, "subway", line, st)
            on = level * (0.3 + u) * weekend * (0.85 + 0.3 * hash_unit(world.seed, st, day))
            off = on * (0.9 + 0.2 * hash_unit(world.seed, "off", st, day))
            yield {"USE_YMD": raw, "SBWY_ROUT_LN_NM": line, "SBWY_STNS_NM": st,
                   "GTON_TNOPE": float(int(on)), "GTOFF_TNOPE": float(int(off)),
                   "REG_YMD": reg}


# ---------------------------------------------------------------- parking


def build_parks(world: World) -> list[Row]:
    """Public car parks of Seoul, each at an address of the address universe."""
    r = rng(world.seed, "seoul_parks")
    rows = []
    for a in addresses(world.seed):
        if not a["admCd"].startswith("11") or r.random() > 0.55:
            continue
        on_street = r.random() < 0.35
        paid = r.random() < 0.85
        fee = r.choice((100, 150, 250, 300, 500))
        code = f"{1000000 + int(hash_unit(world.seed, 'park', a['bdMgtSn']) * 8999999)}"
        rows.append({
            "PKLT_NM": f"{a['emdNm']}{'노상' if on_street else ''}공영주차장"
            f"({'구' if r.random() < 0.8 else '시'})",
            "ADDR": f"{a['sggNm']} {a['emdNm']} {a['lnbrMnnm']}"
            + (f"-{a['lnbrSlno']}" if a["lnbrSlno"] != "0" else ""),
            "PKLT_CD": code, "PKLT_KND": "NS" if on_street else "NW",
            "PKLT_KND_NM": "노상 주차장" if on_street else "노외 주차장",
            "OPER_SE": "1", "OPER_SE_NM": "시간제 주차장",
            "TELNO": f"02-{r.randint(2000, 3999)}-{r.randint(1000, 9999)}",
            "PRK_NOW_INFO_PVSN_YN": "1" if r.random() < 0.2 else "0",
            "PRK_NOW_INFO_PVSN_YN_NM": "", "TPKCT": float(r.randint(5, 400)),
            "CHGD_FREE_SE": "Y" if paid else "N", "CHGD_FREE_NM": "유료" if paid else "무료",
            "NGHT_FREE_OPN_YN": "N", "NGHT_FREE_OPN_YN_NAME": "야간 미개방",
            "WD_OPER_BGNG_TM": "0900", "WD_OPER_END_TM": "1900" if on_street else "2400",
            "WE_OPER_BGNG_TM": "0000", "WE_OPER_END_TM": "0000", "LHLDY_BGNG": "0000",
            "LHLDY": "0000", "LAST_DATA_SYNC_TM": "2025-12-31 09:00:00",
            "SAT_CHGD_FREE_SE": "Y" if paid else "N", "SAT_CHGD_FREE_NM": "유료" if paid
            else "무료", "LHLDY_YN": "N", "LHLDY_NM": "무료",
            "MNTL_CMUT_CRG": str(r.choice((0, 70000, 100000, 150000))),
            "CRB_PKLT_MNG_GROUP_NO": "", "PRK_CRG": float(fee if paid else 0),
            "PRK_HM": 5.0, "ADD_CRG": float(fee if paid else 0), "ADD_UNIT_TM_MNT": 5.0,
            "BUS_PRK_CRG": 0.0, "BUS_PRK_HM": 0.0, "BUS_PRK_ADD_HM": 0.0,
            "BUS_PRK_ADD_CRG": 0.0, "DLY_MAX_CRG": float(r.choice((0, 10000, 20000))),
            "LAT": a["_lat"], "LOT": a["_lon"],
        })
    return rows


# ---------------------------------------------------------------- air quality

_REGIONS = {"도심권": ("11110", "11140", "11170"), "서북권": ("11380", "11410", "11440"),
            "동북권": ("11200", "11215", "11230", "11260", "11290", "11305", "11320", "11350"),
            "서남권": ("11470", "11500", "11530", "11545", "11560", "11590", "11620"),
            "동남권": ("11650", "11680", "11710", "11740")}


def build_air(world: World) -> list[Row]:
    """The latest hourly measurement of the 25 district air-quality stations."""
    r = rng(world.seed, "seoul_air")
    rows = []
    base = r.uniform(20, 70)
    for region, gus in _REGIONS.items():
        for gu in gus:
            pm10 = round(base * r.uniform(0.7, 1.4))
            pm25 = round(pm10 * r.uniform(0.4, 0.7))
            idx = round(max(pm10 * 1.1, pm25 * 2.0))
            grade = "좋음" if idx <= 50 else "보통" if idx <= 100 else \
                "나쁨" if idx <= 250 else "매우나쁨"
            rows.append({"MSRDT": AIR_TIME, "MSRRGN_NM": region,
                         "MSRSTE_NM": sgg_names()[gu][1], "PM10": float(pm10),
                         "PM25": float(pm25), "O3": round(r.uniform(0.005, 0.05), 3),
                         "NO2": round(r.uniform(0.01, 0.05), 3),
                         "CO": round(r.uniform(0.3, 0.9), 1),
                         "SO2": round(r.uniform(0.002, 0.005), 3), "IDEX_NM": grade,
                         "IDEX_MVL": float(idx),
                         "ARPLT_MAIN": "PM-2.5" if pm25 * 2 > pm10 * 1.1 else "PM-10"})
    return rows


# ---------------------------------------------------------------- declarations

DATASETS: tuple[Dataset, ...] = (
    Dataset("seoul_rtms", rows=rtms_rows, doc="부동산 실거래가 per 구 and 접수연도"),
    Dataset("seoul_rent", rows=rent_rows, doc="전월세 per 구 and 접수연도"),
    Dataset("seoul_subway", rows=_subway_rows, doc="역별 일별 승하차 per day"),
    Dataset("seoul_parks", build=build_parks, doc="공영주차장"),
    Dataset("seoul_air", build=build_air, doc="실시간 대기환경"),
)

_IDX = Paging(page="START_INDEX", size="END_INDEX", style="index", max_size=1000)
_HEAD = "/{KEY}/{TYPE}"
_RTMS_F = ("RCPT_YR", "CGG_CD", "CGG_NM", "STDG_CD", "LOTNO_SE", "LOTNO_SE_NM", "MNO", "SNO",
           "BLDG_NM", "CTRT_DAY", "BLDG_USG")
_RENT_F = ("RCPT_YR", "CGG_CD", "CGG_NM", "STDG_CD", "LOTNO_SE", "LOTNO_SE_NM", "MNO", "SNO",
           "FLR", "CTRT_DAY", "RENT_SE")


def _path(service: str, filters: tuple[str, ...]) -> str:
    return "/".join((_HEAD, service, "{START_INDEX}", "{END_INDEX}",
                     *(f"{{{f}}}" for f in filters)))


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("seoul", "tbLnOpendataRtmsV", _path("tbLnOpendataRtmsV", _RTMS_F), "seoul",
             dataset="seoul_rtms", service="tbLnOpendataRtmsV",
             filters=tuple(Filter(f) for f in _RTMS_F), paging=_IDX),
    Endpoint("seoul", "tbLnOpendataRentV", _path("tbLnOpendataRentV", _RENT_F), "seoul",
             dataset="seoul_rent", service="tbLnOpendataRentV",
             filters=tuple(Filter(f) for f in _RENT_F), paging=_IDX),
    Endpoint("seoul", "CardSubwayStatsNew",
             _path("CardSubwayStatsNew", ("USE_YMD", "SBWY_ROUT_LN_NM", "SBWY_STNS_NM")),
             "seoul", dataset="seoul_subway", service="CardSubwayStatsNew",
             required=("USE_YMD",), filters=(Filter("SBWY_ROUT_LN_NM"), Filter("SBWY_STNS_NM")),
             paging=_IDX),
    Endpoint("seoul", "GetParkInfo", _path("GetParkInfo", ("ADDR",)), "seoul",
             dataset="seoul_parks", service="GetParkInfo",
             filters=(Filter("ADDR", op="contains"),), paging=_IDX),
    Endpoint("seoul", "RealtimeCityAir",
             _path("RealtimeCityAir", ("MSRRGN_NM", "MSRSTE_NM")), "seoul",
             dataset="seoul_air", service="RealtimeCityAir",
             filters=(Filter("MSRRGN_NM"), Filter("MSRSTE_NM")), paging=_IDX),
)

