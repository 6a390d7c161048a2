"""The ``edgedsl`` command line: one subcommand per stage, ``--json`` wherever data is printed.

Exit codes: 0 clean, 1 errors in the input (diagnostics, failed runs, files to reformat),
2 usage or internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..core.diagnostics import CompileError, Diagnostic
from ..core.source import Source
from .args import positive_int, seconds

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad command line or an unreadable input file (exit code 2)."""


# ---------------------------------------------------------------- output helpers


def _sources_for(diags: Iterable[Diagnostic], known: dict[str, Source]) -> dict[str, Source]:
    """Every source a diagnostic points into, read from disk when not already known."""
    out = dict(known)
    for d in diags:
        for label in d.labels:
            name = label.span.file
            if name not in out and Path(name).is_file():
                with contextlib.suppress(OSError):
                    out[name] = Source.for_display(name)
    return out


def _print_diagnostics(
    diags: Sequence[Diagnostic], sources: dict[str, Source], *, as_json: bool
) -> None:
    from ..core.render import render_json, render_text
    from ..runtime.redact import scrub

    if as_json:
        sys.stdout.write(scrub(render_json(list(diags))) + "\n")
        return
    if diags:  # a quoted line of the program may hold a key (see redact.remember_environment)
        color = sys.stderr.isatty()
        sys.stderr.write(scrub(render_text(list(diags), _sources_for(diags, sources),
                                           color=color)))


def _dump(data: Any, *, indent: bool = True) -> str:
    opt = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(data, option=opt | orjson.OPT_NON_STR_KEYS).decode()


def _read(path: str) -> Source:
    """A source file named on the command line; one that is not UTF-8 is bad input (a
    CompileError ``E000``, exit 1) as for every command."""
    from ..api import read_source

    try:
        return read_source(path)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err}") from None


def _bases(args: argparse.Namespace) -> dict[str, str]:
    """``--base PLATFORM=URL`` options as a mapping (UsageError for a malformed one)."""
    from ..runtime.http import check_base

    out: dict[str, str] = {}
    for item in getattr(args, "base", None) or []:
        platform, sep, url = item.partition("=")
        if not sep or not platform.strip():
            raise UsageError(f"--base {item!r}: write PLATFORM=URL, e.g. "
                             "law=http://127.0.0.1:8088/DRF")
        try:
            out[platform.strip()] = check_base(url)
        except ValueError as err:
            raise UsageError(f"--base {platform.strip()}: {err}") from None
    return out


def _search_paths(args: argparse.Namespace) -> list[Path]:
    return [Path(p) for p in getattr(args, "lib", None) or []]


# ---------------------------------------------------------------- commands


def cmd_parse(args: argparse.Namespace) -> int:
    """``edgedsl parse FILE``: the AST as JSON (``--tree`` for the lark tree)."""
    from ..syntax.build import build
    from ..syntax.parser import parse
    from .dump import to_jsonable

    src = _read(args.file)
    try:
        parsed = parse(src)
        if args.tree:
            sys.stdout.write(parsed.tree.pretty())
            return EXIT_OK
        module = build(parsed)
    except CompileError as err:
        _print_diagnostics(err.diagnostics, {src.name: src}, as_json=args.json)
        return EXIT_ERRORS
    sys.stdout.write(_dump(to_jsonable(module, spans=not args.no_spans)) + "\n")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """``edgedsl check FILE…``: diagnostics; ``--ir`` prints the IR."""
    from ..api import check
    from .dump import to_jsonable

    status = EXIT_OK
    all_diags: list[Diagnostic] = []
    sources: dict[str, Source] = {}
    for path in args.files:
        try:
            src = _read(path)
            sources[src.name] = src
            result = check(src, search_paths=_search_paths(args), phi=args.phi)
        except CompileError as err:
            all_diags.extend(err.diagnostics)
            status = EXIT_ERRORS
            continue
        all_diags.extend(result.diagnostics)
        if args.ir:
            sys.stdout.write(_dump(to_jsonable(result.program.trajectories)) + "\n")
    _print_diagnostics(all_diags, sources, as_json=args.json)
    if not args.json and status == EXIT_OK and not args.ir:
        n_warn = sum(1 for d in all_diags if d.severity == "warning")
        suffix = f" ({n_warn} warning{'s' if n_warn != 1 else ''})" if n_warn else ""
        sys.stderr.write(
            f"ok: {len(args.files)} file{'s' if len(args.files) != 1 else ''}{suffix}\n"
        )
    return status


def cmd_fmt(args: argparse.Namespace) -> int:
    """``edgedsl fmt FILE… [--check]``: rewrite files in the canonical layout."""
    from ..syntax.fmt import format_files

    for p in args.files:
        if not Path(p).is_file():
            raise UsageError(f"no such file: {p}")
    changed, diags = format_files([Path(p) for p in args.files], check=args.check)
    if diags:
        _print_diagnostics(diags, {}, as_json=False)
        return EXIT_ERRORS
    for p in changed:
        verb = "would reformat" if args.check else "reformatted"
        sys.stderr.write(f"{verb} {p}\n")
    if args.check and changed:
        return EXIT_ERRORS
    sys.stderr.write(
        f"{len(args.files) - len(changed)} file(s) already formatted"
        + (f", {len(changed)} reformatted" if changed and not args.check else "")
        + "\n"
    )
    return EXIT_OK


def _compile_file(args: argparse.Namespace) -> tuple[Any, dict[str, Source]] | None:
    from ..api import check
    from ..plan.model import compile_program, load_plan

    path = Path(args.file)
    if path.suffix == ".json":
        try:
            return load_plan(path), {}
        except FileNotFoundError:
            raise UsageError(f"no such file: {path}") from None
        except CompileError as err:
            _print_diagnostics(err.diagnostics, {}, as_json=getattr(args, "json", False))
            return None
    src = _read(args.file)
    try:
        result = check(src, search_paths=_search_paths(args), phi=args.phi)
    except CompileError as err:
        _print_diagnostics(err.diagnostics, {src.name: src}, as_json=getattr(args, "json", False))
        return None
    warnings = [d for d in result.diagnostics if d.severity == "warning"]
    if warnings and not getattr(args, "json", False):
        _print_diagnostics(warnings, {src.name: src}, as_json=False)
    try:
        plan = compile_program(result.program)
    except CompileError as err:
        _print_diagnostics(err.diagnostics, {src.name: src}, as_json=getattr(args, "json", False))
        return None
    return plan, {src.name: src}


def cmd_compile(args: argparse.Namespace) -> int:
    """``edgedsl compile FILE [-o plan.json] [--graph dot|mermaid]``."""
    from ..plan.model import plan_to_json

    compiled = _compile_file(args)
    if compiled is None:
        return EXIT_ERRORS
    plan, _ = compiled
    if args.graph:
        from ..plan.draw import to_dot, to_mermaid

        draw = to_dot if args.graph == "dot" else to_mermaid
        text = draw(plan, args.trajectory)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return EXIT_OK
    blob = plan_to_json(plan)
    if args.output:
        Path(args.output).write_bytes(blob)
        sys.stderr.write(f"wrote {args.output}\n")
    else:
        sys.stdout.write(blob.decode() + "\n")
    return EXIT_OK


def _make_backend(args: argparse.Namespace) -> Any:
    from ..runtime import backends

    name = args.backend or ("python" if args.tools else "store" if args.store else "world")
    timeout = getattr(args, "timeout", None)
    bases = _bases(args)
    if bases and name != "http":
        raise UsageError("--base points the http backend elsewhere; add `--backend http`")
    if name == "world":
        backend: Any = _world_backend(args)
    elif name == "python":
        if not args.tools:
            raise UsageError("the python backend needs `--tools PATH.py` defining TOOLS = {...}")
        try:
            tools = backends.load_python_tools(Path(args.tools))
        except (OSError, ImportError, ValueError, TypeError, SyntaxError) as err:
            raise UsageError(f"cannot load tools from {args.tools}: {err}") from None
        backend = backends.PythonBackend(
            tools, **({} if timeout is None else {"timeout": timeout}))
    elif name == "store":
        if not args.store:
            raise UsageError("the store backend needs `--store FILE`")
        from ..runtime.store import StoreBackend

        backend = StoreBackend(Path(args.store), strict=not args.no_strict)
    elif name == "http":
        from ..runtime.http import HttpOptions

        options = HttpOptions() if timeout is None else HttpOptions(timeout=timeout)
        backend = backends.make_backend("http", bases=bases, options=options)
    else:
        if name not in backends.backend_names():
            raise UsageError(
                f"unknown backend `{name}`; available: {', '.join(backends.backend_names())}"
            )
        backend = backends.make_backend(name)
    if args.record:  # buffered; flushed in one transaction per batch and at close
        from ..runtime.store_record import RecordingBackend

        backend = RecordingBackend(backend, Path(args.record))
    return backend


def _close_backend(backend: Any) -> str | None:
    """Close a backend that has ``close`` (a recorder flushes); the error message, if any."""
    fn = getattr(backend, "close", None)
    if not callable(fn):
        return None
    try:
        fn()
    except Exception as err:
        from ..runtime.store_file import StoreError

        if isinstance(err, StoreError):  # R510 (the write failed), R511 (the file)
            return f"{err.code}: {err}"
        return f"{type(err).__name__}: {err}"
    refused = getattr(backend, "refused", None)  # a recorder: responses the store refused
    if refused:
        return (f"R512: {len(refused)} response(s) not recorded in {backend.path} (listed "
                "above); every other response is recorded")
    return None


def _fault_plan(path: str | None) -> Any:
    from ..world.faults import FaultPlan

    if path is None:
        return FaultPlan()
    try:
        return FaultPlan.load(path)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _world_backend(args: argparse.Namespace) -> Any:
    from ..runtime.http import HttpOptions, make_world_backend

    timeout = getattr(args, "timeout", None)
    options = None if timeout is None else HttpOptions(timeout=timeout, backoff=0.01)
    return make_world_backend(seed=args.seed, faults=_fault_plan(args.faults), options=options)


def cmd_world_serve(args: argparse.Namespace) -> int:
    """``edgedsl world serve``: the simulated platforms as an HTTP server on 127.0.0.1."""
    from ..world.limits import Limits
    from ..world.serve import serve

    serve(host=args.host, port=args.port, seed=args.seed, faults=_fault_plan(args.faults),
          limits=Limits(body_bytes=args.max_body))
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    """``edgedsl run FILE|PLAN.json``: run trajectories, print answers and a trace summary."""
    from ..runtime.executor import run_plan_sync
    from ..runtime.trace import trace_summary

    compiled = _compile_file(args)
    if compiled is None:
        return EXIT_ERRORS
    plan, sources = compiled
    names = [t.name for t in plan.trajectories]
    if args.trajectory and args.trajectory not in names:
        from ..core.diagnostics import did_you_mean

        hint = did_you_mean(args.trajectory, names)
        raise UsageError(
            f"no trajectory `{args.trajectory}`"
            + (f"; did you mean `{hint[0]}`?" if hint else f"; the file has: {', '.join(names)}")
        )
    backend = _make_backend(args)
    try:
        results = run_plan_sync(
            plan, backend, trajectory=args.trajectory, phi=args.phi, max_pages=args.max_pages
        )
    finally:  # also on failure or Ctrl-C: what was recorded is written
        close_error = _close_backend(backend)
    status = EXIT_OK
    if close_error:
        sys.stderr.write(f"edgedsl: error: closing the backend: {close_error}\n")
        status = EXIT_ERRORS
    traces = []
    for res in results:
        if res.trace is not None:
            traces.append(res.trace.model_dump(mode="json"))
        if not res.ok:
            status = EXIT_ERRORS
        if args.json:
            sys.stdout.write(_dump(res.to_json(), indent=False) + "\n")
            continue
        mark = "ok" if res.ok else "FAILED"
        sys.stdout.write(f"== {res.trajectory} [{mark}]\n")
        if res.ok:
            sys.stdout.write("answer: " + _dump(res.answer) + "\n")
            if res.say:
                sys.stdout.write(res.say + "\n")
        if res.trace is not None:
            sys.stdout.write(trace_summary(res.trace) + "\n")
        if res.diagnostics:
            _print_diagnostics(res.diagnostics, sources, as_json=False)
    if args.trace:
        Path(args.trace).write_bytes(
            orjson.dumps(traces if len(traces) != 1 else traces[0], option=orjson.OPT_INDENT_2)
        )
    return status


def cmd_explain(args: argparse.Namespace) -> int:
    """``edgedsl explain CODE``: the long explanation of a diagnostic code."""
    from ..core.codes import CODES, explain

    code = args.code.upper()
    if code not in CODES:
        from ..core.diagnostics import did_you_mean

        hint = did_you_mean(code, CODES)
        raise UsageError(
            f"unknown code `{args.code}`" + (f"; did you mean `{hint[0]}`?" if hint else "")
        )
    sys.stdout.write(explain(code).rstrip() + "\n")
    return EXIT_OK


# ---------------------------------------------------------------- parser


def _parser() -> argparse.ArgumentParser:
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
        sp.add_argument("--phi", type=positive_int, default=5,
                        help="fan-out budget φ (default 5)")

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
    common(sp)
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("fmt", help="format files in the canonical layout")
    sp.add_argument("files", nargs="+", metavar="FILE")
    sp.add_argument(
        "--check", action="store_true", help="report files that would change; write nothing"
    )
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
    sp.add_argument("--seed", type=int, default=0, help="world backend: the world's seed")
    sp.add_argument("--faults", metavar="PLAN.json", help="world backend: a fault plan")
    sp.add_argument("--tools", metavar="PATH.py", help="python backend: file defining TOOLS")
    sp.add_argument("--store", metavar="FILE", help="store backend: the recorded responses")
    sp.add_argument("--no-strict", action="store_true", help="store backend: tolerate misses")
    sp.add_argument("--record", metavar="STORE", help="record every response into STORE")
    sp.add_argument(
        "--max-pages", type=positive_int, default=100,
        help="bound for `pages all` (default 100)"
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
        _print_diagnostics(err.diagnostics, {}, as_json=getattr(args, "json", False))
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
            _print_diagnostics([err.diagnostic()], {}, as_json=getattr(args, "json", False))
            return EXIT_ERRORS

        sys.stderr.write(scrub(
            f"edgedsl: internal error ({type(err).__name__}): {err}\n"
            "this is a bug in edgedsl; set EDGEDSL_DEBUG=1 for the traceback\n"
        ))
        if os.environ.get("EDGEDSL_DEBUG"):
            sys.stderr.write(scrub(traceback.format_exc()))
        return EXIT_USAGE
