"""The IR: a checked trajectory, every name resolved and every type known.

Produced by the `check` stage (``edgedsl.check``) from the AST and the catalog, consumed by the
`plan` stage (``edgedsl.plan.model``). Frozen, slotted, keyword-only dataclasses; every node keeps
its origin span (excluded from equality).

Relations and their ids
    Every step that produces a relation has an ``id``: the binding name (``filings``), or
    ``group.branch`` for a branch of a ``parallel`` group (``day.meals``). A junction or an answer
    refers to a relation by that id. Relations produced by ``fan`` calls and ``compare`` carry an
    extra ``__arm`` column: the value the row came from.

Literal values
    Literal values are plain Python: ``str``, ``int``, ``float``, ``bool``, ``datetime.date``,
    ``list`` and ``dict`` of those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ..core.catalog import Catalog, Tool
from ..core.runsettings import RunSettings
from ..core.source import NO_SPAN, Span, fast_frozen_init
from ..core.types import FieldType
from ..reduce.registry import ReduceStep


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Junction:
    """A hand-off from an upstream field to a parameter: ``seq`` (bound 1) or ``fan`` (1 … k)."""

    kind: Literal["seq", "fan"]
    source: str
    field: str
    field_type: FieldType
    bound: int
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgIR:
    """One argument of a call: exactly one of ``literal``, ``junction``, ``shared`` or
    ``items`` is set (``literal`` may legitimately be None only when ``is_literal`` is False).
    ``items`` is a list argument holding references: each item an ``ArgIR`` that is a literal
    or a Seq junction, named after the argument."""

    name: str
    type: FieldType
    literal: object = None
    is_literal: bool = False
    junction: Junction | None = None
    shared: str | None = None
    items: tuple[ArgIR, ...] | None = None
    span: Span = _span()

    @property
    def junctions(self) -> tuple[Junction, ...]:
        """Every junction the argument reads: its own, or its items'."""
        if self.junction is not None:
            return (self.junction,)
        return tuple(i.junction for i in self.items or () if i.junction is not None)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallIR:
    """A call of one tool; at most one argument is a fan junction."""

    id: str
    tool: Tool
    args: tuple[ArgIR, ...]
    pages: int | Literal["all"] | None = None
    span: Span = _span()

    @property
    def fan_arg(self) -> ArgIR | None:
        """The fan argument, if any."""
        for a in self.args:
            if a.junction is not None and a.junction.kind == "fan":
                return a
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class DrvIR:
    """A ``drv`` node: reducer steps over the relation ``source`` (field types known)."""

    id: str
    source: str
    steps: tuple[ReduceStep, ...]
    field_types: dict[str, FieldType] = field(default_factory=dict)
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ParallelIR:
    """A ``parallel`` group: shared arguments (Seq/literal) and branches ``id.branch``."""

    id: str
    shared: tuple[ArgIR, ...]
    branches: tuple[CallIR, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class CompareIR:
    """``compare``: one call per value of ``param`` (2 … φ values); rows tagged in ``__arm``."""

    id: str
    call: CallIR
    param: str
    values: tuple[object, ...]
    span: Span = _span()


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True, kw_only=True)
class LitE:
    """A literal value in an expression."""

    value: object
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldE:
    """``x.f``: the distinct non-null values of field ``f`` of relation ``source``."""

    source: str
    field: str
    type: FieldType
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class CountE:
    """``count(x)``: the number of records of relation ``source``."""

    source: str
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class AggE:
    """``sum|avg|min|max(x.f)`` over the records of ``source``."""

    fn: Literal["sum", "avg", "min", "max", "count_distinct"]
    source: str
    field: str
    type: FieldType
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class BinE:
    """Arithmetic ``left op right``."""

    op: Literal["+", "-", "*", "/"]
    left: ExprIR
    right: ExprIR
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class NegE:
    """Unary minus."""

    operand: ExprIR
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundE:
    """``round(e, n)``."""

    operand: ExprIR
    digits: int
    span: Span = _span()


ExprIR: TypeAlias = LitE | FieldE | CountE | AggE | BinE | NegE | RoundE


@dataclass(frozen=True, slots=True, kw_only=True)
class CmpP:
    """``left op right`` in a predicate."""

    op: Literal["==", "!=", "<", "<=", ">", ">="]
    left: ExprIR
    right: ExprIR
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExistsP:
    """``exists(x)``."""

    source: str
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class NotP:
    """``not p``."""

    operand: PredIR
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class AndP:
    """``p and q …``."""

    operands: tuple[PredIR, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class OrP:
    """``p or q …``."""

    operands: tuple[PredIR, ...]
    span: Span = _span()


PredIR: TypeAlias = CmpP | ExistsP | NotP | AndP | OrP


@dataclass(frozen=True, slots=True, kw_only=True)
class IfIR:
    """A conditional: ``then`` or ``orelse`` runs; ``binds`` are the names visible after it."""

    id: str
    cond: PredIR
    then: tuple[StepIR, ...]
    orelse: tuple[StepIR, ...] = ()
    binds: tuple[str, ...] = ()
    span: Span = _span()


StepIR: TypeAlias = CallIR | DrvIR | ParallelIR | CompareIR | IfIR


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerIR:
    """``answer e`` (``expr``) or ``answer { name: e, … }`` (``fields``)."""

    expr: ExprIR | None = None
    fields: tuple[tuple[str, ExprIR], ...] | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectoryIR:
    """A checked trajectory: steps in source order, relation schemas, answer and template."""

    name: str
    query: str
    steps: tuple[StepIR, ...]
    relations: dict[str, dict[str, FieldType]] = field(default_factory=dict)
    answer: AnswerIR | None = None
    say: str | None = None
    source_name: str = ""
    span: Span = _span()


@dataclass
class ProgramIR:
    """The checked form of one module: its catalog and its trajectories."""

    catalog: Catalog
    trajectories: tuple[TrajectoryIR, ...]
    source_name: str = ""
    settings: RunSettings = RunSettings()


for _cls in list(globals().values()):  # faster constructors, same signatures (see source.py)
    if isinstance(_cls, type) and _cls.__module__ == __name__:
        fast_frozen_init(_cls)
del _cls
