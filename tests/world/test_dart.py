"""OpenDART in the world: the company universe, corpCode.xml, filings, statements, decisions."""

from __future__ import annotations

import io
import types
import xml.etree.ElementTree as ET
import zipfile
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

from edgedsl.api import check
from edgedsl.check import load_catalog
from edgedsl.world.addresses import addresses
from edgedsl.world.engine import World
from edgedsl.world.platforms import dart, fsc
from edgedsl.world.platforms import dart_data as dd


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[dart, fsc])


def call(w: World, op: str, **params: str) -> Any:
    resp = w.call("GET", f"/api/{op}", {"crtfc_key": "k", **params})
    assert resp.status == 200
    return orjson.loads(resp.body)


def test_universe_is_deterministic_and_realistic(world: World) -> None:
    u = dd.universe(world)
    again = dd._build(0, world.rows("addresses"))
    assert [(c.corp_code, c.corp_name, c.jurir_no) for c in again.corps] == [
        (c.corp_code, c.corp_name, c.jurir_no) for c in u.corps
    ]
    listed = u.listed
    assert 2600 <= len(listed) <= 2700 and len(u.corps) > 20_000
    assert len({c.corp_code for c in u.corps}) == len(u.corps)
    assert len({c.stock_code for c in listed}) == len(listed)
    samsung = [c.corp_name for c in u.corps if c.corp_name.startswith("삼성")]
    assert {
        "삼성전자",
        "삼성SDI",
        "삼성물산",
        "삼성생명",
        "삼성전기",
        "삼성중공업",
        "삼성전자서비스",
    } <= set(samsung)
    assert u.by_code["00126380"].stock_code == "005930"
    assert u.by_code["00126371"].stock_code == "009150"
    for c in u.corps[:500]:
        assert dd.crno_check(c.jurir_no[:12]) == c.jurir_no[12]
        assert dd.bizr_check(c.bizr_no[:9]) == c.bizr_no[9]


def test_corp_code_zip_lists_every_filer(world: World) -> None:
    resp = world.call("GET", "/api/corpCode.xml", {"crtfc_key": "k"})
    assert resp.content_type == "application/x-msdownload"
    with zipfile.ZipFile(io.BytesIO(resp.body)) as z:
        root = ET.fromstring(z.read("CORPCODE.xml"))
    rows = [{e.tag: e.text for e in item} for item in root.findall("list")]
    assert len(rows) == len(dd.universe(world).corps)
    samsung = [r for r in rows if r["corp_name"] == "삼성전자"]
    assert samsung == [
        {
            "corp_code": "00126380",
            "corp_name": "삼성전자",
            "corp_eng_name": "SAMSUNG ELECTRONICS CO,.LTD",
            "stock_code": "005930",
            "modify_date": samsung[0]["modify_date"],
        }
    ]
    assert sum(1 for r in rows if r["stock_code"] == " ") > 15_000
    assert any("&" in (r["corp_name"] or "") for r in rows)  # 삼성E&A survives escaping
    assert b"<status>010</status>" in world.call("GET", "/api/corpCode.xml", {}).body


def test_company_address_is_a_juso_address(world: World) -> None:
    body = call(world, "company.json", corp_code="00126380")
    assert body["status"] == "000" and body["corp_name"] == "삼성전자(주)"
    assert body["jurir_no"] == "1301110006246" and body["stock_code"] == "005930"
    roads = {a["roadAddr"] for a in world.rows("addresses")}
    assert body["adres"] in roads and "영통구" in body["adres"]
    assert call(world, "company.json", corp_code="99999999")["status"] == "013"


def test_disclosures_of_one_company_are_paged_newest_first(world: World) -> None:
    p1 = call(
        world,
        "list.json",
        corp_code="00126380",
        bgn_de="20230101",
        end_de="20241231",
        page_count="100",
    )
    p2 = call(
        world,
        "list.json",
        corp_code="00126380",
        bgn_de="20230101",
        end_de="20241231",
        page_count="100",
        page_no="2",
    )
    rows = p1["list"] + p2["list"]
    assert p1["total_count"] == len(rows) or p1["total_count"] > 200
    nos = [r["rcept_no"] for r in rows]
    assert nos == sorted(nos, reverse=True) and len(set(nos)) == len(nos)
    assert all(r["rcept_no"].startswith(r["rcept_dt"]) for r in rows)
    names = {r["report_nm"] for r in rows}
    assert {"사업보고서 (2022.12)", "분기보고서 (2024.03)", "반기보고서 (2024.06)"} <= names
    assert call(world, "list.json", corp_code="00126380", page_count="101")["status"] == "100"


def test_market_day_rights_offerings_have_decisions(world: World) -> None:
    day = "20241205"
    body = call(world, "list.json", bgn_de=day, end_de=day, page_count="100")
    assert 100 <= body["total_count"] <= 1500
    b = call(world, "list.json", bgn_de=day, end_de=day, pblntf_ty="B", page_count="100")
    assert all(r["report_nm"].endswith(")") for r in b["list"])
    rights = [r for r in b["list"] if "유상증자" in r["report_nm"]]
    found = 0
    for y in range(2015, 2027):
        if rights:
            break
        for d in ("0312", "0605", "0910", "1112"):
            b = call(
                world,
                "list.json",
                bgn_de=f"{y}{d}",
                end_de=f"{y}{d}",
                pblntf_ty="B",
                page_count="100",
            )
            rights = [r for r in b.get("list", []) if "유상증자" in r["report_nm"]]
            if rights:
                break
    assert rights
    for r in rights:
        dec = call(
            world,
            "piicDecsn.json",
            corp_code=r["corp_code"],
            bgn_de=r["rcept_dt"],
            end_de=r["rcept_dt"],
        )
        assert r["rcept_no"] in {x["rcept_no"] for x in dec["list"]}
        found += 1
    assert found >= 1


def test_statements_agree_with_fsc_summary(world: World) -> None:
    body = call(
        world, "fnlttSinglAcnt.json", corp_code="00126380", bsns_year="2023", reprt_code="11011"
    )
    rows = body["list"]
    assert len(rows) == 26 and {r["fs_div"] for r in rows} == {"CFS", "OFS"}
    sales = next(r for r in rows if r["fs_div"] == "CFS" and r["account_nm"] == "매출액")
    assert "," in sales["thstrm_amount"]
    fsc_body = orjson.loads(
        world.call(
            "GET",
            "/1160100/service/GetFinaStatInfoService_V2/getSummFinaStat_V2",
            {"serviceKey": "k", "resultType": "json", "crno": "1301110006246", "bizYear": "2023"},
        ).body
    )
    items = fsc_body["response"]["body"]["items"]["item"]
    cfs = next(i for i in items if i["fnclDcd"] == "110")
    assert cfs["enpSaleAmt"] == sales["thstrm_amount"].replace(",", "")
    assert rows[0]["rcept_no"] in {
        r["rcept_no"]
        for r in call(
            world, "list.json", corp_code="00126380", bgn_de="20240301", end_de="20240331"
        )["list"]
    }


def test_multi_company_limit_is_status_021(world: World) -> None:
    u = dd.universe(world)
    codes = [c.corp_code for c in u.listed[:101]]
    over = call(
        world,
        "fnlttMultiAcnt.json",
        corp_code=",".join(codes),
        bsns_year="2023",
        reprt_code="11011",
    )
    assert over["status"] == "021"
    ok = call(
        world,
        "fnlttMultiAcnt.json",
        corp_code=",".join(codes[:3]),
        bsns_year="2023",
        reprt_code="11011",
    )
    assert ok["status"] == "000" and {r["corp_code"] for r in ok["list"]} <= set(codes[:3])


def test_periodic_report_tables(world: World) -> None:
    keyed = {"corp_code": "00126380", "bsns_year": "2023", "reprt_code": "11011"}
    shares = call(world, "stockTotqySttus.json", **keyed)["list"]
    common = next(r for r in shares if r["se"] == "보통주")
    assert common["istc_totqy"] == "5,969,782,550"
    assert call(world, "hyslrSttus.json", **keyed)["list"][-1]["nm"] == "계"
    assert len(call(world, "elestock.json", corp_code="00126380")["list"]) >= 50
    assert call(world, "hyslrSttus.json", **{**keyed, "bsns_year": "2030"})["status"] == "013"
    assert call(world, "piicDecsn.json", corp_code="00126380")["status"] == "100"


CATALOG_PARAMS_EXTRA = {"crtfc_key", "serviceKey", "resultType"}


@pytest.mark.parametrize("platform", ["dart", "fsc"])
def test_catalog_tools_pair_with_endpoints(world: World, platform: str) -> None:
    cat = load_catalog([platform])
    tools = cat.platforms[platform].tools
    eps = {e.tool: e for e in world.endpoints if e.platform == platform}
    assert set(tools) == set(eps)
    for name, tool in tools.items():
        ep = eps[name]
        assert tool.path is not None
        assert ep.path == urlsplit(cat.platforms[platform].base + tool.path).path
        accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params)
        if ep.paging is not None:
            accepted |= {ep.paging.page, ep.paging.size}
        if ep.custom is None:
            assert {p.name for p in tool.params} <= accepted, name


def test_every_dart_record_field_is_served(world: World) -> None:
    cat = load_catalog(["dart"])
    tools = cat.platforms["dart"].tools
    keyed = {"corp_code": "00126380", "bsns_year": "2023", "reprt_code": "11011"}
    u = dd.universe(world)
    samples: dict[str, dict[str, str]] = {
        "disclosures": {"corp_code": "00126380", "bgn_de": "20240101", "end_de": "20241231"},
        "company": {"corp_code": "00126380"},
        "full_statements": {**keyed, "fs_div": "CFS"},
        "single_indices": {**keyed, "idx_cl_code": "M210000"},
        "multi_indices": {**keyed, "idx_cl_code": "M220000"},
    }
    for name in (
        "single_accounts",
        "multi_accounts",
        "largest_shareholders",
        "dividends",
        "executives",
        "employees",
        "total_shares",
    ):
        samples[name] = keyed
    samples["major_holdings"] = samples["insider_holdings"] = {"corp_code": "00126380"}
    kinds = {
        "rights_offerings": dd.K_RIGHTS,
        "bonus_issues": dd.K_BONUS,
        "convertible_bonds": dd.K_CB,
        "treasury_acquisitions": dd.K_BUYBACK,
        "treasury_disposals": dd.K_TSDISP,
        "mergers": dd.K_MERGER,
    }
    for name, kind in kinds.items():
        f = next(
            f
            for c in u.listed[:400]
            for f in dd.corp_history(0, c, "20230101", "20241231")
            if f.kind == kind
        )
        samples[name] = {
            "corp_code": u.corps[f.corp].corp_code,
            "bgn_de": "20230101",
            "end_de": "20241231",
        }
    for name, params in samples.items():
        tool = tools[name]
        assert tool.path is not None
        body = call(world, tool.path.lstrip("/"), **params)
        assert body["status"] == "000", (name, body)
        rows = body["list"] if tool.at == "list" else [body]
        required = {f.name for f in tool.record.fields if not f.optional}
        for row in rows:
            assert required <= set(row), (name, required - set(row))
        every = set().union(*(set(r) for r in rows))
        assert {f.name for f in tool.record.fields} <= every | {
            "thstrm_add_amount",
            "frmtrm_add_amount",
        }, name


def test_trajectories_type_check() -> None:
    src = """use dart, fsc

trajectory two_bridges "삼성전자의 법인등록번호로 금융위 기업개요와 2023년 요약재무제표를 찾으면?" {
  co = dart.company(corp_code: "00126380")
  outline = fsc.corp_outline(crno: seq co.jurir_no) pages 1
  summary = fsc.fs_summary(crno: seq outline.crno, bizYear: 2023) pages all
  cfs = drv summary | where fnclDcd == "110"
  answer {
    same: outline.fssCorpUnqNo,
    sales: cfs.enpSaleAmt,
  }
}

trajectory rights_day "2024년 12월 5일 유상증자 결정 공시를 낸 회사의 신주 수는?" {
  filings = dart.disclosures(bgn_de: 2024-12-05, end_de: 2024-12-05, pblntf_ty: "B") pages all
  latest = drv filings | where report_nm == "주요사항보고서(유상증자결정)" | max rcept_dt
  decision = dart.rights_offerings(
    corp_code: seq latest.corp_code,
    bgn_de: 2024-12-05,
    end_de: 2024-12-05,
  )
  answer decision.nstk_ostk_cnt
}
"""
    result = check(src)
    assert result is not None


def test_filings_are_deterministic_per_seed() -> None:
    w0 = types.SimpleNamespace(seed=0, rows=lambda n: list(addresses(0)))
    u = dd.universe(w0)  # type: ignore[arg-type]
    c = u.by_code["00126380"]
    a = dd.corp_history(0, c, "20240101", "20241231")
    dd._CORP_YEARS.clear()
    assert dd.corp_history(0, c, "20240101", "20241231") == a
    assert dd._corp_year(1, c, 2024) != dd._corp_year(0, c, 2024)


def _full(w: World, year: int, reprt: str) -> dict[str, dict[str, str]]:
    body = call(w, "fnlttSinglAcntAll.json", corp_code="00126380", bsns_year=str(year),
                reprt_code=reprt, fs_div="CFS")
    assert body["status"] == "000"
    return {r["account_id"]: r for r in body["list"]}


def test_full_statements_carry_the_services_periods(world: World) -> None:
    """Issue 21 §7: ``fnlttSinglAcntAll`` as the service writes it — an annual report adds the
    term before last (``bfefrmtrm_*``); a quarterly one compares a balance with the prior
    year-end (``제 N 기말``), gives income for the quarter's three months with the amounts
    accumulated from January (``thstrm_add_amount``, ``frmtrm_q_*``, ``frmtrm_add_amount``) and
    has no ``bfefrmtrm_*`` key at all. The periods agree across reports."""
    annual = {y: _full(world, y, "11011") for y in (2021, 2022, 2023)}
    q1, half = _full(world, 2023, "11013"), _full(world, 2023, "11012")
    for aid, row in annual[2023].items():
        assert row["bfefrmtrm_nm"].startswith("제 ") and "thstrm_add_amount" not in row
        # the same year seen from three annual reports
        assert row["bfefrmtrm_amount"] == annual[2022][aid]["frmtrm_amount"] \
            == annual[2021][aid]["thstrm_amount"]
    for aid, row in half.items():
        assert not any(k.startswith("bfefrmtrm") for k in row)
        if row["sj_div"] == "BS":
            assert row["frmtrm_nm"].endswith("기말") and "frmtrm_q_amount" not in row
            assert row["frmtrm_amount"] == annual[2022][aid]["thstrm_amount"]
        elif row["sj_div"] in ("IS", "CIS"):
            assert row["thstrm_nm"].endswith("반기") and row["frmtrm_q_nm"].endswith("반기")
            # three months of the second quarter + the first quarter's = the half year
            assert int(row["thstrm_add_amount"]) == int(row["thstrm_amount"]) \
                + int(q1[aid]["thstrm_amount"])
            assert {"frmtrm_q_amount", "frmtrm_add_amount"} <= set(row)


def test_a_quarterly_balance_sheet_names_the_prior_year_end(world: World) -> None:
    """Issue 21 §7: ``fnlttSinglAcnt``'s half-year balance sheet compares with the prior
    year-end and says so (``제 54 기말``, ``2022.12.31 현재``); income compares with the same
    half a year before."""
    body = call(world, "fnlttSinglAcnt.json", corp_code="00126380", bsns_year="2023",
                reprt_code="11012")
    for row in body["list"]:
        if row["sj_div"] == "BS":
            assert row["frmtrm_nm"].endswith("기말") and row["frmtrm_dt"] == "2022.12.31 현재"
        else:
            assert row["frmtrm_nm"].endswith("반기")


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_current_assets_add_up_and_their_lines_differ(seed: int) -> None:
    """Issue 21 §9: receivables and inventories were equal to the won for every company; now
    they differ, and the current-asset lines still add up to 유동자산 (within the thousands the
    amounts are rounded to), for many companies and years at several seeds."""
    w = World(seed=seed, modules=[dart, fsc])
    u = dd.universe(w)
    parts = ("ifrs-full_CashAndCashEquivalents",
             "dart_ShortTermDepositsNotClassifiedAsCashEquivalents",
             "ifrs-full_CurrentTradeReceivables", "ifrs-full_Inventories")
    checked = 0
    for c in [c for c in u.corps if c.stock_code][:12]:
        for year in (2021, 2023):
            body = call(w, "fnlttSinglAcntAll.json", corp_code=c.corp_code, bsns_year=str(year),
                        reprt_code="11011", fs_div="CFS" if c.cfs else "OFS")
            if body["status"] != "000":
                continue
            rows = {r["account_id"]: int(r["thstrm_amount"]) for r in body["list"]}
            assert rows["ifrs-full_CurrentTradeReceivables"] != rows["ifrs-full_Inventories"]
            assert abs(sum(rows[p] for p in parts) - rows["ifrs-full_CurrentAssets"]) <= 2_000
            checked += 1
    assert checked >= 12
