"""The refinement report: fresh executions of skeleton, G* and pruned edges, with intervals.

:func:`evaluate` runs edges again, on executions not used for refinement (another seed for the
default choices): each sampled edge runs ``runs`` times as the last edge of a path whose prefix
leads from a root to its source through G* edges (no prefix when the source is a root). An
execution counts when the edge was reached and did not fail for an environmental reason; it
succeeds when the edge's target returned records. Per set — the **skeleton** (every candidate
edge before refinement: G* ∪ pruned), **G*** and **pruned** — the success rate comes with a 95%
percentile bootstrap interval that resamples edges (executions of one edge are not independent).

:func:`graph_report` adds what refinement itself saw: the share of pruned and of kept edges
that never succeeded, and the trajectory pass rate and step success rate per iteration —
printed as a table (:func:`render_report`) and drawn as an SVG line chart (:func:`plot_svg`).
The recipe's figures are printed beside ours.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from importlib import resources
from typing import Literal

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field

from ...core.catalog import Catalog
from ...runtime.backends import Backend
from .model import GraphEdge, ToolGraph
from .observe import ValuePool
from .refine import RefineConfig, Refiner
from .rollout import PathSpec, Step, calls_of, run_paths

__all__ = [
    "REFERENCE",
    "EdgeSetRate",
    "GraphReport",
    "bootstrap_ci",
    "evaluate",
    "graph_report",
    "plot_svg",
    "render_report",
]

REFERENCE = {"skeleton": 0.502, "gstar": 0.627, "pruned": 0.148,
             "pruned_never": 0.705, "kept_never": 0.277}
"""The recipe's figures (REFERENCE.md, EDGE phase A)."""

SetName = Literal["skeleton", "gstar", "pruned"]
_cfg = ConfigDict(extra="forbid")


class EdgeSetRate(BaseModel):
    """The success rate of one edge set on fresh executions, with its 95% interval."""

    model_config = _cfg
    name: str
    edges: int
    executions: int
    successes: int
    rate: float | None
    low: float | None
    high: float | None
    reference: float | None = None


class IterationRow(BaseModel):
    """One row of the per-iteration table."""

    model_config = _cfg
    iteration: int
    paths: int
    pass_rate: float
    step_rate: float
    pruned: int
    edges: int


class GraphReport(BaseModel):
    """Everything ``edgedsl graph report`` prints."""

    model_config = _cfg
    sets: list[EdgeSetRate]
    kept: int
    pruned: int
    pruned_never_succeeded: float | None
    kept_never_succeeded: float | None
    kept_never_tried: int
    unreached: int
    environmental: int
    iterations: list[IterationRow] = Field(default_factory=list)
    seed: int = 0
    runs_per_edge: int = 1
    stopped: str | None = None
    iterations_run: int | None = None
    below_min_trials: int | None = None
    unreachable_edges: int | None = None
    given_up: int | None = None


def bootstrap_ci(per_edge: Sequence[tuple[int, int]], *, samples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """``(rate, low, high)``: successes / executions over ``per_edge`` (``(successes,
    executions)`` per edge) and its percentile bootstrap interval, resampling edges. ``None``s
    when nothing was executed."""
    per_edge = [p for p in per_edge if p[1] > 0]
    if not per_edge:
        return None, None, None
    total_s = sum(s for s, _ in per_edge)
    total_n = sum(n for _, n in per_edge)
    rng = random.Random(seed)
    k = len(per_edge)
    rates = []
    for _ in range(samples):
        s = n = 0
        for _ in range(k):
            a, b = per_edge[rng.randrange(k)]
            s += a
            n += b
        rates.append(s / n)
    rates.sort()
    lo = rates[int((1 - level) / 2 * (samples - 1))]
    hi = rates[int((1 + level) / 2 * (samples - 1))]
    return total_s / total_n, lo, hi


def _prefixes(graph: ToolGraph, roots: set[str]) -> dict[str, list[GraphEdge]]:
    """For each tool reachable from a root through G* edges, the shortest edge path to it."""
    out_edges: dict[str, list[GraphEdge]] = {}
    for e in sorted(graph.edges, key=lambda e: e.key):
        out_edges.setdefault(e.source, []).append(e)
    best: dict[str, list[GraphEdge]] = {r: [] for r in sorted(roots)}
    queue = deque(sorted(roots))
    while queue:
        tool = queue.popleft()
        for e in out_edges.get(tool, ()):
            if e.target not in best:
                best[e.target] = [*best[tool], e]
                queue.append(e.target)
    return best


async def evaluate(graph: ToolGraph, catalog: Catalog, backend: Backend, edges:
                   Sequence[GraphEdge], *, runs: int = 1, seed: int = 1,
                   concurrency: int = 8) -> dict[tuple[str, str], list[str]]:
    """Fresh executions of ``edges``: per edge, the outcomes of its ``runs`` executions
    (``success``, ``structural``, ``environmental``, ``internal`` or ``unreached``)."""
    skeleton = graph.model_copy(deep=True)
    skeleton.edges = [*graph.edges, *(p.as_edge() for p in graph.pruned)]
    pool = ValuePool()
    r = Refiner(skeleton, catalog, backend, RefineConfig(seed=seed), pool=pool)
    rng = random.Random(seed)
    prefixes = _prefixes(graph, set(r.roots()) | {
        t.name for t in graph.tools
        if not t.writes and all(p in r.args.defaults(t.name) for p in t.required)})
    paths: list[PathSpec] = []
    owners: list[tuple[str, str]] = []
    results: dict[tuple[str, str], list[str]] = {e.key: [] for e in edges}
    for e in edges:
        prefix = prefixes.get(e.source)
        if prefix is None or e.target in {x.source for x in prefix}:
            results[e.key] += ["unreached"] * runs
            continue
        for _ in range(runs):
            try:
                steps = [Step(prefix[0].source if prefix else e.source,
                              r.args.root_args(prefix[0].source if prefix else e.source, rng))]
                for x in [*prefix, e]:
                    steps.append(Step(x.target, r.args.path_args(x, rng, calls_of(steps)),
                                      tuple(x.bindings)))
            except (KeyError, IndexError):
                results[e.key].append("unreached")
                continue
            paths.append(PathSpec(tuple(steps)))
            owners.append(e.key)
    outcomes = await run_paths(paths, r.emitter, r.backend, concurrency=concurrency,
                               label="eval")
    for key, po in zip(owners, outcomes, strict=True):
        last = next((eo for eo in po.edges if eo.edge == key), None)
        results[key].append(last.outcome if last is not None else "unreached")
    return results


def _sample(edges: Sequence[GraphEdge], limit: int | None, rng: random.Random) -> list[GraphEdge]:
    items = sorted(edges, key=lambda e: e.key)
    if limit is None or len(items) <= limit:
        return items
    return sorted(rng.sample(items, limit), key=lambda e: e.key)


async def graph_report(graph: ToolGraph, catalog: Catalog, backend: Backend, *, runs: int = 1,
                       max_edges: int | None = 300, seed: int = 1, concurrency: int = 8,
                       samples: int = 2000) -> GraphReport:
    """Stage `report` over G* (see the module doc)."""
    rng = random.Random(seed)
    pruned_as_edges = [p.as_edge() for p in graph.pruned]
    chosen: dict[str, list[GraphEdge]] = {
        "gstar": _sample(graph.edges, max_edges, rng),
        "pruned": _sample(pruned_as_edges, max_edges, rng),
        "skeleton": _sample([*graph.edges, *pruned_as_edges], max_edges, rng),
    }
    distinct = {e.key: e for es in chosen.values() for e in es}
    outcomes = await evaluate(graph, catalog, backend, list(distinct.values()), runs=runs,
                              seed=seed, concurrency=concurrency)
    sets = []
    for name in ("skeleton", "gstar", "pruned"):
        per_edge = []
        for e in chosen[name]:
            counted = [o for o in outcomes[e.key] if o in ("success", "structural")]
            per_edge.append((counted.count("success"), len(counted)))
        rate, lo, hi = bootstrap_ci(per_edge, samples=samples, seed=seed)
        sets.append(EdgeSetRate(name=name, edges=len(chosen[name]),
                                executions=sum(n for _, n in per_edge),
                                successes=sum(s for s, _ in per_edge), rate=rate, low=lo,
                                high=hi, reference=REFERENCE[name]))
    every = [o for os in outcomes.values() for o in os]
    kept_tried = [e for e in graph.edges if e.trials]
    return GraphReport(
        sets=sets, kept=len(graph.edges), pruned=len(graph.pruned),
        pruned_never_succeeded=(sum(p.successes == 0 for p in graph.pruned) / len(graph.pruned)
                                if graph.pruned else None),
        kept_never_succeeded=(sum(e.successes == 0 for e in graph.edges) / len(graph.edges)
                              if graph.edges else None),
        kept_never_tried=len(graph.edges) - len(kept_tried),
        unreached=every.count("unreached"), environmental=every.count("environmental"),
        iterations=[IterationRow(iteration=s.iteration, paths=s.paths, pass_rate=s.pass_rate,
                                 step_rate=s.step_rate, pruned=s.pruned, edges=s.edges)
                    for s in graph.iterations],
        seed=seed, runs_per_edge=runs, stopped=_text(graph.config.get("stopped")),
        iterations_run=_int(graph.config.get("iterations_run")),
        below_min_trials=_int(graph.config.get("below_min_trials")),
        unreachable_edges=_int(graph.config.get("unreachable")),
        given_up=_int(graph.config.get("given_up")))


def _text(v: object) -> str | None:
    return v if isinstance(v, str) else None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def render_report(rep: GraphReport) -> str:
    """The report as readable text: the three rates with intervals beside the recipe's, the
    never-succeeded shares, and the per-iteration table."""
    lines = ["edge success on fresh executions (95% bootstrap interval over edges):",
             f"  {'set':<9} {'edges':>6} {'runs':>6} {'rate':>7}  {'interval':<17} recipe"]
    for s in rep.sets:
        interval = "-" if s.low is None else f"[{_pct(s.low)}, {_pct(s.high)}]"
        lines.append(f"  {s.name:<9} {s.edges:>6} {s.executions:>6} {_pct(s.rate):>7}  "
                     f"{interval:<17} {_pct(s.reference)}")
    lines += [
        f"  ({rep.unreached} executions could not reach their edge, {rep.environmental} failed "
        "for environmental reasons; neither counts)",
        "",
        f"edges: {rep.kept} kept, {rep.pruned} pruned",
        f"  pruned edges that never succeeded: {_pct(rep.pruned_never_succeeded)} "
        f"(recipe {_pct(REFERENCE['pruned_never'])})",
        f"  kept edges that never succeeded:   {_pct(rep.kept_never_succeeded)} "
        f"(recipe {_pct(REFERENCE['kept_never'])}; {rep.kept_never_tried} kept edges never "
        "tried)",
    ]
    if rep.stopped is not None:
        why = {"converged": "its convergence rule held",
               "iterations": "its iteration budget ran out"}.get(rep.stopped, rep.stopped)
        lines.append(f"refinement stopped after {rep.iterations_run} iterations: {why}")
        if rep.below_min_trials is not None:
            lines.append(f"  {rep.below_min_trials} reachable edges unsettled (below the "
                         f"minimum of informative trials, or only failures and not pruned); "
                         f"{rep.given_up} given up on (directed paths never reached them); "
                         f"{rep.unreachable_edges} edges no path reaches")
    if rep.iterations:
        lines += ["", "per iteration:",
                  f"  {'iter':>4} {'paths':>5} {'pass':>7} {'steps':>7} {'pruned':>6} "
                  f"{'edges':>6}"]
        lines += [f"  {r.iteration:>4} {r.paths:>5} {_pct(r.pass_rate):>7} "
                  f"{_pct(r.step_rate):>7} {r.pruned:>6} {r.edges:>6}" for r in rep.iterations]
        first, last = rep.iterations[0], rep.iterations[-1]
        lines.append(f"  pass rate {_pct(first.pass_rate)} → {_pct(last.pass_rate)}, step "
                     f"success {_pct(first.step_rate)} → {_pct(last.step_rate)} (recipe over 100 "
                     "iterations: +31 and +28 points)")
    return "\n".join(lines)


def _template() -> jinja2.Template:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=True)
    text = resources.files("edgedsl.recipe.graph").joinpath("templates/plot.svg.jinja2").read_text(
        encoding="utf-8")
    return env.from_string(text)


def plot_svg(rows: Sequence[IterationRow], *, title: str = "refinement") -> str:
    """An SVG line chart of the pass rate and step success rate per iteration."""
    w, h, left, right, top, bottom = 640, 360, 56, 24, 40, 44
    pw, ph = w - left - right, h - top - bottom
    n = max(1, len(rows))

    def x(i: int) -> float:
        return left + (pw * i / (n - 1) if n > 1 else pw / 2)

    def y(v: float) -> float:
        return top + ph * (1 - v)

    def points(attr: str) -> str:
        return " ".join(f"{x(i):.1f},{y(getattr(r, attr)):.1f}" for i, r in enumerate(rows))

    ticks = sorted({rows[int(i * (len(rows) - 1) / 4)].iteration for i in range(5)}) \
        if rows else []
    xticks = [(x(next(i for i, r in enumerate(rows) if r.iteration == t)), t) for t in ticks]
    return _template().render(
        width=w, height=h, left=left, top=top, plot_w=pw, plot_h=ph, title=title,
        yticks=[(y(v / 4), f"{25 * v}%") for v in range(5)], xticks=xticks,
        series=[("trajectory pass rate", "#1f77b4", points("pass_rate")),
                ("step success rate", "#d62728", points("step_rate"))])
