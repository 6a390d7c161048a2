"""The ``openai`` agent: a chat model behind any OpenAI-compatible endpoint, its tools the
episode's toolbox.

The model is shown the task's query and the exposed tools as function schemas
(:meth:`~edgedsl.bench.toolbox.ToolBox.schemas`); each tool call it makes is executed by the
toolbox (validated, budgeted, recorded in the episode) and its result fed back as a ``tool``
message; the loop, its end reasons and the key's handling are :mod:`.chat`'s. Options (``edgedsl
bench run --agent openai``): ``base_url``, ``model`` (both required), ``key_env`` (the variable
holding the key, ``EDGEDSL_LLM_KEY`` by default), ``temperature``, ``seed``, ``mistakes``,
``timeout``, ``retries``, ``max_tokens`` (:class:`~.chat.ChatAgentConfig`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .base import AgentOutcome, TaskView, register_agent
from .chat import ChatAgentConfig, Executed, chat_loop

if TYPE_CHECKING:
    from ..bundle import Bundle
    from ..toolbox import ToolBox

__all__ = ["OpenAIAgent", "ToolBoxExecutor", "seconds_left"]


class ToolBoxExecutor:
    """Tool calls executed by the episode's toolbox; results as the toolbox writes them."""

    def __init__(self, toolbox: ToolBox) -> None:
        self.toolbox = toolbox

    async def call(self, name: str, arguments: str | dict[str, Any]) -> Executed:
        """One call through the toolbox; a refused call carries its error kind, and the end
        reason when it used up a budget or made a loop."""
        res = await self.toolbox.call(name, arguments)
        content = res.content(self.toolbox.budgets.records_shown)
        if res.ok or res.error is None:
            return Executed(content)
        return Executed(content, kind=res.error.kind, stop=self.toolbox.stopped,
                        detail=f"`{name}`: {res.error.message}")


def seconds_left(toolbox: ToolBox) -> float:
    """What is left of the episode's time budget, in seconds."""
    return toolbox.budgets.seconds - toolbox.elapsed()


class OpenAIAgent:
    """A chat model over an OpenAI-compatible endpoint (module docstring)."""

    name = "openai"

    def __init__(self, config: ChatAgentConfig) -> None:
        self.config = config

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        """Answer ``task``: the chat loop with the toolbox's tools."""
        return await chat_loop(self.config, task, task.tools, ToolBoxExecutor(toolbox), rng,
                               seconds_left=lambda: seconds_left(toolbox))


def make_openai_agent(bundle: Bundle, **options: Any) -> OpenAIAgent:
    """The ``openai`` agent of ``options`` (ValueError for missing or unknown ones)."""
    return OpenAIAgent(ChatAgentConfig.of(options))


register_agent("openai", make_openai_agent)
