"""Benchmark: a ``drv`` reduction over a 224,958-record stored hand-off, DuckDB vs pure Python.

Builds the relation once in a DuckDB file, shredded into typed columns as the store keeps it, then
measures in the same process:

(a) ours — ``Relation.from_table(...).reduce(chain)`` + the kept rows' distinct hand-off values;
(b) baseline — the same records as one JSON blob, parsed with orjson, coerced and reduced in pure
    Python (the reference implementations), then the distinct hand-off values;
(c) the fixed overhead on a 27-record relation: shred + reduce + distinct.

Prints medians and ratios; asserts nothing about time. Usage::

    python benchmarks/bench_drv.py [--runs 30] [--records 224958]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgedsl.reducers import REDUCERS, ReduceStep, coerce
from edgedsl.runtime.duck import Relation, shred
from edgedsl.types import DATE, INT, STR, EnumType, FieldType

TYPES: dict[str, FieldType] = {
    "dealAmount": INT,
    "dealDate": DATE,
    "aptNm": STR,
    "sggCd": STR,
    "kind": EnumType(("A", "B", "C")),
}
CHAIN = [
    ReduceStep("eq", "kind", "A"),
    ReduceStep("ge", "dealAmount", "90,000"),
    ReduceStep("max", "dealDate"),
]
HANDOFF = "aptNm"


def make_records(n: int) -> list[dict[str, Any]]:
    """Deterministic apartment-trade-like records with string numbers and mixed date formats."""
    out = []
    for i in range(n):
        amount = (i * 7919) % 120_000
        y, m, d = 2015 + i % 10, 1 + (i // 7) % 12, 1 + (i // 3) % 28
        date = (f"{y}{m:02d}{d:02d}", f"{y}-{m:02d}-{d:02d}", f"{y}.{m:02d}.{d:02d}")[i % 3]
        out.append(
            {
                "dealAmount": f"{amount:,}" if i % 2 else amount,
                "dealDate": date,
                "aptNm": f"래미안{i % 5003}",
                "sggCd": f"{11110 + i % 25 * 10}",
                "kind": "ABC"[i % 3],
                "floor": i % 30,
            }
        )
    return out


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of ``fn`` over ``runs`` runs (one warm-up run first)."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def python_baseline(blob: bytes) -> list[Any]:
    """Parse the JSON blob, reduce with the pure-Python reference, distinct hand-off values."""
    rows = orjson.loads(blob)
    for step in CHAIN:
        kept = REDUCERS[step.op].reference(rows, step.field, step.pivot, TYPES[step.field])
        rows = [rows[i] for i in kept]
    return list(dict.fromkeys(v for r in rows if (v := coerce(STR, r.get(HANDOFF))) is not None))


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--records", type=int, default=224_958)
    args = ap.parse_args()

    records = make_records(args.records)
    blob = orjson.dumps(records)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "store.duckdb")
        t = time.perf_counter()
        with duckdb.connect(path) as con:
            shred(con, records, TYPES, name="handoff")
        took = time.perf_counter() - t
        print(f"shred {args.records:,} records into a DuckDB file: {took:.3f} s (once)")

        con = duckdb.connect(path, read_only=True)

        def ours() -> list[Any]:
            rel = Relation.from_table(con, "handoff", TYPES)
            out = rel.reduce(CHAIN)
            values = out.distinct(HANDOFF)
            out.drop()
            return values

        assert ours() == python_baseline(blob), "DuckDB and the Python baseline disagree"
        t_ours = median_seconds(ours, args.runs)
        t_py = median_seconds(lambda: python_baseline(blob), max(3, args.runs // 3))
        print(f"(a) DuckDB from_table+reduce+distinct  median {t_ours * 1e3:9.2f} ms")
        print(f"(b) orjson + pure-Python reduce         median {t_py * 1e3:9.2f} ms")
        print(f"    speed-up (b)/(a): {t_py / t_ours:.1f}x   kept hand-off values: {len(ours())}")
        con.close()

    small = make_records(27)
    mem = duckdb.connect()

    def tiny() -> list[Any]:
        rel = shred(mem, small, TYPES)
        out = rel.reduce(CHAIN)
        values = out.distinct(HANDOFF)
        out.drop()
        rel.drop()
        return values

    small_blob = orjson.dumps(small)
    t_tiny = median_seconds(tiny, args.runs)
    t_tiny_py = median_seconds(lambda: python_baseline(small_blob), args.runs)
    print(f"(c) 27 records: shred+reduce+distinct   median {t_tiny * 1e3:9.2f} ms")
    print(f"    27 records: pure-Python             median {t_tiny_py * 1e3:9.2f} ms")
    print(f"    overhead ratio (ours/python): {t_tiny / t_tiny_py:.0f}x")


if __name__ == "__main__":
    main()
