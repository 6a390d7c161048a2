"""Pass `lower`: the resolved, type-checked AST → :class:`edgedsl.check.ir.ProgramIR`.

Runs only when no earlier pass reported an error (the IR of a wrong program is never built), so
it may assume every name is resolved. Decisions fixed here:

- relation ids: the binding name; ``group.branch`` for a ``parallel`` branch. ``compare`` and a
  call with a ``fan`` argument add a column ``__arm`` whose type is the type of the fanned /
  compared *parameter* (the value the row came from, as sent);
- a ``compare``'s :class:`CallIR` has the compare's id and does not include the compared
  parameter among its arguments (the planner adds one argument per value of ``values``);
- a ``parallel`` header argument is an :class:`ArgIR` named after the shared name, typed by its
  literal or junction field; a branch argument using it has ``shared`` set to that name;
- literal values are plain Python (``datetime.date`` for dates, ``list``/``dict``); a date
  literal passed to a ``str`` parameter becomes its ISO text ``YYYY-MM-DD``;
- an ``if`` gets the id ``if#N`` (N counts from 1 in source order; never a legal binding name);
  ``binds`` are the names bound in both branches, visible after it;
- ``fan`` without a bound has bound φ.
"""

from __future__ import annotations

from typing import Literal, cast

from ..core.catalog import Param
from ..core.source import maker
from ..core.types import JSON, STR, FieldType
from ..reduce.registry import ReduceStep
from ..syntax import nodes as n
from . import ir
from .context import (
    ANSWER_EXPR,
    ANSWER_FIELD,
    IF_COND,
    IF_ELSE,
    IF_THEN,
    PAR_BRANCH,
    PAR_SHARED,
    At,
    CheckContext,
    Group,
    Rel,
    TrajInfo,
)
from .typerules import LITERALS, list_item_type, literal_type, pivot_value

AggFn = Literal["sum", "avg", "min", "max", "count_distinct"]

# IR constructors without ``type.__call__`` (:func:`~edgedsl.core.source.maker`)
_AggE = maker(ir.AggE)
_AndP = maker(ir.AndP)
_AnswerIR = maker(ir.AnswerIR)
_ArgIR = maker(ir.ArgIR)
_BinE = maker(ir.BinE)
_CallIR = maker(ir.CallIR)
_CmpP = maker(ir.CmpP)
_CompareIR = maker(ir.CompareIR)
_CountE = maker(ir.CountE)
_DrvIR = maker(ir.DrvIR)
_ExistsP = maker(ir.ExistsP)
_FieldE = maker(ir.FieldE)
_IfIR = maker(ir.IfIR)
_Junction = maker(ir.Junction)
_LitE = maker(ir.LitE)
_NegE = maker(ir.NegE)
_NotP = maker(ir.NotP)
_OrP = maker(ir.OrP)
_ParallelIR = maker(ir.ParallelIR)
_ProgramIR = maker(ir.ProgramIR)
_RoundE = maker(ir.RoundE)
_TrajectoryIR = maker(ir.TrajectoryIR)
_ReduceStep = maker(ReduceStep)


class _Lower:
    def __init__(self, ctx: CheckContext, t: TrajInfo) -> None:
        self.ctx = ctx
        self.t = t
        self.relations: dict[str, dict[str, FieldType]] = {}
        self.ifs = 0

    def literal(self, lit: n.Literal_, ty: FieldType | None) -> object:
        if isinstance(lit, n.DateLit) and ty == STR:
            return lit.value.isoformat()
        return pivot_value(lit)

    def rel(self, r: Rel) -> None:
        if r.id not in self.relations:
            self.relations[r.id] = dict(r.fields)

    # ------------------------------------------------------------ steps
    def block(self, stmts: tuple[n.Stmt, ...], at: At) -> tuple[ir.StepIR, ...]:
        steps: list[ir.StepIR] = []
        for i, s in enumerate(stmts):
            here = (at, i)
            if isinstance(s, n.Binding):
                steps.append(self.binding(s, here))
            elif isinstance(s, n.IfStmt):
                self.ifs += 1
                sid = f"if#{self.ifs}"
                steps.append(
                    _IfIR(
                        id=sid,
                        cond=self.pred(s.cond, (here, IF_COND)),
                        then=self.block(s.then, (here, IF_THEN)),
                        orelse=self.block(s.orelse or (), (here, IF_ELSE)),
                        binds=self.t.if_binds.get(here, ()),
                        span=s.span,
                    )
                )
        return tuple(steps)

    def binding(self, b: n.Binding, at: At) -> ir.StepIR:
        value = self.t.values[at]
        node = b.node
        if isinstance(node, n.Call):
            assert isinstance(value, Rel)
            self.rel(value)
            return self.call(b.name, node, at, {})
        if isinstance(node, n.Drv):
            assert isinstance(value, Rel)
            src = self.t.drv_sources[at]
            self.rel(value)
            return _DrvIR(
                id=b.name,
                source=src.id,
                steps=tuple(
                    _ReduceStep(
                        s.op, s.field, None if s.pivot is None else self.literal(s.pivot, None)
                    )
                    for s in node.steps
                ),
                field_types=dict(src.fields),
                span=node.span,
            )
        if isinstance(node, n.Parallel):
            assert isinstance(value, Group)
            shared: dict[str, ir.ArgIR] = {}
            for i, arg in enumerate(node.shared):
                shared[arg.name] = self.shared_arg(arg, ((at, PAR_SHARED), i))
            branches = []
            for k, br in enumerate(node.branches):
                rel = value.branches[br.name]
                assert rel is not None
                self.rel(rel)
                branches.append(self.call(rel.id, br.call, ((at, PAR_BRANCH), k), shared))
            return _ParallelIR(
                id=b.name, shared=tuple(shared.values()), branches=tuple(branches), span=node.span
            )
        assert isinstance(value, Rel)
        self.rel(value)
        call = self.call(b.name, node.call, at, {}, skip=node.param)
        tool = self.t.tools[at]
        param = tool.param(node.param)
        return _CompareIR(
            id=b.name,
            call=call,
            param=node.param,
            values=tuple(self.literal(v, param.type if param else None) for v in node.values.items),
            span=node.span,
        )

    def shared_arg(self, arg: n.Arg, at: At) -> ir.ArgIR:
        v = arg.value
        if isinstance(v, n.SeqArg):
            info = self.t.refs[at]
            assert info.type is not None and info.field is not None
            j = _Junction(
                kind="seq",
                source=info.rel.id,
                field=info.field,
                field_type=info.type,
                bound=1,
                span=v.span,
            )
            return _ArgIR(name=arg.name, type=info.type, junction=j, span=arg.span)
        assert isinstance(v, LITERALS)
        return _ArgIR(
            name=arg.name,
            type=literal_type(v),
            literal=self.literal(v, None),
            is_literal=True,
            span=arg.span,
        )

    def call(
        self,
        cid: str,
        call: n.Call,
        at: At,
        shared: dict[str, ir.ArgIR],
        skip: str | None = None,
    ) -> ir.CallIR:
        tool = self.t.tools[at]
        args = []
        for i, a in enumerate(call.args):
            if a.name == skip:
                continue
            here = (at, i)
            args.append(self.arg(a, here, self.t.params[here], shared))
        return _CallIR(id=cid, tool=tool, args=tuple(args), pages=call.pages, span=call.span)

    def arg(self, a: n.Arg, at: At, param: Param, shared: dict[str, ir.ArgIR]) -> ir.ArgIR:
        v = a.value
        if isinstance(v, n.ListArg):
            item = Param(a.name, list_item_type(param.type) or JSON)  # checked: a list type
            items = tuple(self.arg(n.Arg(name=a.name, value=x, span=x.span), (at, j), item, {})
                          for j, x in enumerate(v.items))
            return _ArgIR(name=a.name, type=param.type, items=items, span=a.span)
        if isinstance(v, n.SeqArg | n.FanArg):
            info = self.t.refs[at]
            assert info.type is not None and info.field is not None
            fan = isinstance(v, n.FanArg)
            bound = (v.bound or self.ctx.phi) if isinstance(v, n.FanArg) else 1
            j = _Junction(
                kind="fan" if fan else "seq",
                source=info.rel.id,
                field=info.field,
                field_type=info.type,
                bound=bound,
                span=v.span,
            )
            return _ArgIR(name=a.name, type=param.type, junction=j, span=a.span)
        if isinstance(v, n.SharedArg):
            return _ArgIR(name=a.name, type=param.type, shared=v.name, span=a.span)
        return _ArgIR(
            name=a.name,
            type=param.type,
            literal=self.literal(v, param.type),
            is_literal=True,
            span=a.span,
        )

    # ------------------------------------------------------------ expressions
    def expr(self, e: n.Expr, at: At) -> ir.ExprIR:
        if isinstance(e, LITERALS):
            return _LitE(value=self.literal(e, None), span=e.span)
        if isinstance(e, n.Ref):
            info = self.t.refs[at]
            assert info.field is not None and info.type is not None
            return _FieldE(source=info.rel.id, field=info.field, type=info.type, span=e.span)
        if isinstance(e, n.BinOp):
            return _BinE(
                op=e.op,
                left=self.expr(e.left, (at, 0)),
                right=self.expr(e.right, (at, 1)),
                span=e.span,
            )
        if isinstance(e, n.Neg):
            return _NegE(operand=self.expr(e.operand, (at, 0)), span=e.span)
        assert isinstance(e, n.FuncCall), e
        if e.name == "round":
            digits = e.args[1]
            assert isinstance(digits, n.NumberLit) and isinstance(digits.value, int)
            return _RoundE(
                operand=self.expr(e.args[0], (at, 0)), digits=digits.value, span=e.span
            )
        if e.name == "count":
            return _CountE(source=self.t.refs[(at, 0)].rel.id, span=e.span)
        info = self.t.refs[(at, 0)]
        assert info.field is not None and info.type is not None
        return _AggE(
            fn=cast(AggFn, e.name),
            source=info.rel.id,
            field=info.field,
            type=info.type,
            span=e.span,
        )

    def pred(self, p: n.Pred, at: At) -> ir.PredIR:
        if isinstance(p, n.PredCmp):
            return _CmpP(
                op=p.op,
                left=self.expr(p.left, (at, 0)),
                right=self.expr(p.right, (at, 1)),
                span=p.span,
            )
        if isinstance(p, n.PredExists):
            return _ExistsP(source=self.t.refs[at].rel.id, span=p.span)
        if isinstance(p, n.PredNot):
            return _NotP(operand=self.pred(p.operand, (at, 0)), span=p.span)
        ops = tuple(self.pred(q, (at, i)) for i, q in enumerate(p.operands))
        if isinstance(p, n.PredAnd):
            return _AndP(operands=ops, span=p.span)
        return _OrP(operands=ops, span=p.span)

    def trajectory(self) -> ir.TrajectoryIR:
        traj = self.t.ast
        steps = self.block(traj.body, ())
        answer = None
        say = None
        for i, s in enumerate(traj.body):
            if isinstance(s, n.AnswerStmt) and answer is None:
                at: At = ((), i)
                answer = _AnswerIR(
                    expr=None if s.expr is None else self.expr(s.expr, (at, ANSWER_EXPR)),
                    fields=None
                    if s.fields is None
                    else tuple(
                        (f.name, self.expr(f.expr, ((at, ANSWER_FIELD), j)))
                        for j, f in enumerate(s.fields)
                    ),
                    span=s.span,
                )
            elif isinstance(s, n.SayStmt) and say is None:
                say = s.template
        return _TrajectoryIR(
            name=traj.name,
            query=traj.query,
            steps=steps,
            relations=self.relations,
            answer=answer,
            say=say,
            source_name=self.ctx.source.name,
            span=traj.span,
        )


def lower_program(ctx: CheckContext) -> None:
    """Pass: build ``ctx.program`` (skipped when any error was reported)."""
    if ctx.diags.has_errors():
        return
    trajs = tuple(_Lower(ctx, t).trajectory() for t in ctx.trajs)
    ctx.program = _ProgramIR(catalog=ctx.catalog, trajectories=trajs, source_name=ctx.source.name,
                             settings=ctx.settings)
