"""Pass `resolve`: every name in a trajectory → the catalog element or binding it denotes.

Scoping is sequential: a binding is visible to the statements after it. Inside an ``if`` both
branches see what was bound before; after the ``if`` a name is visible when both branches bind
it (the typing pass then checks the two bindings have the same record type); a name bound in
one branch only stays visible inside that branch (``E217`` when used after). A name that is
bound only *later* in the text is recorded as a forward use, reported by the graph pass as a
cycle (``E301``) or a use before definition (``E302``). Rebinding a name is ``E115``.

Results go into :class:`~edgedsl.check.context.TrajInfo`: the tool of each call, the parameter
of each argument, what each reference denotes, the relation each binding produces (with field
types: a tool's record, ``__arm`` for ``fan`` and ``compare``), and every use of every name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import nodes as n
from ..catalog import Tool
from ..diagnostics import diag, suggestion_hint
from ..source import Span
from .context import UNKNOWN, CheckContext, Group, Join, RefInfo, Rel, TrajInfo, Use, Value

FUNCS = ("round", "count", "sum", "avg", "min", "max")


@dataclass
class _Scope:
    names: dict[str, Value] = field(default_factory=dict)
    defs: dict[str, n.Binding] = field(default_factory=dict)
    one_branch: dict[str, n.Binding] = field(default_factory=dict)
    joins: dict[str, Join] = field(default_factory=dict)
    seen: dict[str, n.Binding] = field(default_factory=dict)

    def copy(self) -> _Scope:
        return _Scope(
            dict(self.names),
            dict(self.defs),
            dict(self.one_branch),
            dict(self.joins),
            dict(self.seen),
        )


def _all_bindings(stmts: tuple[n.Stmt, ...]) -> list[n.Binding]:
    out: list[n.Binding] = []
    for s in stmts:
        if isinstance(s, n.Binding):
            out.append(s)
        elif isinstance(s, n.IfStmt):
            out.extend(_all_bindings(s.then))
            out.extend(_all_bindings(s.orelse or ()))
    return out


class _Resolver:
    def __init__(self, ctx: CheckContext, traj: n.Trajectory) -> None:
        self.ctx = ctx
        self.t = TrajInfo(ast=traj)
        self.t.bindings = _all_bindings(traj.body)
        self.all_names = {b.name for b in self.t.bindings}
        self.done: set[str] = set()
        self.user: str | None = None

    def err(self, code: str, msg: str, span: Span, label: str = "", **kw: object) -> None:
        self.ctx.diags.add(diag(code, msg, span, label, **kw))  # type: ignore[arg-type]

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[n.Stmt, ...], scope: _Scope) -> None:
        for s in stmts:
            if isinstance(s, n.Binding):
                self.binding(s, scope)
            elif isinstance(s, n.IfStmt):
                self.if_stmt(s, scope)
            elif isinstance(s, n.AnswerStmt):
                self.user = None
                if s.expr is not None:
                    self.expr(s.expr, scope)
                first: dict[str, n.AnswerField] = {}
                for f in s.fields or ():
                    if f.name in first:
                        self.err(
                            "E118",
                            f"answer field `{f.name}` is given twice",
                            self.ctx.head_span(f.span, len(f.name)),
                            "given again",
                            secondary=[
                                (
                                    self.ctx.head_span(first[f.name].span, len(f.name)),
                                    "first given here",
                                )
                            ],
                        )
                    first.setdefault(f.name, f)
                    self.expr(f.expr, scope)

    def binding(self, b: n.Binding, scope: _Scope) -> None:
        name_span = self.ctx.head_span(b.span, len(b.name))
        if b.name in scope.seen:
            prev = scope.seen[b.name]
            self.err(
                "E115",
                f"`{b.name}` is bound twice",
                name_span,
                "bound again here",
                secondary=[(self.ctx.head_span(prev.span, len(b.name)), "first bound here")],
                hints=["a name is bound once; choose a new name for the second relation"],
            )
        self.user = b.name
        value = self.node(b.name, b.node, scope)
        self.t.values[id(b)] = value
        scope.names[b.name] = value
        scope.defs[b.name] = b
        scope.seen[b.name] = b
        scope.one_branch.pop(b.name, None)
        scope.joins.pop(b.name, None)
        self.done.add(b.name)

    def if_stmt(self, s: n.IfStmt, scope: _Scope) -> None:
        self.user = None
        self.pred(s.cond, scope)
        then_scope = scope.copy()
        self.block(s.then, then_scope)
        else_scope = scope.copy()
        self.block(s.orelse or (), else_scope)

        def new(sc: _Scope) -> dict[str, n.Binding]:
            return {k: b for k, b in sc.defs.items() if scope.defs.get(k) is not b}

        new_then, new_else = new(then_scope), new(else_scope)
        both = [k for k in new_then if k in new_else]
        for sc in (then_scope, else_scope):
            scope.one_branch.update(sc.one_branch)
            scope.seen.update(sc.seen)
        for k in both:
            join = Join(k, new_then[k], new_else[k], then_scope.names[k], else_scope.names[k])
            self.t.joins.append(join)
            scope.names[k] = then_scope.names[k]
            scope.defs[k] = new_then[k]
            scope.joins[k] = join
            scope.one_branch.pop(k, None)
        for k, b in [*new_then.items(), *new_else.items()]:
            if k not in both:
                scope.one_branch[k] = b
                scope.names.pop(k, None)
                scope.defs.pop(k, None)
        self.t.if_binds[id(s)] = tuple(both)

    # ------------------------------------------------------------ names
    def lookup(self, name: str, span: Span, scope: _Scope) -> tuple[bool, Value]:
        if name in scope.names:
            self.t.uses.append(Use(name, span, self.user))
            if name in scope.joins:
                scope.joins[name].uses.append(span)
            return True, scope.names[name]
        if name in scope.one_branch:
            b = scope.one_branch[name]
            self.t.uses.append(Use(name, span, self.user))
            self.err(
                "E217",
                f"`{name}` is bound in only one branch of an `if`",
                span,
                "used here, after the `if`",
                secondary=[(self.ctx.head_span(b.span, len(name)), "bound only in this branch")],
                hints=[f"bind `{name}` in both branches, or use it inside its branch"],
            )
            return False, None
        if (name in self.all_names and name not in self.done) or name == self.user:
            self.t.uses.append(Use(name, span, self.user, forward=True))
            return False, None
        if name in self.all_names:  # bound earlier, but in another branch
            self.t.uses.append(Use(name, span, self.user))
            self.err(
                "E217",
                f"`{name}` is not bound on this path",
                span,
                "not visible here",
                hints=[f"`{name}` is bound in another branch of an `if`"],
            )
            return False, None
        self.err(
            "E113",
            f"unknown name `{name}`",
            span,
            "not bound in this trajectory",
            hints=suggestion_hint(name, scope.names),
        )
        return False, None

    def relation(self, parts: tuple[str, ...], span: Span, scope: _Scope) -> Rel | None:
        """``x`` or ``group.branch`` as a relation."""
        found, value = self.lookup(parts[0], span, scope)
        if not found or value is None:
            return None
        if isinstance(value, Group):
            if len(parts) != 2:
                self.err(
                    "E119",
                    f"`{parts[0]}` is a parallel group, not a relation",
                    span,
                    "a group",
                    hints=[
                        f"name one of its branches: "
                        f"{', '.join(f'`{parts[0]}.{b}`' for b in value.branches)}"
                    ],
                )
                return None
            return self.branch(value, parts[1], span)
        if len(parts) != 1:
            self.err(
                "E119",
                f"`{'.'.join(parts)}` is a field, not a relation",
                span,
                "a field",
                hints=[f"name the relation itself: `{parts[0]}`"],
            )
            return None
        return value

    def branch(self, group: Group, name: str, span: Span) -> Rel | None:
        if name not in group.branches:
            self.err(
                "E114",
                f"parallel group `{group.name}` has no branch `{name}`",
                span,
                "no such branch",
                secondary=[(group.span, f"`{group.name}` is defined here")],
                hints=suggestion_hint(name, group.branches),
            )
            return None
        return group.branches[name]

    def ref(self, ref: n.Ref, scope: _Scope) -> RefInfo | None:
        """``x.f`` or ``group.branch.f`` as a field of a relation."""
        found, value = self.lookup(ref.parts[0], ref.span, scope)
        if not found or value is None:
            return None
        rest = ref.parts[1:]
        if isinstance(value, Group):
            if len(rest) != 2:
                self.err(
                    "E119",
                    f"`{value.name}` is a parallel group; name a branch and a field",
                    ref.span,
                    "needs `group.branch.field`",
                    hints=[
                        f"for example `{value.name}.{next(iter(value.branches), 'b')}."
                        f"{ref.parts[-1]}`"
                    ],
                )
                return None
            rel = self.branch(value, rest[0], ref.span)
            if rel is None:
                return None
            rest = rest[1:]
        else:
            rel = value
            if len(rest) != 1:
                self.err(
                    "E119",
                    f"`{ref.parts[0]}` is a relation; `{'.'.join(ref.parts)}` goes too deep",
                    ref.span,
                    "only `x.field`",
                    hints=["nested names are only for parallel groups: `group.branch.field`"],
                )
                return None
        fname = rest[0]
        if fname not in rel.fields:
            label_span = self.ctx.sub_span(ref.span, fname, last=True)
            self.err(
                "E114",
                f"`{rel.id}` has no field `{fname}`",
                label_span,
                "no such field",
                secondary=[(rel.span, f"`{rel.id}` comes from here")],
                hints=suggestion_hint(fname, rel.fields)
                or [f"fields of `{rel.id}`: {', '.join(rel.fields)}"],
            )
            return None
        info = RefInfo(rel, fname, rel.fields[fname])
        self.t.refs[id(ref)] = info
        return info

    # ------------------------------------------------------------ nodes
    def node(self, name: str, node: n.NodeExpr, scope: _Scope) -> Value:
        if isinstance(node, n.Call):
            return self.call(name, node, scope, None)
        if isinstance(node, n.Drv):
            src_span = self.ctx.sub_span(node.span, node.source[0], skip=3)
            if len(node.source) > 1:
                src_span = self.ctx.sub_span(node.span, ".".join(node.source), skip=3, word=False)
            src = self.relation(node.source, src_span, scope)
            if src is None:
                return None
            self.t.drv_sources[id(node)] = src
            for step in node.steps:
                if step.field not in src.fields:
                    self.err(
                        "E114",
                        f"`{src.id}` has no field `{step.field}`",
                        self.ctx.sub_span(step.span, step.field, last=step.pivot is None),
                        "no such field",
                        secondary=[(src.span, f"`{src.id}` comes from here")],
                        hints=suggestion_hint(step.field, src.fields),
                    )
            return Rel(name, src.record, dict(src.fields), node.span)
        if isinstance(node, n.Parallel):
            return self.parallel(name, node, scope)
        rel = self.call(name, node.call, scope, None)
        tool = self.t.tools.get(id(node.call))
        if rel is not None and tool is not None:
            p = tool.param(node.param)
            rel.fields["__arm"] = p.type if p is not None else UNKNOWN  # type: ignore[assignment]
        return rel

    def parallel(self, name: str, par: n.Parallel, scope: _Scope) -> Group:
        shared: dict[str, n.Arg] = {}
        for arg in par.shared:
            if arg.name in shared:
                self.err(
                    "E118",
                    f"shared name `{arg.name}` is given twice",
                    self.ctx.head_span(arg.span, len(arg.name)),
                    "given again",
                    secondary=[
                        (
                            self.ctx.head_span(shared[arg.name].span, len(arg.name)),
                            "first given here",
                        )
                    ],
                )
                continue
            shared[arg.name] = arg
            self.arg_value(arg.value, scope, None)
        group = Group(name, {}, par.span)
        for br in par.branches:
            if br.name in group.branches:
                self.err(
                    "E115",
                    f"branch `{br.name}` is bound twice in `{name}`",
                    self.ctx.head_span(br.span, len(br.name)),
                    "bound again here",
                )
                continue
            group.branches[br.name] = self.call(f"{name}.{br.name}", br.call, scope, shared)
        return group

    def arg_value(self, value: n.ArgValue, scope: _Scope, shared: dict[str, n.Arg] | None) -> None:
        if isinstance(value, n.SeqArg | n.FanArg):
            self.ref(value.ref, scope)
        elif isinstance(value, n.SharedArg):
            if shared is None:
                self.err(
                    "E117",
                    f"`{value.name}` is not a shared name",
                    value.span,
                    "a bare name outside `parallel`",
                    hints=[f"write `seq {value.name}.field` for a field of `{value.name}`"]
                    if value.name in scope.names
                    else ["a bare name is only allowed inside `parallel`, for a shared name"],
                )
            elif value.name not in shared:
                self.err(
                    "E117",
                    f"`{value.name}` is not a shared name of this `parallel`",
                    value.span,
                    "not in the group's header",
                    hints=suggestion_hint(value.name, shared)
                    or [f"shared names: {', '.join(shared) or '(none)'}"],
                )
            else:
                self.t.shared[id(value)] = shared[value.name]

    def call(
        self, rid: str, call: n.Call, scope: _Scope, shared: dict[str, n.Arg] | None
    ) -> Rel | None:
        for arg in call.args:
            self.arg_value(arg.value, scope, shared)
        tool = self.tool(call)
        if tool is None:
            return None
        self.t.tools[id(call)] = tool
        given: dict[str, n.Arg] = {}
        fields = dict(tool.record.field_types())
        for arg in call.args:
            aspan = self.ctx.head_span(arg.span, len(arg.name))
            if arg.name in given:
                self.err(
                    "E118",
                    f"argument `{arg.name}` is given twice",
                    aspan,
                    "given again",
                    secondary=[
                        (
                            self.ctx.head_span(given[arg.name].span, len(arg.name)),
                            "first given here",
                        )
                    ],
                )
                continue
            given[arg.name] = arg
            param = tool.param(arg.name)
            if param is None:
                paging = tool.paging
                hints = suggestion_hint(arg.name, [p.name for p in tool.params])
                if paging is not None and arg.name in (paging.page, paging.size):
                    hints = [
                        "paging parameters are set by the runtime; use `pages all` or `pages N`"
                    ]
                elif not tool.params:
                    hints = [f"`{tool.qualname}` takes no parameters"]
                self.err(
                    "E112",
                    f"`{tool.qualname}` has no parameter `{arg.name}`",
                    aspan,
                    "unknown parameter",
                    hints=hints,
                )
                continue
            self.t.params[id(arg)] = param
            if isinstance(arg.value, n.FanArg) and "__arm" not in fields:
                fields["__arm"] = param.type
        return Rel(rid, tool.record.name, fields, call.span)

    def tool(self, call: n.Call) -> Tool | None:
        cat = self.ctx.catalog
        pspan = self.ctx.head_span(call.span, len(call.platform))
        plat = cat.platforms.get(call.platform)
        if plat is None:
            if not self.ctx.catalog_incomplete:
                self.err(
                    "E110",
                    f"unknown platform `{call.platform}`",
                    pspan,
                    "no such platform",
                    hints=suggestion_hint(call.platform, cat.platforms)
                    or [
                        f"add `use {call.platform}` if a module `{call.platform}.edge` declares it"
                    ],
                )
            return None
        if call.platform not in self.ctx.visible_platforms:
            mod = self.ctx.platform_module.get(call.platform, call.platform)
            self.err(
                "E110",
                f"platform `{call.platform}` is not imported",
                pspan,
                "declared in a module this file does not use",
                hints=[f"add `use {mod}`"],
            )
        tool = plat.tools.get(call.tool)
        if tool is None:
            tspan = self.ctx.sub_span(call.span, call.tool)
            hints = suggestion_hint(call.tool, plat.tools)
            elsewhere = [t.qualname for t in cat.tools() if t.name == call.tool]
            if elsewhere:
                hints.append(f"{', '.join(f'`{q}`' for q in elsewhere)} exists")
            self.err(
                "E111",
                f"platform `{call.platform}` has no tool `{call.tool}`",
                tspan,
                "unknown tool",
                hints=hints,
            )
        return tool

    # ------------------------------------------------------------ expressions
    def expr(self, e: n.Expr, scope: _Scope, *, in_func: bool = False) -> None:
        if isinstance(e, n.Ref):
            self.ref(e, scope)
        elif isinstance(e, n.NameExpr):
            self.lookup(e.name, e.span, scope)
            if e.name in scope.names and not in_func:
                self.err(
                    "E119",
                    f"`{e.name}` is a relation, not a value",
                    e.span,
                    "a relation",
                    hints=[f"`count({e.name})` counts its records; `{e.name}.field` takes a field"],
                )
        elif isinstance(e, n.BinOp):
            self.expr(e.left, scope)
            self.expr(e.right, scope)
        elif isinstance(e, n.Neg):
            self.expr(e.operand, scope)
        elif isinstance(e, n.FuncCall):
            if e.name not in FUNCS:
                self.err(
                    "E116",
                    f"unknown function `{e.name}`",
                    self.ctx.head_span(e.span, len(e.name)),
                    "not a function",
                    hints=suggestion_hint(e.name, FUNCS) or [f"functions: {', '.join(FUNCS)}"],
                )
            for a in e.args:
                if e.name == "count" and isinstance(a, n.NameExpr):
                    rel = self.relation((a.name,), a.span, scope)
                    if rel is not None:
                        self.t.refs[id(a)] = RefInfo(rel)
                elif e.name == "count" and isinstance(a, n.Ref) and self._is_branch_ref(a, scope):
                    rel = self.relation(a.parts, a.span, scope)
                    if rel is not None:
                        self.t.refs[id(a)] = RefInfo(rel)
                else:
                    self.expr(a, scope, in_func=e.name in FUNCS)

    def _is_branch_ref(self, ref: n.Ref, scope: _Scope) -> bool:
        return len(ref.parts) == 2 and isinstance(scope.names.get(ref.parts[0]), Group)

    def pred(self, p: n.Pred, scope: _Scope) -> None:
        if isinstance(p, n.PredCmp):
            self.expr(p.left, scope)
            self.expr(p.right, scope)
        elif isinstance(p, n.PredExists):
            rel = self.relation((p.name,), self.ctx.sub_span(p.span, p.name, last=True), scope)
            if rel is not None:
                self.t.refs[id(p)] = RefInfo(rel)
        elif isinstance(p, n.PredNot):
            self.pred(p.operand, scope)
        else:
            for q in p.operands:
                self.pred(q, scope)


def resolve_names(ctx: CheckContext) -> None:
    """Pass: resolve the names of every trajectory of the compiled module."""
    if not ctx.check_trajectories:
        return
    for traj in ctx.module.trajectories:
        r = _Resolver(ctx, traj)
        r.block(traj.body, _Scope())
        ctx.trajs.append(r.t)
