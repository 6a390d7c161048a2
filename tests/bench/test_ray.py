"""``--ray``: bench episodes and synthesis attempts on a local Ray instance of 2 CPUs give the
same results as the local run (edgedsl.core.pool), and ``--ray`` without Ray says which extra
to install.

One module-scoped fixture starts Ray once for the module (``ray.init`` costs seconds and a
gigabyte) and shuts it down after, checking that none of its processes is left behind. The
synthesis comparison lives here too, so that the module starts Ray only once.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.bench.agents.base import make_agent
from edgedsl.bench.bundle import Bundle
from edgedsl.bench.runner import run_bench
from edgedsl.cli import main
from edgedsl.core.pool import GCS_WAIT, Parallel, PoolError, RayPool, require_ray
from edgedsl.recipe.synth.pipeline import SynthConfig, synthesize
from edgedsl.runtime.backends import make_backend
from tests.synth_world import light_catalog, light_graph

TIMINGS = ("started_at", "duration_ms")


def _session_processes(session: str) -> list[str]:
    """The command lines of live processes that belong to Ray session directory ``session``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if session in cmd:
            found.append(f"{proc.name}: {cmd[:120]}")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    """A local Ray instance of 2 CPUs for this module; afterwards none of its processes lives.

    It is started by ``ray start --head --block`` in a subprocess of its own, which stops every
    process of the instance when terminated, and this process connects to it. ``ray.init``
    starting the instance from the test process would fork its servers from a process that may
    already run native threads (DuckDB's, after an earlier test), and Ray's ``preexec_fn``
    then crashes the child: the GCS server died with SIGSEGV after any bench run here."""
    ray = pytest.importorskip("ray")
    port = _free_port()
    # no token: this process's Ray config was read when ray was first imported, and a token
    # mode set afterwards is not seen by its client (the connection is refused); the instance
    # lives for this module only, on a free port
    auth = {"RAY_AUTH_MODE": "disabled"}
    saved = {k: os.environ.get(k) for k in auth}
    os.environ.update(auth)
    head = subprocess.Popen(
        [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
         f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
         "--disable-usage-stats", f"--object-store-memory={100 * 1024 * 1024}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, GCS_WAIT: os.environ.get(GCS_WAIT, "120")})  # auth included
    session = ""
    try:
        deadline = time.monotonic() + 180
        while True:
            if head.poll() is not None:
                pytest.fail(f"`ray start --head` exited with {head.returncode}")
            try:
                ray.init(address=f"127.0.0.1:{port}", log_to_driver=False)
                break
            except (ConnectionError, RuntimeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
        session = Path(ray._private.worker._global_node.get_session_dir_path()).name
        yield ray
    finally:
        ray.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
    deadline = time.monotonic() + 30
    while session and _session_processes(session) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not session or not _session_processes(session), _session_processes(session)


def _episodes(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The episodes of a results directory by (task, rollout), timings left out."""
    eps = {}
    for line in (out / "episodes.jsonl").read_bytes().splitlines():
        ep = orjson.loads(line)
        for k in TIMINGS:
            ep.pop(k)
        for c in ep["calls"]:
            c.pop("start_ms")
            c.pop("duration_ms")
        eps[(ep["task_id"], ep["rollout"])] = ep
    return eps


def _scores(out: Path) -> list[bytes]:
    return sorted((out / "scores.jsonl").read_bytes().splitlines())


@pytest.mark.slow
def test_a_bench_run_on_ray_gives_the_local_run(ray_local: Any, small_bundle: Bundle,
                                                tmp_path: Path) -> None:
    agent = make_agent("first-page", small_bundle)
    local = run_bench(small_bundle, agent, out=tmp_path / "local", k=2, seed=7)
    on_ray = run_bench(small_bundle, agent, out=tmp_path / "ray", k=2, seed=7,
                       parallel=Parallel(workers=2, ray=""))
    assert _episodes(tmp_path / "ray") == _episodes(tmp_path / "local")
    assert len(_episodes(tmp_path / "local")) == 2 * len(small_bundle.tasks)
    assert _scores(tmp_path / "ray") == _scores(tmp_path / "local")
    assert (tmp_path / "ray" / "summary.json").read_bytes() == \
        (tmp_path / "local" / "summary.json").read_bytes()
    assert on_ray == local
    # first-page misses the second page of the sweep: a run with passes and failures
    assert 0 < local.pass_at_1.value < 1


@pytest.mark.slow
def test_bench_run_ray_on_the_command_line(ray_local: Any, small_bundle: Bundle, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(small_bundle.model_dump_json(), encoding="utf-8")
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "-q", "--ray",
                 "--workers", "2", "-o", str(tmp_path / "ray")]) == 0
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "-q",
                 "-o", str(tmp_path / "local")]) == 0
    assert _episodes(tmp_path / "ray") == _episodes(tmp_path / "local")
    summary = orjson.loads((tmp_path / "ray" / "summary.json").read_bytes())
    assert summary == orjson.loads((tmp_path / "local" / "summary.json").read_bytes())
    assert "pass@1" in capsys.readouterr().out


def _synth(out: Path, **where: Any) -> Any:
    mk = partial(make_backend, "world", seed=0)
    cfg = SynthConfig(n=2, seed=5, mix={"Drv": 1, "Cmp": 1}, batch=4)
    return asyncio.run(synthesize(light_graph(), light_catalog(), mk(), out, cfg, fresh=mk,
                                  backend_factory=mk, **where))


@pytest.mark.slow
def test_a_synth_run_on_ray_writes_the_local_corpus(ray_local: Any, tmp_path: Path) -> None:
    local = _synth(tmp_path / "local")
    on_ray = _synth(tmp_path / "ray", workers=2, ray="")
    assert on_ray.written == local.written == 2
    files = sorted(p.name for p in (tmp_path / "local").glob("*.edge"))
    assert files == sorted(p.name for p in (tmp_path / "ray").glob("*.edge"))
    for name in [*files, "tasks.jsonl"]:  # byte for byte
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert on_ray.attempts == local.attempts and on_ray.filters == local.filters


@pytest.mark.slow
def test_a_ray_pool_runs_on_the_connected_cluster_and_leaves_it_open(ray_local: Any) -> None:
    pool = RayPool(None, None, _init, ("x",))
    try:
        assert pool.workers == 2  # one actor per CPU of the cluster
        got = [pool.submit(_read, i, worker=i).result(timeout=120) for i in range(4)]
        assert [g[0] for g in got] == ["x0", "x1", "x2", "x3"]
        assert got[0][1] == got[2][1] != got[1][1]  # worker i % 2: two processes
    finally:
        pool.close()
    assert ray_local.is_initialized()  # not this pool's to shut down


_STATE: str | None = None


def _init(value: str) -> None:
    global _STATE
    _STATE = value


def _read(i: int) -> tuple[str, int]:
    import os

    return f"{_STATE}{i}", os.getpid()


def test_ray_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch, small_bundle: Bundle,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(PoolError, match=r"edgedsl\[ray\]"):
        require_ray()
    bundle = tmp_path / "bundle.json"
    bundle.write_text(small_bundle.model_dump_json(), encoding="utf-8")
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "--ray",
                 "-o", str(tmp_path / "r")]) == 2
    assert main(["synth", "run", "-n", "1", "--ray", "auto", "-o", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("pip install 'edgedsl[ray]'") == 2
    assert not (tmp_path / "r").exists() and not (tmp_path / "s").exists()
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_parallel_choices() -> None:
    assert not Parallel().distributed and not Parallel(workers=None).distributed
    assert Parallel(workers=2).distributed and Parallel(ray="").distributed
    assert Parallel(workers=None, ray="auto").describe() == {
        "executor": "ray", "address": "auto", "workers": None}
    with pytest.raises(PoolError, match="at least 1"):
        Parallel(workers=0)
