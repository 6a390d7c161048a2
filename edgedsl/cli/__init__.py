"""The ``edgedsl`` command line: one subcommand per stage, ``--json`` wherever data is printed.

One module per command family (:mod:`.compile`, :mod:`.run`, :mod:`.store`, :mod:`.graph`,
:mod:`.synth`, :mod:`.bench`, :mod:`.mcp`, :mod:`.suites`, :mod:`.lsp`), what they share in
:mod:`.common`; this module builds the argument parser and runs a command.

Exit codes: 0 clean, 1 errors in the input (diagnostics, failed runs, files to reformat),
2 usage or internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.diagnostics import CompileError
from .args import positive_int, seconds
from .common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, UsageError, print_diagnostics
from .compile import cmd_check, cmd_compile, cmd_explain, cmd_fmt, cmd_parse
from .run import cmd_run, cmd_world_serve

__all__ = ["UsageError", "main"]


# ---------------------------------------------------------------- parser


def _parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    p = argparse.ArgumentParser(
        prog="edgedsl",
        description="Write, check, compile and run multi-step tool-calling trajectories.",
    )
    p.add_argument("--version", action="version", version=f"edgedsl {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--lib",
            action="append",
            metavar="DIR",
            help="extra directory searched by `use` (after the file's own directory)",
        )
        sp.add_argument("--phi", type=positive_int, default=None,
                        help="fan-out budget φ (default: the file's `run { phi: … }`, else 5)")

    sp = sub.add_parser("parse", help="parse a file and print its AST as JSON")
    sp.add_argument("file")
    sp.add_argument("--tree", action="store_true", help="print the lark parse tree instead")
    sp.add_argument("--no-spans", action="store_true", help="leave spans out of the JSON")
    sp.add_argument("--json", action="store_true", help="diagnostics as JSON")
    sp.set_defaults(func=cmd_parse)

    sp = sub.add_parser("check", help="check files against their catalogs")
    sp.add_argument("files", nargs="+", metavar="FILE")
    sp.add_argument("--json", action="store_true", help="diagnostics as JSON")
    sp.add_argument("--ir", action="store_true", help="print the checked IR as JSON")
    sp.add_argument("--graph", metavar="GSTAR.json",
                    help="warn (W008) about junctions over edges this G* pruned or never saw "
                         "succeed (default: the shipped G*, for programs over the stdlib)")
    sp.add_argument("--no-graph", action="store_true", help="read no G*: no W008")
    common(sp)
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("fmt", help="format files in the canonical layout")
    sp.add_argument("files", nargs="+", metavar="FILE",
                    help="files to format in place; `-` formats standard input to standard output")
    sp.add_argument(
        "--check", action="store_true", help="report files that would change; write nothing"
    )
    sp.add_argument("--diff", action="store_true",
                    help="print what would change as a unified diff; write nothing; exit 1 when "
                         "something would change")
    sp.set_defaults(func=cmd_fmt)

    sp = sub.add_parser("compile", help="compile a file to a JSON plan, or draw the plan")
    sp.add_argument("file")
    sp.add_argument("-o", "--output", metavar="PLAN", help="write the plan (or graph) to a file")
    sp.add_argument("--graph", choices=("dot", "mermaid"), help="draw the plan instead")
    sp.add_argument("--trajectory", metavar="NAME", help="only this trajectory (with --graph)")
    sp.add_argument("--json", action="store_true", help="diagnostics as JSON")
    common(sp)
    sp.set_defaults(func=cmd_compile)

    sp = sub.add_parser("run", help="run the trajectories of a file or a plan")
    sp.add_argument("file", metavar="FILE", help="an .edge file or a compiled plan .json")
    sp.add_argument("--trajectory", metavar="NAME", help="run only this trajectory")
    sp.add_argument("--json", action="store_true", help="one JSON object per trajectory")
    sp.add_argument("--trace", metavar="FILE", help="write the full trace as JSON")
    sp.add_argument(
        "--backend", metavar="NAME",
        help="world | http | python | store (default: world; python with --tools, "
        "store with --store)",
    )
    sp.add_argument("--seed", type=int, default=None,
                    help="world backend: the world's seed (default: the file's "
                    "`run { seed: … }`, else 0)")
    sp.add_argument("--faults", metavar="PLAN.json", help="world backend: a fault plan")
    sp.add_argument("--tools", metavar="PATH.py", help="python backend: file defining TOOLS")
    sp.add_argument("--store", metavar="FILE", help="store backend: the recorded responses")
    sp.add_argument("--no-strict", action="store_true", help="store backend: tolerate misses")
    sp.add_argument("--record", metavar="STORE", help="record every response into STORE")
    sp.add_argument(
        "--max-pages", type=positive_int, default=None,
        help="bound for `pages all` (default: the file's `run { max_pages: … }`, else 100)"
    )
    sp.add_argument(
        "--timeout", type=seconds, metavar="SECONDS",
        help="per-call timeout of every backend (default: 10 s per attempt over HTTP and on the "
        "world, 60 s for a python tool); a call past it is an environmental failure (R504)",
    )
    sp.add_argument(
        "--base", action="append", metavar="PLATFORM=URL",
        help="http backend: send PLATFORM's requests to URL instead of the catalog's base (a "
        "mirror, a proxy, `edgedsl world serve`); repeatable; also EDGEDSL_BASE_<PLATFORM>. "
        "The platform's key goes there too",
    )
    common(sp)
    sp.add_argument(
        "--determinacy", action="store_true",
        help="also re-run each trajectory with the opposite most_frequent tie-break, half the "
        "page size and `pages all` where the page limit was implicit; exit 1 when one of them "
        "changes or breaks the answer",
    )
    sp.add_argument("-q", "--quiet", action="store_true",
                    help="no progress line on stderr (there is none either when stderr is not "
                         "a terminal)")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("world", help="the simulated world of the ten platforms")
    wsub = sp.add_subparsers(dest="world_command", required=True, metavar="COMMAND")
    wp = wsub.add_parser("serve", help="serve the world over HTTP on 127.0.0.1")
    wp.add_argument("--port", type=int, default=8088, help="TCP port (default 8088)")
    wp.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1; loopback only by default)")
    wp.add_argument("--seed", type=int, default=0, help="the world's seed (default 0)")
    wp.add_argument("--faults", metavar="PLAN.json", help="a fault plan (JSON)")
    from ..world.limits import BODY_BYTES

    wp.add_argument("--max-body", type=positive_int, default=BODY_BYTES, metavar="BYTES",
                    help=f"refuse request bodies larger than this with 413 (default "
                         f"{BODY_BYTES}, 1 MiB)")
    wp.set_defaults(func=cmd_world_serve)

    from .store import add_store_parser

    add_store_parser(sub)

    from .graph import add_graph_parser

    add_graph_parser(sub)

    from .synth import add_synth_parser

    add_synth_parser(sub)

    from .bench import add_bench_parser

    add_bench_parser(sub)

    from .mcp import add_mcp_parser

    add_mcp_parser(sub)

    from .suites import add_import_parser

    add_import_parser(sub)

    from .lsp import add_lsp_parser

    add_lsp_parser(sub)

    sp = sub.add_parser("explain", help="explain a diagnostic code, e.g. E204")
    sp.add_argument("code")
    sp.set_defaults(func=cmd_explain)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``edgedsl`` console script; returns the exit code."""
    from ..runtime.interrupt import watching
    from ..runtime.redact import remember_environment

    remember_environment()
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return int(exc.code or 0)
    try:
        with watching():  # Ctrl-C told apart from a tool raising KeyboardInterrupt
            return int(args.func(args))
    except UsageError as err:
        sys.stderr.write(f"edgedsl: error: {err}\n")
        return EXIT_USAGE
    except CompileError as err:
        print_diagnostics(err.diagnostics, {}, as_json=getattr(args, "json", False))
        return EXIT_ERRORS
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # an internal bug: say so, exit 2, no traceback unless asked
        import os
        import traceback

        from ..runtime.redact import scrub
        from ..runtime.store_file import StoreError

        if isinstance(err, StoreError):  # a store file that cannot be used: bad input
            print_diagnostics([err.diagnostic()], {}, as_json=getattr(args, "json", False))
            return EXIT_ERRORS

        sys.stderr.write(scrub(
            f"edgedsl: internal error ({type(err).__name__}): {err}\n"
            "this is a bug in edgedsl; set EDGEDSL_DEBUG=1 for the traceback\n"
        ))
        if os.environ.get("EDGEDSL_DEBUG"):
            sys.stderr.write(scrub(traceback.format_exc()))
        return EXIT_USAGE

