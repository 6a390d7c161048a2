"""Run every benchmark at one size and print one markdown table of their ratios (the README's).

Each benchmark runs in its own process (as ``python benchmarks/bench_….py``), with
``EDGEDSL_BENCH_RATIOS`` naming a file its :mod:`ratios` lines are appended to; the table lists
them in order: both sides, the ratio and its target. Sizes:

* ``smoke`` — the smallest size of each benchmark (what ``tests/test_benchmarks.py`` runs, so
  that none can rot); its figures mean nothing;
* ``moderate`` — the issue's ratios at their real sizes where it names one (the 224,958-record
  ``drv``, every chain of ``examples/world/``) and everything else smaller: about 10–15 minutes
  on 2 shared cores;
* ``full`` — every benchmark at its default size (an hour or more).

    python benchmarks/run_all.py [--size moderate] [--only drv,live] [--out ratios.md]

Never asserts on time; exits 1 when a benchmark fails (not when a target is missed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ratios import Ratio

SIZES = ("smoke", "moderate", "full")


@dataclass(frozen=True)
class Bench:
    """One benchmark run: its script, a label, and its arguments at each size."""

    script: str
    label: str
    moderate: tuple[str, ...] = ()
    smoke: tuple[str, ...] = ("--smoke",)
    full: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()  # programs that must be on the PATH

    def argv(self, size: str) -> list[str]:
        """The command line at ``size``."""
        extra = {"smoke": self.smoke, "moderate": self.moderate, "full": self.full}[size]
        return [sys.executable, str(HERE / self.script), *extra]


BENCHES: tuple[Bench, ...] = (
    Bench("bench_drv.py", "drv", moderate=("--runs", "10")),
    Bench("bench_inline.py", "inline", moderate=("--runs", "7")),
    Bench("bench_compile.py", "compile", moderate=("--n", "1000", "--repeat", "3")),
    Bench("bench_replay.py", "replay", moderate=("100",)),
    Bench("bench_live.py", "live", moderate=("--repeat", "3")),
    Bench("bench_live.py", "live-served", moderate=("--repeat", "3", "--served"),
          smoke=("--smoke", "--served"), full=("--served",)),
    Bench("bench_store.py", "store", moderate=("2000", "50", "1000")),
    Bench("bench_comments.py", "comments", moderate=("--n", "500")),
    Bench("bench_world.py", "world", moderate=("--calls", "300", "--repeat", "2")),
    Bench("bench_graph_build.py", "graph-build",
          moderate=("--tools", "500", "--repeat", "1", "--sample", "20")),
    Bench("bench_graph_refine.py", "graph-refine",
          moderate=("--tools", "500", "--iterations", "10", "--paths", "8")),
    Bench("bench_score.py", "score", moderate=("--episodes", "5000", "--rounds", "3")),
    Bench("bench_synth.py", "synth", moderate=("-n", "40", "--baseline-n", "10")),
    Bench("bench_compile_instructions.py", "compile-instructions",
          moderate=("--n", "50", "--stages", "all,parse"), needs=("valgrind",)),
)


def run(bench: Bench, size: str, sink: Path, timeout: float | None = None
        ) -> subprocess.CompletedProcess[str]:
    """Run one benchmark at ``size``, its ratios appended to ``sink``."""
    env = {**os.environ, "EDGEDSL_BENCH_RATIOS": str(sink), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(bench.argv(size), capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=HERE.parent)


def load(line: str) -> Ratio:
    """One ratio record written by :mod:`ratios` (its derived ``value`` and ``met`` dropped)."""
    data = json.loads(line)
    return Ratio(**{f.name: data[f.name] for f in fields(Ratio)})


def table(rows: list[tuple[str, Ratio]]) -> str:
    """The markdown table of ``(benchmark label, ratio)`` rows."""
    out = ["| benchmark | figure | ours | baseline | ratio | target | met |",
           "|---|---|---:|---:|---:|---|---|"]
    for label, r in rows:
        word = "(baseline / ours)" if r.direction == "speedup" else "(ours / baseline)"
        met = {True: "yes", False: "**no**", None: ""}[r.met]
        out.append(f"| {label} | {r.name} | {_side(r.ours, r.unit)} | "
                   f"{_side(r.baseline, r.unit)} ({r.baseline_label}) | "
                   f"{r.value:.2f}× {word} | {r.target_text()} | {met} |")
    return "\n".join(out)


def _side(x: float, unit: str) -> str:
    if unit != "s":
        return f"{x:.4g} {unit}"
    return f"{x * 1e3:.3f} ms" if x < 1 else f"{x:.2f} s"


def main() -> None:
    """Run the selected benchmarks and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=SIZES, default="moderate")
    ap.add_argument("--only", default="", help="comma-separated labels (default: all)")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = only - {b.label for b in BENCHES}
    if unknown:
        ap.error(f"unknown benchmarks {sorted(unknown)}; "
                 f"choose from {', '.join(b.label for b in BENCHES)}")
    rows: list[tuple[str, Ratio]] = []
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for bench in BENCHES:
            if only and bench.label not in only:
                continue
            sink = Path(tmp) / f"{bench.label}.jsonl"
            t0 = time.perf_counter()
            print(f"== {bench.label}: {' '.join(bench.argv(args.size)[1:])}", flush=True)
            done = run(bench, args.size, sink)
            print(done.stdout, end="", flush=True)
            print(f"   ({time.perf_counter() - t0:.0f} s, exit {done.returncode})", flush=True)
            if done.returncode != 0:
                failed.append(bench.label)
                print(done.stderr[-3000:], file=sys.stderr)
            if sink.exists():
                rows += [(bench.label, load(line))
                         for line in sink.read_text(encoding="utf-8").splitlines()]
    text = table(rows)
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n## ratios ({args.size} size; load average {load_avg}; {os.cpu_count()} cores)\n")
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
