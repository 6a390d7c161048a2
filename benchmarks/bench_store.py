"""Replay lookups in a store of one million recorded records, against a baseline in the same run.

Builds a store of R responses × K records (default 10,000 × 100 = 1,000,000 records) of one tool
with five typed fields, through :meth:`Store.put_many` in batches of 200 responses (one
transaction each; the build time is reported apart), and the same responses in the baseline: a
plain ``sqlite3`` table ``key → orjson blob of the records``. Then, for L random recorded calls
(default 2,000, each key once), measures lookups per second:

* ``lookup``        — :meth:`StoreBackend.call`: the store key, the index hit, a Response whose
  records load lazily (what a replayed call costs before its records are read);
* ``lookup+columns, cold`` — plus the typed columns of the response as replay reads them
  (:meth:`Store.columns`: on first use one query, which finds the response's rows by its
  ``__seq`` — one row group read, the others skipped by their min/max);
* ``lookup+columns, warm`` — the same calls again (columns cached in memory);
* ``lookup+columns, cold, by __key`` — other calls, with the store's ``seq`` index dropped: rows
  found by a scan of ``__key``, as in files recorded before ``seq`` was kept;
* baseline ``sqlite`` — the store key, one ``SELECT`` of the blob, ``orjson.loads``.

Prints the rates, the ratio of each to the baseline (``benchmarks/ratios.py``), the file sizes
and the peak RSS. Never asserts on time. Usage:
``python benchmarks/bench_store.py [RESPONSES] [RECORDS_PER_RESPONSE] [LOOKUPS]`` (or
``--smoke``: the smallest size).
"""

from __future__ import annotations

import asyncio
import random
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratios import speedup

from edgedsl.plan.model import ToolSpec, validated
from edgedsl.runtime import Response, Store, StoreBackend
from edgedsl.runtime.store import store_key

BATCH = 200  # responses per transaction while building

TOOL = validated(ToolSpec, {
    "qualname": "bench.rows", "platform": "bench", "name": "rows",
    "declaration_hash": "be0c5e0be0c5e0be", "params": [{"name": "n", "type": "int"}],
    "fields": {"i": "int", "name": "str", "day": "date", "amount": "float", "code": "str"},
})


def records(n: int, k: int) -> list[dict[str, Any]]:
    return [{"i": n * k + j, "name": f"회사 {n}-{j}",
             "day": f"2024{1 + j % 12:02d}{1 + j % 28:02d}",
             "amount": f"{(n * 7919 + j * 104729) % 10_000_000:,}", "code": f"{n % 1000:06d}"}
            for j in range(k)]


def build(path: Path, sqlite_path: Path, n_resp: int, k: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    with Store(path, load_index=False) as store:
        for lo in range(0, n_resp, BATCH):
            batch = []
            for n in range(lo, min(n_resp, lo + BATCH)):
                recs = records(n, k)
                batch.append((TOOL, {"n": n}, None,
                              Response(records=recs, total=k, raw=orjson.dumps(recs))))
            store.put_many(batch)
    t_store = time.perf_counter() - t0
    t0 = time.perf_counter()
    db = sqlite3.connect(sqlite_path)
    db.execute("CREATE TABLE r (key TEXT PRIMARY KEY, body BLOB)")
    for lo in range(0, n_resp, BATCH):
        db.executemany("INSERT INTO r VALUES (?, ?)", [
            (store_key(TOOL, {"n": n}, None), orjson.dumps(records(n, k)))
            for n in range(lo, min(n_resp, lo + BATCH))])
        db.commit()
    db.close()
    return t_store, time.perf_counter() - t0


def rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def main() -> None:
    argv = ["200", "10", "100"] if sys.argv[1:] == ["--smoke"] else sys.argv[1:]
    n_resp = int(argv[0]) if len(argv) > 0 else 10_000
    k = int(argv[1]) if len(argv) > 1 else 100
    n_look = min(n_resp, int(argv[2]) if len(argv) > 2 else 2_000)
    tmp = Path(tempfile.mkdtemp(prefix="bench_store_"))
    try:
        measure(tmp, n_resp, k, n_look)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(tmp: Path, n_resp: int, k: int, n_look: int) -> None:
    path, sq = tmp / "store.duckdb", tmp / "baseline.sqlite"
    t_store, t_sqlite = build(path, sq, n_resp, k)
    total = n_resp * k
    print(f"built {n_resp:,} responses × {k} = {total:,} records: store {t_store:.1f} s "
          f"({total / t_store:,.0f} records/s), sqlite baseline {t_sqlite:.1f} s")
    size = path.stat().st_size + (Path(str(path) + ".wal").stat().st_size
                                  if Path(str(path) + ".wal").exists() else 0)
    print(f"file size: store {size / 2**20:.1f} MiB ({size / total:.0f} B/record), "
          f"sqlite baseline {sq.stat().st_size / 2**20:.1f} MiB")

    keys = random.Random(1).sample(range(n_resp), n_look)
    types = TOOL.field_types()

    # baseline: sqlite key → blob
    db = sqlite3.connect(sq)
    t0 = time.perf_counter()
    for n in keys:
        (body,) = db.execute("SELECT body FROM r WHERE key = ?",
                             [store_key(TOOL, {"n": n}, None)]).fetchone()
        got = orjson.loads(body)
    base = rate(n_look, time.perf_counter() - t0)
    assert len(got) == k
    db.close()

    t_open = time.perf_counter()
    backend = StoreBackend(path)  # read-only, shared lock; loads the key index
    t_open = time.perf_counter() - t_open
    store = backend.store

    async def lookups(with_columns: bool, keys: list[int] = keys) -> float:
        t0 = time.perf_counter()
        for n in keys:
            resp = await backend.call(TOOL, {"n": n}, page=None)
            if with_columns:
                assert resp.stored is not None
                cols = store.columns(resp.stored, types)
                assert cols is not None and len(cols["__row"]) == k
        return rate(len(keys), time.perf_counter() - t0)

    only = asyncio.run(lookups(False))
    cold = asyncio.run(lookups(True))
    warm = asyncio.run(lookups(True))
    # as a file recorded before `seq` was kept: rows found by a scan of `__key`
    store._seqs.clear()
    store._cache.clear()
    store._cached_cells = 0
    others = [n for n in random.Random(2).sample(range(n_resp), min(n_resp, 2 * n_look))
              if n not in set(keys)][:min(300, n_look)]
    by_key = asyncio.run(lookups(True, others)) if others else float("nan")
    backend.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB (Linux)

    print(f"store open (key index of {n_resp:,} responses): {t_open * 1000:.0f} ms")
    print(f"{n_look:,} random lookups, each key once:")
    print(f"  sqlite key→blob + orjson (baseline) {base:10,.0f}/s")
    for name, r in (("lookup (StoreBackend.call)", only), ("lookup+columns, cold", cold),
                    ("lookup+columns, warm", warm),
                    ("lookup+columns, cold, by __key", by_key)):
        speedup(f"store {name}", 1 / r, 1 / base, baseline_label="sqlite key→blob + orjson")
    print(f"cold columns by __seq vs by __key scan: ×{cold / by_key:.1f}")
    print(f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
