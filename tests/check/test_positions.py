"""The checker's facts about nodes are keyed by position in the trajectory (``context.At``).

Two places of one trajectory can hold equal nodes — or, in an AST a program made, the very same
node object — that mean different things: ``seq x.v`` in the two branches of an ``if`` that
bind ``x`` to different tools. Facts keyed by the node (its identity or its value) would give
both places the facts of one of them; keyed by position, each keeps its own. A synthesized AST
carries no spans, so the same holds for it as for the parsed one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from edgedsl.check import CheckError, check, ir
from edgedsl.core.diagnostics import Diagnostic
from edgedsl.core.source import NO_SPAN, Source
from edgedsl.core.types import STR, CodeType
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

PLATFORM = """\
platform p {
  type B = code /^b$/
  record RA {
    v: {va}
  }
  record RB {
    v: B
  }
  tool ta GET "/a" () -> [RA]
  tool tb GET "/b" () -> [RB]
  tool use GET "/u" (b: {param}) -> [RB]
}
"""

BODY = """\
trajectory t "q" {
  x0 = p.tb()
  if exists(x0) {
    x = p.ta()
    y = p.use(b: seq x.v)
  } else {
    x = p.tb()
    y = p.use(b: seq x.v)
  }
  answer count(y)
}
"""


def _program(va: str, param: str) -> tuple[n.Module, Source]:
    source = Source("<test>", PLATFORM.replace("{va}", va).replace("{param}", param) + BODY)
    return parse_module(source), source


def _one_object(module: n.Module) -> n.Module:
    """The module with the else branch's ``y = …`` replaced by the then branch's own object."""
    traj = module.trajectories[0]
    stmt = traj.body[1]
    assert isinstance(stmt, n.IfStmt) and stmt.orelse is not None
    assert stmt.then[1] == stmt.orelse[1] and stmt.then[1] is not stmt.orelse[1]
    shared = dataclasses.replace(stmt, orelse=(stmt.orelse[0], stmt.then[1]))
    new = dataclasses.replace(traj, body=(traj.body[0], shared, *traj.body[2:]))
    return dataclasses.replace(module, items=tuple(new if i is traj else i for i in module.items))


def _no_spans(value: Any) -> Any:
    """``value`` (a trajectory) as a program would build it: every span empty, no sub-part
    offsets."""
    if isinstance(value, tuple):
        return tuple(_no_spans(v) for v in value)
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        if f.name == "span":
            changes[f.name] = NO_SPAN
        elif f.metadata.get(n.PART):
            changes[f.name] = -1
        else:
            changes[f.name] = _no_spans(getattr(value, f.name))
    return dataclasses.replace(value, **changes)


def _said(module: n.Module, source: Source) -> list[tuple[str, str]]:
    try:
        found: list[Diagnostic] = check(module, source).diagnostics
    except CheckError as err:
        found = err.diagnostics
    return [(d.code, d.message) for d in found]


def _junction_types(module: n.Module, source: Source) -> list[object]:
    steps = check(module, source).program.trajectories[0].steps
    branch = steps[1]
    assert isinstance(branch, ir.IfIR)
    out = []
    for block in (branch.then, branch.orelse):
        call = block[1]
        assert isinstance(call, ir.CallIR) and call.args[0].junction is not None
        out.append(call.args[0].junction.field_type)
    return out


def test_one_node_object_in_two_places_keeps_two_sets_of_facts() -> None:
    module, source = _program("str", "B")  # then: a str into a code B (W004); else: B into B
    expected = _said(module, source)
    assert [c for c, _ in expected] == ["W004"]
    assert _said(_one_object(module), source) == expected


def test_one_node_object_in_two_places_lowers_each_place_on_its_own() -> None:
    module, source = _program("str", "str")  # then: x.v is a str; else: a code B
    types = _junction_types(module, source)
    assert types[0] == STR and isinstance(types[1], CodeType)
    assert _junction_types(_one_object(module), source) == types


def test_a_program_without_spans_gets_the_same_facts() -> None:
    for va, param in (("str", "B"), ("str", "str"), ("int", "B")):
        module, source = _program(va, param)
        bare = dataclasses.replace(module, items=tuple(
            _no_spans(i) if isinstance(i, n.Trajectory) else i for i in module.items
        ))
        assert bare == module
        assert _said(bare, source) == _said(module, source)
        assert _said(_one_object(bare), source) == _said(module, source)


def test_a_binding_object_met_again_inside_an_if_is_a_new_binding_there() -> None:
    """Scoping tells a branch's bindings from the earlier ones by position, not by object."""
    text = (
        PLATFORM.replace("{va}", "str").replace("{param}", "B")
        + 'trajectory t "q" {\n  x = p.tb()\n  if exists(x) {\n    x = p.tb()\n  } else {\n'
        "    z = p.tb()\n  }\n  answer count(x)\n}\n"
    )
    source = Source("<test>", text)
    module = parse_module(source)
    expected = _said(module, source)
    assert [c for c, _ in expected] == ["E115", "E217"]
    traj = module.trajectories[0]
    stmt = traj.body[1]
    assert isinstance(stmt, n.IfStmt) and stmt.then[0] == traj.body[0]
    again = dataclasses.replace(stmt, then=(traj.body[0],))  # the first `x = …` object itself
    new = dataclasses.replace(traj, body=(traj.body[0], again, *traj.body[2:]))
    one = dataclasses.replace(module, items=tuple(new if i is traj else i for i in module.items))
    assert _said(one, source) == expected
