"""Pass `types`: arguments, junctions, reducers, ``compare`` arms and expressions are well typed.

Reads what the resolve pass recorded; anything unresolved is skipped. The rules themselves are
in :mod:`edgedsl.check.typerules`. Checks, in source order:

- each call: literal arguments fit their parameter (``E201``, code patterns ``E202``); junction
  fields fit their parameter (nominal code types ``E203`` with a hint naming a tool that maps one
  code to the other, other mismatches ``E206``, run-time-only checks ``W004``); ``fan(k)`` with
  1 ≤ k ≤ φ (``E208``); at most one ``fan`` (``E209``); no ``fan`` in a ``parallel`` header or
  a ``compare`` call (``E219``); required parameters present (``E207``);
- each ``drv`` step: the reducer accepts the field's type (``E204``), the pivot fits (``E205``);
- ``compare``: ``over`` names a parameter of the tool (``E211``) not also given (``E212``),
  2 … φ values (``E210``), each fitting the parameter;
- answers and predicates: arithmetic on numbers (``E213``), aggregates on suitable fields
  (``E214``), function arguments (``E215``), comparable operands (``E216``) — in
  :mod:`edgedsl.check.typing_expr`;
- names bound in both branches of an ``if`` and used after it have one record type (``E218``).
"""

from __future__ import annotations

from ..core.catalog import Param, Tool
from ..core.diagnostics import did_you_mean, suggestion_hint
from ..core.labels import named
from ..core.source import Span
from ..core.types import CodeType
from ..reduce.registry import REDUCERS
from ..syntax import nodes as n
from .context import (
    ANSWER_EXPR,
    ANSWER_FIELD,
    IF_COND,
    IF_ELSE,
    IF_THEN,
    PAR_BRANCH,
    At,
    CheckContext,
    RefInfo,
    Rel,
    and_list,
    known,
)
from .typerules import (
    LITERALS,
    junction_fit,
    list_item_type,
    literal_problem,
    pivot_problem,
    type_phrase,
)
from .typing_expr import ExprTyper


class _Typer(ExprTyper):
    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[n.Stmt, ...], at: At) -> None:
        """Type the statements of the block at ``at`` (``()``: the trajectory's body)."""
        for i, s in enumerate(stmts):
            here = (at, i)
            if isinstance(s, n.Binding):
                self.node(s.node, here)
            elif isinstance(s, n.IfStmt):
                self.pred(s.cond, (here, IF_COND))
                self.block(s.then, (here, IF_THEN))
                self.block(s.orelse or (), (here, IF_ELSE))
            elif isinstance(s, n.AnswerStmt):
                if s.expr is not None:
                    self.infer(s.expr, (here, ANSWER_EXPR))
                for j, f in enumerate(s.fields or ()):
                    self.infer(f.expr, ((here, ANSWER_FIELD), j))

    def node(self, node: n.NodeExpr, at: At) -> None:
        if isinstance(node, n.Call):
            self.call(node, at)
        elif isinstance(node, n.Drv):
            self.drv(node, at)
        elif isinstance(node, n.Parallel):
            for arg in node.shared:
                if isinstance(arg.value, n.FanArg):
                    self.err(
                        "E219",
                        "a `parallel` header cannot fan",
                        arg.value.span,
                        "fan in a shared argument",
                        hints=[
                            "shared arguments are literals or `seq` junctions; "
                            "fan inside one branch instead"
                        ],
                    )
            for k, br in enumerate(node.branches):
                self.call(br.call, ((at, PAR_BRANCH), k))
        else:
            self.compare(node, at)

    # ------------------------------------------------------------ calls
    def call(self, call: n.Call, at: At, over: str | None = None) -> None:
        """Type the call at ``at`` (``over``: the parameter a ``compare`` varies)."""
        tool = self.t.tools.get(at)
        if tool is None:
            return
        fans = [a for a in call.args if isinstance(a.value, n.FanArg)]
        for extra in fans[1:]:
            self.err(
                "E209",
                f"a call has at most one `fan`; `{tool.qualname}` has {len(fans)}",
                extra.value.span,
                "second fan",
                secondary=[(fans[0].value.span, "first fan")],
                hints=["fan over one field, and narrow the other with a `drv` and `seq`"],
            )
        if over is not None:
            for f in fans:
                self.err(
                    "E219",
                    "a `compare` call cannot fan",
                    f.value.span,
                    "fan in compare",
                    hints=["compare already calls the tool once per value"],
                )
        resolved = 0
        for i, arg in enumerate(call.args):
            here = (at, i)
            param = self.t.params.get(here)
            if param is not None:
                resolved += 1
                self.arg(tool, param, arg.value, here)
        given = {a.name for a in call.args}
        missing = [
            p.name for p in tool.params if not p.optional and p.name not in given and p.name != over
        ]
        unresolved = resolved < len(call.args)
        if missing and not unresolved:  # a misspelt argument is reported once, as E112
            what = "parameter" if len(missing) == 1 else "parameters"
            self.err(
                "E207",
                f"`{tool.qualname}` is missing required {what} {and_list(missing)}",
                call.span,
                "in this call",
                hints=[f"add {', '.join(f'`{m}: …`' for m in missing)}"],
            )

    def arg(self, tool: Tool, param: Param, value: n.ArgValue, at: At) -> None:
        if isinstance(value, LITERALS):
            self.literal(value, param, tool)
        elif isinstance(value, n.ListArg):
            self.list_arg(tool, param, value, at)
        elif isinstance(value, n.SeqArg | n.FanArg):
            if (
                isinstance(value, n.FanArg)
                and value.bound is not None
                and not (1 <= value.bound <= self.ctx.phi)
            ):
                self.err(
                    "E208",
                    f"`fan({value.bound})` is outside 1 … φ = {self.ctx.phi}",
                    value.span,
                    "fan bound out of range",
                    hints=[
                        f"a fan runs at most φ = {self.ctx.phi} calls; narrow the field "
                        "with a `drv` first"
                    ],
                )
            info = self.t.refs.get(at)
            if info is not None:
                self.junction(info, value.ref.span, param, tool)
        elif isinstance(value, n.SharedArg):
            shared = self.t.shared.get(at)
            if shared is None:
                return
            header_at, header = shared
            if isinstance(header.value, LITERALS):
                p = literal_problem(header.value, param.type)
                if p is not None:
                    self.err(
                        p[1],
                        p[2],
                        value.span,
                        f"`{value.name}` is passed to `{param.name}`",
                        secondary=[(p[0].span, "value given here")],
                        hints=p[3],
                    )
            elif isinstance(header.value, n.SeqArg | n.FanArg):
                info = self.t.refs.get(header_at)
                if info is not None:
                    self.junction(info, value.span, param, tool)

    def list_arg(self, tool: Tool, param: Param, value: n.ListArg, at: At) -> None:
        """A list of literals and references: the parameter takes a list (or ``json``), and
        each item fits its item type, a reference as a Seq junction would."""
        ty = param.type
        item_type = list_item_type(ty)
        if item_type is None:
            self.err(
                "E201",
                f"expected {ty}, found a list",
                value.span,
                f"`{param.name}` of `{tool.qualname}` takes {type_phrase(ty)}",
                hints=["to call the tool once per value, use `fan x.f` or "
                       "`compare … over p in [...]`"],
            )
            return
        for j, item in enumerate(value.items):
            item_param = Param(f"{param.name}[{j}]", item_type)
            if isinstance(item, n.SeqArg):
                info = self.t.refs.get((at, j))
                if info is not None:
                    self.junction(info, item.ref.span, item_param, tool)
            else:
                self.literal(item, item_param, tool)

    def literal(self, lit: n.Literal_, param: Param, tool: Tool) -> None:
        p = literal_problem(lit, param.type)
        if p is not None:
            self.err(
                p[1],
                p[2],
                p[0].span,
                f"`{param.name}` of `{tool.qualname}` takes {type_phrase(param.type)}",
                hints=p[3],
            )

    def junction(self, info: RefInfo, span: Span, param: Param, tool: Tool) -> None:
        assert info.type is not None and info.field is not None
        src, dst = info.type, param.type
        fit = junction_fit(src, dst)
        if fit == "ok":
            return
        ref = f"{info.rel.id}.{info.field}"
        label = f"{self.field_name(info.rel, info.field)} is {type_phrase(src)}"
        secondary = [(info.rel.span, f"`{info.rel.id}` comes from here")]
        if fit == "code":
            assert isinstance(src, CodeType) and isinstance(dst, CodeType)
            self.err(
                "E203",
                f"code types differ: `{ref}` is a `{src}`, but `{param.name}` of "
                f"`{tool.qualname}` takes a `{dst}`",
                span,
                label,
                secondary=secondary,
                hints=self.code_hints(info.rel, src, dst),
            )
        elif fit == "error":
            self.err(
                "E206",
                f"`{ref}` is {type_phrase(src)}, but `{param.name}` of "
                f"`{tool.qualname}` takes {type_phrase(dst)}",
                span,
                label,
                secondary=secondary,
            )
        elif fit == "warn":
            self.err(
                "W004",
                f"`{ref}` ({src}) is checked against `{param.name}` ({dst}) only at run time",
                span,
                label,
                hints=[
                    f"declare `{info.field}` with the type `{dst}` in the catalog if every "
                    "value is one"
                ],
            )

    def code_hints(self, rel: Rel, src: CodeType, dst: CodeType) -> list[str]:
        hints = [
            f"`{rel.id}.{f}` is a `{dst}`: did you mean `seq {rel.id}.{f}`?"
            for f, ft in rel.fields.items()
            if ft == dst
        ][:1]
        for tool in self.ctx.catalog.tools():
            p = next((p for p in tool.params if p.type == src), None)
            f = next((f for f in tool.record.fields if f.type == dst), None)
            if p is not None and f is not None:
                hints.append(
                    f"`{tool.qualname}` maps a `{src}` to a `{dst}` (`{p.name}` → `{f.name}`)"
                )
                break
        if len(hints) == 0:
            hints.append(
                f"`{src}` and `{dst}` are different code systems; a value of one is "
                "not a value of the other"
            )
        return hints

    def field_name(self, rel: Rel, name: str) -> str:
        """A field as a diagnostic names it, with its catalog label: `` `rcept_dt` (접수일자)``."""
        record = self.ctx.catalog.records.get(rel.record)
        spec = record.field(name) if record is not None else None
        return named(name, spec.label if spec is not None else None)

    # ------------------------------------------------------------ drv and compare
    def drv(self, drv: n.Drv, at: At) -> None:
        src = self.t.drv_sources.get(at)
        if src is None:
            return
        for step in drv.steps:
            ft = src.fields.get(step.field)
            if not known(ft):
                continue
            assert ft is not None
            red = REDUCERS[step.op]
            if not red.accepts(ft):
                ok = [f for f, t in src.fields.items() if known(t) and red.accepts(t)]
                near = did_you_mean(step.field, ok)
                rule = red.needs
                hint = f"`{red.surface}` needs {rule}"
                if near or len(ok) == 1:
                    hint += f"; did you mean `{(near or ok)[0]}`?"
                elif ok:
                    hint += f"; fields of `{src.id}` that fit: {', '.join(f'`{f}`' for f in ok)}"
                self.err(
                    "E204",
                    f"reducer `{red.surface}` needs {rule}",
                    self.ctx.part(step.span, step.field_at, step.field),
                    f"{self.field_name(src, step.field)} is {type_phrase(ft)}",
                    secondary=[(src.span, f"`{src.id}` comes from here")],
                    hints=[hint],
                )
                continue
            if step.pivot is not None:
                problem = pivot_problem(red, step.pivot, ft)
                if problem is not None:
                    why, hints = problem
                    self.err(
                        "E205",
                        f"bad pivot for `{red.surface}` on `{step.field}`: {why}",
                        step.pivot.span,
                        f"{self.field_name(src, step.field)} is {type_phrase(ft)}",
                        hints=hints,
                    )

    def compare(self, cmp: n.Compare, at: At) -> None:
        self.call(cmp.call, at, over=cmp.param)
        tool = self.t.tools.get(at)
        count = len(cmp.values.items)
        if not 2 <= count <= self.ctx.phi:
            self.err(
                "E210",
                f"`compare` needs 2 … φ = {self.ctx.phi} values, found {count}",
                cmp.values.span,
                f"{count} value{'s' if count != 1 else ''}",
                hints=["one value is a plain call; for more than φ, split the comparison"],
            )
        if tool is None:
            return
        pspan = self.ctx.part(cmp.span, cmp.param_at, cmp.param)
        param = tool.param(cmp.param)
        if param is None:
            self.err(
                "E211",
                f"`{tool.qualname}` has no parameter `{cmp.param}` to compare over",
                pspan,
                "unknown parameter",
                hints=suggestion_hint(cmp.param, [p.name for p in tool.params]),
            )
            return
        given = next((a for a in cmp.call.args if a.name == cmp.param), None)
        if given is not None:
            self.err(
                "E212",
                f"`{cmp.param}` is both compared over and given in the call",
                given.span,
                "given here",
                secondary=[(pspan, "compared over here")],
                hints=[f"remove `{cmp.param}` from the call's arguments"],
            )
        for value in cmp.values.items:
            self.literal(value, param, tool)

    # ------------------------------------------------------------ if joins
    def joins(self) -> None:
        for j in self.t.joins:
            a, b = j.then_value, j.else_value
            if not j.uses or not isinstance(a, Rel) or not isinstance(b, Rel):
                continue
            if a.record == b.record and a.fields == b.fields:
                continue
            what = (
                (
                    f"a `{a.record.rsplit('.', 1)[-1]}` in one branch and a "
                    f"`{b.record.rsplit('.', 1)[-1]}` in the other"
                )
                if a.record != b.record
                else "relations with different fields in the two branches"
            )
            self.err(
                "E218",
                f"`{j.name}` is {what}",
                j.uses[0],
                "used here, after the `if`",
                secondary=[
                    (self.ctx.named(j.then), "bound here"),
                    (self.ctx.named(j.orelse), "and here"),
                ],
                hints=["bind the name to the same kind of relation in both branches"],
            )


def check_types(ctx: CheckContext) -> None:
    """Pass: type-check every trajectory resolved by the resolve pass."""
    for t in ctx.trajs:
        typer = _Typer(ctx, t)
        typer.block(t.ast.body, ())
        typer.joins()
