"""Scripted baselines: the gold program with one typical mistake, run through the toolbox.

* ``first-page`` (:class:`FirstPageAgent`) reads only the first page of every call: each
  ``pages all`` / ``pages N`` of the gold is dropped. Where every result fits on one page, it is
  the oracle; where the gold reads more pages, its answer misses records and ACTION misses the
  later pages.
* ``first-record`` (:class:`FirstRecordAgent`) takes the first record instead of reducing: each
  ``drv`` keeps the first row of its source (the minimum ``__row``, the service's order) instead
  of the rows its reducers keep. Where the first record is the one the reduction keeps, it is
  the oracle; elsewhere the values it hands on and answers with are another record's.
"""

from __future__ import annotations

import dataclasses

from ...plan.model import CallStep, CompareStep, DrvStep, Plan, StepPlan, TrajectoryPlan
from ...reduce.query import Extreme, ReduceQuery
from .base import register_agent
from .oracle import ProgramAgent

__all__ = ["FirstPageAgent", "FirstRecordAgent"]


def _with_steps(plan: Plan, tp: TrajectoryPlan, steps: dict[str, StepPlan]) -> Plan:
    new_tp = dataclasses.replace(tp, steps={**tp.steps, **steps})
    return dataclasses.replace(plan, trajectories=[new_tp if t.name == tp.name else t
                                                   for t in plan.trajectories])


class FirstPageAgent(ProgramAgent):
    """Reads only the first page of every call (module docstring)."""

    name = "first-page"

    def transform(self, plan: Plan, tp: TrajectoryPlan) -> Plan:
        """The gold with every ``pages`` clause dropped (one page per call)."""
        steps: dict[str, StepPlan] = {
            k: dataclasses.replace(s, request=dataclasses.replace(s.request, pages=None))
            for k, s in tp.steps.items()
            if isinstance(s, CallStep | CompareStep) and s.request.pages is not None}
        return _with_steps(plan, tp, steps)


class FirstRecordAgent(ProgramAgent):
    """Takes the first record instead of reducing (module docstring)."""

    name = "first-record"

    def transform(self, plan: Plan, tp: TrajectoryPlan) -> Plan:
        """The gold with every ``drv`` keeping its source's first row."""
        steps: dict[str, StepPlan] = {}
        for k, s in tp.steps.items():
            if isinstance(s, DrvStep):
                source = ReduceQuery.from_json(s.query).source
                first = ReduceQuery(source, (Extreme("__row", "min"),))
                steps[k] = dataclasses.replace(s, query=first.to_json())
        return _with_steps(plan, tp, steps)


register_agent("first-page", FirstPageAgent)
register_agent("first-record", FirstRecordAgent)
