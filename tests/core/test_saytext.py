"""How a ``say`` reply writes values (``core.saytext``): numbers grouped, lists joined, missing
values as a stated placeholder, Korean amounts and dates; a filter given what it cannot read
fails the run with R508 saying what it needs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import edgedsl
from edgedsl.core.say import render_say
from edgedsl.core.saytext import MISSING, say_text
from edgedsl.runtime.executor import run
from edgedsl.runtime.python_backend import PythonBackend


@pytest.mark.parametrize(("value", "text"), [
    (73600, "73,600"), (-1234567, "-1,234,567"), (7, "7"), (158953.0, "158,953"),
    (-0.37, "-0.37"), (1234.5, "1,234.5"), (None, MISSING), ([], MISSING), (True, "예"),
    (False, "아니요"), (["서산(서울)휴게소", "안성휴게소"], "서산(서울)휴게소, 안성휴게소"),
    ([1200, None, 3], "1,200, (없음), 3"), ({"a": 1000, "b": "x"}, "a: 1,000, b: x"),
    ("2024-12-27", "2024-12-27"),
])
def test_values_read_as_korean_text(value: Any, text: str) -> None:
    assert say_text(value) == text
    assert render_say("{{ v }}", {"v": value}) == text


@given(st.integers(min_value=-10**30, max_value=10**30))
def test_an_integer_is_grouped_in_threes_and_reads_back(n: int) -> None:
    text = say_text(n)
    assert int(text.replace(",", "")) == n
    head, *groups = text.lstrip("-").split(",")
    assert 1 <= len(head) <= 3 and all(len(g) == 3 for g in groups)


FILTERED = {
    "{{ 73600 | won }}": "73,600원",
    "{{ '82,500' | num }}": "82,500",
    "{{ 2.675 | num(2) }}": "2.68",
    "{{ 2.5 | num(0) }}": "3",
    "{{ -2.5 | num(0) }}": "-3",
    "{{ 1234.5 | num(2) }}": "1,234.50",
    "{{ 2024 | plain }}년": "2024년",
    "{{ 158953.0 | plain }}": "158953",
    "{{ 120000000 | eok }}": "1.2억",
    "{{ 100000000 | eok }}": "1억",
    "{{ 123456789 | eok(2) }}": "1.23억",
    "{{ 73600 | man }}": "7.4만",
    "{{ 73600 | man(0) }}": "7만",
    "{{ 3100000000000 | jo }}": "3.1조",
    "{{ 1234567890 | amount }}": "12억 3,456만 7,890",
    "{{ 1234567890 | amount('원') }}": "12억 3,456만 7,890원",
    "{{ 1500000000000 | amount('원') }}": "1조 5,000억원",
    "{{ -73600 | amount }}": "-7만 3,600",
    "{{ 0 | amount }}": "0",
    "{{ '2024-12-27' | date }}": "2024년 12월 27일",
    "{{ '20241227' | date('short') }}": "12월 27일",
    "{{ '2024-12-27' | date('month') }}": "2024년 12월",
    "{{ '2024-12-27' | date('dot') }}": "2024. 12. 27.",
    "{{ '2024-12-27' | date('weekday') }}": "2024년 12월 27일(금)",
    "{{ ['가', '나', '다'] | and_list }}": "가, 나와 다",
    "{{ ['서울', '부산'] | and_list }}": "서울과 부산",
    "{{ ['가', '나', '다'] | or_list }}": "가, 나 또는 다",
    "{{ ['가'] | and_list }}": "가",
    "{{ '삼성전자' | josa('이') }}": "삼성전자가",
    "{{ '문학' | josa('이') }}": "문학이",
    "{{ none | won }}{{ none | eok }}{{ none | date }}{{ none | and_list }}":
        MISSING * 4,
}


@pytest.mark.parametrize("template", sorted(FILTERED))
def test_filters_write_korean_amounts_dates_and_lists(template: str) -> None:
    assert render_say(template, {}) == FILTERED[template]


PROGRAM = """
platform p {{
  record R {{
    price: int?
    day: str
    name: str
  }}

  tool t (q: str) -> [R]
}}

trajectory x "q" {{
  r = p.t(q: "x")
  answer {{ price: r.price, day: r.day, names: r.name }}
  say "{say}"
}}
"""


def said(template: str, rows: list[dict[str, Any]]) -> Any:
    plan = edgedsl.compile(PROGRAM.format(say=template))
    return run(plan, "x", PythonBackend({"p.t": lambda **_: rows}))


def test_a_missing_value_is_the_placeholder_not_none() -> None:
    res = said("{{ price }}원, {{ price | won }}",
               [{"price": None, "day": "2024-05-01", "name": "가"}])
    assert res.ok, res.diagnostics
    assert res.say == f"{MISSING}원, {MISSING}" and "None" not in res.say


def test_a_run_renders_numbers_lists_and_dates() -> None:
    res = said("{{ day | date }} {{ names | and_list }} {{ price }}원",
               [{"price": 73600, "day": "2024-05-01", "name": "서산(서울)휴게소"},
                {"price": 73600, "day": "2024-05-01", "name": "안성휴게소"}])
    assert res.ok, res.diagnostics
    assert res.say == "2024년 5월 1일 서산(서울)휴게소와 안성휴게소 73,600원"


@pytest.mark.parametrize(("template", "needs"), [
    ("{{ names | date }}", "`date` needs a date"),
    ("{{ day | date('long ago') }}", "`date` has no style"),
    ("{{ names | won }}", "`won` needs a number"),
])
def test_a_filter_given_what_it_cannot_read_fails_with_r508(template: str, needs: str) -> None:
    res = said(template, [{"price": 1, "day": "2024-05-01", "name": "가"}])
    assert not res.ok and res.diagnostics[0].code == "R508"
    assert needs in res.diagnostics[0].message
