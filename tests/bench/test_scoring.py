"""Scoring without running anything: values as people write them, RESPONSE, ENVIRONMENT,
ACTION as a partial order, pass@k against hand-computed values and as a property."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.bench.episode import CallRecord, Episode, GoldCall, GoldRun
from edgedsl.bench.score import score_episode
from edgedsl.bench.score.action import score_action
from edgedsl.bench.score.environment import score_environment, state_diff
from edgedsl.bench.score.passk import bootstrap_interval, pass_at_k
from edgedsl.bench.score.response import same_value, score_response
from edgedsl.bench.score.values import name_key, parse_bool, parse_date, parse_number


@pytest.mark.parametrize(("text", "value"), [
    ("1,234", 1234), ("-3.5", -3.5), ("12.5%", 12.5), ("3억 2천만 원", 320_000_000),
    ("1.2억", 120_000_000), ("5만", 50_000), ("삼십오", 35), ("이천이십사", 2024),
    ("1조 2,345억", 1_234_500_000_000), ("128건", 128), ("약 3만명", 30_000),
    ("없음", None), ("회사", None), ("", None), ("12a", None),
])
def test_parse_number(text: str, value: float | None) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["2024-12-23", "20241223", "2024.12.23.", "2024/12/23",
                                  "2024년 12월 23일", "2024년12월23일"])
def test_parse_date(text: str) -> None:
    assert parse_date(text) == dt.date(2024, 12, 23)


def test_names_and_bools() -> None:
    assert name_key("SK하이닉스(주)") == name_key("주식회사 SK 하이닉스") == "sk하이닉스"
    assert name_key("㈜LG화학") == name_key("LG화학")
    assert parse_bool("예") is True and parse_bool("아니오") is False
    assert parse_bool("maybe") is None


@pytest.mark.parametrize(("agent", "gold", "same"), [
    (33026271000000, 33026271000000, True),
    ("33조 262억 7,100만원", 33026271000000, True),
    (1.54, 1.54, True), ("1.54%", 1.54, True), (1.5449, 1.54, True), (1.5, 1.54, False),
    (1499, 1500, False), (128.0, 128, True), (True, 1, False),
    ("2024년 12월 23일", "2024-12-23", True), (20241223, "2024-12-23", True),
    ("2024-12-24", "2024-12-23", False),
    ("SK하이닉스", "SK하이닉스(주)", True), ("삼성전자", "SK하이닉스(주)", False),
    (["한양정공", "LG화학", "LG에너지솔루션"], ["LG화학", "LG에너지솔루션", "한양정공"], True),
    ("LG화학, LG에너지솔루션, 한양정공", ["LG화학", "LG에너지솔루션", "한양정공"], True),
    (["LG화학", "LG화학", "한양정공"], ["LG화학", "LG에너지솔루션", "한양정공"], False),
    (["LG화학"], ["LG화학", "LG에너지솔루션"], False),
    ("LG화학", ["LG화학"], True),
    (None, None, True), ("없음", None, True), (0, None, False),
    ("예", True, True), (False, True, False),
    ({"n": 3}, 3, True),
    # a text with no name in it (DART writes '-' for "none") matches itself, nothing else
    ("-", "-", True), (" - ", "-", True), ("+", "-", False),
])
def test_same_value(agent: Any, gold: Any, same: bool) -> None:
    assert same_value(agent, gold) is same


def test_response_scores_fields_and_texts() -> None:
    gold = {"company": "SK하이닉스(주)", "sales": 33026271000000, "day": "2024-12-23"}
    ok = score_response({"company": "SK하이닉스", "Sales": "33조 262억 7,100만",
                         "day": "2024.12.23"}, gold, answered=True)
    assert ok.ok and ok.score == 1.0
    half = score_response({"company": "SK하이닉스", "sales": 1}, gold, answered=True)
    assert not half.ok and half.matched == 1 and len(half.mismatches) == 2
    text = score_response("SK하이닉스(주)의 매출은 33,026,271,000,000원, 기준일 2024년 12월 23일",
                          gold, answered=True)
    assert text.ok
    assert not score_response(gold, gold, answered=False).ok


def _call(i: int, tool: str, args: dict[str, Any], page: int | None = None, *,
          ok: bool = True, write: bool = False) -> CallRecord:
    return CallRecord(index=i, tool=tool, function=tool.replace(".", "__"), arguments=args,
                      page=page, ok=ok, write=write)


_GOLD = [  # a → (b1 | b2 fan) and c, both after a; d after b and c
    GoldCall(tool="p.a", arguments={"x": 1}, page=1, step="a"),
    GoldCall(tool="p.a", arguments={"x": 1}, page=2, step="a"),
    GoldCall(tool="p.b", arguments={"k": "1"}, step="b", after=["a"]),
    GoldCall(tool="p.b", arguments={"k": "2"}, step="b", after=["a"]),
    GoldCall(tool="p.c", arguments={"y": 2}, step="c", after=["a"]),
    GoldCall(tool="p.d", arguments={"z": 3}, step="d", after=["a", "b", "c"]),
]


def test_action_accepts_any_topological_order_and_fan_multisets() -> None:
    in_order = [_call(i, g.tool, g.arguments, g.page) for i, g in enumerate(_GOLD)]
    s = score_action(in_order, _GOLD)
    assert s.ok and s.score == 1.0
    shuffled = [in_order[i] for i in (1, 0, 4, 3, 2, 5)]  # pages, c before b, b2 before b1
    s = score_action(shuffled, _GOLD)
    assert s.ok and s.score == 1.0 and s.out_of_order == 0


def test_action_counts_extra_calls_and_order_violations() -> None:
    calls = [_call(i, g.tool, g.arguments, g.page) for i, g in enumerate(_GOLD)]
    extra = [*calls, _call(6, "p.e", {}), _call(7, "p.a", {"x": 9}, 1)]
    s = score_action(extra, _GOLD)
    assert s.ok and s.extra == 2 and s.recall == 1.0
    assert s.efficiency == pytest.approx(6 / 8) and s.score == pytest.approx(6 / 8)
    bad_write = [*calls, _call(6, "p.w", {}, write=True)]
    s = score_action(bad_write, _GOLD)
    assert not s.ok and s.extra_writes == 1
    d_first = [calls[5], *calls[:5]]  # d before what it depends on
    s = score_action(d_first, _GOLD)
    assert not s.ok and s.out_of_order == 1 and s.matched == 5
    one_page = [calls[0], *calls[2:]]  # the first page only
    s = score_action(one_page, _GOLD)
    assert not s.ok and s.recall == pytest.approx(5 / 6)
    failed = [_call(0, "p.a", {"x": "bad"}, ok=False), *calls]
    s = score_action(failed, _GOLD)
    assert s.ok and s.errors == 1 and s.efficiency == pytest.approx(6 / 7)
    assert score_action([], []).score == 1.0


def test_environment_diff_per_record() -> None:
    gold_state = {"assembly": {"opinions": [{"OPN_ID": "OPN1", "WRTR_NM": "홍길동"}],
                               "next_id": 2}}
    ep_state = {"assembly": {"opinions": [{"OPN_ID": "OPN1", "WRTR_NM": "김철수"},
                                          {"OPN_ID": "OPN2", "WRTR_NM": "김철수"}],
                             "next_id": 3}}
    diff = state_diff(ep_state, gold_state)
    assert diff == ["assembly.next_id: episode 3, gold 2",
                    "assembly.opinions[0].WRTR_NM: episode '김철수', gold '홍길동'",
                    "assembly.opinions[1]: record only after the episode: "
                    "{'OPN_ID': 'OPN2', 'WRTR_NM': '김철수'}"]
    ep = Episode(bundle_hash="h", task_id="t", agent="a", state=ep_state,
                 gold=GoldRun(state=gold_state, calls=[GoldCall(
                     tool="assembly.submit_opinion", step="s", write=True)]))
    env = score_environment(ep)
    assert not env.ok and env.diff == diff
    read_only = Episode(bundle_hash="h", task_id="t", agent="a", state={},
                        gold=GoldRun(state={}))
    env = score_environment(read_only)
    assert env.ok and env.trivial and "no write tool" in env.note
    no_state = Episode(bundle_hash="h", task_id="t", agent="a", gold=GoldRun())
    assert score_environment(no_state).trivial


def test_an_episode_passes_on_response_and_environment() -> None:
    ep = Episode(bundle_hash="h", task_id="t", agent="a", answer={"n": 3}, answered=True,
                 end_reason="answered", gold=GoldRun(answer={"n": 3}))
    assert score_episode(ep).passed
    budget = ep.model_copy(update={"end_reason": "call_budget"})
    assert not score_episode(budget).passed
    failed_gold = ep.model_copy(update={"gold": GoldRun(ok=False, error="the gold run failed")})
    s = score_episode(failed_gold)
    assert not s.passed and "no gold answer" in s.response.mismatches[0]


@pytest.mark.parametrize(("n", "c", "k", "want"), [
    (4, 0, 1, 0.0), (4, 1, 1, 0.25), (4, 2, 1, 0.5), (4, 4, 4, 1.0),
    (4, 1, 4, 1.0), (4, 1, 2, 0.5),          # 1 − C(3,2)/C(4,2) = 1 − 3/6
    (5, 2, 2, 0.7),                          # 1 − C(3,2)/C(5,2) = 1 − 3/10
    (10, 3, 4, 1 - 35 / 210),                # 1 − C(7,4)/C(10,4)
])
def test_pass_at_k_by_hand(n: int, c: int, k: int, want: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(want)


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_properties(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    p = pass_at_k(n, c, k)
    assert 0.0 <= p <= 1.0
    # the probability that k draws without replacement include a pass
    fail_all = math.prod((n - c - i) / (n - i) for i in range(k)) if n - c >= k else 0.0
    assert p == pytest.approx(1 - fail_all)
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)
    if k < n:
        assert pass_at_k(n, c, k + 1) >= p - 1e-12
    if c < n:
        assert pass_at_k(n, c + 1, k) >= p - 1e-12


def test_pass_at_k_refuses_nonsense_and_bootstrap_brackets_the_mean() -> None:
    with pytest.raises(ValueError, match="1 ≤ k ≤ n"):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError, match="passing rollouts"):
        pass_at_k(2, 3, 1)
    vals = [0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75]
    lo, hi = bootstrap_interval(vals, seed=1)
    mean = sum(vals) / len(vals)
    assert lo < mean < hi and (lo, hi) == bootstrap_interval(vals, seed=1)
    assert bootstrap_interval([1.0] * 5) == (1.0, 1.0)
