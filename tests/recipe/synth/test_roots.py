"""Root arguments from values that made the call return records (edgedsl.recipe.synth.roots,
issue 18 §2): G*'s election ids are elections the world holds no candidates for, and the NEIS
school register is one page of thousands; probed roots return records and read them whole."""

from __future__ import annotations

import asyncio
import random

from edgedsl.recipe.synth.engine import Draft, Engine
from edgedsl.recipe.synth.roots import (
    ALL_RECORDS,
    ENOUGH,
    FEW_ROWS,
    NARROWER_ARGS,
    Probed,
    _default_args,
    _run,
    internal_args,
    probe,
    root_args,
)
from edgedsl.runtime.backends import make_backend
from tests.synth_world import light_catalog, light_graph


def _engine() -> Engine:
    return Engine(light_graph(), light_catalog(), make_backend("world", seed=0))


def test_candidates_roots_are_fed_by_the_elections_the_service_holds() -> None:
    """G* keeps `nec.elections → nec.candidates` (refinement judges a tied hand-off through a
    fan of elections the list holds; docs/graph.md), and roots fed by it read the elections
    the service holds candidates for."""
    eng = _engine()
    assert any((e.source, e.target) == ("nec.elections", "nec.candidates")
               for e in eng.graph.edges)

    async def go() -> tuple[list[Probed | None], list[Probed]]:
        blind = [await _run(eng, "nec.candidates", a, 1)
                 for a in _default_args(eng, "nec.candidates", random.Random(0))]
        return blind, await probe(eng, "nec.candidates")

    blind, got = asyncio.run(go())
    assert blind and all(p is None for p in blind)  # G*'s defaults: no candidates at all
    assert got and all(p.rows > 0 for p in got)
    assert any(p.whole for p in got)
    # jointly valid: the id and the type of one election's record, of an election with data
    assert all(dict(p.args)["sgId"] >= "2014" for p in got)
    d = asyncio.run(eng.root("nec.candidates", random.Random(1)))
    assert d is not None and d.rows and _whole(eng, d)


def test_a_register_root_is_read_whole_through_a_stated_filter() -> None:
    """``neis.schools()`` reads one page of the country's schools; a probed root states a
    category (학교종류, 시도교육청, 설립구분) a person would, read whole."""
    eng = _engine()
    got = asyncio.run(probe(eng, "neis.schools"))
    assert any(p.args == () and not p.whole for p in got)  # the blind call: one page of many
    whole = [p for p in got if p.whole]
    assert whole
    for p in whole:
        assert p.args and all(k in ("ATPT_OFCDC_SC_CODE", "SCHUL_KND_SC_NM", "FOND_SC_NM",
                                    "LCTN_SC_NM", "JU_ORG_NM") for k, _ in p.args), p.args
        assert p.rows <= ALL_RECORDS
    for seed in range(5):
        d = asyncio.run(eng.root("neis.schools", random.Random(seed)))
        assert d is not None and _whole(eng, d)


def test_a_short_list_is_read_with_all_its_pages() -> None:
    eng = _engine()
    got = asyncio.run(probe(eng, "nec.elections"))
    assert [(p.pages, p.whole) for p in got] == [("all", True)]
    d = asyncio.run(eng.root("nec.elections", random.Random(0)))
    assert d is not None and _whole(eng, d) and len(d.rows) == got[0].rows
    assert 'elections() pages all' in eng.text(_traj_of(d))


def _whole(eng: Engine, d: Draft) -> bool:
    """True when every call of the draft's run read its whole result (the run's own fact,
    ``StepTrace.complete``)."""
    ex = asyncio.run(eng.execute(d.body, Engine.count_answer(d.last)))
    trace = ex.result.trace if ex is not None else None
    return trace is not None and all(st.complete is not False for st in trace.steps)


def _traj_of(d):  # type: ignore[no-untyped-def]
    from edgedsl.syntax import nodes as n

    return n.Trajectory(name="t", query="q", body=(*d.body, Engine.count_answer(d.last)))


def test_probes_are_the_same_in_every_process() -> None:
    """A pure function of the tool, G* and the world: two engines (two worker processes)
    probe the same tuples in the same order, whatever was probed before."""
    a, b = _engine(), _engine()
    asyncio.run(probe(b, "nec.elections"))
    for tool in ("nec.candidates", "neis.schools", "neis.meals"):
        pa = asyncio.run(probe(a, tool))
        pb = asyncio.run(probe(b, tool))
        assert [(p.args, p.pages, p.rows, p.whole) for p in pa] == \
            [(p.args, p.pages, p.rows, p.whole) for p in pb]


def test_a_whole_read_is_narrowed_by_stated_categories_into_more_roots() -> None:
    """Issue 18 §6: a tool without required parameters had one root, and the 1,781-task run
    drew the same few roots into the same programs. A whole read of many records now also
    yields narrower whole reads, each stating a category its records hold (a route, a
    direction), a root of its own."""
    eng = _engine()
    got = asyncio.run(probe(eng, "ex.fuel_prices"))
    assert all(p.whole for p in got)
    base = next(p for p in got if p.args == ())
    narrower = [p for p in got if p.args]
    assert len(narrower) >= 3 and len(got) <= ENOUGH
    params = {port.name for port in eng.nodes["ex.fuel_prices"].params if port.optional}
    for p in narrower:
        assert p.rows < base.rows and len(p.args) < NARROWER_ARGS
        for k, v in p.args:  # a stated category the records hold, in Korean
            assert k in params and isinstance(v, str) and any("가" <= c <= "힣" for c in v)
            assert any(r.get(k) == v for r in base.records)
    assert len({p.args for p in got}) == len(got)


def test_a_chain_that_needs_a_fan_starts_from_a_small_read() -> None:
    eng = _engine()
    got = asyncio.run(probe(eng, "ex.fuel_prices"))
    small = {p.args for p in got if p.whole and 2 <= p.rows <= FEW_ROWS}
    assert small  # 서울양양선 toward 서울: six stations
    for seed in range(6):
        p = asyncio.run(root_args(eng, "ex.fuel_prices", random.Random(seed), few=True))
        assert p is not None and p.args in small
    drawn = {asyncio.run(root_args(eng, "ex.fuel_prices", random.Random(s))).args  # type: ignore[union-attr]
             for s in range(24)}
    assert drawn - small  # without `few`, any whole read


def test_a_root_stating_an_internal_code_is_never_drawn() -> None:
    """A draft whose first call states a school code or a bill id is rejected as
    ``internal_input`` whatever it grows into (plausible.py), so such a root is not drawn: a
    NEIS class list is called with a school's codes only, and is no root at all; of the
    expressway's congestion roots, only those stating no route number are drawn."""
    eng = _engine()
    classes = asyncio.run(probe(eng, "neis.classes"))
    assert classes and all(internal_args(eng, "neis.classes", p.args) for p in classes)
    assert all(asyncio.run(root_args(eng, "neis.classes", random.Random(s))) is None
               for s in range(4))
    assert asyncio.run(eng.root("neis.classes", random.Random(0))) is None
    congestion = asyncio.run(probe(eng, "ex.congestion"))
    plain = {p.args for p in congestion if not internal_args(eng, "ex.congestion", p.args)}
    assert plain and len(plain) < len(congestion)
    drawn = {asyncio.run(root_args(eng, "ex.congestion", random.Random(s))).args  # type: ignore[union-attr]
             for s in range(12)}
    assert drawn <= plain
    assert not internal_args(eng, "neis.schools", (("SCHUL_KND_SC_NM", "중학교"),))


def test_a_root_is_one_draft_judged_once() -> None:
    """Every attempt drawing the same probed tuple gets the same draft object, so its coerced
    columns and whether it can grow are worked out once (``Engine.rooted``, ``Draft.grows``)."""
    eng = _engine()
    a = asyncio.run(eng.root("neis.schools", random.Random(3)))
    b = asyncio.run(eng.root("neis.schools", random.Random(3)))
    assert a is not None and a is b
    grows = eng.can_grow(a)
    assert a.grows == {None: grows}
    assert eng.can_grow(a, kinds=frozenset({"seq"})) == a.grows[frozenset({"seq"})]
