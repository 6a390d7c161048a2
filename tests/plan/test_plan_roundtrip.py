"""The planner builds its plan models (plain frozen dataclasses) directly, without validating
them; a plan read from JSON is validated (``load_plan``). Check that what the planner builds is
exactly what validation makes of its own JSON: for every example (and a few programs using every
kind of step), ``load_plan(plan_to_json(plan)) == plan``, down to the type of every model and
leaf value and the order of every dict, and the JSON reads back to the same bytes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import edgedsl
from edgedsl.plan.model import Plan, load_plan, plan_to_json, to_data, validated

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(
    p
    for p in [*ROOT.glob("examples/*.edge"), *ROOT.glob("examples/nestful/*.edge")]
    if "trajectory " in p.read_text(encoding="utf-8")
)

_CATALOG = """\
platform p "a platform" {
  base "https://example.org"
  secret key
  type Code = code /^[0-9]{3}$/ "a code"
  record R { code: Code  f: int  d: date  s: str  e: enum[A, B]? }
  tool t "list" (x: int?, day: date?, s: str?) -> [R]
  tool u "paged" GET "/u" (code: Code, n: int?) -> [R] at "items" paged (
    page: page_no, size: page_count <= 50, total: total,
  )
}
"""

PROGRAMS = {
    "every_step": _CATALOG + """
trajectory every "모든 단계" {
  a = p.t(x: 1, day: 2024-01-02, s: "s")
  b = p.u(code: fan(2) a.code) pages 2
  c = drv b | where f >= 3 | where d after 2024-01-01 | most_frequent s
  g = parallel (n: 5, code: seq c.code) {
    one = p.u(code: code, n: n)
    two = p.t(x: -7)
  }
  k = compare p.t(s: "z") over x in [1, 2, 3]
  if exists(c) and not (count(a) > 2 or sum(a.f) == 3.5) {
    h = p.t(x: 1)
  } else {
    h = p.t(x: 2)
  }
  answer { n: count(h), f: round(c.f * 100 / 3, 2), m: -max(g.one.f), code: c.code }
  say "{{ n }}"
}
""",
    "expr_answer": _CATALOG + """
trajectory short "한 값" {
  a = p.t()
  answer a.f
}
""",
    "no_answer": _CATALOG + 'trajectory bare "q" {\n  a = p.t(x: 18446744073709551616)\n}\n',
}


def _same(built: Any, loaded: Any, where: str) -> None:
    """``built`` and ``loaded`` are the same, types and dict order included."""
    assert type(built) is type(loaded), where
    if dataclasses.is_dataclass(built):
        for f in dataclasses.fields(built):
            _same(getattr(built, f.name), getattr(loaded, f.name), f"{where}.{f.name}")
    elif isinstance(built, dict):
        assert list(built) == list(loaded), where
        for k, v in built.items():
            _same(v, loaded[k], f"{where}[{k!r}]")
    elif isinstance(built, list | tuple):
        assert len(built) == len(loaded), where
        for i, (a, b) in enumerate(zip(built, loaded, strict=True)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert built == loaded or (built != built and loaded != loaded), where


def _check(plan: Plan) -> None:
    text = plan_to_json(plan)
    loaded = load_plan(text)
    assert loaded == plan
    _same(plan, loaded, "plan")
    assert plan_to_json(loaded) == text
    assert validated(Plan, to_data(plan)) == plan


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_compiled_example_equals_its_validated_round_trip(path: Path) -> None:
    _check(edgedsl.compile(path))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiled_program_equals_its_validated_round_trip(name: str) -> None:
    _check(edgedsl.compile(PROGRAMS[name], name=f"{name}.edge"))


def test_plan_models_are_frozen() -> None:
    """A plan is a value: its models cannot be changed in place (``dataclasses.replace``)."""
    plan = edgedsl.compile(PROGRAMS["expr_answer"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.trajectories[0].name = "other"  # type: ignore[misc]
    renamed = dataclasses.replace(plan.trajectories[0], name="other")
    assert renamed.name == "other" and plan.trajectories[0].name == "short"


def test_compiled_plans_share_no_containers() -> None:
    """Every plan has its own lists, dicts and models (tool specs come from a memoised input)."""
    text = PROGRAMS["every_step"]
    one, two = edgedsl.compile(text), edgedsl.compile(text)
    assert one == two
    spec_one, spec_two = one.tools["p.u"], two.tools["p.u"]
    assert spec_one is not spec_two
    assert spec_one.params is not spec_two.params
    assert spec_one.params[0] is not spec_two.params[0]
    assert spec_one.fields is not spec_two.fields
    assert spec_one.paging is not spec_two.paging
    spec_one.fields["extra"] = "str"
    assert "extra" not in edgedsl.compile(text).tools["p.u"].fields
