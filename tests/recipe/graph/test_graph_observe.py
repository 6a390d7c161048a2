"""Observed values: typed by the catalog, keyed by code type or name, order-independent."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from edgedsl.core.catalog import Tool
from edgedsl.core.types import FieldSpec, RecordType, ScalarType
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


def test_years_and_dates_stay_in_the_live_window() -> None:
    """Issue 18 §2: a founding date seen in a response (est_dt 1945) must not become a
    ``bsns_year`` default; DART answers periodic reports from 2015 only, so every edge into
    them failed. Years and dates are kept to the last LIVE_YEARS years of the observed dates."""
    from edgedsl.recipe.graph.observe import LIVE_YEARS

    pool = ValuePool()
    for day in ("1945-03-01", "1918-06-30", "2019-05-15", "2023-11-16", "2025-10-30",
                "2024-01-02", "2022-08-18", "2021-04-01", "2020-02-03", "2026-01-07"):
        pool.add("name:est_dt:date", day)
        pool.add("date:any", day)
        pool.add("year:int", int(day[:4]))
    lo, hi = pool.live_window()  # type: ignore[misc]
    assert hi - lo + 1 == LIVE_YEARS and lo <= 2019 and hi >= 2026
    year = Port(name="bsns_year", type="int")
    years = pool.for_param(year, CAT.code_types)
    assert years and all(lo <= y <= hi for y in years)  # type: ignore[operator]
    assert 1945 not in years and 1918 not in years
    begin = pool.for_param(Port(name="bgn_de", type="date"), CAT.code_types)
    assert begin and all(str(d) >= "2015" for d in begin)
    # a G* written before the window holds founding years in its nodes: they are dropped,
    # and the years of the observed dates take their place
    node = ToolNode(name="dart.single_accounts", domain="dart",
                    params=[Port(name="bsns_year", type="int")],
                    defaults={"bsns_year": [1945, 1918, 2008, 2023]})
    got = node_defaults(node, pool, CAT.code_types)["bsns_year"]
    assert got[0] == 2023 and not {1945, 1918, 2008} & set(got)
    # a one-off far-future date (an end of validity) does not move the window
    pool.add("date:any", "9999-12-31")
    assert pool.live_window()[1] <= hi + 1  # type: ignore[index]


def test_shipped_gstar_gives_dart_periodic_reports_valid_years() -> None:
    """On the shipped G*, the defaults of DART's periodic-report tools run: their probed
    argument tuples return records. (They are no roots of synthesis: each states a 고유번호,
    which a question cannot — ``roots.internal_args``; chains reach them by edges.)"""
    import asyncio

    from edgedsl.check import load_catalog
    from edgedsl.recipe.graph.evidence import default_graph_path
    from edgedsl.recipe.graph.model import load_graph
    from edgedsl.recipe.synth.engine import Engine
    from edgedsl.runtime.http import make_world_backend

    graph = load_graph(default_graph_path())
    eng = Engine(graph, load_catalog(graph.catalog.modules, []), make_world_backend(seed=1))
    years = eng.args.defaults("dart.single_accounts")["bsns_year"]
    assert years and all(2015 <= y <= 2026 for y in years)  # type: ignore[operator]

    from edgedsl.recipe.synth.roots import internal_args, probe

    for tool in ("dart.single_accounts", "dart.dividends"):
        probed = asyncio.run(probe(eng, tool))
        assert probed and all(p.rows > 0 for p in probed)
        assert all(2015 <= int(dict(p.args)["bsns_year"]) <= 2026 for p in probed)
        assert all(internal_args(eng, tool, p.args) for p in probed)
        assert asyncio.run(eng.root(tool, random.Random(0))) is None


def _stops_tool() -> Tool:

    rec = RecordType("Stop", (FieldSpec("nodenm", ScalarType("str"), label="정류소명"),
                              FieldSpec("routeno", ScalarType("str"), label="노선번호"),
                              FieldSpec("code", CAT.code_types["tg.Code"], label="항목 코드")))
    return Tool("tago", "stops", record=rec)


def test_a_free_text_parameter_takes_values_observed_under_its_catalog_label() -> None:
    # Seoul bus's station search (stSrch "정류소명") takes TAGO's stop names (nodenm
    # "정류소명"); its route search (strSrch "노선 번호") TAGO's route numbers ("노선번호"):
    # the label without spaces is the key, the parameter's own name plays no part
    pool = ValuePool()
    pool.observe(_stops_tool(), [{"nodenm": "시청앞", "routeno": "102", "code": "A001"}])
    station = Port(name="stSrch", type="str", label="정류소명")
    route = Port(name="strSrch", type="str", label="노선 번호")
    assert "label:정류소명:str" in keys_for_param(station)
    assert pool.for_param(station, CAT.code_types) == ["시청앞"]
    assert pool.for_param(route, CAT.code_types) == ["102"]
    # a code field's label holds its values as text, for a plain parameter of that label
    assert pool.for_param(Port(name="codes", type="str", label="항목코드"), CAT.code_types) == [
        "A001"]
    # without a label, or with another label or kind, nothing is taken
    assert pool.for_param(Port(name="stSrch", type="str"), CAT.code_types) == []
    assert pool.for_param(Port(name="q", type="str", label="검색어"), CAT.code_types) == []
    assert pool.for_param(Port(name="n", type="int", label="노선번호"), CAT.code_types) == []


def test_catalog_labels_reach_the_graph_nodes() -> None:
    from edgedsl.check import load_catalog
    from edgedsl.recipe.graph.signature import tool_node

    bus = load_catalog(["bus"]).platforms["seoulbus"].tools["stations"]
    node = tool_node(bus, "bus")
    assert {p.name: p.label for p in node.params}["stSrch"] == "정류소명"


def test_observing_reads_records_spread_over_a_response_not_its_head() -> None:
    """A response in code order (법정동코드, 학교) starts with 서울: the pool looks at records
    evenly spaced over it, so a long list feeds values from its whole length."""
    import asyncio
    from types import SimpleNamespace

    from edgedsl.plan.model import ToolSpec
    from edgedsl.recipe.graph.observe import RECORDS_PER_RESPONSE, ObservingBackend
    from edgedsl.runtime.backends import Response

    rows = [{**ITEMS[0], "code": f"A{i:03d}"} for i in range(1, 1001)]

    class Inner:
        name = "fixed"

        async def call(self, tool: ToolSpec, args: dict[str, object], *,
                       page: int | None) -> Response:
            return Response(rows)

    pool = ValuePool(cap=1000)
    spec = SimpleNamespace(qualname="tg.items")  # all the observer reads of a tool spec
    asyncio.run(ObservingBackend(Inner(), pool, CAT).call(spec, {}, page=None))  # type: ignore[arg-type]
    seen = sorted(pool.values("code:tg.Code"))
    assert len(seen) == RECORDS_PER_RESPONSE
    assert seen[0] == "A001" and seen[-1] >= "A950"  # the first record, and the last stretch


def test_a_response_spreads_its_records_evenly() -> None:
    from edgedsl.runtime.backends import Response

    resp = Response([{"i": i} for i in range(10)])
    assert [r["i"] for r in resp.spread(4)] == [0, 2, 5, 7]
    assert [r["i"] for r in resp.spread(20)] == list(range(10))
    assert [r["i"] for r in resp.head(3)] == [0, 1, 2]
