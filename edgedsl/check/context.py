"""The state the `check` passes share: loaded modules, the catalog, and per-trajectory facts.

Each pass reads what earlier passes left in a :class:`CheckContext` and adds its own facts;
all of them report into the one :class:`~edgedsl.core.diagnostics.Diagnostics` bag. Facts about AST
nodes are keyed by the node's position in its trajectory (:data:`At`, the child indices from
the trajectory's body down to the node), which every pass computes the same way as it walks.

Not by the node's value: nodes compare structurally with their spans left out, and two equal
nodes can mean different things (``seq x.f`` in the two branches of an ``if`` that bind ``x``
to different tools). Not by span: a synthesized AST has no spans. Not by ``id(node)``: a
synthesized AST may hold one node object in two places, and an identity key only holds while
the tree is kept alive.

Something an earlier pass could not resolve is simply absent from these maps (or is a
:data:`UNKNOWN` type); later passes skip it instead of reporting a follow-on error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ..core.catalog import Catalog, Param, Tool
from ..core.diagnostics import Diagnostics, diag
from ..core.runsettings import RunSettings
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


At: TypeAlias = "tuple[At, int] | tuple[()]"
"""Where a node sits in its trajectory: the chain of child indices from the trajectory's body
down to it, as nested pairs ``(parent, index)`` from the body ``()`` (one tuple of two made per
step, hashed and compared by value). Statement ``i`` of the body is ``((), i)``; below a node
at ``p``:

- ``if``: the condition at ``(p, IF_COND)``, statement ``j`` of the ``then`` / ``else`` block
  at ``((p, IF_THEN), j)`` / ``((p, IF_ELSE), j)``;
- a binding: its node at ``p`` itself; a call, ``drv`` or ``compare`` (its call) at ``p``;
  ``parallel``: shared argument ``i`` at ``((p, PAR_SHARED), i)``, the call of branch ``k`` at
  ``((p, PAR_BRANCH), k)``;
- a call: argument ``i`` (and its value: the ``seq`` / ``fan`` reference, the shared name) at
  ``(p, i)``;
- ``answer``: the expression at ``(p, ANSWER_EXPR)``, field ``j``'s at
  ``((p, ANSWER_FIELD), j)``;
- an expression or predicate: its operands / arguments in written order at ``(p, i)``.
"""

IF_COND, IF_THEN, IF_ELSE = 0, 1, 2
PAR_SHARED, PAR_BRANCH = 0, 1
ANSWER_EXPR, ANSWER_FIELD = 0, 1


@dataclass
class TrajInfo:
    """Facts about one trajectory, filled by the resolve pass and read by the later ones.

    Facts about nodes are keyed by position (:data:`At`): ``tools`` by call, ``params`` and
    ``shared`` by argument, ``refs`` by reference (``x.f``, a relation counted or tested with
    ``exists``), ``values`` and ``drv_sources`` by binding, ``if_binds`` by ``if``.
    """

    ast: n.Trajectory
    tools: dict[At, Tool] = field(default_factory=dict)
    params: dict[At, Param] = field(default_factory=dict)
    refs: dict[At, RefInfo] = field(default_factory=dict)
    values: dict[At, Value] = field(default_factory=dict)
    drv_sources: dict[At, Rel] = field(default_factory=dict)
    shared: dict[At, tuple[At, n.Arg]] = field(default_factory=dict)
    """The ``parallel`` header argument a shared name denotes, with the header's position."""
    bindings: list[tuple[At, n.Binding]] = field(default_factory=list)
    """Every binding of the trajectory with its position, in written order."""
    uses: list[Use] = field(default_factory=list)
    joins: list[Join] = field(default_factory=list)
    if_binds: dict[At, tuple[str, ...]] = field(default_factory=dict)


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
    settings: RunSettings = field(default_factory=RunSettings)
    phi_given: bool = True

    def extent(self, whole: Span, start: int, end: int) -> Span:
        """The span of ``start``..``end`` in the file of ``whole`` (a sub-part of the node
        spanning ``whole``, from the offsets the parser kept, ``nodes.PART``); ``whole`` itself
        when the AST carries no offsets (made by synthesis, not parsed)."""
        src = self.sources.get(whole.file)
        if src is None or start < 0:
            return whole
        return src.span(start, end)

    def part(self, whole: Span, start: int, name: str) -> Span:
        """The span of ``name`` written at offset ``start`` inside the node spanning ``whole``
        (see :meth:`extent`)."""
        return self.extent(whole, start, start + len(name))

    def named(self, node: Any) -> Span:
        """The span of the name of ``node`` (a node with ``name`` and ``name_at``)."""
        return self.part(node.span, node.name_at, node.name)


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
