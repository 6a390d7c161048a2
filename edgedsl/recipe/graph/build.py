"""Stage ``graph build``: a catalog → G, the candidate tool-dependency graph with priors.

Steps, each timed in the :class:`BuildReport`:

1. ``nodes`` — every tool as a :class:`~edgedsl.recipe.graph.model.ToolNode`
   (:func:`~edgedsl.recipe.graph.signature.tool_nodes`). Tools that write (method not ``GET``) are
   neither sources nor targets unless ``include_writes``; a tool without output fields is no
   source and one without parameters no target.
2. ``embed`` — each tool's signature text as a source (what it returns) and as a target (what
   it takes), by the embedder (default :class:`~edgedsl.recipe.graph.embed.HashedNgramEmbedder`), in
   one call so that a corpus-level weighting sees the whole catalog.
3. ``retrieve`` — per source, the ``k_same`` most similar targets of its domain and the
   ``k_cross`` most similar of other domains (:func:`~edgedsl.recipe.graph.retrieve.top_k`: one
   matrix product, numpy), and up to ``k_code`` (:data:`K_CODE`) more of other domains taking a
   code type the source's fields carry: platforms that share a code system connect whatever
   their descriptions say (a code join).
4. ``bind`` — the field bindings of each retrieved pair
   (:func:`~edgedsl.recipe.graph.bindings.propose`); a pair without any is rejected, counted by
   reason.
5. ``score`` — a feasibility prior per candidate by the scorer (default
   :class:`~edgedsl.recipe.graph.heuristic.HeuristicScorer`), in batches. A scorer may revise the
   bindings: those that break the type rule (code types exactly) are dropped, and a candidate
   left with none is rejected (``scorer_no_valid_binding``).
6. ``assemble`` — the :class:`~edgedsl.recipe.graph.model.ToolGraph` (``stage="candidates"``), edges
   sorted by (source, target), the configuration recorded in ``config``.

:func:`build_candidates_async` is the core (scorers are async); :func:`build_candidates` and
:func:`build_candidates_report` run it with :func:`asyncio.run`.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...core.catalog import Catalog, Platform
from ...core.resources import stdlib_dir
from .bindings import Binder, port_fit
from .candidate import Candidate, Prior, Scorer
from .embed import Embedder, HashedNgramEmbedder
from .heuristic import HeuristicScorer
from .model import Binding, CatalogRef, GraphEdge, Scalar, ToolGraph
from .retrieve import top_k
from .signature import signature_text, tool_nodes

__all__ = [
    "K_CODE",
    "REJECT_SCORER",
    "BuildReport",
    "CandidateBuild",
    "Progress",
    "build_candidates",
    "build_candidates_async",
    "build_candidates_report",
    "default_catalog_ref",
]

Progress = Callable[[str, int, int], None]
"""A progress callback: ``(stage, done, total)``, called when a stage starts and as it goes."""

K_CODE = 20
"""Code joins per source (:func:`~edgedsl.recipe.graph.retrieve.top_k`): on the ten platforms a
source has at most 16 (DART's company outline, whose 고유번호 every DART report takes), so
every one is a candidate; on the 2,318-tool benchmark, whose platforms share ten code systems,
the bound keeps the candidates per source at ``k_same + k_cross + 20``."""

REJECT_SCORER = "scorer_no_valid_binding"
"""Rejection reason of a candidate whose scorer left it no binding that type-checks."""


@dataclass(frozen=True)
class BuildReport:
    """What a candidate build did: tools, eligible sources and targets, pairs retrieved, pairs
    rejected by reason, edges kept (same-domain and cross-domain), wall seconds per step
    (``timings``) and CPU seconds of the process per step, every thread counted (``cpu``)."""

    tools: int
    writes_excluded: int
    sources: int
    targets: int
    retrieved: int
    rejected: Mapping[str, int]
    edges: int
    same_domain: int
    cross_domain: int
    timings: Mapping[str, float] = field(default_factory=dict)
    cpu: Mapping[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "tools": self.tools,
            "writes_excluded": self.writes_excluded,
            "sources": self.sources,
            "targets": self.targets,
            "retrieved": self.retrieved,
            "rejected": dict(sorted(self.rejected.items())),
            "edges": self.edges,
            "same_domain": self.same_domain,
            "cross_domain": self.cross_domain,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "cpu": {k: round(v, 4) for k, v in self.cpu.items()},
        }

    def summary(self) -> str:
        """A few lines of text for the terminal."""
        rejected = ", ".join(f"{k} {v}" for k, v in sorted(self.rejected.items())) or "none"
        steps = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
        return (
            f"{self.tools} tools ({self.writes_excluded} writing tools left out), "
            f"{self.sources} sources, {self.targets} targets\n"
            f"{self.retrieved} pairs retrieved; rejected: {rejected}\n"
            f"{self.edges} edges ({self.same_domain} same-domain, "
            f"{self.cross_domain} cross-domain)\n"
            f"time: {steps}"
        )


@dataclass(frozen=True, repr=False)
class CandidateBuild:
    """G and the report of its build."""

    graph: ToolGraph
    report: BuildReport

    def __repr__(self) -> str:
        # short on purpose: asyncio may format the result of the task that built it, and the
        # full repr of a graph of tens of thousands of edges takes seconds
        return (f"CandidateBuild(tools={len(self.graph.tools)}, "
                f"edges={len(self.graph.edges)})")


def default_catalog_ref(catalog: Catalog) -> CatalogRef:
    """A :class:`CatalogRef` naming the modules that declare ``catalog`` 's platforms (file
    stems, in order) and the directories holding them other than the standard library."""
    modules: list[str] = []
    paths: list[str] = []
    std = stdlib_dir().resolve()
    for platform in catalog.platforms.values():
        file = platform.span.file
        if not file or file.startswith("<"):
            continue
        path = Path(file)
        if path.stem not in modules:
            modules.append(path.stem)
        parent = path.resolve().parent
        if parent != std and str(parent) not in paths:
            paths.append(str(parent))
    return CatalogRef(modules=modules, search_paths=paths)


def _checked_prior(prior: Prior, cand: Candidate) -> tuple[
        list[Binding], dict[str, list[Scalar]]]:
    """The prior's bindings that type-check (at most one per parameter) and its defaults for
    parameters of the target that no binding fills."""
    source, target = cand.source, cand.target
    params = {p.name: p for p in target.params}
    if prior.bindings is cand.bindings:  # unchanged: made by `propose`, valid already
        bindings = list(prior.bindings)
    else:
        fields = {f.name: f for f in source.fields}
        bindings = []
        seen: set[str] = set()
        for b in prior.bindings:
            f, p = fields.get(b.field), params.get(b.param)
            if f is None or p is None or b.param in seen or port_fit(f, p) is None:
                continue
            seen.add(b.param)
            bindings.append(b)
    bound = {b.param for b in bindings}
    defaults = {k: list(v) for k, v in prior.defaults.items() if k in params and k not in bound}
    return bindings, defaults


def _tick(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


async def build_candidates_async(
    catalog: Catalog,
    *,
    catalog_ref: CatalogRef | None = None,
    embedder: Embedder | None = None,
    scorer: Scorer | None = None,
    k_same: int = 15,
    k_cross: int = 10,
    k_code: int = K_CODE,
    include_writes: bool = False,
    domain_of: Callable[[Platform], str] | None = None,
    batch: int = 512,
    progress: Progress | None = None,
) -> CandidateBuild:
    """G of ``catalog`` and its :class:`BuildReport` (see the module docstring).

    ``catalog_ref`` is recorded as the graph's catalog (default: :func:`default_catalog_ref`);
    ``domain_of`` overrides the domain of a platform (default: its module); ``batch`` is how
    many candidates go to the scorer at once.
    """
    # the build allocates millions of small objects and frees almost none of them until it
    # ends; the cyclic collector's full passes over them cost a tenth of the time for nothing
    collecting = gc.isenabled()
    gc.disable()
    try:
        return await _build(catalog, catalog_ref=catalog_ref, embedder=embedder,
                            scorer=scorer, k_same=k_same, k_cross=k_cross, k_code=k_code,
                            include_writes=include_writes, domain_of=domain_of, batch=batch,
                            progress=progress)
    finally:
        if collecting:
            gc.enable()


async def _build(
    catalog: Catalog,
    *,
    catalog_ref: CatalogRef | None,
    embedder: Embedder | None,
    scorer: Scorer | None,
    k_same: int,
    k_cross: int,
    k_code: int,
    include_writes: bool,
    domain_of: Callable[[Platform], str] | None,
    batch: int,
    progress: Progress | None,
) -> CandidateBuild:
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    clock, cpu_clock = time.perf_counter(), time.process_time()

    def lap(stage: str) -> None:
        nonlocal clock, cpu_clock
        now, cpu_now = time.perf_counter(), time.process_time()
        timings[stage] = timings.get(stage, 0.0) + now - clock
        cpu[stage] = cpu.get(stage, 0.0) + cpu_now - cpu_clock
        clock, cpu_clock = now, cpu_now

    embedder = embedder if embedder is not None else HashedNgramEmbedder()
    scorer = scorer if scorer is not None else HeuristicScorer()
    _tick(progress, "nodes", 0, 1)
    nodes = tool_nodes(catalog, domain_of=domain_of)
    by_name = {n.name: n for n in nodes}
    usable = [include_writes or not n.writes for n in nodes]
    sources = [u and bool(n.fields) for u, n in zip(usable, nodes, strict=True)]
    targets = [u and bool(n.params) for u, n in zip(usable, nodes, strict=True)]
    lap("nodes")

    _tick(progress, "embed", 0, 2 * len(nodes))
    vectors = embedder.embed([signature_text(n, "out") for n in nodes]
                             + [signature_text(n, "in") for n in nodes])
    lap("embed")

    _tick(progress, "retrieve", 0, sum(sources))
    found = top_k([n.name for n in nodes], [n.domain for n in nodes], vectors[:len(nodes)],
                  vectors[len(nodes):], k_same=k_same, k_cross=k_cross, sources=sources,
                  targets=targets, k_code=k_code,
                  codes_out=[frozenset(f.code for f in n.fields if f.code) for n in nodes],
                  codes_in=[frozenset(p.code for p in n.params if p.code) for n in nodes])
    lap("retrieve")

    _tick(progress, "bind", 0, len(found))
    rejected: Counter[str] = Counter()
    candidates: list[Candidate] = []
    binder = Binder()
    for hit in found:
        source, target = by_name[hit.source], by_name[hit.target]
        plan = binder.propose(source, target)
        if not plan.ok:
            rejected[plan.reason or "no_binding"] += 1
            continue
        candidates.append(Candidate(source=source, target=target, bindings=plan.bindings,
                                    similarity=hit.similarity, same_domain=hit.same_domain))
    lap("bind")

    priors: list[Prior] = []
    step = max(1, batch)
    for start in range(0, len(candidates), step):
        _tick(progress, "score", start, len(candidates))
        chunk = candidates[start:start + step]
        got = await scorer.score_many(chunk)
        if len(got) != len(chunk):
            raise ValueError(f"scorer {scorer.name!r} returned {len(got)} priors for "
                             f"{len(chunk)} candidates")
        priors.extend(got)
    _tick(progress, "score", len(candidates), len(candidates))
    lap("score")

    edges: list[GraphEdge] = []
    scored = sorted(zip(candidates, priors, strict=True),
                    key=lambda cp: (cp[0].source.name, cp[0].target.name))
    for cand, prior in scored:
        bindings, defaults = _checked_prior(prior, cand)
        if not bindings:
            rejected[REJECT_SCORER] += 1
            continue
        edges.append(GraphEdge(
            source=cand.source.name, target=cand.target.name, bindings=bindings,
            defaults=defaults, same_domain=cand.same_domain, similarity=cand.similarity,
            score=min(1.0, max(0.0, float(prior.score))), scorer=prior.scorer or scorer.name,
        ))
    config: dict[str, Scalar | None] = {
        "k_same": k_same,
        "k_cross": k_cross,
        "k_code": k_code,
        "include_writes": include_writes,
        "embedder": embedder.name,
        "dim": embedder.dim,
        "retriever": "numpy-cosine/out-in",
        "scorer": scorer.name,
    }
    graph = ToolGraph(stage="candidates", catalog=catalog_ref or default_catalog_ref(catalog),
                      config=config, tools=nodes, edges=edges)
    lap("assemble")
    same = sum(1 for e in edges if e.same_domain)
    report = BuildReport(
        tools=len(nodes),
        writes_excluded=0 if include_writes else sum(1 for n in nodes if n.writes),
        sources=sum(sources),
        targets=sum(targets),
        retrieved=len(found),
        rejected=dict(rejected),
        edges=len(edges),
        same_domain=same,
        cross_domain=len(edges) - same,
        timings=timings,
        cpu=cpu,
    )
    return CandidateBuild(graph, report)


def build_candidates_report(
    catalog: Catalog,
    *,
    catalog_ref: CatalogRef | None = None,
    embedder: Embedder | None = None,
    scorer: Scorer | None = None,
    k_same: int = 15,
    k_cross: int = 10,
    k_code: int = K_CODE,
    include_writes: bool = False,
    domain_of: Callable[[Platform], str] | None = None,
    batch: int = 512,
    progress: Progress | None = None,
) -> CandidateBuild:
    """:func:`build_candidates_async` run to completion (not from inside a running loop)."""
    return asyncio.run(build_candidates_async(
        catalog, catalog_ref=catalog_ref, embedder=embedder, scorer=scorer, k_same=k_same,
        k_cross=k_cross, k_code=k_code, include_writes=include_writes, domain_of=domain_of,
        batch=batch, progress=progress,
    ))


def build_candidates(
    catalog: Catalog,
    *,
    catalog_ref: CatalogRef | None = None,
    embedder: Embedder | None = None,
    scorer: Scorer | None = None,
    k_same: int = 15,
    k_cross: int = 10,
    k_code: int = K_CODE,
    include_writes: bool = False,
    domain_of: Callable[[Platform], str] | None = None,
    batch: int = 512,
    progress: Progress | None = None,
) -> ToolGraph:
    """G of ``catalog`` (stage ``candidates``); see :func:`build_candidates_async`."""
    return build_candidates_report(
        catalog, catalog_ref=catalog_ref, embedder=embedder, scorer=scorer, k_same=k_same,
        k_cross=k_cross, k_code=k_code, include_writes=include_writes, domain_of=domain_of,
        batch=batch, progress=progress,
    ).graph
