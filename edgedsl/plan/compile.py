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
from typing import Any, Literal

from pydantic import BaseModel

from ..check import ir
from ..core.catalog import Catalog, Tool
from ..core.source import NO_SPAN, Span
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
    SharedSpec,
    SpanInfo,
    ToolSpec,
    TrajectoryPlan,
    check_trusted,
    encode_value,
    trusted,
)

__all__ = [
    "compile_program",
    "compile_trajectory",
    "expr_type",
    "predicate_query",
    "value_query",
]

# ---------------------------------------------------------------- expressions → queries


def value_query(e: ir.ExprIR) -> answer.Value:
    """The typed query of an answer expression (:mod:`edgedsl.reduce.answer`)."""
    if isinstance(e, ir.LitE):
        return answer.Lit(e.value)
    if isinstance(e, ir.FieldE):
        return answer.Distinct(e.source, e.field)
    if isinstance(e, ir.CountE):
        return answer.Count(e.source)
    if isinstance(e, ir.AggE):
        return answer.Agg(e.fn, e.source, e.field)
    if isinstance(e, ir.BinE):
        return answer.Arith(e.op, value_query(e.left), value_query(e.right))
    if isinstance(e, ir.NegE):
        return answer.Neg(value_query(e.operand))
    if isinstance(e, ir.RoundE):
        return answer.Round(value_query(e.operand), int(e.digits))
    raise TypeError(f"internal error: not an expression: {e!r}")


def predicate_query(p: ir.PredIR) -> answer.Predicate:
    """The typed query of an ``if`` condition (:mod:`edgedsl.reduce.answer`)."""
    if isinstance(p, ir.CmpP):
        return answer.Cmp(p.op, value_query(p.left), value_query(p.right))
    if isinstance(p, ir.ExistsP):
        return answer.Exists(p.source)
    if isinstance(p, ir.NotP):
        return answer.Not(predicate_query(p.operand))
    if isinstance(p, ir.AndP):
        return answer.And(tuple(predicate_query(o) for o in p.operands))
    if isinstance(p, ir.OrP):
        return answer.Or(tuple(predicate_query(o) for o in p.operands))
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


_SPAN_FIELDS = frozenset(SpanInfo.model_fields)
_JUNCTION_FIELDS = frozenset(JunctionSpec.model_fields)
_REQUEST_FIELDS = frozenset(RequestTemplate.model_fields)
_ANSWER_FIELD_FIELDS = frozenset(AnswerField.model_fields)
_ANSWER_FIELDS = frozenset(AnswerPlan.model_fields)
_PREDICATE_FIELDS = frozenset(PredicateSpec.model_fields)
_TRAJECTORY_FIELDS = frozenset(TrajectoryPlan.model_fields)
_PLAN_FIELDS = frozenset(Plan.model_fields)
_TOOL_FIELDS = frozenset(ToolSpec.model_fields)
_PARAM_FIELDS = frozenset(ParamSpec.model_fields)
_PAGING_FIELDS = frozenset(PagingSpec.model_fields)
# a step's ``kind`` picks its model and is not among the fields set (it is the default)
_CALL_FIELDS = frozenset(CallStep.model_fields) - {"kind"}
_BRANCH_FIELDS = _CALL_FIELDS - {"deps"}  # a branch of a `parallel` has no deps of its own
_DRV_FIELDS = frozenset(DrvStep.model_fields) - {"kind"}
_COMPARE_FIELDS = frozenset(CompareStep.model_fields) - {"kind"}
_PARALLEL_FIELDS = frozenset(ParallelStep.model_fields) - {"kind"}
_IF_FIELDS = frozenset(IfStep.model_fields) - {"kind"}
check_trusted(SpanInfo, JunctionSpec, RequestTemplate, SharedSpec, AnswerField, AnswerPlan,
               PredicateSpec, TrajectoryPlan, Plan, ToolSpec, ParamSpec, PagingSpec, CallStep,
               DrvStep, CompareStep, ParallelStep, IfStep)


def _span(span: Span) -> SpanInfo | None:
    """:meth:`SpanInfo.of`, built as :func:`~edgedsl.plan.model.trusted` (the whole plan is: the
    planner's own output needs no validation)."""
    if span.file == NO_SPAN.file and span == NO_SPAN:
        return None
    return trusted(SpanInfo, {
        "file": span.file, "line": span.line, "col": span.col, "end_line": span.end_line,
        "end_col": span.end_col, "start": span.start, "end": span.end}, set(_SPAN_FIELDS))


def _answer_field(name: str | None, e: ir.ExprIR) -> AnswerField:
    t = expr_type(e)
    query = value_query(e)
    shape: Literal["values", "scalar"] = "values" if isinstance(e, ir.FieldE) else "scalar"
    whole = "field" if isinstance(e, ir.FieldE) else "count" if isinstance(e, ir.CountE) \
        else None
    return trusted(AnswerField, {
        "name": name, "query": answer.to_json(query), "shape": shape,
        "type": None if t is None else type_to_json(t), "span": _span(e.span),
        "reads": answer.reads(query), "whole": whole},
        set(_ANSWER_FIELD_FIELDS))


# ---------------------------------------------------------------- IR → plan


def _junction(j: ir.Junction) -> JunctionSpec:
    return trusted(JunctionSpec, {
        "kind": j.kind, "source": j.source, "field": j.field, "bound": j.bound,
        "type": type_to_json(j.field_type), "span": _span(j.span)}, set(_JUNCTION_FIELDS))


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
    return trusted(RequestTemplate, {
        "tool": c.tool.qualname, "literals": lits, "junctions": juncs, "shared": shared,
        "pages": c.pages}, set(_REQUEST_FIELDS))


def _fields(tool: Tool) -> dict[str, Any]:
    return {f.name: type_to_json(f.type) for f in tool.record.fields}


def _call_sources(c: ir.CallIR) -> set[str]:
    return {a.junction.source for a in c.args if a.junction is not None}


class _Compiler:
    def __init__(self, traj: ir.TrajectoryIR) -> None:
        self.traj = traj
        # step id → (its model, its fields in declaration order, the fields set), in the order
        # compiled; ``deps`` is filled in by :meth:`scope` (models are made at the end)
        self.steps: dict[str, tuple[type[BaseModel], dict[str, Any], frozenset[str]]] = {}

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
            ds: list[str] = []
            for rel in sorted(reads[key]):
                p = producer.get(rel)
                if p is None:
                    outside.add(rel)
                elif p != key and p not in ds:
                    ds.append(p)
            self.steps[key][1]["deps"] = ds
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
            self.steps[key] = (CallStep, {
                "id": key, "relation": s.id, "deps": [], "span": span, "kind": "call",
                "request": _request(s), "fields": _fields(s.tool)}, _CALL_FIELDS)
            return _call_sources(s)
        if isinstance(s, ir.DrvIR):
            types = s.field_types or self.traj.relations.get(s.source, {})
            query = build_query(s.source, s.steps, types)
            self.steps[key] = (DrvStep, {
                "id": key, "relation": s.id, "deps": [], "span": span, "kind": "drv",
                "source": s.source,
                "reducers": [{"op": r.op, "field": r.field, "pivot": encode_value(r.pivot)}
                             for r in s.steps],
                "query": query.to_json(),
                "fields": {k: type_to_json(v) for k, v in types.items()}}, _DRV_FIELDS)
            return {s.source}
        if isinstance(s, ir.CompareIR):
            self.steps[key] = (CompareStep, {
                "id": key, "relation": s.id, "deps": [], "span": span, "kind": "compare",
                "request": _request(s.call, skip=s.param), "param": s.param,
                "values": [encode_value(v) for v in s.values], "fields": _fields(s.call.tool)},
                _COMPARE_FIELDS)
            return _call_sources(s.call)
        if isinstance(s, ir.ParallelIR):
            reads: set[str] = set()
            shared: dict[str, SharedSpec] = {}
            for a in s.shared:
                if a.junction is not None:
                    shared[a.name] = trusted(SharedSpec, {
                        "literal": None, "junction": _junction(a.junction)}, {"junction"})
                    reads.add(a.junction.source)
                else:
                    shared[a.name] = trusted(SharedSpec, {
                        "literal": encode_value(a.literal), "junction": None}, {"literal"})
            branch_keys = []
            for b in s.branches:
                bkey = b.id if b.id.startswith(f"{s.id}.") else f"{s.id}.{b.id}"
                branch_keys.append(bkey)
                self.steps[bkey] = (CallStep, {
                    "id": bkey, "relation": bkey, "deps": [], "span": _span(b.span),
                    "kind": "call", "request": _request(b), "fields": _fields(b.tool)},
                    _BRANCH_FIELDS)
                reads |= _call_sources(b)
            self.steps[key] = (ParallelStep, {
                "id": key, "relation": s.id, "deps": [], "span": span, "kind": "parallel",
                "shared": shared, "branches": branch_keys}, _PARALLEL_FIELDS)
            return reads
        if isinstance(s, ir.IfIR):
            cond = predicate_query(s.cond)
            cond_reads = answer.reads(cond)
            then, out1 = self.scope(s.then, f"{key}/then/")
            orelse, out2 = self.scope(s.orelse, f"{key}/else/")
            predicate = trusted(PredicateSpec, {
                "query": answer.to_json(cond), "reads": cond_reads}, set(_PREDICATE_FIELDS))
            self.steps[key] = (IfStep, {
                "id": key, "relation": None, "deps": [], "span": span, "kind": "if",
                "predicate": predicate, "then": then, "orelse": orelse, "binds": list(s.binds)},
                _IF_FIELDS)
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
            answer = trusted(AnswerPlan, {
                "kind": "object", "fields": [_answer_field(n, e) for n, e in traj.answer.fields]},
                set(_ANSWER_FIELDS))
        elif traj.answer.expr is not None:
            answer = trusted(AnswerPlan, {
                "kind": "expr", "fields": [_answer_field(None, traj.answer.expr)]},
                set(_ANSWER_FIELDS))
    steps = {key: trusted(model, data, set(fields_set))
             for key, (model, data, fields_set) in c.steps.items()}
    return trusted(TrajectoryPlan, {
        "name": traj.name, "query": traj.query, "steps": steps, "layers": layers,
        "answer": answer, "say": traj.say, "span": _span(traj.span)}, set(_TRAJECTORY_FIELDS))


def _tool_spec(tool: Tool, catalog: Catalog) -> ToolSpec:
    """:meth:`ToolSpec.of` from its memoised input, with fresh containers (as validated)."""
    data = ToolSpec.input_of(tool, catalog)
    values = dict(data)
    values["params"] = [trusted(ParamSpec, dict(p), set(_PARAM_FIELDS)) for p in data["params"]]
    values["fields"] = dict(data["fields"])
    paging = data["paging"]
    if paging is not None:
        values["paging"] = trusted(PagingSpec, dict(paging), set(_PAGING_FIELDS))
    return trusted(ToolSpec, values, set(_TOOL_FIELDS))


def compile_program(program: ir.ProgramIR) -> Plan:
    """Stage `plan`: compile every trajectory of a checked program into one :class:`Plan`.

    The models are made without validating them again (:func:`~edgedsl.plan.model.trusted`): the
    planner's output is valid by construction, and a plan read from JSON is validated."""
    tools: dict[str, ToolSpec] = {}
    for t in program.trajectories:
        for tool in _tools_of(t.steps):
            qualname = tool.qualname
            if qualname not in tools:
                tools[qualname] = _tool_spec(tool, program.catalog)
    return trusted(Plan, {
        "version": PLAN_VERSION, "source_name": program.source_name, "tools": tools,
        "trajectories": [compile_trajectory(t) for t in program.trajectories]},
        set(_PLAN_FIELDS))
