"""The first two filter stages of synthesized trajectories (edgedsl.recipe.synth.filters): every
rule with a case it rejects and one it keeps, the report, and the optional model check against a
fake OpenAI-compatible endpoint."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from edgedsl import api
from edgedsl.plan.model import Plan
from edgedsl.recipe.llm import LLMClient, LLMConfig, LLMError
from edgedsl.recipe.synth.filters import (
    astatic_check,
    find_leaks,
    rule_filter,
    static_check,
    static_messages,
    static_problems,
    static_rules,
    ungradable_problems,
    value_forms,
)
from edgedsl.recipe.synth.query import render_query
from edgedsl.recipe.synth.rejections import REJECTIONS, STAGE_OF, FilterReport
from edgedsl.syntax import nodes as n
from tests.recipe.graph.fake_llm import FakeLLM, fail, ok

LUNCH = """use neis

trajectory lunch "서울특별시 중앙고등학교의 2024년 5월 급식 중 열량이 가장 높은 날과 메뉴는?" {
  candidates = neis.schools(SCHUL_NM: "중앙고등학교") pages all
  school = drv candidates | where LCTN_SC_NM == "서울특별시"
  meals = neis.meals(
    ATPT_OFCDC_SC_CODE: seq school.ATPT_OFCDC_SC_CODE,
    SD_SCHUL_CODE: seq school.SD_SCHUL_CODE,
    MLSV_FROM_YMD: 2024-05-01,
    MLSV_TO_YMD: 2024-05-31,
  ) pages all
  richest = drv meals | max CAL_INFO
  answer {
    day: richest.MLSV_YMD,
    menu: richest.DDISH_NM,
  }
}
"""
LUNCH_QUERY = "서울특별시 중앙고등학교의 2024년 5월 급식 중 열량이 가장 높은 날과 메뉴는?"


def load(text: str) -> tuple[n.Trajectory, Plan]:
    """The first trajectory of ``text`` and the plan of the file."""
    return api.parse(text).trajectories[0], api.compile(text)


@pytest.fixture(scope="module")
def lunch() -> tuple[n.Trajectory, Plan]:
    return load(LUNCH)


# ----------------------------------------------------------------------------- the report


def test_reasons_and_stages() -> None:
    assert set(STAGE_OF) == set(REJECTIONS)
    assert {"format", "leak", "ungradable", "query_mismatch", "decorative",
            "resolve_mismatch"} <= set(REJECTIONS)
    assert STAGE_OF["decorative"] == STAGE_OF["resolve_mismatch"] == "resolve"


def test_report_counts_per_stage_and_reason() -> None:
    a = FilterReport()
    assert a.record("rules", []) is True
    assert a.record("rules", ["leak", "ungradable", "leak"], name="t1") is False
    assert a.record("static", ["query_mismatch"]) is False
    assert a.checked == {"rules": 2, "static": 1} and a.dropped == {"rules": 1, "static": 1}
    assert a.rejections == {"rules": {"leak": 1, "ungradable": 1},
                            "static": {"query_mismatch": 1}}
    assert a.notes == ["t1: rules: leak, ungradable"]
    b = FilterReport()
    b.record("resolve", ["decorative"])
    b.record("rules", ["leak"])
    merged = a.merge(b)
    assert merged.total("leak") == 2 and merged.total("decorative") == 1
    assert merged.checked["rules"] == 3 and a.checked["rules"] == 2  # a is unchanged
    with pytest.raises(ValueError, match="unknown"):
        a.record("rules", ["nonsense"])  # type: ignore[list-item]
    assert FilterReport.model_validate(merged.model_dump(mode="json")) == merged


# ----------------------------------------------------------------------------- format


def test_format_rule(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, _ = lunch
    assert "format" not in rule_filter(LUNCH, traj, {"day": "2024-05-20"}, LUNCH_QUERY)
    assert api.format(api.parse(LUNCH)) == LUNCH
    not_canonical = LUNCH.replace("richest = drv", "richest  =  drv")
    assert rule_filter(not_canonical, traj, {"day": "2024-05-20"}, LUNCH_QUERY) == ["format"]
    broken = LUNCH.replace("pages all\n  school", "pages all (\n  school")
    assert rule_filter(broken, traj, {"day": "2024-05-20"}, LUNCH_QUERY) == ["format"]


# ----------------------------------------------------------------------------- leak


def test_leak_of_strings_numbers_and_dates(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, _ = lunch
    assert rule_filter(LUNCH, traj, {"menu": "기장밥"}, LUNCH_QUERY) == []
    assert rule_filter(LUNCH, traj, {"menu": "기장밥"}, "기장밥이 나온 날은?") == ["leak"]
    assert find_leaks("열량 965.4 Kcal인 날", {"kcal": 965.4}) == ["965.4"]
    assert find_leaks("12,345원인 것", {"amount": 12345}) == ["12,345"]
    assert find_leaks("12345원", {"amount": "12,345"}) == ["12345"]
    assert find_leaks("12조 원", {"cap": 12_000_000_000_000}) == ["12조"]
    assert find_leaks("2024년 5월 20일 메뉴", {"day": "2024-05-20"}) == ["2024년 5월 20일"]
    assert find_leaks("5월 20일의 메뉴", {"day": "20240520"}) == ["5월 20일"]
    assert find_leaks("득표율 63.7%", {"share": 63.67}) == ["63.7"]
    assert find_leaks("SAMSUNG의 종가", {"name": ["Samsung", "LG"]}) == ["Samsung"]


def test_no_leak_for_literals_short_values_and_parts_of_numbers(
        lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, _ = lunch
    # the answer repeats values the question must state: masked, not a leak
    answer = {"school": "중앙고등학교", "region": "서울특별시", "month": "2024-05-01"}
    # (an answer made only of them tells nothing new: restated, rule of its own)
    assert rule_filter(LUNCH, traj, answer, LUNCH_QUERY) == ["restated_input"]
    assert find_leaks("2030년 계획", {"n": 30}) == []          # inside a longer number
    assert find_leaks("2학년 3반", {"n": 3, "g": 2, "s": "반"}) == []  # single digits, 1 char
    assert find_leaks("1,234,567원", {"n": 234}) == []
    assert find_leaks("질문", {"ok": True, "none": None}) == []
    assert value_forms(math.nan) == [] and value_forms(7) == [] and value_forms("x") == []


# ----------------------------------------------------------------------------- ungradable


@pytest.mark.parametrize("answer", [
    None, "", "   ", [], {}, {"a": 1, "b": None}, {"a": ""}, {"a": []},
    [1, 2, 3, 4, 5, 6], {"names": ["a", "b", "c", "d", "e", "f"]},
    math.nan, {"x": math.inf}, 33.333333333333336, {"avg": 0.1 + 0.2},
])
def test_ungradable_answers(lunch: tuple[n.Trajectory, Plan], answer: Any) -> None:
    assert ungradable_problems(answer)
    assert "ungradable" in rule_filter(LUNCH, lunch[0], answer, LUNCH_QUERY)


@pytest.mark.parametrize("answer", [
    0, 12.5, "기장밥", [1, 2, 3, 4, 5], {"a": 1, "b": "x", "c": [1, 2], "d": 873.7, "e": False},
    {"rate": 1.123456}, -4.57,
])
def test_gradable_answers(lunch: tuple[n.Trajectory, Plan], answer: Any) -> None:
    assert ungradable_problems(answer) == []
    assert "ungradable" not in rule_filter(LUNCH, lunch[0], answer, LUNCH_QUERY)


def test_ungradable_messages_and_phi() -> None:
    assert ungradable_problems({"a": None}) == ["field `a` is null"]
    assert ungradable_problems([1, 2, 3], phi=2) == ["the answer has 3 values, more than φ = 2"]
    assert "not rounded" in ungradable_problems(2 / 3)[0]


# ----------------------------------------------------------------------------- query_mismatch


def _reasons(traj: n.Trajectory, plan: Plan, query: str) -> list[str]:
    return [r for r, _ in static_problems(traj, plan, query)]


def test_query_must_mention_every_literal(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, plan = lunch
    assert static_rules(traj, plan, LUNCH_QUERY) == []
    # a whole month may stand for its first and last day; the full dates work too
    full = LUNCH_QUERY.replace("2024년 5월", "2024-05-01부터 2024년 5월 31일까지")
    assert static_rules(traj, plan, full) == []
    problems = static_problems(traj, plan, LUNCH_QUERY.replace("서울특별시 ", "서울 "))
    assert problems == [("query_mismatch",
                         "pivot `LCTN_SC_NM` = 서울특별시 is not mentioned in the query")]
    assert _reasons(traj, plan, LUNCH_QUERY.replace("2024년 5월", "5월")) == \
        ["query_mismatch", "query_mismatch"]
    assert _reasons(traj, plan, LUNCH_QUERY.replace("중앙고등학교", "중앙고")) == ["query_mismatch"]


def test_query_must_not_mention_other_dates(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, plan = lunch
    assert _reasons(traj, plan, LUNCH_QUERY + " 2023년 3월 2일 급식도?") == ["query_mismatch"]
    assert _reasons(traj, plan, LUNCH_QUERY + " 2024년 7월도?") == ["query_mismatch"]
    assert _reasons(traj, plan, LUNCH_QUERY + " 2024년 5월 31일까지.") == []


def test_codes_may_be_mentioned_by_meaning() -> None:
    traj, plan = load("""use dart
trajectory accounts "q" {
  rows = dart.single_accounts(corp_code: "00164779", bsns_year: 2023, reprt_code: "11011")
  sales = drv rows | where fs_div == "CFS" | where account_nm == "매출액"
  answer { sales: sales.thstrm_amount }
}
""")
    q = "SK하이닉스의 2023년 사업보고서에서 연결 기준 매출액은?"
    assert static_rules(traj, plan, q) == []
    assert static_rules(traj, plan, q.replace("사업보고서", "반기보고서")) == ["query_mismatch"]
    assert static_rules(traj, plan, "00164779의 2023년 11011 CFS 매출액은?") == []


def test_template_queries_pass_the_static_rules(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, plan = lunch
    for seed in range(5):
        assert static_rules(traj, plan, render_query(traj, plan, None, rng_seed=seed)) == []


# ----------------------------------------------------------------------------- unused / duplicates

SCHOOLS = 'neis.schools(SCHUL_NM: "중앙고등학교") pages all'


def test_unused_steps() -> None:
    traj, plan = load(f"""use neis
trajectory t "q" {{
  a = {SCHOOLS}
  b = neis.schools(SCHUL_NM: "한빛고등학교") pages all
  c = drv a | max FOND_YMD
  answer {{ name: a.SCHUL_NM }}
}}
""")
    problems = static_problems(traj, plan, "중앙고등학교와 한빛고등학교의 학교명은?")
    assert problems == [("unused_step", "`b` (call of neis.schools) is never read"),
                        ("unused_step", "`c` (drv) is never read")]


def test_unused_parallel_branch_and_write_tools() -> None:
    traj, plan = load("""use neis, assembly
trajectory t "q" {
  school = neis.schools(SCHUL_NM: "중앙고등학교", ATPT_OFCDC_SC_CODE: "B10") pages all
  day = parallel (office: seq school.ATPT_OFCDC_SC_CODE, code: seq school.SD_SCHUL_CODE) {
    meals = neis.meals(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: code, MLSV_YMD: 2024-05-02)
    events = neis.schedule(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: code, AA_YMD: 2024-05-02)
  }
  bills = assembly.bills(AGE: "22", BILL_NAME: "도로교통법") pages all
  opinion = assembly.submit_opinion(
    BILL_ID: seq bills.BILL_ID,
    WRTR_NM: "홍길동",
    SBJCT: "의견",
    CN: "찬성합니다",
    AGRE_DSAGRE: "찬성",
  )
  answer { menu: day.meals.DDISH_NM }
}
""")
    reasons = static_problems(traj, plan, "x")
    unused = [m for r, m in reasons if r == "unused_step"]
    assert unused == ["parallel branch `day.events` (neis.schedule) is never read"]


def test_repeated_steps_are_incoherent() -> None:
    traj, plan = load(f"""use neis
trajectory t "q" {{
  a = {SCHOOLS}
  b = {SCHOOLS}
  c = drv a | max FOND_YMD
  d = drv a | max FOND_YMD
  e = drv a | min FOND_YMD
  answer {{ x: b.SCHUL_NM, y: c.SCHUL_NM, z: d.SCHUL_NM, w: e.SCHUL_NM }}
}}
""")
    assert [m for r, m in static_problems(traj, plan, "중앙고등학교") if r == "tool_incoherent"] \
        == ["`b` repeats `a` exactly", "`d` repeats `c` exactly"]


def test_the_same_step_in_both_branches_is_coherent() -> None:
    traj, plan = load(f"""use neis
trajectory t "q" {{
  a = {SCHOOLS}
  if count(a) > 3 {{
    b = drv a | max FOND_YMD
  }} else {{
    b = drv a | max FOND_YMD
  }}
  answer {{ x: b.SCHUL_NM }}
}}
""")
    assert static_problems(traj, plan, "중앙고등학교 중 3") == []


# ----------------------------------------------------------------------------- the model check


@pytest.fixture
def client(llm_served: tuple[FakeLLM, str]) -> LLMClient:
    cfg = LLMConfig(base_url=llm_served[1], model="fake-judge", attempts=2, retries=1,
                    backoff=0.001, max_backoff=0.01)
    return LLMClient(cfg, environ={}, seed=0)


def test_static_prompt_shows_the_pair(lunch: tuple[n.Trajectory, Plan]) -> None:
    traj, plan = lunch
    messages = static_messages(traj, plan, "새 질문?")
    prompt = messages[1]["content"]
    assert "## The question\n새 질문?" in prompt
    assert 'trajectory lunch "새 질문?" {' in prompt  # the program carries the checked query
    assert "richest = drv meals | max CAL_INFO" in prompt
    assert "`neis.meals` — 급식식단정보" in prompt and "급식일자, 메뉴" in prompt


def test_model_accepts(lunch: tuple[n.Trajectory, Plan], fake: FakeLLM,
                       client: LLMClient) -> None:
    traj, plan = lunch
    fake.script(ok({"ok": True, "reason": "좋음"}))
    report = FilterReport()
    assert static_check(traj, plan, LUNCH_QUERY, client=client, report=report) == []
    assert report.model_fallbacks == 0 and len(fake.requests) == 1
    assert fake.requests[0].body["model"] == "fake-judge"


def test_model_rejects(lunch: tuple[n.Trajectory, Plan], fake: FakeLLM,
                       client: LLMClient) -> None:
    traj, plan = lunch
    fake.script(ok('```json\n{"ok": false, "reason": "the question never asks for calories"}\n```'))
    report = FilterReport()
    got = static_check(traj, plan, LUNCH_QUERY, client=client, report=report)
    assert got == ["model_rejected"]
    assert report.notes == ["lunch: model: the question never asks for calories"]


def test_model_fallback_keeps_the_heuristic_verdict(lunch: tuple[n.Trajectory, Plan],
                                                    fake: FakeLLM, client: LLMClient) -> None:
    traj, plan = lunch
    fake.script(ok("not json"), ok({"verdict": "fine"}))
    report = FilterReport()
    bad_query = LUNCH_QUERY.replace("서울특별시 ", "")
    got = static_check(traj, plan, bad_query, client=client, report=report)
    assert got == ["query_mismatch"]
    assert report.model_fallbacks == 1 and len(fake.requests) == 2


def test_model_check_from_async_code(lunch: tuple[n.Trajectory, Plan], fake: FakeLLM,
                                     client: LLMClient) -> None:
    traj, plan = lunch
    fake.script(ok({"ok": False, "reason": "no"}))
    report = FilterReport()

    async def go() -> list[str]:
        with pytest.raises(RuntimeError, match="astatic_check"):
            static_check(traj, plan, LUNCH_QUERY, client=client)
        return list(await astatic_check(traj, plan, LUNCH_QUERY, client=client, report=report))

    assert asyncio.run(go()) == ["model_rejected"]
    assert len(fake.requests) == 1 and report.notes == ["lunch: model: no"]
    assert static_check(traj, plan, LUNCH_QUERY) == static_rules(traj, plan, LUNCH_QUERY) == []


def test_model_errors_that_hit_every_task_raise(lunch: tuple[n.Trajectory, Plan],
                                                fake: FakeLLM, client: LLMClient) -> None:
    fake.script(fail(403, "forbidden"))
    with pytest.raises(LLMError) as info:
        static_check(*lunch, LUNCH_QUERY, client=client)
    assert info.value.kind == "refused"
