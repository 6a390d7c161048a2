"""The public property-testing API (edgedsl.testing): strategies and checks behave as documented."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.core.sqlquote import ident_key
from edgedsl.core.types import DATE, INT, STR, CodeType, EnumType, FieldSpec, RecordType
from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import REDUCERS, ReduceStep, check_step
from edgedsl.testing import (
    check_reducer_chain,
    field_type_maps,
    hostile_names,
    records,
    reduce_steps,
    reference_reduce,
    relations,
    values,
)
from tests.profiles import CI_EXAMPLES

CODE = CodeType("codes.StockCode", r"^[0-9]{6}$")
REC = RecordType("Trade", (FieldSpec("amt", INT), FieldSpec("dt", DATE, optional=True)))


@given(field_type_maps(max_fields=6))
def test_field_type_maps_are_duckdb_distinct(types: dict[str, Any]) -> None:
    keys = [ident_key(n) for n in types]
    assert len(keys) == len(set(keys))
    assert not {"__row", "__arm", "__raw"} & set(keys)


@given(hostile_names())
def test_hostile_names_are_legal_identifiers(name: str) -> None:
    assert name and "\x00" not in name


@settings(max_examples=max(10, settings().max_examples // 4))
@given(st.data())
def test_reduce_steps_respect_type_rules(data: st.DataObject) -> None:
    types = data.draw(field_type_maps())
    rows = data.draw(relations(types, max_size=5))
    for step in data.draw(reduce_steps(types, rows)):
        check_step(step, types)  # raises on an ill-typed step


@given(records(REC))
def test_records_follow_the_record_type(rec: dict[str, Any]) -> None:
    assert "amt" in rec and set(rec) <= {"amt", "dt"}


def test_values_cover_the_quirks() -> None:
    seen: list[Any] = []

    @settings(max_examples=CI_EXAMPLES)  # a probe of the strategy: the same sample in every tier
    @given(values(INT))
    def collect(v: Any) -> None:
        seen.append(v)

    collect()
    texts = [v for v in seen if isinstance(v, str)]
    assert any("," in t for t in texts), "thousands separators"
    assert any(coerce(INT, t) is None for t in texts), "junk that does not coerce"
    assert any(coerce(INT, t) is not None for t in texts), "text that coerces"
    assert None in seen


@given(values(CODE), values(EnumType(("A", "B"))))
def test_code_and_enum_values(code: Any, member: Any) -> None:
    if isinstance(code, str):
        assert CODE.matches(code)
    assert member is None or isinstance(member, str)


def test_reference_reduce_maps_indexes_through_the_chain() -> None:
    rows = [{"a": 1, "s": "x"}, {"a": 3, "s": "y"}, {"a": 3, "s": "x"}, {"a": 2, "s": "x"}]
    types = {"a": INT, "s": STR}
    chain = [ReduceStep("eq", "s", "x"), ReduceStep("max", "a")]
    assert reference_reduce(rows, chain, types) == [2]
    assert check_reducer_chain(rows, chain, types) == [2]


def test_check_reducer_chain_reports_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    red = REDUCERS["min"]
    monkeypatch.setitem(
        REDUCERS,
        "min",
        dataclasses.replace(red, filter=REDUCERS["max"].filter),
    )
    with pytest.raises(AssertionError) as err:
        check_reducer_chain([{"a": "1,000"}, {"a": 5}], [ReduceStep("min", "a")], {"a": INT})
    msg = str(err.value)
    assert "reference kept: [1]" in msg and "duckdb kept:    [0]" in msg
    assert "a='1,000'→1000" in msg
