"""§13 chains 1–6 as trajectories on the world backend, each answer recomputed independently.

Every ``examples/world/0N_*.edge`` (N = 1…6) compiles against the shipped stdlib and runs on the
world backend (seed 0). The test then asks the same world for the same data *directly*
(:meth:`World.call` with the wire parameters, JSON parsed by hand, pages read by hand) and does
the reductions in plain Python: exact-name lookups, min/max with ties kept, most-frequent with
ties to the smallest value, numeric coercion of ``"1,234"`` / ``"812.5 Kcal"``. The answer must
equal that recomputation; a pinned literal is asserted in addition, so a change of the world's
data shows up as a change here.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.api import compile
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "world"
STDLIB = ROOT / "stdlib"
FSC = "/1160100/service"


# ====================================================================== fixtures and helpers


@pytest.fixture(scope="module")
def backend() -> Any:
    return make_world_backend(seed=0)


@pytest.fixture(scope="module")
def world(backend: Any) -> World:
    w = backend.world
    assert isinstance(w, World) and w.seed == 0
    return w


def run_example(backend: Any, prefix: str) -> dict[str, Any]:
    """Compile and run the single trajectory of ``examples/world/<prefix>_*.edge``."""
    (path,) = sorted(EXAMPLES.glob(f"{prefix}_*.edge"))
    plan = compile(path, search_paths=[STDLIB])
    (result,) = run_plan_sync(plan, backend)
    assert result.ok, [d.message for d in result.diagnostics]
    assert result.say
    assert isinstance(result.answer, dict)
    return result.answer


def num(v: Any) -> int | float | None:
    """A wire number: ``"1,234"`` → 1234, ``"-4.57"`` → -4.57, ``"812.5 Kcal"`` → 812.5."""
    if v is None:
        return None
    text = str(v).strip().removesuffix("Kcal").strip().replace(",", "")
    if not text:
        return None
    x = float(text)
    return int(x) if "." not in text else x


def iso(ymd: str) -> str:
    return f"{ymd[:4]}-{ymd[4:6]}-{ymd[6:8]}"


def round_half_away(x: float, n: int) -> float:
    q = Decimal(1).scaleb(-n)
    return float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def one(values: list[Any]) -> Any:
    """The answer form of a field reference: its distinct values, a list only when several."""
    distinct = list(dict.fromkeys(values))
    if not distinct:
        return None
    return distinct[0] if len(distinct) == 1 else distinct


def ties(rows: list[dict[str, Any]], key: Any, *, largest: bool = True) -> list[dict[str, Any]]:
    """The rows whose ``key`` is the maximum (minimum), all ties kept, in input order."""
    vals = [key(r) for r in rows if key(r) is not None]
    best = max(vals) if largest else min(vals)
    return [r for r in rows if key(r) == best]


def most_frequent(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    counts = Counter(r[field] for r in rows if r[field] is not None)
    top = max(counts.values())
    winner = min(v for v, c in counts.items() if c == top)
    return [r for r in rows if r[field] == winner]


def dart(w: World, op: str, **params: str) -> dict[str, Any]:
    resp = w.call("GET", f"/api/{op}", {"crtfc_key": "k", **params})
    assert resp.status == 200
    body = orjson.loads(resp.body)
    assert body["status"] == "000", body
    return body


def dart_list_all(w: World, **params: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        body = dart(w, "list.json", page_count="100", page_no=str(page), **params)
        rows += body["list"]
        if len(rows) >= body["total_count"] or len(body["list"]) < 100:
            return rows
        page += 1


def fsc(w: World, path: str, **params: str) -> list[dict[str, Any]]:
    """Every item of a data.go.kr FSC query (pages of 10,000; one item arrives as an object)."""
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        resp = w.call(
            "GET",
            f"{FSC}/{path}",
            {"serviceKey": "k", "resultType": "json", "numOfRows": "10000",
             "pageNo": str(page), **params},
        )
        body = orjson.loads(resp.body)["response"]
        assert body["header"]["resultCode"] == "00"
        items = body["body"]["items"]
        got = [] if not items else items["item"]
        got = [got] if isinstance(got, dict) else got
        rows += got
        if len(rows) >= int(body["body"]["totalCount"]) or len(got) < 10000:
            return rows
        page += 1


def neis(w: World, svc: str, **params: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        resp = w.call(
            "GET", f"/hub/{svc}",
            {"KEY": "k", "Type": "json", "pSize": "1000", "pIndex": str(page), **params},
        )
        body = orjson.loads(resp.body)
        if svc not in body:  # INFO-200: no (more) data
            return rows
        head, data = body[svc]
        total = head["head"][0]["list_total_count"]
        rows += data["row"]
        if len(rows) >= total or len(data["row"]) < 1000:
            return rows
        page += 1


def corp_code_table(w: World) -> list[dict[str, Any]]:
    resp = w.call("GET", "/api/corpCode.xml", {"crtfc_key": "k"})
    with zipfile.ZipFile(io.BytesIO(resp.body)) as z:
        root = ET.fromstring(z.read("CORPCODE.xml"))
    return [{e.tag: e.text for e in item} for item in root.findall("list")]


# ====================================================================== 1 company snapshot


def test_01_company_snapshot(backend: Any, world: World) -> None:
    got = run_example(backend, "01")

    (corp,) = [r for r in corp_code_table(world) if r["corp_name"] == "삼성전자"]
    company = dart(world, "company.json", corp_code=corp["corp_code"])
    prices = fsc(
        world,
        "GetStockSecuritiesInfoService/getStockPriceInfo",
        likeSrtnCd=company["stock_code"],
        beginBasDt="20241101",
        endBasDt="20241130",
    )
    first = ties(prices, lambda r: r["basDt"], largest=False)
    last = ties(prices, lambda r: r["basDt"])
    f, la = num(first[0]["clpr"]), num(last[0]["clpr"])
    assert f is not None and la is not None
    high = ties(ties(prices, lambda r: num(r["clpr"])), lambda r: r["basDt"])
    expected = {
        "company": company["corp_name"],
        "stock_code": company["stock_code"],
        "trading_days": len(prices),
        "first_close": f,
        "last_close": la,
        "return_pct": round_half_away((la - f) / f * 100, 2),
        "high_close": one([num(r["clpr"]) for r in high]),
        "high_day": one([iso(r["basDt"]) for r in high]),
    }
    assert got == expected
    assert got == {
        "company": "삼성전자(주)",
        "stock_code": "005930",
        "trading_days": 21,
        "first_close": 73600,
        "last_close": 77000,
        "return_pct": 4.62,
        "high_close": 77100,
        "high_day": "2024-11-26",
    }


# ====================================================================== 2 two bridges


def test_02_two_bridges(backend: Any, world: World) -> None:
    got = run_example(backend, "02")

    company = dart(world, "company.json", corp_code="00164779")
    (outline,) = fsc(
        world, "GetCorpBasicInfoService_V2/getCorpOutline_V2", crno=company["jurir_no"]
    )
    # the second bridge leads back to the company we started from
    assert outline["fssCorpUnqNo"] == company["corp_code"]
    summary = fsc(
        world, "GetFinaStatInfoService_V2/getSummFinaStat_V2", crno=outline["crno"], bizYear="2023"
    )
    (cfs,) = [r for r in summary if r["fnclDcd"] == "110"]
    accounts = dart(
        world,
        "fnlttSinglAcnt.json",
        corp_code=outline["fssCorpUnqNo"],
        bsns_year="2023",
        reprt_code="11011",
    )["list"]

    def dart_amount(name: str) -> Any:
        (row,) = [r for r in accounts if r["fs_div"] == "CFS" and r["account_nm"] == name]
        return num(row["thstrm_amount"])

    expected = {
        "company": company["corp_name"],
        "crno": outline["crno"],
        "fss_corp_code": outline["fssCorpUnqNo"],
        "fsc_sales": num(cfs["enpSaleAmt"]),
        "dart_sales": dart_amount("매출액"),
        "sales_gap": num(cfs["enpSaleAmt"]) - dart_amount("매출액"),  # type: ignore[operator]
        "fsc_operating_profit": num(cfs["enpBzopPft"]),
        "dart_operating_profit": dart_amount("영업이익"),
        "operating_gap": num(cfs["enpBzopPft"]) - dart_amount("영업이익"),  # type: ignore[operator]
        "dart_rows": len(accounts),
    }
    assert got == expected
    assert got["sales_gap"] == 0 and got["operating_gap"] == 0  # the two regulators agree
    assert got["fsc_sales"] == 33_026_271_000_000 and got["dart_rows"] == 26


# ====================================================================== 3 disclosure sweep


def test_03_rights_offering_sweep(backend: Any, world: World) -> None:
    got = run_example(backend, "03")

    day = "20241223"
    sweep = dart_list_all(world, bgn_de=day, end_de=day)
    hits = [
        r
        for r in sweep
        if r["report_nm"] == "주요사항보고서(유상증자결정)" and r["corp_cls"] == "Y"
    ]
    corp_codes = list(dict.fromkeys(r["corp_code"] for r in hits))
    stock_codes = list(dict.fromkeys(r["stock_code"] for r in hits))
    assert 2 <= len(corp_codes) <= 5 and len(stock_codes) == len(corp_codes)
    decisions = [
        row
        for cc in corp_codes
        for row in dart(world, "piicDecsn.json", corp_code=cc, bgn_de=day, end_de=day)["list"]
    ]
    # every hit's filing is the decision the fan found
    assert {r["rcept_no"] for r in hits} <= {d["rcept_no"] for d in decisions}
    prices = [
        row
        for sc in stock_codes
        for row in fsc(
            world,
            "GetStockSecuritiesInfoService/getStockPriceInfo",
            likeSrtnCd=sc,
            beginBasDt="20241216",
            endBasDt="20241231",
        )
    ]
    jump = ties(prices, lambda r: num(r["fltRt"]))
    expected = {
        "filings": len(sweep),
        "companies": one([d["corp_name"] for d in decisions]),
        "new_common_shares": sum(num(d["nstk_ostk_cnt"]) or 0 for d in decisions),
        "price_rows": len(prices),
        "best_stock": one([r["itmsNm"] for r in jump]),
        "best_day": one([iso(r["basDt"]) for r in jump]),
        "best_rate": one([num(r["fltRt"]) for r in jump]),
    }
    assert got == expected
    assert len(sweep) > 100  # more than one page of 100
    assert got["companies"] == ["LG화학", "LG에너지솔루션", "한양정공"]
    assert got["new_common_shares"] == 45_979_584 and got["price_rows"] == 30


# ====================================================================== 4 peer ranking


def test_04_peer_ranking(backend: Any, world: World) -> None:
    got = run_example(backend, "04")

    market = fsc(
        world,
        "GetStockSecuritiesInfoService/getStockPriceInfo",
        basDt="20241227",
        mrktCls="KOSDAQ",
    )
    peers = [r for r in market if (num(r["mrktTotAmt"]) or 0) >= 12_000_000_000_000]
    assert 2 <= len(peers) <= 5
    listed = [
        row
        for r in peers
        for row in fsc(
            world, "GetKrxListedInfoService/getItemInfo", likeSrtnCd=r["srtnCd"], basDt="20241227"
        )
    ]
    assert [x["srtnCd"] for x in listed] == ["A" + r["srtnCd"] for r in peers]
    outlines = [
        row
        for crno in dict.fromkeys(x["crno"] for x in listed)
        for row in fsc(world, "GetCorpBasicInfoService_V2/getCorpOutline_V2", crno=crno)
    ]
    corp_codes = list(dict.fromkeys(o["fssCorpUnqNo"] for o in outlines))
    accounts = [
        row
        for cc in corp_codes
        for row in dart(
            world, "fnlttMultiAcnt.json", corp_code=cc, bsns_year="2023", reprt_code="11011"
        )["list"]
    ]
    # the real service's batch (one call, comma-separated codes) returns the same rows
    batch = dart(
        world,
        "fnlttMultiAcnt.json",
        corp_code=",".join(corp_codes),
        bsns_year="2023",
        reprt_code="11011",
    )["list"]
    assert sorted(map(orjson.dumps, batch)) == sorted(map(orjson.dumps, accounts))
    sales = [r for r in accounts if r["fs_div"] == "OFS" and r["account_nm"] == "매출액"]
    top = ties(sales, lambda r: num(r["thstrm_amount"]))
    (winner_code,) = {r["corp_code"] for r in top}
    winner = dart(world, "company.json", corp_code=winner_code)
    expected = {
        "kosdaq_items": len(market),
        "peers": one([r["itmsNm"] for r in peers]),
        "reporting_peers": len(sales),
        "top_company": winner["corp_name"],
        "top_corp_code": winner_code,
        "top_sales": num(top[0]["thstrm_amount"]),
        "peer_sales_total": sum(num(r["thstrm_amount"]) or 0 for r in sales),
    }
    assert got == expected
    assert got["kosdaq_items"] == 1499 and got["reporting_peers"] == 5
    assert got["top_company"] == "(주)해성산업" and got["top_sales"] == 3_706_391_000_000


# ====================================================================== 5 ownership drill-down


def test_05_ownership_drilldown(backend: Any, world: World) -> None:
    got = run_example(backend, "05")

    holders = dart(
        world, "hyslrSttus.json", corp_code="00164779", bsns_year="2023", reprt_code="11011"
    )["list"]
    (largest,) = [r for r in holders if r["relate"] == "본인"]
    (cc,) = {r["corp_code"] for r in holders}
    major = dart(world, "majorstock.json", corp_code=cc)["list"]
    frequent = most_frequent(major, "repror")
    latest = ties(frequent, lambda r: r["rcept_dt"])
    (cc2,) = {r["corp_code"] for r in major}
    insiders = dart(world, "elestock.json", corp_code=cc2)["list"]
    insider = ties(insiders, lambda r: r["rcept_dt"])  # the latest report (a tie kept whole)
    sold = [
        r
        for r in insiders
        if r["rcept_dt"] > "20231231" and (num(r["sp_stock_lmp_irds_cnt"]) or 0) <= -1
    ]
    expected = {
        "largest_holder": largest["nm"],
        "largest_stake": num(largest["trmend_posesn_stock_qota_rt"]),
        "major_reports": len(major),
        "frequent_reporter": one([r["repror"] for r in frequent]),
        "frequent_reports": len(frequent),
        "latest_stake": one([num(r["stkrt"]) for r in latest]),
        "latest_report_day": one([iso(r["rcept_dt"]) for r in latest]),
        "insider_reports": len(insiders),
        "latest_insider": one([r["repror"] for r in insider]),
        "insider_sales_since_2024": len(sold),
    }
    assert got == expected
    assert got["frequent_reporter"] == "한국투자신탁운용" and got["frequent_reports"] == 14
    assert got["major_reports"] == 60 and got["insider_reports"] == 117


# ====================================================================== 6 school lunch


def test_06_school_lunch(backend: Any, world: World) -> None:
    got = run_example(backend, "06")

    candidates = neis(world, "schoolInfo", SCHUL_NM="중앙고등학교")
    assert len({r["LCTN_SC_NM"] for r in candidates}) >= 4  # the name alone is ambiguous
    (school,) = [r for r in candidates if r["LCTN_SC_NM"] == "서울특별시"]
    meals = neis(
        world,
        "mealServiceDietInfo",
        ATPT_OFCDC_SC_CODE=school["ATPT_OFCDC_SC_CODE"],
        SD_SCHUL_CODE=school["SD_SCHUL_CODE"],
        MLSV_FROM_YMD="20240501",
        MLSV_TO_YMD="20240531",
    )
    lunches = [r for r in meals if r["MMEAL_SC_NM"] == "중식"]
    kcal = [num(r["CAL_INFO"]) for r in lunches]
    richest = ties(lunches, lambda r: num(r["CAL_INFO"]))
    expected = {
        "same_name_schools": len(candidates),
        "school_code": school["SD_SCHUL_CODE"],
        "lunch_days": len(lunches),
        "day": one([iso(r["MLSV_YMD"]) for r in richest]),
        "menu": one([r["DDISH_NM"] for r in richest]),
        "kcal": one([num(r["CAL_INFO"]) for r in richest]),
        "avg_kcal": round_half_away(sum(k or 0 for k in kcal) / len(kcal), 1),
        "heavy_days": sum(1 for k in kcal if k is not None and k >= 900),
    }
    assert got == expected
    assert got["school_code"] == "7011348" and got["day"] == "2024-05-20"
    assert got["kcal"] == 965.4 and got["heavy_days"] == 8 and got["lunch_days"] == 21
