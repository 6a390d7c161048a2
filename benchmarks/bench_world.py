"""World throughput: calls per second for list endpoints of ≤ 100 records, in process.

Measures, in the same process, over a mix of five list endpoints of different platforms (each
answering 100 records):
  * engine: ``World.call`` alone (routing, filters, paging, envelope, JSON encoding);
  * ours: the ``world`` backend — the full client path of a trajectory step (request building,
    httpx over the ASGI transport, normalisation back to records), sequential and 8 concurrent;
  * baseline: the same client over real HTTP to the same world served by uvicorn on 127.0.0.1
    (what the in-process transport saves);
and prints calls per second and the ratio of in process to loopback HTTP. Datasets are built
once before timing (their one-off build times are printed).

Then the world's largest datasets (the Seoul 실거래가 and 전월세 구-years of a seed no other part
of the run uses), generated against loaded from the disk cache (``edgedsl.world.diskcache``,
a temporary directory), the same values both ways. Never asserts on time.

    python benchmarks/bench_world.py [--calls 1000] [--repeat 3] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratios import speedup

from edgedsl.api import check
from edgedsl.core.resources import stdlib_dir
from edgedsl.plan.model import ToolSpec
from edgedsl.runtime.http import (
    HttpBackend,
    HttpOptions,
    build_request,
    make_world_backend,
)
from edgedsl.world.app import make_app
from edgedsl.world.diskcache import CACHE_ENV
from edgedsl.world.engine import World
from edgedsl.world.platforms import seoul

# (catalog tool, trajectory arguments, page) — every answer is one page of 100 records
MIX: list[tuple[str, dict[str, Any]]] = [
    ("neis.schools", {"ATPT_OFCDC_SC_CODE": "B10"}),
    ("fsc.stock_prices", {"basDt": "20241227"}),
    ("ex.rest_areas", {}),
    ("assembly.members", {}),
    ("nec.districts", {"sgId": "20240410", "sgTypecode": "2"}),
]


def specs() -> list[tuple[ToolSpec, dict[str, Any]]]:
    cat = check("use neis, fsc, ex, assembly, nec\n", "<bench>",
                search_paths=[stdlib_dir()]).catalog
    out = []
    for qual, args in MIX:
        tool = cat.tool(qual)
        assert tool is not None, qual
        spec = ToolSpec.of(tool, cat)
        if spec.paging is not None:  # ask for 100 records per page
            spec = dataclasses.replace(spec, paging=dataclasses.replace(
                spec.paging, size_limit=100))
        out.append((spec, args))
    return out


def best_rate(fn: Any, calls: int, repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        fn(calls)
        best = max(best, calls / (time.perf_counter() - t))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size: the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        args.calls, args.repeat = 40, 1

    world = World(seed=0)
    mix = specs()
    backend = make_world_backend(world=world, options=HttpOptions(concurrency=8))

    async def one(i: int, be: HttpBackend) -> int:
        spec, a = mix[i % len(mix)]
        resp = await be.call(spec, dict(a), page=1)
        return len(resp.records)

    # warm up: build every dataset once, check the answers' size
    t0 = time.perf_counter()
    async def warm() -> list[int]:
        return [await one(i, backend) for i in range(len(mix))]

    sizes = asyncio.run(warm())
    print(f"warm-up (builds datasets once): {time.perf_counter() - t0:.2f} s; "
          f"records per answer: {sizes}")

    # engine only: the same requests straight into World.call
    reqs = []
    for spec, a in mix:
        r = build_request(spec, a, 1, "bench-key")
        reqs.append((r.method, urlsplit(r.url).path, r.params))

    def engine(n: int) -> None:
        for i in range(n):
            m, p, q = reqs[i % len(reqs)]
            world.call(m, p, q)

    def seq(n: int) -> None:
        async def go() -> None:
            for i in range(n):
                await one(i, backend)
        asyncio.run(go())

    def conc(n: int) -> None:
        async def go() -> None:
            await asyncio.gather(*(one(i, backend) for i in range(n)))
        asyncio.run(go())

    # baseline: real HTTP to the same world under uvicorn on loopback
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(world), host="127.0.0.1", port=port,
                                           log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    while not server.started:
        time.sleep(0.05)
    hosts = {urlsplit(spec.base or "").hostname or "": f"http://127.0.0.1:{port}"
             for spec, _ in mix}
    loop_be = HttpBackend(keys={s.platform: "bench-key" for s, _ in mix}, host_map=hosts,
                          options=HttpOptions(concurrency=8))

    def loopback(n: int) -> None:
        async def go() -> None:
            await asyncio.gather(*(one(i, loop_be) for i in range(n)))
        asyncio.run(go())

    n = args.calls
    r_engine = best_rate(engine, n, args.repeat)
    r_seq = best_rate(seq, n, args.repeat)
    r_conc = best_rate(conc, n, args.repeat)
    r_loop = best_rate(loopback, max(100, n // 4), args.repeat)
    server.should_exit = True
    th.join(timeout=5)

    print(f"engine only (World.call):            {r_engine:8.0f} calls/s")
    print(f"world backend, sequential:           {r_seq:8.0f} calls/s")
    print(f"world backend, 8 concurrent:         {r_conc:8.0f} calls/s")
    print(f"baseline: uvicorn on 127.0.0.1 (8c): {r_loop:8.0f} calls/s")
    speedup("world calls in process (8 concurrent) vs uvicorn on 127.0.0.1", 1 / r_conc,
            1 / r_loop, baseline_label="loopback HTTP, 8 concurrent")
    disk_cache(gus=2 if args.smoke else len(seoul.SEOUL_GU))


def disk_cache(gus: int, seed: int = 977) -> None:
    """The Seoul 구-years of ``seed`` for the first ``gus`` 구: generated (the generators under
    both caches) against loaded from a fresh disk cache (the disk layer alone, written first)."""
    years = [(g, y) for y in seoul.RTMS_YEARS for g in seoul.SEOUL_GU[:gus]]
    fns = (seoul._rtms_gu_year, seoul._rent_gu_year)
    old = os.environ.get(CACHE_ENV)
    with tempfile.TemporaryDirectory(prefix="edgedsl-world-cache-") as tmp:
        os.environ[CACHE_ENV] = tmp
        try:
            t0 = time.perf_counter()
            made = [fn.__wrapped__.__wrapped__(seed, g, y) for fn in fns for g, y in years]
            t_gen = time.perf_counter() - t0
            for fn in fns:
                for g, y in years:
                    fn.__wrapped__(seed, g, y)  # written
            t0 = time.perf_counter()
            loaded = [fn.__wrapped__(seed, g, y) for fn in fns for g, y in years]
            t_load = time.perf_counter() - t0
        finally:
            if old is None:
                os.environ.pop(CACHE_ENV, None)
            else:
                os.environ[CACHE_ENV] = old
    assert loaded == made, "the disk cache gave other rows"
    rows = sum(map(len, made))
    speedup(f"Seoul real estate, {len(years)} 구-years ({rows:,} rows): loaded from the disk "
            "cache vs generated", t_load, t_gen, baseline_label="generated")


if __name__ == "__main__":
    main()
