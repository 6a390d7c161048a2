"""``edgedsl import nestful``: the 13 gold sequences regenerated from the suite's own data agree
with the hand-made examples/nestful/gold.edge, reference rather than paste forwarded values, and
reproduce 13 of 13 gold answers when run on the python backend."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import read_source
from edgedsl.cli import main
from edgedsl.suites import emit, nestful
from edgedsl.suites.model import FieldRef, SuiteError
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

from . import EXTERNAL, ROOT, imported, needs

SRC = EXTERNAL / "nestful"
EXAMPLE = ROOT / "examples" / "nestful"
pytestmark = needs["nestful"]


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported(tmp_path_factory, "nestful")


def test_thirteen_of_thirteen_answers(out: Path) -> None:
    rep = nestful.check(SRC, out)
    assert (rep.matched, rep.total, rep.misses) == (13, 13, [])


def test_regenerated_program_agrees_with_the_hand_made_one(out: Path) -> None:
    ours = parse_module(read_source(out / "gold.edge")).trajectories
    hand = {t.name: t for t in parse_module(read_source(EXAMPLE / "gold.edge")).trajectories}
    seqs = json.loads((EXAMPLE / "gold.json").read_text())["sequences"]
    name_of = {f"n_{s['sample_id'][:8]}": s["name"] for s in seqs}
    assert [name_of[t.name] for t in ours] == list(hand)
    for t in ours:
        h = hand[name_of[t.name]]
        assert t.query == h.query
        # the same bindings in the same order, calls, literals, references and answer (spans
        # and comments aside)
        assert _bare(t.body) == _bare(h.body)


def _bare(body: tuple[n.Stmt, ...]) -> list[n.Stmt]:
    return [dataclasses.replace(s, comments=(), trailing=None) for s in body]


def test_catalog_written_is_the_example_catalog(out: Path) -> None:
    assert (out / "nestful.edge").read_text() == (EXAMPLE / "nestful.edge").read_text()


def _args(t: n.Trajectory) -> dict[tuple[str, str], Any]:
    return {(b.name, a.name): a.value for b in t.body if isinstance(b, n.Binding)
            and isinstance(b.node, n.Call) for a in b.node.args}


def test_every_gold_reference_is_a_reference_in_the_ast(out: Path) -> None:
    cases = {c.name: c for c in nestful.load_cases(SRC)}
    refs = 0
    for t in parse_module(read_source(out / "gold.edge")).trajectories:
        args = _args(t)
        for label, param, ref in cases[t.name].refs():
            value = args[(label, param)]
            assert isinstance(value, n.SeqArg), (t.name, label, param)
            assert value.ref.parts == (ref.label, ref.field)
            refs += 1
        literal = [v for v in args.values() if not isinstance(v, n.SeqArg)]
        assert not any(isinstance(v, n.StringLit) and "$" in v.value for v in literal)
    assert refs == 34


def test_a_reference_inside_a_text_is_refused_and_a_list_holds_references() -> None:
    sample: dict[str, Any] = {"sample_id": "0123abcd-0000", "input": "q", "gold_answer": 1,
              "output": [{"name": "add", "label": "$var_1",
                          "arguments": {"arg_0": "a $var_0.result$ b", "arg_1": 1}}],
              "tools": [{"name": "add", "output_parameters": {"result": {}}}]}
    with pytest.raises(SuiteError, match="inside a text"):
        nestful.parse_sample(sample)
    sample["output"][0]["arguments"]["arg_0"] = {"x": {"y": "$var_0.result$"}}
    with pytest.raises(SuiteError, match="inside an object argument or a nested list"):
        nestful.parse_sample(sample)
    sample["output"][0]["arguments"]["arg_0"] = [["$var_0.result$"], 2]
    with pytest.raises(SuiteError, match="inside an object argument or a nested list"):
        nestful.parse_sample(sample)
    # a list argument's items are references each: a list of references
    sample["output"][0]["arguments"]["arg_0"] = ["$var_0.result$", 2]
    case = nestful.parse_sample(sample)
    assert case.calls[0].args["arg_0"] == [FieldRef("var_0", "result"), 2]
    assert isinstance(emit.trajectory(case, "nestful").body[0].node.args[0].value, n.ListArg)
    sample["output"][0]["arguments"]["arg_0"] = "$var_0.result$"
    assert nestful.parse_sample(sample).calls[0].args["arg_0"] == FieldRef("var_0", "result")


def test_the_command_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "nestful", str(SRC), "-o", str(tmp_path), "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "nestful: 13/13 answers (100.0%)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.edge", "nestful.edge",
                                                          "tools.py"]
    assert main(["import", "nestful", str(SRC), "-o", str(tmp_path), "--split", "test"]) == 2
    assert main(["import", "nestful", str(tmp_path / "nowhere"), "-o", str(tmp_path)]) == 1
