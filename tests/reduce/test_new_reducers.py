"""The operators of issue 20 §1: `!=`, `before`, `in`, `contains`, `starts_with`, `top k`,
`bottom k`, `count_distinct`, `round(x, 0)` and date shifts — semantics against the reference,
ties at a `top k` boundary kept and reported, diagnostics, and synthesis keeping to its seven."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedsl.api import check, parse
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source
from edgedsl.core.types import DATE, FLOAT, INT, STR, EnumType, FieldType, ListType
from edgedsl.plan.compile import compile_program
from edgedsl.recipe.synth.junction import reducer_ops
from edgedsl.reduce.registry import REDUCERS, SYNTH_OPS, ReduceStep, synth_words
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax import nodes as n
from edgedsl.testing import check_reducer_chain, check_trajectory, reducer_cases, relations
from tests.profiles import examples

NEW = ("ne", "before", "in", "contains", "starts_with", "top", "bottom")
TYPES: dict[str, FieldType] = {"n": INT, "x": FLOAT, "d": DATE, "s": STR,
                               "e": EnumType(("KOSPI", "KOSDAQ"))}


def _program(steps: str, answer: str = "count(kept)", decl: str = "") -> str:
    return ("platform reg {\n  record Row {\n    n: int\n    x: float\n    d: date\n    s: str\n"
            f"    l: [int]\n{decl}  }}\n\n  tool rows (q: str) -> [Row]\n}}\n\n"
            f'trajectory t "q" {{\n  rows = reg.rows(q: "1")\n  kept = drv rows | {steps}\n'
            f"  answer {answer}\n}}\n")


def _run(text: str, rows: list[dict[str, Any]]) -> Any:
    plan = compile_program(check(Source("<t>.edge", text)).program)
    (res,) = run_plan_sync(plan, PythonBackend({"reg.rows": lambda **kw: rows}))
    return res


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=reducer_cases(TYPES, ops=NEW, max_size=15))
def test_new_reducers_agree_with_the_reference(case: Any) -> None:
    types, rows, steps = case
    check_reducer_chain(rows, steps, types)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=relations({"n": INT, "d": DATE}, max_size=15), field=st.sampled_from(["n", "d"]))
def test_top_1_is_max_and_bottom_1_is_min(rows: list[dict[str, Any]], field: str) -> None:
    types = {"n": INT, "d": DATE}
    assert check_reducer_chain(rows, [ReduceStep("top", field, 1)], types) == \
        check_reducer_chain(rows, [ReduceStep("max", field)], types)
    assert check_reducer_chain(rows, [ReduceStep("bottom", field, 1)], types) == \
        check_reducer_chain(rows, [ReduceStep("min", field)], types)


def test_ties_at_the_top_k_boundary_are_kept_and_reported() -> None:
    rows = [{"n": 5}, {"n": 4}, {"n": None}, {"n": 4}, {"n": 3}, {"n": "4"}]
    res = _run(_program("top 2 n", "kept.n"), rows)
    assert res.ok and res.answer == [5, 4]
    step = next(s for s in res.trace.steps if s.id == "kept")
    assert step.records == 4  # 5, 4, 4 and "4": three rows hold the boundary value 4
    (tie,) = step.ties
    assert (tie.op, tie.field, tie.tied, tie.broken) == ("top", "n", 3, False)
    assert res.determined
    # the reference interpreter reports the same fact
    check_trajectory(_program("top 2 n"), {"reg.rows": lambda **kw: rows})
    res = _run(_program("bottom 1 n"), rows)
    assert res.answer == 1 and [t.tied for t in _drv(res).ties] == [1]


def _drv(res: Any) -> Any:
    return next(s for s in res.trace.steps if s.id == "kept")


@pytest.mark.parametrize(("steps", "want"), [
    ('where s != "a"', 2),          # nulls are never kept
    ("where n != 2.5", 3),           # a pivot that does not coerce equals no value
    ("where d before 2024-03-01", 2),
    ("where d after 2024-03-01 - 1 month", 2),
    ('where s in ["a", "b", "zz"]', 2),
    ("where n in [1, 2.5]", 1),
    ('where s contains "가"', 1),
    ('where s starts_with "a"', 1),
    ('where s contains ""', 3),
])
def test_where_forms(steps: str, want: int) -> None:
    rows = [{"n": 1, "d": "2024-02-29", "s": "a"}, {"n": 2, "d": "20240101", "s": "b"},
            {"n": None, "d": "2024-03-05", "s": "한가람"}, {"n": "3원", "s": None}]
    assert _run(_program(steps), rows).answer == want
    check_trajectory(_program(steps), {"reg.rows": lambda **kw: rows})


def test_count_distinct_and_round_to_an_integer() -> None:
    rows = [{"n": 1, "x": 1.25, "s": "a"}, {"n": 2, "x": 2.5, "s": "a"},
            {"n": 2, "x": None, "s": None}]
    text = _program("max n", "{\n    k: count_distinct(rows.s),\n    r: round(avg(rows.x), 0),\n"
                    "    f: round(avg(rows.x), 1),\n  }")
    res = _run(text, rows)
    assert res.answer == {"k": 1, "r": 2, "f": 1.9}
    assert isinstance(res.answer["r"], int)
    check_trajectory(text, {"reg.rows": lambda **kw: rows})


@pytest.mark.parametrize(("text", "day"), [
    ("2024-11-30 - 30 days", dt.date(2024, 10, 31)),
    ("2024-01-31 + 1 month", dt.date(2024, 2, 29)),
    ("2024-03-31 - 1 month", dt.date(2024, 2, 29)),
    ("2023-12-15 + 13 months", dt.date(2025, 1, 15)),
    ("2024-11-30 -0 days", dt.date(2024, 11, 30)),
])
def test_date_shifts(text: str, day: dt.date) -> None:
    module = parse(Source("<d>.edge", f'trajectory t "q" {{\n  answer {text}\n}}\n'))
    lit = module.items[0].body[0].expr
    assert isinstance(lit, n.DateLit) and lit.shift is not None and lit.value == day


def test_a_date_shift_beyond_the_calendar_is_e010() -> None:
    with pytest.raises(CompileError) as err:
        parse(Source("<d>.edge", 'trajectory t "q" {\n  answer 9999-12-31 + 1 day\n}\n'))
    (d,) = err.value.diagnostics
    assert d.code == "E010" and d.message == "`9999-12-31 + 1 day` is not a calendar date"
    assert d.labels[0].message == "beyond the calendar"


@pytest.mark.parametrize(("steps", "code", "words"), [
    ('where n contains "1"', "E204", "a text, enum or code field"),
    ("where n before 2024-01-01", "E204", "a date field"),
    ("top 3 s", "E204", "a number or date field"),
    ("where l in [1]", "E204", "a scalar field"),
    ('where n in ["a"]', "E205", "list element"),
    ("where n in []", "E205", "an empty list keeps no row"),
    ("where s in \"a\"", "E205", "expected a list"),
    ("top 0 n", "E205", "whole number from 1 to 100"),
    ("bottom 101 n", "E205", "whole number from 1 to 100"),
    ("top 2.5 n", "E205", "whole number"),
    ("where s contains 3", "E205", "expected a text in quotes"),
    ("where d != 3", "E205", "expected a date"),
])
def test_misuse_is_reported(steps: str, code: str, words: str) -> None:
    with pytest.raises(CompileError) as err:
        check(Source("<t>.edge", _program(steps)))
    (d,) = [d for d in err.value.diagnostics if d.code == code]
    assert words in d.message and d.labels and d.labels[0].span is not None


@pytest.mark.parametrize(("answer", "code"), [
    ("count_distinct(rows)", "E215"),
    ("count_distinct(rows.l)", "E214"),
    ("count(rows.s)", "E215"),
])
def test_count_distinct_misuse(answer: str, code: str) -> None:
    with pytest.raises(CompileError) as err:
        check(Source("<t>.edge", _program("max n", answer)))
    assert [d.code for d in err.value.diagnostics] == [code]
    if answer == "count(rows.s)":
        assert any("count_distinct" in h for h in err.value.diagnostics[0].hints)


def test_synthesis_keeps_to_the_seven_reducers() -> None:
    assert SYNTH_OPS == ("max", "min", "ge", "le", "eq", "after", "most_frequent")
    pool = [INT, FLOAT, DATE, STR, EnumType(("A", "B")), ListType(INT)]
    assert {op for t in pool for op in reducer_ops(t)} <= set(SYNTH_OPS)
    for op in NEW:
        assert REDUCERS[op].synth is None
        with pytest.raises(ValueError, match="not one synthesis draws"):
            synth_words(op)
