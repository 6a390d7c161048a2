"""``edgedsl lsp``: the language server over stdio (see :mod:`edgedsl.lsp.server` and
docs/editors.md); needs the ``[lsp]`` extra (pygls)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import EXIT_OK, UsageError

__all__ = ["add_lsp_parser", "cmd_lsp"]


def cmd_lsp(args: argparse.Namespace) -> int:
    """``lsp``: serve the language server protocol on stdin/stdout until the client exits."""
    try:
        from ..lsp.server import serve
    except ImportError as err:
        raise UsageError(f"`edgedsl lsp` needs pygls ({err.name} is not installed): "
                         "pip install 'edgedsl[lsp]'") from None
    serve([Path(d) for d in args.lib or ()])
    return EXIT_OK


def add_lsp_parser(sub: Any) -> None:
    """Add ``lsp`` to the CLI's subparsers."""
    sp = sub.add_parser("lsp", help="the language server (LSP over stdio) for editors")
    sp.add_argument("--stdio", action="store_true",
                    help="talk over stdin/stdout (the default and only transport; accepted "
                         "because editors' clients pass it)")
    sp.add_argument("--lib", action="append", metavar="DIR",
                    help="extra directory searched by `use` (after the file's own directory)")
    sp.set_defaults(func=cmd_lsp)
