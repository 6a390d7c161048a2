"""Typing of expressions and predicates (answers, ``if`` conditions), for the `types` pass.

:class:`ExprTyper` infers the type of an expression from what the resolve pass recorded
(``None`` when unknown) and reports: arithmetic on numbers (``E213``), aggregates on suitable
fields (``E214``), function arguments (``E215``), comparable operands (``E216``), a field
compared in an ``if`` whose relation is known to hold several rows (``E220``).
"""

from __future__ import annotations

from ..core.types import BOOL, DATE, FLOAT, INT, NUM, FieldType, ListType, is_date, is_numeric
from ..syntax import nodes as n
from .context import At, CheckContext, Rel, Reporter, TrajInfo, known
from .typerules import LITERALS, comparable, literal_type, type_phrase


class ExprTyper(Reporter):
    """Types expressions and predicates of one trajectory."""

    def __init__(self, ctx: CheckContext, t: TrajInfo) -> None:
        super().__init__(ctx)
        self.t = t

    def infer(self, e: n.Expr, at: At) -> FieldType | None:
        """The type of the expression ``e`` at ``at`` (None when unknown); reports type errors
        on the way."""
        if isinstance(e, LITERALS):
            return literal_type(e)
        if isinstance(e, n.Ref):
            info = self.t.refs.get(at)
            return info.type if info is not None else None
        if isinstance(e, n.NameExpr):
            return None
        if isinstance(e, n.BinOp):
            lt, rt = self.infer(e.left, (at, 0)), self.infer(e.right, (at, 1))
            ok = self.numeric(e.left, lt, e.op) & self.numeric(e.right, rt, e.op)
            if not ok or not known(lt) or not known(rt):
                return None
            if e.op == "/":
                return FLOAT
            return INT if lt == INT and rt == INT else NUM
        if isinstance(e, n.Neg):
            t = self.infer(e.operand, (at, 0))
            return t if self.numeric(e.operand, t, "-") else None
        assert isinstance(e, n.FuncCall)
        return self.func(e, at)

    def numeric(self, e: n.Expr, t: FieldType | None, op: str) -> bool:
        if t is None or not known(t) or is_numeric(t):
            return True
        self.err(
            "E213",
            f"`{op}` needs numbers",
            e.span,
            f"this is {type_phrase(t)}",
            hints=["arithmetic works on int, float and num fields"],
        )
        return False

    def func(self, e: n.FuncCall, at: At) -> FieldType | None:
        args = e.args
        if e.name == "round":
            if len(args) != 2 or not (
                isinstance(args[1], n.NumberLit)
                and isinstance(args[1].value, int)
                and args[1].value >= 0
            ):
                self.err(
                    "E215",
                    "`round` takes an expression and a whole number of digits",
                    e.span,
                    "here",
                    hints=["write `round(x, 2)`"],
                )
                for i, a in enumerate(args):
                    self.infer(a, (at, i))
                return None
            t = self.infer(args[0], (at, 0))
            if not self.numeric(args[0], t, "round"):
                return None
            return INT if args[1].value == 0 or t == INT else FLOAT
        if e.name == "count":
            only = args[0] if len(args) == 1 else None
            info = self.t.refs.get((at, 0)) if only is not None else None
            if (
                only is None
                or not (isinstance(only, n.NameExpr | n.Ref))
                or (info is not None and info.field is not None)
            ):
                self.err(
                    "E215",
                    "`count` takes the name of a relation",
                    e.span,
                    "here",
                    hints=["write `count(filings)` (not `count(filings.f)`); to count the "
                           "distinct values of a field: `count_distinct(filings.f)`"],
                )
                return None
            return INT
        if e.name == "count_distinct":
            if len(args) != 1 or not isinstance(args[0], n.Ref):
                self.err(
                    "E215",
                    "`count_distinct` takes one field reference",
                    e.span,
                    "here",
                    hints=["write `count_distinct(x.field)`; to count rows: `count(x)`"],
                )
                return None
            t = self.infer(args[0], (at, 0))
            if known(t) and isinstance(t, ListType):
                self.err(
                    "E214",
                    "`count_distinct` needs a field holding one value per record",
                    args[0].span,
                    f"this is {type_phrase(t)}",
                    hints=["count the distinct values of a scalar field"],
                )
                return None
            return INT
        if e.name in ("sum", "avg", "min", "max"):
            if len(args) != 1 or not isinstance(args[0], n.Ref):
                self.err(
                    "E215",
                    f"`{e.name}` takes one field reference",
                    e.span,
                    "here",
                    hints=[f"write `{e.name}(x.field)`"],
                )
                return None
            t = self.infer(args[0], (at, 0))
            if not known(t):
                return None
            assert t is not None
            if e.name in ("sum", "avg") and not is_numeric(t):
                self.err(
                    "E214",
                    f"`{e.name}` needs a numeric field",
                    args[0].span,
                    f"this is {type_phrase(t)}",
                )
                return None
            if e.name in ("min", "max") and not (is_numeric(t) or is_date(t)):
                self.err(
                    "E214",
                    f"`{e.name}` needs a number or date field",
                    args[0].span,
                    f"this is {type_phrase(t)}",
                )
                return None
            if e.name == "avg":
                return FLOAT
            return t if e.name != "sum" or t == INT else NUM
        for i, a in enumerate(args):  # unknown function: already reported, still look inside
            self.infer(a, (at, i))
        return None

    def several(self, rel: Rel) -> str | None:
        """Why relation ``rel`` holds several rows whenever it holds more than none, when the
        checker can tell from its binding: every record of a tool that returns a list, one
        call per value of a ``fan``, or one per value of a ``compare``; None otherwise (a
        ``drv`` may keep one row or several ties: only the run can tell)."""
        named = [(at, b) for at, b in self.t.bindings if b.name == rel.id]
        for at, b in named:
            node = b.node
            spans = (node.span, node.call.span) if isinstance(node, n.Compare) else (node.span,)
            if len(named) > 1 and rel.span not in spans:  # a name bound in both branches
                continue
            if isinstance(node, n.Compare):
                return f"`{rel.id}` holds one call's records per compared value"
            if isinstance(node, n.Call):
                if any(isinstance(a.value, n.FanArg) for a in node.args):
                    return f"`{rel.id}` holds the records of one call per `fan` value"
                tool = self.t.tools.get(at)
                if tool is not None and tool.many:
                    return f"`{rel.id}` holds every record `{tool.qualname}` returns (a list)"
        return None

    def single(self, e: n.Expr, at: At) -> None:
        """E220 for each ``x.f`` in ``e`` (compared, or in arithmetic) whose relation the
        checker knows to hold several rows."""
        if isinstance(e, n.Ref):
            info = self.t.refs.get(at)
            why = None if info is None or info.field is None else self.several(info.rel)
            if why is not None and info is not None:
                src, f = info.rel.id, info.field
                self.err(
                    "E220",
                    f"`{src}.{f}` is compared as one value, but {why}",
                    e.span,
                    "several values",
                    secondary=[(info.rel.span, f"`{src}` comes from here")],
                    hints=[f"narrow it to one row first (`one = drv {src} | max {f}`, then "
                           f"`one.{f}`), or compare an aggregate: `max({src}.{f})`, "
                           f"`count({src})`"],
                )
        elif isinstance(e, n.BinOp):
            self.single(e.left, (at, 0))
            self.single(e.right, (at, 1))
        elif isinstance(e, n.Neg):
            self.single(e.operand, (at, 0))

    def pred(self, p: n.Pred, at: At) -> None:
        """Type the predicate ``p`` at ``at``."""
        if isinstance(p, n.PredCmp):
            self.single(p.left, (at, 0))
            self.single(p.right, (at, 1))
            lt, rt = self.infer(p.left, (at, 0)), self.infer(p.right, (at, 1))
            if lt is None or rt is None:
                return
            bad = not comparable(lt, rt) or (lt == BOOL and p.op not in ("==", "!="))
            if bad:
                hints = []
                if DATE in (lt, rt) and any(isinstance(x, n.StringLit) for x in (p.left, p.right)):
                    hints = ["write a date literal without quotes: `2024-12-01`"]
                self.err(
                    "E216",
                    f"cannot compare {type_phrase(lt)} with {type_phrase(rt)} using `{p.op}`",
                    p.span,
                    "these operands do not compare",
                    hints=hints,
                )
        elif isinstance(p, n.PredNot):
            self.pred(p.operand, (at, 0))
        elif isinstance(p, n.PredAnd | n.PredOr):
            for i, q in enumerate(p.operands):
                self.pred(q, (at, i))
