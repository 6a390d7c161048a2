"""The catalogs' tools as an MCP server (``edgedsl mcp serve``), with the official ``mcp`` SDK.

An MCP server here is a thin protocol face on a *tool surface* (:class:`ToolSurface`): anything
that lists OpenAI function schemas and executes one call into a
:class:`~edgedsl.bench.toolbox.ToolResult`. Two surfaces exist:

* :class:`CatalogTools` — every tool of the named platforms of the catalog, executed on a
  backend (``world``, ``store``, ``http`` …), each call through a fresh
  :class:`~edgedsl.bench.toolbox.ToolBox` (arguments validated against the catalog, failures
  classified; no per-episode budget: a served server's client owns its own loop). This is what
  ``edgedsl mcp serve --platform P…`` serves.
* a :class:`~edgedsl.bench.toolbox.ToolBox` itself — the tools of one episode, so that the
  ``mcp`` agent (:mod:`edgedsl.bench.agents.mcp`) reaches them through a real MCP session and its
  calls are recorded and budgeted like any other agent's.

Each tool is listed with its function name (``dart__company``: the same mapping as the
function schemas, :func:`~edgedsl.recipe.synth.tools_schema.tool_name`), its doc as the
description, and the JSON schema of its parameters, each described by its Korean label and
type. A call answers one text content block (the JSON a tool message carries:
:meth:`ToolResult.content`) and the same object as ``structuredContent``; a failed call is a
result with ``isError`` true whose structured content is ``{"error": {"kind", "message",
"code"?}}`` (``unknown_tool``, ``invalid_arguments``, ``tool_failure`` …), so a model can read
it and correct itself, as the MCP specification asks of tool errors.

:func:`serve_stdio` and :func:`serve_http` run a server over the process's stdin/stdout or over
streamable HTTP (uvicorn, ``http://HOST:PORT/mcp``; 127.0.0.1 by default, with the SDK's DNS
rebinding protection for loopback hosts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from ..core.catalog import Catalog
from ..plan.model import ToolSpec
from .toolbox import Budgets, ToolBox, ToolResult, paged_schema

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from ..runtime.backends import Backend

__all__ = [
    "CatalogTools",
    "McpServeError",
    "ToolSurface",
    "catalog_specs",
    "http_app",
    "load_platform_catalog",
    "make_server",
    "require_mcp",
    "serve_http",
    "serve_stdio",
]

SERVER_NAME = "edgedsl"
"""The name the server reports to MCP clients."""


class McpServeError(ValueError):
    """A server that cannot be made: the SDK not installed, an unknown platform, a catalog that
    does not load. The message is one line, meant to be shown as is."""


def require_mcp() -> None:
    """:class:`McpServeError` with the install hint when the ``mcp`` SDK is not installed."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise McpServeError("the MCP SDK is not installed: pip install 'edgedsl[mcp]'"
                            ) from None


class ToolSurface(Protocol):
    """What an MCP server serves: function schemas, and one call at a time."""

    def schemas(self) -> list[dict[str, Any]]:
        """The tools as OpenAI function schemas, in listing order."""
        ...

    async def call(self, name: str, arguments: Mapping[str, Any] | str | bytes | None
                   ) -> ToolResult:
        """Execute one call of function ``name``; never raises for the caller's mistakes."""
        ...


def catalog_specs(platforms: Sequence[str], catalog: Catalog) -> dict[str, ToolSpec]:
    """The specs of every tool of ``platforms`` in ``catalog``, by qualified name, platforms in
    the order given and tools in declaration order. :class:`McpServeError` for a platform the
    catalog does not have (naming the ones it has)."""
    out: dict[str, ToolSpec] = {}
    for p in platforms:
        plat = catalog.platforms.get(p)
        if plat is None:
            known = ", ".join(sorted(catalog.platforms))
            raise McpServeError(f"no platform `{p}` in the catalog (platforms: {known})")
        for t in plat.tools.values():
            out[t.qualname] = ToolSpec.of(t, catalog)
    if not out:
        raise McpServeError("no tools to serve: name at least one platform with tools")
    return out


class CatalogTools:
    """The tools ``specs`` executed on ``backend``: each call through a fresh toolbox over all
    of them (``budgets`` per call: its ``seconds`` bound one call, its ``records_shown`` the
    records a result shows)."""

    def __init__(self, specs: Mapping[str, ToolSpec], backend: Backend,
                 budgets: Budgets | None = None) -> None:
        self.specs = dict(specs)
        self.backend = backend
        self.budgets = budgets or Budgets()
        self._schemas = [paged_schema(s) for s in self.specs.values()]

    def schemas(self) -> list[dict[str, Any]]:
        """Every tool's function schema (a paged tool with its ``page`` argument)."""
        return self._schemas

    async def call(self, name: str, arguments: Mapping[str, Any] | str | bytes | None
                   ) -> ToolResult:
        """One call, through a fresh toolbox (no loop or call budget across calls)."""
        box = ToolBox.of_specs(self.specs, self.backend, self.budgets)
        return await box.call(name, arguments)


def make_server(surface: ToolSurface, *, records_shown: int = 20,
                name: str = SERVER_NAME) -> Server[Any]:
    """A low-level MCP :class:`~mcp.server.lowlevel.Server` listing ``surface``'s tools and
    calling them (module docstring); ``records_shown`` records of a page are shown."""
    from mcp import types
    from mcp.server.lowlevel import Server

    from .. import __version__

    tools = [types.Tool(name=s["function"]["name"],
                        description=s["function"].get("description") or None,
                        input_schema=s["function"]["parameters"])
             for s in surface.schemas()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = await surface.call(params.name, params.arguments or {})
        text = result.content(records_shown)
        data = orjson.loads(text)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=data, is_error=not result.ok)

    return Server(name, version=__version__,
                  instructions="Korean public-API tools of edgedsl: every tool's parameters are "
                  "described by their Korean labels; a paged tool takes `page` (1 first).",
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` over this process's stdin and stdout until stdin closes (the SDK points
    fd 1 at stderr meanwhile, so nothing else can write on the wire)."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(server: Server[Any], *, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP ASGI app of ``server`` (endpoint ``/mcp``; DNS rebinding protection
    on for a loopback ``host``)."""
    return server.streamable_http_app(host=host)


def serve_http(server: Server[Any], *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve ``server`` over streamable HTTP on ``http://HOST:PORT/mcp`` until interrupted."""
    import sys

    import uvicorn

    sys.stderr.write(f"edgedsl mcp: streamable HTTP on http://{host}:{port}/mcp\n")
    uvicorn.run(http_app(server, host=host), host=host, port=port, log_level="warning")


def load_platform_catalog() -> Catalog:
    """The catalog of every standard module: every platform ``--platform`` may name.
    :class:`McpServeError` when it does not load."""
    from ..check import CheckError
    from .bundle import full_catalog

    try:
        return full_catalog()
    except CheckError as exc:
        first = next((d for d in exc.diagnostics if d.severity == "error"), None)
        raise McpServeError(f"the catalog does not load: {first.message if first else exc}"
                            ) from None
