"""금융위원회 services on data.go.kr in the world: datasets and endpoints of ``stdlib/fsc.edge``.

주식시세 (getStockPriceInfo), KRX 상장종목 (getItemInfo), 기업개요 (getCorpOutline_V2), 주식발행정보
(getStocIssuStat, getItemBasiInfo), 재무정보 (getSummFinaStat_V2, getBs_V2, getIncoStat_V2) and
지수시세 (getStockMarketIndex), over the company universe of :mod:`.dart_data`.

Prices are a closed-form function of (seed, item, day): a sum of smooth "value noise" terms at
several time scales (a random walk look-alike that needs no accumulation), so a market-wide
day query (≈2,800 rows, common and preferred shares) and one stock's range query agree, and any
day is computed in milliseconds. Nothing trades on weekends, holidays (2015–2026) or after the
world's today; items appear from their listing day. Rows come newest first, as the service
sends them; all numbers are strings.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

from ..decl import Dataset, Endpoint, Filter, Paging, Row
from . import dart_data as dd
from .dart import FULL_LINES, full_line_amounts
from .dart_data import Corp, mix, unit, universe

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "Item", "close_price", "items"]

BASE = "/1160100/service"
RECENT_DAYS = 250
"""Trading days a stock-narrowed query without dates reads (the newest year)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One listed stock item (a company's common share, or its preferred share)."""

    code: str  # 6-digit short code
    isin: str
    name: str  # itmsNm
    market: str
    corp: Corp
    key: int  # 64-bit hash key of the item
    lstg: str  # listing day YYYYMMDD
    shares: int
    price: float  # reference price at the reference day
    vol: float  # daily volatility


_ITEMS: dict[int, tuple[Item, ...]] = {}
_REF = date(2024, 6, 28).toordinal()


def items(world: World) -> tuple[Item, ...]:
    """Every stock item of the world (built once per seed), in universe order."""
    got = _ITEMS.get(world.seed)
    if got is None:
        out: list[Item] = []
        for c in universe(world).listed:
            k = mix(world.seed, int(c.stock_code))
            vol = 0.012 + 0.025 * unit(k, 1) if c.market != "KOSPI" else 0.01 + 0.015 * unit(k, 1)
            name = {"현대자동차": "현대차", "삼성화재해상보험": "삼성화재"}.get(
                c.corp_name, c.corp_name
            )
            out.append(
                Item(
                    c.stock_code,
                    dd.isin(f"KR7{c.stock_code}00"),
                    name,
                    c.market,
                    c,
                    k,
                    c.lstg_dt,
                    c.shares,
                    c.price,
                    vol,
                )
            )
            if c.pref_code:
                kp = mix(world.seed, int(c.pref_code))
                out.append(
                    Item(
                        c.pref_code,
                        dd.isin(f"KR7{c.stock_code[:5]}100"),
                        name + "우",
                        c.market,
                        c,
                        kp,
                        c.lstg_dt,
                        max(c.shares // 7, 1000),
                        c.price * 0.8,
                        vol,
                    )
                )
        got = _ITEMS[world.seed] = tuple(out)
    return got


# ------------------------------------------------------------------ the price model

_SCALES = ((3, 0.9), (13, 1.0), (55, 1.0), (233, 1.1), (987, 1.2))


def _noise(key: int, scale: int, t: int) -> float:
    """Smooth value noise in [-1, 1] with knots every ``scale`` days."""
    k, frac = divmod(t, scale)
    a = unit(key, scale, k) * 2 - 1
    b = unit(key, scale, k + 1) * 2 - 1
    w = frac / scale
    w = w * w * (3 - 2 * w)
    return a + (b - a) * w


def _tick(p: float) -> int:
    step = (
        1
        if p < 2000
        else 5
        if p < 5000
        else 10
        if p < 20000
        else 50
        if p < 50000
        else 100
        if p < 200000
        else 500
        if p < 500000
        else 1000
    )
    return max(step, round(p / step) * step)


@lru_cache(maxsize=1 << 18)
def level(key: int, price: float, vol: float, ordinal: int) -> float:
    """The untruncated price level of a series (key, reference price, volatility) on a day."""
    x = sum(
        amp * math.sqrt(s) * (_noise(key, s, ordinal) - _noise(key, s, _REF)) for s, amp in _SCALES
    )
    return price * math.exp(vol * 0.55 * x + 0.00015 * (ordinal - _REF))


def close_price(it: Item, ordinal: int) -> int:
    """The closing price of ``it`` on the day with this ordinal (a pure function)."""
    return _tick(level(it.key, it.price, it.vol, ordinal))


@dataclass(frozen=True, slots=True)
class _Days:
    ordinals: tuple[int, ...]
    ymds: tuple[str, ...]


_DAYS: list[_Days] = []


def _days() -> _Days:
    if not _DAYS:
        ds = dd.trading_days()
        _DAYS.append(
            _Days(
                tuple(d.toordinal() for d in ds),
                tuple(f"{d.year}{d.month:02d}{d.day:02d}" for d in ds),
            )
        )
    return _DAYS[0]


def price_row(it: Item, i: int) -> Row:
    """The getStockPriceInfo row of ``it`` on trading day number ``i``."""
    days = _days()
    o = days.ordinals[i]
    clpr = close_price(it, o)
    prev = close_price(it, days.ordinals[i - 1]) if i > 0 else clpr
    vs = clpr - prev
    u1, u2, u3 = unit(it.key, o, 1), unit(it.key, o, 2), unit(it.key, o, 3)
    mkp = _tick(prev * (1 + it.vol * (u1 - 0.5)))
    hipr = _tick(max(mkp, clpr) * (1 + it.vol * u2 * 0.8))
    lopr = _tick(min(mkp, clpr) * (1 - it.vol * u3 * 0.8))
    trqu = int(it.shares * 0.002 * math.exp(2.2 * (unit(it.key, o, 4) - 0.5)))
    return {
        "basDt": days.ymds[i],
        "srtnCd": it.code,
        "isinCd": it.isin,
        "itmsNm": it.name,
        "mrktCtg": it.market,
        "clpr": str(clpr),
        "vs": str(vs),
        "fltRt": f"{vs / prev * 100:.2f}" if prev else "0",
        "mkp": str(mkp),
        "hipr": str(hipr),
        "lopr": str(lopr),
        "trqu": str(trqu),
        "trPrc": str(trqu * (hipr + lopr) // 2),
        "lstgStCnt": str(it.shares),
        "mrktTotAmt": str(clpr * it.shares),
    }


def _ymd(v: str | None) -> str:
    return (v or "").strip().replace("-", "").replace(".", "")


def _day_range(params: Mapping[str, str], narrowed: bool) -> range:
    """Indices of the trading days a request reads, newest first (see :data:`RECENT_DAYS`)."""
    ymds = _days().ymds
    bas, like = _ymd(params.get("basDt")), _ymd(params.get("likeBasDt"))
    begin, end = _ymd(params.get("beginBasDt")), _ymd(params.get("endBasDt"))
    if bas:
        i = bisect_left(ymds, bas)
        return range(i, i + 1) if i < len(ymds) and ymds[i] == bas else range(0)
    if like:  # a prefix such as "202412"
        lo, hi = bisect_left(ymds, like), bisect_right(ymds, like + "\uffff")
        return range(hi - 1, lo - 1, -1)
    if begin or end:
        lo = bisect_left(ymds, begin) if begin else 0
        hi = bisect_left(ymds, end) if end else len(ymds)  # endBasDt is exclusive
        return range(hi - 1, lo - 1, -1)
    n = len(ymds)
    return range(n - 1, n - 1 - (RECENT_DAYS if narrowed else 1), -1)


def _matching_items(world: World, params: Mapping[str, str]) -> tuple[list[Item], bool]:
    code = params.get("likeSrtnCd", "").strip().lstrip("A")
    isin_ = params.get("isinCd", "").strip()
    like_isin = params.get("likeIsinCd", "").strip()
    name = params.get("itmsNm", "").strip()
    like_name = params.get("likeItmsNm", "").strip()
    crno = params.get("crno", "").strip()
    corp_nm = params.get("corpNm", "").strip()
    like_corp = params.get("likeCorpNm", "").strip()
    out = [
        it
        for it in items(world)
        if (not code or code in it.code)
        and (not isin_ or it.isin == isin_)
        and (not like_isin or like_isin in it.isin)
        and (not name or it.name == name)
        and (not like_name or like_name in it.name)
        and (not crno or it.corp.jurir_no == crno)
        and (not corp_nm or it.corp.legal_name == corp_nm)
        and (not like_corp or like_corp in it.corp.legal_name)
    ]
    narrowed = any((code, isin_, like_isin, name, like_name, crno, corp_nm, like_corp))
    return out, narrowed


def _prices(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    its, narrowed = _matching_items(world, params)
    mkt = params.get("mrktCls", "").strip()
    its = [it for it in its if not mkt or it.market == mkt]
    ymds = _days().ymds
    for i in _day_range(params, narrowed):
        day = ymds[i]
        for it in its:
            if it.lstg <= day:
                yield price_row(it, i)


def _listed_items(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    its, narrowed = _matching_items(world, params)
    ymds = _days().ymds
    for i in _day_range(params, narrowed):
        day = ymds[i]
        for it in its:
            if it.lstg <= day:
                yield {
                    "basDt": day,
                    "srtnCd": "A" + it.code,
                    "isinCd": it.isin,
                    "mrktCtg": it.market,
                    "itmsNm": it.name,
                    "crno": it.corp.jurir_no,
                    "corpNm": it.corp.legal_name,
                }


# ------------------------------------------------------------------ corporations

_MARKET_DCD = {
    "KOSPI": ("11", "유가증권"),
    "KOSDAQ": ("12", "코스닥"),
    "KONEX": ("13", "코넥스"),
    "": ("99", "기타"),
}


def _outline(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    u = universe(world)
    crno, nm = params.get("crno", "").strip(), params.get("corpNm", "").strip()
    if crno:
        c0 = u.by_crno.get(crno)
        corps = [c0] if c0 is not None else []
    else:
        corps = [c for c in u.corps if not nm or nm in c.legal_name]
    for c in corps:
        d = dd.company_details(world.seed, c, u)
        a = u.addresses[c.addr]
        dcd, dnm = _MARKET_DCD[c.market]
        lst = c.lstg_dt
        yield {
            "basDt": "20250101",
            "crno": c.jurir_no,
            "corpNm": c.legal_name,
            "corpEnsnNm": dd.english_name(c),
            "enpPbanCmpyNm": c.corp_name,
            "enpRprFnm": d["ceo_nm"],
            "corpRegMrktDcd": dcd,
            "corpRegMrktDcdNm": dnm,
            "corpDcd": "1",
            "corpDcdNm": "주식회사",
            "bzno": c.bizr_no,
            "enpOzpno": str(a["zipNo"]),
            "enpBsadr": str(a["roadAddr"]),
            "enpDtadr": "",
            "enpHmpgUrl": d["hm_url"],
            "enpTlno": d["phn_no"],
            "enpFxno": d["fax_no"],
            "sicNm": dd.INDUSTRIES[c.induty][1],
            "enpEstbDt": c.est_dt,
            "enpStacMm": "12",
            "enpXchgLstgDt": lst if c.market == "KOSPI" else "",
            "enpKosdaqLstgDt": lst if c.market == "KOSDAQ" else "",
            "enpKrxLstgDt": lst if c.market == "KONEX" else "",
            "smenpYn": "Y" if c.scale < 1e11 else "N",
            "enpEmpeCnt": str(max(5, int(c.scale / 8e8))),
            "actnAudpnNm": dd.AUDITORS[int(c.corp_code) % len(dd.AUDITORS)] if c.audited else "",
            "audtRptOpnnCtt": "적정" if c.audited else "",
            "enpMainBizNm": dd.INDUSTRIES[c.induty][1],
            "fssCorpUnqNo": c.corp_code,
            "fssCorpChgDtm": c.modify_date,
        }


def _issue_stat(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    u = universe(world)
    crno = params.get("crno", "").strip()
    name = params.get("stckIssuCmpyNm", "").strip()
    for c in ([u.by_crno[crno]] if crno in u.by_crno else []) if crno else u.listed:
        if name and name not in c.legal_name:
            continue
        yield {
            "basDt": "20250101",
            "crno": c.jurir_no,
            "stckIssuCmpyNm": c.legal_name,
            "onskTisuCnt": str(c.shares),
            "pfstTisuCnt": str(max(c.shares // 7, 1000)) if c.pref_code else "0",
        }


def _item_basics(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    crno = params.get("crno", "").strip()
    name = params.get("stckIssuCmpyNm", "").strip()
    for it in items(world):
        c = it.corp
        if (crno and c.jurir_no != crno) or (name and name not in c.legal_name):
            continue
        pref = it.code != c.stock_code
        yield {
            "basDt": "20250101",
            "crno": c.jurir_no,
            "isinCd": it.isin,
            "stckIssuCmpyNm": c.legal_name,
            "isinCdNm": f"{c.legal_name} {'우선주' if pref else '보통주'}",
            "scrsItmsKcd": "0102" if pref else "0101",
            "scrsItmsKcdNm": "우선주" if pref else "보통주",
            "stckParPrc": str(c.par),
            "issuStckCnt": str(it.shares),
            "lstgDt": it.lstg,
            "lstgAbolDt": "",
            "dpsgRegDt": it.lstg,
            "dpsgCanDt": "",
            "issuFrmtClsfNm": "예탁지정",
        }


# ------------------------------------------------------------------ financial statements

_FNCL = ((True, "110", "연결요약재무제표"), (False, "120", "별도요약재무제표"))


def _fin_corps(world: World, params: Mapping[str, str]) -> tuple[list[Corp], int] | None:
    u = universe(world)
    try:
        year = int(params.get("bizYear", "").strip())
    except ValueError:
        return None
    crno = params.get("crno", "").strip()
    corps = (
        ([u.by_crno[crno]] if crno in u.by_crno else [])
        if crno
        else [c for c in u.corps if c.stock_code]
    )
    return [c for c in corps if dd.has_statements(c, year)], year


def _summary(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _fin_corps(world, params)
    if got is None:
        return
    corps, year = got
    for c in corps:
        for cfs, dcd, dnm in _FNCL:
            if cfs and not c.cfs:
                continue
            a = dd.account_amounts(world.seed, c, year, 4, cfs)
            ratio = a["부채총계"] / a["자본총계"] * 100 if a["자본총계"] else 0.0
            yield {
                "basDt": f"{year}1231",
                "crno": c.jurir_no,
                "bizYear": str(year),
                "curCd": "KRW",
                "fnclDcd": dcd,
                "fnclDcdNm": dnm,
                "enpSaleAmt": str(a["매출액"]),
                "enpBzopPft": str(a["영업이익"]),
                "iclsPalClcAmt": str(int(a["당기순이익"] * 1.08)),
                "enpCrtmNpf": str(a["당기순이익"]),
                "enpTastAmt": str(a["자산총계"]),
                "enpTdbtAmt": str(a["부채총계"]),
                "enpTcptAmt": str(a["자본총계"]),
                "enpCptlAmt": str(a["자본금"]),
                "fnclDebtRto": f"{ratio:.2f}",
            }


def _statement(kind: str) -> object:
    sjs = ("BS",) if kind == "BS" else ("IS",)

    def fn(world: World, params: Mapping[str, str]) -> Iterator[Row]:
        got = _fin_corps(world, params)
        if got is None:
            return
        corps, year = got
        for c in corps:
            for cfs, dcd, dnm in _FNCL:
                if cfs and not c.cfs:
                    continue
                cur = full_line_amounts(world.seed, c, year, 4, cfs)
                prev = full_line_amounts(world.seed, c, year - 1, 4, cfs)
                before = full_line_amounts(world.seed, c, year - 2, 4, cfs)
                for (sj, aid, anm, _, _), a, b, bb in zip(
                    FULL_LINES, cur, prev, before, strict=True
                ):
                    if sj in sjs:
                        yield {
                            "basDt": f"{year}1231",
                            "crno": c.jurir_no,
                            "bizYear": str(year),
                            "curCd": "KRW",
                            "fnclDcd": dcd,
                            "fnclDcdNm": dnm.replace("요약", ""),
                            "acitId": aid,
                            "acitNm": anm,
                            "crtmAcitAmt": str(a),
                            "pvtrAcitAmt": str(b),
                            "bpvtrAcitAmt": str(bb),
                        }

    return fn


# ------------------------------------------------------------------ market indices

# (idxNm, idxCsf, base value, constituents)
INDEX_TABLE: tuple[tuple[str, str, float, int], ...] = (
    ("코스피", "KOSPI시리즈", 2700.0, 940),
    ("코스피 200", "KOSPI시리즈", 360.0, 200),
    ("코스피 100", "KOSPI시리즈", 2700.0, 100),
    ("코스피 50", "KOSPI시리즈", 2500.0, 50),
    ("코스피 대형주", "KOSPI시리즈", 2650.0, 100),
    ("코스피 중형주", "KOSPI시리즈", 2900.0, 200),
    ("코스피 소형주", "KOSPI시리즈", 2300.0, 600),
    ("전기전자", "KOSPI시리즈", 45000.0, 60),
    ("운수장비", "KOSPI시리즈", 1900.0, 60),
    ("화학", "KOSPI시리즈", 5200.0, 90),
    ("의약품", "KOSPI시리즈", 17000.0, 45),
    ("금융업", "KOSPI시리즈", 480.0, 80),
    ("코스닥", "KOSDAQ시리즈", 850.0, 1590),
    ("코스닥 150", "KOSDAQ시리즈", 1350.0, 150),
    ("코스닥 대형주", "KOSDAQ시리즈", 1800.0, 100),
    ("코스닥 중형주", "KOSDAQ시리즈", 750.0, 300),
    ("코스닥 소형주", "KOSDAQ시리즈", 2600.0, 1000),
    ("KRX 100", "KRX시리즈", 5700.0, 100),
    ("KRX 300", "KRX시리즈", 1500.0, 300),
    ("KRX 반도체", "KRX시리즈", 3500.0, 40),
    ("KRX 헬스케어", "KRX시리즈", 4200.0, 80),
    ("KRX 은행", "KRX시리즈", 700.0, 10),
    ("KRX 2차전지 TOP 10", "테마지수", 3000.0, 10),
    ("코리아 밸류업 지수", "테마지수", 1000.0, 100),
)


def _indices(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    name, like = params.get("idxNm", "").strip(), params.get("likeIdxNm", "").strip()
    chosen = [t for t in INDEX_TABLE if (not name or t[0] == name) and (not like or like in t[0])]
    days = _days()
    for i in _day_range(params, bool(name or like)):
        for nm, csf, base, n in chosen:
            key = mix(world.seed, hash_name(nm))
            o = days.ordinals[i]
            cl = level(key, base, 0.009, o)
            prev = level(key, base, 0.009, days.ordinals[i - 1]) if i else cl
            hi = cl * (1 + 0.004 * unit(key, o, 2))
            lo = min(cl, prev) * (1 - 0.004 * unit(key, o, 3))
            yield {
                "basDt": days.ymds[i],
                "idxNm": nm,
                "idxCsf": csf,
                "epyItmsCnt": str(n),
                "clpr": f"{cl:.2f}",
                "vs": f"{cl - prev:.2f}",
                "fltRt": f"{(cl - prev) / prev * 100:.2f}",
                "mkp": f"{prev:.2f}",
                "hipr": f"{max(hi, cl, prev):.2f}",
                "lopr": f"{lo:.2f}",
                "trqu": str(int(3e8 * unit(key, o, 4) * n / 900 + 1e5)),
                "trPrc": str(int(8e12 * unit(key, o, 5) * n / 900 + 1e9)),
                "lstgMrktTotAmt": str(int(2e15 * n / 940)),
                "basPntm": "19800104",
                "basIdx": "100",
            }


def hash_name(name: str) -> int:
    """A stable integer for a name (Python's ``hash`` of str is salted per process)."""
    return int.from_bytes(name.encode()[:16].ljust(16, b"\0"), "big") ^ len(name)


# ------------------------------------------------------------------ declarations


def _ds(name: str, fn: object, doc: str) -> Dataset:
    return Dataset(name, rows=fn, doc=doc)  # type: ignore[arg-type]


DATASETS: tuple[Dataset, ...] = (
    _ds("fsc_stock_prices", _prices, "주식시세: every item × trading day (per request)"),
    _ds("fsc_listed_items", _listed_items, "KRX 상장종목정보 by day"),
    _ds("fsc_corp_outline", _outline, "기업개요: every corporation of the universe"),
    _ds("fsc_issue_stat", _issue_stat, "주식발행현황 of listed companies"),
    _ds("fsc_item_basics", _item_basics, "종목기본정보 of every listed item"),
    _ds("fsc_fs_summary", _summary, "요약재무제표 (연결/별도)"),
    _ds("fsc_balance_sheet", _statement("BS"), "재무상태표"),
    _ds("fsc_income_statement", _statement("IS"), "손익계산서"),
    _ds("fsc_market_index", _indices, "주가지수 시세"),
)

_PAGE = Paging("pageNo", "numOfRows", 10, 10000)
_NEWEST = (("basDt", True),)
_PRICE_FILTERS = (
    Filter("likeSrtnCd", "srtnCd", "contains"),
    Filter("isinCd"),
    Filter("likeIsinCd", "isinCd", "contains"),
    Filter("itmsNm"),
    Filter("likeItmsNm", "itmsNm", "contains"),
    Filter("mrktCls", "mrktCtg"),
)
_DATE_PARAMS = ("basDt", "beginBasDt", "endBasDt", "likeBasDt")


def _ep(
    tool: str,
    path: str,
    dataset: str,
    filters: tuple[Filter, ...] = (),
    params: tuple[str, ...] = (),
    sort: tuple[tuple[str, bool], ...] = (),
    required: tuple[str, ...] = (),
) -> Endpoint:
    return Endpoint(
        "fsc",
        tool,
        f"{BASE}/{path}",
        "data_go_kr",
        dataset=dataset,
        service="items",
        paging=_PAGE,
        filters=filters,
        params=params,
        sort=sort,
        required=required,
    )


ENDPOINTS: tuple[Endpoint, ...] = (
    _ep(
        "stock_prices",
        "GetStockSecuritiesInfoService/getStockPriceInfo",
        "fsc_stock_prices",
        filters=_PRICE_FILTERS,
        params=_DATE_PARAMS,
        sort=_NEWEST,
    ),
    _ep(
        "listed_items",
        "GetKrxListedInfoService/getItemInfo",
        "fsc_listed_items",
        filters=(
            Filter("likeSrtnCd", "srtnCd", "contains"),
            Filter("isinCd"),
            Filter("itmsNm"),
            Filter("likeItmsNm", "itmsNm", "contains"),
            Filter("crno"),
            Filter("corpNm"),
            Filter("likeCorpNm", "corpNm", "contains"),
            Filter("mrktCtg"),
        ),
        params=_DATE_PARAMS,
        sort=_NEWEST,
    ),
    _ep(
        "corp_outline",
        "GetCorpBasicInfoService_V2/getCorpOutline_V2",
        "fsc_corp_outline",
        filters=(Filter("crno"), Filter("corpNm", op="contains")),
        params=("basDt",),
    ),
    _ep(
        "issue_stat",
        "GetStocIssuInfoService/getStocIssuStat",
        "fsc_issue_stat",
        filters=(Filter("crno"), Filter("stckIssuCmpyNm", op="contains")),
        params=("basDt",),
    ),
    _ep(
        "item_basics",
        "GetStocIssuInfoService/getItemBasiInfo",
        "fsc_item_basics",
        filters=(Filter("crno"), Filter("stckIssuCmpyNm", op="contains")),
        params=("basDt",),
    ),
    _ep(
        "fs_summary",
        "GetFinaStatInfoService_V2/getSummFinaStat_V2",
        "fsc_fs_summary",
        filters=(Filter("crno"), Filter("bizYear")),
        required=("bizYear",),
    ),
    _ep(
        "balance_sheet",
        "GetFinaStatInfoService_V2/getBs_V2",
        "fsc_balance_sheet",
        filters=(Filter("crno"), Filter("bizYear")),
        required=("bizYear",),
    ),
    _ep(
        "income_statement",
        "GetFinaStatInfoService_V2/getIncoStat_V2",
        "fsc_income_statement",
        filters=(Filter("crno"), Filter("bizYear")),
        required=("bizYear",),
    ),
    _ep(
        "market_index",
        "GetMarketIndexInfoService/getStockMarketIndex",
        "fsc_market_index",
        filters=(Filter("idxNm"), Filter("likeIdxNm", "idxNm", "contains")),
        params=_DATE_PARAMS,
        sort=_NEWEST,
    ),
)
