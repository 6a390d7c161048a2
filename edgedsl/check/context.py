"""The state the `check` passes share: loaded modules, the catalog, and per-trajectory facts.

Each pass reads what earlier passes left in a :class:`CheckContext` and adds its own facts;
all of them report into the one :class:`~edgedsl.core.diagnostics.Diagnostics` bag. Facts about AST
nodes are keyed by ``id(node)`` (AST nodes compare structurally, so identity is the key), which
is safe because the context keeps the AST alive.

Something an earlier pass could not resolve is simply absent from these maps (or is a
:data:`UNKNOWN` type); later passes skip it instead of reporting a follow-on error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.catalog import Catalog, Param, Tool
from ..core.diagnostics import Diagnostics, diag
from ..core.source import Source, Span
from ..core.types import FieldType
from ..syntax import nodes as n

if TYPE_CHECKING:
    from .ir import ProgramIR


@dataclass(frozen=True, slots=True)
class UnknownType:
    """The type of something whose declared type could not be resolved (never reported on)."""

    def __str__(self) -> str:
        return "?"


UNKNOWN = UnknownType()


def known(t: object) -> bool:
    """True when ``t`` is a real field type (not None, not :data:`UNKNOWN`)."""
    return t is not None and not isinstance(t, UnknownType)


@dataclass
class ModuleInfo:
    """One loaded ``.edge`` module: its name, file, AST (None when it failed) and direct uses."""

    name: str
    path: Path | None
    source: Source
    ast: n.Module | None
    uses: list[str] = field(default_factory=list)
    main: bool = False


@dataclass
class Rel:
    """A relation known to the checker: its id, record type name and field types."""

    id: str
    record: str
    fields: dict[str, FieldType]
    span: Span


@dataclass
class Group:
    """A ``parallel`` group: its branch relations by branch name (None when unresolved)."""

    name: str
    branches: dict[str, Rel | None]
    span: Span


Value = Rel | Group | None
"""What a binding name denotes; None when its node could not be resolved."""


@dataclass
class RefInfo:
    """What a reference resolved to: a relation and, for ``x.f``, the field and its type."""

    rel: Rel
    field: str | None = None
    type: FieldType | None = None


@dataclass
class Use:
    """One use of a binding name; ``user`` is the binding using it (None: answer or predicate)."""

    name: str
    span: Span
    user: str | None
    forward: bool = False


@dataclass
class Join:
    """A name bound in both branches of an ``if``, and the places it is used after the ``if``."""

    name: str
    then: n.Binding
    orelse: n.Binding
    then_value: Value
    else_value: Value
    uses: list[Span] = field(default_factory=list)


@dataclass
class TrajInfo:
    """Facts about one trajectory, filled by the resolve pass and read by the later ones."""

    ast: n.Trajectory
    tools: dict[int, Tool] = field(default_factory=dict)
    params: dict[int, Param] = field(default_factory=dict)
    refs: dict[int, RefInfo] = field(default_factory=dict)
    values: dict[int, Value] = field(default_factory=dict)
    drv_sources: dict[int, Rel] = field(default_factory=dict)
    shared: dict[int, n.Arg] = field(default_factory=dict)
    bindings: list[n.Binding] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    joins: list[Join] = field(default_factory=list)
    if_binds: dict[int, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class CheckContext:
    """Everything the passes share for one run of :func:`edgedsl.check.check`."""

    module: n.Module
    source: Source
    search_paths: tuple[Path, ...] = ()
    phi: int = 5
    diags: Diagnostics = field(default_factory=Diagnostics)
    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    main: ModuleInfo | None = None
    catalog: Catalog = field(default_factory=Catalog)
    catalog_incomplete: bool = False
    visible_platforms: dict[str, str] = field(default_factory=dict)
    platform_module: dict[str, str] = field(default_factory=dict)
    trajs: list[TrajInfo] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)
    program: ProgramIR | None = None
    check_trajectories: bool = True

    def sub_span(
        self, span: Span, needle: str, *, last: bool = False, word: bool = True, skip: int = 0
    ) -> Span:
        """The span of ``needle`` inside ``span`` (first or last occurrence, ignoring the first
        ``skip`` characters), else ``span`` itself."""
        src = self.sources.get(span.file)
        if src is None or not needle:
            return span
        base = span.start + skip
        text = src.text[base : span.end]
        pattern = _needle_pattern(needle, word)
        m = None
        if last:
            for m in pattern.finditer(text):  # noqa: B007 - the last match is wanted
                pass
        else:
            m = pattern.search(text)
        if m is None:
            return span
        return src.span(base + m.start(), base + m.end())

    def head_span(self, span: Span, length: int) -> Span:
        """The first ``length`` characters of ``span``."""
        src = self.sources.get(span.file)
        if src is None:
            return span
        return src.span(span.start, min(span.end, span.start + length))


@lru_cache(maxsize=512)
def _needle_pattern(needle: str, word: bool) -> re.Pattern[str]:
    if word:
        return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(needle)}(?![A-Za-z0-9_])")
    return re.compile(re.escape(needle))


class Reporter:
    """Base of the pass classes: the shared context and a shorthand to report into it."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx

    def err(
        self,
        code: str,
        msg: str,
        span: Span,
        label: str = "",
        *,
        hints: Iterable[str] = (),
        secondary: Iterable[tuple[Span, str]] = (),
    ) -> None:
        """Report one diagnostic with a primary label at ``span``."""
        self.ctx.diags.add(diag(code, msg, span, label, hints=hints, secondary=secondary))


def and_list(names: list[str]) -> str:
    """```a`, `b` and `c``` for messages."""
    quoted = [f"`{x}`" for x in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]
