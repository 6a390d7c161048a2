"""Candidate graph build (EDGE phase A, step 1): time of each stage on a large catalog.

Measures, in the same process:
  * ours: ``edgedsl.recipe.graph.build.build_candidates_report`` on the synthetic catalog of
    ``--tools`` tools served by the world's generic engine (``edgedsl.world.synth``; its 24
    platforms share one file, so the platform is taken as the domain), and on the ten-platform
    standard catalog — wall and CPU seconds of each stage (nodes, embed, retrieve, bind, score,
    assemble), best of ``--repeat`` runs so that other load on the machine distorts less; the
    report's rejections by reason and its same-domain / cross-domain edges;
  * baseline: the same cosine top-k (same vectors, same k, same-domain and cross-domain apart)
    in pure Python for a sample of ``--sample`` sources, scaled to every source, against the
    retrieval stage (numpy's matrix product), in wall and in CPU seconds (the CPU of the stage
    counts every thread of the process: the BLAS's too);
and prints the ratios of the retrieval stage to the baseline, the peak resident memory, and the
load average. Never asserts on time.

    python benchmarks/bench_graph_build.py [--tools 2318] [--repeat 3] [--sample 40] [--smoke]
"""

from __future__ import annotations

import argparse
import heapq
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
from edgedsl.core.catalog import Catalog, Platform
from edgedsl.recipe.graph.build import BuildReport, build_candidates_report
from edgedsl.recipe.graph.embed import HashedNgramEmbedder
from edgedsl.recipe.graph.signature import signature_text, tool_nodes
from edgedsl.world.synth import synthetic_catalog

STDLIB = ["assembly", "bus", "dart", "ex", "fsc", "law", "nec", "neis", "region", "seoul", "std"]


def _platform_domain(platform: Platform) -> str:
    return platform.name


def _load_synth(n: int) -> tuple[Catalog, float]:
    cat = synthetic_catalog(n)
    tmp = Path(tempfile.mkdtemp(prefix="edgedsl-bench-graph-"))
    (tmp / "synth.edge").write_text(cat.source, encoding="utf-8")
    start = time.perf_counter()
    catalog = load_catalog(["synth"], [tmp])
    return catalog, time.perf_counter() - start


def _runs(catalog: Catalog, repeat: int, *, per_platform: bool) -> list[tuple[BuildReport,
                                                                              float, float]]:
    out = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        built = build_candidates_report(
            catalog, domain_of=_platform_domain if per_platform else None)
        out.append((built.report, time.perf_counter() - wall, time.process_time() - cpu))
    return out


def _print_runs(title: str, runs: list[tuple[BuildReport, float, float]]) -> tuple[float,
                                                                                  float]:
    print(f"\n== {title}")
    print(runs[0][0].summary().rsplit("\n", 1)[0])
    stages = list(runs[0][0].timings)
    print("run   " + "".join(f"{s:>10}" for s in stages) + f"{'total':>10}{'cpu':>10}")
    for i, (rep, wall, cpu) in enumerate(runs, 1):
        cells = "".join(f"{rep.timings[s]:>10.2f}" for s in stages)
        print(f"{i:<6}{cells}{wall:>10.2f}{cpu:>10.2f}")
        cells = "".join(f"{rep.cpu[s]:>10.2f}" for s in stages)
        print(f"{'cpu':<6}{cells}")
    best = min(wall for _, wall, _ in runs)
    best_retrieve = min(rep.timings["retrieve"] for rep, _, _ in runs)
    best_cpu = min(rep.cpu["retrieve"] for rep, _, _ in runs)
    print(f"best total {best:.2f} s; best retrieve stage {best_retrieve:.2f} s wall, "
          f"{best_cpu:.2f} s CPU")
    return best_retrieve, best_cpu


def _python_top_k(catalog: Catalog, sample: int, k_same: int,
                  k_cross: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of a pure-Python cosine top-k for every source (measured on
    ``sample`` sources, scaled), over the vectors the build uses."""
    nodes = tool_nodes(catalog, domain_of=_platform_domain)
    emb = HashedNgramEmbedder()
    vecs = emb.embed([signature_text(n, "out") for n in nodes]
                     + [signature_text(n, "in") for n in nodes])
    out_v, in_v = vecs[:len(nodes)], vecs[len(nodes):]
    targets = [i for i, n in enumerate(nodes) if n.params]
    sources = [i for i, n in enumerate(nodes) if n.fields]
    step = max(1, len(sources) // sample)
    picked = sources[::step][:sample]
    start, cpu = time.perf_counter(), time.process_time()
    for s in picked:
        sv = out_v[s]
        same: list[tuple[float, str]] = []
        cross: list[tuple[float, str]] = []
        for t in targets:
            if t == s:
                continue
            sim = sum(a * b for a, b in zip(sv, in_v[t], strict=True))
            (same if nodes[t].domain == nodes[s].domain else cross).append((sim, nodes[t].name))
        heapq.nsmallest(k_same, same, key=lambda x: (-x[0], x[1]))
        heapq.nsmallest(k_cross, cross, key=lambda x: (-x[0], x[1]))
    per_source = (time.perf_counter() - start) / len(picked)
    cpu_per_source = (time.process_time() - cpu) / len(picked)
    return per_source * len(sources), cpu_per_source * len(sources), len(picked)


def main() -> None:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--tools", type=int, default=2318)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size: the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        args.tools, args.repeat, args.sample = 300, 1, 5  # three platforms: cross-domain edges

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    synth, load_s = _load_synth(args.tools)
    print(f"synthetic catalog: {len(synth.tools())} tools, {len(synth.platforms)} platforms, "
          f"loaded in {load_s:.2f} s")
    best_retrieve, best_cpu = _print_runs(f"synthetic catalog, {args.tools} tools",
                                          _runs(synth, args.repeat, per_platform=True))

    std = load_catalog(STDLIB)
    _print_runs(f"ten-platform standard catalog, {len(std.tools())} tools",
                _runs(std, args.repeat, per_platform=False))

    base, base_cpu, sampled = _python_top_k(synth, args.sample, 15, 10)
    print(f"\nbaseline: pure-Python cosine top-k, {sampled} sources sampled, scaled to all "
          "sources")
    speedup(f"candidate retrieval, {args.tools} tools (numpy) vs pure-Python top-k, wall",
            best_retrieve, base, baseline_label="pure-Python cosine top-k, scaled")
    speedup(f"candidate retrieval, {args.tools} tools (numpy) vs pure-Python top-k, CPU",
            best_cpu, base_cpu, baseline_label="pure-Python cosine top-k, scaled")
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS: {peak_kib / 1024:.0f} MiB")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
