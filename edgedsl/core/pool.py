"""Where parallel work runs: a local process pool or a Ray cluster, behind one small interface.

``edgedsl synth run`` (synthesis attempts) and ``edgedsl bench run`` (episodes) both hand work to
a :class:`WorkerPool` made by :meth:`Parallel.open`. A pool has ``workers`` workers; each ran
``initializer(*initargs)`` once when it started (it builds the worker's state: a world, a
graph, a bundle and an agent, kept in module globals of the worker's process), and
:meth:`WorkerPool.submit` runs a module-level function there and returns a
:class:`concurrent.futures.Future` of its result (``asyncio.wrap_future`` awaits it).

* :class:`LocalPool` — a :class:`~concurrent.futures.ProcessPoolExecutor` of ``spawn``-ed
  processes on this machine (the default).
* :class:`RayPool` — one Ray actor per worker (``num_cpus=1`` each, so a cluster spreads them
  over its CPUs), on an existing cluster (``address``: ``auto``, ``ray://HOST:10001``,
  ``HOST:6379``) or on a local Ray instance started for the run and shut down with the pool.
  Ray is an optional dependency (``pip install 'edgedsl[ray]'``); :func:`require_ray` says so.
  When this process is already connected to Ray (``ray.is_initialized()``: a test's fixture,
  a notebook) the pool uses that connection and leaves it open.

What a worker computes must not depend on which worker computes it: the callers' work items
carry their own seeds (an attempt number, a rollout), so a run gives the same results on any
pool of any size.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["GCS_WAIT", "LocalPool", "Parallel", "PoolError", "RayPool", "WorkerPool", "require_ray"]

RAY_EXTRA = "pip install 'edgedsl[ray]'"
"""How to install the optional Ray dependency."""


GCS_WAIT = "RAY_gcs_server_port_wait_time_s"
"""Ray's variable for the seconds a starting instance waits for its GCS server (30 by default,
too short on a loaded machine: a local instance is given 120 unless it is set)."""


class PoolError(Exception):
    """A pool that cannot be made: Ray not installed, a cluster that cannot be reached, a bad
    worker count. The message is one line, meant to be shown as is."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`PoolError` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise PoolError(f"--ray needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray


class WorkerPool(Protocol):
    """Workers that each ran the pool's initializer once; ``kind`` is ``local`` or ``ray``."""

    workers: int
    kind: str

    def submit(self, fn: Callable[..., Any], /, *args: Any, worker: int | None = None
               ) -> cf.Future[Any]:
        """Run ``fn(*args)`` (a module-level function, picklable by reference) on a worker —
        worker number ``worker`` modulo the pool's size when the pool can choose (Ray), any
        idle one otherwise — and return the future of its result."""
        ...

    def close(self) -> None:
        """Stop the workers (and a Ray instance the pool started)."""
        ...


class LocalPool:
    """``workers`` spawned processes of this machine (module docstring)."""

    kind = "local"

    def __init__(self, workers: int, initializer: Callable[..., None],
                 initargs: Sequence[Any]) -> None:
        from multiprocessing import get_context

        self.workers = workers
        self._executor = cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=initializer,
            initargs=tuple(initargs))

    def submit(self, fn: Callable[..., Any], /, *args: Any, worker: int | None = None
               ) -> cf.Future[Any]:
        """``fn(*args)`` in any idle process (``worker`` is ignored: processes are alike)."""
        return self._executor.submit(fn, *args)

    def close(self) -> None:
        """Shut the processes down, cancelling work not started."""
        self._executor.shutdown(cancel_futures=True)


class _RayWorker:
    """The actor behind one Ray worker: runs the initializer, then the functions sent."""

    def __init__(self, initializer: Callable[..., None], initargs: Sequence[Any]) -> None:
        initializer(*initargs)

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in this actor's process."""
        return fn(*args)


class RayPool:
    """One Ray actor per worker (module docstring). ``address`` None starts a local Ray
    instance for the pool (``num_cpus`` CPUs: all of this machine's when None); ``workers``
    None is one per CPU of the cluster."""

    kind = "ray"

    def __init__(self, address: str | None, workers: int | None,
                 initializer: Callable[..., None], initargs: Sequence[Any], *,
                 num_cpus: int | None = None) -> None:
        ray = require_ray()
        self._ray = ray
        self._owned = False
        if not ray.is_initialized():
            try:
                if address is None:  # a fresh instance, never someone else's local cluster
                    os.environ.setdefault(GCS_WAIT, "120")
                    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)
                else:
                    ray.init(address=address)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise PoolError(f"cannot start or reach Ray at {address or 'local'}: "
                                f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None
            self._owned = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers if workers is not None else max(1, cpus)
        actor = ray.remote(num_cpus=1)(_RayWorker)
        self._actors = [actor.remote(initializer, tuple(initargs))
                        for _ in range(self.workers)]
        self._next = itertools.count()

    def submit(self, fn: Callable[..., Any], /, *args: Any, worker: int | None = None
               ) -> cf.Future[Any]:
        """``fn(*args)`` on actor ``worker`` (round robin when None)."""
        i = next(self._next) if worker is None else worker
        ref = self._actors[i % self.workers].run.remote(fn, *args)
        return ref.future()

    def close(self) -> None:
        """Kill the actors; shut down the Ray instance when this pool started or joined it."""
        for a in self._actors:
            self._ray.kill(a)
        self._actors = []
        if self._owned:
            self._ray.shutdown()


@dataclass(frozen=True)
class Parallel:
    """Where a run's work goes: ``ray`` None keeps it on this machine (``workers`` processes;
    a caller runs in its own process when that is 1), otherwise on Ray — ``""`` a local Ray
    instance started for the run, else the address of a cluster — with ``workers`` actors
    (None: one per CPU of the cluster)."""

    workers: int | None = 1
    ray: str | None = None

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise PoolError(f"workers must be at least 1, not {self.workers}")

    @property
    def distributed(self) -> bool:
        """True when the work goes to worker processes (Ray, or more than one local one)."""
        return self.ray is not None or (self.workers or 1) > 1

    def describe(self) -> dict[str, Any]:
        """The choice as JSON for a run's report (the address without credentials)."""
        if self.ray is None:
            return {"executor": "local", "workers": self.workers or 1}
        where = self.ray.rpartition("@")[2] if self.ray else "local instance"
        return {"executor": "ray", "address": where, "workers": self.workers}

    def open(self, initializer: Callable[..., None], initargs: Sequence[Any]) -> WorkerPool:
        """The pool of this choice, its workers initialized with ``initializer(*initargs)``
        (``initargs`` must pickle; Ray pickles with cloudpickle). Close it when done."""
        if self.ray is None:
            return LocalPool(self.workers or 1, initializer, initargs)
        return RayPool(self.ray or None, self.workers, initializer, initargs)
