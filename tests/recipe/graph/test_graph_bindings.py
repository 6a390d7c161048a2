"""Field bindings respect code types exactly; names rank them; defaults from enums."""

from __future__ import annotations

import pytest

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.bindings import (
    REJECT_CODE_MISMATCH,
    Binder,
    name_agreement,
    port_fit,
    propose,
)
from edgedsl.recipe.graph.model import Port, ToolNode
from edgedsl.recipe.graph.signature import tool_nodes

MODULES = ["assembly", "bus", "dart", "ex", "fsc", "law", "nec", "neis", "region", "seoul", "std"]


@pytest.fixture(scope="module")
def nodes() -> dict[str, ToolNode]:
    return {n.name: n for n in tool_nodes(load_catalog(MODULES))}


def P(name: str, type_: str, code: str | None = None, optional: bool = False) -> Port:
    return Port(name=name, type=type_, code=code, optional=optional)


def test_name_agreement() -> None:
    assert name_agreement("corp_code", "corp_code") == 1.0
    assert name_agreement("cityCode", "citycode") == 0.9
    assert name_agreement("corpNm", "corp_name") == 0.8
    assert name_agreement("basDt", "beginBasDt") < 0.5
    assert name_agreement("corp_name", "corp_code") < 0.5
    assert name_agreement("AGE", "routeNo") == 0.0


def test_port_fit_type_rule() -> None:
    corp = P("corp_code", "CorpCode", "codes.CorpCode")
    stock = P("stock_code", "StockCode", "codes.StockCode")
    assert port_fit(corp, corp) == "code"
    assert port_fit(stock, corp) is None  # nominal: another code never binds
    assert port_fit(P("corp_code", "str"), corp) is None  # a plain string is not a code
    assert port_fit(corp, P("corp_code", "str")) == "code_to_str"
    assert port_fit(corp, P("n", "int")) is None
    assert port_fit(P("n", "int"), P("n", "float")) == "widen"
    assert port_fit(P("n", "float"), P("n", "int")) is None
    assert port_fit(P("e", "enum[A, B]"), P("e", "enum[A, B, C]")) == "same"
    assert port_fit(P("e", "enum[A, D]"), P("e", "enum[A, B, C]")) is None
    assert port_fit(P("l", "[CorpCode]", "codes.CorpCode"), corp) is None


def test_every_binding_in_the_catalog_respects_code_types(nodes: dict[str, ToolNode]) -> None:
    binder = Binder()
    seen = 0
    for s in nodes.values():
        for t in nodes.values():
            if s is t:
                continue
            plan = binder.propose(s, t)
            if s.domain == "dart":  # the cache gives what a fresh call gives
                assert plan == propose(s, t)
            fields = {f.name: f for f in s.fields}
            params = {p.name: p for p in t.params}
            assert len({b.param for b in plan.bindings}) == len(plan.bindings)
            assert len({b.field for b in plan.bindings}) == len(plan.bindings)
            for b in plan.bindings:
                f, p = fields[b.field], params[b.param]
                seen += 1
                if p.code is not None:
                    assert f.code == p.code, (s.name, t.name, b)
                if f.code is not None and p.code is None:
                    assert p.type == "str" and name_agreement(f.name, p.name) >= 0.5
    assert seen > 500


def test_stock_codes_never_feed_a_corp_code(nodes: dict[str, ToolNode]) -> None:
    for s in (n for n in nodes.values() if n.name.startswith("fsc.")):
        for t in (n for n in nodes.values() if n.name.startswith("dart.")):
            for b in propose(s, t).bindings:
                f = next(f for f in s.fields if f.name == b.field)
                p = next(p for p in t.params if p.name == b.param)
                assert not (p.code == "codes.CorpCode" and f.code != "codes.CorpCode")
    plan = propose(nodes["fsc.stock_prices"], nodes["dart.company"])
    assert not plan.ok and plan.reason == REJECT_CODE_MISMATCH


def test_corp_code_chain(nodes: dict[str, ToolNode]) -> None:
    plan = propose(nodes["dart.company"], nodes["dart.disclosures"])
    assert [(b.field, b.param) for b in plan.bindings] == [("corp_code", "corp_code")]
    plan = propose(nodes["dart.corp_codes"], nodes["dart.single_accounts"])
    assert [(b.field, b.param) for b in plan.bindings] == [("corp_code", "corp_code")]
    assert plan.defaults == {"reprt_code": ["11011", "11012", "11013", "11014"]}
    assert plan.missing == ("bsns_year",)
    # a CorpCode field into the plain `corp_code: str` of the multi-company endpoint
    plan = propose(nodes["dart.corp_codes"], nodes["dart.multi_accounts"])
    assert [(b.field, b.param) for b in plan.bindings] == [("corp_code", "corp_code")]
    assert "into str" in plan.bindings[0].why
    # across platforms through a shared code type: DART jurir_no → FSC crno
    plan = propose(nodes["dart.company"], nodes["fsc.corp_outline"])
    assert [(b.field, b.param) for b in plan.bindings] == [("jurir_no", "crno")]


def test_required_first_one_to_one_and_optional_rule() -> None:
    src = ToolNode(name="p.src", domain="p", fields=[
        P("code", "K", "p.K"), P("name", "str"), P("day", "date"), P("kind", "enum[A, B]")])
    dst = ToolNode(name="p.dst", domain="p", params=[
        P("other_code", "K", "p.K", optional=True), P("code", "K", "p.K"),
        P("name", "str", optional=True), P("mode", "enum[X, Y]")],
        defaults={"mode": ["X", "Y"]})
    plan = propose(src, dst)
    # the one K field goes to the required parameter; the optional plain `name` is not bound
    assert [(b.field, b.param) for b in plan.bindings] == [("code", "code")]
    assert plan.defaults == {"mode": ["X", "Y"]} and plan.missing == ()
    only_optional = ToolNode(name="p.opt", domain="p", params=[P("name", "str", optional=True)])
    plan = propose(src, only_optional)
    assert [(b.field, b.param) for b in plan.bindings] == [("name", "name")]
    nothing = ToolNode(name="p.none", domain="p", params=[P("q", "str", optional=True)])
    assert propose(src, nothing).reason == "names_disagree"
    assert propose(src, ToolNode(name="p.z", domain="p")).reason == "target_takes_no_parameters"


def test_unbound_splits_open_required_parameters_by_defaults() -> None:
    """What a binding plan and the heuristic scorer both read: the required parameters left
    open, filled from observed defaults (a fresh list each) or missing, in declaration order."""
    dst = ToolNode(name="p.dst", domain="p", params=[
        P("z", "str"), P("a", "str"), P("opt", "str", optional=True), P("mode", "enum[X, Y]"),
        P("k", "K", "p.K")], defaults={"mode": ["X", "Y"], "opt": ["o"], "a": []})
    defaults, missing = dst.unbound({"k"})
    assert defaults == {"mode": ["X", "Y"]} and missing == ["z", "a"]
    defaults["mode"].append("W")
    assert dst.defaults["mode"] == ["X", "Y"]
    assert dst.unbound({"z", "a", "mode", "k"}) == ({}, [])
