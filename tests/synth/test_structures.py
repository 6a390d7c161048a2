"""Structure generators on a light G* over the world: every draft they finish compiles from its
formatted text, runs, and has junctions typed as the run observed them."""

from __future__ import annotations

import asyncio
import random

import pytest
from synth_world import light_catalog, light_graph

from edgedsl import api
from edgedsl import nodes as n
from edgedsl.runtime.backends import make_backend
from edgedsl.synth.analyze import structure_of
from edgedsl.synth.engine import Engine, emit_module
from edgedsl.synth.structures import GENERATORS, Built


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(light_graph(), light_catalog(), make_backend("world", seed=0))


def _finish(engine: Engine, kind: str, seeds: range, length: int = 2) -> list[Built]:
    async def main() -> list[Built]:
        out = []
        for s in seeds:
            b = await GENERATORS[kind](engine, random.Random(s), length)
            if b is not None:
                out.append(b)
        return out
    return asyncio.run(main())


def _traj(b: Built, name: str = "t") -> n.Trajectory:
    return n.Trajectory(name=name, query="q", body=(*b.body, b.answer))


def _check_runs(engine: Engine, b: Built) -> object:
    text = emit_module(_traj(b))
    assert api.format(api.parse(text)) == text  # emitted through the formatter
    plan = api.compile(text)
    (res,) = api.run(plan, engine.memo)
    assert res.ok, res.diagnostics
    assert res.answer is not None
    for st in res.trace.steps:  # type: ignore[union-attr]
        for j in st.junctions:
            assert j.ok
            assert (j.cardinality == 1) if j.kind == "seq" else (1 <= j.cardinality <= 5)
    return res


@pytest.mark.parametrize("kind", ["chain", "sem", "cmp", "cond", "mixed"])
def test_generators_finish_programs_that_compile_and_run(engine: Engine, kind: str) -> None:
    built = _finish(engine, kind, range(6))
    assert built, f"no {kind} finished in 6 draws"
    for b in built:
        _check_runs(engine, b)
        st = structure_of(_traj(b))
        if kind == "cmp":
            assert st == "Cmp"
        elif kind == "cond":
            assert st in ("Cond", "Mixed")
        elif kind == "sem":
            assert st in ("Sem", "Mixed")
        # the G* edges a draft used are edges of G*
        assert all(e.key in engine.edge_of for e in b.edges)


def test_a_conditional_runs_whichever_branch_is_taken(engine: Engine) -> None:
    built = _finish(engine, "cond", range(6))
    assert built
    for b in built:
        i = next(k for k, s in enumerate(b.body) if isinstance(s, n.IfStmt))
        stmt = b.body[i]
        assert isinstance(stmt, n.IfStmt)
        flipped = (*b.body[:i], n.IfStmt(cond=n.PredNot(operand=stmt.cond), then=stmt.then,
                                          orelse=stmt.orelse), *b.body[i + 1:])
        _check_runs(engine, b)
        _check_runs(engine, Built(flipped, b.answer, b.edges, b.draft, b.kind))


def test_a_comparison_answers_with_its_winning_arm(engine: Engine) -> None:
    for b in _finish(engine, "cmp", range(4)):
        cmp = next(s.node for s in b.body if isinstance(s, n.Binding)
                   and isinstance(s.node, n.Compare))
        assert 2 <= len(cmp.values.items) <= 5
        res = _check_runs(engine, b)
        arms = {str(v.value) for v in cmp.values.items}  # type: ignore[union-attr]
        got = next(iter(res.answer.values()))  # type: ignore[attr-defined]
        assert {str(x) for x in (got if isinstance(got, list) else [got])} <= arms


def test_drafts_are_reproducible_from_their_seed() -> None:
    texts = []
    for _ in range(2):
        eng = Engine(light_graph(), light_catalog(), make_backend("world", seed=0))
        texts.append([emit_module(_traj(b)) for b in _finish(eng, "mixed", range(3), 3)])
    assert texts[0] == texts[1] and texts[0]
