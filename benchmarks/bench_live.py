"""Live-like makespan: with 100 ms of latency injected per call, how close a trajectory's
wall-clock makespan comes to its critical-path bound.

Each chain example of ``examples/world/`` runs on the world backend with a fault plan giving
every call ``--latency`` seconds of latency (the world sleeps on the event loop, as a slow
server would, for what its own work left of the latency: a remote server's work is part of its
response time, and an in-process world's would otherwise be charged twice). The bound is the
sum of latencies along the longest dependency chain of the steps that ran: a call step weighs
``latency × pages`` of its slowest arm (fan arms, compare arms and parallel branches are
concurrent), reductions weigh nothing. Each trajectory is warmed up (``WARMUP`` runs) and then
run ``--repeat`` times with latency; the ratio of the median makespan to the bound is printed
per trajectory (target ≤ 1.2); the baseline is the same trajectory with every call made one
after another (the sum of all latencies), showing what concurrency saves. Runs go through
the synchronous :func:`~edgedsl.runtime.executor.run`, which reuses one event loop per thread
(as a long-running client would; ``asyncio.run`` per run would add a loop, an HTTP client and a
SIGINT handler — whose ``repr`` of the running task alone costs ~1 ms — to every makespan).
Never asserts on time.

The world runs inside this process, so its datasets (~100,000 long-lived objects: 법정동, the
company universe, bills, candidates …) are walked by every full cyclic-garbage collection of
the client — ~100–150 ms each on a loaded 2-core machine, a pause a remote server's heap would
never cause. ``--gc-freeze`` moves everything alive after the warm-up runs out of the
collector's view (``gc.freeze()``), as if the world ran elsewhere; off by default.

``--served`` makes it live in earnest: the world runs in its own process
(``edgedsl world serve`` on 127.0.0.1, with the latency as its fault plan) and the trajectories
run on the ``http`` backend, every declared host mapped to that loopback server. The world's
own work (selecting, projecting and encoding thousands of rows) then happens where a real
service's would, on the other side of a socket, and the makespan holds only the client: HTTP,
decoding, normalisation, shredding, reductions and scheduling.

Each backend decodes a large flat XML answer it has decoded before from its
:class:`~edgedsl.runtime.normalize.DecodeMemo` (DART's ``corpCode.xml``: the call is made,
its bytes are hashed, ~60 ms of decoding is saved); ``--no-memo`` decodes every answer afresh.

    python benchmarks/bench_live.py [--latency 0.1] [--repeat 5]
                                    [--examples 'examples/world/*.edge']
                                    [--gc-freeze] [--served] [--no-memo]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import glob
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edgedsl.api import compile as compile_source
from edgedsl.core.resources import stdlib_dir
from edgedsl.plan.model import Plan, TrajectoryPlan
from edgedsl.runtime.backends import Backend
from edgedsl.runtime.executor import run
from edgedsl.runtime.http import WORLD_KEY, HttpBackend, HttpOptions, make_world_backend
from edgedsl.runtime.trace import Trace
from edgedsl.world.engine import World
from edgedsl.world.faults import FaultPlan, FaultRule

WARMUP = 3
"""Runs of each trajectory before the timed ones."""


def critical_path(plan: Plan, traj: TrajectoryPlan, trace: Trace,
                  latency: float) -> tuple[float, float]:
    """``(bound, serial)``: the longest dependency chain of latencies, and their plain sum.

    Only calls of tools with an HTTP part carry the injected latency: a tool without one (such
    as ``std.utmk_to_wgs84``) runs in process and weighs nothing. Data dependencies are the
    plan's ``deps``; a step inside an ``if`` branch or a ``parallel`` group also waits for what
    its container waits for (the predicate's or the shared arguments' sources), and a container
    finishes when the last of its steps that ran does."""
    ran = {s.id: s for s in trace.steps}
    weight: dict[str, float] = {}
    serial = 0.0
    for sid, st in ran.items():
        request = getattr(traj.steps.get(sid), "request", None)
        tool = plan.tools.get(request.tool) if request is not None else None
        if tool is not None and tool.method is None:  # in process: no latency injected
            continue
        per_arm = Counter(c.arm for c in st.calls)
        weight[sid] = latency * max(per_arm.values(), default=0)
        serial += latency * len(st.calls)
    deps = {sid: list(getattr(step, "deps", [])) for sid, step in traj.steps.items()}
    parent: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    for sid, step in traj.steps.items():
        kids = list(getattr(step, "branches", []))
        for layer in [*getattr(step, "then", []), *getattr(step, "orelse", [])]:
            kids += layer
        children[sid] = kids
        for k in kids:
            parent[k] = sid
    memo: dict[str, float] = {}

    def ready(sid: str) -> float:
        """When every data and control dependency of ``sid`` has finished."""
        own = max((finish(d) for d in deps.get(sid, []) if d in ran), default=0.0)
        up = parent.get(sid)
        return own if up is None else max(own, ready(up))

    def finish(sid: str) -> float:
        if sid not in memo:
            end = ready(sid) + weight.get(sid, 0.0)
            memo[sid] = max([end, *(finish(k) for k in children.get(sid, []) if k in ran)])
        return memo[sid]

    return max((finish(s) for s in ran), default=0.0), serial


@contextlib.contextmanager
def served_world(latency: float, seed: int = 0) -> Iterator[str]:
    """``edgedsl world serve`` in a child process on a free port of 127.0.0.1, with ``latency``
    seconds added to every call; yields its base URL and stops it on exit."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        faults = Path(tmp) / "faults.json"
        faults.write_text(json.dumps({"rules": [{"kind": "latency", "latency": latency}]}))
        proc = subprocess.Popen(
            [sys.executable, "-m", "edgedsl", "world", "serve", "--port", str(port),
             "--seed", str(seed), "--faults", str(faults)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(OSError), socket.create_connection(
                        ("127.0.0.1", port), timeout=0.5):
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"the world did not start on 127.0.0.1:{port}\n{err}")
                time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def loopback_backend(plan: Plan, url: str, options: HttpOptions) -> HttpBackend:
    """The ``http`` backend with every host ``plan``'s tools declare mapped to ``url``."""
    hosts = {urlsplit(t.base).hostname for t in plan.tools.values() if t.base}
    return HttpBackend(host_map={h: url for h in hosts if h}, default_key=WORLD_KEY,
                       environ={}, options=options)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--examples", default=str(ROOT / "examples" / "world" / "*.edge"))
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed runs per trajectory with latency; the median is reported (5)")
    ap.add_argument("--gc-freeze", action="store_true",
                    help="after warming up, move the world's datasets out of the cyclic "
                         "collector's view (gc.freeze), as if the world ran elsewhere")
    ap.add_argument("--served", action="store_true",
                    help="run the world in its own process on 127.0.0.1 and the trajectories "
                         "on the http backend (the world's work off the client's clock)")
    ap.add_argument("--no-memo", action="store_true",
                    help="decode every answer afresh: no DecodeMemo (DART's corpCode.xml is "
                         "then decoded on every call, ~60 ms of CPU each)")
    args = ap.parse_args()
    if not glob.glob(args.examples):
        ap.error(f"no example matches {args.examples!r}")
    opts = HttpOptions(concurrency=8, **({"decode_memo": 0} if args.no_memo else {}))
    if args.served:
        with served_world(0.0) as fast_url, served_world(args.latency) as slow_url:
            run_all(args, lambda plan: loopback_backend(plan, fast_url, opts),
                    lambda plan: loopback_backend(plan, slow_url, opts))
        return
    world = World(seed=0)
    plain = make_world_backend(world=world, options=opts)
    slow_world = World(seed=0, faults=FaultPlan((FaultRule("latency", latency=args.latency),)))
    slow = make_world_backend(world=slow_world, options=opts)
    # the two worlds share one seed, hence their datasets and memoised selections
    run_all(args, lambda plan: plain, lambda plan: slow)


def run_all(args: argparse.Namespace, plain_of: Callable[[Plan], Backend],
            slow_of: Callable[[Plan], Backend]) -> None:
    """Run every trajectory of ``args.examples`` warm on the plain backend (its time without
    latency: our own processing), then on the slow one, and print makespan against bound."""
    print(f"world: {'its own process, http backend' if args.served else 'in process'}; "
          f"gc.freeze after warm-up: {'yes' if args.gc_freeze else 'no'}; "
          f"decode memo: {'no' if args.no_memo else 'yes'}")
    print(f"{'trajectory':36} {'calls':>5} {'no-lat':>7} {'makespan':>9} {'bound':>7} "
          f"{'ratio':>6} {'serial':>7}")
    worst = 0.0
    for path in sorted(glob.glob(args.examples)):
        plan: Plan = compile_source(Path(path).read_text(), path, search_paths=[stdlib_dir()])
        plain, slow = plain_of(plan), slow_of(plan)
        for traj in plan.trajectories:
            # warm the world's datasets and memo so that the timed run measures latency + us:
            # the second run of a trajectory is still up to 2× slower than the third and later
            # ones (caches filled, the first run's garbage collected), so warm up three times
            for _ in range(WARMUP):
                run(plan, traj.name, plain)
                if args.served:  # the slow server is another process: warm it as well
                    run(plan, traj.name, slow)
            t = time.perf_counter()
            run(plan, traj.name, plain)
            own = time.perf_counter() - t  # the run without latency: our own processing
            if args.gc_freeze:  # the world's datasets as a remote server's: out of our GC
                gc.collect()
                gc.freeze()
            spans = []
            for _ in range(args.repeat):  # the median run: one run is as noisy as the machine
                t = time.perf_counter()
                res = run(plan, traj.name, slow)
                spans.append(time.perf_counter() - t)
            makespan = statistics.median(spans)
            if not res.ok or res.trace is None:
                print(f"{traj.name:36} failed: {[d.message for d in res.diagnostics][:1]}")
                continue
            bound, serial = critical_path(plan, traj, res.trace, args.latency)
            calls = sum(len(s.calls) for s in res.trace.steps)
            ratio = makespan / bound if bound else float("nan")
            worst = max(worst, ratio)
            print(f"{traj.name:36} {calls:5d} {own:6.3f}s {makespan:8.3f}s {bound:6.2f}s "
                  f"{ratio:6.2f} {serial:6.2f}s")
    verdict = "met" if worst <= 1.2 else "NOT met"
    print(f"worst makespan / critical-path bound: {worst:.2f} (target ≤ 1.2: {verdict})")


if __name__ == "__main__":
    main()
