"""A :class:`~edgedsl.recipe.synth.record.TaskRecord` from a trajectory's AST and one run of it.

The AST gives the structure type, the features and the tools (:mod:`edgedsl.recipe.synth.analyze`);
the run's trace gives the calls, turns and junctions:

* **calls** — one :class:`CallRecord` per executed call: the pages of one call are folded into
  it (``records`` summed, ``total`` the first reported), a fan or ``compare`` step makes one
  call per arm. Calls that failed are left out.
* **turns** — numbered from 1 in trace order: each plan step that issues calls is one turn;
  the branches of one ``parallel`` group share the group's turn (a fan's calls and a compare's
  arms are one step already).
* **junctions** — one :class:`JunctionRecord` per junction the run read. A ``parallel``
  header junction gives one record per branch that uses its shared name (``tool`` and
  ``param`` are the branch's). ``kind`` is ``drv`` when the junction's source binding is a
  ``drv`` node, its ``seq`` / ``fan`` spelling otherwise. ``passed`` is the observed
  cardinality; ``cardinality`` is the number of distinct values of the field in the output of
  the upstream *call* before any ``drv`` narrowing — for a ``drv`` source that needs the
  upstream call's records: run with ``keep=keep_for(plan, name)`` so that
  ``RunResult.relations`` holds them (without them ``cardinality`` falls back to ``passed``).
  A junction whose source is no call's output (a ``parallel`` group's own relation) is left out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from ...core.types import type_from_json
from ...plan.model import (
    CallStep,
    CompareStep,
    DrvStep,
    ParallelStep,
    Plan,
    StepPlan,
    TrajectoryPlan,
)
from ...runtime.columns import python_columns
from ...runtime.result import RunResult
from ...runtime.trace import CallTrace, JunctionTrace, StepTrace
from ...syntax import nodes
from .analyze import features, structure_of, tools_of
from .record import (
    RESULT_HEAD,
    CallRecord,
    EdgeUse,
    JunctionRecord,
    TaskRecord,
)

__all__ = ["ResultsFn", "keep_for", "source_sha", "task_record"]

ResultsFn = Callable[[str, dict[str, Any], int | None], list[dict[str, Any]] | None]
"""``results(tool, args, page)``: the records one call (one page) returned, or None."""


def source_sha(text: str) -> str:
    """The sha256 (hex) of a source text, as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _by_relation(tp: TrajectoryPlan) -> dict[str, list[StepPlan]]:
    out: dict[str, list[StepPlan]] = {}
    for s in tp.steps.values():
        out.setdefault(s.relation or s.id, []).append(s)
    return out


def keep_for(plan: Plan, name: str) -> set[str]:
    """The relations :func:`task_record` needs kept for trajectory ``name``: the upstream call
    relations of every junction whose source is a ``drv`` node, and the source of every ``drv``
    (for :func:`~edgedsl.recipe.synth.meaning.program_facts`); pass as ``keep=`` to
    :func:`~edgedsl.runtime.executor.run_trajectory`."""
    from .meaning import keep_for_facts

    tp = plan.trajectory(name)
    rels = _by_relation(tp)
    out: set[str] = set()

    def upstream(rel: str, seen: set[str]) -> None:
        if rel in seen:
            return
        seen.add(rel)
        for s in rels.get(rel, ()):
            if isinstance(s, DrvStep):
                upstream(s.source, seen)
            elif isinstance(s, CallStep | CompareStep):
                out.add(rel)

    for s in tp.steps.values():
        specs = []
        if isinstance(s, CallStep | CompareStep):
            specs = list(s.request.junctions.values())
        elif isinstance(s, ParallelStep):
            specs = [sh.junction for sh in s.shared.values() if sh.junction is not None]
        for j in specs:
            if any(isinstance(x, DrvStep) for x in rels.get(j.source, ())):
                upstream(j.source, set())
    return out | keep_for_facts(plan, name)


def _text_of(file: str, text: str | None) -> str | None:
    if text is not None:
        return text
    try:
        return Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _calls(st: StepTrace, turn: int, results: ResultsFn | None) -> list[CallRecord]:
    """One record per arm of a call step, its pages folded."""
    arms: dict[str | None, list[CallTrace]] = {}
    for c in st.calls:
        if c.failure is None:
            arms.setdefault(c.arm, []).append(c)
    out = []
    for pages in arms.values():
        pages.sort(key=lambda c: c.page or 0)
        head: list[dict[str, Any]] = []
        if results is not None and st.tool is not None:
            for c in pages:
                if len(head) >= RESULT_HEAD:
                    break
                head += (results(st.tool, c.args, c.page) or [])[:RESULT_HEAD - len(head)]
        total = next((c.total for c in pages if c.total is not None), None)
        out.append(CallRecord(step=st.id, tool=st.tool or "", args=dict(pages[0].args),
                              turn=turn, records=sum(c.records for c in pages), total=total,
                              result=head))
    return out


class _Origins:
    """Where a relation of one run comes from: the steps that ran, by relation id."""

    def __init__(self, plan: Plan, tp: TrajectoryPlan, steps: list[StepTrace],
                 relations: Mapping[str, list[dict[str, Any]]]) -> None:
        self.plan, self.tp, self.relations = plan, tp, relations
        self.ran: dict[str, StepPlan] = {}
        self.traces: dict[str, StepTrace] = {}
        for st in steps:
            s = tp.steps.get(st.id)
            if s is not None:
                self.ran[s.relation or s.id] = s
                self.traces[s.relation or s.id] = st

    def call_of(self, rel: str) -> tuple[CallStep | CompareStep | None, bool]:
        """The call (or compare) step whose output ``rel`` ultimately is, and whether a ``drv``
        node lies in between."""
        through, seen = False, set()
        s = self.ran.get(rel)
        while isinstance(s, DrvStep) and s.source not in seen:
            through = True
            seen.add(s.source)
            s = self.ran.get(s.source)
        if isinstance(s, CallStep | CompareStep):
            return s, through
        return None, through

    def distinct(self, call: CallStep | CompareStep, field: str) -> int | None:
        """Distinct non-null values of ``field`` in ``call``'s output (None if not kept)."""
        rel = call.relation or call.id
        if field == "__arm":
            st = self.traces.get(rel)
            if st is None:
                return None
            sums: dict[str | None, int] = {}
            for c in st.calls:
                sums[c.arm] = sums.get(c.arm, 0) + c.records
            return sum(1 for a, k in sums.items() if a is not None and k > 0)
        records = self.relations.get(rel)
        tool = self.plan.tools.get(call.request.tool)
        if records is None or tool is None or field not in tool.fields:
            return None
        col = python_columns(records, {field: type_from_json(tool.fields[field])})[field]
        return len({orjson.dumps(v, option=orjson.OPT_SORT_KEYS): None
                    for v in col if v is not None})

    def junction(self, jt: JunctionTrace, tool: str, param: str) -> JunctionRecord | None:
        """The record of one junction into ``param`` of ``tool``."""
        call, through = self.call_of(jt.source)
        if call is None:
            return None
        from .meaning import partial_read

        up = self.plan.tools[call.request.tool].qualname
        card = self.distinct(call, jt.field) if through else None
        st = self.traces.get(call.relation or call.id)
        return JunctionRecord(tool=tool, param=param, source_tool=up, field=jt.field,
                              kind="drv" if through else jt.kind,
                              cardinality=jt.cardinality if card is None else card,
                              passed=jt.cardinality,
                              capped=None if st is None else partial_read(st))


def task_record(
    traj: nodes.Trajectory,
    plan: Plan,
    result: RunResult,
    *,
    file: str,
    query: str | None = None,
    results: ResultsFn | None = None,
    edges: Iterable[EdgeUse] = (),
    seed: int | None = None,
    text: str | None = None,
) -> TaskRecord:
    """The record of one run of ``traj`` (compiled into ``plan``): structure, features and tools
    from the AST, calls, turns and junctions from ``result.trace`` (module docstring).

    ``query`` overrides the trajectory's query; ``results`` fills each call's ``result`` head;
    ``source_sha`` hashes ``text``, or the file's text when ``text`` is None (empty when the file
    cannot be read). ``facts`` are :func:`~edgedsl.recipe.synth.meaning.program_facts` (judged
    on the relations the run kept: run with ``keep=keep_for(plan, name)``), ``body_sha`` the
    duplicate rule's key; ``determinacy`` is the run's (:attr:`RunResult.determinacy
    <edgedsl.runtime.result.RunResult.determinacy>`)."""
    from .meaning import body_key, program_facts

    tp = plan.trajectory(traj.name)
    steps = list(result.trace.steps) if result.trace is not None else []
    group_of = {b: s.id for s in tp.steps.values() if isinstance(s, ParallelStep)
                for b in s.branches}
    origins = _Origins(plan, tp, steps, result.relations)
    ran_ids = {st.id for st in steps}
    calls: list[CallRecord] = []
    junctions: list[JunctionRecord | None] = []
    turn, group_turn = 0, {}  # turn numbers from 1; a parallel group's turn, by group id
    for st in steps:
        s = tp.steps.get(st.id)
        if isinstance(s, CallStep | CompareStep):
            tool = plan.tools[s.request.tool].qualname
            junctions += [origins.junction(jt, tool, jt.param) for jt in st.junctions]
            if not any(c.failure is None for c in st.calls):
                continue
            group = group_of.get(st.id)
            if group is None or group not in group_turn:
                turn += 1
                if group is not None:
                    group_turn[group] = turn
            calls += _calls(st, group_turn.get(group, turn) if group else turn, results)
        elif isinstance(s, ParallelStep):
            for jt in st.junctions:
                for b in s.branches:
                    bs = tp.steps.get(b)
                    if isinstance(bs, CallStep) and b in ran_ids:
                        tool = plan.tools[bs.request.tool].qualname
                        junctions += [origins.junction(jt, tool, param)
                                      for param, name in bs.request.shared.items()
                                      if name == jt.param]
    text = _text_of(file, text)
    return TaskRecord(
        name=traj.name, file=file, query=traj.query if query is None else query,
        answer=result.answer, structure=structure_of(traj), features=features(traj),
        tools=tools_of(traj), calls=calls, junctions=[j for j in junctions if j is not None],
        edges=list(edges), source_sha="" if text is None else source_sha(text), seed=seed,
        facts=program_facts(traj, plan, result), body_sha=body_key(traj),
        determinacy=result.determinacy)
