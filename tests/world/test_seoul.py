"""서울 열린데이터광장 in the world: path templates, positional filters, agreement with molit."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from edgedsl.api import check
from edgedsl.world.engine import World
from edgedsl.world.platforms import region, seoul
from edgedsl.world.platforms.region_data import apt_trades
from tests.world.test_region import _catalog_agrees


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[region, seoul])


def get(w: World, path: str) -> Any:
    resp = w.call("GET", path, {})
    assert resp.status == 200
    return orjson.loads(resp.body)


def rows(body: Any, svc: str) -> list[dict[str, Any]]:
    return body[svc]["row"]


def test_gu_year_trades_and_index_paging(world: World) -> None:
    first = get(world, "/k/json/tbLnOpendataRtmsV/1/1000/2024/11680")["tbLnOpendataRtmsV"]
    total = first["list_total_count"]
    assert 1000 < total < 10_000
    assert first["RESULT"]["CODE"] == "INFO-000"
    tail = get(world, f"/k/json/tbLnOpendataRtmsV/{total - 4}/{total + 5}/2024/11680")
    assert len(rows(tail, "tbLnOpendataRtmsV")) == 5
    for r in first["row"]:
        assert r["CGG_CD"] == "11680" and r["CGG_NM"] == "강남구" and r["RCPT_YR"] == 2024
        assert isinstance(r["THING_AMT"], int) and isinstance(r["MNO"], str)


def test_blank_segments_do_not_filter(world: World) -> None:
    all_apts = get(world, "/k/json/tbLnOpendataRtmsV/1/5/2024/11680/%20/%20/%20/%20/%20/%20/"
                          "%20/%20/아파트".replace("%20", " "))
    body = all_apts["tbLnOpendataRtmsV"]
    assert body["list_total_count"] > 500
    assert {r["BLDG_USG"] for r in body["row"]} == {"아파트"}


def test_apartment_rows_agree_with_molit(world: World) -> None:
    """Every 2024-06 아파트 contract of 마포구 appears in both services, with the same price."""
    molit = apt_trades(0, "11440", 2024, 6)
    seen: dict[tuple[str, str, int], int] = {}
    for year in (2024,):
        start = 1
        while True:
            got = get(world, f"/k/json/tbLnOpendataRtmsV/{start}/{start + 999}/{year}/11440/ / /"
                             " / / / / / /아파트")["tbLnOpendataRtmsV"]
            for r in got["row"]:
                seen[(r["BLDG_NM"], r["CTRT_DAY"], r["THING_AMT"])] = 1
            start += 1000
            if start > got["list_total_count"]:
                break
    for t in molit:
        day = f"2024{6:02d}{t['dealDay']:02d}"
        amount = int(t["dealAmount"].replace(",", ""))
        assert (t["aptNm"], day, amount) in seen


def test_rent_rows(world: World) -> None:
    body = get(world, "/k/json/tbLnOpendataRentV/1/100/2025/11110/ / / / / / / / /월세")
    got = body["tbLnOpendataRentV"]["row"]
    assert got and all(r["RENT_SE"] == "월세" and r["RTFE"] > 0 for r in got)


def test_subway_day(world: World) -> None:
    body = get(world, "/k/json/CardSubwayStatsNew/1/1000/20240315")["CardSubwayStatsNew"]
    assert body["list_total_count"] > 250
    gangnam = get(world, "/k/json/CardSubwayStatsNew/1/5/20240315/2호선/강남")
    (r,) = rows(gangnam, "CardSubwayStatsNew")
    assert r["GTON_TNOPE"] > 10_000 and r["REG_YMD"] == "20240318"
    none = get(world, "/k/json/CardSubwayStatsNew/1/5/20300101")
    assert none == {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}


def test_parking_by_address(world: World) -> None:
    body = get(world, "/k/json/GetParkInfo/1/1000/마포구")["GetParkInfo"]
    assert body["list_total_count"] > 10
    for r in body["row"]:
        assert "마포구" in r["ADDR"]
        assert 37.4 < r["LAT"] < 37.75 and 126.75 < r["LOT"] < 127.2


def test_air_quality_stations(world: World) -> None:
    body = get(world, "/k/json/RealtimeCityAir/1/100")["RealtimeCityAir"]
    assert body["list_total_count"] == 25
    south = get(world, "/k/json/RealtimeCityAir/1/10/동남권")["RealtimeCityAir"]["row"]
    assert {r["MSRSTE_NM"] for r in south} == {"서초구", "강남구", "송파구", "강동구"}


def test_family_errors(world: World) -> None:
    assert get(world, "/sample/json/RealtimeCityAir/1/10")["RESULT"]["CODE"] == "ERROR-335"
    assert get(world, "/k/json/RealtimeCityAir/1/1001")["RESULT"]["CODE"] == "ERROR-336"
    assert get(world, "/k/json/RealtimeCityAir/5/1")["RESULT"]["CODE"] == "ERROR-334"


def test_catalog_matches_the_world(world: World) -> None:
    samples = {
        "seoul.tbLnOpendataRtmsV": {"KEY": "k", "TYPE": "json", "START_INDEX": "1",
                                    "END_INDEX": "100", "RCPT_YR": "2024", "CGG_CD": "11110"},
        "seoul.tbLnOpendataRentV": {"KEY": "k", "TYPE": "json", "START_INDEX": "1",
                                    "END_INDEX": "100", "RCPT_YR": "2024", "CGG_CD": "11110"},
        "seoul.CardSubwayStatsNew": {"KEY": "k", "TYPE": "json", "START_INDEX": "1",
                                     "END_INDEX": "100", "USE_YMD": "20240315"},
        "seoul.GetParkInfo": {"KEY": "k", "TYPE": "json", "START_INDEX": "1", "END_INDEX": "100"},
        "seoul.RealtimeCityAir": {"KEY": "k", "TYPE": "json", "START_INDEX": "1",
                                  "END_INDEX": "100"},
    }
    _catalog_agrees({"seoul"}, world, samples)


def test_catalog_type_checks_in_use() -> None:
    text = '''use region, seoul

trajectory gangnam_apartments
  "2024년 강남구 아파트 매매 중 가장 비싼 거래의 건물명과, 6월 국토부 자료의 최고가는?"
{
  sales = seoul.tbLnOpendataRtmsV(RCPT_YR: 2024, CGG_CD: "11680", BLDG_USG: "아파트") pages all
  top = drv sales | max THING_AMT
  trades = molit.getRTMSDataSvcAptTrade(LAWD_CD: seq top.CGG_CD, DEAL_YMD: "202406") pages all
  best = drv trades | max dealAmount
  answer {
    seoul: top.BLDG_NM,
    molit: best.aptNm,
  }
}
'''
    result = check(text)
    assert not [d for d in result.diagnostics if d.severity == "error"]
