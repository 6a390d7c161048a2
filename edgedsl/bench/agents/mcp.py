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

**An external server.** With ``mcp_url`` (streamable HTTP, ``http://HOST:PORT/mcp``) or
``mcp_command`` (a command line that serves MCP over stdio, started for each episode) the
agent connects to that server instead, e.g. ``edgedsl mcp serve`` on another machine or over
the live APIs. The model is shown the tools the server lists that the task exposes; each call
is still checked, budgeted and recorded by the episode's toolbox, which then executes it on
the server (:class:`McpBackend`, :meth:`~edgedsl.bench.toolbox.ToolBox.forwarded`). The
server's state is not observed: the episode's environment is scored as trivial, so an external
server suits read-only tasks, and it must serve the backend (and world seed) the gold is
recomputed on.
"""

from __future__ import annotations

import os
import random
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import orjson

from ...recipe.synth.tools_schema import tool_name
from .base import AgentOutcome, TaskView, register_agent
from .chat import STOPS, ChatAgentConfig, Executed, chat_loop
from .openai import ToolBoxExecutor, seconds_left

if TYPE_CHECKING:
    from mcp import Client

    from ...plan.model import ToolSpec
    from ...runtime.backends import Response
    from ..bundle import Bundle
    from ..toolbox import ToolBox

__all__ = ["McpAgent", "McpBackend", "McpExecutor", "McpServerSpec", "listed_schema"]


@dataclass(frozen=True)
class McpServerSpec:
    """An external MCP server: ``url`` (streamable HTTP) or ``command`` (stdio), not both."""

    url: str | None = None
    command: str | None = None

    def __post_init__(self) -> None:
        if (self.url is None) == (self.command is None):
            raise ValueError("give one of --mcp-url and --mcp-command")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"--mcp-url must be an http(s) URL, not {self.url!r}")
        if self.command is not None and not shlex.split(self.command):
            raise ValueError("--mcp-command is empty")

    def target(self) -> Any:
        """What :class:`mcp.Client` connects to: the URL, or the stdio server's parameters
        (the command split as a shell would, with this process's environment)."""
        if self.url is not None:
            return self.url
        from mcp import StdioServerParameters

        argv = shlex.split(self.command or "")
        return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


class McpBackend:
    """A :class:`~edgedsl.runtime.backends.Backend` whose calls are ``tools/call`` requests to
    an MCP server serving the tools under their function names (``edgedsl mcp serve``); a page
    comes back as a :class:`~edgedsl.bench.toolbox.RemotePage`, a failed call as the
    :class:`~edgedsl.runtime.backends.ToolFailure` the server classified."""

    name = "mcp"

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """One ``tools/call`` of ``tool`` with ``args`` (and ``page``)."""
        from ...runtime.answers import jsonable
        from ...runtime.backends import ToolFailure
        from ..toolbox import PAGE_ARG, RemotePage

        arguments: dict[str, Any] = jsonable(args)
        if page is not None:
            arguments[PAGE_ARG] = page
        result = await self.client.call_tool(tool_name(tool.qualname), arguments)
        data = result.structured_content
        if not isinstance(data, dict):
            text = "".join(getattr(b, "text", "") for b in result.content)
            raise ToolFailure("environmental", "R503", f"the MCP server answered no JSON "
                              f"object: {text[:200]}")
        err = data.get("error")
        if result.is_error or isinstance(err, dict):
            e = err if isinstance(err, dict) else {}
            kind: Literal["structural", "environmental"] = (
                "environmental" if e.get("failure") == "environmental" else "structural")
            raise ToolFailure(kind, str(e.get("code") or "R503"),
                              f"{e.get('kind', 'error')}: {e.get('message', '')}")
        records = [r for r in data.get("records", []) if isinstance(r, dict)]
        total = data.get("total")
        return RemotePage(records, total if isinstance(total, int) else None,
                          int(data.get("count", len(records))), bool(data.get("has_more")))


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

    def __init__(self, config: ChatAgentConfig, server: McpServerSpec | None = None) -> None:
        self.config = config
        self.server = server

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        """Answer ``task``: an MCP session on a server over ``toolbox`` (or on the external
        server), then the chat loop with the tools it lists."""
        from mcp import Client

        from ..mcp_server import make_server

        if self.server is not None:
            async with Client(self.server.target(), mode="legacy") as client:
                listing = await client.list_tools()
                tools = [listed_schema(t) for t in listing.tools if t.name in toolbox.names]
                with toolbox.forwarded(McpBackend(client)):
                    return await chat_loop(self.config, task, tools, ToolBoxExecutor(toolbox),
                                           rng, seconds_left=lambda: seconds_left(toolbox))

        server = make_server(toolbox, records_shown=toolbox.budgets.records_shown)
        async with Client(server, mode="legacy") as client:
            listing = await client.list_tools()
            tools = [listed_schema(t) for t in listing.tools]
            executor = McpExecutor(client, {t.name for t in listing.tools}, toolbox)
            return await chat_loop(self.config, task, tools, executor, rng,
                                   seconds_left=lambda: seconds_left(toolbox))


def make_mcp_agent(bundle: Bundle, **options: Any) -> McpAgent:
    """The ``mcp`` agent of ``options`` (ValueError for missing or unknown ones, or when the
    MCP SDK is not installed); ``mcp_url`` or ``mcp_command`` attach it to an external
    server."""
    from ..mcp_server import require_mcp

    require_mcp()
    url, command = options.pop("mcp_url", None), options.pop("mcp_command", None)
    server = None if url is None and command is None else McpServerSpec(url, command)
    return McpAgent(ChatAgentConfig.of(options), server)


register_agent("mcp", make_mcp_agent)
