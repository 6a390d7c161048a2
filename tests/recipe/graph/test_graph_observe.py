"""Observed values: typed by the catalog, keyed by code type or name, order-independent."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.graph.model import Port, ToolNode
from edgedsl.recipe.graph.observe import ValuePool, keys_for_param, node_defaults, value_ok
from tests.recipe.graph.graph_tools import ITEMS, catalog

CAT = catalog()
ITEMS_TOOL = CAT.platforms["tg"].tools["items"]


def test_values_are_typed_and_keyed() -> None:
    pool = ValuePool()
    pool.observe(ITEMS_TOOL, ITEMS)
    assert sorted(pool.values("code:tg.Code")) == [f"A{i:03d}" for i in range(1, 7)]
    assert set(pool.values("name:size:int")) == {1000 * i for i in range(1, 7)}  # "1,000" → 1000
    assert "2024-01-11" in pool.values("name:day:date") or pool.values("name:day:date")
    assert pool.values("year:int") == [2024]  # the years of observed dates


def test_a_year_parameter_takes_observed_years() -> None:
    pool = ValuePool()
    pool.observe(ITEMS_TOOL, ITEMS)
    year = Port(name="bsns_year", type="int")
    assert "year:int" in keys_for_param(year)
    assert pool.for_param(year, CAT.code_types) == [2024]
    assert pool.for_param(Port(name="count", type="int"), CAT.code_types) == []


def test_code_parameters_take_only_their_code_type() -> None:
    pool = ValuePool()
    pool.observe(ITEMS_TOOL, ITEMS)
    assert pool.for_param(Port(name="x", type="tg.Code", code="tg.Code"), CAT.code_types)
    assert pool.for_param(Port(name="code", type="str"), CAT.code_types) == []


def test_value_ok_checks_what_the_checker_checks() -> None:
    codes = CAT.code_types
    code = Port(name="c", type="tg.Code", code="tg.Code")
    assert value_ok(code, "A001", codes) and not value_ok(code, "a1", codes)
    assert value_ok(Port(name="k", type="enum[A, B]"), "B", codes)
    assert not value_ok(Port(name="k", type="enum[A, B]"), "C", codes)
    assert value_ok(Port(name="d", type="date"), "2024-01-02", codes)
    assert not value_ok(Port(name="d", type="date"), "2024-13-01", codes)
    assert not value_ok(Port(name="n", type="int"), True, codes)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=200), st.randoms())
def test_pool_does_not_depend_on_arrival_order(values: list[int], rnd: random.Random) -> None:
    a, b = ValuePool(cap=8), ValuePool(cap=8)
    for v in values:
        a.add("k", v)
    shuffled = list(values)
    rnd.shuffle(shuffled)
    for v in shuffled:
        b.add("k", v)
    assert a.values("k") == b.values("k")
    assert len(a.values("k")) == min(8, len(set(values)))
    assert ValuePool.from_json(a.to_json(), cap=8).values("k") == a.values("k")


def test_node_defaults_put_enums_first_and_skip_unfillable() -> None:
    pool = ValuePool()
    pool.observe(ITEMS_TOOL, ITEMS)
    node = ToolNode(name="tg.kinds", domain="tg",
                    params=[Port(name="kind", type="enum[A, B]"),
                            Port(name="owner", type="str"),
                            Port(name="note", type="str", optional=True)],
                    defaults={"kind": ["A", "B", "Z"]})
    d = node_defaults(node, pool, CAT.code_types)
    assert d == {"kind": ["A", "B"]}  # Z is no member; nothing observed for owner


def test_date_shaped_parameters_fall_back_to_observed_dates() -> None:
    from edgedsl.core.types import CodeType

    pool = ValuePool()
    pool.observe(ITEMS_TOOL, ITEMS)
    # a date parameter nothing of its name was observed for: any observed date
    begin = pool.for_param(Port(name="bgn_de", type="date"), CAT.code_types)
    assert begin and set(begin) <= set(pool.values("date:any"))
    # a month code (YYYYMM) derived from observed dates; a code no date fits gets nothing
    codes = {**CAT.code_types, "m.YearMonth": CodeType("m.YearMonth", r"^[0-9]{6}$")}
    months = pool.for_param(Port(name="DEAL_YMD", type="m.YearMonth", code="m.YearMonth"), codes)
    assert months and all(len(str(m)) == 6 for m in months)
    assert {str(m)[:4] for m in months} == {"2024"}
    assert pool.for_param(Port(name="c", type="tg.Code", code="tg.Code"), CAT.code_types)
    assert pool.for_param(Port(name="x", type="m.YearMonth", code="m.YearMonth"),
                          {"m.YearMonth": CodeType("m.YearMonth", r"^Z[0-9]{6}$")}) == []
