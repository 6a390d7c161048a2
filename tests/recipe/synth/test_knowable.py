"""Tasks a person would trust (issue 18 §2–§3): narrowings by meaningful fields only (declared
by the catalog: edgedsl.recipe.synth.wanted.narrow_ops), no internal code as a query input
(plausible's ``internal_input``), answers that do not restate an input
(edgedsl.recipe.synth.knowable) and not a count alone (chains.aggregate_field)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from edgedsl import api
from edgedsl.bench.bundle import full_catalog
from edgedsl.check import load_catalog
from edgedsl.core.source import Source
from edgedsl.core.types import CodeType, EnumType, ScalarType
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.chains import aggregate_field, aggregate_label, single_fields
from edgedsl.recipe.synth.entities import KNOWN_CODES
from edgedsl.recipe.synth.filters import rule_filter, static_problems
from edgedsl.recipe.synth.junction import Columns, type_junction
from edgedsl.recipe.synth.knowable import input_texts, restated_answers, statement_texts
from edgedsl.recipe.synth.plausible import implausible, internal_code, judge, plan_view
from edgedsl.recipe.synth.query import query_context
from edgedsl.recipe.synth.rejections import STAGE_OF
from edgedsl.recipe.synth.wanted import column_ops, narrow_ops
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

STR, INT, FLOAT, DATE = (ScalarType("str"), ScalarType("int"), ScalarType("float"),
                         ScalarType("date"))


def _compile(body: str, use: str) -> tuple[n.Trajectory, Any]:
    text = f'use {use}\n\ntrajectory t\n  "q"\n{{\n{body}\n}}\n'
    plan = api.compile(Source("<t>", text))
    traj = next(i for i in parse_module(text).items if isinstance(i, n.Trajectory))
    return traj, plan


# ----------------------------------------------------------------------------- narrow_ops


@pytest.mark.parametrize(("platform", "name", "ftype", "label", "unit", "ops"), [
    ("molit", "dealAmount", INT, "거래금액", "만원", {"max", "min", "ge", "le"}),
    ("neis", "CAL_INFO", FLOAT, "열량", "Kcal", {"max", "min", "ge", "le"}),
    ("molit", "floor", INT, "층", None, set()),                 # "층이 가장 큰": no unit
    ("ex", "yValue", FLOAT, "위도", None, set()),               # a coordinate
    ("tago", "gpslong", FLOAT, "경도", "°", set()),             # a coordinate, even with a unit
    ("nec", "num", INT, "결과 순번", None, set()),              # an order
    ("neis", "MLSV_YMD", DATE, "급식일자", None, {"max", "min", "after"}),
    ("neis", "LOAD_DTM", DATE, "자료 수정일", None, set()),     # record-keeping
    ("ex", "lsttmAltrDttm", DATE, "최종 수정 일시", None, set()),  # record-keeping, spaced
    ("law", "생성일자", DATE, None, None, set()),               # named in Korean: its own label
    ("law", "시행일자", DATE, None, None, {"max", "min", "after"}),
    ("neis", "FOND_SC_NM", EnumType(("공립", "사립")), "설립구분", None,
     {"eq", "most_frequent"}),
    ("assembly", "PPSR_KIND", STR, "제안자 구분", None, {"eq", "most_frequent"}),
    ("neis", "ORG_RDNMA", STR, "도로명주소", None, {"eq"}),    # "주소가 가장 많이 나온": no
    ("neis", "ORG_RDNMA", CodeType("codes.Address", "^.+$"), "도로명주소", None,
     {"eq"}),                                                  # typed to hand a place on: text
    ("neis", "SCHUL_NM", STR, "학교명", None, {"eq", "most_frequent"}),  # an entity's name
    ("assembly", "MONA_CD", CodeType("assembly.MonaCd", "^.+$"), "국회의원 코드", None,
     {"most_frequent"}),                                       # an entity: how often it appears
    ("neis", "ATPT_OFCDC_SC_CODE", CodeType("codes.NeisOffice", "^.+$"), "시도교육청코드",
     None, set()),                                             # a generic code
])
def test_what_a_question_narrows_by_follows_the_declaration(
        platform: str, name: str, ftype: Any, label: str, unit: str | None,
        ops: set[str]) -> None:
    assert narrow_ops(platform, name, ftype, label, unit) == frozenset(ops)


def test_junction_typing_never_narrows_by_a_field_the_catalog_does_not_allow() -> None:
    """Stops whose only working narrowing is by longitude: with the catalog's declarations
    (``Columns.ops``) no junction is proposed; without them the old typing took it."""
    rows = [{"nodeid": f"DJB{k:05d}", "gpslong": 127.0 + k / 100, "nodenm": f"정류소{k}"}
            for k in range(12)]
    types = {"nodeid": CodeType("tago.NodeId", "^.+$"), "gpslong": FLOAT, "nodenm": STR}
    specs = [SimpleNamespace(name="nodeid", type=types["nodeid"], label="정류소 ID", unit=None),
             SimpleNamespace(name="gpslong", type=FLOAT, label="경도", unit=None),
             SimpleNamespace(name="nodenm", type=STR, label="정류소명", unit=None)]
    old = type_junction(Columns(rows, types), ["nodeid"], types, single=True)
    assert old is not None and {s.field for s in old.steps} == {"gpslong"}
    ops = column_ops("tago", specs)  # type: ignore[arg-type]
    assert ops["gpslong"] == frozenset() and ops["nodenm"] == frozenset({"eq", "most_frequent"})
    new = type_junction(Columns(rows, types, ops=ops), ["nodeid"], types, single=True)
    assert new is None or all(s.field != "gpslong" for s in new.steps)


def test_stdlib_measures_declare_their_unit() -> None:
    """The counts and amounts a question narrows by carry a unit in ``stdlib/`` (교통량 대,
    점유율 %, 공약 수 개): a measure is declared, not listed aside."""
    cat = full_catalog()
    declared = {(t.platform, f.name): f for t in cat.tools() for f in t.record.fields}
    for key in [("ex", "trafficAmout"), ("ex", "shareRatio"), ("nec", "prmsCnt"),
                ("tago", "arrprevstationcnt"), ("seoul", "TPKCT"), ("fsc", "epyItmsCnt")]:
        f = declared[key]
        assert f.unit and "max" in narrow_ops(key[0], f.name, f.type, f.label, f.unit), key
    floor = declared[("molit", "floor")]
    assert narrow_ops("molit", "floor", floor.type, floor.label, floor.unit) == frozenset()


TRADES = '  trades = molit.getRTMSDataSvcAptTrade(LAWD_CD: "11680", DEAL_YMD: "202406") pages all\n'


@pytest.mark.parametrize(("step", "odd"), [
    ("drv trades | max floor", True),                  # 층이 가장 큰
    ("drv trades | most_frequent jibun", True),        # 지번이 가장 많이 나온
    ("drv trades | max dealAmount", False),            # 거래금액이 가장 큰
    ('drv trades | where aptNm == "래미안"', False),    # a stated name
])
def test_an_odd_narrowing_is_rejected(step: str, odd: bool) -> None:
    traj, plan = _compile(TRADES + f"  pick = {step}\n  answer {{ 단지명: pick.aptNm }}",
                          "region")
    found = implausible(traj.body, plan_view(plan))
    assert ("odd_narrowing" in found) is odd
    reasons = [r for r, _ in static_problems(traj, plan, "q")]
    assert ("odd_narrowing" in reasons) is odd
    assert STAGE_OF["odd_narrowing"] == "static"


# ----------------------------------------------------------------------------- inputs


def test_every_known_code_is_a_code_type_of_the_catalog() -> None:
    graph = load_graph(default_graph_path())
    catalog = load_catalog(list(graph.catalog.modules), [])
    assert set(KNOWN_CODES) <= set(catalog.code_types), \
        sorted(set(KNOWN_CODES) - set(catalog.code_types))


@pytest.mark.parametrize(("code", "param", "value", "internal"), [
    ("codes.LawdCd", "LAWD_CD", "11680", True),           # 지역코드: nobody knows it
    ("codes.OrgCode", "org", "1721000", False),           # written 과학기술정보통신부
    ("codes.OrgCode", "inq", "1999999", True),            # a 기관코드 the glossary lacks
    ("tago.RouteId", "routeId", "CCB250002100", True),    # a TAGO 노선ID
    ("codes.CorpCode", "corp_code", "00266961", True),    # a DART 고유번호 the glossary lacks
    ("codes.CorpCode", "corp_code", "00126380", False),   # written 삼성전자
    ("codes.NeisOffice", "ATPT_OFCDC_SC_CODE", "B10", False),  # written 서울특별시교육청
    ("codes.StockCode", "stock_code", "005930", False),   # a ticker a person knows
    ("codes.SgId", "sgId", "20240410", False),            # an election day
    (None, "search", "민법", False),                       # not a code
    # a plain parameter whose values the glossary names holds codes too: DART's
    # multi_accounts takes its 고유번호 as text (session 36: 6 of 200 queries of seed 1)
    (None, "corp_code", "01135544", True),
    (None, "corp_code", "00126380", False),
])
def test_an_internal_code_is_not_a_query_input(code: str | None, param: str, value: str,
                                               internal: bool) -> None:
    assert internal_code(code, param, value) is internal


def test_a_task_asking_with_an_internal_code_is_rejected() -> None:
    traj, plan = _compile('  laws = law.law_text(ID: "001760")\n'
                          "  answer { 건수: count(laws) }", "law")
    assert "internal_input" in implausible(traj.body, plan_view(plan))
    assert [r for r, _ in static_problems(traj, plan, "법령 ID 001760")] == ["internal_input"]
    # a ministry's 기관코드 is written by its name (행정표준코드): a person knows 과학기술정보통신부
    named, plan = _compile('  laws = law.law_search(org: "1721000") pages all\n'
                           "  answer { 건수: count(laws) }", "law")
    assert "internal_input" not in implausible(named.body, plan_view(plan))
    ctx = query_context(named, plan, {"건수": 3})
    assert "과학기술정보통신부" in ctx["steps"][0]["text"]
    assert STAGE_OF["internal_input"] == "static"
    named, plan = _compile('  filings = dart.disclosures(corp_code: "00126380") pages all\n'
                           "  answer { 건수: count(filings) }", "dart")
    assert "internal_input" not in implausible(named.body, plan_view(plan))
    plain, plan = _compile('  accounts = dart.multi_accounts(corp_code: "01135544", '
                           'bsns_year: 2018, reprt_code: 11012)\n'
                           "  answer { 건수: count(accounts) }", "dart")
    assert "internal_input" in implausible(plain.body, plan_view(plan))


# ----------------------------------------------------------------------------- answers


DISTRICT = ('  deals = seoul.tbLnOpendataRtmsV(CGG_CD: "11110", RCPT_YR: 2024) pages all\n'
            '  here = drv deals | where CGG_NM == "종로구"\n')


def test_an_answer_restating_an_input_is_rejected() -> None:
    traj, _ = _compile(DISTRICT + "  answer { 자치구명: here.CGG_NM }", "seoul")
    text = api.format(api.parse(f'use seoul\n\ntrajectory t\n  "q"\n{{\n{DISTRICT}'
                                "  answer { 자치구명: here.CGG_NM }\n}\n"))
    traj = api.parse(text).trajectories[0]
    assert "종로구" in input_texts(traj)
    assert restated_answers(traj, {"자치구명": "종로구"})
    assert "restated_input" in rule_filter(text, traj, {"자치구명": "종로구"}, "종로구 11110")
    assert restated_answers(traj, {"건물명": "경희궁의아침"}) == []
    assert restated_answers(traj, {"건수": 2024}) == []  # numbers: a coincidence
    assert STAGE_OF["restated_input"] == "rules"


def test_answers_avoid_the_values_the_query_states() -> None:
    """The answer ranks fields as before but skips one holding a stated value (the echo of
    :func:`statement_texts`, which ``answer_of`` and a group's answers pass)."""
    traj, _ = _compile(DISTRICT + "  answer { n: count(here) }", "seoul")
    rows = [{"CGG_NM": "종로구", "BLDG_NM": "경희궁의아침"}] * 2
    cols = Columns(rows, {"CGG_NM": STR, "BLDG_NM": STR})
    specs: Any = {"CGG_NM": SimpleNamespace(type=STR, label="자치구명", unit=None),
                  "BLDG_NM": SimpleNamespace(type=STR, label="건물명", unit=None)}
    assert single_fields(cols, 2, specs=specs, wanted_only=True) == ["BLDG_NM", "CGG_NM"]
    said = statement_texts(traj.body)
    assert single_fields(cols, 2, said, specs=specs, wanted_only=True) == ["BLDG_NM"]


def test_a_count_alone_also_asks_for_the_latest_date() -> None:
    """A relation of several records with no single-valued field a person wants is answered
    by its count and the latest date a question narrows by (not a count alone)."""
    cat = full_catalog()
    tool = cat.tool("dart.disclosures")
    assert tool is not None
    rows = [{"rcept_dt": "20241203", "report_nm": "분기보고서", "corp_name": "가"},
            {"rcept_dt": "20241115", "report_nm": "주요사항보고서", "corp_name": "나"}]
    types = {f.name: f.type for f in tool.record.fields}
    eng: Any = SimpleNamespace(decls={"dart.disclosures": tool})
    draft: Any = SimpleNamespace(last_tool="dart.disclosures")
    got = aggregate_field(eng, draft, Columns(rows, types))
    assert got == "rcept_dt"
    specs = {f.name: f for f in tool.record.fields}
    assert aggregate_label(specs, got) == "최근 접수일자"
    # the answer reads a fact of the records: a date, not a constant of the service
    traj, plan = _compile("  filings = dart.disclosures(corp_code: \"00126380\") pages all\n"
                          "  answer { 건수: count(filings), 최근_접수일자: max(filings.rcept_dt) }",
                          "dart")
    found, wants = judge(traj.body, plan_view(plan), {"filings": 2})
    assert wants == ["count", "date"] and found == []
    ctx = query_context(traj, plan, {"건수": 2, "최근_접수일자": "2024-12-03"})
    assert "가장 최근 접수일자" in ctx["answer"]["text"]


def test_a_count_alone_asks_the_largest_of_the_measure_that_varies_most() -> None:
    """Session 36: "최대 전용면적 164.3" answered 18 of 200 tasks of seed 0 — the largest of
    a dozen standard sizes, in every district alike; the deal amounts differ everywhere."""
    cat = full_catalog()
    tool = cat.tool("molit.getRTMSDataSvcAptTrade")
    assert tool is not None
    rows = [{"excluUseAr": a, "dealAmount": p} for a, p in
            ((84.99, "82,500"), (164.3, "131,000"), (84.99, "79,800"), (164.3, "127,500"))]
    types = {f.name: f.type for f in tool.record.fields}
    eng: Any = SimpleNamespace(decls={"molit.getRTMSDataSvcAptTrade": tool})
    draft: Any = SimpleNamespace(last_tool="molit.getRTMSDataSvcAptTrade")
    assert aggregate_field(eng, draft, Columns(rows, types)) == "dealAmount"
    same = [{**r, "dealAmount": "82,500"} for r in rows[:2]]
    assert aggregate_field(eng, draft, Columns(same, types)) == "excluUseAr"


def test_a_relation_with_one_value_everywhere_gets_no_aggregate() -> None:
    cat = full_catalog()
    tool = cat.tool("dart.disclosures")
    assert tool is not None
    rows = [{"rcept_dt": "20241203", "report_nm": "분기보고서"}] * 3
    types = {f.name: f.type for f in tool.record.fields}
    eng: Any = SimpleNamespace(decls={"dart.disclosures": tool})
    draft: Any = SimpleNamespace(last_tool="dart.disclosures")
    assert aggregate_field(eng, draft, Columns(rows, types)) is None


def test_synth_stats_counts_odd_narrowings_and_internal_inputs() -> None:
    from edgedsl.recipe.synth.record import ProgramFacts, TaskRecord
    from edgedsl.recipe.synth.trust import render_trust, trust_stats

    def rec(name: str, found: list[str]) -> TaskRecord:
        return TaskRecord(name=name, file=f"{name}.edge", structure="Drv", tools=[],
                          query="q", facts=ProgramFacts(implausible=found,
                                                        answer_wants=["name"]))

    t = trust_stats([rec("a", ["odd_narrowing"]), rec("b", ["internal_input", "odd_narrowing"]),
                     rec("c", [])])
    assert (t.implausible_tasks, t.odd_narrowing_tasks, t.internal_input_tasks) == (2, 2, 1)
    text = render_trust(t)
    assert "an internal code as a query input" in text and "1 of 3" in text


def test_a_comparisons_winning_arm_is_not_a_restatement() -> None:
    text = ('use law\n\ntrajectory t\n  "q"\n{\n'
            '  by_org = compare law.admrul_search() pages all over org in ["1661000", "1320000"]\n'
            '  best = drv by_org | max 발령일자\n'
            '  answer {\n    기관코드: best.__arm,\n    행정규칙명: best.행정규칙명,\n  }\n}\n')
    traj = api.parse(text).trajectories[0]
    assert restated_answers(traj, {"기관코드": "1661000", "행정규칙명": "소방규칙"}) == []
    assert restated_answers(traj, {"기관코드": "1661000", "행정규칙명": "1320000"})
