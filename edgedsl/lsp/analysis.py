"""One document through the compiler's stages, for the editor.

:func:`analyse` parses and checks the text of an open document as ``edgedsl check`` would
(the same passes, :data:`edgedsl.check.PASSES`, and ``W008`` from the shipped G*), but keeps
what a command throws away: every diagnostic of the first stage that failed *and* the checker's
context (the catalog of the used modules, the bindings of each trajectory with their
relations), even when the program has errors, so hover, go to definition and completion work
on a file being written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..check import PASSES, run_passes
from ..check.context import CheckContext
from ..check.evidence import has_junctions
from ..core.diagnostics import CompileError, Diagnostic
from ..core.source import Source, universal_newlines
from ..syntax import nodes as n
from ..syntax.build import parse_module

__all__ = ["Analysis", "analyse"]


@dataclass
class Analysis:
    """A document analysed: its ``source``, its AST (None when it does not parse), the
    checker's context (None likewise), every diagnostic, and the sources they point into."""

    source: Source
    module: n.Module | None
    ctx: CheckContext | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def parsed(self) -> bool:
        """True when the text parsed (an AST and the checker's facts are there)."""
        return self.module is not None


def _order(main: str, d: Diagnostic) -> tuple[int, str, int]:
    span = d.span
    if span is None:
        return (2, "", 0)
    return (0 if span.file == main else 1, span.file, span.start)


def analyse(text: str, name: str, search_paths: Sequence[Path] = ()) -> Analysis:
    """Parse and check ``text``, named ``name`` (the document's path: ``use`` looks in its
    directory first, then ``search_paths``, then the standard library). Never raises for a
    problem of the text: syntax errors (``E0xx``) and the checker's errors and warnings are
    all in ``diagnostics``."""
    source = Source(name, universal_newlines(text))
    try:
        module = parse_module(source)
    except CompileError as err:
        return Analysis(source, None, None, list(err.diagnostics), {name: source})
    ctx = CheckContext(module=module, source=source,
                       search_paths=tuple(Path(p) for p in search_paths), phi_given=False)
    run_passes(ctx, PASSES)
    sources = {name: source, **{m.source.name: m.source for m in ctx.modules.values()},
               **ctx.sources}
    found = list(ctx.diags)
    if ctx.program is not None and has_junctions(ctx.program):  # else no recipe import
        from ..recipe.graph.evidence import junction_warnings  # W008, as `edgedsl check`

        found.extend(junction_warnings(ctx.program, [m for m in sources if m != name]))
    diags = sorted(found, key=lambda d: _order(name, d))
    return Analysis(source, module, ctx, diags, sources)
