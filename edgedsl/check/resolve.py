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
from .context import (
    ANSWER_EXPR,
    ANSWER_FIELD,
    IF_COND,
    IF_ELSE,
    IF_THEN,
    PAR_BRANCH,
    PAR_SHARED,
    UNKNOWN,
    At,
    CheckContext,
    Group,
    Join,
    Rel,
    Value,
)
from .names import NameResolver, Scope


class _Resolver(NameResolver):
    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[n.Stmt, ...], at: At, scope: Scope) -> None:
        """Resolve the statements of the block at ``at`` (``()``: the trajectory's body)."""
        for i, s in enumerate(stmts):
            here = (at, i)
            if isinstance(s, n.Binding):
                self.binding(s, here, scope)
            elif isinstance(s, n.IfStmt):
                self.if_stmt(s, here, scope)
            elif isinstance(s, n.AnswerStmt):
                self.user = None
                if s.expr is not None:
                    self.expr(s.expr, (here, ANSWER_EXPR), scope)
                first: dict[str, n.AnswerField] = {}
                for j, f in enumerate(s.fields or ()):
                    if f.name in first:
                        self.twice("answer field", f.name, self.ctx.named(f),
                                   self.ctx.named(first[f.name]))
                    first.setdefault(f.name, f)
                    self.expr(f.expr, ((here, ANSWER_FIELD), j), scope)

    def binding(self, b: n.Binding, at: At, scope: Scope) -> None:
        if b.name in scope.seen:
            prev = scope.seen[b.name]
            self.err(
                "E115",
                f"`{b.name}` is bound twice",
                self.ctx.named(b),
                "bound again here",
                secondary=[(self.ctx.named(prev), "first bound here")],
                hints=["a name is bound once; choose a new name for the second relation"],
            )
        self.user = b.name
        value = self.node(b.name, b.node, at, scope)
        self.t.values[at] = value
        scope.names[b.name] = value
        scope.defs[b.name] = (at, b)
        scope.seen[b.name] = b
        scope.one_branch.pop(b.name, None)
        scope.joins.pop(b.name, None)
        self.done.add(b.name)

    def if_stmt(self, s: n.IfStmt, at: At, scope: Scope) -> None:
        self.user = None
        self.pred(s.cond, (at, IF_COND), scope)
        then_scope = scope.copy()
        self.block(s.then, (at, IF_THEN), then_scope)
        else_scope = scope.copy()
        self.block(s.orelse or (), (at, IF_ELSE), else_scope)

        def new(sc: Scope) -> dict[str, tuple[At, n.Binding]]:
            """The bindings a branch made: their positions are not those of ``scope``'s."""
            return {k: d for k, d in sc.defs.items() if k not in scope.defs
                    or scope.defs[k][0] != d[0]}

        new_then, new_else = new(then_scope), new(else_scope)
        both = [k for k in new_then if k in new_else]
        for sc in (then_scope, else_scope):
            scope.one_branch.update(sc.one_branch)
            scope.seen.update(sc.seen)
        for k in both:
            join = Join(
                k, new_then[k][1], new_else[k][1], then_scope.names[k], else_scope.names[k]
            )
            self.t.joins.append(join)
            scope.names[k] = then_scope.names[k]
            scope.defs[k] = new_then[k]
            scope.joins[k] = join
            scope.one_branch.pop(k, None)
        for k, (_, b) in [*new_then.items(), *new_else.items()]:
            if k not in both:
                scope.one_branch[k] = b
                scope.names.pop(k, None)
                scope.defs.pop(k, None)
        self.t.if_binds[at] = tuple(both)

    # ------------------------------------------------------------ nodes
    def node(self, name: str, node: n.NodeExpr, at: At, scope: Scope) -> Value:
        """What the node of the binding ``name`` at ``at`` denotes."""
        if isinstance(node, n.Call):
            return self.call(name, node, at, scope, None)
        if isinstance(node, n.Drv):
            source_span = self.ctx.extent(node.span, node.source_at, node.source_end)
            src = self.relation(node.source, source_span, scope)
            if src is None:
                return None
            self.t.drv_sources[at] = src
            for step in node.steps:
                if step.field not in src.fields:
                    self.err(
                        "E114",
                        f"`{src.id}` has no field `{step.field}`",
                        self.ctx.part(step.span, step.field_at, step.field),
                        "no such field",
                        secondary=[(src.span, f"`{src.id}` comes from here")],
                        hints=suggestion_hint(step.field, src.fields),
                    )
            return Rel(name, src.record, dict(src.fields), node.span)
        if isinstance(node, n.Parallel):
            return self.parallel(name, node, at, scope)
        rel = self.call(name, node.call, at, scope, None)
        tool = self.t.tools.get(at)
        if rel is not None and tool is not None:
            p = tool.param(node.param)
            rel.fields["__arm"] = p.type if p is not None else UNKNOWN  # type: ignore[assignment]
        return rel

    def parallel(self, name: str, par: n.Parallel, at: At, scope: Scope) -> Group:
        shared: dict[str, tuple[At, n.Arg]] = {}
        for i, arg in enumerate(par.shared):
            if arg.name in shared:
                self.twice("shared name", arg.name, self.ctx.named(arg),
                           self.ctx.named(shared[arg.name][1]))
                continue
            here = ((at, PAR_SHARED), i)
            shared[arg.name] = (here, arg)
            self.arg_value(arg.value, here, scope, None)
        group = Group(name, {}, par.span)
        for k, br in enumerate(par.branches):
            if br.name in group.branches:
                self.err(
                    "E115",
                    f"branch `{br.name}` is bound twice in `{name}`",
                    self.ctx.named(br),
                    "bound again here",
                )
                continue
            group.branches[br.name] = self.call(
                f"{name}.{br.name}", br.call, ((at, PAR_BRANCH), k), scope, shared
            )
        return group

    def arg_value(
        self,
        value: n.ArgValue,
        at: At,
        scope: Scope,
        shared: dict[str, tuple[At, n.Arg]] | None,
    ) -> None:
        """Resolve the value of the argument at ``at`` (a list's references at ``(at, j)``,
        ``j`` the item's position)."""
        if isinstance(value, n.SeqArg | n.FanArg):
            self.ref(value.ref, at, scope)
        elif isinstance(value, n.ListArg):
            for j, item in value.refs:
                self.ref(item.ref, (at, j), scope)
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
                self.t.shared[at] = shared[value.name]

    def call(
        self,
        rid: str,
        call: n.Call,
        at: At,
        scope: Scope,
        shared: dict[str, tuple[At, n.Arg]] | None,
    ) -> Rel | None:
        """The relation the call at ``at`` makes (None when its tool is unknown)."""
        for i, arg in enumerate(call.args):
            self.arg_value(arg.value, (at, i), scope, shared)
        tool = self.tool(call)
        if tool is None:
            return None
        self.t.tools[at] = tool
        given: dict[str, n.Arg] = {}
        fields = tool.record.field_types()  # a fresh dict
        for i, arg in enumerate(call.args):
            if arg.name in given:
                self.twice("argument", arg.name, self.ctx.named(arg),
                           self.ctx.named(given[arg.name]))
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
                    self.ctx.named(arg),
                    "unknown parameter",
                    hints=hints,
                )
                continue
            self.t.params[(at, i)] = param
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
                    self.ctx.part(call.span, call.platform_at, call.platform),
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
                self.ctx.part(call.span, call.platform_at, call.platform),
                "declared in a module this file does not use",
                hints=[f"add `use {mod}`"],
            )
        tool = plat.tools.get(call.tool)
        if tool is None:
            tspan = self.ctx.part(call.span, call.tool_at, call.tool)
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
        r.block(traj.body, (), Scope())
        ctx.trajs.append(r.t)
