"""Refinement at scale (EDGE phase A, step 3): 100 iterations over a 2,318-tool catalog.

Measures, in the same process, on the synthetic catalog of ``--tools`` tools served by the
world's generic engine (``edgedsl.world.synth``, the platform as the domain):

  * ours: ``edgedsl.recipe.graph.refine`` for ``--iterations`` iterations of ``--paths`` paths
    on the world backend (each batch compiled as one module, paths run concurrently);
  * baseline: the same kind of iteration with every path compiled alone and run one after
    another (``--baseline-iterations`` iterations, scaled);

and prints seconds per iteration and in all, calls per second, the ratio to the baseline, the
peak resident memory and the load average, and, same-domain and cross-domain apart (the
platforms share code systems, so some candidate edges cross platforms), how many candidate
edges there were, how many were tried, with how many trials and successes, and how many were
kept or pruned. Never asserts on time.

    python benchmarks/bench_graph_refine.py [--tools 2318] [--iterations 100] [--paths 16] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratios import speedup

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.build import build_candidates
from edgedsl.recipe.graph.model import CatalogRef, ToolGraph
from edgedsl.recipe.graph.refine import RefineConfig, Refiner
from edgedsl.recipe.graph.rollout import run_paths
from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World
from edgedsl.world.synth import synthetic_catalog


def _tried_kept(candidates: ToolGraph, refined: ToolGraph) -> None:
    """Print candidate, tried, kept and pruned edges, same-domain and cross-domain apart."""
    for same, label in ((True, "same-domain"), (False, "cross-domain")):
        kept = [e for e in refined.edges if e.same_domain == same]
        pruned = [e for e in refined.pruned if e.same_domain == same]
        tried = [e for e in kept + pruned if e.trials]
        print(f"{label:>12} edges: {sum(1 for e in candidates.edges if e.same_domain == same)}"
              f" candidates, {len(tried)} tried ({sum(e.trials for e in tried)} trials, "
              f"{sum(e.successes for e in tried)} successes), {len(kept)} kept, "
              f"{len(pruned)} pruned")


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=2318)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--paths", type=int, default=16)
    ap.add_argument("--baseline-iterations", type=int, default=3)
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size: the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        # three platforms, two sharing a code system: cross-domain edges to try
        args.tools, args.iterations, args.paths, args.baseline_iterations = 300, 2, 4, 1

    synth = synthetic_catalog(args.tools)
    tmp = Path(tempfile.mkdtemp(prefix="edgedsl-bench-refine-"))
    (tmp / "synth.edge").write_text(synth.source, encoding="utf-8")
    catalog = load_catalog(["synth"], [tmp])
    t0 = time.perf_counter()
    graph = build_candidates(catalog, catalog_ref=CatalogRef(modules=["synth"],
                                                             search_paths=[str(tmp)]),
                             domain_of=lambda p: p.name)
    build_s = time.perf_counter() - t0
    print(f"catalog: {len(graph.tools)} tools, {len(graph.edges)} candidate edges "
          f"(built in {build_s:.1f} s)")

    def world_backend():  # type: ignore[no-untyped-def]
        return make_world_backend(world=World(seed=0, modules=[synth]))

    cfg = RefineConfig(iterations=args.iterations, paths=args.paths, seed=0,
                       min_iterations=args.iterations)
    backend = world_backend()
    refiner = Refiner(graph, catalog, backend, cfg)
    start = time.perf_counter()

    async def ours() -> None:
        for _ in range(args.iterations):
            await refiner.step()
            k = refiner.iteration
            if k % 10 == 0 or k == args.iterations:
                el = time.perf_counter() - start
                print(f"\r  iteration {k}/{args.iterations}: {el:.1f} s", end="", flush=True)

    asyncio.run(ours())
    ours_s = time.perf_counter() - start
    print()
    its = refiner.graph.iterations
    calls = refiner.backend.calls
    per_it = ours_s / len(its)

    # baseline: paths compiled alone and run one after another
    base_ref = Refiner(graph, catalog, world_backend(), cfg)
    base_calls = 0

    async def baseline() -> float:
        nonlocal base_calls
        t = time.perf_counter()
        roots = base_ref.roots()
        for _ in range(args.baseline_iterations):
            runnable = {k for k, e in base_ref.active.items() if base_ref.args.runnable(e)}
            for _ in range(args.paths):
                p = base_ref.sample_path(roots, runnable)
                if p is not None:
                    await run_paths([p], base_ref.emitter, base_ref.backend, concurrency=1)
        base_calls = base_ref.backend.calls
        return (time.perf_counter() - t) / args.baseline_iterations

    base_per_it = asyncio.run(baseline())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"ours:     {len(its)} iterations × {args.paths} paths in {ours_s:.1f} s "
          f"({per_it:.2f} s per iteration, {calls} calls, {calls / ours_s:.0f} calls/s); "
          f"pass rate {its[0].pass_rate:.2f} → {its[-1].pass_rate:.2f}, "
          f"{len(refiner.graph.edges)} edges kept, {len(refiner.graph.pruned)} pruned")
    _tried_kept(graph, refiner.graph)
    print(f"baseline: serial, one module per path: {base_per_it:.2f} s per iteration "
          f"({base_calls} calls in {args.baseline_iterations} iterations)")
    speedup(f"refine iteration, {args.tools} tools, {args.paths} paths (one module, concurrent)"
            " vs serial paths", per_it, base_per_it,
            baseline_label="each path compiled alone, run one after another")
    print(f"peak RSS: {rss:.0f} MiB; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
