"""The AST: typed surface nodes built from the lark tree by ``build.py``.

This module is the one passes import; the catalog half (type expressions and declarations) is
written in :mod:`edgedsl.syntax.decls` and re-exported here.

Every node is a frozen, slotted, keyword-only dataclass. ``span`` is excluded from equality so
that ``parse(format(ast)) == ast`` compares structure only; so are the spans of the sub-parts a
diagnostic points at (their offsets ``name_at``, ``field_at``, … marked :data:`PART`), which
the builder takes from the tokens, so no pass has to find a name inside its node's text again.
Statement-level nodes carry the comments written on the lines before them (``comments``) and
a comment at the end of their own line (``trailing``); blocks carry the comments after their
last statement (``end_comments``). No lark type appears here.

Reducer operators are the op names of the reducer registry (:mod:`edgedsl.reduce.registry`:
``max``, ``ge`` for ``>=`` …); the registry alone knows how each is spelled.
"""

from __future__ import annotations

import calendar
import datetime as _dt
from dataclasses import dataclass
from typing import Literal, TypeAlias

from ..core.source import Span, fast_frozen_init
from .decls import (  # noqa: F401 - re-exported: passes import every node from here
    PART,
    BaseDecl,
    EnumTypeExpr,
    EnvelopeDecl,
    FieldDecl,
    ListTypeExpr,
    NamedTypeExpr,
    PagedOpt,
    ParamDecl,
    PlatformDecl,
    PlatformItem,
    QuotaDecl,
    RecordDecl,
    SecretDecl,
    ToolDecl,
    TypeDecl,
    TypeExpr,
    UseDecl,
    part_field,
    span_field,
)

_span = span_field
_part = part_field


# ---------------------------------------------------------------- literals


@dataclass(frozen=True, slots=True, kw_only=True)
class StringLit:
    """A string literal, ``"삼성전자"``; ``value`` is the unescaped text."""

    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class NumberLit:
    """A number literal; an int when written without a fraction or exponent."""

    value: int | float
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class DateShift:
    """A given day moved by whole days or months (``2024-11-30 - 30 days``): ``day`` the day
    written, ``sign`` ``+`` / ``-``, ``amount`` the count written, ``unit`` ``days`` or
    ``months`` (printed singular for 1)."""

    day: _dt.date
    sign: Literal["+", "-"]
    amount: int
    unit: Literal["days", "months"]

    def apply(self) -> _dt.date | None:
        """The day it names, or None beyond the calendar (years 1 … 9999). Months move the
        month and keep the day of the month, clamped to the month's last day
        (``2024-01-31 + 1 month`` is ``2024-02-29``, ``2024-03-31 - 1 month`` ``2024-02-29``)."""
        n = self.amount if self.sign == "+" else -self.amount
        try:
            if self.unit == "days":
                return self.day + _dt.timedelta(days=n)
            year, month0 = divmod(self.day.year * 12 + self.day.month - 1 + n, 12)
            if not 1 <= year <= 9999:
                return None
            last = calendar.monthrange(year, month0 + 1)[1]
            return _dt.date(year, month0 + 1, min(self.day.day, last))
        except (OverflowError, ValueError):
            return None


@dataclass(frozen=True, slots=True, kw_only=True)
class DateLit:
    """A date literal, ``2024-12-01``, or a given day moved (``2024-11-30 - 30 days``:
    ``shift`` says how it was written, ``value`` is the day it names)."""

    value: _dt.date
    span: Span = _span()
    shift: DateShift | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BoolLit:
    """``true`` or ``false``."""

    value: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ListLit:
    """A list literal, ``["005930", "000660"]``."""

    items: tuple[Literal_, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class DictLit:
    """A JSON-object literal, ``{"a": 1, "b": [2, 3]}``; keys are strings, in written order."""

    entries: tuple[tuple[str, Literal_], ...]
    span: Span = _span()


Literal_: TypeAlias = StringLit | NumberLit | DateLit | BoolLit | ListLit | DictLit

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True, kw_only=True)
class Ref:
    """A field reference ``x.f`` (or ``day.meals.f`` through a parallel group)."""

    parts: tuple[str, ...]
    span: Span = _span()
    field_at: int = _part()
    """Where the last part (the field) starts."""

    @property
    def binding(self) -> str:
        """The binding the reference starts from."""
        return self.parts[0]

    @property
    def field(self) -> str:
        """The referenced field (the last part)."""
        return self.parts[-1]


@dataclass(frozen=True, slots=True, kw_only=True)
class NameExpr:
    """A bare name: a binding (``count(filings)``) or a shared name of a ``parallel``."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class BinOp:
    """``left op right`` with op one of ``+ - * /``."""

    op: Literal["+", "-", "*", "/"]
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class Neg:
    """Unary minus of a non-literal operand (``-5`` is a NumberLit)."""

    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class FuncCall:
    """``round(e, n)``, ``count(x)``, ``sum(x.f)``, ``avg``, ``min``, ``max``."""

    name: str
    args: tuple[Expr, ...]
    span: Span = _span()
    name_at: int = _part()


Expr: TypeAlias = (
    StringLit
    | NumberLit
    | DateLit
    | BoolLit
    | ListLit
    | DictLit
    | Ref
    | NameExpr
    | BinOp
    | Neg
    | FuncCall
)

# ---------------------------------------------------------------- predicates


@dataclass(frozen=True, slots=True, kw_only=True)
class PredCmp:
    """``left op right`` with op one of ``== != < <= > >=``."""

    op: Literal["==", "!=", "<", "<=", ">", ">="]
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class PredExists:
    """``exists(x)``: the relation bound to ``x`` is not empty."""

    name: str
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class PredNot:
    """``not p``."""

    operand: Pred
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class PredAnd:
    """``p and q and …`` (two or more operands)."""

    operands: tuple[Pred, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class PredOr:
    """``p or q or …`` (two or more operands)."""

    operands: tuple[Pred, ...]
    span: Span = _span()


Pred: TypeAlias = PredCmp | PredExists | PredNot | PredAnd | PredOr

# ---------------------------------------------------------------- arguments and nodes


@dataclass(frozen=True, slots=True, kw_only=True)
class SeqArg:
    """``seq x.f``: a junction that must carry exactly one value."""

    ref: Ref
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class FanArg:
    """``fan x.f`` / ``fan(k) x.f``: one call per value, 1 … k values (k ≤ φ)."""

    ref: Ref
    bound: int | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedArg:
    """A bare name inside ``parallel``: the value of one of the group's shared arguments."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ListArg:
    """``[seq a.f, "x", seq b.g]``: a call's list argument holding Seq references among
    literals; each reference hands on exactly one value and the call is given the list of
    them, in written order. Only a call's argument may hold one (a list without references is
    a :class:`ListLit`)."""

    items: tuple[Literal_ | SeqArg, ...]
    span: Span = _span()

    @property
    def refs(self) -> tuple[tuple[int, SeqArg], ...]:
        """The references among the items, with their positions."""
        return tuple((j, it) for j, it in enumerate(self.items) if isinstance(it, SeqArg))


ArgValue: TypeAlias = (
    StringLit | NumberLit | DateLit | BoolLit | ListLit | DictLit | SeqArg | FanArg | SharedArg
    | ListArg
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Arg:
    """``name: value`` in a call or in a ``parallel`` header."""

    name: str
    value: ArgValue
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """``platform.tool(args) [pages all | pages N]``; ``pages`` is None, ``"all"`` or N."""

    platform: str
    tool: str
    args: tuple[Arg, ...] = ()
    pages: int | Literal["all"] | None = None
    span: Span = _span()
    platform_at: int = _part()
    tool_at: int = _part()
    pages_at: int = _part()
    """Where the word ``pages`` starts (-1 without a ``pages`` clause)."""

    @property
    def qualname(self) -> str:
        """``platform.tool``."""
        return f"{self.platform}.{self.tool}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Reducer:
    """One step of a ``drv`` chain: ``max f``, ``where f >= 10`` …; ``op`` is a reducer's op
    name in the registry (``max``, ``ge`` …), ``pivot`` the literal of a where-form."""

    op: str
    field: str
    pivot: Literal_ | None = None
    span: Span = _span()
    field_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class Drv:
    """``drv x | r1 | r2``: narrow the relation ``x`` (or ``group.branch``) deterministically."""

    source: tuple[str, ...]
    steps: tuple[Reducer, ...]
    span: Span = _span()
    source_at: int = _part()
    """Where ``x`` or ``group.branch`` after ``drv`` starts (and ends, ``source_end``)."""
    source_end: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class Branch:
    """``name = call`` inside a ``parallel`` group."""

    name: str
    call: Call
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class Parallel:
    """``parallel (shared args) { branches }``: independent calls with shared arguments."""

    shared: tuple[Arg, ...]
    branches: tuple[Branch, ...]
    end_comments: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class Compare:
    """``compare call over p in [v1, v2, …]``: one tool, 2 … φ values of one parameter."""

    call: Call
    param: str
    values: ListLit
    span: Span = _span()
    param_at: int = _part()


NodeExpr: TypeAlias = Call | Drv | Parallel | Compare

# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True, kw_only=True)
class Binding:
    """``name = node``."""

    name: str
    node: NodeExpr
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class IfStmt:
    """``if pred { … } else { … }``; ``orelse`` is a block, possibly holding one nested IfStmt."""

    cond: Pred
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] | None = None
    then_end_comments: tuple[str, ...] = ()
    else_end_comments: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    then_at: int = _part()
    """Where the ``then`` block's ``{`` starts (its ``}`` ends at ``then_end``): the comments
    after its last statement are its ``then_end_comments``."""
    then_end: int = _part()
    else_at: int = _part()
    """Where the ``else`` block's ``{`` starts, up to ``else_end`` (-1 for ``else if`` or no
    ``else``)."""
    else_end: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerField:
    """``name: expr`` in an ``answer { … }`` block."""

    name: str
    expr: Expr
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerStmt:
    """``answer expr`` or ``answer { name: expr, … }`` (``fields`` set, ``expr`` None)."""

    expr: Expr | None = None
    fields: tuple[AnswerField, ...] | None = None
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class SayStmt:
    """``say "…"``: a jinja2 template over the answer."""

    template: str
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


Stmt: TypeAlias = Binding | IfStmt | AnswerStmt | SayStmt


@dataclass(frozen=True, slots=True, kw_only=True)
class Trajectory:
    """``trajectory NAME "query" { … }``."""

    name: str
    query: str
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    end_comments: tuple[str, ...] = ()
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSetting:
    """One setting of a ``run`` block, ``seed: 1`` (checked by :mod:`edgedsl.check.settings`)."""

    name: str
    value: Literal_
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class RunDecl:
    """``run { seed: 1 }``: how the file's answers were produced — the world's seed and the
    run's bounds (φ, ``max_pages``); ``edgedsl run`` uses them when no option overrides them."""

    settings: tuple[RunSetting, ...]
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    end_comments: tuple[str, ...] = ()
    span: Span = _span()


Item: TypeAlias = UseDecl | TypeDecl | RecordDecl | PlatformDecl | Trajectory | RunDecl


@dataclass(frozen=True, slots=True, kw_only=True)
class Module:
    """One ``.edge`` file: imports, catalog declarations and trajectories, in order."""

    items: tuple[Item, ...]
    end_comments: tuple[str, ...] = ()
    span: Span = _span()

    @property
    def trajectories(self) -> tuple[Trajectory, ...]:
        """The trajectory blocks of the file."""
        return tuple(i for i in self.items if isinstance(i, Trajectory))

    @property
    def run_decls(self) -> tuple[RunDecl, ...]:
        """The ``run`` blocks of the file (the checker allows one)."""
        return tuple(i for i in self.items if isinstance(i, RunDecl))

    @property
    def uses(self) -> tuple[str, ...]:
        """Every module named by a ``use`` declaration, in order."""
        return tuple(n for i in self.items if isinstance(i, UseDecl) for n in i.names)


for _cls in list(globals().values()):  # faster constructors, same signatures (see source.py)
    if isinstance(_cls, type) and _cls.__module__ == __name__:
        fast_frozen_init(_cls)
del _cls
