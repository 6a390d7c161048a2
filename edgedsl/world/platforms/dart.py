"""OpenDART (금융감독원 전자공시) in the world: datasets and endpoints of ``stdlib/dart.edge``.

Every answer is generated from the finance universe of :mod:`.dart_data`: ``corpCode.xml`` is a
real ZIP holding ``CORPCODE.xml`` for every filer; ``list.json`` lists the filings of
:func:`~.dart_data.corp_filings` (hundreds per business day); the DS002 periodic-report tables
(최대주주, 배당, 임원, 직원, 주식총수) and the DS003 statements read the 사업/분기보고서 they come
from (same ``rcept_no``); the DS004 ownership reports and DS005 decisions (유상증자, 전환사채,
자기주식, 합병 …) are the matching filings of ``list.json``. Amounts are comma-formatted strings,
as DART sends them; the statements agree with 금융위원회 ``getSummFinaStat_V2`` (:mod:`.fsc`).
"""

from __future__ import annotations

import functools
import io
import random
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from ..decl import Dataset, Endpoint, Filter, Paging, Row, WireResponse
from ..rand import korean_name
from . import dart_data as dd
from .dart_data import Corp, Filing, Universe, mix, universe

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "corp_code_zip", "disclosure_row"]

BASE = "/api"


def _c(n: float) -> str:
    """DART amount formatting: ``"9,999,999,999"`` (negative ``"-1,234"``)."""
    return f"{int(n):,}"


def _ymd(v: str | None) -> str:
    return (v or "").strip().replace("-", "").replace(".", "")


def _corp(world: World, params: Mapping[str, str]) -> tuple[Universe, Corp | None]:
    u = universe(world)
    return u, u.by_code.get(params.get("corp_code", "").strip())


def _head(c: Corp) -> Row:
    return {"corp_cls": c.corp_cls, "corp_code": c.corp_code, "corp_name": c.corp_name}


# ------------------------------------------------------------------ corpCode.xml


def _corp_rows(world: World) -> list[Row]:
    u = universe(world)
    return [
        {
            "corp_code": c.corp_code,
            "corp_name": c.corp_name,
            "corp_eng_name": dd.english_name(c),
            "stock_code": c.stock_code or " ",
            "modify_date": c.modify_date,
        }
        for c in u.corps
    ]


_ZIPS: dict[int, bytes] = {}


def corp_code_zip(world: World) -> bytes:
    """``CORPCODE.zip``: one ``CORPCODE.xml`` with a ``<list>`` per filer (built once per seed)."""
    got = _ZIPS.get(world.seed)
    if got is None:
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<result>\n']
        for r in world.rows("dart_corps"):
            parts.append(
                "    <list>\n"
                + "".join(
                    f"        <{k}>{escape(str(r[k]))}</{k}>\n"
                    for k in (
                        "corp_code",
                        "corp_name",
                        "corp_eng_name",
                        "stock_code",
                        "modify_date",
                    )
                )
                + "    </list>\n"
            )
        parts.append("</result>\n")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.writestr("CORPCODE.xml", "".join(parts).encode())
        got = _ZIPS[world.seed] = buf.getvalue()
    return got


def _corp_code_xml(world: World, params: Mapping[str, str]) -> WireResponse:
    return WireResponse(
        200,
        "application/x-msdownload",
        corp_code_zip(world),
        (("Content-Disposition", "attachment; filename=CORPCODE.zip"),),
    )


# ------------------------------------------------------------------ list.json


def disclosure_row(seed: int, u: Universe, f: Filing) -> Row:
    """One ``list.json`` record (with the internal ``_pblntf_ty`` / ``_pblntf_detail_ty``)."""
    c = u.corps[f.corp]
    kind = dd.KINDS[f.kind]
    rm = ""
    if kind.ty == "I":
        rm = {"Y": "유", "K": "코", "N": "넥"}.get(c.corp_cls, "")
    elif kind.ty == "A" and c.cfs:
        rm = "연"
    return {
        "corp_cls": c.corp_cls,
        "corp_name": c.corp_name,
        "corp_code": c.corp_code,
        "stock_code": c.stock_code,
        "report_nm": dd.report_name(f),
        "rcept_no": f.rcept_no,
        "flr_nm": dd.filer_name(seed, u, f),
        "rcept_dt": f.rcept_no[:8],
        "rm": rm,
        "_pblntf_ty": kind.ty,
        "_pblntf_detail_ty": kind.detail,
    }


def _disclosures(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    """Candidates of list.json: ``end_de`` defaults to today, ``bgn_de`` to ``end_de``."""
    u, c = _corp(world, params)
    if params.get("corp_code", "").strip() and c is None:
        return
    end = _ymd(params.get("end_de")) or dd.TODAY.strftime("%Y%m%d")
    bgn = _ymd(params.get("bgn_de")) or end
    if c is not None:
        for f in dd.corp_history(world.seed, c, bgn, end):
            yield disclosure_row(world.seed, u, f)
        return
    for year in range(min(int(end[:4]), dd.TODAY.year), max(int(bgn[:4]), dd.FIRST_YEAR) - 1, -1):
        days = dd.filings_year(world.seed, u, year).by_day
        for day in sorted(days, reverse=True):
            if bgn <= day <= end:
                for f in days[day]:
                    yield disclosure_row(world.seed, u, f)


def _company(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    u, c = _corp(world, params)
    if c is None:
        return
    d = dd.company_details(world.seed, c, u)
    yield {
        "corp_code": c.corp_code,
        "corp_name": c.legal_name,
        "corp_name_eng": dd.english_name(c),
        "stock_name": c.corp_name if c.stock_code else "",
        "stock_code": c.stock_code,
        "ceo_nm": d["ceo_nm"],
        "corp_cls": c.corp_cls,
        "jurir_no": c.jurir_no,
        "bizr_no": c.bizr_no,
        "adres": u.adres(c),
        "hm_url": d["hm_url"],
        "ir_url": d["ir_url"],
        "phn_no": d["phn_no"],
        "fax_no": d["fax_no"],
        "induty_code": dd.INDUSTRIES[c.induty][0],
        "est_dt": c.est_dt,
        "acc_mt": "12",
    }


# ------------------------------------------------------------------ DS003 statements

_QUARTER = {"11013": 1, "11012": 2, "11014": 3, "11011": 4}
_QNAME = {1: " 1분기", 2: " 반기", 3: " 3분기", 4: ""}
_MONTH_END = {1: "03.31", 2: "06.30", 3: "09.30", 4: "12.31"}


def _periods(c: Corp, year: int, q: int) -> dict[str, str]:
    """The periods' names as the service writes them: this term, the same term a year before,
    the prior year-end a quarterly balance sheet compares with (``제 54 기말``), the term before
    last (annual reports only)."""
    age = year - int(c.est_dt[:4]) + 1
    return {
        "thstrm_nm": f"제 {age} 기{_QNAME[q]}",
        "frmtrm_nm": f"제 {age - 1} 기{_QNAME[q]}",
        "frmtrm_end_nm": f"제 {age - 1} 기" if q == 4 else f"제 {age - 1} 기말",
        "bfefrmtrm_nm": f"제 {age - 2} 기",
    }


def _is_sum(seed: int, c: Corp, year: int, q: int, cfs: bool) -> dict[str, int]:
    """Income-statement amounts accumulated from the start of the year to quarter ``q``."""
    if q == 4:
        return dd.account_amounts(seed, c, year, 4, cfs)
    acc: dict[str, int] = {}
    for k in range(1, q + 1):
        for name, v in dd.account_amounts(seed, c, year, k, cfs).items():
            acc[name] = acc.get(name, 0) + v
    return acc


def _single_accounts(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    u = universe(world)
    codes = [x.strip() for x in params.get("corp_code", "").split(",") if x.strip()]
    if len(codes) > 100:
        from ..engine import WorldError

        raise WorldError("too_many_corps", f"{len(codes)} corp_code values, 100 at most")
    try:
        year = int(params.get("bsns_year", ""))
    except ValueError:
        return
    reprt = params.get("reprt_code", "").strip()
    q = _QUARTER.get(reprt)
    if q is None:
        return
    for code in codes:
        c = u.by_code.get(code)
        if c is None:
            continue
        f = dd.periodic_filing(world.seed, c, year, reprt)
        if f is None:
            continue
        yield from _account_rows(world.seed, c, f, year, reprt, q)


def _account_rows(seed: int, c: Corp, f: Filing, year: int, reprt: str, q: int) -> Iterator[Row]:
    names = _periods(c, year, q)
    bases = (True, False) if c.cfs else (False,)
    for cfs in bases:
        cur, prev = (
            dd.account_amounts(seed, c, year, q, cfs),
            dd.account_amounts(seed, c, year - 1, 4, cfs),
        )
        cur_is, prev_is = _is_sum(seed, c, year, q, cfs), _is_sum(seed, c, year - 1, q, cfs)
        prev_q = dd.account_amounts(seed, c, year - 1, q, cfs)
        before = dd.account_amounts(seed, c, year - 2, 4, cfs)
        for ordn, acc in enumerate(dd.BS_LINES + dd.IS_LINES, start=1):
            bs = acc in dd.BS_LINES
            row: Row = {
                "rcept_no": f.rcept_no,
                "bsns_year": str(year),
                "corp_code": c.corp_code,
                "stock_code": c.stock_code,
                "reprt_code": reprt,
                "account_nm": acc,
                "fs_div": "CFS" if cfs else "OFS",
                "fs_nm": "연결재무제표" if cfs else "재무제표",
                "sj_div": "BS" if bs else "IS",
                "sj_nm": "재무상태표" if bs else "손익계산서",
                "thstrm_nm": names["thstrm_nm"],
                "thstrm_dt": f"{year}.{_MONTH_END[q]} 현재"
                if bs
                else f"{year}.01.01 ~ {year}.{_MONTH_END[q]}",
                "thstrm_amount": _c(cur[acc]),
                "frmtrm_nm": names["frmtrm_end_nm" if bs else "frmtrm_nm"],
                "frmtrm_dt": f"{year - 1}.12.31 현재"
                if bs
                else f"{year - 1}.01.01 ~ {year - 1}.{_MONTH_END[q]}",
                "frmtrm_amount": _c(prev[acc] if bs else (prev_q[acc] if q < 4 else prev_is[acc])),
                "ord": str(ordn),
                "currency": "KRW",
            }
            if q < 4 and not bs:
                row["thstrm_add_amount"] = _c(cur_is[acc])
                row["frmtrm_add_amount"] = _c(prev_is[acc])
            if q == 4:
                row["bfefrmtrm_nm"] = names["bfefrmtrm_nm"]
                row["bfefrmtrm_dt"] = (
                    f"{year - 2}.12.31 현재" if bs else f"{year - 2}.01.01 ~ {year - 2}.12.31"
                )
                row["bfefrmtrm_amount"] = _c(before[acc])
            yield row


# the detailed lines of fnlttSinglAcntAll: (sj_div, account_id, account_nm, base line, share)
FULL_LINES: tuple[tuple[str, str, str, str, float], ...] = (
    ("BS", "ifrs-full_CurrentAssets", "유동자산", "유동자산", 1.0),
    ("BS", "ifrs-full_CashAndCashEquivalents", "현금및현금성자산", "유동자산", 0.3),
    ("BS", "dart_ShortTermDepositsNotClassifiedAsCashEquivalents", "단기금융상품", "유동자산", 0.2),
    ("BS", "ifrs-full_CurrentTradeReceivables", "매출채권", "유동자산", 0.25),
    ("BS", "ifrs-full_Inventories", "재고자산", "유동자산", 0.25),
    ("BS", "ifrs-full_NoncurrentAssets", "비유동자산", "비유동자산", 1.0),
    ("BS", "ifrs-full_PropertyPlantAndEquipment", "유형자산", "비유동자산", 0.6),
    ("BS", "ifrs-full_IntangibleAssetsOtherThanGoodwill", "무형자산", "비유동자산", 0.1),
    ("BS", "ifrs-full_InvestmentsInAssociates", "관계기업 및 공동기업 투자", "비유동자산", 0.15),
    ("BS", "ifrs-full_DeferredTaxAssets", "이연법인세자산", "비유동자산", 0.05),
    ("BS", "ifrs-full_Assets", "자산총계", "자산총계", 1.0),
    ("BS", "ifrs-full_CurrentLiabilities", "유동부채", "유동부채", 1.0),
    ("BS", "ifrs-full_TradeAndOtherCurrentPayables", "매입채무", "유동부채", 0.4),
    ("BS", "ifrs-full_ShorttermBorrowings", "단기차입금", "유동부채", 0.3),
    ("BS", "ifrs-full_NoncurrentLiabilities", "비유동부채", "비유동부채", 1.0),
    ("BS", "dart_LongTermBorrowingsGross", "장기차입금", "비유동부채", 0.5),
    ("BS", "ifrs-full_Liabilities", "부채총계", "부채총계", 1.0),
    ("BS", "ifrs-full_IssuedCapital", "자본금", "자본금", 1.0),
    ("BS", "ifrs-full_RetainedEarnings", "이익잉여금", "이익잉여금", 1.0),
    ("BS", "ifrs-full_Equity", "자본총계", "자본총계", 1.0),
    ("IS", "ifrs-full_Revenue", "수익(매출액)", "매출액", 1.0),
    ("IS", "ifrs-full_CostOfSales", "매출원가", "매출액", 0.68),
    ("IS", "ifrs-full_GrossProfit", "매출총이익", "매출액", 0.32),
    ("IS", "dart_TotalSellingGeneralAdministrativeExpenses", "판매비와관리비", "매출액", 0.2),
    ("IS", "dart_OperatingIncomeLoss", "영업이익", "영업이익", 1.0),
    ("IS", "ifrs-full_ProfitLossBeforeTax", "법인세비용차감전순이익", "법인세차감전 순이익", 1.0),
    (
        "IS",
        "ifrs-full_IncomeTaxExpenseContinuingOperations",
        "법인세비용",
        "법인세차감전 순이익",
        0.26,
    ),
    ("IS", "ifrs-full_ProfitLoss", "당기순이익", "당기순이익", 1.0),
    ("CIS", "ifrs-full_ProfitLoss", "당기순이익", "당기순이익", 1.0),
    ("CIS", "ifrs-full_OtherComprehensiveIncome", "기타포괄손익", "당기순이익", 0.08),
    ("CIS", "ifrs-full_ComprehensiveIncome", "총포괄손익", "당기순이익", 1.08),
    ("CF", "ifrs-full_CashFlowsFromUsedInOperatingActivities", "영업활동현금흐름", "영업이익", 1.3),
    (
        "CF",
        "ifrs-full_CashFlowsFromUsedInInvestingActivities",
        "투자활동현금흐름",
        "영업이익",
        -0.9,
    ),
    (
        "CF",
        "ifrs-full_CashFlowsFromUsedInFinancingActivities",
        "재무활동현금흐름",
        "영업이익",
        -0.25,
    ),
)
_SJ_NM = {"BS": "재무상태표", "IS": "손익계산서", "CIS": "포괄손익계산서", "CF": "현금흐름표"}


def full_line_amounts(seed: int, c: Corp, year: int, q: int, cfs: bool, *,
                      three_months: bool = False) -> list[int]:
    """The amounts of :data:`FULL_LINES` for one period (shared with FSC getBs/getIncoStat):
    balance-sheet lines at the end of quarter ``q``, flows accumulated from the start of the
    year — or, ``three_months``, of quarter ``q`` alone."""
    bs = dd.account_amounts(seed, c, year, q, cfs)
    flow = bs if three_months else _is_sum(seed, c, year, q, cfs)
    tilt = _receivables_tilt(seed, c, year)
    return [
        int(round((bs if sj == "BS" else flow)[base] * (share + tilt.get(aid, 0.0)), -3))
        for sj, aid, _, base, share in FULL_LINES
    ]


def _receivables_tilt(seed: int, c: Corp, year: int) -> dict[str, float]:
    """How a company's current assets lean between receivables and inventories in one year:
    2–12 points of 유동자산 moved from one to the other, so that the two are never equal (they
    were, exactly, for every company: issue 21 §9) while the current assets still add up."""
    h = dd.mix(seed, c.idx, year, 0x5EC)
    t = (2 + h % 11) / 100 * (1 if h >> 32 & 1 else -1)
    return {"ifrs-full_CurrentTradeReceivables": t, "ifrs-full_Inventories": -t}


def _full_accounts(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    _u, c = _corp(world, params)
    reprt = params.get("reprt_code", "").strip()
    q = _QUARTER.get(reprt)
    try:
        year = int(params.get("bsns_year", ""))
    except ValueError:
        return
    fs = params.get("fs_div", "").strip() or "CFS"
    if c is None or q is None or (fs == "CFS" and not c.cfs):
        return
    f = dd.periodic_filing(world.seed, c, year, reprt)
    if f is None:
        return
    names = _periods(c, year, q)
    amounts = functools.partial(full_line_amounts, world.seed, c, cfs=fs == "CFS")
    cur, prev_end = amounts(year, q), amounts(year - 1, 4)
    if q == 4:
        before = amounts(year - 2, 4)
    else:
        prev_cum = amounts(year - 1, q)
        cur_3m, prev_3m = amounts(year, q, three_months=True), amounts(year - 1, q,
                                                                       three_months=True)
    for i, (sj, aid, anm, _, _) in enumerate(FULL_LINES):
        row: Row = {
            "rcept_no": f.rcept_no,
            "reprt_code": reprt,
            "bsns_year": str(year),
            "corp_code": c.corp_code,
            "sj_div": sj,
            "sj_nm": _SJ_NM[sj],
            "account_id": aid,
            "account_nm": anm,
            "account_detail": "-",
            "thstrm_nm": names["thstrm_nm"],
        }
        if q == 4:  # an annual report: the year, the year before, the year before that
            row |= {"thstrm_amount": str(cur[i]), "frmtrm_nm": names["frmtrm_nm"],
                    "frmtrm_amount": str(prev_end[i]), "bfefrmtrm_nm": names["bfefrmtrm_nm"],
                    "bfefrmtrm_amount": str(before[i])}
        elif sj == "BS":  # a balance at the quarter's end against the prior year-end
            row |= {"thstrm_amount": str(cur[i]), "frmtrm_nm": names["frmtrm_end_nm"],
                    "frmtrm_amount": str(prev_end[i])}
        elif sj == "CF":  # a quarterly cash-flow statement is accumulated from January
            row |= {"thstrm_amount": str(cur[i]), "frmtrm_nm": names["frmtrm_nm"],
                    "frmtrm_amount": str(prev_cum[i]), "frmtrm_q_nm": names["frmtrm_nm"],
                    "frmtrm_q_amount": str(prev_cum[i])}
        else:  # income: the quarter's three months, and accumulated from January
            row |= {"thstrm_amount": str(cur_3m[i]), "thstrm_add_amount": str(cur[i]),
                    "frmtrm_nm": names["frmtrm_nm"], "frmtrm_amount": str(prev_3m[i]),
                    "frmtrm_q_nm": names["frmtrm_nm"], "frmtrm_q_amount": str(prev_3m[i]),
                    "frmtrm_add_amount": str(prev_cum[i])}
        yield row | {"ord": str(i + 1), "currency": "KRW", "_fs_div": fs}


# financial indicators: (idx_cl_code, idx_cl_nm, idx_code, idx_nm)
INDICES: tuple[tuple[str, str, str, str], ...] = (
    ("M210000", "수익성지표", "M211100", "순이익률"),
    ("M210000", "수익성지표", "M211200", "영업이익률"),
    ("M210000", "수익성지표", "M211300", "ROE"),
    ("M210000", "수익성지표", "M211400", "ROA"),
    ("M220000", "안정성지표", "M221100", "부채비율"),
    ("M220000", "안정성지표", "M221200", "유동비율"),
    ("M220000", "안정성지표", "M221300", "자기자본비율"),
    ("M230000", "성장성지표", "M231100", "매출액증가율(YoY)"),
    ("M230000", "성장성지표", "M231200", "영업이익증가율(YoY)"),
    ("M230000", "성장성지표", "M231300", "순이익증가율(YoY)"),
    ("M240000", "활동성지표", "M241100", "총자산회전율"),
    ("M240000", "활동성지표", "M241200", "자기자본회전율"),
)


def _ratio(a: float, b: float) -> str:
    return f"{a / b * 100:.3f}" if b else "-"


def _index_rows(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    u = universe(world)
    codes = [x.strip() for x in params.get("corp_code", "").split(",") if x.strip()]
    if len(codes) > 100:
        from ..engine import WorldError

        raise WorldError("too_many_corps", f"{len(codes)} corp_code values, 100 at most")
    reprt = params.get("reprt_code", "").strip()
    q = _QUARTER.get(reprt)
    try:
        year = int(params.get("bsns_year", ""))
    except ValueError:
        return
    for code in codes:
        c = u.by_code.get(code)
        if c is None or q is None or dd.periodic_filing(world.seed, c, year, reprt) is None:
            continue
        a = dd.account_amounts(world.seed, c, year, q, c.cfs)
        s, p = _is_sum(world.seed, c, year, q, c.cfs), _is_sum(world.seed, c, year - 1, q, c.cfs)
        vals = {
            "M211100": _ratio(s["당기순이익"], s["매출액"]),
            "M211200": _ratio(s["영업이익"], s["매출액"]),
            "M211300": _ratio(s["당기순이익"], a["자본총계"]),
            "M211400": _ratio(s["당기순이익"], a["자산총계"]),
            "M221100": _ratio(a["부채총계"], a["자본총계"]),
            "M221200": _ratio(a["유동자산"], a["유동부채"]),
            "M221300": _ratio(a["자본총계"], a["자산총계"]),
            "M231100": _ratio(s["매출액"] - p["매출액"], abs(p["매출액"])),
            "M231200": _ratio(s["영업이익"] - p["영업이익"], abs(p["영업이익"])),
            "M231300": _ratio(s["당기순이익"] - p["당기순이익"], abs(p["당기순이익"])),
            "M241100": f"{s['매출액'] / a['자산총계']:.3f}" if a["자산총계"] else "-",
            "M241200": f"{s['매출액'] / a['자본총계']:.3f}" if a["자본총계"] else "-",
        }
        for cl, cl_nm, code_, nm in INDICES:
            yield {
                "reprt_code": reprt,
                "bsns_year": str(year),
                "corp_code": c.corp_code,
                "stock_code": c.stock_code,
                "stlm_dt": f"{year}-{_MONTH_END[q].replace('.', '-')}",
                "idx_cl_code": cl,
                "idx_cl_nm": cl_nm,
                "idx_code": code_,
                "idx_nm": nm,
                "idx_val": vals[code_],
            }


# ------------------------------------------------------------------ DS002 periodic-report tables


def _report(world: World, params: Mapping[str, str]) -> tuple[Universe, Corp, Filing, int] | None:
    u, c = _corp(world, params)
    try:
        year = int(params.get("bsns_year", ""))
    except ValueError:
        return None
    if c is None:
        return None
    f = dd.periodic_filing(world.seed, c, year, params.get("reprt_code", "").strip())
    return None if f is None else (u, c, f, year)


def _stlm(f: Filing) -> str:
    y, m = f.period.split(".")
    return f"{y}-{m}-{ {'03': '31', '06': '30', '09': '30', '12': '31'}[m] }"


def _largest_holders(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _report(world, params)
    if got is None:
        return
    u, c, f, _ = got
    r = random.Random(mix(world.seed, int(c.corp_code), 101))
    n = 3 + int(r.random() * 12)
    total_b = total_e = 0
    for i in range(n):
        pct = r.uniform(8, 30) if i == 0 else r.uniform(0.01, 3.0)
        qty = int(c.shares * pct / 100)
        before = int(qty * r.uniform(0.9, 1.05))
        total_b, total_e = total_b + before, total_e + qty
        nm = korean_name(r) if (i or r.random() < 0.6) else u.corps[r.randrange(50)].corp_name
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "nm": nm,
            "relate": "본인" if i == 0 else r.choice(("특수관계인", "친인척", "임원", "계열회사")),
            "stock_knd": "보통주",
            "bsis_posesn_stock_co": _c(before),
            "bsis_posesn_stock_qota_rt": f"{before / c.shares * 100:.2f}",
            "trmend_posesn_stock_co": _c(qty),
            "trmend_posesn_stock_qota_rt": f"{pct:.2f}",
            "rm": "-",
            "stlm_dt": _stlm(f),
        }
    yield {
        "rcept_no": f.rcept_no,
        **_head(c),
        "nm": "계",
        "relate": "-",
        "stock_knd": "보통주",
        "bsis_posesn_stock_co": _c(total_b),
        "bsis_posesn_stock_qota_rt": f"{total_b / c.shares * 100:.2f}",
        "trmend_posesn_stock_co": _c(total_e),
        "trmend_posesn_stock_qota_rt": f"{total_e / c.shares * 100:.2f}",
        "rm": "-",
        "stlm_dt": _stlm(f),
    }


def _dividends(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _report(world, params)
    if got is None:
        return
    _, c, f, year = got
    r = random.Random(mix(world.seed, int(c.corp_code), 102))
    payout = r.uniform(0.1, 0.45) if r.random() < 0.7 else 0.0
    vals = []
    for y in (year, year - 1, year - 2):
        a = dd.account_amounts(world.seed, c, y, 4, c.cfs)
        net = a["당기순이익"]
        dps = int(max(net, 0) * payout / c.shares / 10) * 10
        vals.append((net, dps))

    def three(fn: object) -> dict[str, str]:
        assert callable(fn)
        return dict(zip(("thstrm", "frmtrm", "lwfr"), (fn(n, d) for n, d in vals), strict=True))

    table = (
        ("주당액면가액(원)", "", lambda n, d: _c(c.par)),
        ("(연결)당기순이익(백만원)", "", lambda n, d: _c(n / 1e6)),
        ("(연결)주당순이익(원)", "", lambda n, d: _c(n / c.shares)),
        ("현금배당금총액(백만원)", "", lambda n, d: _c(d * c.shares / 1e6) if d else "-"),
        (
            "(연결)현금배당성향(%)",
            "",
            lambda n, d: f"{d * c.shares / n * 100:.2f}" if d and n > 0 else "-",
        ),
        ("현금배당수익률(%)", "보통주", lambda n, d: f"{d / c.price * 100:.2f}" if d else "-"),
        ("주당 현금배당금(원)", "보통주", lambda n, d: _c(d) if d else "-"),
    )
    for se, knd, fn in table:
        row: Row = {"rcept_no": f.rcept_no, **_head(c), "se": se, **three(fn), "stlm_dt": _stlm(f)}
        if knd:
            row["stock_knd"] = knd
        yield row


_OFCPS = ("대표이사", "사내이사", "사외이사", "감사위원", "부사장", "전무", "상무", "상무")


def _executives(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _report(world, params)
    if got is None:
        return
    _, c, f, year = got
    r = random.Random(mix(world.seed, int(c.corp_code), 103))
    for i in range(5 + int(r.random() * (40 if c.stock_code else 8))):
        ofcps = _OFCPS[min(i, len(_OFCPS) - 1)] if i < 4 else r.choice(_OFCPS[4:])
        reg = "사내이사" if i < 2 else "사외이사" if ofcps in ("사외이사", "감사위원") else "미등기"
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "nm": korean_name(r),
            "sexdstn": "여" if r.random() < 0.12 else "남",
            "birth_ym": f"{r.randrange(1955, 1985)}년 {r.randrange(1, 13):02d}월",
            "ofcps": ofcps,
            "rgist_exctv_at": reg,
            "fte_at": "비상근" if reg == "사외이사" else "상근",
            "chrg_job": r.choice(("경영총괄", "재무", "영업", "연구개발", "생산", "인사", "-")),
            "main_career": f"{r.choice(('서울대', '연세대', '고려대', 'KAIST'))} 졸업",
            "mxmm_shrholdr_relate": "-",
            "hffc_pd": f"{r.randrange(1, 20)}년 {r.randrange(0, 12)}개월",
            "tenure_end_on": f"{year + r.randrange(1, 4)}년 03월 {r.randrange(15, 30)}일",
            "stlm_dt": _stlm(f),
        }


def _employees(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _report(world, params)
    if got is None:
        return
    _, c, f, _ = got
    r = random.Random(mix(world.seed, int(c.corp_code), 104))
    staff = max(20, int(c.scale / 8e8))
    for part in ("전사",) if staff < 3000 else ("DX", "DS", "기타"):
        for sex, k in (("남", 0.7), ("여", 0.3)):
            n = int(staff * k / (1 if part == "전사" else 3))
            cnt = int(n * r.uniform(0.02, 0.1))
            yield {
                "rcept_no": f.rcept_no,
                **_head(c),
                "fo_bbm": part,
                "sexdstn": sex,
                "reform_bfe_emp_co_rgllbr": "-",
                "reform_bfe_emp_co_cnttk": "-",
                "reform_bfe_emp_co_etc": "-",
                "rgllbr_co": _c(n - cnt),
                "rgllbr_abacpt_labrr_co": "-",
                "cnttk_co": _c(cnt),
                "cnttk_abacpt_labrr_co": "-",
                "sm": _c(n),
                "avrg_cnwk_sdytrn": f"{r.uniform(3, 18):.1f}",
                "fyer_salary_totamt": _c(n * r.uniform(5e7, 1.3e8)),
                "jan_salary_am": _c(r.uniform(5e7, 1.3e8)),
                "rm": "-",
                "stlm_dt": _stlm(f),
            }


def _total_shares(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    got = _report(world, params)
    if got is None:
        return
    _, c, f, _ = got
    r = random.Random(mix(world.seed, int(c.corp_code), 105))
    pref = int(c.shares * 0.14) if c.pref_code else 0
    tes = int(c.shares * r.uniform(0, 0.05))
    for se, n, t in (
        ("보통주", c.shares, tes),
        ("우선주", pref, 0),
        ("합계", c.shares + pref, tes),
    ):
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "se": se,
            "isu_stock_totqy": _c(n * 4 if se != "합계" else (c.shares + pref) * 4),
            "now_to_isu_stock_totqy": _c(n),
            "now_to_dcrs_stock_totqy": "-",
            "redc": "-",
            "profit_incnr": "-",
            "rdmstk_repy": "-",
            "etc": "-",
            "istc_totqy": _c(n),
            "tesstk_co": _c(t),
            "distb_stock_co": _c(n - t),
            "stlm_dt": _stlm(f),
        }


# ------------------------------------------------------------------ DS004 / DS005 (by filing)


def _filings_of(
    world: World, params: Mapping[str, str], kinds: Iterable[int], dated: bool
) -> Iterator[tuple[Universe, Corp, Filing]]:
    u, c = _corp(world, params)
    if c is None:
        return
    bgn = _ymd(params.get("bgn_de")) if dated else ""
    end = _ymd(params.get("end_de")) if dated else ""
    wanted = set(kinds)
    for f in dd.corp_history(world.seed, c, bgn, end):
        if f.kind in wanted:
            yield u, c, f


def _major_holdings(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for u, c, f in _filings_of(world, params, (dd.K_BLOCK,), False):
        r = random.Random(mix(world.seed, int(f.rcept_no), 201))
        rt, d = r.uniform(5, 15), r.uniform(-2, 2)
        yield {
            "rcept_no": f.rcept_no,
            "rcept_dt": f.rcept_no[:8],
            "corp_code": c.corp_code,
            "corp_name": c.corp_name,
            "report_tp": r.choice(("일반", "약식")),
            "repror": dd.filer_name(world.seed, u, f),
            "stkqy": _c(c.shares * rt / 100),
            "stkqy_irds": _c(c.shares * d / 100),
            "stkrt": f"{rt:.2f}",
            "stkrt_irds": f"{d:.2f}",
            "ctr_stkqy": _c(c.shares * rt / 200),
            "ctr_stkrt": f"{rt / 2:.2f}",
            "report_resn": r.choice(("단순추가취득", "장내매도", "신규보고", "보유목적 변경")),
        }


def _insider_holdings(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for u, c, f in _filings_of(world, params, (dd.K_INSIDER,), False):
        r = random.Random(mix(world.seed, int(f.rcept_no), 202))
        qty, d = int(r.lognormvariate(9, 2)), int(r.gauss(0, 2000))
        yield {
            "rcept_no": f.rcept_no,
            "rcept_dt": f.rcept_no[:8],
            "corp_code": c.corp_code,
            "corp_name": c.corp_name,
            "repror": dd.filer_name(world.seed, u, f),
            "isu_exctv_rgist_at": r.choice(("등기임원", "비등기임원")),
            "isu_exctv_ofcps": r.choice(("사내이사", "부사장", "전무", "상무", "-")),
            "isu_main_shrholdr": r.choice(("-", "10%이상주주")),
            "sp_stock_lmp_cnt": _c(qty),
            "sp_stock_lmp_irds_cnt": _c(d),
            "sp_stock_lmp_rate": f"{qty / c.shares * 100:.2f}",
            "sp_stock_lmp_irds_rate": f"{d / c.shares * 100:.2f}",
        }


def _dkor(ymd: str) -> str:
    return f"{ymd[:4]}년 {ymd[4:6]}월 {ymd[6:]}일"


def _later(ymd: str, days: int) -> str:
    o = dd.date(int(ymd[:4]), int(ymd[4:6]), int(ymd[6:])) + dd.timedelta(days=days)
    return f"{o.year}{o.month:02d}{o.day:02d}"


def _rights(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for _, c, f in _filings_of(world, params, (dd.K_RIGHTS,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 301))
        n = int(c.shares * r.uniform(0.05, 0.3))
        amt = n * c.price * 0.8
        split = (r.random() * 0.6, r.random() * 0.3)
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "nstk_ostk_cnt": _c(n),
            "nstk_estk_cnt": "-",
            "fv_ps": _c(c.par),
            "bfic_tisstk_ostk": _c(c.shares),
            "bfic_tisstk_estk": "-",
            "fdpp_fclt": _c(amt * split[0]),
            "fdpp_bsninh": "-",
            "fdpp_op": _c(amt * (1 - split[0] - split[1])),
            "fdpp_dtrp": _c(amt * split[1]),
            "fdpp_ocsa": "-",
            "fdpp_etc": "-",
            "ic_mthn": r.choice(
                ("주주배정후 실권주 일반공모", "제3자배정증자", "주주배정증자", "일반공모증자")
            ),
            "ssl_at": "미해당",
            "ssl_bgd": "-",
            "ssl_edd": "-",
        }


def _bonus(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for _, c, f in _filings_of(world, params, (dd.K_BONUS,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 302))
        k = r.choice((0.5, 1.0, 2.0))
        d = f.rcept_no[:8]
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "nstk_ostk_cnt": _c(c.shares * k),
            "nstk_estk_cnt": "-",
            "fv_ps": _c(c.par),
            "bfic_tisstk_ostk": _c(c.shares),
            "bfic_tisstk_estk": "-",
            "nstk_asstd": _dkor(_later(d, 15)),
            "nstk_ascnt_ps_ostk": f"{k}",
            "nstk_ascnt_ps_estk": "-",
            "nstk_dividrk": "-",
            "nstk_dlprd": _dkor(_later(d, 35)),
            "nstk_lstprd": _dkor(_later(d, 36)),
            "bddd": _dkor(d),
            "od_a_at_t": "2",
            "od_a_at_b": "0",
            "adt_a_atn": "-",
        }


def _cb(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for _, c, f in _filings_of(world, params, (dd.K_CB,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 303))
        fta = int(c.price * c.shares * r.uniform(0.02, 0.12) / 1e8) * 100_000_000 or 1_000_000_000
        prc = int(c.price * r.uniform(0.9, 1.1))
        d = f.rcept_no[:8]
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "bd_tm": str(r.randrange(1, 20)),
            "bd_knd": "무기명식 이권부 무보증 사모 전환사채",
            "bd_fta": _c(fta),
            "fdpp_fclt": "-",
            "fdpp_op": _c(fta * 0.6),
            "fdpp_dtrp": _c(fta * 0.4),
            "fdpp_ocsa": "-",
            "fdpp_etc": "-",
            "bd_intr_ex": f"{r.choice((0.0, 1.0, 2.0))}",
            "bd_intr_sf": f"{r.choice((2.0, 3.0, 4.0, 5.0))}",
            "bd_mtd": _dkor(_later(d, 365 * 3)),
            "bdis_mthn": "사모",
            "cv_rt": "100",
            "cv_prc": _c(prc),
            "cvisstk_knd": f"{c.legal_name} 기명식 보통주",
            "cvisstk_cnt": _c(fta / prc),
            "cvisstk_tisstk_vs": f"{fta / prc / c.shares * 100:.2f}",
            "cvrqpd_bgd": _dkor(_later(d, 380)),
            "cvrqpd_edd": _dkor(_later(d, 365 * 3 - 30)),
            "sbd": _dkor(_later(d, 7)),
            "pymd": _dkor(_later(d, 7)),
            "bddd": _dkor(d),
        }


def _buyback(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for _, c, f in _filings_of(world, params, (dd.K_BUYBACK,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 304))
        n = int(c.shares * r.uniform(0.002, 0.03))
        d = f.rcept_no[:8]
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "aqpln_stk_ostk": _c(n),
            "aqpln_stk_estk": "-",
            "aqpln_prc_ostk": _c(n * c.price),
            "aqpln_prc_estk": "-",
            "aqexpd_bgd": _dkor(_later(d, 1)),
            "aqexpd_edd": _dkor(_later(d, 90)),
            "hdexpd_bgd": "-",
            "hdexpd_edd": "-",
            "aq_pp": r.choice(("주주가치 제고", "주가안정 및 주주가치 제고", "임직원 보상")),
            "aq_mth": "유가증권시장을 통한 장내 직접 취득",
            "cs_iv_bk": r.choice(("삼성증권", "미래에셋증권", "NH투자증권", "한국투자증권")),
            "aq_wtn_div_ostk": _c(n * 0.1),
            "aq_wtn_div_ostk_rt": "0.10",
            "aq_dd": _dkor(d),
            "od_a_at_t": "3",
            "od_a_at_b": "0",
            "adt_a_atn": "-",
        }


def _treasury_disposal(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for _, c, f in _filings_of(world, params, (dd.K_TSDISP,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 305))
        n = int(c.shares * r.uniform(0.001, 0.01))
        d = f.rcept_no[:8]
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "dppln_stk_ostk": _c(n),
            "dppln_stk_estk": "-",
            "dpstk_prc_ostk": _c(c.price),
            "dpstk_prc_estk": "-",
            "dppln_prc_ostk": _c(n * c.price),
            "dppln_prc_estk": "-",
            "dpprpd_bgd": _dkor(_later(d, 1)),
            "dpprpd_edd": _dkor(_later(d, 30)),
            "dp_pp": r.choice(("임직원 성과보상", "재무구조 개선", "교환사채 교환")),
            "dp_m_mkt": "-",
            "dp_m_ovtm": _c(n),
            "dp_m_otc": "-",
            "dp_m_etc": "-",
            "cs_iv_bk": "-",
            "dp_dd": _dkor(d),
            "od_a_at_t": "2",
            "od_a_at_b": "0",
            "adt_a_atn": "-",
        }


def _mergers(world: World, params: Mapping[str, str]) -> Iterator[Row]:
    for u, c, f in _filings_of(world, params, (dd.K_MERGER,), True):
        r = random.Random(mix(world.seed, int(f.rcept_no), 306))
        target = u.corps[r.randrange(len(u.corps))]
        a = dd.account_amounts(world.seed, target, int(f.rcept_no[:4]) - 1, 4, False)
        d = f.rcept_no[:8]
        yield {
            "rcept_no": f.rcept_no,
            **_head(c),
            "mg_mth": r.choice(("소규모합병", "일반합병", "간이합병")),
            "mg_stn": "흡수합병",
            "mg_pp": "경영효율성 제고 및 시너지 창출",
            "mg_rt": f"1 : {r.uniform(0, 2):.7f}",
            "mg_rt_bs": "자본시장법 시행령 제176조의5",
            "mgptncmp_cmpnm": target.legal_name,
            "mgptncmp_mbsn": dd.INDUSTRIES[target.induty][1],
            "mgptncmp_rl_cmpn": r.choice(("계열회사", "-")),
            "rbsnfdtl_tast": _c(a["자산총계"]),
            "rbsnfdtl_tdbt": _c(a["부채총계"]),
            "rbsnfdtl_teqt": _c(a["자본총계"]),
            "rbsnfdtl_cpt": _c(a["자본금"]),
            "rbsnfdtl_sl": _c(a["매출액"]),
            "rbsnfdtl_nic": _c(a["당기순이익"]),
            "mgsc_mgctrd": _dkor(_later(d, 10)),
            "mgsc_mgdt": _dkor(_later(d, 90)),
            "ergmd": _dkor(d),
            "bdlst_atn": "아니오",
        }


# ------------------------------------------------------------------ declarations

_KEYED = ("corp_code", "bsns_year", "reprt_code")
_DS005 = ("corp_code", "bgn_de", "end_de")


def _ds(name: str, fn: object, doc: str) -> Dataset:
    return Dataset(name, rows=fn, doc=doc)  # type: ignore[arg-type]


DATASETS: tuple[Dataset, ...] = (
    Dataset(
        "dart_corps",
        build=_corp_rows,
        index=("corp_code", "corp_name", "stock_code"),
        doc="corpCode.xml: every DART filer",
    ),
    _ds("dart_disclosures", _disclosures, "list.json filings"),
    _ds("dart_company", _company, "company.json 기업개황"),
    _ds("dart_accounts", _single_accounts, "fnlttSinglAcnt/MultiAcnt 주요계정"),
    _ds("dart_accounts_all", _full_accounts, "fnlttSinglAcntAll 전체 재무제표"),
    _ds("dart_indices", _index_rows, "fnlttSinglIndx/CmpnyIndx 재무지표"),
    _ds("dart_largest_holders", _largest_holders, "hyslrSttus 최대주주 현황"),
    _ds("dart_dividends", _dividends, "alotMatter 배당에 관한 사항"),
    _ds("dart_executives", _executives, "exctvSttus 임원 현황"),
    _ds("dart_employees", _employees, "empSttus 직원 현황"),
    _ds("dart_total_shares", _total_shares, "stockTotqySttus 주식의 총수 현황"),
    _ds("dart_major_holdings", _major_holdings, "majorstock 대량보유 상황보고"),
    _ds("dart_insider_holdings", _insider_holdings, "elestock 임원ㆍ주요주주 소유보고"),
    _ds("dart_rights_offerings", _rights, "piicDecsn 유상증자 결정"),
    _ds("dart_bonus_issues", _bonus, "fricDecsn 무상증자 결정"),
    _ds("dart_convertible_bonds", _cb, "cvbdIsDecsn 전환사채권 발행결정"),
    _ds("dart_treasury_acquisitions", _buyback, "tsstkAqDecsn 자기주식 취득 결정"),
    _ds("dart_treasury_disposals", _treasury_disposal, "tsstkDpDecsn 자기주식 처분 결정"),
    _ds("dart_mergers", _mergers, "cmpMgDecsn 회사합병 결정"),
)


def _ep(
    tool: str,
    op: str,
    dataset: str,
    required: tuple[str, ...] = ("corp_code",),
    filters: tuple[Filter, ...] = (),
    params: tuple[str, ...] = (),
    sort: tuple[tuple[str, bool], ...] = (),
) -> Endpoint:
    return Endpoint(
        "dart",
        tool,
        f"{BASE}/{op}.json",
        "dart",
        dataset=dataset,
        service="list",
        required=required,
        filters=filters,
        params=params,
        sort=sort,
    )


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "dart",
        "corp_codes",
        f"{BASE}/corpCode.xml",
        "dart",
        dataset="dart_corps",
        custom=_corp_code_xml,
        doc="a ZIP holding CORPCODE.xml",
    ),
    Endpoint(
        "dart",
        "disclosures",
        f"{BASE}/list.json",
        "dart",
        dataset="dart_disclosures",
        service="list",
        filters=(
            Filter("corp_code"),
            Filter("bgn_de", "rcept_dt", "ge"),
            Filter("end_de", "rcept_dt", "le"),
            Filter("pblntf_ty", "_pblntf_ty"),
            Filter("pblntf_detail_ty", "_pblntf_detail_ty"),
            Filter("corp_cls"),
        ),
        params=("last_reprt_at", "sort", "sort_mth"),
        paging=Paging("page_no", "page_count", 10, 100, over_max="error"),
        sort=(("rcept_no", True),),
    ),
    Endpoint(
        "dart",
        "company",
        f"{BASE}/company.json",
        "dart",
        dataset="dart_company",
        required=("corp_code",),
        single=True,
    ),
    _ep("single_accounts", "fnlttSinglAcnt", "dart_accounts", _KEYED),
    _ep("multi_accounts", "fnlttMultiAcnt", "dart_accounts", _KEYED),
    _ep("full_statements", "fnlttSinglAcntAll", "dart_accounts_all", (*_KEYED, "fs_div")),
    _ep(
        "single_indices",
        "fnlttSinglIndx",
        "dart_indices",
        (*_KEYED, "idx_cl_code"),
        (Filter("idx_cl_code"),),
    ),
    _ep(
        "multi_indices",
        "fnlttCmpnyIndx",
        "dart_indices",
        (*_KEYED, "idx_cl_code"),
        (Filter("idx_cl_code"),),
    ),
    _ep("largest_shareholders", "hyslrSttus", "dart_largest_holders", _KEYED),
    _ep("dividends", "alotMatter", "dart_dividends", _KEYED),
    _ep("executives", "exctvSttus", "dart_executives", _KEYED),
    _ep("employees", "empSttus", "dart_employees", _KEYED),
    _ep("total_shares", "stockTotqySttus", "dart_total_shares", _KEYED),
    _ep("major_holdings", "majorstock", "dart_major_holdings"),
    _ep("insider_holdings", "elestock", "dart_insider_holdings"),
    _ep("rights_offerings", "piicDecsn", "dart_rights_offerings", _DS005),
    _ep("bonus_issues", "fricDecsn", "dart_bonus_issues", _DS005),
    _ep("convertible_bonds", "cvbdIsDecsn", "dart_convertible_bonds", _DS005),
    _ep("treasury_acquisitions", "tsstkAqDecsn", "dart_treasury_acquisitions", _DS005),
    _ep("treasury_disposals", "tsstkDpDecsn", "dart_treasury_disposals", _DS005),
    _ep("mergers", "cmpMgDecsn", "dart_mergers", _DS005),
)
