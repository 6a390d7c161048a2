"""The law.go.kr world: statute versions, 조문단위, precedents citing statutes, 자치법규."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from edgedsl.api import check
from edgedsl.core.diagnostics import CompileError
from edgedsl.world.engine import World
from edgedsl.world.platforms import law

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[law])


def call(w: World, path: str, **params: str) -> dict:
    params.setdefault("OC", "tester")
    params.setdefault("type", "JSON")
    resp = w.call("GET", f"/DRF/{path}", params)
    assert resp.status == 200
    return orjson.loads(resp.body)


def test_versions_are_deterministic_and_ids_stable() -> None:
    assert law.laws(0) == law.laws.__wrapped__(0)
    assert [r["법령명한글"] for r in law.laws(0)[:50]] != [r["법령명한글"]
                                                         for r in law.laws(1)[:50]]
    sanan = [r for r in law.laws(0) if r["법령명한글"] == "산업안전보건법"]
    assert len(sanan) >= 2 and {r["법령ID"] for r in sanan} == {"001766"}
    assert len({r["법령일련번호"] for r in sanan}) == len(sanan)
    assert [r["현행연혁코드"] for r in sanan].count("현행") == 1
    assert 1_500 < len({r["법령ID"] for r in law.laws(0)}) < 4_000


def test_law_search_and_full_text(world: World) -> None:
    body = call(world, "lawSearch.do", target="law", query="산업안전")["LawSearch"]
    names = {r["법령명한글"]: r for r in body["law"]}
    assert {"산업안전보건법", "산업안전보건법 시행령"} <= set(names) and body["totalCnt"] == "3"
    mst = names["산업안전보건법"]["법령일련번호"]
    units = call(world, "lawService.do", target="law", MST=mst)["법령"]["조문"]["조문단위"]
    assert len(units) == 211
    assert units[0]["조문여부"] == "전문" and units[1]["조문키"] == "0001001"
    art38 = [u for u in units if u["조문번호"] == "38" and u["조문여부"] == "조문"]
    assert art38[0]["조문제목"] == "안전조치"
    assert any("조문가지번호" in u for u in units)


def test_lawjosub_answers_one_article_collapsed(world: World) -> None:
    doc = call(world, "lawService.do", target="lawjosub", ID="001766", JO="003800")["법령"]
    unit = doc["조문"]["조문단위"]
    assert isinstance(unit, dict) and unit["조문키"] == "0038001"
    missing = call(world, "lawService.do", target="law", MST="1")
    assert "Law" in missing


def test_precedents_cite_statutes_by_name(world: World) -> None:
    body = call(world, "lawSearch.do", target="prec", JO="산업안전보건법", display="100")
    search = body["PrecSearch"]
    assert 200 <= int(search["totalCnt"]) <= 3_000 and len(search["prec"]) == 100
    first = search["prec"][0]
    assert first["선고일자"][4] == "."
    doc = call(world, "lawService.do", target="prec", ID=first["판례일련번호"])["PrecService"]
    assert doc["판례정보일련번호"] == first["판례일련번호"] and "산업안전보건법" in doc["참조조문"]


def test_eflaw_versions_and_ordinances(world: World) -> None:
    all_v = call(world, "lawSearch.do", target="eflaw", LID="001766", display="100")
    kinds = {r["현행연혁코드"] for r in all_v["LawSearch"]["law"]}
    assert "현행" in kinds and "연혁" in kinds
    hist = call(world, "lawSearch.do", target="eflaw", LID="001766", nw="1")["LawSearch"]["law"]
    rows = hist if isinstance(hist, list) else [hist]
    assert {r["현행연혁코드"] for r in rows} == {"연혁"}
    ordin = call(world, "lawSearch.do", target="ordin", org="6110000")["OrdinSearch"]
    assert int(ordin["totalCnt"]) > 3_000
    one = ordin["law"][0]
    text = call(world, "lawService.do", target="ordin", MST=one["자치법규일련번호"])["LawService"]
    assert text["자치법규기본정보"]["자치법규명"] == one["자치법규명"] and text["조문"]["조"]


def test_endpoints_cover_every_tool() -> None:
    assert len({(e.tool) for e in law.ENDPOINTS}) == len(law.ENDPOINTS) >= 10
    shared = [e for e in law.ENDPOINTS if e.path.endswith("lawService.do")]
    assert len({e.fixed["target"] for e in shared}) == len(shared)


def _hangul_names() -> bool:
    try:
        check('record R {\n  법령ID: str\n}\n', "probe.edge")
    except CompileError:
        return False
    return True


@pytest.mark.skipif(not _hangul_names(), reason="the grammar's NAME is ASCII-only: law.go.kr "
                    "field names are Hangul (법령ID, 조문단위 …); see the issue 3 report")
def test_catalog_checks_in_use() -> None:
    text = (ROOT / "stdlib" / "law.edge").read_text(encoding="utf-8")
    traj = """
trajectory safety "산업안전보건법 제38조의 제목은?" {
  found = law.law_search(query: "산업안전보건법") pages all
  act = drv found | where 법령구분명 == "법률"
  art = law.law_article(MST: seq act.법령일련번호, JO: "003800")
  answer art.조문제목
}
"""
    assert check(text + traj, "law_test.edge", search_paths=[ROOT / "stdlib"]) is not None
