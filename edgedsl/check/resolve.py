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
Statements, calls and tools are resolved here; names, references, expressions and predicates
in :mod:`edgedsl.check.names`.
"""

from __future__ import annotations

from ..core.catalog import Tool
from ..core.diagnostics import suggestion_hint
from ..syntax import nodes as n
from .context import UNKNOWN, CheckContext, Group, Join, Rel, Value
from .names import NameResolver, Scope


class _Resolver(NameResolver):
    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> None:
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
                        self.twice("answer field", f.name, f.span, first[f.name].span)
                    first.setdefault(f.name, f)
                    self.expr(f.expr, scope)

    def binding(self, b: n.Binding, scope: Scope) -> None:
        if b.name in scope.seen:
            prev = scope.seen[b.name]
            self.err(
                "E115",
                f"`{b.name}` is bound twice",
                self.ctx.head_span(b.span, len(b.name)),
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

    def if_stmt(self, s: n.IfStmt, scope: Scope) -> None:
        self.user = None
        self.pred(s.cond, scope)
        then_scope = scope.copy()
        self.block(s.then, then_scope)
        else_scope = scope.copy()
        self.block(s.orelse or (), else_scope)

        def new(sc: Scope) -> dict[str, n.Binding]:
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

    # ------------------------------------------------------------ nodes
    def node(self, name: str, node: n.NodeExpr, scope: Scope) -> Value:
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

    def parallel(self, name: str, par: n.Parallel, scope: Scope) -> Group:
        shared: dict[str, n.Arg] = {}
        for arg in par.shared:
            if arg.name in shared:
                self.twice("shared name", arg.name, arg.span, shared[arg.name].span)
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

    def arg_value(self, value: n.ArgValue, scope: Scope, shared: dict[str, n.Arg] | None) -> None:
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
        self, rid: str, call: n.Call, scope: Scope, shared: dict[str, n.Arg] | None
    ) -> Rel | None:
        for arg in call.args:
            self.arg_value(arg.value, scope, shared)
        tool = self.tool(call)
        if tool is None:
            return None
        self.t.tools[id(call)] = tool
        given: dict[str, n.Arg] = {}
        fields = tool.record.field_types()  # a fresh dict
        for arg in call.args:
            if arg.name in given:
                self.twice("argument", arg.name, arg.span, given[arg.name].span)
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
                    self.ctx.head_span(arg.span, len(arg.name)),
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
        plat = cat.platforms.get(call.platform)
        if plat is None:
            if not self.ctx.catalog_incomplete:
                self.err(
                    "E110",
                    f"unknown platform `{call.platform}`",
                    self.ctx.head_span(call.span, len(call.platform)),
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
                self.ctx.head_span(call.span, len(call.platform)),
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


def resolve_names(ctx: CheckContext) -> None:
    """Pass: resolve the names of every trajectory of the compiled module."""
    if not ctx.check_trajectories:
        return
    for traj in ctx.module.trajectories:
        r = _Resolver(ctx, traj)
        r.block(traj.body, Scope())
        ctx.trajs.append(r.t)
