"""The ``mcp`` agent: the chat loop of the ``openai`` agent, its tools listed and called through
an MCP session (the official SDK's client) instead of the toolbox directly.

For each episode the agent starts an MCP server over the episode's toolbox
(:func:`~edgedsl.bench.mcp_server.make_server`) and connects the SDK's :class:`mcp.Client` to it
in process over the protocol's JSON-RPC streams (the initialize handshake, ``tools/list``,
``tools/call``): the model is shown the tools as the server lists them (name, description,
input schema), every call it makes travels as an MCP ``tools/call``, and the toolbox behind the
server records and budgets it like any other agent's call. A failed call is a result with
``isError``; its structured content's ``error.kind`` classifies it (an MCP protocol error on a
tool the server did not list is ``unknown_tool``). A call MCP cannot carry — arguments that are
not a JSON object — never leaves the agent: it is recorded in the toolbox as ``malformed_call``.
Options are the ``openai`` agent's (:class:`~.chat.ChatAgentConfig`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import orjson

from .base import AgentOutcome, TaskView, register_agent
from .chat import STOPS, ChatAgentConfig, Executed, chat_loop
from .openai import seconds_left

if TYPE_CHECKING:
    from mcp import Client

    from ..bundle import Bundle
    from ..toolbox import ToolBox

__all__ = ["McpAgent", "McpExecutor", "listed_schema"]


def listed_schema(tool: Any) -> dict[str, Any]:
    """The OpenAI function schema of an MCP-listed tool (name, description, input schema)."""
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description or tool.name,
        "parameters": tool.input_schema}}


class McpExecutor:
    """Tool calls sent through an MCP client session; ``listed`` are the names the server
    listed; ``toolbox`` (when the server is over it) records a call MCP cannot carry."""

    def __init__(self, client: Client, listed: set[str], toolbox: ToolBox | None = None) -> None:
        self.client = client
        self.listed = listed
        self.toolbox = toolbox

    async def _unsendable(self, name: str, arguments: str | dict[str, Any],
                          message: str) -> Executed:
        if self.toolbox is not None:  # recorded (and refused) where the episode keeps calls
            res = await self.toolbox.call(name, arguments)
            if res.error is not None:
                return Executed(res.content(), kind=res.error.kind,
                                stop=self.toolbox.stopped, detail=f"`{name}`: {res.error.message}")
        content = orjson.dumps({"error": {"kind": "malformed_call", "message": message}})
        return Executed(content.decode(), kind="malformed_call", detail=f"`{name}`: {message}")

    async def call(self, name: str, arguments: str | dict[str, Any]) -> Executed:
        """One ``tools/call``; the result's text content is the tool message."""
        from mcp import MCPError

        args: object = arguments
        if isinstance(arguments, str):
            try:
                args = orjson.loads(arguments) if arguments.strip() else {}
            except orjson.JSONDecodeError as exc:
                return await self._unsendable(name, arguments, f"arguments are not JSON: {exc}")
        if not isinstance(args, dict):
            return await self._unsendable(name, arguments, "arguments must be a JSON object, "
                                          f"not {type(args).__name__}")
        try:
            result = await self.client.call_tool(name, args)
        except MCPError as exc:
            kind = "tool_failure" if name in self.listed else "unknown_tool"
            content = orjson.dumps({"error": {"kind": kind, "message": str(exc)}}).decode()
            return Executed(content, kind=kind, detail=f"`{name}`: {exc}")
        text = "".join(getattr(b, "text", "") for b in result.content)
        if not result.is_error:
            return Executed(text)
        data = result.structured_content
        err = data.get("error") if isinstance(data, dict) else None
        said = err.get("kind") if isinstance(err, dict) else None
        kind = said if isinstance(said, str) else "tool_failure"
        message = err.get("message") if isinstance(err, dict) else text
        return Executed(text, kind=kind, stop=STOPS.get(kind), detail=f"`{name}`: {message}")


class McpAgent:
    """A chat model whose tools come from an MCP server (module docstring)."""

    name = "mcp"

    def __init__(self, config: ChatAgentConfig) -> None:
        self.config = config

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        """Answer ``task``: an MCP session on a server over ``toolbox``, then the chat loop with
        the tools it lists."""
        from mcp import Client

        from ..mcp_server import make_server

        server = make_server(toolbox, records_shown=toolbox.budgets.records_shown)
        async with Client(server, mode="legacy") as client:
            listing = await client.list_tools()
            tools = [listed_schema(t) for t in listing.tools]
            executor = McpExecutor(client, {t.name for t in listing.tools}, toolbox)
            return await chat_loop(self.config, task, tools, executor, rng,
                                   seconds_left=lambda: seconds_left(toolbox))


def make_mcp_agent(bundle: Bundle, **options: Any) -> McpAgent:
    """The ``mcp`` agent of ``options`` (ValueError for missing or unknown ones, or when the
    MCP SDK is not installed)."""
    from ..mcp_server import require_mcp

    require_mcp()
    return McpAgent(ChatAgentConfig.of(options))


register_agent("mcp", make_mcp_agent)
