"""What each name written in a document denotes, and where it is declared.

:func:`occurrences` walks the AST of an analysed document and lists every name it can resolve
(:class:`Occurrence`: the name's offsets, taken from the node's span and the offsets the builder
kept, ``nodes.PART``; and what it denotes, :data:`Target`), resolving through the checker's
results: the catalog of the used modules (platforms, tools, parameters, records, code types)
and the relation each binding holds (``TrajInfo.bindings`` / ``values``). Nothing is looked for
in the text. :func:`declarations` indexes where each catalog element is declared, in the
document or in a used module (``ModuleInfo.ast`` and its source).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from ..check.context import CheckContext, Group, Rel, TrajInfo
from ..core.catalog import Param, Platform, Tool
from ..core.source import Source, Span
from ..core.types import FieldSpec
from ..reduce.registry import REDUCERS, Reducer
from ..syntax import nodes as n
from .analysis import Analysis

__all__ = [
    "BindingT",
    "CodeTypeT",
    "FieldT",
    "FunctionT",
    "ModuleT",
    "Occurrence",
    "ParamT",
    "PlatformT",
    "RecordT",
    "ReducerT",
    "Target",
    "ToolT",
    "at_offset",
    "declarations",
    "definition",
    "occurrences",
]


@dataclass(frozen=True)
class PlatformT:
    """A platform of the catalog."""

    platform: Platform


@dataclass(frozen=True)
class ToolT:
    """A tool of the catalog."""

    tool: Tool


@dataclass(frozen=True)
class ParamT:
    """A parameter of a tool."""

    tool: Tool
    param: Param


@dataclass(frozen=True)
class FieldT:
    """A field of a record type (``record`` its catalog name, ``spec`` its declaration)."""

    record: str
    spec: FieldSpec


@dataclass(frozen=True)
class RecordT:
    """A record type, by its catalog name (``dart.Disclosure``)."""

    name: str


@dataclass(frozen=True)
class CodeTypeT:
    """A nominal code type, by its catalog name (``codes.StockCode``)."""

    name: str


@dataclass(frozen=True)
class ModuleT:
    """A module named by ``use``."""

    name: str
    path: Path | None


@dataclass(frozen=True)
class BindingT:
    """A binding of a trajectory and the relation (or ``parallel`` group) it holds."""

    binding: n.Binding
    value: Rel | Group | None
    tool: Tool | None
    """The tool its call (or ``compare``) calls, when it is one."""


@dataclass(frozen=True)
class ReducerT:
    """A reducer of a ``drv`` step, from the registry."""

    reducer: Reducer


@dataclass(frozen=True)
class FunctionT:
    """A function of an answer or condition (``count``, ``round`` …)."""

    name: str


Target: TypeAlias = (PlatformT | ToolT | ParamT | FieldT | RecordT | CodeTypeT | ModuleT
                     | BindingT | ReducerT | FunctionT)


@dataclass(frozen=True)
class Occurrence:
    """A name written at ``start``..``end`` of the document, and what it denotes."""

    start: int
    end: int
    target: Target
    definition: bool = False
    """True where the name is declared (a binding's own name, a declaration's)."""


# ---------------------------------------------------------------- declarations


def _qualified(scope: str, name: str) -> str:
    return name if "." in name else f"{scope}.{name}"


def declarations(ctx: CheckContext) -> dict[tuple[str, ...], Span]:
    """Where each catalog element is declared, by key: ``("platform", p)``, ``("tool",
    "p.t")``, ``("param", "p.t", name)``, ``("record", "p.R")``, ``("field", "p.R", f)``,
    ``("type", "m.T")`` — the span of its name in its module's source."""
    out: dict[tuple[str, ...], Span] = {}
    for info in ctx.modules.values():
        if info.ast is None:
            continue
        src = info.source

        def name_span(node: n.TypeDecl | n.RecordDecl | n.PlatformDecl | n.ToolDecl
                      | n.FieldDecl | n.ParamDecl, src: Source = src) -> Span:
            return src.span(node.name_at, node.name_at + len(node.name)) \
                if node.name_at >= 0 else node.span

        def catalog_items(items: tuple[object, ...], scope: str) -> None:
            for item in items:
                if isinstance(item, n.TypeDecl):
                    out[("type", _qualified(scope, item.name))] = name_span(item)
                elif isinstance(item, n.RecordDecl):
                    rec = _qualified(scope, item.name)
                    out[("record", rec)] = name_span(item)
                    for f in item.fields:
                        out[("field", rec, f.name)] = name_span(f)
                elif isinstance(item, n.ToolDecl):
                    tool = f"{scope}.{item.name}"
                    out[("tool", tool)] = name_span(item)
                    for p in item.params:
                        out[("param", tool, p.name)] = name_span(p)

        catalog_items(tuple(info.ast.items), info.name)
        for item in info.ast.items:
            if isinstance(item, n.PlatformDecl):
                out[("platform", item.name)] = name_span(item)
                catalog_items(item.items, item.name)
    return out


def definition(target: Target, ctx: CheckContext,
               decls: dict[tuple[str, ...], Span]) -> Span | None:
    """Where ``target`` is declared (None for a reducer or function, or when not known);
    a module's is the start of its file."""
    if isinstance(target, PlatformT):
        return decls.get(("platform", target.platform.name), target.platform.span)
    if isinstance(target, ToolT):
        return decls.get(("tool", target.tool.qualname), target.tool.span)
    if isinstance(target, ParamT):
        return decls.get(("param", target.tool.qualname, target.param.name), target.param.span)
    if isinstance(target, FieldT):
        return decls.get(("field", target.record, target.spec.name))
    if isinstance(target, RecordT):
        return decls.get(("record", target.name))
    if isinstance(target, CodeTypeT):
        return decls.get(("type", target.name))
    if isinstance(target, ModuleT):
        info = ctx.modules.get(target.name)
        return None if info is None else info.source.span(0, 0)
    if isinstance(target, BindingT):
        b = target.binding
        return ctx.source.span(b.name_at, b.name_at + len(b.name)) if b.name_at >= 0 else b.span
    return None


# ---------------------------------------------------------------- occurrences


class _Walker:
    """Walks one document's AST and lists the names it resolves."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.cat = ctx.catalog
        self.out: list[Occurrence] = []
        self.traj: TrajInfo | None = None
        self.module_name = ctx.main.name if ctx.main is not None else "main"

    def add(self, start: int, name: str, target: Target, definition: bool = False) -> None:
        if start >= 0:
            self.out.append(Occurrence(start, start + len(name), target, definition))

    # ---- catalog declarations of the document

    def type_expr(self, t: n.TypeExpr, scope: str) -> None:
        if isinstance(t, n.ListTypeExpr):
            self.type_expr(t.item, scope)
        elif isinstance(t, n.NamedTypeExpr):
            for key in (t.name, _qualified(scope, t.name), _qualified(self.module_name, t.name)):
                if key in self.cat.code_types:
                    self.add(t.span.start, t.name, CodeTypeT(key))
                    return
                if key in self.cat.records:
                    self.add(t.span.start, t.name, RecordT(key))
                    return
            for key in self.cat.code_types:  # a code type of a used module, by its own name
                if key.rsplit(".", 1)[-1] == t.name:
                    self.add(t.span.start, t.name, CodeTypeT(key))
                    return

    def catalog_items(self, items: tuple[object, ...], scope: str) -> None:
        for item in items:
            if isinstance(item, n.TypeDecl) and _qualified(scope, item.name) in self.cat.code_types:
                self.add(item.name_at, item.name, CodeTypeT(_qualified(scope, item.name)), True)
            elif isinstance(item, n.RecordDecl):
                rec = _qualified(scope, item.name)
                if rec in self.cat.records:
                    self.add(item.name_at, item.name, RecordT(rec), True)
                    rtype = self.cat.records[rec]
                    for f in item.fields:
                        spec = rtype.field(f.name)
                        if spec is not None:
                            self.add(f.name_at, f.name, FieldT(rec, spec), True)
                for f in item.fields:
                    self.type_expr(f.type, scope)
            elif isinstance(item, n.ToolDecl):
                tool = self.cat.tool(f"{scope}.{item.name}")
                if tool is not None:
                    self.add(item.name_at, item.name, ToolT(tool), True)
                    for p in item.params:
                        param = tool.param(p.name)
                        if param is not None:
                            self.add(p.name_at, p.name, ParamT(tool, param), True)
                    if tool.record.name in self.cat.records:
                        self.add(item.returns_at, item.returns, RecordT(tool.record.name))
                for p in item.params:
                    self.type_expr(p.type, scope)

    def module(self, module: n.Module) -> None:
        for item in module.items:
            if isinstance(item, n.UseDecl):
                for name, at in zip(item.names, item.name_at, strict=False):
                    info = self.ctx.modules.get(name)
                    if info is not None:  # a module found nowhere (E103) denotes nothing
                        self.add(at, name, ModuleT(name, info.path))
            elif isinstance(item, n.PlatformDecl):
                p = self.cat.platforms.get(item.name)
                if p is not None:
                    self.add(item.name_at, item.name, PlatformT(p), True)
                self.catalog_items(item.items, item.name)
            elif isinstance(item, n.Trajectory):
                self.traj = next((t for t in self.ctx.trajs if t.ast is item), None)
                self.stmts(item.body)
            else:
                self.catalog_items((item,), self.module_name)

    # ---- trajectories

    def bound(self, name: str, before: int) -> BindingT | None:
        """The binding ``name`` denotes at offset ``before``: the nearest one written before
        it (``if`` branches may bind one name twice), else the first."""
        if self.traj is None:
            return None
        found = [(at, b) for at, b in self.traj.bindings if b.name == name]
        if not found:
            return None
        earlier = [ab for ab in found if ab[1].span.start <= before]
        at, b = (earlier or found)[-1 if earlier else 0]
        return BindingT(b, self.traj.values.get(at), self.traj.tools.get(at))

    def own(self, b: n.Binding) -> BindingT | None:
        """The binding ``b`` itself, with what the checker found it to hold."""
        if self.traj is None:
            return None
        for at, x in self.traj.bindings:
            if x is b:
                return BindingT(b, self.traj.values.get(at), self.traj.tools.get(at))
        return None

    def relation(self, parts: tuple[str, ...], start: int) -> Rel | None:
        """The relation ``x`` or ``group.branch`` written at ``start`` names."""
        bt = self.bound(parts[0], start)
        if bt is None:
            return None
        if isinstance(bt.value, Group):
            return bt.value.branches.get(parts[1]) if len(parts) > 1 else None
        return bt.value

    def field(self, rel: Rel | None, name: str, start: int) -> None:
        if rel is None:
            return
        rtype = self.cat.records.get(rel.record)
        spec = None if rtype is None else rtype.field(name)
        if spec is not None:
            self.add(start, name, FieldT(rel.record, spec))

    def ref(self, r: n.Ref) -> None:
        bt = self.bound(r.binding, r.span.start)
        if bt is not None:
            self.add(r.span.start, r.binding, bt)
        self.field(self.relation(r.parts[:-1], r.span.start), r.field, r.field_at)

    def call(self, c: n.Call) -> None:
        p = self.cat.platforms.get(c.platform)
        if p is not None:
            self.add(c.platform_at, c.platform, PlatformT(p))
        tool = self.cat.tool(c.qualname)
        if tool is not None:
            self.add(c.tool_at, c.tool, ToolT(tool))
        for a in c.args:
            param = None if tool is None else tool.param(a.name)
            if tool is not None and param is not None:
                self.add(a.name_at, a.name, ParamT(tool, param))
            self.arg_value(a.value)

    def arg_value(self, v: n.ArgValue) -> None:
        if isinstance(v, n.SeqArg | n.FanArg):
            self.ref(v.ref)
        elif isinstance(v, n.ListArg):
            for _, item in v.refs:
                self.ref(item.ref)

    def node(self, node: n.NodeExpr) -> None:
        if isinstance(node, n.Call):
            self.call(node)
        elif isinstance(node, n.Compare):
            self.call(node.call)
            tool = self.cat.tool(node.call.qualname)
            param = None if tool is None else tool.param(node.param)
            if tool is not None and param is not None:
                self.add(node.param_at, node.param, ParamT(tool, param))
        elif isinstance(node, n.Parallel):
            for a in node.shared:
                self.arg_value(a.value)
            for br in node.branches:
                self.call(br.call)
        elif isinstance(node, n.Drv):
            bt = self.bound(node.source[0], node.span.start)
            if bt is not None:
                self.add(node.source_at, node.source[0], bt)
            rel = self.relation(node.source, node.span.start)
            for step in node.steps:
                red = REDUCERS.get(step.op)
                if red is not None:  # the step's span starts at its word (`max`, `where`)
                    self.add(step.span.start, "where" if red.form == "where" else red.surface,
                             ReducerT(red))
                self.field(rel, step.field, step.field_at)

    def expr(self, e: n.Expr | n.Pred) -> None:
        if isinstance(e, n.Ref):
            self.ref(e)
        elif isinstance(e, n.NameExpr):
            bt = self.bound(e.name, e.span.start)
            if bt is not None:
                self.add(e.span.start, e.name, bt)
        elif isinstance(e, n.FuncCall):
            self.add(e.name_at, e.name, FunctionT(e.name))
            for a in e.args:
                self.expr(a)
        elif isinstance(e, n.BinOp | n.PredCmp):
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, n.Neg | n.PredNot):
            self.expr(e.operand)
        elif isinstance(e, n.PredAnd | n.PredOr):
            for o in e.operands:
                self.expr(o)
        elif isinstance(e, n.PredExists):
            bt = self.bound(e.name, e.span.start)
            if bt is not None:
                self.add(e.name_at, e.name, bt)

    def stmts(self, body: tuple[n.Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, n.Binding):
                own = self.own(s)
                if own is not None:
                    self.add(s.name_at, s.name, own, True)
                self.node(s.node)
            elif isinstance(s, n.IfStmt):
                self.expr(s.cond)
                self.stmts(s.then)
                self.stmts(s.orelse or ())
            elif isinstance(s, n.AnswerStmt):
                if s.expr is not None:
                    self.expr(s.expr)
                for f in s.fields or ():
                    self.expr(f.expr)


def occurrences(analysis: Analysis) -> list[Occurrence]:
    """Every name of the document that resolves, in written order (empty when it does not
    parse)."""
    if analysis.module is None or analysis.ctx is None:
        return []
    w = _Walker(analysis.ctx)
    w.module(analysis.module)
    return sorted(w.out, key=lambda o: o.start)


def at_offset(occs: list[Occurrence], offset: int) -> Occurrence | None:
    """The occurrence under the cursor at ``offset`` (its end included, so a cursor just
    after a name finds it)."""
    for o in occs:
        if o.start <= offset <= o.end:
            return o
    return None
