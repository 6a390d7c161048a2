"""Synthesis at the recipe's size (EDGE phase B): 1,781 trajectories from the shipped G* on the
world, filtered (re-solve included) and exported in the three formats.

Measures, in the same process:

  * ours: ``synthesize`` with ``--workers`` processes (default 2), then ``export`` to SFT JSONL,
    RL Parquet and per-step JSONL, then ``corpus_stats``;
  * baseline: the same synthesis with one worker for ``--baseline-n`` trajectories (another
    seed, so that nothing is shared), scaled to trajectories per second;

and prints seconds per phase, trajectories per second, the ratio to the baseline, the CPU seconds
of the synthesis (this process and its workers: on a shared machine wall time mostly measures the
other load) per trajectory and per attempt, attempts per trajectory, the peak resident memory of
this process and of the largest worker, and the statistics beside the recipe's.
Progress is shown on stderr. Never asserts on time.

    python benchmarks/bench_synth.py [-n 1781] [--workers 2] [--baseline-n 100] [-o DIR]
        [--platforms P,...] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratios import speedup

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.corpus import load_corpus
from edgedsl.recipe.synth.export import export
from edgedsl.recipe.synth.pipeline import SynthConfig, SynthReport, synthesize
from edgedsl.recipe.synth.stats import corpus_stats, render_stats
from edgedsl.runtime.backends import make_backend


def _progress(label: str):  # type: ignore[no-untyped-def]
    def show(r: SynthReport) -> None:
        sys.stderr.write(f"\r{label}: {r.written}/{r.requested} written, {r.attempts} attempts, "
                         f"{r.seconds:.0f} s   ")
        sys.stderr.flush()
    return show


def _cpu() -> float:
    """User + system CPU seconds of this process and of its finished workers."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _synth(n: int, seed: int, workers: int, out: Path, label: str,
           platforms: Sequence[str] = ()) -> tuple[SynthReport, float, float]:
    """The report, the wall seconds and the CPU seconds of one synthesis run (on the shipped
    G*, or on its tools of ``platforms`` only)."""
    graph = load_graph(default_graph_path())
    if platforms:
        graph = graph.on_platforms(platforms)
    catalog = load_catalog(graph.catalog.modules, [])
    mk = partial(make_backend, "world", seed=0)
    t0, c0 = time.perf_counter(), _cpu()
    rep = asyncio.run(synthesize(graph, catalog, mk(), out, SynthConfig(n=n, seed=seed),
                                 fresh=mk, workers=workers, backend_factory=mk,
                                 progress=_progress(label)))
    sys.stderr.write("\n")
    return rep, time.perf_counter() - t0, _cpu() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1781)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--baseline-n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", help="keep the corpus here (default: a temporary dir)")
    ap.add_argument("--platforms", default="",
                    help="comma-separated platforms: synthesize on G*'s tools of these only")
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size: the benchmark smoke test (2 tasks, 1 baseline "
                         "task, one worker, G* on four platforms quick to generate: "
                         "assembly, ex, nec, neis)")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.baseline_n, args.workers = 2, 1, 1
        args.platforms = args.platforms or "assembly,ex,nec,neis"
    platforms = [p.strip() for p in args.platforms.split(",") if p.strip()]
    root = Path(args.output) if args.output else Path(tempfile.mkdtemp(prefix="edgedsl-synth-"))
    root.mkdir(parents=True, exist_ok=True)

    base = None
    if args.baseline_n:
        brep, bs, _ = _synth(args.baseline_n, args.seed + 1, 1, root / "baseline", "baseline",
                             platforms)
        base = brep.written / bs
    rep, synth_s, synth_cpu = _synth(args.n, args.seed, args.workers, root / "corpus", "ours",
                                     platforms)
    t0 = time.perf_counter()
    sizes = {}
    for fmt, name in (("sft", "sft.jsonl"), ("rl", "rl.parquet"), ("steps", "steps.jsonl")):
        sizes[fmt] = export(root / "corpus", fmt, root / name).bytes  # type: ignore[arg-type]
    export_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    stats = corpus_stats(load_corpus(root / "corpus").records)
    stats_s = time.perf_counter() - t0
    total = synth_s + export_s
    rate = rep.written / synth_s
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"corpus: {root / 'corpus'}")
    print(f"synthesized: {rep.written}/{rep.requested} in {synth_s:.1f} s "
          f"({rate:.2f}/s, {rep.attempts} attempts, {args.workers} workers, "
          f"{rep.calls} calls + {rep.memo_hits} from memory)")
    print(f"CPU: {synth_cpu:.1f} s, {synth_cpu / max(1, rep.written):.2f} s per trajectory, "
          f"{synth_cpu / max(1, rep.attempts):.3f} s per attempt; "
          f"{rep.attempts / max(1, rep.written):.2f} attempts per trajectory")
    print(f"skipped: {rep.skipped}; moved: {rep.moved or 'none'}")
    print(f"filters: checked {rep.filters.checked}, dropped {rep.filters.dropped}")
    for stage, reasons in rep.filters.rejections.items():
        print(f"  {stage}: {reasons}")
    print(f"exported sft {sizes['sft']:,} B, rl {sizes['rl']:,} B, steps {sizes['steps']:,} B "
          f"in {export_s:.1f} s; statistics in {stats_s:.1f} s")
    if base is not None:
        speedup(f"synthesis, {args.workers} workers vs 1 worker (per trajectory)", 1 / rate,
                1 / base, baseline_label=f"1 worker, {args.baseline_n} trajectories")
    print(f"synthesized + filtered + exported: {total:.1f} s")
    print(f"peak RSS: this process {me:.0f} MiB, largest worker {kids:.0f} MiB; load "
          f"{os.getloadavg()[0]:.2f}")
    print()
    print(render_stats(stats))


if __name__ == "__main__":
    main()
