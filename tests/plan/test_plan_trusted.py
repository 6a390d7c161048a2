"""The planner builds its models without validating them again (``edgedsl.plan.model.trusted``):
check that what it builds is exactly what pydantic would have made from the same data.

For every example (and a few programs using every kind of step), the compiled plan must equal
``Plan.model_validate(plan.model_dump())`` down to the field order of every model and the type of
every leaf value; the fields counted as set are those a validation of only the set fields counts
(a step's ``kind`` aside: it picks the step's model but is its default, so it is not set).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import edgedsl
from edgedsl.plan.model import Plan, plan_to_json

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


def _same(built: Any, validated: Any, only_set: Any, where: str) -> None:
    """``built`` and ``validated`` are the same, type and order included; ``built`` counts the
    fields ``only_set`` counts as set."""
    assert type(built) is type(validated) is type(only_set), where
    if isinstance(built, BaseModel):
        assert list(built.__dict__) == list(type(built).model_fields), where
        assert list(built.__dict__) == list(validated.__dict__), where
        assert built.model_fields_set == only_set.model_fields_set, where
        assert built.__pydantic_extra__ == validated.__pydantic_extra__, where
        assert built.__pydantic_private__ == validated.__pydantic_private__, where
        for name, value in built.__dict__.items():
            _same(value, validated.__dict__[name], only_set.__dict__[name], f"{where}.{name}")
    elif isinstance(built, dict):
        assert list(built) == list(validated) == list(only_set), where
        for k, v in built.items():
            _same(v, validated[k], only_set[k], f"{where}[{k!r}]")
    elif isinstance(built, list | tuple):
        assert len(built) == len(validated) == len(only_set), where
        for i, (a, b, c) in enumerate(zip(built, validated, only_set, strict=True)):
            _same(a, b, c, f"{where}[{i}]")
    else:
        assert built == validated or (built != built and validated != validated), where


def _check(plan: Plan) -> None:
    validated = Plan.model_validate(plan.model_dump())
    assert validated == plan
    set_fields = plan.model_dump(exclude_unset=True)
    for t_data, t in zip(set_fields["trajectories"], plan.trajectories, strict=True):
        for key, step in t_data["steps"].items():
            assert "kind" not in step
            step["kind"] = t.steps[key].kind  # to pick the model
    only_set = Plan.model_validate(set_fields)
    for t in only_set.trajectories:
        for step in t.steps.values():
            step.__pydantic_fields_set__.discard("kind")
    _same(plan, validated, only_set, "plan")
    assert plan_to_json(validated) == plan_to_json(plan)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_compiled_example_equals_its_validated_dump(path: Path) -> None:
    _check(edgedsl.compile(path))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiled_program_equals_its_validated_dump(name: str, tmp_path: Path) -> None:
    _check(edgedsl.compile(PROGRAMS[name], name=f"{name}.edge"))


def test_compiled_plans_share_no_containers() -> None:
    """Validation made fresh lists, dicts and models for every plan; so does the planner (tool
    specs come from a memoised input)."""
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
