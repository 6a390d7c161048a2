"""Stage `check`: AST + catalogs → IR, every problem reported at once.

The stage is one tuple of passes (:data:`PASSES`), run in order over one shared
:class:`~edgedsl.check.context.CheckContext`; every pass reports into the same diagnostics bag
and skips what an earlier pass could not resolve. At the end, errors raise one
:class:`CheckError` (a :class:`~edgedsl.core.diagnostics.CompileError` that also carries the sources
of every module it points into); otherwise :class:`CheckResult` holds the IR and the warnings.

========================  =====================================================================
pass                      does
========================  =====================================================================
``load_modules``          ``use`` resolution: find, parse and load every used module once
``check_run_settings``    the file's ``run { … }`` block → ``RunSettings`` (and φ, see below)
``build_catalog``         catalog declarations of all loaded modules → :class:`Catalog`
``resolve_names``         every name in a trajectory → tool, parameter, binding, field
``check_types``           literals, junctions (nominal code types), reducers, expressions
``check_graph``           ordering and cycles, unused bindings, pages, answer and say
``lower_program``         → :class:`~edgedsl.check.ir.ProgramIR` (only when there is no error)
========================  =====================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.catalog import Catalog
from ..core.diagnostics import CompileError, Diagnostic
from ..core.source import Source
from ..syntax import nodes as n
from .catalog_pass import build_catalog
from .context import CheckContext
from .graph import check_graph
from .ir import ProgramIR
from .lower import lower_program
from .modules import load_modules
from .resolve import resolve_names
from .settings import check_run_settings
from .typing_pass import check_types

if TYPE_CHECKING:
    from ..syntax.parser import SyntaxErrors

Pass = Callable[[CheckContext], None]

PASSES: tuple[Pass, ...] = (
    load_modules,
    check_run_settings,
    build_catalog,
    resolve_names,
    check_types,
    check_graph,
    lower_program,
)
"""The passes of the `check` stage, in the order they run."""


@dataclass
class CheckResult:
    """The outcome of a successful check: the IR, every warning, and the sources they cite."""

    program: ProgramIR
    diagnostics: list[Diagnostic]
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def catalog(self) -> Catalog:
        """The catalog the program was checked against."""
        return self.program.catalog


class CheckError(CompileError):
    """A CompileError of the `check` stage that also carries the sources its spans point into."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, Source]) -> None:
        super().__init__("check", diagnostics)
        self.sources = sources


def _sort_key(main: str) -> Callable[[Diagnostic], tuple[int, str, int]]:
    def key(d: Diagnostic) -> tuple[int, str, int]:
        span = d.span
        if span is None:
            return (2, "", 0)
        return (0 if span.file == main else 1, span.file, span.start)

    return key


def run_passes(ctx: CheckContext, passes: Iterable[Pass] = PASSES) -> CheckContext:
    """Run ``passes`` over ``ctx`` in order and return it (no raising)."""
    for p in passes:
        p(ctx)
    return ctx


def check(
    module: n.Module,
    source: Source,
    *,
    search_paths: Sequence[Path] = (),
    phi: int | None = None,
) -> CheckResult:
    """Check a parsed module against its catalogs and lower it to IR.

    Used modules are looked up in the module's directory, then ``search_paths``, then the
    standard library. Raises :class:`CheckError` (a CompileError with stage ``"check"``) holding
    every diagnostic, warnings included, when any error was found. ``phi`` None: the φ of the
    file's ``run`` block, else 5. ValueError when ``phi`` is not a whole number of at least 1.
    """
    if phi is not None and (isinstance(phi, bool) or not isinstance(phi, int) or phi < 1):
        raise ValueError(f"phi must be a whole number of at least 1, not {phi!r}")
    ctx = CheckContext(
        module=module, source=source, search_paths=tuple(Path(p) for p in search_paths),
        phi=5 if phi is None else phi, phi_given=phi is not None,
    )
    run_passes(ctx)
    diags = sorted(ctx.diags, key=_sort_key(source.name))
    if ctx.diags.has_errors() or ctx.program is None:
        raise CheckError(diags, ctx.sources)
    return CheckResult(program=ctx.program, diagnostics=diags, sources=ctx.sources)


def check_sound_part(
    error: SyntaxErrors,
    source: Source,
    *,
    search_paths: Sequence[Path] = (),
    phi: int | None = None,
) -> list[Diagnostic]:
    """The checker's errors in what parsed soundly of a file with syntax errors
    (``error.module``: the declarations and every trajectory no syntax error touched, built
    only when no error lies outside a trajectory; :mod:`edgedsl.syntax.recover`). Empty when
    nothing parsed soundly or no trajectory is left to check."""
    module = error.module
    if module is None or not module.trajectories:
        return []
    try:
        check(module, source, search_paths=search_paths, phi=phi)
    except CompileError as checked:
        return [d for d in checked.diagnostics if d.severity == "error"]
    return []


def load_catalog(names: Iterable[str], search_paths: Sequence[Path] = ()) -> Catalog:
    """The catalog of the modules ``names`` (e.g. ``["dart", "krx"]``), as ``use`` would load it.

    Modules are found in ``search_paths`` and then the standard library. Raises
    :class:`CheckError` when a module is missing or its declarations have errors.
    """
    names = list(names)
    text = f"use {', '.join(names)}\n" if names else ""
    source = Source("<catalog>", text)
    from ..syntax.build import parse_module

    ctx = CheckContext(
        module=parse_module(source),
        source=source,
        search_paths=tuple(Path(p) for p in search_paths),
        check_trajectories=False,
    )
    run_passes(ctx, (load_modules, build_catalog))
    if ctx.diags.has_errors():
        raise CheckError(sorted(ctx.diags, key=_sort_key(source.name)), ctx.sources)
    return ctx.catalog


__all__ = ["PASSES", "CheckError", "CheckResult", "check", "check_sound_part", "load_catalog",
           "run_passes"]
