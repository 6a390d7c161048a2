"""The staged public API: parse → check → compile (plan) → run, and format.

Each stage is one function over named intermediate forms (AST ``Module``, ``ProgramIR``,
``Plan``, ``RunResult``); the CLI commands mirror them one to one. Heavy modules (DuckDB, the
runtime) are imported only by the stages that need them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .core.diagnostics import CompileError, not_utf8
from .core.source import Source
from .syntax.build import parse_module
from .syntax.nodes import Module
from .syntax.parser import SyntaxErrors

if TYPE_CHECKING:
    from .check import CheckResult
    from .check.ir import ProgramIR
    from .plan.model import Plan
    from .runtime.backends import Backend
    from .runtime.executor import RunResult


@cache
def _checker() -> Callable[..., CheckResult]:
    """``check.check``, imported on first use (and not on every call: compiling thousands of
    files a second, an ``import`` statement per call shows)."""
    from .check import check as _check

    return _check


@cache
def _planner() -> Callable[[ProgramIR], Plan]:
    """``plan.compile_program``, imported on first use."""
    from .plan.compile import compile_program

    return compile_program


def read_source(path: str | Path) -> Source:
    """Read a UTF-8 ``.edge`` file into a Source named after its path (a byte-order mark at its
    start ignored). CompileError ``E000`` at the first byte when it is not UTF-8; OSError when
    it cannot be read."""
    try:
        return Source.from_path(path)
    except UnicodeDecodeError as err:
        raise CompileError("read", [not_utf8(str(Path(path)), err)[0]]) from None


def _as_source(src: Source | str | Path, name: str = "<string>") -> Source:
    if isinstance(src, Source):
        return src
    if isinstance(src, Path):
        return read_source(src)
    return Source(name, src)


def parse(src: Source | str | Path, name: str = "<string>") -> Module:
    """Stages `parse` + `build`: text → AST. Raises CompileError with ``E0xx`` diagnostics."""
    return parse_module(_as_source(src, name))


def format(module: Module) -> str:
    """Stage `format`: AST → canonical text."""
    from .syntax.printer import format_module

    return format_module(module)


def check(
    src: Source | str | Path,
    name: str = "<string>",
    *,
    search_paths: Sequence[Path] = (),
    phi: int | None = None,
) -> CheckResult:
    """Stages up to `check`: text → IR, with every warning. Raises CompileError on errors.
    ``phi`` None: the φ of the file's ``run`` block, else 5.

    A file with syntax errors raises them all (:class:`~edgedsl.syntax.parser.SyntaxErrors`),
    joined by the checker's errors in what parsed soundly: the declarations and every
    trajectory no syntax error touched, when no error lies outside a trajectory."""
    source = _as_source(src, name)
    try:
        module = parse_module(source)
    except SyntaxErrors as err:
        from .check import check_sound_part

        err.diagnostics = [*err.diagnostics, *check_sound_part(
            err, source, search_paths=search_paths, phi=phi)]
        raise
    return _checker()(module, source, search_paths=search_paths, phi=phi)


def compile(
    src: Source | str | Path,
    name: str = "<string>",
    *,
    search_paths: Sequence[Path] = (),
    phi: int | None = None,
) -> Plan:
    """Stages up to `plan`: text → Plan (parse + check + plan)."""
    return _planner()(check(src, name, search_paths=search_paths, phi=phi).program)


def run(
    plan: Plan,
    backend: Backend | str,
    *,
    trajectory: str | None = None,
    phi: int | None = None,
) -> list[RunResult]:
    """Stage `run`: Plan + backend → one RunResult (answer, trace, diagnostics) per trajectory.
    ``phi`` None: the plan's ``run`` setting, else 5; ``max_pages`` is the plan's or the
    runtime's default. (The world's seed of ``run { seed: … }`` is the caller's to apply when
    it makes the backend: :func:`edgedsl.runtime.http.make_world_backend`.)"""
    from .runtime.executor import run_plan_sync

    if backend == "world" and plan.run.seed is not None:  # the world the file was written on
        from .runtime.http import make_world_backend

        backend = make_world_backend(seed=plan.run.seed)
    options: dict[str, int] = {"phi": phi if phi is not None else plan.run.phi or 5}
    if plan.run.max_pages is not None:
        options["max_pages"] = plan.run.max_pages
    return run_plan_sync(plan, backend, trajectory=trajectory, **options)
