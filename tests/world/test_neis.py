"""The NEIS world: schools on real 시도 addresses, per-school data, the hub envelope end to end."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from edgedsl.api import check
from edgedsl.world.addresses import addresses
from edgedsl.world.engine import World
from edgedsl.world.platforms import neis

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[neis])


def call(w: World, svc: str, **params: str) -> dict:
    params.setdefault("KEY", "k")
    params.setdefault("Type", "json")
    resp = w.call("GET", f"/hub/{svc}", params)
    assert resp.status == 200
    return orjson.loads(resp.body)


def rows_of(body: dict, svc: str) -> tuple[int, list[dict]]:
    head, rows = body[svc]
    return head["head"][0]["list_total_count"], rows["row"]


def test_schools_are_deterministic_and_seeded() -> None:
    a, b, c = neis.schools(0), neis.schools.__wrapped__(0), neis.schools(1)
    assert a == b
    assert [r["SCHUL_NM"] for r in a[:200]] != [r["SCHUL_NM"] for r in c[:200]]


def test_cardinalities_and_offices() -> None:
    s = neis.schools(0)
    assert 11_000 < len(s) < 13_500
    by_office = Counter(r["ATPT_OFCDC_SC_CODE"] for r in s)
    assert len(by_office) == 17 and 1_200 < by_office["B10"] < 1_500
    assert len({(r["ATPT_OFCDC_SC_CODE"], r["SD_SCHUL_CODE"]) for r in s}) == len(s)
    assert {r["SCHUL_KND_SC_NM"] for r in s} == {"초등학교", "중학교", "고등학교", "특수학교"}


def test_same_name_schools_in_several_regions() -> None:
    s = neis.schools(0)
    central = [r for r in s if r["SCHUL_NM"] == "중앙고등학교"]
    assert len({r["LCTN_SC_NM"] for r in central}) >= 4
    assert {r["ATPT_OFCDC_SC_CODE"] for r in s if r["SCHUL_NM"] == "한빛고등학교"} >= {"B10", "J10"}


def test_schools_sit_at_addresses_of_their_sido() -> None:
    road = {a["roadAddrPart1"]: a for a in addresses(0)}
    for r in neis.schools(0)[::500]:
        a = road[r["ORG_RDNMA"]]
        office = next(o for o in neis.nd.OFFICES if o.code == r["ATPT_OFCDC_SC_CODE"])
        assert a["admCd"].startswith(office.prefix)
        assert a["sggNm"] == "" or a["sggNm"].split(" ")[0] in r["ORG_RDNMA"]


def test_school_info_partial_name_and_fields(world: World) -> None:
    total, rows = rows_of(call(world, "schoolInfo", SCHUL_NM="중앙고등학교"), "schoolInfo")
    assert total == len(rows) >= 4
    assert all("중앙고등학교" in r["SCHUL_NM"] for r in rows)
    assert "_kind" not in rows[0] and rows[0]["FOND_YMD"].isdigit()
    for field in ("ATPT_OFCDC_SC_NM", "ENG_SCHUL_NM", "JU_ORG_NM", "ORG_RDNZC", "ORG_RDNDA",
                  "HS_GNRL_BUSNS_SC_NM", "SPCLY_PURPS_HS_ORD_NM", "FOAS_MEMRD", "LOAD_DTM"):
        assert field in rows[0]


def _a_high_school() -> dict:
    return next(r for r in neis.schools(0) if r["_kind"] == "his" and r["_size"] >= 9)


def test_meals_window_and_wire_quirks(world: World) -> None:
    s = _a_high_school()
    body = call(world, "mealServiceDietInfo", ATPT_OFCDC_SC_CODE=s["ATPT_OFCDC_SC_CODE"],
                SD_SCHUL_CODE=s["SD_SCHUL_CODE"], MLSV_FROM_YMD="20240501",
                MLSV_TO_YMD="20240531", MMEAL_SC_CODE="2")
    total, rows = rows_of(body, "mealServiceDietInfo")
    assert 15 <= total <= 23
    assert all("20240501" <= r["MLSV_YMD"] <= "20240531" for r in rows)
    assert all(r["CAL_INFO"].endswith(" Kcal") for r in rows)
    assert any("<br/>" in r["DDISH_NM"] and "(" in r["DDISH_NM"] for r in rows)
    days = {r["MLSV_YMD"] for r in rows}
    assert "20240506" not in days and "20240515" not in days  # 대체공휴일, 부처님오신날


def test_timetable_week_is_hundreds_of_rows_and_pages(world: World) -> None:
    s = _a_high_school()
    keys = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"],
            "TI_FROM_YMD": "20240603", "TI_TO_YMD": "20240607"}
    total, rows = rows_of(call(world, "hisTimetable", pSize="100", **keys), "hisTimetable")
    assert 300 <= total <= 1_300 and len(rows) == 100
    total2, rows2 = rows_of(call(world, "hisTimetable", pIndex="2", pSize="100", **keys),
                            "hisTimetable")
    assert total2 == total and rows2[0] != rows[0]
    too_big = call(world, "hisTimetable", pSize="1001", **keys)
    assert too_big["RESULT"]["CODE"] == "ERROR-336"
    wrong_kind = call(world, "elsTimetable", **keys)
    assert wrong_kind["RESULT"]["CODE"] == "INFO-200"


def test_schedule_missing_params_and_sample_mode(world: World) -> None:
    s = _a_high_school()
    body = call(world, "SchoolSchedule", ATPT_OFCDC_SC_CODE=s["ATPT_OFCDC_SC_CODE"],
                SD_SCHUL_CODE=s["SD_SCHUL_CODE"], AA_FROM_YMD="20240301", AA_TO_YMD="20250228",
                pSize="1000")
    total, rows = rows_of(body, "SchoolSchedule")
    assert 100 <= total <= 250
    assert Counter(r["EVENT_NM"] for r in rows)["토요휴업일"] >= 50
    assert call(world, "SchoolSchedule", ATPT_OFCDC_SC_CODE="B10")["RESULT"]["CODE"] == \
        "ERROR-300"
    sample = world.call("GET", "/hub/classInfo", {"Type": "json", "AY": "2024",
                                                  "ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"],
                                                  "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]})
    assert len(orjson.loads(sample.body)["classInfo"][1]["row"]) == 5


def test_academies_are_many_per_office(world: World) -> None:
    total, rows = rows_of(call(world, "acaInsTiInfo", ATPT_OFCDC_SC_CODE="B10"), "acaInsTiInfo")
    assert total > 5_000 and len(rows) == 100
    total_gn, rows_gn = rows_of(call(world, "acaInsTiInfo", ATPT_OFCDC_SC_CODE="B10",
                                     ADMST_ZONE_NM="강남구"), "acaInsTiInfo")
    assert 0 < total_gn < total and all("강남구" in r["FA_RDNMA"] for r in rows_gn)


def test_catalog_tools_pair_with_endpoints() -> None:
    text = (ROOT / "stdlib" / "neis.edge").read_text(encoding="utf-8")
    checked = check(text + TRAJ, "neis_test.edge", search_paths=[ROOT / "stdlib"])
    assert checked is not None
    tools = {e.tool for e in neis.ENDPOINTS}
    assert len(tools) == len(neis.ENDPOINTS) >= 10


TRAJ = """
trajectory lunch "중앙고등학교(서울)의 2024년 5월 2일 점심 열량은?" {
  found = neis.schools(SCHUL_NM: "중앙고등학교", ATPT_OFCDC_SC_CODE: "B10") pages all
  lunch = neis.meals(
    ATPT_OFCDC_SC_CODE: seq found.ATPT_OFCDC_SC_CODE,
    SD_SCHUL_CODE: seq found.SD_SCHUL_CODE,
    MLSV_YMD: 2024-05-02,
    MMEAL_SC_CODE: 2,
  ) pages all
  answer lunch.CAL_INFO
}
"""


@pytest.mark.parametrize("seed", [0, 3])
def test_a_school_year_opens_and_closes_in_order(seed: int) -> None:
    """Issue 21 §9: 2024's 입학식 fell on 3/4 and its 시업식 on 3/5; a 여름방학식 could land
    after the vacation and a 종업식 be left out. Every school of a sample holds 입학식 and
    시업식 on its first school day, 여름방학식 on the first semester's last, 개학식 after it on
    the second's first, and 겨울방학식, 종업식 and 졸업식 on the year's last school day."""
    w = World(seed=seed, modules=[neis])
    schools = orjson.loads(w.call("GET", "/hub/schoolInfo", {
        "KEY": "k", "Type": "json", "SCHUL_KND_SC_NM": "고등학교", "pSize": "40"}).body)
    for sch in schools["schoolInfo"][1]["row"][::4]:
        body = orjson.loads(w.call("GET", "/hub/SchoolSchedule", {
            "KEY": "k", "Type": "json", "ATPT_OFCDC_SC_CODE": sch["ATPT_OFCDC_SC_CODE"],
            "SD_SCHUL_CODE": sch["SD_SCHUL_CODE"], "AA_FROM_YMD": "20240301",
            "AA_TO_YMD": "20250228", "pSize": "1000"}).body)
        rows = body["SchoolSchedule"][1]["row"]
        on = {r["EVENT_NM"]: r["AA_YMD"] for r in rows}
        event_days = sorted(r["AA_YMD"] for r in rows if r["SBTR_DD_SC_NM"] == "해당없음")
        assert on["입학식"] == on["시업식"] == event_days[0]
        assert on["시업식"] < on["여름방학식"] < on["개학식"] < on["겨울방학식"]
        assert on["겨울방학식"] == on["종업식"] == on["졸업식"] == event_days[-1]
