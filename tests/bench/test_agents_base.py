"""The agent registry and what an agent is shown."""

from __future__ import annotations

import asyncio
import random

import pytest

from edgedsl.bench.agents.base import (
    Agent,
    AgentOutcome,
    TaskView,
    agent_names,
    make_agent,
    register_agent,
)
from edgedsl.bench.bundle import Bundle
from edgedsl.bench.gold import fresh_backend
from edgedsl.bench.toolbox import ToolBox


class _Echo:
    """A test agent: calls one tool once and answers with the record count."""

    name = "echo"

    def __init__(self, bundle: Bundle, *, tool: str) -> None:
        self.tool = tool

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        res = await toolbox.call(self.tool, {"corp_code": "00164779"})
        return AgentOutcome(answer=res.count, answered=True, end_reason="answered")


def test_the_registry_makes_agents_by_name(small_bundle: Bundle) -> None:
    assert {"oracle", "first-page", "first-record"} <= set(agent_names())
    for name in ("oracle", "first-page", "first-record"):
        agent = make_agent(name, small_bundle)
        assert isinstance(agent, Agent) and agent.name == name
    with pytest.raises(ValueError, match=r"unknown agent .gpt.*oracle"):
        make_agent("gpt", small_bundle)
    with pytest.raises(ValueError, match="takes no options"):
        make_agent("oracle", small_bundle, temperature=0.5)
    register_agent("echo-test", _Echo)
    agent = make_agent("echo-test", small_bundle, tool="dart__company")
    task = small_bundle.task("two_bridges")
    box = ToolBox(task, fresh_backend("world"), bundle=small_bundle)
    view = TaskView.of(task, box)
    assert view.query == task.query and view.tools == box.schemas()
    assert "program" not in view.model_dump()  # the gold is never shown
    out = asyncio.run(agent.run(view, box, random.Random(0)))
    assert out.answer == 1 and box.calls[0].tool == "dart.company"
