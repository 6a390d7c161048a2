"""The heuristic prior: in [0, 1], deterministic, ordered by types, names and similarity."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.recipe.graph.candidate import Candidate
from edgedsl.recipe.graph.heuristic import HeuristicScorer, score_parts
from edgedsl.recipe.graph.model import Binding, Port, ToolNode
from tests.profiles import examples

TYPES = [("str", None), ("int", None), ("float", None), ("date", None), ("enum[A, B]", None),
         ("CorpCode", "codes.CorpCode"), ("StockCode", "codes.StockCode")]
NAMES = ["corp_code", "corpCode", "stock_code", "name", "day", "kind", "year"]

ports = st.builds(lambda n, t, o: Port(name=n, type=t[0], code=t[1], optional=o),
                  st.sampled_from(NAMES), st.sampled_from(TYPES), st.booleans())


@st.composite
def candidates(draw: st.DrawFn) -> Candidate:
    fields = draw(st.lists(ports, max_size=5, unique_by=lambda p: p.name))
    params = draw(st.lists(ports, max_size=5, unique_by=lambda p: p.name))
    enums = [p.name for p in params if not p.optional and draw(st.booleans())]
    src = ToolNode(name="a.src", domain="a", fields=fields)
    dst = ToolNode(name="b.dst", domain="b", params=params,
                   defaults={n: ["x"] for n in enums})
    pairs = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)),
                          max_size=4))
    bindings = tuple(Binding(field=f, param=p) for f, p in pairs)
    return Candidate(source=src, target=dst, bindings=bindings,
                     similarity=draw(st.floats(-1, 1)), same_domain=draw(st.booleans()))


@settings(max_examples=examples(60))
@given(candidates())
def test_score_in_range_and_deterministic(c: Candidate) -> None:
    prior = HeuristicScorer().score(c)
    assert 0.0 <= prior.score <= 1.0
    assert prior == HeuristicScorer().score(c)
    assert prior.scorer == "heuristic" and prior.bindings == c.bindings
    assert set(prior.defaults) <= set(c.target.required)


@settings(max_examples=examples(60))
@given(candidates(), st.floats(0, 1))
def test_monotone_in_similarity(c: Candidate, more: float) -> None:
    higher = Candidate(c.source, c.target, c.bindings, min(1.0, max(0.0, c.similarity) + more),
                       c.same_domain)
    assert score_parts(higher)[0].score >= score_parts(c)[0].score


@settings(max_examples=examples(60))
@given(candidates())
def test_a_default_never_lowers_the_score(c: Candidate) -> None:
    parts, _ = score_parts(c)
    missing = [n for n in c.target.required if n not in c.target.defaults]
    if not missing:
        return
    target = c.target.model_copy(update={"defaults": {**c.target.defaults, missing[0]: ["v"]}})
    better = Candidate(c.source, target, c.bindings, c.similarity, c.same_domain)
    assert score_parts(better)[0].score >= parts.score


@settings(max_examples=examples(60))
@given(candidates())
def test_without_a_valid_binding_only_similarity_counts(c: Candidate) -> None:
    bare = Candidate(c.source, c.target, (), c.similarity, c.same_domain)
    assert score_parts(bare)[0].score <= 0.2 + 1e-9


def test_code_agreement_weighs_most() -> None:
    corp = Port(name="corp_code", type="CorpCode", code="codes.CorpCode")
    src = ToolNode(name="a.s", domain="a", fields=[corp, Port(name="corp_code_s", type="str")])
    dst = ToolNode(name="a.t", domain="a", params=[corp])
    good = Candidate(src, dst, (Binding(field="corp_code", param="corp_code"),), 0.0, True)
    assert score_parts(good)[0].score >= 0.75
    plain_dst = ToolNode(name="a.u", domain="a", params=[Port(name="corp_code", type="str")])
    plain = Candidate(src, plain_dst, (Binding(field="corp_code_s", param="corp_code"),), 0.0,
                      True)
    assert score_parts(plain)[0].score < score_parts(good)[0].score
    # a binding that breaks the code rule counts as nothing
    stock = Port(name="corp_code", type="StockCode", code="codes.StockCode")
    bad_src = ToolNode(name="a.b", domain="a", fields=[stock])
    bad = Candidate(bad_src, dst, (Binding(field="corp_code", param="corp_code"),), 0.9, True)
    assert score_parts(bad)[0].C == 0.0 and score_parts(bad)[0].score <= 0.2


def test_score_many_keeps_order() -> None:
    corp = Port(name="corp_code", type="CorpCode", code="codes.CorpCode")
    src = ToolNode(name="a.s", domain="a", fields=[corp])
    dst = ToolNode(name="a.t", domain="a", params=[corp])
    cands = [Candidate(src, dst, (Binding(field="corp_code", param="corp_code"),), s, True)
             for s in (0.9, 0.1, 0.5)]
    priors = asyncio.run(HeuristicScorer().score_many(cands))
    assert [p.score for p in priors] == [HeuristicScorer().score(c).score for c in cands]
    assert priors[0].score > priors[2].score > priors[1].score
