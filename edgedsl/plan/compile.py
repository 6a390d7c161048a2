"""The compiler of stage `plan`: checked IR → :class:`~edgedsl.plan.model.Plan` models.

Expressions and predicates become SQL text with ``?`` parameters over the run's relation tables;
``drv`` nodes hold their typed query (:func:`edgedsl.reduce.registry.build_query`); steps
are grouped into topological layers per scope (top level, each ``if`` branch). See
:mod:`edgedsl.plan.model` for the layout of the result. Use it through
:func:`compile_program`.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Literal

from ..check import ir
from ..core.catalog import Catalog, Tool
from ..core.source import NO_SPAN, Span, maker
from ..core.sqlquote import quote_ident
from ..core.types import FieldType, ScalarType, type_to_json
from ..reduce.registry import build_query
from .model import (
    PLAN_VERSION,
    AnswerField,
    AnswerPlan,
    CallStep,
    CompareStep,
    DrvStep,
    IfStep,
    JunctionSpec,
    PagingSpec,
    ParallelStep,
    ParamSpec,
    Plan,
    PredicateSpec,
    RequestTemplate,
    SharedSpec,
    SpanInfo,
    ToolSpec,
    TrajectoryPlan,
    encode_value,
)

__all__ = [
    "compile_program",
    "compile_trajectory",
    "distinct_sql",
    "expr_sql",
    "expr_type",
    "pred_sql",
]

# plan models made without ``type.__call__`` (:func:`~edgedsl.core.source.maker`)
_AnswerField = maker(AnswerField)
_AnswerPlan = maker(AnswerPlan)
_CallStep = maker(CallStep)
_CompareStep = maker(CompareStep)
_DrvStep = maker(DrvStep)
_IfStep = maker(IfStep)
_JunctionSpec = maker(JunctionSpec)
_PagingSpec = maker(PagingSpec)
_ParallelStep = maker(ParallelStep)
_ParamSpec = maker(ParamSpec)
_Plan = maker(Plan)
_PredicateSpec = maker(PredicateSpec)
_RequestTemplate = maker(RequestTemplate)
_SharedSpec = maker(SharedSpec)
_SpanInfo = maker(SpanInfo)
_ToolSpec = maker(ToolSpec)
_TrajectoryPlan = maker(TrajectoryPlan)

# ---------------------------------------------------------------- expressions → SQL


def _lit_sql(v: object, params: list[object]) -> str:
    params.append(v)
    if isinstance(v, _dt.date):
        return "CAST(? AS DATE)"
    return "?"


def distinct_sql(source: str, field: str) -> str:
    """The ``SELECT`` of the distinct non-null values of a field in first-occurrence order (a
    field reference: answers, expressions); the executor recognises this exact text."""
    c = quote_ident(field)
    return (f"SELECT {c} AS value FROM {quote_ident(source)} WHERE {c} IS NOT NULL "
            f"GROUP BY {c} ORDER BY min({quote_ident('__row')})")


def count_sql(source: str) -> str:
    """The scalar subquery counting a relation's rows (``count(x)``); as a whole answer field,
    ``SELECT … AS value``, the executor recognises this exact text."""
    return f"(SELECT count(*) FROM {quote_ident(source)})"


def expr_sql(e: ir.ExprIR, params: list[object]) -> str:
    """SQL for a scalar expression (a field reference must have one value at run time)."""
    if isinstance(e, ir.LitE):
        return _lit_sql(e.value, params)
    if isinstance(e, ir.FieldE):
        return f"({distinct_sql(e.source, e.field)})"
    if isinstance(e, ir.CountE):
        return count_sql(e.source)
    if isinstance(e, ir.AggE):
        return f"(SELECT {e.fn}({quote_ident(e.field)}) FROM {quote_ident(e.source)})"
    if isinstance(e, ir.BinE):
        return f"({expr_sql(e.left, params)} {e.op} {expr_sql(e.right, params)})"
    if isinstance(e, ir.NegE):
        return f"(-{expr_sql(e.operand, params)})"
    if isinstance(e, ir.RoundE):
        return f"round({expr_sql(e.operand, params)}, {int(e.digits)})"
    raise TypeError(f"internal error: not an expression: {e!r}")


def pred_sql(p: ir.PredIR, params: list[object]) -> str:
    """SQL for a predicate (three-valued; the runtime reads NULL as false)."""
    if isinstance(p, ir.CmpP):
        op = "=" if p.op == "==" else "<>" if p.op == "!=" else p.op
        return f"({expr_sql(p.left, params)} {op} {expr_sql(p.right, params)})"
    if isinstance(p, ir.ExistsP):
        return f"(EXISTS (SELECT 1 FROM {quote_ident(p.source)}))"
    if isinstance(p, ir.NotP):
        return f"(NOT {pred_sql(p.operand, params)})"
    if isinstance(p, ir.AndP | ir.OrP):
        joiner = " AND " if isinstance(p, ir.AndP) else " OR "
        return "(" + joiner.join(pred_sql(o, params) for o in p.operands) + ")"
    raise TypeError(f"internal error: not a predicate: {p!r}")


_INT, _FLOAT = ScalarType("int"), ScalarType("float")


def expr_type(e: ir.ExprIR) -> FieldType | None:
    """The result type of an answer expression (None when unknown, e.g. a null literal)."""
    if isinstance(e, ir.LitE):
        v = e.value
        if isinstance(v, bool):
            return ScalarType("bool")
        if isinstance(v, int):
            return _INT
        if isinstance(v, float):
            return _FLOAT
        if isinstance(v, _dt.date):
            return ScalarType("date")
        return ScalarType("str") if isinstance(v, str) else None
    if isinstance(e, ir.FieldE):
        return e.type
    if isinstance(e, ir.CountE):
        return _INT
    if isinstance(e, ir.AggE):
        return _FLOAT if e.fn == "avg" else e.type
    if isinstance(e, ir.BinE):
        lt, rt = expr_type(e.left), expr_type(e.right)
        return _INT if e.op != "/" and lt == _INT and rt == _INT else _FLOAT
    if isinstance(e, ir.NegE):
        return expr_type(e.operand)
    if isinstance(e, ir.RoundE):
        return _INT if expr_type(e.operand) == _INT else _FLOAT
    return None


def _span(span: Span) -> SpanInfo | None:
    """:meth:`SpanInfo.of` (the whole plan is built directly: the planner's own output is valid
    by construction; a plan read from JSON is validated)."""
    if span.file == NO_SPAN.file and span == NO_SPAN:
        return None
    return _SpanInfo(file=span.file, line=span.line, col=span.col, end_line=span.end_line,
                    end_col=span.end_col, start=span.start, end=span.end)


def _answer_field(name: str | None, e: ir.ExprIR) -> AnswerField:
    params: list[object] = []
    t = expr_type(e)
    shape: Literal["values", "scalar"] = "values" if isinstance(e, ir.FieldE) else "scalar"
    if isinstance(e, ir.FieldE):
        sql = distinct_sql(e.source, e.field)
    else:
        sql = f"SELECT {expr_sql(e, params)} AS value"
    whole: Literal["field", "count"] | None = (
        "field" if isinstance(e, ir.FieldE) else "count" if isinstance(e, ir.CountE) else None)
    return _AnswerField(
        name=name, sql=sql, params=[encode_value(p) for p in params], shape=shape,
        type=None if t is None else type_to_json(t), span=_span(e.span),
        reads=_reads(_expr_reads(e)), whole=whole)


def _reads(reads: dict[str, set[str]]) -> dict[str, list[str]]:
    return {src: sorted(fields) for src, fields in sorted(reads.items())}


def _merge(*parts: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for part in parts:
        for src, fields in part.items():
            out.setdefault(src, set()).update(fields)
    return out


def _expr_reads(e: ir.ExprIR) -> dict[str, set[str]]:
    """The relations an expression's SQL reads, each with the fields it reads."""
    if isinstance(e, ir.FieldE | ir.AggE):
        return {e.source: {e.field}}
    if isinstance(e, ir.CountE):
        return {e.source: set()}
    if isinstance(e, ir.BinE):
        return _merge(_expr_reads(e.left), _expr_reads(e.right))
    if isinstance(e, ir.NegE | ir.RoundE):
        return _expr_reads(e.operand)
    return {}


def _pred_reads(p: ir.PredIR) -> dict[str, set[str]]:
    """The relations a predicate's SQL reads, each with the fields it reads."""
    if isinstance(p, ir.CmpP):
        return _merge(_expr_reads(p.left), _expr_reads(p.right))
    if isinstance(p, ir.ExistsP):
        return {p.source: set()}
    if isinstance(p, ir.NotP):
        return _pred_reads(p.operand)
    return _merge(*(_pred_reads(o) for o in p.operands))


# ---------------------------------------------------------------- IR → plan


def _junction(j: ir.Junction) -> JunctionSpec:
    return _JunctionSpec(kind=j.kind, source=j.source, field=j.field, bound=j.bound,
                        type=type_to_json(j.field_type), span=_span(j.span))


def _request(c: ir.CallIR, skip: str | None = None) -> RequestTemplate:
    lits: dict[str, Any] = {}
    juncs: dict[str, JunctionSpec] = {}
    shared: dict[str, str] = {}
    for a in c.args:
        if a.name == skip:
            continue
        if a.junction is not None:
            juncs[a.name] = _junction(a.junction)
        elif a.shared is not None:
            shared[a.name] = a.shared
        else:
            lits[a.name] = encode_value(a.literal)
    return _RequestTemplate(tool=c.tool.qualname, literals=lits, junctions=juncs, shared=shared,
                           pages=c.pages)


def _fields(tool: Tool) -> dict[str, Any]:
    return {f.name: type_to_json(f.type) for f in tool.record.fields}


def _call_sources(c: ir.CallIR) -> set[str]:
    return {a.junction.source for a in c.args if a.junction is not None}


class _Compiler:
    def __init__(self, traj: ir.TrajectoryIR) -> None:
        self.traj = traj
        # step id → its step, in the order compiled; :meth:`scope` fills in each ``deps`` list
        self.steps: dict[str, CallStep | DrvStep | CompareStep | ParallelStep | IfStep] = {}

    def scope(self, steps: tuple[ir.StepIR, ...], prefix: str) -> tuple[list[list[str]], set[str]]:
        """Compile one scope; return its layers and the relations it reads from outside."""
        producer: dict[str, str] = {}
        reads: dict[str, set[str]] = {}
        order: list[str] = []
        for s in steps:
            key = prefix + s.id
            order.append(key)
            reads[key] = self.step(s, key)
            for rel in self.produces(s):
                producer[rel] = key
        outside: set[str] = set()
        level: dict[str, int] = {}
        for key in order:  # the checker guarantees source order is a topological order
            ds = self.steps[key].deps
            for rel in sorted(reads[key]):
                p = producer.get(rel)
                if p is None:
                    outside.add(rel)
                elif p != key and p not in ds:
                    ds.append(p)
            lv = 0  # one past the deepest dependency in this scope
            for d in ds:
                if d in level and level[d] >= lv:
                    lv = level[d] + 1
            level[key] = lv
        layers: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
        for key in order:
            layers[level[key]].append(key)
        return layers, outside

    def produces(self, s: ir.StepIR) -> list[str]:
        if isinstance(s, ir.ParallelIR):
            return [s.id, *(b.id for b in s.branches)]
        if isinstance(s, ir.IfIR):
            return list(s.binds)
        return [s.id]

    def step(self, s: ir.StepIR, key: str) -> set[str]:
        span = _span(s.span)
        if isinstance(s, ir.CallIR):
            self.steps[key] = _CallStep(id=key, relation=s.id, deps=[], span=span,
                                       request=_request(s), fields=_fields(s.tool))
            return _call_sources(s)
        if isinstance(s, ir.DrvIR):
            types = s.field_types or self.traj.relations.get(s.source, {})
            query = build_query(s.source, s.steps, types)
            self.steps[key] = _DrvStep(
                id=key, relation=s.id, deps=[], span=span, source=s.source,
                reducers=[{"op": r.op, "field": r.field, "pivot": encode_value(r.pivot)}
                          for r in s.steps],
                query=query.to_json(),
                fields={k: type_to_json(v) for k, v in types.items()})
            return {s.source}
        if isinstance(s, ir.CompareIR):
            self.steps[key] = _CompareStep(
                id=key, relation=s.id, deps=[], span=span,
                request=_request(s.call, skip=s.param), param=s.param,
                values=[encode_value(v) for v in s.values], fields=_fields(s.call.tool))
            return _call_sources(s.call)
        if isinstance(s, ir.ParallelIR):
            reads: set[str] = set()
            shared: dict[str, SharedSpec] = {}
            for a in s.shared:
                if a.junction is not None:
                    shared[a.name] = _SharedSpec(literal=None, junction=_junction(a.junction))
                    reads.add(a.junction.source)
                else:
                    shared[a.name] = _SharedSpec(literal=encode_value(a.literal), junction=None)
            branch_keys = []
            for b in s.branches:
                bkey = b.id if b.id.startswith(f"{s.id}.") else f"{s.id}.{b.id}"
                branch_keys.append(bkey)
                self.steps[bkey] = _CallStep(id=bkey, relation=bkey, deps=[], span=_span(b.span),
                                            request=_request(b), fields=_fields(b.tool))
                reads |= _call_sources(b)
            self.steps[key] = _ParallelStep(id=key, relation=s.id, deps=[], span=span,
                                           shared=shared, branches=branch_keys)
            return reads
        if isinstance(s, ir.IfIR):
            pparams: list[object] = []
            psql = f"SELECT {pred_sql(s.cond, pparams)} AS value"
            then, out1 = self.scope(s.then, f"{key}/then/")
            orelse, out2 = self.scope(s.orelse, f"{key}/else/")
            predicate = _PredicateSpec(sql=psql, params=[encode_value(p) for p in pparams],
                                      reads=_reads(_pred_reads(s.cond)))
            self.steps[key] = _IfStep(id=key, relation=None, deps=[], span=span,
                                     predicate=predicate, then=then, orelse=orelse,
                                     binds=list(s.binds))
            return set(_pred_reads(s.cond)) | out1 | out2
        raise TypeError(f"internal error: not a step: {s!r}")


def _tools_of(steps: tuple[ir.StepIR, ...]) -> list[Tool]:
    out: list[Tool] = []
    for s in steps:
        if isinstance(s, ir.CallIR):
            out.append(s.tool)
        elif isinstance(s, ir.CompareIR):
            out.append(s.call.tool)
        elif isinstance(s, ir.ParallelIR):
            out += [b.tool for b in s.branches]
        elif isinstance(s, ir.IfIR):
            out += _tools_of(s.then) + _tools_of(s.orelse)
    return out


def compile_trajectory(traj: ir.TrajectoryIR) -> TrajectoryPlan:
    """Compile one checked trajectory (tools are collected by :func:`compile_program`)."""
    c = _Compiler(traj)
    layers, _ = c.scope(traj.steps, "")
    answer = None
    if traj.answer is not None:
        if traj.answer.fields is not None:
            answer = _AnswerPlan(
                kind="object", fields=[_answer_field(n, e) for n, e in traj.answer.fields])
        elif traj.answer.expr is not None:
            answer = _AnswerPlan(kind="expr", fields=[_answer_field(None, traj.answer.expr)])
    return _TrajectoryPlan(name=traj.name, query=traj.query, steps=c.steps, layers=layers,
                          answer=answer, say=traj.say, span=_span(traj.span))


def _tool_spec(tool: Tool, catalog: Catalog) -> ToolSpec:
    """:meth:`ToolSpec.of` from its memoised input, with fresh containers (as validated)."""
    data = ToolSpec.input_of(tool, catalog)
    values = dict(data)
    values["params"] = [_ParamSpec(**p) for p in data["params"]]
    values["fields"] = dict(data["fields"])
    paging = data["paging"]
    if paging is not None:
        values["paging"] = _PagingSpec(**paging)
    return _ToolSpec(**values)


def compile_program(program: ir.ProgramIR) -> Plan:
    """Stage `plan`: compile every trajectory of a checked program into one :class:`Plan`.

    The models (plain dataclasses) are made directly: the planner's output is valid by
    construction, and a plan read from JSON is validated (:func:`~edgedsl.plan.model.load_plan`)."""
    tools: dict[str, ToolSpec] = {}
    for t in program.trajectories:
        for tool in _tools_of(t.steps):
            qualname = tool.qualname
            if qualname not in tools:
                tools[qualname] = _tool_spec(tool, program.catalog)
    return _Plan(version=PLAN_VERSION, source_name=program.source_name, tools=tools,
                trajectories=[compile_trajectory(t) for t in program.trajectories])
