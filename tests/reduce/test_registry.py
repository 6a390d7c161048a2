"""Every reducer of the registry, end to end: parse, check, plan, run on both runtime paths
(a source held in memory, reduced in the window form; a stored table, in the table form),
agreement with the pure-Python reference, and the format round trip. Adding a reducer is one
registry entry; this file then checks it with no edit."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedsl.api import check, format, parse
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source
from edgedsl.core.types import BOOL, DATE, FLOAT, INT, STR, FieldSpec, FieldType, RecordType
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import DrvStep
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.registry import BY_SURFACE, REDUCERS, Reducer, ReduceStep
from edgedsl.testing import check_reducer_chain, check_trajectory, records
from tests.profiles import examples

FIELDS: dict[str, FieldType] = {"n": INT, "x": FLOAT, "d": DATE, "s": STR, "b": BOOL}
ROW = RecordType("Row", tuple(FieldSpec(f, t) for f, t in FIELDS.items()))
DECL = {INT: "int", FLOAT: "float", DATE: "date", STR: "str", BOOL: "bool"}
PIVOT_TEXT = {INT: "3", FLOAT: "2.5", DATE: "2024-06-01", STR: '"a"', BOOL: "true"}
PIVOT_VALUE: dict[FieldType, object] = {INT: 3, FLOAT: 2.5, DATE: "2024-06-01", STR: "a",
                                        BOOL: True}


def _cases() -> list[tuple[Reducer, str]]:
    """Every reducer with every field of the test record it accepts."""
    return [(r, f) for r in REDUCERS.values() for f, t in FIELDS.items() if r.accepts(t)]


def _pivot_text(red: Reducer, ftype: FieldType) -> str | None:
    """A pivot of the reducer's kind for a field of ``ftype``, as source text."""
    if red.pivot == "none":
        return None
    if red.pivot == "count":
        return "2"
    if red.pivot == "text":
        return '"a"'
    if red.pivot == "list":
        return f"[{PIVOT_TEXT[ftype]}]"
    return PIVOT_TEXT[ftype]


def _pivot_value(red: Reducer, ftype: FieldType) -> object:
    """The value :func:`_pivot_text` reads as."""
    if red.pivot == "none":
        return None
    if red.pivot == "count":
        return 2
    if red.pivot == "text":
        return "a"
    if red.pivot == "list":
        return [PIVOT_VALUE[ftype]]
    return PIVOT_VALUE[ftype]


def _step_text(red: Reducer, field: str, pivot_type: FieldType | None = None) -> str:
    return red.spell(field, _pivot_text(red, pivot_type or FIELDS[field]))


def _source(red: Reducer, field: str, pivot_type: FieldType | None = None) -> str:
    decls = "\n".join(f"    {f}: {DECL[t]}" for f, t in FIELDS.items())
    return (f"platform reg {{\n  record Row {{\n{decls}\n  }}\n\n  tool rows (q: str) -> [Row]\n}}"
            f'\n\ntrajectory t "reduce" {{\n  rows = reg.rows(q: "1")\n'
            f"  kept = drv rows | {_step_text(red, field, pivot_type)}\n"
            f"  answer {{\n    n: count(kept),\n    v: kept.{field},\n  }}\n}}\n")


def _id(case: tuple[Reducer, str]) -> str:
    return f"{case[0].op}-{case[1]}"


def test_the_registry_is_the_only_table() -> None:
    """Every op and every spelling is declared once; surfaces map back to their reducer."""
    assert len(BY_SURFACE) == len(REDUCERS)
    assert all(BY_SURFACE[r.surface] is r for r in REDUCERS.values())
    assert all(r.compare is not None for r in REDUCERS.values() if r.form == "where")
    assert {op for r in REDUCERS.values() for op in (r.op,)} == set(REDUCERS)


@pytest.mark.parametrize("case", _cases(), ids=_id)
def test_parse_check_plan_and_format(case: tuple[Reducer, str]) -> None:
    """The surface parses to the reducer's op, checks, plans to the filter it builds, and
    formats back to the same text."""
    red, field = case
    text = _source(red, field)
    module = parse(Source("<reg>.edge", text))
    assert format(module) == text  # the canonical layout, round trip included
    assert parse(Source("<again>.edge", format(module))) == module
    plan = compile_program(check(Source("<reg>.edge", text)).program)
    step = plan.trajectory("t").steps["kept"]
    assert isinstance(step, DrvStep) and step.reducers[0]["op"] == red.op
    query = ReduceQuery.from_json(step.query)
    pivot = _pivot_value(red, FIELDS[field])
    assert query.filters == (red.filter(field, pivot, FIELDS[field]),)


@pytest.mark.parametrize("red", list(REDUCERS.values()), ids=lambda r: r.op)
def test_a_field_it_does_not_accept_is_e204_with_its_rule(red: Reducer) -> None:
    refused = [f for f, t in FIELDS.items() if not red.accepts(t)]
    for field in refused:
        pivot = INT if red.pivot == "number" else DATE if red.pivot == "date" \
            else STR if red.pivot == "text" else None
        text = _source(red, field, pivot)
        with pytest.raises(CompileError) as err:
            check(Source("<reg>.edge", text))
        (d,) = [d for d in err.value.diagnostics if d.code == "E204"]
        assert d.message == f"reducer `{red.surface}` needs {red.needs}"


@pytest.mark.parametrize("case", _cases(), ids=_id)
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(rows=st.lists(records(ROW), max_size=12))
def test_runs_agree_with_the_reference(case: tuple[Reducer, str],
                                       rows: list[dict[str, Any]]) -> None:
    """The executor (a source in memory, reduced inline) against the reference interpreter,
    and the reduction alone on every runtime path — stored tables from both shredding paths in
    both forms, inline reads of bound and packed columns — against the reference reducer."""
    red, field = case
    check_trajectory(_source(red, field), {"reg.rows": lambda **kw: rows})
    pivot = _pivot_value(red, FIELDS[field])
    check_reducer_chain(rows, [ReduceStep(red.op, field, pivot)], FIELDS)


RAW = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                st.floats(allow_nan=True, allow_infinity=False),
                st.sampled_from(["", " 12 ", "1,234", "3.5", "2024-06-01", "20240601", "true",
                                 "N", "abc", "2024.06.01", "-7", "1e3"]),
                st.text(max_size=6), st.lists(st.integers(0, 3), max_size=2))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(RAW, max_size=12), ftype=st.sampled_from([*FIELDS.values()]))
def test_a_coerced_column_is_each_value_coerced(values: list[Any], ftype: FieldType) -> None:
    # coerced_column looks the coercer up once and coerces each distinct text once
    from edgedsl.reduce.coerce import coerce
    from edgedsl.reduce.registry import coerced_column

    rows = [{"f": v} for v in values] + [{"f": v} for v in values]  # texts repeat
    got = coerced_column(rows, "f", ftype)
    want = [coerce(ftype, r["f"]) for r in rows]
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b) and (a == b or (a != a and b != b))
