"""Queries of synthesized trajectories (edgedsl.recipe.synth.query): the context, the Korean
templates (one per structure, a few per platform, a user directory on top), determinism per seed, no
answer value in any rendered query, and the chat-model paraphrase against a fake endpoint."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib.resources
import itertools
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl import api
from edgedsl.plan.model import Plan
from edgedsl.recipe.llm import LLMClient, LLMConfig, LLMError
from edgedsl.recipe.synth.analyze import structure_of
from edgedsl.recipe.synth.filters import find_leaks, static_problems
from edgedsl.recipe.synth.korean import (
    fallbacks_in,
    identifiers_in,
    join_ko,
    josa,
    korean_forms,
    mentioned,
    period_text,
)
from edgedsl.recipe.synth.literals import literal_uses, of_title, tool_title
from edgedsl.recipe.synth.paraphrase import (
    ParaphraseReport,
    constraint_problems,
    paraphrase,
    paraphrase_messages,
)
from edgedsl.recipe.synth.query import (
    PHRASINGS,
    _picker,
    phrasing_of,
    query_context,
    register_of,
    render_query,
    template_names,
)
from edgedsl.recipe.synth.templates import (
    PACKAGE_TEMPLATES,
    PROMPT_TEMPLATES,
    QueryTemplateError,
    load_glossary,
)
from edgedsl.syntax import nodes as n
from tests.profiles import examples
from tests.recipe.graph.fake_llm import FakeLLM, fail, ok

# ----------------------------------------------------------------------------- programs

PROGRAMS: dict[str, str] = {
    "Seq": """use dart
trajectory seq_company "q" {
  company = dart.company(corp_code: "00126380")
  filings = dart.disclosures(
    corp_code: seq company.corp_code, bgn_de: 2024-12-01, end_de: 2024-12-31) pages all
  answer { ceo: company.ceo_nm, filings: count(filings) }
}
""",
    "Fan": """use neis
trajectory fan_meals "q" {
  schools = neis.schools(SCHUL_NM: "한빛고등학교", ATPT_OFCDC_SC_CODE: "B10") pages all
  meals = neis.meals(ATPT_OFCDC_SC_CODE: seq schools.ATPT_OFCDC_SC_CODE,
                     SD_SCHUL_CODE: fan schools.SD_SCHUL_CODE, MLSV_YMD: 2024-05-02) pages all
  answer { menu: meals.DDISH_NM, meals: count(meals) }
}
""",
    "Drv": """use fsc
trajectory drv_market "q" {
  market = fsc.stock_prices(basDt: 2024-12-27, mrktCls: "KOSDAQ") pages all
  top = drv market | where mrktTotAmt >= 12000000000000 | max fltRt
  listed = fsc.listed_items(likeSrtnCd: seq top.srtnCd, basDt: 2024-12-27) pages 1
  answer { name: listed.corpNm, crno: listed.crno }
}
""",
    "Sem": """use neis
trajectory sem_school_day "q" {
  school = neis.schools(SCHUL_NM: "한빛고등학교", ATPT_OFCDC_SC_CODE: "B10") pages all
  day = parallel (office: seq school.ATPT_OFCDC_SC_CODE, code: seq school.SD_SCHUL_CODE) {
    meals = neis.meals(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: code, MLSV_YMD: 2024-05-02)
    events = neis.schedule(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: code, AA_YMD: 2024-05-02)
  }
  answer { menu: day.meals.DDISH_NM, event: day.events.EVENT_NM }
}
""",
    "Cmp": """use nec
trajectory cmp_gangnam "q" {
  gangnam = compare nec.winners(sgId: "20240410", sgTypecode: 2, sdName: "서울특별시")
    pages all over sggName in ["강남구갑", "강남구을"]
  answer { district: gangnam.__arm, top_share: max(gangnam.dugyul) }
}
""",
    "Cond": """use fsc
trajectory cond_trading_day "q" {
  asked = fsc.stock_prices(basDt: 2024-12-28, mrktCls: "KOSPI") pages all
  if count(asked) > 10 {
    day = fsc.stock_prices(basDt: 2024-12-27, mrktCls: "KOSPI") pages all
  } else {
    day = fsc.stock_prices(basDt: 2024-12-26, mrktCls: "KOSPI") pages all
  }
  answer { rows: count(day) }
}
""",
    "Mixed": """use dart, fsc
trajectory mixed_rights "q" {
  sweep = dart.disclosures(bgn_de: 2024-12-23, end_de: 2024-12-23) pages all
  hits = drv sweep | where report_nm == "주요사항보고서(유상증자결정)" | where corp_cls == "Y"
  prices = fsc.stock_prices(
    likeSrtnCd: fan hits.stock_code, beginBasDt: 2024-12-16, endBasDt: 2024-12-31) pages all
  jump = drv prices | max fltRt
  answer { stock: jump.itmsNm, day: jump.basDt }
}
""",
    "Drv.law": """use law
trajectory drv_precedent "q" {
  precs = law.prec_search(JO: "산업안전보건법", org: "400201") pages all
  latest = drv precs | where 선고일자 after 2019-12-31 | max 선고일자
  doc = law.prec_text(ID: seq latest.판례일련번호)
  answer { case: doc.사건명 }
}
""",
    "Drv.neis": """use neis
trajectory drv_lunch "q" {
  candidates = neis.schools(SCHUL_NM: "중앙고등학교") pages all
  school = drv candidates | where LCTN_SC_NM == "서울특별시"
  meals = neis.meals(ATPT_OFCDC_SC_CODE: seq school.ATPT_OFCDC_SC_CODE,
    SD_SCHUL_CODE: seq school.SD_SCHUL_CODE, MLSV_FROM_YMD: 2024-05-01,
    MLSV_TO_YMD: 2024-05-31) pages all
  richest = drv meals | max CAL_INFO
  answer { day: richest.MLSV_YMD, menu: richest.DDISH_NM }
}
""",
}


class Case:
    """A compiled test program: its trajectory and plan."""

    def __init__(self, key: str, text: str) -> None:
        self.key = key
        self.plan: Plan = api.compile(text, f"{key}.edge")
        self.traj: n.Trajectory = api.parse(text, f"{key}.edge").trajectories[0]
        stmt = next(s for s in self.traj.body if isinstance(s, n.AnswerStmt))
        self.answer: dict[str, Any] = {f.name: None for f in stmt.fields or ()}


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return {k: Case(k, t) for k, t in PROGRAMS.items()}


def test_programs_have_the_structure_they_are_named_after(cases: dict[str, Case]) -> None:
    for key, case in cases.items():
        assert structure_of(case.traj) == key.split(".")[0], key


# ----------------------------------------------------------------------------- Korean text


def test_josa_picks_the_particle_by_final_sound() -> None:
    assert josa("회사", "을") == "회사를" and josa("공시", "을") == "공시를"
    assert josa("종목", "을") == "종목을" and josa("종가", "이") == "종가가"
    assert josa("법률", "으로") == "법률로" and josa("시도명", "으로") == "시도명으로"
    assert josa("2023", "와") == "2023과" and josa("12", "이") == "12가"
    assert josa("10", "을") == "10을" and josa("100", "을") == "100을"  # 십, 백
    assert josa("공시검색(2024년 12월)", "을") == "공시검색(2024년 12월)을"
    assert josa("KOSPI", "을") == "KOSPI를" and josa("ID", "으로") == "ID로"  # 코스피, 아이디


def test_join_ko_and_periods() -> None:
    assert join_ko([]) == "" and join_ko(["A"]) == "A"
    assert join_ko(["종가", "등락률"]) == "종가와 등락률"
    assert join_ko(["회사명", "종가", "등락률"]) == "회사명, 종가와 등락률"
    assert period_text("2024-12-01", "2024-12-31") == "2024년 12월"
    assert period_text("2024-01-01", "2024-12-31") == "2024년"
    assert period_text("2024-12-23", "2024-12-23") == "2024년 12월 23일"
    assert period_text("2024-12-31", "2024-12-16") == "2024년 12월 16일부터 2024년 12월 31일까지"


def test_a_call_s_inputs_say_their_shared_determiner_once() -> None:
    from edgedsl.recipe.synth.query import _via

    assert _via(["그 법정동코드", "그 도로명코드", "그 건물 본번"]) == \
        "그 법정동코드, 도로명코드와 건물 본번"
    assert _via(["각 의안ID", "각 의안번호"]) == "각 의안ID와 의안번호"
    assert _via(["그 의안ID", "같은 대수"]) == "그 의안ID와 같은 대수"
    assert _via(["그 주소"]) == "그 주소"


def test_korean_forms_of_literals() -> None:
    assert korean_forms(dt.date(2024, 11, 1))[:4] == [
        "2024년 11월 1일", "2024-11-01", "20241101", "2024.11.01"]
    assert "2024년 11월" in korean_forms(dt.date(2024, 11, 1))
    assert korean_forms("11011", "reprt_code")[0] == "사업보고서"
    assert korean_forms(2023, "bsns_year")[0] == "2023년"
    assert korean_forms(12_000_000_000_000)[0] == "12조"
    assert korean_forms(150_000_000)[0] == "1억 5,000만"
    assert korean_forms(12345) == ["12,345", "12345"]
    assert korean_forms("20240410")[0] == "2024년 4월 10일"
    assert korean_forms("202406", "DEAL_YMD")[0] == "2024년 6월"
    assert korean_forms({"a": 1}) == []


def test_mentioned_respects_boundaries() -> None:
    assert mentioned("코스닥 12조 원 이상", ["12조"])
    assert not mentioned("2030년", ["30"]) and mentioned("30개", ["30"])
    assert mentioned("2024년 12월에 낸 공시", korean_forms(dt.date(2024, 12, 1)))
    assert not mentioned("2024년 12월 10일 공시", korean_forms(dt.date(2024, 12, 1)))
    assert mentioned("samsung", ["SAMSUNG"]) and not mentioned("KOSPI200", ["KOSPI"])
    assert mentioned("아무 말", [])


def test_tool_titles() -> None:
    # a closing 검색 / 조회 / 제공 names the act, not the records (session 36 read "도로명주소
    # 검색을 조회하고" and "좌표제공의 건물명")
    assert tool_title("공시검색: 회사·기간별 공시 목록", "disclosures") == "공시"
    assert tool_title("도로명주소 검색: 검색어(도로명) …", "addrLinkApi") == "도로명주소"
    assert tool_title("법정동코드 목록 조회: 지역주소명", "x") == "법정동코드 목록"
    assert tool_title("좌표제공: 건물 출입구 좌표", "addrCoordApi") == "좌표"
    assert tool_title("검색: 무엇이든", "search") == "검색"  # never empty


def test_a_label_like_its_title_is_said_once() -> None:
    assert of_title("기업개황", "대표자") == "기업개황의 대표자"
    assert of_title("시군구 코드", "시군구 코드") == "시군구 코드"
    assert of_title("좌표", "건물명", " ") == "좌표 건물명"  # an answer's name
    assert tool_title("법정동코드(10자리)의 앞 5자리 시군구 코드: 국토부", "x") == \
        "법정동코드의 앞 5자리 시군구 코드"
    assert tool_title("", "corp_codes") == "corp_codes"


# ----------------------------------------------------------------------------- the context


def test_context_is_json_and_holds_no_answer_value(cases: dict[str, Case]) -> None:
    for case in cases.values():
        answer = {k: f"비밀값{i}xyz" for i, k in enumerate(case.answer)}
        ctx = query_context(case.traj, case.plan, answer)
        blob = orjson.dumps(ctx).decode()
        assert "비밀값" not in blob
        assert ctx["structure"] == structure_of(case.traj)
        assert ctx["answer"]["names"] == list(case.answer)


def test_context_literals_are_literal_uses(cases: dict[str, Case]) -> None:
    for case in cases.values():
        ctx = query_context(case.traj, case.plan, case.answer)
        got = [(x["role"], x["name"], x["value"]) for x in ctx["literals"]]
        want = [(u.role, u.name, u.value.isoformat() if isinstance(u.value, dt.date) else u.value)
                for u in literal_uses(case.traj)]
        assert got == want, case.key


def test_context_of_a_drv_chain(cases: dict[str, Case]) -> None:
    ctx = query_context(cases["Drv"].traj, cases["Drv"].plan, None)
    assert ctx["platform"] == "fsc"
    assert ctx["tools"][0]["title"] == "주식시세"
    assert ctx["tools"][0]["doc"].startswith("주식시세: ")
    ops = [(r["op"], r["label"], r["pivot_text"]) for r in ctx["reducers"]]
    assert ops == [("ge", "시가총액", "12조원"), ("max", "등락률", None)]  # the catalog's unit
    assert ctx["drvs"][0]["phrase"] == "시가총액이 12조원 이상인 것 중 등락률이 가장 큰"
    first = ctx["steps"][0]
    assert first["constraints"][1]["phrase"] == "시장구분 코스닥"
    assert ctx["steps"][2]["via"] == "그 단축코드"


def test_context_of_dates_conditions_and_compare(cases: dict[str, Case]) -> None:
    ctx = query_context(cases["Drv.neis"].traj, cases["Drv.neis"].plan, None)
    assert ctx["reducers"][1]["word"] == "가장 큰"
    assert ctx["steps"][2]["constraints"][0]["text"] == "2024년 5월"
    ctx = query_context(cases["Drv.law"].traj, cases["Drv.law"].plan, None)
    assert [r["word"] for r in ctx["reducers"]] == ["이후", "가장 최근"]
    ctx = query_context(cases["Cond"].traj, cases["Cond"].plan, None)
    assert ctx["condition"] == "주식시세 건수가 10보다 많으면"
    ctx = query_context(cases["Cmp"].traj, cases["Cmp"].plan, None)
    assert ctx["compares"][0]["arm_text"] == "강남구갑과 강남구을"
    assert ctx["answer"]["fields"][0]["label"] == "선거구명"  # `gangnam.__arm`


# ----------------------------------------------------------------------------- rendering


def test_every_structure_renders_korean_mentioning_every_literal(cases: dict[str, Case]) -> None:
    for case in cases.values():
        for seed in range(4):
            q = render_query(case.traj, case.plan, case.answer, rng_seed=seed)
            assert q and "  " not in q and q[-1] in ".?"
            assert sum("가" <= c <= "힣" for c in q) > len(q) // 3
            mismatch = [m for r, m in static_problems(case.traj, case.plan, q)
                        if r == "query_mismatch"]
            assert mismatch == [], (case.key, q)


def test_every_structure_has_three_phrasings_each_mentioning_every_literal(
        cases: dict[str, Case]) -> None:
    """Each packaged structure template writes three shapes of question, chosen by the seed
    (``phrasing_of``): the steps then the question, the goal first, one request a sentence."""
    assert PHRASINGS == 3
    seeds = {p: next(s for s in range(100) if phrasing_of(s) == p) for p in range(PHRASINGS)}
    for case in cases.values():
        qs = {p: render_query(case.traj, case.plan, case.answer, rng_seed=s)
              for p, s in seeds.items()}
        assert len(set(qs.values())) == PHRASINGS, (case.key, qs)
        for q in qs.values():
            assert q[-1] in ".?" and "  " not in q and fallbacks_in(q) == [], (case.key, q)
            assert [m for r, m in static_problems(case.traj, case.plan, q)
                    if r == "query_mismatch"] == [], (case.key, q)
        ask = query_context(case.traj, case.plan, case.answer)["answer"]["text"]
        assert qs[1].startswith(ask), (case.key, qs[1])           # the goal first
        assert "주세요." in qs[2] and qs[2].count(". ") >= 1, (case.key, qs[2])  # sentences


def test_queries_name_fields_by_their_catalog_labels(cases: dict[str, Case]) -> None:
    """No API field or parameter name and no particle fallback (``이(가)``) in any query: the
    labels come from the catalog, the particles from the words (issue 18 §3)."""
    for case in cases.values():
        names = {p.name for spec in case.plan.tools.values() for p in spec.params}
        names |= {f for spec in case.plan.tools.values() for f in spec.fields}
        for seed in range(8):
            q = render_query(case.traj, case.plan, case.answer, rng_seed=seed)
            assert identifiers_in(q, names) == [], (case.key, q)
            assert fallbacks_in(q) == [], (case.key, q)


CONVERSION = """use region, std
trajectory t "q" {
  found = juso.addrLinkApi(keyword: "서울특별시 종로구 효자로14길 261") pages all
  lawd = std.lawd_cd(admCd: seq found.admCd)
  trades = molit.getRTMSDataSvcAptTrade(LAWD_CD: seq lawd.LAWD_CD, DEAL_YMD: "202307") pages all
  answer { n: count(trades)ANSWER }
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_a_conversion_is_said_inside_the_hand_off_it_feeds(seed: int) -> None:
    # session 35 read "그 법정동코드로 법정동코드의 앞 5자리 시군구 코드를 조회하고, 그
    # 지역코드로 …" in 46 of 200 queries: an in-process conversion is no step a person asks for
    text = CONVERSION.replace("ANSWER", "")
    plan, traj = api.compile(text, "c.edge"), api.parse(text, "c.edge").trajectories[0]
    ctx = query_context(traj, plan, None)
    assert [s["tool"] for s in ctx["steps"]] == ["juso.addrLinkApi",
                                                 "molit.getRTMSDataSvcAptTrade"]
    assert ctx["steps"][1]["via"] == "그 법정동코드의 시군구 코드"
    q = render_query(traj, plan, None, rng_seed=seed)
    assert "그 법정동코드의 시군구 코드로 " in q and "앞 5자리" not in q, q


def test_a_conversion_the_answer_reads_stays_a_step() -> None:
    text = CONVERSION.replace("ANSWER", ", code: lawd.LAWD_CD")
    plan, traj = api.compile(text, "c.edge"), api.parse(text, "c.edge").trajectories[0]
    ctx = query_context(traj, plan, None)
    assert "std.lawd_cd" in [s["tool"] for s in ctx["steps"]]
    assert ctx["steps"][1]["text"] == "시군구 코드"
    assert ctx["steps"][2]["via"] == "그 시군구 코드"
    # session 36 asked "법정동코드의 앞 5자리 시군구 코드의 지역코드": a conversion is titled
    # by what it gives, and its field of the same label is not said twice
    assert ctx["answer"]["fields"][1]["text"] == "시군구 코드"


@pytest.mark.parametrize("seed", range(3))
def test_a_conversion_a_group_reads_is_said_inside_the_group(seed: int) -> None:
    # session 36: "그 법정동코드로 시군구 코드를 찾아 주세요. 이어서 그 시군구 코드로 A와 B를
    # 동시에 조회해 주세요." — the group's header says the conversion instead
    text = """use region, std
trajectory t "q" {
  found = juso.addrLinkApi(keyword: "서울특별시 종로구 효자로14길 261") pages all
  lawd = std.lawd_cd(admCd: seq found.admCd)
  both = parallel (code: seq lawd.LAWD_CD) {
    sales = molit.getRTMSDataSvcAptTrade(LAWD_CD: code, DEAL_YMD: "202307") pages all
    rents = molit.getRTMSDataSvcAptRent(LAWD_CD: code, DEAL_YMD: "202307") pages all
  }
  answer { a: count(both.sales), b: count(both.rents) }
}
"""
    plan, traj = api.compile(text, "c.edge"), api.parse(text, "c.edge").trajectories[0]
    ctx = query_context(traj, plan, None)
    assert [s["kind"] for s in ctx["steps"]] == ["call", "parallel"]
    assert ctx["steps"][1]["via"] == "그 법정동코드의 시군구 코드"
    q = render_query(traj, plan, None, rng_seed=seed)
    assert "그 법정동코드의 시군구 코드로 " in q and "시군구 코드를 " not in q, q


def test_a_count_and_an_aggregate_are_asked_of_their_relation_once() -> None:
    # session 35: 63 of 200 queries asked "법령 본문의 가장 최근 조문시행일자와 법령 본문 건수"
    text = CONVERSION.replace("n: count(trades)ANSWER",
                              "top: max(trades.dealAmount), n: count(trades)")
    plan, traj = api.compile(text, "c.edge"), api.parse(text, "c.edge").trajectories[0]
    got = query_context(traj, plan, None)["answer"]["text"]
    assert got == "아파트 매매 실거래가의 최대 거래금액과 건수", got
    alone = CONVERSION.replace("ANSWER", "")
    plan, traj = api.compile(alone, "c.edge"), api.parse(alone, "c.edge").trajectories[0]
    assert query_context(traj, plan, None)["answer"]["text"] == "아파트 매매 실거래가 건수"
    two = CONVERSION.replace("n: count(trades)ANSWER",
                             "code: lawd.LAWD_CD, top: max(trades.dealAmount), n: count(trades)")
    plan, traj = api.compile(two, "c.edge"), api.parse(two, "c.edge").trajectories[0]
    got = query_context(traj, plan, None)["answer"]["text"]
    assert got == "시군구 코드, 아파트 매매 실거래가의 최대 거래금액과 건수", got


def test_a_group_header_of_references_says_its_determiner_once(cases: dict[str, Case]) -> None:
    # session 35 read "그 법정동코드, 그 도로명코드, 그 지하 여부, 그 건물 본번과 그 건물
    # 부번으로" before a group: the header goes through the same `_via` as a call's inputs
    ctx = query_context(cases["Sem"].traj, cases["Sem"].plan, None)
    assert ctx["parallels"][0]["via"].count("그 ") == 1, ctx["parallels"][0]["via"]


def test_a_group_header_value_is_named_by_the_parameter_it_feeds() -> None:
    text = """use ex
trajectory t "q" {
  both = parallel (routeno: "0150") {
    rest_areas = ex.rest_areas(routeNo: routeno) pages 1
    menus = ex.menus(routeCd: routeno) pages 1
  }
  answer { n: count(both.rest_areas) }
}
"""
    plan, traj = api.compile(text, "p.edge"), api.parse(text, "p.edge").trajectories[0]
    assert query_context(traj, plan, None)["parallels"][0]["via"] == "노선번호 0150"
    q = render_query(traj, plan, None, rng_seed=1)
    assert "노선번호 0150으로 " in q and "rest_areas" not in q
    assert "휴게소 위치정보 건수" in q


def test_a_group_header_value_is_written_by_the_format_of_the_parameter_it_feeds() -> None:
    # `bizyear` feeds fsc's `bizYear`: a year, "2025년", never the number "2,025"
    text = """\
use fsc

trajectory t "q" {
  both = parallel (crno: "1946119957486", bizyear: 2025) {
    income_statement = fsc.income_statement(crno: crno, bizYear: bizyear) pages 1
    item_basics = fsc.item_basics(crno: crno) pages 1
  }
  answer { n: count(both.item_basics) }
}
"""
    plan, traj = api.compile(text, "p.edge"), api.parse(text, "p.edge").trajectories[0]
    q = render_query(traj, plan, None, rng_seed=1)
    assert "2025년" in q and "2,025" not in q
    assert [u.name for u in literal_uses(traj) if u.role == "shared"] == ["crno", "bizYear"]


def test_a_header_value_only_a_later_branch_takes_is_labelled_by_that_branch() -> None:
    # `stdrestcd` feeds only rest_areas' stdRestCd: "휴게소 표준코드 000001", not a bare "000001"
    text = """\
use ex

trajectory t "q" {
  both = parallel (routecd: "0010", stdrestcd: "000001") {
    congestion = ex.congestion(routeNo: routecd) pages 1
    rest_areas = ex.rest_areas(routeNo: routecd, stdRestCd: stdrestcd) pages 1
  }
  answer { n: count(both.rest_areas) }
}
"""
    plan, traj = api.compile(text, "p.edge"), api.parse(text, "p.edge").trajectories[0]
    q = render_query(traj, plan, None, rng_seed=1)
    assert "휴게소 표준코드 000001" in q, q
    assert [(u.tool, u.name) for u in literal_uses(traj) if u.role == "shared"] == [
        ("ex.congestion", "routeNo"), ("ex.rest_areas", "stdRestCd")]


def test_identifiers_and_fallbacks_are_found() -> None:
    text = "그중 LOAD_DTM이(가) 가장 이른 것, corpEnsnNm을(를) 법률(으)로, DART와 KOSPI, 12 Kcal"
    assert identifiers_in(text, {"MST"}) == ["LOAD_DTM", "corpEnsnNm"]
    assert identifiers_in("MST로 찾기", {"MST"}) == ["MST"]
    assert fallbacks_in(text) == ["이(가)", "을(를)", "(으)로"]


def test_a_user_glossary_label_overrides_the_catalog(cases: dict[str, Case],
                                                     tmp_path: Path) -> None:
    (tmp_path / "glossary.json").write_text('{"labels": {"fltRt": "주가 등락률"}}',
                                            encoding="utf-8")
    ctx = query_context(cases["Drv"].traj, cases["Drv"].plan, None,
                        glossary=load_glossary(tmp_path))
    assert [r["label"] for r in ctx["reducers"]] == ["시가총액", "주가 등락률"]


def test_rendering_is_deterministic_per_seed(cases: dict[str, Case]) -> None:
    for case in cases.values():
        qs = [render_query(case.traj, case.plan, case.answer, rng_seed=s) for s in range(12)]
        again = [render_query(case.traj, case.plan, case.answer, rng_seed=s) for s in range(12)]
        assert qs == again
        assert len(set(qs)) > 1, case.key


def test_template_lookup_order(cases: dict[str, Case]) -> None:
    assert template_names("Drv", "dart") == ["Drv.dart.j2", "Drv.j2", "default.j2"]
    assert template_names("Seq", None) == ["Seq.j2", "default.j2"]
    for name in ("Seq", "Fan", "Drv", "Sem", "Cmp", "Cond", "Mixed", "default"):
        assert (PACKAGE_TEMPLATES / f"{name}.j2").is_file()
    for name in ("paraphrase.j2", "static_check.j2"):
        assert (importlib.resources.files("edgedsl.recipe.synth") / "templates" / "prompts"
                / name).is_file()
    qs = {render_query(cases["Drv.law"].traj, cases["Drv.law"].plan, None, rng_seed=s)
          for s in range(8)}
    # Drv.law.j2 names the service in each of its three phrasings
    assert all("국가법령정보" in q or "법령·판례 자료" in q for q in qs), qs


def test_user_templates_take_precedence_file_by_file(cases: dict[str, Case],
                                                     tmp_path: Path) -> None:
    neis, fsc = cases["Drv.neis"], cases["Drv"]
    (tmp_path / "Drv.j2").write_text("사용자 Drv: {{ steps[0].title }}?", encoding="utf-8")
    # the user's Drv.j2 serves fsc; the packaged Drv.neis.j2 is more specific than it
    assert render_query(fsc.traj, fsc.plan, None, rng_seed=0, templates=tmp_path) == \
        "사용자 Drv: 주식시세?"
    assert not render_query(neis.traj, neis.plan, None, rng_seed=0,
                            templates=tmp_path).startswith("사용자")
    (tmp_path / "Drv.neis.j2").write_text(
        '{% import "_macros.j2" as m with context %}학교: {{ m.ask(answer) }}', encoding="utf-8")
    assert render_query(neis.traj, neis.plan, None, rng_seed=0,
                        templates=tmp_path).startswith("학교: ")
    # a user glossary relabels a field, merged over the packaged one
    (tmp_path / "glossary.json").write_text('{"labels": {"corpNm": "회사 이름"}}',
                                            encoding="utf-8")
    ctx_q = render_query(fsc.traj, fsc.plan, None, rng_seed=0, templates=tmp_path)
    assert ctx_q == "사용자 Drv: 주식시세?"
    (tmp_path / "Drv.j2").write_text("{{ answer.labels | join('/') }}", encoding="utf-8")
    assert render_query(fsc.traj, fsc.plan, None, rng_seed=0, templates=tmp_path) == \
        "회사 이름/법인등록번호"


def test_broken_user_templates_raise(cases: dict[str, Case], tmp_path: Path) -> None:
    case = cases["Fan"]
    (tmp_path / "Fan.j2").write_text("{{ no_such_variable }}", encoding="utf-8")
    with pytest.raises(QueryTemplateError, match="does not render"):
        render_query(case.traj, case.plan, None, rng_seed=0, templates=tmp_path)
    (tmp_path / "Fan.j2").write_text("{% for %}", encoding="utf-8")
    with pytest.raises(QueryTemplateError):
        render_query(case.traj, case.plan, None, rng_seed=0, templates=tmp_path)
    (tmp_path / "Fan.j2").write_text("{{ ''.__class__.__mro__ }}", encoding="utf-8")
    with pytest.raises(QueryTemplateError):  # the sandbox refuses private attributes
        render_query(case.traj, case.plan, None, rng_seed=0, templates=tmp_path)
    with pytest.raises(QueryTemplateError, match="does not exist"):
        render_query(case.traj, case.plan, None, rng_seed=0, templates=tmp_path / "nope")
    (tmp_path / "Fan.j2").write_text("ok", encoding="utf-8")
    (tmp_path / "glossary.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(QueryTemplateError, match="glossary"):
        render_query(case.traj, case.plan, None, rng_seed=0, templates=tmp_path)


# ----------------------------------------------------------------------------- no leaks

_SCALARS = st.one_of(
    st.text(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=4, max_size=8),
    st.integers(min_value=100_000, max_value=10**12),
    st.floats(min_value=1000.5, max_value=1e6, allow_nan=False).map(lambda x: round(x, 2)),
    st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2030, 12, 31))
    .map(lambda d: d.isoformat()),
)
_VALUES = st.one_of(st.none(), _SCALARS, st.lists(_SCALARS, max_size=4))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_templates_never_leak_answer_values(cases: dict[str, Case], data: st.DataObject) -> None:
    case = cases[data.draw(st.sampled_from(sorted(cases)))]
    literals = [u.value.isoformat() if isinstance(u.value, dt.date) else u.value
                for u in literal_uses(case.traj)]
    answer = {k: data.draw(st.one_of(_VALUES, st.sampled_from(literals)), label=k)
              for k in case.answer}
    seed = data.draw(st.integers(0, 2**16))
    q = render_query(case.traj, case.plan, answer, rng_seed=seed)
    # the query does not depend on the answer's values at all ...
    assert q == render_query(case.traj, case.plan, case.answer, rng_seed=seed)
    # ... so none of the recorded answer's values shows in it, unless it is one of the
    # trajectory's literal values. (A drawn value may: '학사일정' is a random Korean text and
    # the Sem query's own word for the tool; the equality above is what rules out a leak.)
    forms = [f for x in query_context(case.traj, case.plan, None)["literals"] for f in x["forms"]]
    assert find_leaks(q, case.answer, forms) == []


# ----------------------------------------------------------------------------- paraphrase


@pytest.fixture
def client(llm_served: tuple[FakeLLM, str]) -> LLMClient:
    cfg = LLMConfig(base_url=llm_served[1], model="fake-model", attempts=2, retries=1,
                    backoff=0.001, max_backoff=0.01)
    return LLMClient(cfg, environ={}, seed=0)


def _para(case: Case, client: LLMClient, answer: Any,
          report: ParaphraseReport) -> tuple[str, str]:
    ctx = query_context(case.traj, case.plan, answer)
    q = render_query(case.traj, case.plan, answer, rng_seed=0)
    return q, asyncio.run(paraphrase(q, ctx, client, answer=answer, report=report))


def test_paraphrase_prompt_lists_values_tools_and_answer(cases: dict[str, Case]) -> None:
    case = cases["Drv.neis"]
    ctx = query_context(case.traj, case.plan, None)
    messages = paraphrase_messages("질문?", ctx)
    assert messages[0]["role"] == "system" and "JSON" in messages[0]["content"]
    prompt = messages[1]["content"]
    assert "질문?" in prompt and "- 중앙고등학교" in prompt and "- 2024년 5월 1일" in prompt
    assert "급식식단정보 (`neis.meals`)" in prompt and "급식일자, 메뉴" in prompt
    assert (PROMPT_TEMPLATES / "paraphrase.j2").is_file()


def test_paraphrase_accepts_a_good_reply(cases: dict[str, Case], fake: FakeLLM,
                                         client: LLMClient) -> None:
    case = cases["Drv.neis"]
    good = ("서울특별시에 있는 중앙고등학교의 2024년 5월 1일부터 2024년 5월 31일까지 "
            "급식 중 열량이 가장 높은 날의 급식일자와 메뉴는?")
    fake.script(ok({"query": good}))
    report = ParaphraseReport()
    _, got = _para(case, client, {"day": "2024-05-20", "menu": "기장밥"}, report)
    assert got == good and report.paraphrased == 1 and report.fallbacks == {}
    body = fake.requests[0].body
    assert body["model"] == "fake-model" and body["response_format"] == {"type": "json_object"}


def test_paraphrase_falls_back_on_a_leaking_reply(cases: dict[str, Case], fake: FakeLLM,
                                                  client: LLMClient) -> None:
    case = cases["Drv.neis"]
    leaky = "서울 중앙고등학교 2024년 5월 급식 중 기장밥이 나온 날의 급식일자와 메뉴는?"
    fake.script(ok({"query": leaky}))
    report = ParaphraseReport()
    q, got = _para(case, client, {"day": "2024-05-20", "menu": "기장밥"}, report)
    assert got == q and report.fallbacks == {"leak": 1} and "기장밥" in report.notes[0]


def test_paraphrase_falls_back_when_a_literal_is_dropped(cases: dict[str, Case], fake: FakeLLM,
                                                         client: LLMClient) -> None:
    case = cases["Drv.neis"]
    fake.script(ok({"query": "중앙고등학교 급식 중 열량이 가장 높은 날과 메뉴는?"}))
    report = ParaphraseReport()
    q, got = _para(case, client, None, report)
    assert got == q and report.fallbacks == {"dropped_literal": 1}
    assert "서울특별시" in report.notes[0]


@pytest.mark.parametrize(("reply", "lost"), [
    # the narrowing dropped: any day's menu would do
    ("서울특별시에 있는 중앙고등학교의 2024년 5월 급식일자와 메뉴는?", "the narrowing by 열량"),
    # the order reversed: the lightest day instead of the heaviest
    ("서울특별시에 있는 중앙고등학교의 2024년 5월 급식 중 열량이 가장 낮은 날의 급식일자와 메뉴는?",
     "열량 가장 큰"),
    # a field asked for dropped
    ("서울특별시에 있는 중앙고등학교의 2024년 5월 급식 중 열량이 가장 높은 날의 메뉴는?",
     "급식일자 asked for"),
])
def test_paraphrase_falls_back_when_a_constraint_is_dropped_or_changed(
        cases: dict[str, Case], fake: FakeLLM, client: LLMClient, reply: str, lost: str) -> None:
    case = cases["Drv.neis"]
    fake.script(ok({"query": reply}))
    report = ParaphraseReport()
    q, got = _para(case, client, None, report)
    assert got == q and report.fallbacks == {"dropped_constraint": 1}, report
    assert lost in report.notes[0]


def test_every_template_query_keeps_its_own_constraints(cases: dict[str, Case]) -> None:
    """The check is calibrated on the templates: no packaged phrasing fails it."""
    for case in cases.values():
        ctx = query_context(case.traj, case.plan, case.answer)
        for seed in range(12):
            q = render_query(case.traj, case.plan, case.answer, rng_seed=seed)
            assert constraint_problems(q, ctx) == [], (case.key, q)


_PLAIN = re.compile(r"(해|줘|궁금해)\. |알려줘\.|뭐야\?|궁금해\.$")
_POLITE = re.compile(r"요[.?]|주세요|인가요\?")


def test_an_opening_and_its_question_keep_one_register(cases: dict[str, Case]) -> None:
    # session 36: 8 of 200 queries mixed 반말 and 해요체 ("여러 단계를 거쳐야 해. … 궁금해요.")
    registers = set()
    for case in cases.values():
        for seed in range(40):
            q = render_query(case.traj, case.plan, case.answer, rng_seed=seed)
            plain, polite = bool(_PLAIN.search(q)), bool(_POLITE.search(q))
            assert not (plain and polite), (case.key, seed, q)
            assert plain == (register_of(seed, phrasing_of(seed)) == "plain"), (case.key, q)
            registers.add(plain)
    assert registers == {True, False}


def test_a_comparison_lead_does_not_repeat_the_label_its_step_starts_with(
        cases: dict[str, Case]) -> None:
    # session 36: "법인등록번호를 바꿔 가며 법인등록번호 1611…과 1101… 각각의 기업개요를"
    case = cases["Cmp"]
    label = query_context(case.traj, case.plan, case.answer)["compares"][0]["label"]
    for seed in range(40):
        q = render_query(case.traj, case.plan, case.answer, rng_seed=seed)
        assert f"{josa(label, '을')} 바꿔 가며 {label} " not in q, q


SEARCHED = """use neis, region
trajectory t "q" {
  schools = neis.schools(SCHUL_NM: "한빛고등학교", ATPT_OFCDC_SC_CODE: "B10") pages all
  found = juso.addrLinkApi(keyword: seq schools.ORG_RDNMA) pages all
  answer { dong: found.emdNm }
}
"""


@pytest.mark.parametrize("seed", range(6))
def test_a_search_by_what_its_title_names_says_so(seed: int) -> None:
    # session 36: "그 도로명주소로 도로명주소를 찾아서" in 13 of 200 queries of seed 0
    plan, traj = api.compile(SEARCHED, "c.edge"), api.parse(SEARCHED, "c.edge").trajectories[0]
    ctx = query_context(traj, plan, None)
    assert ctx["steps"][1]["searched"] and not ctx["steps"][0]["searched"]
    q = render_query(traj, plan, None, rng_seed=seed)
    assert "그 도로명주소를 " in q and "도로명주소로 도로명주소" not in q, q
    fan = SEARCHED.replace('SCHUL_NM: "한빛고등학교", ', "").replace("seq schools", "fan schools")
    plan, traj = api.compile(fan, "c.edge"), api.parse(fan, "c.edge").trajectories[0]
    q = render_query(traj, plan, None, rng_seed=seed)
    assert "각 도로명주소를 " in q and "도로명주소로 도로명주소" not in q, q


CHOICE = """use fsc
trajectory t "q" {
  prices = fsc.stock_prices(basDt: 2024-12-27, mrktCls: "KOSPI") pages all
  if count(prices) > 100 {
    pick = drv prices | max fltRt
  } else {
    pick = drv prices | min trqu
  }
  answer { name: pick.itmsNm }
}
"""


@pytest.mark.parametrize("seed", range(6))
def test_an_if_between_two_narrowings_is_one_clause(seed: int) -> None:
    # session 36 read "…많으면 그중 A인 것으로 좁힌 뒤, 그렇지 않으면 … B인 것으로 좁힌 뒤,"
    plan, traj = api.compile(CHOICE, "c.edge"), api.parse(CHOICE, "c.edge").trajectories[0]
    ctx = query_context(traj, plan, None)
    assert ctx["steps"][1]["choice"] == {"then": "그중 등락률이 가장 큰 것",
                                         "else": "거래량이 가장 작은 것"}
    q = render_query(traj, plan, None, rng_seed=seed)
    assert re.search(r"많으면 그중 등락률이 가장 큰 것(을|으로), (그렇지 않으면|아니면) "
                     r"거래량이 가장 작은 것(을|으로) (골라|고르고|좁힌 뒤|남겨 주세요)", q), q
    assert constraint_problems(q, ctx) == [], q
    calls = CHOICE.replace("drv prices | min trqu",
                           'fsc.stock_prices(basDt: 2024-12-26, mrktCls: "KOSPI") pages all')
    plan, traj = api.compile(calls, "c.edge"), api.parse(calls, "c.edge").trajectories[0]
    assert query_context(traj, plan, None)["steps"][1]["choice"] is None


def test_pick_never_repeats_the_last_choice_of_a_list() -> None:
    # session 36: 53 of 200 queries ended two clauses in a row alike ("…조회한 뒤, …조회한 뒤")
    pick = _picker(random.Random(3))
    got = [pick(["a", "b", "c"]) for _ in range(200)]
    assert all(a != b for a, b in itertools.pairwise(got))
    assert set(got) == {"a", "b", "c"}
    assert [pick(["only"]) for _ in range(3)] == ["only"] * 3


def test_a_paraphrase_must_keep_the_condition_of_an_if(cases: dict[str, Case]) -> None:
    ctx = query_context(cases["Cond"].traj, cases["Cond"].plan, cases["Cond"].answer)
    assert ctx["comparisons"] == [{"op": ">", "count": True}]
    keep = "코스피 주식시세가 2024년 12월 28일에 10건보다 많으면 27일, 아니면 26일 시세의 건수는?"
    drop = "코스피 주식시세 2024년 12월 28일 10건 기준으로 27일 또는 26일 시세의 건수는?"
    assert constraint_problems(keep, ctx) == []
    assert constraint_problems(drop, ctx) == ["the condition's >"]


def test_paraphrase_falls_back_on_invalid_replies(cases: dict[str, Case], fake: FakeLLM,
                                                  client: LLMClient) -> None:
    case = cases["Seq"]
    fake.script(ok("이건 JSON이 아니다"), ok({"question": "wrong key"}))
    report = ParaphraseReport()
    q, got = _para(case, client, None, report)
    assert got == q and report.fallbacks == {"invalid_reply": 1}
    assert len(fake.requests) == 2  # asked again once with the problem, then gave up
    fake.reset()
    fake.script(ok({"query": ""}), ok({"query": "   "}))
    q, got = _para(case, client, None, report)
    assert got == q and report.fallbacks == {"invalid_reply": 2}


def test_paraphrase_raises_when_the_endpoint_refuses(cases: dict[str, Case], fake: FakeLLM,
                                                     client: LLMClient) -> None:
    fake.script(fail(401, "bad key"))
    with pytest.raises(LLMError) as info:
        _para(cases["Seq"], client, None, ParaphraseReport())
    assert info.value.kind == "refused"


def test_a_value_a_chain_keeps_is_named_once() -> None:
    """The context a chain keeps (the city its routes were listed in, handed to every later
    call: Engine.context) is named where it is first handed on, and "the same" after: never
    "좌표기반 근접정류소의 도시코드" again at every step."""
    text = """use bus
trajectory t "q" {
  near = tago.stops_near(gpsLati: 35.167682, gpsLong: 126.8942185) pages all
  routes = tago.routes(cityCode: seq near.citycode) pages all
  one = drv routes | where routeno == "16-3"
  stops = tago.route_stops(routeId: seq one.routeid, cityCode: seq near.citycode) pages all
  answer { n: count(stops) }
}
"""
    plan, traj = api.compile(text, "p.edge"), api.parse(text, "p.edge").trajectories[0]
    calls = [s for s in query_context(traj, plan, None)["steps"] if s["kind"] == "call"]
    assert calls[1]["via"] == "그 도시코드"  # handed on from the step before
    assert calls[2]["via"] == "그 노선ID와 같은 도시코드"
    for seed in range(3):
        q = render_query(traj, plan, None, rng_seed=seed)
        assert q.count("도시코드") == 2, q
