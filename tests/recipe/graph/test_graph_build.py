"""``build_candidates`` over the ten-platform catalog and a synthetic one: G's shape."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from edgedsl.check import load_catalog
from edgedsl.core.catalog import Catalog
from edgedsl.recipe.graph.bindings import port_fit
from edgedsl.recipe.graph.build import (
    K_CODE,
    REJECT_SCORER,
    CandidateBuild,
    build_candidates_report,
)
from edgedsl.recipe.graph.candidate import Candidate, Prior
from edgedsl.recipe.graph.model import Binding, graph_to_json, load_graph
from edgedsl.world.synth import synthetic_catalog

MODULES = ["assembly", "bus", "dart", "ex", "fsc", "law", "nec", "neis", "region", "seoul", "std"]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(MODULES)


@pytest.fixture(scope="module")
def built(catalog: Catalog) -> CandidateBuild:
    return build_candidates_report(catalog)


def test_ten_platform_graph(built: CandidateBuild) -> None:
    g, rep = built.graph, built.report
    assert g.stage == "candidates" and len(g.tools) == 116
    assert g.catalog.modules == MODULES
    assert g.config["k_same"] == 15 and g.config["k_cross"] == 10
    assert g.config["k_code"] == K_CODE
    assert g.config["scorer"] == "heuristic" and "hashed-ngram" in str(g.config["embedder"])
    assert {t.domain for t in g.tools} == set(MODULES)
    assert g.tool("tago.stops").domain == g.tool("seoulbus.routes").domain == "bus"
    assert g.tool("assembly.submit_opinion").writes and not g.tool("std.lawd_cd").writes
    keys = [e.key for e in g.edges]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    edge = next(e for e in g.edges if e.key == ("dart.corp_codes", "dart.company"))
    assert [(b.field, b.param) for b in edge.bindings] == [("corp_code", "corp_code")]
    assert edge.same_domain and edge.score > 0.7
    assert rep.edges == len(g.edges) == rep.same_domain + rep.cross_domain
    assert rep.retrieved == rep.edges + sum(rep.rejected.values())
    assert 500 < rep.edges < rep.retrieved and rep.cross_domain >= 5
    assert rep.writes_excluded == 2
    assert set(rep.cpu) == set(rep.timings) == {"nodes", "embed", "retrieve", "bind", "score",
                                                 "assemble"}
    assert all(v >= 0 for v in rep.cpu.values()) and rep.to_json()["cpu"].keys() == rep.cpu.keys()


def test_edges_are_well_formed(built: CandidateBuild) -> None:
    g = built.graph
    tools = {t.name: t for t in g.tools}
    per_group: Counter[tuple[str, bool]] = Counter()
    for e in g.edges:
        src, dst = tools[e.source], tools[e.target]
        assert e.source != e.target and not src.writes and not dst.writes
        assert e.same_domain == (src.domain == dst.domain)
        assert 0.0 <= e.score <= 1.0 and e.bindings
        per_group[(e.source, e.same_domain)] += 1
        fields = {f.name: f for f in src.fields}
        params = {p.name: p for p in dst.params}
        for b in e.bindings:
            assert port_fit(fields[b.field], params[b.param]) is not None
        assert set(e.defaults) <= set(dst.required) - {b.param for b in e.bindings}
    assert all(n <= (15 if same else 10 + K_CODE) for (_, same), n in per_group.items())


# pairs that share a code system and that no similarity ranking finds: a company's address
# handed to the road-address search, the company outline's 고유번호 to DART's reports
JOINED = [("fsc.corp_outline", "juso.addrLinkApi"), ("dart.company", "juso.addrLinkApi"),
          ("fsc.corp_outline", "dart.dividends"), ("dart.company", "fsc.balance_sheet")]


def test_code_joins_connect_platforms_sharing_a_code(catalog: Catalog,
                                                      built: CandidateBuild) -> None:
    keys = {e.key for e in built.graph.edges}
    assert all(pair in keys for pair in JOINED)
    edge = next(e for e in built.graph.edges if e.key == JOINED[0])
    assert [(b.field, b.param) for b in edge.bindings] == [("enpBsadr", "keyword")]
    assert not edge.same_domain
    plain = build_candidates_report(catalog, k_code=0).graph
    assert plain.config["k_code"] == 0
    assert not any(pair in {e.key for e in plain.edges} for pair in JOINED)
    assert {e.key for e in plain.edges} < keys


def test_graph_file_round_trip(built: CandidateBuild) -> None:
    data = graph_to_json(built.graph)
    assert load_graph(data) == built.graph


def _synth(tmp_path: Path, n: int) -> Catalog:
    (tmp_path / "synth.edge").write_text(synthetic_catalog(n).source, encoding="utf-8")
    return load_catalog(["synth"], [tmp_path])


@pytest.mark.slow
def test_synthetic_chains_are_found(tmp_path: Path) -> None:
    synth = synthetic_catalog(300)
    cat = _synth(tmp_path, 300)
    one = build_candidates_report(cat, domain_of=lambda p: p.name)
    g = one.graph
    assert len(g.tools) == 300 and {t.domain for t in g.tools} == {"synth0", "synth1", "synth2"}
    # every tool returns its platform's code and most tools take it: almost every source gets
    # its 15 same-platform neighbours as edges (a neighbour taking a shared code the source
    # does not return is refused)
    same = [e for e in g.edges if e.same_domain]
    per_source = Counter(e.source for e in same)
    assert max(per_source.values()) == 15
    assert sum(1 for n in per_source.values() if n == 15) > 0.9 * len(per_source)
    local = {b.param for e in same for b in e.bindings} - {"inCode"}
    assert local <= {f for fields in synth.shared.values() for f in fields.values()}
    # cross-domain edges hand on a code system the two platforms share, never a local code
    cross = [e for e in g.edges if not e.same_domain]
    assert one.report.cross_domain == len(cross) > 0
    for e in cross:
        (b,) = e.bindings
        src, dst = g.tool(e.source), g.tool(e.target)
        (param,) = [p for p in dst.params if p.name == b.param]
        (fld,) = [f for f in src.fields if f.name == b.field]
        assert param.code == fld.code and param.code is not None
        assert param.code.startswith("codes.")
        assert synth.tool_codes[e.target][0] == param.code.removeprefix("codes.")
    # the other cross-domain pairs are still refused by the code rule
    assert 0 < one.report.rejected.get("code_types_differ", 0) < 300 * 10
    again = build_candidates_report(cat, domain_of=lambda p: p.name)
    assert graph_to_json(again.graph) == graph_to_json(g)  # deterministic


class _Tiny:
    """A plugged-in embedder: three features, enough to show the interface is honoured."""

    name = "tiny"
    dim = 3

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for t in texts:
            v = [float(t.count("corp")), float(t.count("code")), 1.0]
            n = sum(x * x for x in v) ** 0.5
            out.append([x / n for x in v])
        return out


class _Mangler:
    """A scorer that swaps every binding for one that breaks the code rule on odd calls."""

    name = "mangler"

    async def score_many(self, candidates: Sequence[Candidate]) -> list[Prior]:
        out = []
        for i, c in enumerate(candidates):
            if i % 2:
                bad = tuple(Binding(field="no_such_field", param=b.param) for b in c.bindings)
                out.append(Prior(score=0.5, bindings=bad, scorer=self.name))
            else:
                out.append(Prior(score=2.0, bindings=c.bindings, scorer=self.name))
        return out


def test_plugged_embedder_and_scorer(catalog: Catalog) -> None:
    got = build_candidates_report(catalog, embedder=_Tiny(), scorer=_Mangler(), k_same=3,
                                  k_cross=2, k_code=0, batch=7)
    g, rep = got.graph, got.report
    assert g.config["embedder"] == "tiny" and g.config["scorer"] == "mangler"
    assert rep.rejected[REJECT_SCORER] > 0
    assert all(e.score == 1.0 and e.scorer == "mangler" for e in g.edges)  # clipped
    assert rep.retrieved <= 114 * 5


def test_include_writes(catalog: Catalog) -> None:
    got = build_candidates_report(catalog, include_writes=True, k_same=20, k_cross=0)
    assert got.report.writes_excluded == 0
    assert any(e.target == "assembly.submit_opinion" for e in got.graph.edges)
