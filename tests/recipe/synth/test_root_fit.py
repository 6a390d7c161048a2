"""Roots that can build the structure drawn (docs/synth.md, "NEC: roots that build what is
drawn"): on the shipped G*, NEC's candidate lists can go on only to one candidate's pledges,
from which every edge hands on the election it was given (a decorative step); drawn as the root
of a chain of two edges or of a group they built nothing, and NEC had no task in a corpus of
200. :func:`~edgedsl.recipe.synth.chains.start` now draws such a root again."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.branches import can_group, groups
from edgedsl.recipe.synth.chains import grows_twice, start
from edgedsl.recipe.synth.engine import Draft, Engine
from edgedsl.runtime.http import make_world_backend

DEAD_ENDS = {"nec.candidates", "nec.winners", "nec.preliminary_candidates"}


@pytest.fixture(scope="module")
def nec() -> Engine:
    """An engine over the shipped G* and the world (seed 1) whose drafts start on NEC only."""
    graph = load_graph(default_graph_path())
    eng = Engine(graph, load_catalog(graph.catalog.modules, []), make_world_backend(seed=1))
    roots = eng.roots_by_platform()["nec"]
    eng.roots_by_platform = lambda: {"nec": roots}  # type: ignore[method-assign]
    return eng


def _root(eng: Engine, tool: str) -> Draft:
    d = asyncio.run(eng.root(tool, random.Random(0)))
    assert d is not None, tool
    return d


def test_a_candidate_list_goes_on_at_most_once(nec: Engine) -> None:
    """The facts the repair rests on: a candidate list has a usable edge (to the pledges), so
    the old check let it start anything, but no draft one edge on can go on, and no group
    follows it; the list of elections makes a group."""
    for tool in sorted(DEAD_ENDS):
        d = _root(nec, tool)
        assert nec.can_grow(d), tool
        after = asyncio.run(nec.successors(d))
        assert all(not nec.can_grow(g) for g in after), tool
        assert not can_group(nec, d), tool
        assert not asyncio.run(grows_twice()(nec, d)), tool
        assert not asyncio.run(groups()(nec, d)), tool
    elections = _root(nec, "nec.elections")
    assert can_group(nec, elections)
    assert asyncio.run(groups()(nec, elections))


def test_a_root_that_cannot_build_the_structure_is_drawn_again(nec: Engine) -> None:
    """Without a fit, candidate lists take most NEC starts; a chain of two edges or a group
    draws them again (and every root it keeps passes the fit)."""
    async def main() -> tuple[Counter[str | None], Counter[str | None], Counter[str | None]]:
        plain: Counter[str | None] = Counter()
        chain: Counter[str | None] = Counter()
        group: Counter[str | None] = Counter()
        for s in range(16):
            d = await start(nec, random.Random(s))
            plain[d.last_tool if d else None] += 1
            d = await start(nec, random.Random(s), fit=grows_twice())
            assert d is None or any(nec.can_grow(g) for g in await nec.successors(d))
            chain[d.last_tool if d else None] += 1
            d = await start(nec, random.Random(s), fit=groups())
            assert d is not None
            group[d.last_tool] += 1
        return plain, chain, group
    plain, chain, group = asyncio.run(main())
    assert sum(plain[t] for t in DEAD_ENDS) >= 8
    assert not any(chain[t] for t in DEAD_ENDS)
    assert not any(group[t] for t in DEAD_ENDS)
    assert group["nec.elections"] == 16


def test_a_fit_is_judged_once_per_root(nec: Engine) -> None:
    """The judgement is kept per root and question: asked again, nothing runs."""
    d = _root(nec, "nec.winners")
    asyncio.run(grows_twice()(nec, d))
    calls = nec.memo.calls
    runs: list[object] = []
    successors = nec.successors

    async def counting(*a: object, **k: object) -> list[Draft]:
        runs.append(a)
        return await successors(*a, **k)  # type: ignore[arg-type]

    nec.successors = counting  # type: ignore[method-assign]
    try:
        assert not asyncio.run(grows_twice()(nec, d))
    finally:
        nec.successors = successors  # type: ignore[method-assign]
    assert runs == [] and nec.memo.calls == calls
