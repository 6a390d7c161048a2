"""A list argument holding references (``ids: [seq a.f, "x", seq b.g]``), stage by stage:
parse and print, the checker's verdicts, the plan, the executor against the reference
interpreter, the trace, the plan drawing and a hand-edited plan."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from edgedsl import api
from edgedsl.core.diagnostics import CompileError
from edgedsl.plan.draw import to_dot
from edgedsl.plan.model import load_plan, plan_to_json
from edgedsl.runtime import PythonBackend
from edgedsl.syntax import nodes as n
from edgedsl.syntax.printer import format_module
from edgedsl.testing import check_trajectory

CATALOG = """
platform shop {
  record Order { order_id: str, item_a: str, item_b: str, total: int }
  record Variant { item_id: str, price: int }
  record Done { n: int, first: str, last: str }
  tool order(order_id: str) -> Order
  tool variants(product: str) -> [Variant]
  tool exchange(order_id: str, item_ids: [str], note: json?) -> Done
  tool one(item_id: str) -> Done
}
"""

SWAP = CATALOG + """
trajectory swap "주문한 두 품목을 교환해 주세요" {
  o = shop.order(order_id: "#W1")
  v = shop.variants(product: "kbd")
  cheap = drv v | min price
  d = shop.exchange(order_id: seq o.order_id,
                    item_ids: [seq o.item_a, "X9", seq cheap.item_id, seq o.item_b])
  answer { n: d.n, first: d.first, last: d.last }
}
"""


def _order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "item_a": "A1", "item_b": "B2", "total": 3}


def _variants(product: str) -> list[dict[str, Any]]:
    return [{"item_id": "V1", "price": 30}, {"item_id": "V2", "price": 10},
            {"item_id": "V3", "price": 20}]


GOT: list[Any] = []


def _exchange(order_id: str, item_ids: list[str], note: Any = None) -> dict[str, Any]:
    GOT.append(item_ids)
    return {"n": len(item_ids), "first": item_ids[0], "last": item_ids[-1]}


TOOLS = {"shop.order": _order, "shop.variants": _variants, "shop.exchange": _exchange,
         "shop.one": lambda item_id: {"n": 1, "first": item_id, "last": item_id}}


def test_the_list_parses_prints_and_parses_back() -> None:
    module = api.parse(SWAP)
    traj = module.items[-1]
    assert isinstance(traj, n.Trajectory)
    binding = traj.body[3]
    assert isinstance(binding, n.Binding) and isinstance(binding.node, n.Call)
    value = binding.node.args[1].value
    assert isinstance(value, n.ListArg)
    assert [type(i).__name__ for i in value.items] == ["SeqArg", "StringLit", "SeqArg",
                                                       "SeqArg"]
    assert [j for j, _ in value.refs] == [0, 2, 3]
    text = format_module(module)
    assert "item_ids: [seq o.item_a, \"X9\", seq cheap.item_id, seq o.item_b]" in text
    assert api.parse(text) == api.parse(text)  # the printed text parses (and is stable)
    assert format_module(api.parse(text)) == text


def test_the_call_is_given_the_values_in_written_order() -> None:
    GOT.clear()
    answers = check_trajectory(SWAP, TOOLS, require_determined=True)
    assert answers == {"swap": {"n": 4, "first": "A1", "last": "B2"}}
    assert GOT and all(got == ["A1", "X9", "V2", "B2"] for got in GOT)  # executor, reference


def test_the_plan_and_the_trace_keep_one_junction_per_reference() -> None:
    plan = api.compile(SWAP)
    (traj,) = plan.trajectories
    req = traj.steps["d"].request  # type: ignore[union-attr]
    assert list(req.lists) == ["item_ids"]
    assert [(it.literal, it.junction and it.junction.source) for it in req.lists["item_ids"]] \
        == [(None, "o"), ("X9", None), (None, "cheap"), (None, "o")]
    assert [(p, j.field) for p, j in req.all_junctions] == [
        ("order_id", "order_id"), ("item_ids", "item_a"), ("item_ids", "item_id"),
        ("item_ids", "item_b")]
    assert set(traj.steps["d"].deps) >= {"o", "cheap"}
    assert load_plan(plan_to_json(plan)) == plan  # the plan reads back
    (res,) = api.run(plan, PythonBackend(TOOLS))
    assert res.ok, res.diagnostics
    step = next(s for s in res.trace.steps if s.id == "d")
    assert [(j.param, j.kind, j.cardinality) for j in step.junctions] == [
        ("order_id", "seq", 1), ("item_ids", "seq", 1), ("item_ids", "seq", 1),
        ("item_ids", "seq", 1)]
    dot = to_dot(plan, "swap")
    assert "seq item_id" in dot and "seq item_a" in dot


def test_a_reference_with_several_values_fails_as_a_seq_does() -> None:
    text = SWAP.replace("seq cheap.item_id", "seq v.item_id")
    result = check_trajectory(text, TOOLS)  # executor and reference agree on the failure
    assert getattr(result["swap"], "code", None) == "R502"


def _errors(text: str) -> list[tuple[str, str]]:
    with pytest.raises(CompileError) as e:
        api.check(text)
    return [(d.code, d.message) for d in e.value.diagnostics if d.severity == "error"]


def test_the_checker_types_each_item() -> None:
    # an item of the wrong type, a reference to a name not bound, a list for a parameter
    # that takes one value
    bad = SWAP.replace('"X9"', "7").replace("seq o.item_b", "seq nope.item_b").replace(
        'order_id: seq o.order_id,', 'order_id: [seq o.order_id],')
    assert _errors(bad) == [("E201", "expected str, found a list"),
                            ("E201", "expected str, found a number"),
                            ("E113", "unknown name `nope`")]
    with pytest.raises(CompileError) as e:
        api.check(bad)
    labels = [lab.message for d in e.value.diagnostics for lab in d.labels]
    assert "`item_ids[1]` of `shop.exchange` takes a str" in labels  # the item is named


def test_a_json_parameter_takes_a_list_of_references() -> None:
    text = SWAP.replace("item_ids: [seq", 'note: [seq o.total, "x"], item_ids: [seq')
    answers = check_trajectory(text, TOOLS)
    assert answers["swap"]["n"] == 4


@pytest.mark.parametrize("where", [
    'p = parallel(ids: [seq o.item_a]) { b = shop.one(item_id: "x") }',
    'c = shop.one(item_id: "x")\n  answer [seq o.item_a]',
    'c = compare shop.one() over item_id in [seq o.item_a]',
    'c = shop.exchange(order_id: "x", item_ids: [[seq o.item_a]])',
    'c = shop.exchange(order_id: "x", item_ids: [], note: {"k": [seq o.item_a]})',
])
def test_a_list_of_references_elsewhere_is_e016(where: str) -> None:
    text = CATALOG + f"""
trajectory t "q" {{
  o = shop.order(order_id: "#W1")
  {where}
  answer 1
}}
"""
    with pytest.raises(CompileError) as e:
        api.parse(text)
    assert [d.code for d in e.value.diagnostics] == ["E016"]
    (d,) = e.value.diagnostics
    assert d.span is not None and text[d.span.start] == "["


def test_a_hand_edited_plan_with_a_fan_item_is_refused() -> None:
    raw = orjson.loads(plan_to_json(api.compile(SWAP)))
    item = raw["trajectories"][0]["steps"]["d"]["request"]["lists"]["item_ids"][0]
    assert item["junction"]["kind"] == "seq"
    item["junction"]["kind"] = "fan"
    with pytest.raises(CompileError, match="gives `item_ids` a list item that is a `fan`"):
        load_plan(orjson.dumps(raw))
