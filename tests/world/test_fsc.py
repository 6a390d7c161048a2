"""금융위원회 services in the world: prices, listings, corp outline, statements, indices."""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest

from edgedsl.world.engine import World
from edgedsl.world.platforms import dart, fsc
from edgedsl.world.platforms import dart_data as dd

SVC = "/1160100/service"


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[dart, fsc])


def call(w: World, path: str, **params: str) -> dict[str, Any]:
    resp = w.call("GET", f"{SVC}/{path}", {"serviceKey": "k", "resultType": "json", **params})
    assert resp.status == 200
    body: dict[str, Any] = orjson.loads(resp.body)["response"]
    assert body["header"]["resultCode"] == "00"
    return body["body"]


def items(body: dict[str, Any]) -> list[dict[str, Any]]:
    got = body["items"]["item"] if body["items"] else []
    return [got] if isinstance(got, dict) else got


PRICES = "GetStockSecuritiesInfoService/getStockPriceInfo"


def test_holiday_table_and_trading_days() -> None:
    h = dd.holidays()
    assert {
        "20240101",
        "20240209",
        "20240410",
        "20241001",
        "20241225",
        "20241231",
        "20250127",
        "20250603",
        "20260217",
    } <= h
    days = dd.trading_days()
    per_year = {y: sum(1 for d in days if d.year == y) for y in range(2015, 2026)}
    assert all(240 <= n <= 252 for n in per_year.values()), per_year


def test_a_trading_day_lists_the_whole_market(world: World) -> None:
    body = call(world, PRICES, basDt="20241227", numOfRows="1000")
    assert 2500 <= body["totalCount"] <= 2900
    rows = items(body)
    assert len(rows) == 1000 and all(r["basDt"] == "20241227" for r in rows)
    assert {r["mrktCtg"] for r in rows} <= {"KOSPI", "KOSDAQ", "KONEX"}
    sam = items(call(world, PRICES, basDt="20241227", likeSrtnCd="005930"))
    assert [r["itmsNm"] for r in sam] == ["삼성전자"]
    assert sam[0]["isinCd"] == "KR7005930003" and sam[0]["lstgStCnt"] == "5969782550"
    assert int(sam[0]["mrktTotAmt"]) == int(sam[0]["clpr"]) * 5969782550
    pref = items(call(world, PRICES, basDt="20241227", likeItmsNm="삼성전자우"))
    assert pref[0]["srtnCd"] == "005935" and pref[0]["isinCd"] == "KR7005931001"


@pytest.mark.parametrize("day", ["20241228", "20241225", "20240410", "20241231"])
def test_no_rows_on_closed_days(world: World, day: str) -> None:
    body = call(world, PRICES, basDt=day)
    assert body["totalCount"] == 0 and body["items"] == ""


def test_range_query_agrees_with_day_query_and_is_newest_first(world: World) -> None:
    rng = items(
        call(
            world,
            PRICES,
            likeSrtnCd="000660",
            beginBasDt="20241201",
            endBasDt="20250101",
            numOfRows="100",
        )
    )
    days = [r["basDt"] for r in rng]
    assert days == sorted(days, reverse=True) and len(days) == 20
    for r in rng[:3]:
        one = items(call(world, PRICES, basDt=r["basDt"], isinCd=r["isinCd"]))
        assert one == [r]
    for a, b in itertools.pairwise(rng):
        assert int(a["clpr"]) - int(b["clpr"]) == int(a["vs"])


def test_prices_are_deterministic_and_differ_by_seed(world: World) -> None:
    a = items(call(world, PRICES, basDt="20240603", likeSrtnCd="005930"))
    assert items(call(world, PRICES, basDt="20240603", likeSrtnCd="005930")) == a
    day = dd.trading_days()[-300].toordinal()
    by_seed = {round(fsc.level(dd.mix(s, 5930), 70_000, 0.015, day)) for s in range(4)}
    assert len(by_seed) == 4


def test_listed_items_carry_the_a_prefix_and_crno(world: World) -> None:
    rows = items(
        call(world, "GetKrxListedInfoService/getItemInfo", basDt="20241227", likeItmsNm="삼성전자")
    )
    sam = next(r for r in rows if r["itmsNm"] == "삼성전자")
    assert sam["srtnCd"] == "A005930" and sam["crno"] == "1301110006246"
    assert sam["corpNm"] == "삼성전자(주)"
    kosdaq = call(
        world,
        "GetKrxListedInfoService/getItemInfo",
        basDt="20241227",
        mrktCtg="KOSDAQ",
        numOfRows="1",
    )
    assert 1400 <= kosdaq["totalCount"] <= 1700


def test_corp_outline_bridges_to_dart(world: World) -> None:
    u = dd.universe(world)
    for c in (u.by_code["00126380"], u.listed[100], u.corps[-1]):
        rows = items(call(world, "GetCorpBasicInfoService_V2/getCorpOutline_V2", crno=c.jurir_no))
        assert len(rows) == 1
        assert rows[0]["fssCorpUnqNo"] == c.corp_code and rows[0]["bzno"] == c.bizr_no
        assert rows[0]["enpBsadr"] == u.adres(c)
    many = call(world, "GetCorpBasicInfoService_V2/getCorpOutline_V2", corpNm="삼성")
    assert many["totalCount"] >= 20


def test_statements_and_issue_info(world: World) -> None:
    bs = items(
        call(
            world,
            "GetFinaStatInfoService_V2/getBs_V2",
            crno="1301110006246",
            bizYear="2023",
            numOfRows="100",
        )
    )
    inc = items(
        call(
            world,
            "GetFinaStatInfoService_V2/getIncoStat_V2",
            crno="1301110006246",
            bizYear="2023",
            numOfRows="100",
        )
    )
    summ = items(
        call(
            world,
            "GetFinaStatInfoService_V2/getSummFinaStat_V2",
            crno="1301110006246",
            bizYear="2023",
        )
    )
    assets = next(r for r in bs if r["acitId"] == "ifrs-full_Assets" and r["fnclDcd"] == "110")
    cfs = next(r for r in summ if r["fnclDcd"] == "110")
    assert abs(int(assets["crtmAcitAmt"]) - int(cfs["enpTastAmt"])) < 10**6
    assert {r["acitNm"] for r in inc} >= {"수익(매출액)", "영업이익", "당기순이익"}
    stat = items(call(world, "GetStocIssuInfoService/getStocIssuStat", crno="1301110006246"))
    assert stat[0]["onskTisuCnt"] == "5969782550"
    basi = items(call(world, "GetStocIssuInfoService/getItemBasiInfo", crno="1301110006246"))
    assert {r["isinCd"] for r in basi} == {"KR7005930003", "KR7005931001"}
    assert (
        call(
            world,
            "GetFinaStatInfoService_V2/getSummFinaStat_V2",
            crno="1301110006246",
            bizYear="2031",
        )["totalCount"]
        == 0
    )


def test_market_index(world: World) -> None:
    body = call(
        world, "GetMarketIndexInfoService/getStockMarketIndex", basDt="20241227", numOfRows="100"
    )
    rows = items(body)
    assert body["totalCount"] == len(fsc.INDEX_TABLE) and "코스피" in {r["idxNm"] for r in rows}
    kospi = items(
        call(
            world,
            "GetMarketIndexInfoService/getStockMarketIndex",
            idxNm="코스피",
            beginBasDt="20241201",
            endBasDt="20241231",
            numOfRows="100",
        )
    )
    assert len(kospi) == 20 and all(float(r["clpr"]) > 0 for r in kospi)


def test_missing_key_is_the_xml_gateway_error(world: World) -> None:
    resp = world.call("GET", f"{SVC}/{PRICES}", {"resultType": "json", "basDt": "20241227"})
    assert resp.body.lstrip().startswith(b"<?xml") and b"SERVICE_KEY" in resp.body
