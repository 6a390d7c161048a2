"""``edgedsl mcp serve``: the catalogs' tools as an MCP server (stdio or streamable HTTP).

Backed by any backend (``--backend world|store|http|python``, default the in-process world); see
:mod:`edgedsl.bench.mcp_server` for what is served and docs/bench.md ("MCP") for connecting a
client or an agent.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .args import positive_int, seconds
from .common import EXIT_OK, UsageError, add_backend_args, close_quietly, make_backend

__all__ = ["add_mcp_parser", "cmd_mcp_serve"]


def cmd_mcp_serve(args: argparse.Namespace) -> int:
    """``mcp serve``: serve the tools of ``--platform``s until stdin closes (stdio) or the
    process is interrupted (http)."""
    import anyio

    from ..bench.mcp_server import (
        CatalogTools,
        McpServeError,
        catalog_specs,
        load_platform_catalog,
        make_server,
        require_mcp,
        serve_http,
        serve_stdio,
    )
    from ..bench.toolbox import Budgets

    try:
        require_mcp()
        specs = catalog_specs(args.platform, load_platform_catalog())
    except McpServeError as exc:
        raise UsageError(str(exc)) from None
    backend = make_backend(args)
    try:
        budgets = Budgets(records_shown=args.records,
                          **({} if args.timeout is None else {"seconds": args.timeout}))
        server = make_server(CatalogTools(specs, backend, budgets),
                             records_shown=args.records)
        if args.transport == "stdio":
            sys.stderr.write(f"edgedsl mcp: {len(specs)} tools of "
                             f"{', '.join(args.platform)} on stdio\n")
            anyio.run(serve_stdio, server)
        else:
            serve_http(server, host=args.host, port=args.port)
    finally:
        close_quietly(backend)
    return EXIT_OK


def add_mcp_parser(sub: Any) -> None:
    """Add ``mcp`` and its command to the CLI's subparsers."""
    sp = sub.add_parser("mcp", help="the catalogs' tools over the Model Context Protocol")
    msub = sp.add_subparsers(dest="mcp_command", required=True, metavar="COMMAND")
    p = msub.add_parser("serve", help="serve the tools of platforms as an MCP server")
    p.add_argument("--platform", action="append", required=True, metavar="P",
                   help="a platform whose tools are served (repeatable), e.g. dart")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp")
    p.add_argument("--host", default="127.0.0.1",
                   help="http: the address to bind (default 127.0.0.1; loopback only)")
    p.add_argument("--port", type=int, default=8765, help="http: the TCP port (default 8765)")
    p.add_argument("--records", type=positive_int, default=20,
                   help="records of a page shown in a result (default 20)")
    p.add_argument("--timeout", type=seconds, metavar="SECONDS",
                   help="the time one call may take (default 120 s)")
    add_backend_args(p)
    p.set_defaults(func=cmd_mcp_serve)
