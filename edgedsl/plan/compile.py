"""The compiler of stage `plan`: checked IR → :class:`~edgedsl.plan.model.Plan` models.

Answer expressions and ``if`` predicates become typed queries (:mod:`edgedsl.reduce.answer`:
:func:`value_query`, :func:`predicate_query`), ``drv`` nodes theirs
(:func:`edgedsl.reduce.registry.build_query`), all stored as JSON and never as SQL text; steps
are grouped into topological layers per scope (top level, each ``if`` branch). See
:mod:`edgedsl.plan.model` for the layout of the result. Use it through
:func:`compile_program`.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ..check import ir
from ..core.catalog import Catalog, Tool
from ..core.source import NO_SPAN, Span, maker
from ..core.types import FieldType, ScalarType, type_to_json
from ..reduce import answer
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
    SpanInfo,
    ToolSpec,
    TrajectoryPlan,
    ValueSpec,
    encode_value,
)

__all__ = [
    "compile_program",
    "compile_trajectory",
    "expr_type",
    "predicate_query",
    "value_query",
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
_ValueSpec = maker(ValueSpec)
_SpanInfo = maker(SpanInfo)
_ToolSpec = maker(ToolSpec)
_TrajectoryPlan = maker(TrajectoryPlan)
# and the typed queries of answers and predicates, made for every answer field and `if`
_Agg = maker(answer.Agg)
_And = maker(answer.And)
_Arith = maker(answer.Arith)
_Cmp = maker(answer.Cmp)
_Count = maker(answer.Count)
_Distinct = maker(answer.Distinct)
_Exists = maker(answer.Exists)
_Lit = maker(answer.Lit)
_Neg = maker(answer.Neg)
_Not = maker(answer.Not)
_Or = maker(answer.Or)
_Round = maker(answer.Round)

# ---------------------------------------------------------------- expressions → queries


def value_query(e: ir.ExprIR) -> answer.Value:
    """The typed query of an answer expression (:mod:`edgedsl.reduce.answer`)."""
    if isinstance(e, ir.LitE):
        return _Lit(e.value)
    if isinstance(e, ir.FieldE):
        return _Distinct(e.source, e.field)
    if isinstance(e, ir.CountE):
        return _Count(e.source)
    if isinstance(e, ir.AggE):
        return _Agg(e.fn, e.source, e.field)
    if isinstance(e, ir.BinE):
        return _Arith(e.op, value_query(e.left), value_query(e.right))
    if isinstance(e, ir.NegE):
        return _Neg(value_query(e.operand))
    if isinstance(e, ir.RoundE):
        return _Round(value_query(e.operand), int(e.digits))
    raise TypeError(f"internal error: not an expression: {e!r}")


def predicate_query(p: ir.PredIR) -> answer.Predicate:
    """The typed query of an ``if`` condition (:mod:`edgedsl.reduce.answer`)."""
    if isinstance(p, ir.CmpP):
        return _Cmp(p.op, value_query(p.left), value_query(p.right))
    if isinstance(p, ir.ExistsP):
        return _Exists(p.source)
    if isinstance(p, ir.NotP):
        return _Not(predicate_query(p.operand))
    if isinstance(p, ir.AndP):
        return _And(tuple(predicate_query(o) for o in p.operands))
    if isinstance(p, ir.OrP):
        return _Or(tuple(predicate_query(o) for o in p.operands))
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
        return _FLOAT if e.fn == "avg" else _INT if e.fn == "count_distinct" else e.type
    if isinstance(e, ir.BinE):
        lt, rt = expr_type(e.left), expr_type(e.right)
        return _INT if e.op != "/" and lt == _INT and rt == _INT else _FLOAT
    if isinstance(e, ir.NegE):
        return expr_type(e.operand)
    if isinstance(e, ir.RoundE):
        return _INT if e.digits == 0 or expr_type(e.operand) == _INT else _FLOAT
    return None


def _span(span: Span) -> SpanInfo | None:
    """:meth:`SpanInfo.of` (the whole plan is built directly: the planner's own output is valid
    by construction; a plan read from JSON is validated)."""
    if span.file == NO_SPAN.file and span == NO_SPAN:
        return None
    return _SpanInfo(file=span.file, line=span.line, col=span.col, end_line=span.end_line,
                    end_col=span.end_col, start=span.start, end=span.end)


def _answer_field(name: str | None, e: ir.ExprIR) -> AnswerField:
    t = expr_type(e)
    return _AnswerField(name=name, query=answer.to_json(value_query(e)),
                        type=None if t is None else type_to_json(t), span=_span(e.span))


# ---------------------------------------------------------------- IR → plan


def _junction(j: ir.Junction) -> JunctionSpec:
    return _JunctionSpec(kind=j.kind, source=j.source, field=j.field, bound=j.bound,
                        type=type_to_json(j.field_type), span=_span(j.span))


def _value(a: ir.ArgIR) -> ValueSpec:
    """A literal or Seq-junction argument (a ``parallel``'s shared one, a list's item)."""
    if a.junction is not None:
        return _ValueSpec(literal=None, junction=_junction(a.junction))
    return _ValueSpec(literal=encode_value(a.literal), junction=None)


def _request(c: ir.CallIR, skip: str | None = None) -> RequestTemplate:
    lits: dict[str, Any] = {}
    juncs: dict[str, JunctionSpec] = {}
    shared: dict[str, str] = {}
    lists: dict[str, list[ValueSpec]] = {}
    for a in c.args:
        if a.name == skip:
            continue
        if a.junction is not None:
            juncs[a.name] = _junction(a.junction)
        elif a.shared is not None:
            shared[a.name] = a.shared
        elif a.items is not None:
            lists[a.name] = [_value(i) for i in a.items]
        else:
            lits[a.name] = encode_value(a.literal)
    return _RequestTemplate(tool=c.tool.qualname, literals=lits, junctions=juncs, shared=shared,
                           lists=lists, pages=c.pages)


def _fields(tool: Tool) -> dict[str, Any]:
    return {f.name: type_to_json(f.type) for f in tool.record.fields}


def _call_sources(c: ir.CallIR) -> set[str]:
    return {j.source for a in c.args for j in a.junctions}


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
            shared: dict[str, ValueSpec] = {}
            for a in s.shared:
                shared[a.name] = _value(a)
                reads |= {j.source for j in a.junctions}
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
            cond = predicate_query(s.cond)
            cond_reads = answer.reads(cond)
            then, out1 = self.scope(s.then, f"{key}/then/")
            orelse, out2 = self.scope(s.orelse, f"{key}/else/")
            predicate = _PredicateSpec(query=answer.to_json(cond))
            self.steps[key] = _IfStep(id=key, relation=None, deps=[], span=span,
                                     predicate=predicate, then=then, orelse=orelse,
                                     binds=list(s.binds))
            return set(cond_reads) | out1 | out2
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
                trajectories=[compile_trajectory(t) for t in program.trajectories],
                run=program.settings)
