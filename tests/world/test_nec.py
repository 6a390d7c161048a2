"""The 중앙선거관리위원회 world: elections, districts, candidates, winners, pledges (family A)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import orjson
import pytest

import edgedsl
from edgedsl.world.engine import World
from edgedsl.world.platforms import assembly, nec
from edgedsl.world.platforms.nec_data import district_name_short, general_districts, sido_units

BASE = "/9760000"


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[nec, assembly])


def call(w: World, path: str, **params: str) -> dict[str, Any]:
    resp = w.call("GET", BASE + path, {"serviceKey": "k", "resultType": "json", **params})
    assert resp.status == 200
    return orjson.loads(resp.body)


def items(body: dict[str, Any]) -> list[dict[str, Any]]:
    got = body["response"]["body"]["items"]
    if not got:
        return []
    item = got["item"]
    return item if isinstance(item, list) else [item]


def all_items(w: World, path: str, **params: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        body = call(w, path, pageNo=str(page), numOfRows="100", **params)
        got = items(body)
        out += got
        if len(out) >= body["response"]["body"]["totalCount"] or not got:
            return out
        page += 1


def test_universe_is_deterministic_and_seeded() -> None:
    a, b, c = nec.universe(0), nec.universe(0), nec.universe(1)
    assert a is b
    assert [r["name"] for r in a.winners[:50]] == [r["name"] for r in nec.universe(0).winners[:50]]
    assert [r["name"] for r in a.winners[:50]] != [r["name"] for r in c.winners[:50]]


def test_general_election_maps() -> None:
    assert len(general_districts("20240410")) == 254
    assert len(general_districts("20200415")) == 253
    names = [d[1] for d in general_districts("20240410") if d[0] == "서울특별시"]
    assert len(names) == 48 and {"강남구갑", "강남구을", "강남구병", "중구성동구갑"} <= set(names)
    assert sum(len(u) for s, u in sido_units().items()
               if s not in ("세종특별자치시", "제주특별자치도")) == 226


def test_orig_nm_normalisation() -> None:
    assert district_name_short("서울특별시", "강남구갑") == "서울 강남갑"
    assert district_name_short("서울특별시", "종로구") == "서울 종로구"
    assert district_name_short("서울특별시", "중구성동구을") == "서울 중구성동구을"
    assert district_name_short("강원특별자치도", "춘천시") == "강원 춘천시"


def test_code_list_and_result_code(world: World) -> None:
    body = call(world, "/CommonCodeService/getCommonSgCodeList", numOfRows="100")
    assert body["response"]["header"]["resultCode"] == "INFO-00"
    total = body["response"]["body"]["totalCount"]
    assert 200 <= total <= 400
    rows = all_items(world, "/CommonCodeService/getCommonSgCodeList")
    assert len(rows) == total
    keyed = {(r["sgId"], r["sgTypecode"]): r["sgName"] for r in rows}
    assert keyed[("20220309", "0")] == "제20대 대통령선거"
    assert keyed[("20240410", "0")] == "제22대 국회의원선거"
    assert keyed[("20220601", "0")] == "제8회 전국동시지방선거"
    assert any("재·보궐선거" in n for n in keyed.values())


def test_numofrows_is_capped_at_100(world: World) -> None:
    body = call(world, "/CommonCodeService/getCommonSgCodeList", numOfRows="500")
    assert len(items(body)) == 100


@pytest.mark.parametrize(("sg", "t", "n"), [("20240410", "2", 254), ("20220601", "4", 226),
                                           ("20220601", "3", 17), ("20220309", "1", 1),
                                           ("20240410", "7", 1), ("19960411", "2", 0)])
def test_district_counts(world: World, sg: str, t: str, n: int) -> None:
    body = call(world, "/CommonCodeService/getCommonSggCodeList", sgId=sg, sgTypecode=t)
    assert body["response"]["body"]["totalCount"] == n


def test_same_district_names_in_several_sido(world: World) -> None:
    rows = all_items(world, "/CommonCodeService/getCommonSggCodeList", sgId="20220601",
                     sgTypecode="4")
    jung = [r["sdName"] for r in rows if r["sggName"] == "중구"]
    assert len(jung) >= 5 and len(set(jung)) == len(jung)
    assert set(rows[0]) == {"num", "sgId", "sgTypecode", "sggName", "sdName", "wiwName",
                            "sggJungsu", "sOrder"}


def test_sd_name_follows_code_drift(world: World) -> None:
    rows = all_items(world, "/CommonCodeService/getCommonSggCodeList", sgId="20240410",
                     sgTypecode="2")
    sds = {r["sdName"] for r in rows}
    assert "강원특별자치도" in sds and "전북특별자치도" in sds and "강원도" not in sds


def test_missing_required_param(world: World) -> None:
    body = call(world, "/CommonCodeService/getCommonSggCodeList", sgId="20240410")
    assert body["response"]["header"]["resultCode"] == "ERROR-340"


def test_candidates_and_winners(world: World) -> None:
    cands = all_items(world, "/PofelcddInfoInqireService/getPofelcddRegistSttusInfoInqire",
                      sgId="20240410", sgTypecode="2", sdName="서울특별시", sggName="강남구갑")
    assert 2 <= len(cands) <= 5
    assert all(re.fullmatch(r"[0-9]{9}", c["huboid"]) for c in cands)
    win = items(call(world, "/WinnerInfoInqireService2/getWinnerInfoInqire", sgId="20240410",
                     sgTypecode="2", sdName="서울특별시", sggName="강남구갑"))
    assert len(win) == 1 and win[0]["huboid"] in {c["huboid"] for c in cands}
    assert float(win[0]["dugyul"]) > 30 and int(win[0]["dugsu"]) > 1000
    assert "status" not in win[0] and "dugsu" not in cands[0]
    winners = all_items(world, "/WinnerInfoInqireService2/getWinnerInfoInqire",
                        sgId="20220601", sgTypecode="4")
    assert len(winners) == 226
    per = Counter((c["sdName"], c["sggName"]) for c in nec.universe(0).candidates
                  if c["sgId"] == "20240410" and c["sgTypecode"] == "2")
    assert min(per.values()) >= 2 and max(per.values()) <= 5


def test_preliminary_candidates_of_the_coming_election(world: World) -> None:
    pre = all_items(world, "/PofelcddInfoInqireService/getPoelpcddRegistSttusInfoInqire",
                    sgId="20260603", sgTypecode="3")
    assert pre and all(p["regdate"] <= "20260213" for p in pre)
    none = call(world, "/WinnerInfoInqireService2/getWinnerInfoInqire", sgId="20260603",
                sgTypecode="3")
    assert none["response"]["body"]["totalCount"] == 0


def test_pledges_carry_the_prmmcont_typo(world: World) -> None:
    win = items(call(world, "/WinnerInfoInqireService2/getWinnerInfoInqire", sgId="20220601",
                     sgTypecode="3", sdName="서울특별시"))[0]
    got = items(call(world, "/ElecPrmsInfoInqireService/getCnddtElecPrmsInfoInqire",
                     sgId="20220601", sgTypecode="3", cnddtId=win["huboid"]))
    assert len(got) == 1
    p = got[0]
    assert 5 <= int(p["prmsCnt"]) <= 10 and p["krName"] == win["name"]
    assert p["prmmCont1"] and "prmsCont1" not in p
    # 총선 (2) has no pledge service
    cand = nec.universe(0).winners[-1]
    assert not items(call(world, "/ElecPrmsInfoInqireService/getCnddtElecPrmsInfoInqire",
                          sgId="20240410", sgTypecode="2", cnddtId=cand["huboid"]))


def test_code_tables(world: World) -> None:
    gu = all_items(world, "/CommonCodeService/getCommonGusigunCodeList", sgId="20240410",
                   sdName="서울특별시")
    assert len(gu) == 25
    parties = all_items(world, "/CommonCodeService/getCommonPartyCodeList", sgId="20240410")
    assert 30 <= len(parties) <= 60 and parties[-1]["jdName"] == "무소속"
    assert len(all_items(world, "/CommonCodeService/getCommonJobCodeList", sgId="20240410")) == 23
    assert len(all_items(world, "/CommonCodeService/getCommonEduBckgrdCodeList",
                         sgId="20240410")) == 21


def test_catalog_checks_in_a_trajectory() -> None:
    src = '''use nec

trajectory gangnam_winner "2024년 총선 서울 강남구갑 당선인의 득표율은?" {
  w = nec.winners(sgId: "20240410", sgTypecode: 2, sdName: "서울특별시", sggName: "강남구갑")
    pages all
  answer w.dugyul
}

trajectory seoul_mayor_pledges "2022년 서울시장 당선인의 공약 수는?" {
  w = nec.winners(sgId: "20220601", sgTypecode: 3, sdName: "서울특별시") pages all
  p = nec.pledges(sgId: "20220601", sgTypecode: 3, cnddtId: seq w.huboid) pages all
  answer p.prmsCnt
}
'''
    checked = edgedsl.check(src)
    assert not [d for d in checked.diagnostics if d.code != "W004"]


def test_catalog_fields_exist_in_served_rows(world: World) -> None:
    """Every record field of stdlib/nec.edge is a key of the rows its tool serves."""
    cat = edgedsl.check("use nec\n").catalog.platforms["nec"]
    win = items(call(world, "/WinnerInfoInqireService2/getWinnerInfoInqire", sgId="20220601",
                     sgTypecode="4"))[0]
    sample = {"elections": {}, "districts": {"sgId": "20240410", "sgTypecode": "2"},
              "pledges": {"sgId": "20220601", "sgTypecode": "4", "cnddtId": win["huboid"]}}
    for name, tool in cat.tools.items():
        ep = world.endpoint_for("nec", name)
        assert ep is not None and tool.path is not None
        assert ep.path == BASE + tool.path.split("?")[0]
        accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params)
        assert {p.name for p in tool.params} <= accepted, name
        params = sample.get(name, {"sgId": "20240410", "sgTypecode": "2"})
        got = items(call(world, ep.path.removeprefix(BASE), **params))
        assert got, name
        missing = {f.name for f in tool.record.fields} - set(got[0])
        assert not missing, (name, missing)
