"""Replay of a five-call trajectory from the store, against baselines measured in the same run.

The trajectory (over ``examples/fin.edge`` and the in-process tools of ``examples/tools.py``)
makes five calls: a DART company lookup, one page of disclosures, the company profile and two
KRX price lookups. It is run N times on

* ``python``      — the in-process tools directly (every call computed);
* ``json-cache``  — a naive cache: one JSON file per call key, read and parsed on every call;
* ``store``       — the DuckDB store in strict mode (stored columns cached in memory; the one
  ``drv`` reads them inline in its single statement on the scratch connection, no run table is
  written).

Prints runs per second of each, the median duration of the ``drv`` step inside the runs (from
the trace), and the ratio of the store to each baseline. Never asserts on time. Usage:
``python benchmarks/bench_replay.py [N]``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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


def bench(label: str, plan: Any, backend: Any, n: int) -> tuple[float, Any]:
    """Runs per second of ``n`` sequential runs (after one warm-up run)."""
    first = run(plan, "bench_five", backend)
    assert first.ok, first.diagnostics
    drv = []
    t0 = time.perf_counter()
    for _ in range(n):
        res = run(plan, "bench_five", backend)
        drv.append(res.trace.step("latest").duration_ms)
    rate = n / (time.perf_counter() - t0)
    calls = sum(len(s.calls) for s in res.trace.steps)
    print(f"{label:<12} {rate:9.1f} runs/s   ({calls} calls per run; the drv step "
          f"{statistics.median(drv):.3f} ms median)")
    return rate, res.answer


def main(n: int = 200) -> None:
    """Run the three configurations and print the ratios."""
    plan = edgedsl.compile(SOURCE, "bench_five.edge", search_paths=[ROOT / "examples"])
    tools = PythonBackend(load_python_tools(ROOT / "examples" / "tools.py"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = Store(folder / "bench.duckdb")
        recorded = run(plan, "bench_five", RecordingBackend(tools, store))
        assert recorded.ok, recorded.diagnostics
        (folder / "json").mkdir()
        json_backend = JsonCacheBackend(tools, folder / "json")
        py_rate, a1 = bench("python", plan, tools, n)
        js_rate, a2 = bench("json-cache", plan, json_backend, n)
        st_rate, a3 = bench("store", plan, StoreBackend(store, strict=True), n)
        assert a1 == a2 == a3 == recorded.answer
        store.close()
    print(f"store / python     = {st_rate / py_rate:5.2f}x")
    print(f"store / json-cache = {st_rate / js_rate:5.2f}x")
    print(f"target store >= 200 runs/s: {st_rate:.1f} = {st_rate / 200:.2f}x the target -> "
          f"{'met' if st_rate >= 200 else 'NOT met'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
