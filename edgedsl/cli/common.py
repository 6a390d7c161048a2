"""What every command family of the command line shares: exit codes, the usage error, printing
diagnostics and JSON, reading sources, compiling a file, and making and closing backends.

Public names only: each command module (:mod:`.compile`, :mod:`.run`, :mod:`.store`,
:mod:`.graph`, :mod:`.synth`) imports from here, never a private name of another.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..core.diagnostics import CompileError, Diagnostic
from ..core.source import Source

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad command line or an unreadable input file (exit code 2)."""


def sources_for(diags: Iterable[Diagnostic], known: dict[str, Source]) -> dict[str, Source]:
    """Every source a diagnostic points into, read from disk when not already known."""
    out = dict(known)
    for d in diags:
        for label in d.labels:
            name = label.span.file
            if name not in out and Path(name).is_file():
                with contextlib.suppress(OSError):
                    out[name] = Source.for_display(name)
    return out


def print_diagnostics(
    diags: Sequence[Diagnostic], sources: dict[str, Source], *, as_json: bool
) -> None:
    """Print diagnostics: as JSON on stdout, or rendered (with their sources) on stderr."""
    from ..core.render import render_json, render_text
    from ..runtime.redact import scrub

    if as_json:
        sys.stdout.write(scrub(render_json(list(diags))) + "\n")
        return
    if diags:  # a quoted line of the program may hold a key (see redact.remember_environment)
        color = sys.stderr.isatty()
        sys.stderr.write(scrub(render_text(list(diags), sources_for(diags, sources),
                                           color=color)))


def dump_json(data: Any, *, indent: bool = True) -> str:
    """JSON text of ``data`` (indented unless ``indent`` is false), non-string keys allowed."""
    opt = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(data, option=opt | orjson.OPT_NON_STR_KEYS).decode()


def print_model(model: Any, as_json: bool, render: Callable[[], str]) -> None:
    """Print a report model: its JSON (``--json``) or the text ``render()`` makes of it."""
    if as_json:
        sys.stdout.write(dump_json(model.model_dump(mode="json")) + "\n")
    else:
        print(render())


def read_source_file(path: str) -> Source:
    """A source file named on the command line; one that is not UTF-8 is bad input (a
    CompileError ``E000``, exit 1) as for every command."""
    from ..api import read_source

    try:
        return read_source(path)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err}") from None


def parse_bases(args: argparse.Namespace) -> dict[str, str]:
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


def search_paths(args: argparse.Namespace) -> list[Path]:
    """The ``--lib`` directories, in order."""
    return [Path(p) for p in getattr(args, "lib", None) or []]


def compile_file(args: argparse.Namespace) -> tuple[Any, dict[str, Source]] | None:
    """The plan of ``args.file`` (a source, checked and compiled, or a plan ``.json``) and the
    sources it was read from; None after printing its diagnostics."""
    from ..api import check
    from ..plan.compile import compile_program
    from ..plan.model import load_plan

    path = Path(args.file)
    if path.suffix == ".json":
        try:
            return load_plan(path), {}
        except FileNotFoundError:
            raise UsageError(f"no such file: {path}") from None
        except CompileError as err:
            print_diagnostics(err.diagnostics, {}, as_json=getattr(args, "json", False))
            return None
    src = read_source_file(args.file)
    try:
        result = check(src, search_paths=search_paths(args), phi=args.phi)
    except CompileError as err:
        print_diagnostics(err.diagnostics, {src.name: src}, as_json=getattr(args, "json", False))
        return None
    warnings = [d for d in result.diagnostics if d.severity == "warning"]
    if warnings and not getattr(args, "json", False):
        print_diagnostics(warnings, {src.name: src}, as_json=False)
    try:
        plan = compile_program(result.program)
    except CompileError as err:
        print_diagnostics(err.diagnostics, {src.name: src}, as_json=getattr(args, "json", False))
        return None
    return plan, {src.name: src}


def make_backend(args: argparse.Namespace) -> Any:
    """The backend the ``--backend`` / ``--tools`` / ``--store`` / ``--record`` options name."""
    from ..runtime import backends
    from ..runtime.python_backend import PythonBackend

    name = args.backend or ("python" if args.tools else "store" if args.store else "world")
    timeout = getattr(args, "timeout", None)
    bases = parse_bases(args)
    if bases and name != "http":
        raise UsageError("--base points the http backend elsewhere; add `--backend http`")
    if name == "world":
        backend: Any = world_backend(args)
    elif name == "python":
        if not args.tools:
            raise UsageError("the python backend needs `--tools PATH.py` defining TOOLS = {...}")
        try:
            tools = backends.load_python_tools(Path(args.tools))
        except (OSError, ImportError, ValueError, TypeError, SyntaxError) as err:
            raise UsageError(f"cannot load tools from {args.tools}: {err}") from None
        backend = PythonBackend(
            tools, **({} if timeout is None else {"timeout": timeout}))
    elif name == "store":
        if not args.store:
            raise UsageError("the store backend needs `--store FILE`")
        from ..runtime.store_replay import StoreBackend

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


def close_backend(backend: Any) -> str | None:
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


def fault_plan(path: str | None) -> Any:
    """The fault plan at ``path`` (none: the empty plan); UsageError for a bad file."""
    from ..world.faults import FaultPlan

    if path is None:
        return FaultPlan()
    try:
        return FaultPlan.load(path)
    except ValueError as err:
        raise UsageError(str(err)) from None


def world_backend(args: argparse.Namespace) -> Any:
    """The in-process world backend for ``--seed``, ``--faults`` and ``--timeout``."""
    from ..runtime.http import HttpOptions, make_world_backend

    timeout = getattr(args, "timeout", None)
    options = None if timeout is None else HttpOptions(timeout=timeout, backoff=0.01)
    return make_world_backend(seed=args.seed, faults=fault_plan(args.faults), options=options)


def usage_error(msg: str) -> Exception:
    """A :class:`UsageError` with ``msg`` (exit code 2), to raise."""
    return UsageError(msg)


def error_exit(msg: str) -> int:
    """Print ``error: msg`` and return the errors exit code."""
    sys.stderr.write(f"error: {msg}\n")
    return EXIT_ERRORS


def load_graph_file(path: str) -> Any:
    """The graph file at ``path``; UsageError when it is missing or malformed."""
    from ..recipe.graph.model import GraphFileError, load_graph

    if not Path(path).is_file():
        raise usage_error(f"no such graph file: {path}")
    try:
        return load_graph(Path(path))
    except GraphFileError as exc:
        raise usage_error(str(exc)) from None


def load_catalog_modules(modules: list[str], search_paths: list[str]) -> Any:
    """The catalog of ``modules``; UsageError naming the first error."""
    from ..check import CheckError, load_catalog

    try:
        return load_catalog(modules, [Path(p) for p in search_paths])
    except CheckError as exc:
        first = next((d for d in exc.diagnostics if d.severity == "error"), None)
        raise usage_error(f"cannot load the catalog {', '.join(modules)}: "
                     f"{first.message if first else exc}") from None


def open_backend(args: argparse.Namespace) -> Any:
    """The backend named by the command's backend options (see :func:`make_backend`)."""
    return make_backend(args)


def close_quietly(backend: Any) -> None:
    """Close ``backend``, printing a warning when closing failed."""
    problem = close_backend(backend)
    if problem:
        sys.stderr.write(f"warning: closing the backend: {problem}\n")


def add_backend_args(sp: argparse.ArgumentParser) -> None:
    """The backend options every command that calls tools takes."""
    sp.add_argument("--backend", metavar="NAME",
                    help="world | http | python | store (default: world; python with --tools, "
                    "store with --store)")
    sp.add_argument("--seed", type=int, default=0,
                    help="the run's seed (and the world's; default 0)")
    sp.add_argument("--faults", metavar="PLAN.json", help="world backend: a fault plan")
    sp.add_argument("--store", metavar="FILE", help="store backend: the recorded responses")
    sp.add_argument("--no-strict", action="store_true", help="store backend: tolerate misses")
    sp.add_argument("--tools", metavar="PATH.py", help="python backend: file defining TOOLS")
    sp.add_argument("--record", metavar="STORE", help="record every response into STORE")


def add_llm_args(sp: argparse.ArgumentParser, purpose: str) -> None:
    """``--llm-url``, ``--llm-model``, ``--llm-key-env``: an optional chat model for
    ``purpose``."""
    sp.add_argument("--llm-url", metavar="URL",
                    help=f"{purpose} at this OpenAI-compatible base URL")
    sp.add_argument("--llm-model", metavar="NAME", help="the chat model's name")
    sp.add_argument("--llm-key-env", metavar="VAR", default="EDGEDSL_LLM_KEY",
                    help="environment variable holding the endpoint's key (EDGEDSL_LLM_KEY)")


def add_ray_arg(sp: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]``: distribute ``what`` over a Ray cluster (no address: a local Ray
    instance started for the run); see :mod:`edgedsl.core.pool`."""
    sp.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                    help=f"distribute {what} over a Ray cluster: `auto`, ray://HOST:10001, "
                    "HOST:6379; no address: a local Ray instance for the run "
                    "(pip install 'edgedsl[ray]')")


def check_ray(args: argparse.Namespace) -> None:
    """UsageError naming the extra when ``--ray`` is given and Ray is not installed."""
    from ..core.pool import PoolError, require_ray

    if getattr(args, "ray", None) is not None:
        try:
            require_ray()
        except PoolError as exc:
            raise usage_error(str(exc)) from None
