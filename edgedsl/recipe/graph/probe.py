"""Probing: call each tool once to observe real values for default candidates.

Default candidates for required parameters come from catalog enums and from values observed in
responses (:class:`~edgedsl.recipe.graph.observe.ValuePool`). Probing seeds the pool: in rounds,
every tool not yet probed whose required parameters all have candidates is called once (a one-step
trajectory, the same emission and execution path as refinement); its records feed the pool,
which may make more tools callable in the next round. Tools that never become callable are
reported: they can be the target of an edge that binds their parameters, never a path's start.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ...core.catalog import Catalog
from ...runtime.backends import Backend
from .model import ToolGraph
from .observe import ObservingBackend, ValuePool, node_defaults
from .rollout import PathSpec, Step, run_paths

__all__ = ["ProbeReport", "probe"]


@dataclass
class ProbeReport:
    """What probing did: tools called (and which returned records), rounds, values kept."""

    called: list[str] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    uncallable: list[str] = field(default_factory=list)
    rounds: int = 0
    values: int = 0


async def probe(graph: ToolGraph, catalog: Catalog, backend: Backend, pool: ValuePool, *,
                seed: int = 0, rounds: int = 4, concurrency: int = 8,
                progress: Callable[[int, int], None] | None = None) -> ProbeReport:
    """Seed ``pool`` by calling each callable tool of ``graph`` once per round (see the module
    doc); writes tools are never called."""
    from .refine import emitter_for

    rng = random.Random(seed)
    emitter = emitter_for(graph, catalog)
    observing = ObservingBackend(backend, pool, catalog)
    report = ProbeReport()
    done: set[str] = set()
    for r in range(rounds):
        batch: list[PathSpec] = []
        for node in graph.tools:
            if node.name in done or node.writes:
                continue
            d = node_defaults(node, pool, catalog.code_types)
            if all(p in d for p in node.required):
                args = tuple((p, rng.choice(d[p])) for p in node.required)
                batch.append(PathSpec((Step(node.name, args),)))
        if not batch:
            break
        report.rounds = r + 1
        outcomes = await run_paths(batch, emitter, observing, concurrency=concurrency,
                                   label=f"probe{r}_")
        for o in outcomes:
            tool = o.path.steps[0].tool
            done.add(tool)
            report.called.append(tool)
            if o.passed:
                report.answered.append(tool)
            else:
                report.failed[tool] = f"{o.code}: {o.message}"
        if progress is not None:
            progress(len(done), len(graph.tools))
    report.uncallable = sorted(t.name for t in graph.tools if t.name not in done and not t.writes)
    report.values = len(pool)
    return report
