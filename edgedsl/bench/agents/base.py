"""The agent protocol, what an agent sees and returns, and the one registry of agents.

An agent answers one task through a :class:`~edgedsl.bench.toolbox.ToolBox`::

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome

:class:`TaskView` is what a model is shown: the task's id, its Korean query and the exposed
tools as OpenAI function schemas (never the gold). ``rng`` is seeded per rollout by the runner
(same seed, same rollout: same draws). The agent makes its calls with ``await
toolbox.call(name, arguments)`` and stops once ``toolbox.stopped`` is set; it returns an
:class:`AgentOutcome` (its answer, or why it has none). An exception escaping ``run`` ends the
episode as ``agent_error``; the runner enforces the time budget around ``run`` too.

Agents are made by name through :func:`make_agent` (:func:`register_agent` adds one; a name
listed in :data:`LAZY_AGENTS` is registered by importing its module on first use). A factory
takes the bundle (agents that need the gold program read it there) and keyword options.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..episode import EndReason, TokenUsage

if TYPE_CHECKING:
    from ..bundle import Bundle, BundleTask
    from ..toolbox import ToolBox

__all__ = [
    "LAZY_AGENTS",
    "Agent",
    "AgentFactory",
    "AgentOutcome",
    "TaskView",
    "agent_names",
    "make_agent",
    "register_agent",
]


class TaskView(BaseModel):
    """What an agent is shown of a task: ``task_id``, the user's ``query`` and the exposed
    ``tools`` (OpenAI function schemas, in exposed order); ``platforms`` names the platforms
    the task is about."""

    model_config = ConfigDict(extra="forbid")
    task_id: str
    query: str
    tools: list[dict[str, Any]] = Field(default_factory=list)
    platforms: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, task: BundleTask, toolbox: ToolBox) -> TaskView:
        """The view of ``task`` whose tools are ``toolbox``'s schemas."""
        return cls(task_id=task.id, query=task.query, tools=toolbox.schemas(),
                   platforms=list(task.platforms))


class AgentOutcome(BaseModel):
    """How an agent's run ended: ``answer`` (``answered`` False when it gave none),
    ``end_reason`` with a one-line ``detail``, the chat ``messages`` (empty for agents without
    a model) and the ``tokens`` spent."""

    model_config = ConfigDict(extra="forbid")
    answer: Any = None
    answered: bool = False
    end_reason: EndReason = "no_answer"
    detail: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tokens: TokenUsage = Field(default_factory=TokenUsage)


@runtime_checkable
class Agent(Protocol):
    """Answers a task through a toolbox (module docstring). ``name`` labels its episodes."""

    name: str

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random
                  ) -> AgentOutcome: ...


AgentFactory = Callable[..., Agent]
"""``factory(bundle, **options) -> Agent``."""

_REGISTRY: dict[str, AgentFactory] = {}

LAZY_AGENTS: dict[str, str] = {
    "oracle": "edgedsl.bench.agents.oracle",
    "first-page": "edgedsl.bench.agents.scripted",
    "first-record": "edgedsl.bench.agents.scripted",
    "openai": "edgedsl.bench.agents.openai",
    "mcp": "edgedsl.bench.agents.mcp",
}
"""Agents registered by a module imported on first use (name → module)."""


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``make_agent(name, bundle, **options)`` call ``factory(bundle, **options)``."""
    _REGISTRY[name] = factory


def make_agent(name: str, bundle: Bundle, **options: Any) -> Agent:
    """The agent ``name`` for ``bundle`` (ValueError naming the known agents otherwise)."""
    if name not in _REGISTRY and name in LAZY_AGENTS:
        importlib.import_module(LAZY_AGENTS[name])
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}")
    return factory(bundle, **options)


def agent_names() -> list[str]:
    """Every agent name, registered or lazily known, sorted."""
    return sorted(set(_REGISTRY) | set(LAZY_AGENTS))
