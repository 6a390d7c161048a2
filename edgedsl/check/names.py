"""Name lookup for the `resolve` pass: scopes, references, expressions and predicates.

:class:`NameResolver` holds the sequential scoping state of one trajectory (see
:mod:`edgedsl.check.resolve`) and resolves what a name, a reference ``x.f`` /
``group.branch.f``, an expression or a predicate denotes, recording every use of a binding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.diagnostics import suggestion_hint
from ..core.source import Span
from ..syntax import nodes as n
from .context import (
    IF_ELSE,
    IF_THEN,
    At,
    CheckContext,
    Group,
    Join,
    RefInfo,
    Rel,
    Reporter,
    TrajInfo,
    Use,
    Value,
)

FUNCS = ("round", "count", "count_distinct", "sum", "avg", "min", "max")


@dataclass
class Scope:
    """What is bound at one point of a trajectory (see :mod:`edgedsl.check.resolve`)."""

    names: dict[str, Value] = field(default_factory=dict)
    defs: dict[str, tuple[At, n.Binding]] = field(default_factory=dict)
    """The binding each visible name denotes, with its position."""
    one_branch: dict[str, n.Binding] = field(default_factory=dict)
    joins: dict[str, Join] = field(default_factory=dict)
    seen: dict[str, n.Binding] = field(default_factory=dict)

    def copy(self) -> Scope:
        """An independent copy, for one branch of an ``if``."""
        return Scope(
            dict(self.names),
            dict(self.defs),
            dict(self.one_branch),
            dict(self.joins),
            dict(self.seen),
        )


def _all_bindings(stmts: tuple[n.Stmt, ...], at: At = ()) -> list[tuple[At, n.Binding]]:
    """Every binding in ``stmts`` (the block at ``at``) with its position, in written order."""
    out: list[tuple[At, n.Binding]] = []
    for i, s in enumerate(stmts):
        if isinstance(s, n.Binding):
            out.append(((at, i), s))
        elif isinstance(s, n.IfStmt):
            out.extend(_all_bindings(s.then, ((at, i), IF_THEN)))
            out.extend(_all_bindings(s.orelse or (), ((at, i), IF_ELSE)))
    return out


class NameResolver(Reporter):
    """Scoping state of one trajectory and the resolution of names, references, expressions."""

    def __init__(self, ctx: CheckContext, traj: n.Trajectory) -> None:
        super().__init__(ctx)
        self.t = TrajInfo(ast=traj)
        self.t.bindings = _all_bindings(traj.body)
        self.all_names = {b.name for _, b in self.t.bindings}
        self.done: set[str] = set()
        self.user: str | None = None

    def twice(self, what: str, name: str, again: Span, first: Span) -> None:
        """``E118``: ``name`` given again at ``again`` (the spans of the name itself)."""
        self.err(
            "E118",
            f"{what} `{name}` is given twice",
            again,
            "given again",
            secondary=[(first, "first given here")],
        )

    # ------------------------------------------------------------ names
    def lookup(self, name: str, span: Span, scope: Scope) -> tuple[bool, Value]:
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
                secondary=[(self.ctx.named(b), "bound only in this branch")],
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

    def relation(self, parts: tuple[str, ...], span: Span, scope: Scope) -> Rel | None:
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

    def ref(self, ref: n.Ref, at: At, scope: Scope) -> RefInfo | None:
        """``x.f`` or ``group.branch.f`` (at ``at``) as a field of a relation."""
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
            label_span = self.ctx.part(ref.span, ref.field_at, ref.field)
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
        self.t.refs[at] = info
        return info

    # ------------------------------------------------------------ expressions
    def expr(self, e: n.Expr, at: At, scope: Scope, *, in_func: bool = False) -> None:
        """Resolve the names of the expression ``e`` at ``at``."""
        if isinstance(e, n.Ref):
            self.ref(e, at, scope)
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
            self.expr(e.left, (at, 0), scope)
            self.expr(e.right, (at, 1), scope)
        elif isinstance(e, n.Neg):
            self.expr(e.operand, (at, 0), scope)
        elif isinstance(e, n.FuncCall):
            if e.name not in FUNCS:
                self.err(
                    "E116",
                    f"unknown function `{e.name}`",
                    self.ctx.named(e),
                    "not a function",
                    hints=suggestion_hint(e.name, FUNCS) or [f"functions: {', '.join(FUNCS)}"],
                )
            for i, a in enumerate(e.args):
                if e.name == "count" and isinstance(a, n.NameExpr):
                    rel = self.relation((a.name,), a.span, scope)
                    if rel is not None:
                        self.t.refs[(at, i)] = RefInfo(rel)
                elif e.name == "count" and isinstance(a, n.Ref) and self._is_branch_ref(a, scope):
                    rel = self.relation(a.parts, a.span, scope)
                    if rel is not None:
                        self.t.refs[(at, i)] = RefInfo(rel)
                else:
                    self.expr(a, (at, i), scope, in_func=e.name in FUNCS)

    def _is_branch_ref(self, ref: n.Ref, scope: Scope) -> bool:
        return len(ref.parts) == 2 and isinstance(scope.names.get(ref.parts[0]), Group)

    def pred(self, p: n.Pred, at: At, scope: Scope) -> None:
        """Resolve the names of the predicate ``p`` at ``at``."""
        if isinstance(p, n.PredCmp):
            self.expr(p.left, (at, 0), scope)
            self.expr(p.right, (at, 1), scope)
        elif isinstance(p, n.PredExists):
            rel = self.relation((p.name,), self.ctx.named(p), scope)
            if rel is not None:
                self.t.refs[at] = RefInfo(rel)
        elif isinstance(p, n.PredNot):
            self.pred(p.operand, (at, 0), scope)
        else:
            for i, q in enumerate(p.operands):
                self.pred(q, (at, i), scope)
