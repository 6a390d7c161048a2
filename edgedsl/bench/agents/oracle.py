"""Agents that run a program through the toolbox: the oracle, and the base of the scripted
baselines.

A :class:`ProgramAgent` compiles the task's gold program (from the bundle it was made for),
lets :meth:`ProgramAgent.transform` change the plan (the oracle keeps it; a scripted baseline
makes its typical mistake there) and runs it with the runtime's executor on a
:class:`~edgedsl.bench.toolbox.ToolBoxBackend`: every call goes through the same tool interface a
model uses, and is recorded the same way. Its final answer is the run's answer; a run that fails
ends the episode with the toolbox's stop reason (a budget, a loop) or ``agent_error``.

The **oracle** (``oracle``) runs the gold program unchanged: on the backend the gold is
recomputed on, it must score 1.0 on every axis.
"""

from __future__ import annotations

import random
from typing import Any

from ...plan.model import Plan, TrajectoryPlan
from ...runtime.answers import jsonable
from ...runtime.executor import run_trajectory
from ..bundle import Bundle
from ..gold import task_plan
from ..toolbox import ToolBox, ToolBoxBackend
from .base import AgentOutcome, TaskView, register_agent

__all__ = ["OracleAgent", "ProgramAgent"]


class ProgramAgent:
    """Runs a task's gold program, as :meth:`transform` changes it, through the toolbox."""

    name = "program"

    def __init__(self, bundle: Bundle, **options: Any) -> None:
        if options:
            raise ValueError(f"agent {self.name!r} takes no options, not "
                             f"{', '.join(sorted(options))}")
        self.bundle = bundle

    def transform(self, plan: Plan, tp: TrajectoryPlan) -> Plan:
        """The plan this agent runs instead of the gold ``plan`` (here: the gold itself)."""
        return plan

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        """Run the (transformed) gold program of ``task`` through ``toolbox``."""
        t = self.bundle.task(task.task_id)
        gold = task_plan(t.program)
        plan = self.transform(gold, gold.trajectory(t.trajectory))
        options: dict[str, Any] = {"phi": plan.run.phi or 5}
        if plan.run.max_pages is not None:
            options["max_pages"] = plan.run.max_pages
        result = await run_trajectory(plan, t.trajectory, ToolBoxBackend(toolbox), **options)
        if result.ok:
            return AgentOutcome(answer=jsonable(result.answer), answered=True,
                                end_reason="answered")
        first = next((d for d in result.diagnostics if d.severity == "error"), None)
        detail = f"{first.code}: {first.message}" if first else "the program failed"
        if toolbox.stopped is not None:
            return AgentOutcome(end_reason=toolbox.stopped, detail=toolbox.stop_detail)
        return AgentOutcome(end_reason="agent_error", detail=detail)


class OracleAgent(ProgramAgent):
    """The gold program, unchanged (module docstring)."""

    name = "oracle"


register_agent("oracle", OracleAgent)
