"""Compile throughput: parse + check + plan of 10–20-line trajectories, on one core.

Measures, in the same process:
  * ours: ``edgedsl.compile`` (parse + build + check + plan) per trajectory file;
  * baseline: the parse stage alone (lark LALR building its tree over the same text), to show
    what building, checking and planning add on top of parsing;
and prints trajectories per second for a 2,000-trajectory corpus, the ratio to the baseline, the
ratio to the target (≥ 1,000 per second), and the median time of each stage. Never asserts on
time.

The machine is shared: other tenants take the core for milliseconds at a time, so one pass over
the corpus measures them as much as us (passes of the same code differ by up to 2× here). Each
file's compile is therefore timed in every pass, and three figures are printed: the median pass,
the best pass, and the corpus at each file's fastest compile (the sum of per-file minima, what
``timeit`` recommends for one operation: noise only ever adds time).

    python benchmarks/bench_compile.py [--n 2000] [--repeat 5] [--cpu N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edgedsl.api import compile as compile_source
from edgedsl.check import check
from edgedsl.core.source import Source
from edgedsl.plan.compile import compile_program
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import parse

CATALOG = """\
platform fin "mini finance" {
  type CorpCode = code /^[0-9]{8}$/ "DART 고유번호"
  type StockCode = code /^[0-9]{6}$/ "KRX code"

  record Corp {
    corp_code: CorpCode
    corp_name: str
    stock_code: StockCode?
  }

  record Filing {
    corp_code: CorpCode
    report_nm: str
    rcept_dt: date
    pblntf_ty: enum[A, B, C]?
  }

  record Price {
    srtnCd: StockCode
    basDt: date
    clpr: int
    fltRt: float
    mrktCtg: enum[KOSPI, KOSDAQ, KONEX]
  }

  tool corp "회사 검색" (corp_name: str) -> [Corp]
  tool filings "공시" (corp_code: CorpCode, bgn_de: date?) -> [Filing] paged (
    page: page_no,
    size: page_count <= 100,
    total: total_count,
  )
  tool price "시세" (srtnCd: StockCode?, basDt: date?) -> [Price]
}
"""

NAMES = ["삼성전자", "SK하이닉스", "LG화학", "현대차", "NAVER", "카카오"]


def trajectory(i: int, rng: random.Random) -> str:
    """One 10–20-line trajectory over the mini catalog, varied by ``rng``."""
    reducer = rng.choice(
        [
            "max rcept_dt",
            "min rcept_dt",
            "most_frequent report_nm",
            "where rcept_dt after 2024-06-01",
        ]
    )
    extra = rng.randint(0, 2)
    lines = [
        f'trajectory t{i} "{rng.choice(NAMES)}의 최근 공시와 종가는?" {{',
        f'  corp = fin.corp(corp_name: "{rng.choice(NAMES)}")',
        "  filings = fin.filings(corp_code: seq corp.corp_code, bgn_de: 2024-01-01) pages all",
        f"  latest = drv filings | {reducer} | max rcept_dt",
        "  price = fin.price(srtnCd: seq corp.stock_code, basDt: seq latest.rcept_dt)",
    ]
    for k in range(extra):
        lines.append(f"  p{k} = fin.price(basDt: 2024-12-{10 + k:02d})")
        lines.append(f'  top{k} = drv p{k} | where mrktCtg == "KOSPI" | max fltRt')
    lines += [
        "  answer {",
        "    report: latest.report_nm,",
        "    close: price.clpr,",
        *[f"    top{k}: top{k}.srtnCd," for k in range(extra)],
        "    change: round(price.fltRt * 100, 2),",
        "  }",
        "}",
    ]
    return "use fin\n\n" + "\n".join(lines) + "\n"


def write_corpus(d: Path, n: int) -> list[Source]:
    """The catalog ``fin.edge`` and ``n`` trajectory files ``t0.edge`` … written to ``d``
    (always the same corpus), read back as sources."""
    rng = random.Random(7)
    (d / "fin.edge").write_text(CATALOG, encoding="utf-8")
    sources = []
    for i in range(n):
        path = d / f"t{i}.edge"
        path.write_text(trajectory(i, rng), encoding="utf-8")
        sources.append(Source.from_path(path))
    return sources


def _per_file(fn: Callable[[Source], object], sources: list[Source], repeat: int
              ) -> tuple[list[float], list[float]]:
    """``(pass times, per-file minima)`` of ``repeat`` passes of ``fn`` over ``sources``."""
    passes: list[float] = []
    best = [float("inf")] * len(sources)
    clock = time.perf_counter
    for _ in range(repeat):
        total = 0.0
        for i, s in enumerate(sources):
            t0 = clock()
            fn(s)
            t = clock() - t0
            total += t
            if t < best[i]:
                best[i] = t
        passes.append(total)
    return passes, best


def _stage_medians(sources: list[Source]) -> dict[str, float]:
    """Median milliseconds of each stage over ``sources``."""
    times: dict[str, list[float]] = {"parse + build": [], "check": [], "plan": []}
    for s in sources:
        t0 = time.perf_counter()
        module = parse_module(s)
        t1 = time.perf_counter()
        result = check(module, s)
        t2 = time.perf_counter()
        compile_program(result.program)
        t3 = time.perf_counter()
        times["parse + build"].append(t1 - t0)
        times["check"].append(t2 - t1)
        times["plan"].append(t3 - t2)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="corpus size (default 2000)")
    ap.add_argument("--repeat", type=int, default=5, help="passes over the corpus (default 5)")
    ap.add_argument("--cpu", type=int, default=None,
                    help="pin the process to this CPU (os.sched_setaffinity): the target is "
                         "for one core, and a process moved between cores pays for it")
    args = ap.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    with tempfile.TemporaryDirectory() as tmp:
        sources = write_corpus(Path(tmp), args.n)
        lines = [s.line_count for s in sources]
        compile_source(sources[0])  # warm the parsers and the module / catalog memos

        base_passes, base_min = _per_file(parse, sources, args.repeat)
        ours_passes, ours_min = _per_file(compile_source, sources, args.repeat)
        base, ours = min(base_passes), min(ours_passes)

        # per-trajectory distribution on a small sample
        sample = []
        for s in sources[:200]:
            t = time.perf_counter()
            compile_source(s)
            sample.append(time.perf_counter() - t)
        stages = _stage_medians(sources[:200])

    n = args.n
    cpus = sorted(os.sched_getaffinity(0))
    print(f"corpus: {n} trajectories, {min(lines)}–{max(lines)} lines each; "
          f"CPU {cpus[0] if len(cpus) == 1 else 'any of ' + str(cpus)}")
    print(f"baseline (parse only):        {n / base:10.0f} per second (best pass), "
          f"{n / statistics.median(base_passes):.0f} (median pass), "
          f"{n / sum(base_min):.0f} (per-file minima)")
    print(f"ours (parse + check + plan):  {n / ours:10.0f} per second (best pass), "
          f"{n / statistics.median(ours_passes):.0f} (median pass), "
          f"{n / sum(ours_min):.0f} (per-file minima)")
    print(f"median compile of one file:   {statistics.median(sample) * 1e3:10.3f} ms")
    for stage, ms in stages.items():
        print(f"  median {stage + ':':22s}{ms:10.3f} ms")
    print(f"ratio ours / parse-only:      {base / ours:10.2f}")
    print(f"ratio ours / target (1000/s): {n / ours / 1000:10.2f} (best pass), "
          f"{n / sum(ours_min) / 1000:.2f} (per-file minima)")


if __name__ == "__main__":
    main()
