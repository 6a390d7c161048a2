"""Refinement: G → G* by running paths of the graph and updating each edge's Beta posterior.

Each iteration samples ``paths`` paths of 2–4 edges:

* the first tool is drawn uniformly from the *roots* — tools with outgoing edges whose required
  parameters all have default candidates (catalog enums or observed values);
* each next edge is chosen among the runnable outgoing edges of the current tool (its target's
  required parameters are bound by the edge or have defaults, and the target is not on the path
  yet): with probability ε uniformly among the least-tried of them (the exploration floor: cold
  edges keep being tried until the prune rule can judge them), otherwise by Thompson sampling:
  the edge whose draw from its Beta(α, β) posterior is largest;
* parameters no binding fills get a default drawn from their candidates.

The paths run concurrently on the backend (:func:`edgedsl.recipe.graph.rollout.run_paths`); their
outcomes are applied in path order, so a run is reproducible from its seed whatever order the
calls finish in. A success adds success evidence, a structural failure strong failure evidence,
an environmental failure none (or weak) — see :class:`~edgedsl.recipe.graph.beta.Evidence`. Then
every edge tried is tested against the :class:`~edgedsl.recipe.graph.beta.PruneRule`.

Coverage: every edge a path can reach (its source is a root or reached from one through runnable
edges, its target's required parameters are bound or have candidates) is to be judged, not left
untried. An edge is *settled* when it has ``min_trials`` informative trials and at least one
success; one that has only failed stays unsettled until the prune rule cuts it (an edge of a
strong prior needs more failures). A share ``directed`` of each iteration's paths is aimed at
the unsettled reachable edges — those that have only failed first, most failures first, so that
each is followed to its verdict; then the untried; then those with too few trials — each path
the shortest prefix from a root to the edge's source, the edge, then the least-tried edges
onwards. An edge whose directed paths missed it
``give_up`` times (no informative outcome: its source returned nothing whatever the defaults, or
it failed only for environmental reasons) is left to ordinary sampling.

Refinement stops at convergence — every reachable edge is settled (or was given up on), over the
last ``window`` iterations no prune and no edge tried for the first time, and a pass rate whose
mean over them differs from the mean over the window before by at most ``tolerance`` — or after
``iterations`` (the budget); G*'s ``config.stopped`` says which, with the edges still unsettled
and those no path can reach.
After every iteration a checkpoint (the graph so far, the random state,
the observed values) is written next to the output, so an interrupted run resumes where it
stopped and ends as the uninterrupted run would.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ...core.catalog import Catalog
from ...core.jsonfile import write_atomic
from ...core.types import CodeType
from ...runtime.backends import Backend
from .args import ArgChooser
from .beta import Evidence, PruneRule, prior
from .model import GraphEdge, IterationStats, PrunedEdge, Scalar, ToolGraph, ToolNode
from .observe import ObservingBackend, ValuePool
from .rollout import Emitter, PathOutcome, PathSpec, Step, calls_of, run_paths

__all__ = ["Checkpoint", "RefineConfig", "Refiner", "emitter_for", "refine"]


@dataclass(frozen=True)
class RefineConfig:
    """The knobs of refinement (recorded in G*'s ``config``)."""

    iterations: int = 100
    paths: int = 16
    min_edges: int = 2
    max_edges: int = 4
    epsilon: float = 0.2
    strength: float = 2.0
    evidence: Evidence = field(default_factory=Evidence)
    prune: PruneRule = field(default_factory=PruneRule)
    window: int = 10
    tolerance: float = 0.05
    min_iterations: int = 20
    seed: int = 0
    concurrency: int = 8
    min_trials: int = 3
    directed: float = 0.75
    give_up: int = 6

    def as_config(self) -> dict[str, Scalar | None]:
        """A flat JSON dict of the knobs."""
        out: dict[str, Scalar | None] = {}
        for k, v in asdict(self).items():
            if isinstance(v, dict):
                out.update({f"{k}.{kk}": vv for kk, vv in v.items()})
            else:
                out[k] = v
        return out


class Checkpoint(BaseModel):
    """Everything needed to resume refinement after an interruption."""

    model_config = ConfigDict(extra="forbid")
    graph: ToolGraph
    iteration: int
    rng: list[Any]
    pool: dict[str, list[Scalar]]
    done: bool = False
    missed: dict[str, int] = Field(default_factory=dict)


def emitter_for(graph: ToolGraph, catalog: Catalog) -> Emitter:
    """The :class:`Emitter` of ``graph``'s tools over ``catalog``."""
    paged = frozenset(t.qualname for p in catalog.platforms.values() for t in p.tools.values()
                      if t.paging is not None)
    return Emitter({t.name: t for t in graph.tools}, catalog.code_types, paged,
                   tuple(graph.catalog.modules),
                   tuple(Path(p) for p in graph.catalog.search_paths))


class Refiner:
    """The state of one refinement run; :meth:`run` drives it."""

    def __init__(self, graph: ToolGraph, catalog: Catalog, backend: Backend,
                 config: RefineConfig | None = None, *, pool: ValuePool | None = None,
                 checkpoint: Path | None = None,
                 progress: Callable[[IterationStats, int], None] | None = None) -> None:
        self.config = config or RefineConfig()
        self.catalog = catalog
        self.codes: Mapping[str, CodeType] = catalog.code_types
        self.pool = pool or ValuePool()
        self.backend = ObservingBackend(backend, self.pool, catalog)
        self.checkpoint = checkpoint
        self.progress = progress
        self.rng = random.Random(self.config.seed)
        self.iteration = 0
        self.graph = graph.model_copy(deep=True)
        if self.graph.stage == "candidates":
            for e in self.graph.edges:
                e.alpha, e.beta = prior(e.score, self.config.strength)
            self.graph.stage = "refined"
            self.graph.config = {**self.graph.config, **self.config.as_config()}
        self.nodes: dict[str, ToolNode] = {t.name: t for t in self.graph.tools}
        self.emitter = emitter_for(self.graph, catalog)
        self.args = ArgChooser(self.nodes, self.pool, self.codes)
        #: directed paths that missed each edge (``source→target``): no informative outcome
        self.missed: dict[str, int] = {}
        self._index()

    # ---------------------------------------------------------------- state

    def _index(self) -> None:
        self.active: dict[tuple[str, str], GraphEdge] = {e.key: e for e in self.graph.edges}
        self.out: dict[str, list[GraphEdge]] = {}
        for e in sorted(self.graph.edges, key=lambda e: e.key):
            self.out.setdefault(e.source, []).append(e)

    def roots(self) -> list[str]:
        """Tools with outgoing edges whose required parameters all have candidates."""
        return [tool for tool in sorted(self.out) if self.out[tool] and self.args.callable(tool)]

    def reach(self, roots: Sequence[str], runnable: set[tuple[str, str]]
              ) -> dict[str, list[GraphEdge]]:
        """For every tool a path can reach, the shortest prefix of runnable edges from a root
        (breadth first, edges in key order: deterministic)."""
        best: dict[str, list[GraphEdge]] = {r: [] for r in roots}
        queue = deque(roots)
        while queue:
            tool = queue.popleft()
            for e in self.out.get(tool, ()):
                if e.key in runnable and e.target not in best:
                    best[e.target] = [*best[tool], e]
                    queue.append(e.target)
        return best

    def informative(self, e: GraphEdge) -> int:
        """Trials of ``e`` that count as evidence (successes and structural failures, and
        environmental ones when they weigh anything)."""
        return self._informative(e)

    def settled(self, e: GraphEdge) -> bool:
        """``min_trials`` informative trials and at least one success (module doc)."""
        return self._informative(e) >= self.config.min_trials and e.successes > 0

    def coverage(self, roots: Sequence[str], runnable: set[tuple[str, str]]
                 ) -> tuple[list[tuple[GraphEdge, list[GraphEdge]]], int]:
        """The reachable edges not settled and not given up on, each with its prefix,
        least-tried first; and how many edges no path can reach."""
        cfg = self.config
        reach = self.reach(roots, runnable)
        below: list[tuple[GraphEdge, list[GraphEdge]]] = []
        unreachable = 0
        for key in sorted(self.active):
            e = self.active[key]
            prefix = reach.get(e.source)
            if key not in runnable or prefix is None \
                    or e.target in {x.source for x in prefix}:
                unreachable += 1
                continue
            if not self.settled(e) and self.missed.get(_aim_key(e), 0) < cfg.give_up:
                below.append((e, prefix))
        below.sort(key=lambda ep: self._aim_order(ep[0]))
        return below, unreachable

    def _aim_order(self, e: GraphEdge) -> tuple[bool, bool, int]:
        """Edges that have only failed first, most failures first (each is aimed at until the
        prune rule decides it), then untried edges, then edges that succeeded but have too few
        trials, least-tried first."""
        n = self._informative(e)
        return e.successes > 0, n == 0, -n if e.successes == 0 else n

    def directed_path(self, edge: GraphEdge, prefix: Sequence[GraphEdge],
                      runnable: set[tuple[str, str]]) -> PathSpec:
        """A path aimed at ``edge``: its prefix from a root, the edge, then the least-tried
        runnable edges onwards up to ``max_edges`` edges in all."""
        rng = self.rng
        start = prefix[0].source if prefix else edge.source
        steps = [Step(start, self.args.root_args(start, rng))]
        chain = [*prefix, edge]
        seen = {start, *(x.target for x in chain)}
        current = edge.target
        while len(chain) < self.config.max_edges:
            options = [e for e in self.out.get(current, ())
                       if e.key in runnable and e.target not in seen]
            if not options:
                break
            fewest = min(self._informative(e) for e in options)
            nxt = rng.choice([e for e in options if self._informative(e) == fewest])
            chain.append(nxt)
            seen.add(nxt.target)
            current = nxt.target
        for x in chain:
            steps.append(Step(x.target, self.args.path_args(x, rng, calls_of(steps)),
                              tuple(x.bindings)))
        return PathSpec(tuple(steps))

    # ---------------------------------------------------------------- sampling

    def sample_path(self, roots: Sequence[str], runnable: set[tuple[str, str]]) -> PathSpec | None:
        """One path by Thompson sampling with an ε-greedy floor (see the module doc)."""
        rng, cfg = self.rng, self.config
        if not roots:
            return None
        start = rng.choice(roots)
        steps = [Step(start, self.args.root_args(start, rng))]
        seen = {start}
        length = rng.randint(cfg.min_edges, cfg.max_edges)
        current = start
        for _ in range(length):
            options = [e for e in self.out.get(current, ())
                       if e.key in runnable and e.target not in seen]
            if not options:
                break
            if rng.random() < cfg.epsilon:  # explore: the coldest edges first
                fewest = min(e.trials for e in options)
                edge = rng.choice([e for e in options if e.trials == fewest])
            else:
                draws = [(rng.betavariate(e.alpha, e.beta), i) for i, e in enumerate(options)]
                edge = options[max(draws)[1]]
            steps.append(Step(edge.target, self.args.path_args(edge, rng, calls_of(steps)),
                              tuple(edge.bindings)))
            seen.add(edge.target)
            current = edge.target
        return PathSpec(tuple(steps)) if len(steps) > 1 else None

    # ---------------------------------------------------------------- evidence

    def apply(self, outcomes: Sequence[PathOutcome], iteration: int) -> None:
        """Update the posteriors of the edges tried, in path order."""
        ev = self.config.evidence
        for po in outcomes:
            for eo in po.edges:
                edge = self.active.get(eo.edge)
                if edge is None or eo.outcome == "internal":
                    continue
                edge.trials += 1
                edge.last_trial = iteration
                if eo.outcome == "success":
                    edge.successes += 1
                    edge.alpha += ev.success
                elif eo.outcome == "structural":
                    edge.failures.structural += 1
                    edge.beta += ev.structural
                else:
                    edge.failures.environmental += 1
                    edge.beta += ev.environmental

    def _informative(self, e: GraphEdge) -> int:
        env = e.failures.environmental if self.config.evidence.environmental > 0 else 0
        return e.successes + e.failures.structural + env

    def prune(self, iteration: int) -> int:
        """Cut the edges tried this iteration that fail the prune rule; how many were cut."""
        rule = self.config.prune
        cut: list[GraphEdge] = []
        for e in self.graph.edges:
            if e.last_trial == iteration and rule.prunes(e.alpha, e.beta, self._informative(e)):
                cut.append(e)
        for e in cut:
            reason = (f"{rule.explain(e.alpha, e.beta)} after "
                      f"{self._informative(e)} trials ({e.successes} ok, "
                      f"{e.failures.structural} structural failures)")
            self.graph.pruned.append(PrunedEdge(**e.model_dump(), reason=reason,
                                                pruned_at=iteration))
        if cut:
            gone = {e.key for e in cut}
            self.graph.edges = [e for e in self.graph.edges if e.key not in gone]
            self._index()
        return len(cut)

    # ---------------------------------------------------------------- driving

    async def step(self) -> IterationStats:
        """Run one iteration: sample, run, update, prune."""
        self.iteration += 1
        k = self.iteration
        roots = self.roots()
        runnable = {key for key, e in self.active.items() if self.args.runnable(e)}
        below, _ = self.coverage(roots, runnable)
        n_directed = min(len(below), round(self.config.paths * self.config.directed))
        aims = [e for e, _ in below[:n_directed]]
        paths = [self.directed_path(e, prefix, runnable) for e, prefix in below[:n_directed]]
        paths += [p for p in (self.sample_path(roots, runnable)
                              for _ in range(self.config.paths - n_directed)) if p is not None]
        outcomes = await run_paths(paths, self.emitter, self.backend,
                                   concurrency=self.config.concurrency, label=f"i{k}p")
        counted = {"success", "structural"} | (
            {"environmental"} if self.config.evidence.environmental > 0 else set())
        for e, po in zip(aims, outcomes, strict=False):
            if not any(eo.edge == e.key and eo.outcome in counted for eo in po.edges):
                self.missed[_aim_key(e)] = self.missed.get(_aim_key(e), 0) + 1
        untried = {e.key for e in self.graph.edges if e.trials == 0}
        self.apply(outcomes, k)
        new_edges = sum(1 for e in self.graph.edges if e.key in untried and e.trials)
        pruned = self.prune(k)
        stats = IterationStats(
            iteration=k, paths=len(outcomes), passed=sum(o.passed for o in outcomes),
            steps=sum(o.steps for o in outcomes), steps_ok=sum(o.steps_ok for o in outcomes),
            environmental=sum(o.environmental for o in outcomes), pruned=pruned,
            new_edges=new_edges + sum(1 for e in self.graph.pruned
                                      if e.pruned_at == k and e.key in untried),
            edges=len(self.graph.edges))
        self.graph.iterations.append(stats)
        return stats

    def converged(self) -> bool:
        """No prunes and no edge tried for the first time over the last window, and a stable
        pass rate (see the module doc)."""
        cfg, its = self.config, self.graph.iterations
        if len(its) < max(cfg.min_iterations, 2 * cfg.window):
            return False
        if self.below_min():
            return False
        last, before = its[-cfg.window:], its[-2 * cfg.window:-cfg.window]
        if any(s.pruned or s.new_edges for s in last):
            return False

        def mean(xs: Sequence[IterationStats]) -> float:
            return sum(s.pass_rate for s in xs) / len(xs)

        return abs(mean(last) - mean(before)) <= cfg.tolerance

    def below_min(self) -> int:
        """Reachable edges not settled yet (and not given up on)."""
        roots = self.roots()
        runnable = {key for key, e in self.active.items() if self.args.runnable(e)}
        return len(self.coverage(roots, runnable)[0])

    def finish(self) -> ToolGraph:
        """G*: the graph with the observed defaults written into its nodes and edges."""
        g = self.graph.model_copy(deep=True)
        for t in g.tools:
            t.defaults = self.args.defaults(t.name)
        for e in g.edges:
            node_d = self.args.defaults(e.target)
            bound = {b.param for b in e.bindings}
            for pname in self.nodes[e.target].required:
                if pname not in bound and pname not in e.defaults and pname in node_d:
                    e.defaults[pname] = node_d[pname]
        roots = self.roots()
        runnable = {key for key, e in self.active.items() if self.args.runnable(e)}
        below, unreachable = self.coverage(roots, runnable)
        given_up = sum(1 for e in self.graph.edges if not self.settled(e)
                       and self.missed.get(_aim_key(e), 0) >= self.config.give_up)
        g.config = {**g.config, "stopped": "converged" if self.converged() else "iterations",
                    "iterations_run": self.iteration, "below_min_trials": len(below),
                    "given_up": given_up, "unreachable": unreachable}
        return g

    def save_checkpoint(self, done: bool = False) -> None:
        """Write the checkpoint atomically (no-op without a checkpoint path)."""
        if self.checkpoint is None:
            return
        state = self.rng.getstate()
        ck = Checkpoint(graph=self.graph, iteration=self.iteration,
                        rng=[state[0], list(state[1]), state[2]], pool=self.pool.to_json(),
                        done=done, missed=dict(self.missed))
        write_atomic(self.checkpoint, orjson.dumps(ck.model_dump(mode="json")))

    @classmethod
    def resume(cls, path: Path, catalog: Catalog, backend: Backend, config: RefineConfig,
               progress: Callable[[IterationStats, int], None] | None = None) -> Refiner:
        """A refiner restored from the checkpoint at ``path``."""
        ck = Checkpoint.model_validate(orjson.loads(path.read_bytes()))
        r = cls(ck.graph, catalog, backend, config, pool=ValuePool.from_json(ck.pool),
                checkpoint=path, progress=progress)
        r.iteration = ck.iteration
        r.missed = dict(ck.missed)
        version, internal, gauss = ck.rng
        r.rng.setstate((version, tuple(internal), gauss))
        return r

    async def run(self) -> ToolGraph:
        """Iterate to convergence or the iteration limit; G*."""
        while self.iteration < self.config.iterations and not self.converged():
            stats = await self.step()
            self.save_checkpoint()
            if self.progress is not None:
                self.progress(stats, self.config.iterations)
        self.save_checkpoint(done=True)
        return self.finish()


def _aim_key(e: GraphEdge) -> str:
    return f"{e.source}→{e.target}"


async def refine(graph: ToolGraph, catalog: Catalog, backend: Backend,
                 config: RefineConfig | None = None, *, pool: ValuePool | None = None,
                 checkpoint: Path | None = None,
                 progress: Callable[[IterationStats, int], None] | None = None) -> ToolGraph:
    """Stage `refine`: G → G* (see the module doc); resumes from ``checkpoint`` when it holds an
    unfinished run of the same graph."""
    cfg = config or RefineConfig()
    if checkpoint is not None and checkpoint.is_file():
        r = Refiner.resume(checkpoint, catalog, backend, cfg, progress)
    else:
        r = Refiner(graph, catalog, backend, cfg, pool=pool, checkpoint=checkpoint,
                    progress=progress)
    return await r.run()
