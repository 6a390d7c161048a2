"""Gold runs: a task's gold program compiled, run on a backend, and read as data for scoring.

:func:`task_plan` compiles a task's program once per process (cached by its text).
:func:`run_gold` runs it on a backend with the runtime's own executor and returns the
:class:`~edgedsl.runtime.result.RunResult` and the :class:`~edgedsl.bench.episode.GoldRun` an
episode keeps: the answer, every call with its place in the gold dataflow (:func:`gold_calls`)
and the world state after the run (:func:`world_state`). :func:`fresh_backend` makes the fresh
backend each episode and each gold run gets, so that the world's write state starts empty for
both.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .. import api
from ..plan.model import (
    CallStep,
    CompareStep,
    IfStep,
    ParallelStep,
    Plan,
    ToolSpec,
    TrajectoryPlan,
)
from ..runtime.answers import jsonable
from ..runtime.backends import Backend, make_backend
from ..runtime.executor import run_trajectory
from ..runtime.result import RunResult
from ..runtime.trace import Trace
from .episode import GoldCall, GoldRun
from .toolbox import is_write, validate_arguments

__all__ = ["fresh_backend", "gold_calls", "run_gold", "task_plan", "undetermined_reason",
           "world_state"]


@lru_cache(maxsize=512)
def task_plan(program: str, name: str = "<gold>") -> Plan:
    """The plan of a gold program's text (compiled once per text; CompileError when it does
    not compile)."""
    return api.compile(program, name)


def fresh_backend(kind: str, *, seed: int = 0, options: Mapping[str, Any] | None = None
                  ) -> Backend:
    """A new backend of ``kind`` (``world``: a fresh world of ``seed``, its write state empty;
    another registered backend made with ``options``)."""
    opts = dict(options or {})
    if kind == "world":
        opts.setdefault("seed", seed)
    return make_backend(kind, **opts)


def _holds_records(v: Any) -> bool:
    if isinstance(v, list):
        return bool(v)
    if isinstance(v, dict):
        return any(_holds_records(x) for x in v.values())
    return False


def world_state(backend: object) -> dict[str, Any] | None:
    """A deep copy of the world's mutable state behind ``backend`` (None for a backend that
    has no world: ``store``, ``http``, ``python``), without the entries that hold no record at
    any depth: a platform's write state is made on first use, by a read too (an empty list of
    opinions and its counter), and a read changes nothing an ENVIRONMENT check should see."""
    world = getattr(backend, "world", None)
    state = getattr(world, "state", None)
    if state is None:
        return None
    return {k: jsonable(copy.deepcopy(v)) for k, v in state.items() if _holds_records(v)}


def _parents(tp: TrajectoryPlan) -> dict[str, str]:
    """Each step nested in a ``parallel`` group or an ``if`` branch → the step holding it."""
    out: dict[str, str] = {}
    for sid, s in tp.steps.items():
        inner: list[str] = []
        if isinstance(s, ParallelStep):
            inner = list(s.branches)
        elif isinstance(s, IfStep):
            inner = [x for layer in (*s.then, *s.orelse) for x in layer]
        for x in inner:
            out[x] = sid
    return out


def _before(tp: TrajectoryPlan) -> dict[str, list[str]]:
    """Each step → every step it depends on, transitively (a nested step inherits the
    dependencies of the step holding it), sorted."""
    parents = _parents(tp)
    memo: dict[str, set[str]] = {}

    def deps(sid: str) -> set[str]:
        hit = memo.get(sid)
        if hit is not None:
            return hit
        memo[sid] = set()  # a cycle cannot occur in a checked plan; guard anyway
        s = tp.steps.get(sid)
        direct = set(s.deps) if s is not None else set()
        if sid in parents:
            direct.add(parents[sid])
        out = set(direct)
        for d in direct:
            out |= deps(d)
        memo[sid] = out
        return out

    return {sid: sorted(deps(sid)) for sid in tp.steps}


def _as_validated(spec: ToolSpec | None, args: dict[str, Any]) -> dict[str, Any]:
    """A gold call's arguments as the toolbox records an agent's valid ones (so that ACTION
    compares like with like); as they are when they do not validate."""
    if spec is None:
        return dict(args)
    try:
        return dict(jsonable(validate_arguments(spec, args)[0]))
    except ValueError:
        return dict(args)


def gold_calls(plan: Plan, tp: TrajectoryPlan, trace: Trace) -> list[GoldCall]:
    """The calls of a gold run in trace order: tool, JSON arguments, page, the step they belong
    to and the steps that must come before (:class:`~edgedsl.bench.episode.GoldCall`)."""
    before = _before(tp)
    out: list[GoldCall] = []
    for st in trace.steps:
        step = tp.steps.get(st.id)
        if not isinstance(step, CallStep | CompareStep) or st.tool is None:
            continue
        spec = plan.tools.get(st.tool)
        write = spec is not None and is_write(spec)
        for c in st.calls:
            if c.failure is not None:
                continue
            out.append(GoldCall(tool=st.tool, arguments=_as_validated(spec, c.args),
                                page=c.page, step=st.id, after=before.get(st.id, []),
                                write=write))
    return out


def undetermined_reason(result: RunResult) -> str | None:
    """Why a gold run's answer is not a gold answer, in one line (None when it is one): the run
    failed, or its answer is not determined (a broken tie, a partial read)."""
    if not result.ok:
        first = next((d for d in result.diagnostics if d.severity == "error"), None)
        return f"the gold run failed: {first.code + ': ' + first.message if first else '?'}"
    det = result.determinacy
    if det is None or det.determined:
        return None
    parts = []
    for c in det.causes:
        if c.kind == "tie":
            parts.append(f"`{c.step}` broke a tie among {c.tied} values of `{c.field}`")
        else:
            left = "an unknown number of" if c.unread is None else str(c.unread)
            parts.append(f"`{c.step}` left {left} records unread")
    return "; ".join(parts)


async def run_gold(program: str, trajectory: str, backend: Backend, *,
                   phi: int | None = None) -> tuple[RunResult, GoldRun]:
    """Run trajectory ``trajectory`` of gold ``program`` on ``backend`` (φ and ``max_pages``
    from the file's ``run`` block) → the run's result and its :class:`GoldRun`."""
    plan = task_plan(program)
    tp = plan.trajectory(trajectory)
    options: dict[str, Any] = {"phi": phi if phi is not None else plan.run.phi or 5}
    if plan.run.max_pages is not None:
        options["max_pages"] = plan.run.max_pages
    result = await run_trajectory(plan, trajectory, backend, **options)
    calls = gold_calls(plan, tp, result.trace) if result.trace is not None else []
    reason = None if result.ok else undetermined_reason(result)
    gold = GoldRun(ok=result.ok, answer=jsonable(result.answer), error=reason, calls=calls,
                   state=world_state(backend))
    return result, gold
