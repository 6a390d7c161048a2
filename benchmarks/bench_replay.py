"""Replay of a five-call trajectory from the store, against baselines measured in the same run.

The trajectory (over ``examples/fin.edge`` and the in-process tools of ``examples/tools.py``)
makes five calls: a DART company lookup, one page of disclosures, the company profile and two
KRX price lookups. It is run N times on

* ``python``      — the in-process tools directly (every call computed);
* ``json-cache``  — a naive cache: one JSON file per call key, read and parsed on every call;
* ``store``       — the DuckDB store in strict mode (stored columns cached in memory; the one
  ``drv`` reads them inline in its single statement on the scratch connection, no run table is
  written; from the second run on, the kept ids of that statement are remembered with the
  cached columns, see ``columns.StoredColumns``).

The three run in alternating blocks (five rounds of N/5 runs each), so that the machine's load
weighs on all three alike. Prints runs per second of each (the median block), the median
duration of the ``drv`` step inside the runs (from the trace), the spread of the per-round
ratios with the load average, and the ratio of the store to each baseline per run (target: at
least 2x the JSON-file cache). Never asserts on time. Usage: ``python
benchmarks/bench_replay.py [N | --smoke]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratios import speedup

import edgedsl
from edgedsl.plan.model import ToolSpec
from edgedsl.runtime import (
    PythonBackend,
    RecordingBackend,
    Response,
    Store,
    StoreBackend,
    load_python_tools,
    run,
)
from edgedsl.runtime.store import store_key

SOURCE = """\
use fin

trajectory bench_five "삼성전자의 12월 최근 공시, 대표자, 그날과 12월 2일의 종가는?" {
  corp = dart.corp_code(corp_name: "삼성전자")
  filings = dart.disclosures(corp_code: seq corp.corp_code, bgn_de: 2024-12-01,
                             end_de: 2024-12-31) pages 1
  info = dart.company(corp_code: seq corp.corp_code)
  latest = drv filings | max rcept_dt
  price = krx.stock_price(likeSrtnCd: seq corp.stock_code, basDt: seq latest.rcept_dt) pages 1
  first = krx.stock_price(likeSrtnCd: seq corp.stock_code, basDt: 2024-12-02) pages 1
  answer {
    report: latest.report_nm,
    ceo: info.ceo_nm,
    close: price.clpr,
    first: first.clpr,
  }
}
"""


class JsonCacheBackend:
    """The naive baseline: one JSON file per call key, parsed on every call."""

    name = "json-cache"

    def __init__(self, inner: Any, folder: Path) -> None:
        self.inner, self.folder = inner, folder

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None
                   ) -> Response:
        path = self.folder / f"{store_key(tool, args, page)}.json"
        if path.exists():
            data = orjson.loads(path.read_bytes())
            return Response(records=data["records"], total=data["total"], from_store=True)
        resp = await self.inner.call(tool, args, page=page)
        path.write_bytes(orjson.dumps({"records": resp.records, "total": resp.total}))
        return resp


def timed_block(plan: Any, backend: Any, n: int) -> tuple[float, list[float], Any]:
    """Seconds per run over ``n`` sequential runs, the ``drv`` step's durations and the answer."""
    drv = []
    t0 = time.perf_counter()
    for _ in range(n):
        res = run(plan, "bench_five", backend)
        drv.append(res.trace.step("latest").duration_ms)
    return (time.perf_counter() - t0) / n, drv, res


def main(n: int = 200, rounds: int = 5) -> None:
    """Run the three configurations in alternating blocks and print the ratios.

    The ``n`` runs of each configuration are split into ``rounds`` blocks, and the blocks of the
    three configurations alternate (python, json-cache, store, python, …), so that a change in
    the machine's load weighs on all three alike; each figure is the median block, and the
    spread of the per-round ratios is printed beside it."""
    plan = edgedsl.compile(SOURCE, "bench_five.edge", search_paths=[ROOT / "examples"])
    tools = PythonBackend(load_python_tools(ROOT / "examples" / "tools.py"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = Store(folder / "bench.duckdb")
        recorded = run(plan, "bench_five", RecordingBackend(tools, store))
        assert recorded.ok, recorded.diagnostics
        (folder / "json").mkdir()
        backends = {"python": tools,
                    "json-cache": JsonCacheBackend(tools, folder / "json"),
                    "store": StoreBackend(store, strict=True)}
        for backend in backends.values():  # warm-up (the JSON files are written here)
            first = run(plan, "bench_five", backend)
            assert first.ok and first.answer == recorded.answer, first.diagnostics
        per_run: dict[str, list[float]] = {k: [] for k in backends}
        drv: dict[str, list[float]] = {k: [] for k in backends}
        block = max(1, n // rounds)
        for _ in range(rounds):
            for label, backend in backends.items():
                t, d, res = timed_block(plan, backend, block)
                assert res.answer == recorded.answer
                per_run[label].append(t)
                drv[label] += d
        calls = sum(len(s.calls) for s in res.trace.steps)
        store.close()
    for label, ts in per_run.items():
        print(f"{label:<12} {1 / statistics.median(ts):9.1f} runs/s   ({calls} calls per run; "
              f"the drv step {statistics.median(drv[label]):.3f} ms median)")
    for base in ("python", "json-cache"):
        ratios = [b / s for b, s in zip(per_run[base], per_run["store"], strict=True)]
        print(f"    store vs {base}, per round: {min(ratios):.2f}–{max(ratios):.2f}x "
              f"(load {os.getloadavg()[0]:.1f})")
    total = block * rounds
    st, py, js = (statistics.median(per_run[k]) for k in ("store", "python", "json-cache"))
    speedup(f"store replay vs python tools ({total} runs)", st, py,
            baseline_label="in-process tools")
    speedup(f"store replay vs JSON-file cache ({total} runs)", st, js,
            at_least=2.0, baseline_label="JSON-file cache")

if __name__ == "__main__":
    if sys.argv[1:] == ["--smoke"]:  # the benchmark smoke test: the smallest size
        main(5, rounds=1)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
