"""Running an agent on a bundle: k seeded rollouts per task, each an episode kept at once.

:func:`run_bench` makes, per task and rollout, a fresh backend (a fresh world: its write state
empty), a :class:`~edgedsl.bench.toolbox.ToolBox` with the task's budgets and the agent's
:class:`~edgedsl.bench.agents.base.TaskView`, runs the agent with a ``random.Random`` seeded by
(seed, task, rollout) — the same seed gives the same draws — and then runs the gold program on
another fresh backend of the same kind (the gold answer recomputed where the agent ran). The
episode is appended to ``RESULTS/episodes.jsonl`` as soon as it finishes, so an interrupted run
keeps what finished; run again into the same directory with the same settings, it skips the
episodes already there (``resume``). At the end the run is scored
(:func:`~edgedsl.bench.score.summary.score_results`).

The agent's own failures end its episode, never the run: an exception is ``agent_error``, the
time budget (``Budgets.seconds``, enforced around the whole agent too) ``time_budget``; a budget
or loop the toolbox stopped on is the episode's end reason. The budgets of an episode are the
run's (``--max-calls``, ``--time-budget``) unless its task declares its own in the bundle
(:attr:`~edgedsl.bench.bundle.BundleTask.budget`, :func:`task_budgets`); the episode records
the budgets it ran under.

**Where episodes run.** By default in this process, ``concurrency`` at a time on one event
loop. With a :class:`~edgedsl.core.pool.Parallel` that is distributed (``--workers N`` local
processes, or ``--ray``), each episode runs in a worker (:func:`episode_job`) that holds the
bundle and its own agent, made by name from the registry (:func:`init_episode_worker`); the
episodes come back as JSON and are appended here as they finish. An episode depends only on
(seed, task, rollout), so a run gives the same episodes wherever it runs (their timings
aside).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from ..core.pool import Parallel
from ..runtime.executor import run_sync
from ..runtime.redact import scrub
from .agents.base import Agent, AgentOutcome, TaskView, make_agent
from .bundle import Bundle, BundleTask
from .episode import (
    EPISODES_FILE,
    META_FILE,
    Episode,
    EpisodeFileError,
    RunMeta,
    append_episode,
    read_episodes,
    read_meta,
    trim_partial_tail,
    write_meta,
)
from .gold import fresh_backend, run_gold, world_state
from .score.judge import JudgeConfig
from .score.summary import Summary, score_results
from .toolbox import Budgets, ToolBox

__all__ = ["RunError", "episode_job", "init_episode_worker", "rollout_seed", "run_bench",
           "run_episode", "task_budgets"]

_GRACE = 5.0
"""Seconds the runner gives an agent past its time budget before cancelling it."""


class RunError(Exception):
    """A run that cannot start (one line): a results directory of another run, a bad ``k``."""


def rollout_seed(seed: int, task_id: str, rollout: int) -> int:
    """The seed of one rollout: a 63-bit BLAKE2b digest of (seed, task, rollout)."""
    digest = hashlib.blake2b(f"{seed}\x00{task_id}\x00{rollout}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 1


def task_budgets(task: BundleTask, default: Budgets) -> Budgets:
    """The budgets of an episode of ``task``: ``default`` (the run's) with the calls and
    seconds the task declares in the bundle, when it declares them."""
    if task.budget is None:
        return default
    return replace(default, **task.budget.model_dump(exclude_none=True))


async def _close(backend: object) -> None:
    close = getattr(backend, "aclose", None)
    if callable(close):
        await close()


async def run_episode(bundle: Bundle, task: BundleTask, agent: Agent, *, rollout: int = 0,
                      seed: int = 0, backend: str = "world",
                      backend_options: Mapping[str, Any] | None = None,
                      budgets: Budgets | None = None, gold: bool = True) -> Episode:
    """One rollout of ``agent`` on ``task`` and, when ``gold``, the gold run it is scored
    against (module docstring); ``budgets`` are the run's, which the task's own replace."""
    budgets = task_budgets(task, budgets or Budgets())
    world_seed = task.world_seed if task.world_seed is not None else bundle.seed
    be = fresh_backend(backend, seed=world_seed, options=backend_options)
    box = ToolBox(task, be, budgets, bundle=bundle)
    view = TaskView.of(task, box)
    rs = rollout_seed(seed, task.id, rollout)
    started = time.time()
    t0 = time.perf_counter()
    try:
        outcome = await asyncio.wait_for(agent.run(view, box, random.Random(rs)),
                                         timeout=budgets.seconds + _GRACE)
    except TimeoutError:
        outcome = AgentOutcome(end_reason="time_budget",
                               detail=f"the agent ran past {budgets.seconds:g} s")
    except Exception as exc:  # the agent's failure ends its episode, not the run
        outcome = AgentOutcome(end_reason="agent_error",
                               detail=scrub(f"{type(exc).__name__}: {exc}")[:300])
    duration = (time.perf_counter() - t0) * 1000.0
    end, detail = outcome.end_reason, outcome.detail
    if box.stopped is not None and end in ("answered", "no_answer", "agent_error"):
        end, detail = box.stopped, box.stop_detail
    state = None if box.remote else world_state(be)  # a remote server's state is not seen
    await _close(be)
    gold_run = None
    if gold:
        gb = fresh_backend(backend, seed=world_seed, options=backend_options)
        _, gold_run = await run_gold(task.program, task.trajectory, gb)
        await _close(gb)
    return Episode(bundle_hash=bundle.hash, task_id=task.id, agent=agent.name, rollout=rollout,
                   seed=rs, backend=backend, messages=outcome.messages, calls=box.calls,
                   answer=outcome.answer, answered=outcome.answered, end_reason=end,
                   detail=detail, tokens=outcome.tokens, started_at=started,
                   duration_ms=round(duration, 3), state=state, gold=gold_run,
                   platforms=list(task.platforms), structure=task.structure,
                   budgets={"calls": budgets.calls, "seconds": budgets.seconds})


def _prepare(out: Path, meta: RunMeta, resume: bool) -> set[tuple[str, int]]:
    """The episodes already in ``out`` (resuming the same run), after checking that ``out`` is
    empty, new, or holds this very run."""
    if not (out / META_FILE).exists():
        if out.exists() and any(out.iterdir()):
            raise RunError(f"{str(out)!r} is not empty and holds no run ({META_FILE}); "
                           "give an empty or new directory")
        write_meta(out, meta)
        return set()
    try:
        old = read_meta(out)
    except EpisodeFileError as exc:
        raise RunError(str(exc)) from None
    if old.model_dump(exclude={"bundle"}) != meta.model_dump(exclude={"bundle"}):
        raise RunError(f"{str(out)!r} holds another run (bundle, agent, k, seed, backend or "
                       "budgets differ); give a new directory")
    if not resume:
        raise RunError(f"{str(out)!r} already holds this run; resume it or give a new "
                       "directory")
    if not (out / EPISODES_FILE).exists():
        return set()
    trim_partial_tail(out)
    return {ep.key for ep in read_episodes(out)}


# ---------------------------------------------------------------- episodes in pool workers

_WORKER: tuple[Bundle, Agent, str, dict[str, Any]] | None = None
"""A pool worker's bundle, agent, backend and backend options (:func:`init_episode_worker`)."""


def init_episode_worker(bundle_json: bytes, agent: str, agent_args: Mapping[str, Any],
                        backend: str, backend_options: Mapping[str, Any]) -> None:
    """Pool initializer: this worker's bundle (from its JSON; its hash kept) and its own agent,
    made by name from the registry with the factory's ``agent_args``."""
    global _WORKER
    b = Bundle.model_validate_json(bundle_json)
    _WORKER = (b, make_agent(agent, b, **agent_args), backend, dict(backend_options))


def episode_job(task_id: str, rollout: int, seed: int, budgets: Budgets) -> bytes:
    """One episode in a pool worker (:func:`run_episode`), as the JSON line it is kept as."""
    assert _WORKER is not None, "init_episode_worker was not called"
    b, agent, backend, options = _WORKER
    ep = run_sync(run_episode(b, b.task(task_id), agent, rollout=rollout, seed=seed,
                              backend=backend, backend_options=options, budgets=budgets))
    return orjson.dumps(ep.model_dump(mode="json"))


def run_bench(bundle: Bundle, agent: Agent, *, out: str | Path, k: int = 1, seed: int = 0,
              backend: str = "world", backend_options: Mapping[str, Any] | None = None,
              budgets: Budgets | None = None, concurrency: int = 2, resume: bool = True,
              tasks: list[str] | None = None, bundle_path: str = "",
              progress: Callable[[Episode, int, int], None] | None = None,
              agent_options: Mapping[str, Any] | None = None,
              parallel: Parallel | None = None,
              agent_args: Mapping[str, Any] | None = None,
              judge: JudgeConfig | None = None) -> Summary:
    """Run ``agent`` ``k`` times on every task of ``bundle`` (or the ``tasks`` named), at most
    ``concurrency`` episodes at a time, into results directory ``out``; returns the run's
    :class:`~edgedsl.bench.score.summary.Summary` (module docstring). ``progress`` is called
    after each episode with it, the number done and the number to do; ``agent_options`` (JSON,
    no secrets) go into ``meta.json``. With a distributed ``parallel`` the episodes run in its
    workers, each making its own agent as ``make_agent(agent.name, bundle, **agent_args)``
    (so ``agent.name`` must be the agent's registered name). ``judge``: score with this model
    judge for free-text answers (:mod:`~edgedsl.bench.score.judge`; off when None)."""
    if k < 1:
        raise RunError(f"k must be at least 1, not {k}")
    if concurrency < 1:
        raise RunError(f"concurrency must be at least 1, not {concurrency}")
    budgets = budgets or Budgets()
    chosen = bundle.tasks if tasks is None else [bundle.task(t) for t in tasks]
    out = Path(out)
    meta = RunMeta(bundle_hash=bundle.hash, bundle=bundle_path, agent=agent.name, k=k,
                   seed=seed, backend=backend, backend_options=dict(backend_options or {}),
                   budgets={"calls": budgets.calls, "seconds": budgets.seconds,
                            "repeats": budgets.repeats, "records_shown": budgets.records_shown},
                   agent_options=dict(agent_options or {}))
    done = _prepare(out, meta, resume)
    todo = [(t, r) for t in chosen for r in range(k) if (t.id, r) not in done]

    async def main() -> None:
        sem = asyncio.Semaphore(concurrency)
        count = 0

        async def one(task: BundleTask, r: int) -> None:
            nonlocal count
            async with sem:
                ep = await run_episode(bundle, task, agent, rollout=r, seed=seed,
                                       backend=backend, backend_options=backend_options,
                                       budgets=budgets)
            append_episode(out, ep)
            count += 1
            if progress is not None:
                progress(ep, count, len(todo))

        await asyncio.gather(*(one(t, r) for t, r in todo))

    async def distributed(par: Parallel) -> None:
        pool = par.open(init_episode_worker, (
            bundle.model_dump_json().encode(), agent.name, dict(agent_args or {}), backend,
            dict(backend_options or {})))
        try:
            futs = [asyncio.wrap_future(pool.submit(episode_job, t.id, r, seed, budgets))
                    for t, r in todo]
            for count, fut in enumerate(asyncio.as_completed(futs), 1):
                ep = Episode.model_validate_json(await fut)
                append_episode(out, ep)
                if progress is not None:
                    progress(ep, count, len(todo))
        finally:
            pool.close()

    if parallel is not None and parallel.distributed and todo:
        run_sync(distributed(parallel))
    else:
        run_sync(main())
    _, summary = score_results(out, judge=judge)
    return summary
