"""The compiler of stage `plan`: checked IR → :class:`~edgedsl.plan.Plan` models.

Expressions and predicates become SQL text with ``?`` parameters over the run's relation tables;
``drv`` nodes take their final SQL from :func:`edgedsl.reducers.reduce_sql`; steps are grouped
into topological layers per scope (top level, each ``if`` branch). See :mod:`edgedsl.plan` for
the layout of the result. Use it through :func:`edgedsl.plan.compile_program`.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Literal

from pydantic import BaseModel

from . import ir
from .catalog import Tool
from .plan import (
    PLAN_VERSION,
    CallStep,
    CompareStep,
    DrvStep,
    IfStep,
    ParallelStep,
    Plan,
    ToolSpec,
    TrajectoryPlan,
    encode_value,
)
from .reducers import reduce_sql
from .source import NO_SPAN, Span
from .sqlquote import quote_ident
from .types import FieldType, ScalarType, type_to_json

__all__ = [
    "compile_program",
    "compile_trajectory",
    "distinct_sql",
    "expr_sql",
    "expr_type",
    "pred_sql",
]

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


def expr_sql(e: ir.ExprIR, params: list[object]) -> str:
    """SQL for a scalar expression (a field reference must have one value at run time)."""
    if isinstance(e, ir.LitE):
        return _lit_sql(e.value, params)
    if isinstance(e, ir.FieldE):
        return f"({distinct_sql(e.source, e.field)})"
    if isinstance(e, ir.CountE):
        return f"(SELECT count(*) FROM {quote_ident(e.source)})"
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


def _span(span: Span) -> dict[str, Any] | None:
    """The input of :meth:`SpanInfo.of` as a dict. The plan is built as plain dicts and lists
    and validated by pydantic once (:func:`compile_program`): one call instead of one per
    nested model, with the same models, values and fields set."""
    if span.file == NO_SPAN.file and span == NO_SPAN:
        return None
    return {"file": span.file, "line": span.line, "col": span.col, "end_line": span.end_line,
            "end_col": span.end_col, "start": span.start, "end": span.end}


def _answer_field(name: str | None, e: ir.ExprIR) -> dict[str, Any]:
    params: list[object] = []
    t = expr_type(e)
    shape: Literal["values", "scalar"] = "values" if isinstance(e, ir.FieldE) else "scalar"
    if isinstance(e, ir.FieldE):
        sql = distinct_sql(e.source, e.field)
    else:
        sql = f"SELECT {expr_sql(e, params)} AS value"
    return {"name": name, "sql": sql, "params": [encode_value(p) for p in params],
            "shape": shape, "type": None if t is None else type_to_json(t), "span": _span(e.span)}


# ---------------------------------------------------------------- IR → plan


def _junction(j: ir.Junction) -> dict[str, Any]:
    return {"kind": j.kind, "source": j.source, "field": j.field, "bound": j.bound,
            "type": type_to_json(j.field_type), "span": _span(j.span)}


def _request(c: ir.CallIR, skip: str | None = None) -> dict[str, Any]:
    lits: dict[str, Any] = {}
    juncs: dict[str, dict[str, Any]] = {}
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
    return {"tool": c.tool.qualname, "literals": lits, "junctions": juncs, "shared": shared,
            "pages": c.pages}


def _fields(tool: Tool) -> dict[str, Any]:
    return {f.name: type_to_json(f.type) for f in tool.record.fields}


def _expr_sources(e: ir.ExprIR) -> set[str]:
    if isinstance(e, ir.FieldE | ir.CountE | ir.AggE):
        return {e.source}
    if isinstance(e, ir.BinE):
        return _expr_sources(e.left) | _expr_sources(e.right)
    if isinstance(e, ir.NegE | ir.RoundE):
        return _expr_sources(e.operand)
    return set()


def _pred_sources(p: ir.PredIR) -> set[str]:
    if isinstance(p, ir.CmpP):
        return _expr_sources(p.left) | _expr_sources(p.right)
    if isinstance(p, ir.ExistsP):
        return {p.source}
    if isinstance(p, ir.NotP):
        return _pred_sources(p.operand)
    return set().union(*(_pred_sources(o) for o in p.operands))


def _call_sources(c: ir.CallIR) -> set[str]:
    return {a.junction.source for a in c.args if a.junction is not None}


class _Compiler:
    def __init__(self, traj: ir.TrajectoryIR) -> None:
        self.traj = traj
        # step id → (its model, its input), in the order compiled (validated later, see _span)
        self.steps: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {}

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
        deps: dict[str, list[str]] = {}
        for key in order:
            ds: list[str] = []
            for rel in sorted(reads[key]):
                p = producer.get(rel)
                if p is None:
                    outside.add(rel)
                elif p != key and p not in ds:
                    ds.append(p)
            deps[key] = ds
            self.steps[key][1]["deps"] = ds
        level: dict[str, int] = {}
        for key in order:  # the checker guarantees source order is a topological order
            level[key] = 1 + max((level[d] for d in deps[key] if d in level), default=-1)
        layers = [[k for k in order if level[k] == n] for n in range(max(level.values(),
                                                                           default=-1) + 1)]
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
            self.steps[key] = (CallStep, {"id": key, "relation": s.id, "span": span,
                                          "request": _request(s), "fields": _fields(s.tool)})
            return _call_sources(s)
        if isinstance(s, ir.DrvIR):
            types = s.field_types or self.traj.relations.get(s.source, {})
            sql, params = reduce_sql(s.source, s.steps, types)
            self.steps[key] = (DrvStep, {
                "id": key, "relation": s.id, "span": span, "source": s.source,
                "reducers": [{"op": r.op, "field": r.field, "pivot": encode_value(r.pivot)}
                             for r in s.steps],
                "sql": sql, "params": [encode_value(p) for p in params],
                "fields": {k: type_to_json(v) for k, v in types.items()}})
            return {s.source}
        if isinstance(s, ir.CompareIR):
            self.steps[key] = (CompareStep, {
                "id": key, "relation": s.id, "span": span,
                "request": _request(s.call, skip=s.param), "param": s.param,
                "values": [encode_value(v) for v in s.values], "fields": _fields(s.call.tool)})
            return _call_sources(s.call)
        if isinstance(s, ir.ParallelIR):
            reads: set[str] = set()
            shared: dict[str, dict[str, Any]] = {}
            for a in s.shared:
                if a.junction is not None:
                    shared[a.name] = {"junction": _junction(a.junction)}
                    reads.add(a.junction.source)
                else:
                    shared[a.name] = {"literal": encode_value(a.literal)}
            branch_keys = []
            for b in s.branches:
                bkey = b.id if b.id.startswith(f"{s.id}.") else f"{s.id}.{b.id}"
                branch_keys.append(bkey)
                self.steps[bkey] = (CallStep, {"id": bkey, "relation": bkey,
                                               "span": _span(b.span), "request": _request(b),
                                               "fields": _fields(b.tool)})
                reads |= _call_sources(b)
            self.steps[key] = (ParallelStep, {"id": key, "relation": s.id, "span": span,
                                              "shared": shared, "branches": branch_keys})
            return reads
        if isinstance(s, ir.IfIR):
            pparams: list[object] = []
            psql = f"SELECT {pred_sql(s.cond, pparams)} AS value"
            then, out1 = self.scope(s.then, f"{key}/then/")
            orelse, out2 = self.scope(s.orelse, f"{key}/else/")
            self.steps[key] = (IfStep, {
                "id": key, "relation": None, "span": span,
                "predicate": {"sql": psql, "params": [encode_value(p) for p in pparams]},
                "then": then, "orelse": orelse, "binds": list(s.binds)})
            return _pred_sources(s.cond) | out1 | out2
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


def _trajectory_input(traj: ir.TrajectoryIR) -> dict[str, Any]:
    """The input of one :class:`TrajectoryPlan`, as plain dicts and lists (see _span); each
    step carries its ``kind`` for the discriminated union (see :func:`_validated`)."""
    c = _Compiler(traj)
    layers, _ = c.scope(traj.steps, "")
    answer = None
    if traj.answer is not None:
        if traj.answer.fields is not None:
            answer = {"kind": "object",
                      "fields": [_answer_field(n, e) for n, e in traj.answer.fields]}
        elif traj.answer.expr is not None:
            answer = {"kind": "expr", "fields": [_answer_field(None, traj.answer.expr)]}
    steps = {}
    for key, (model, data) in c.steps.items():
        data["kind"] = model.model_fields["kind"].default
        steps[key] = data
    return {"name": traj.name, "query": traj.query, "steps": steps, "layers": layers,
            "answer": answer, "say": traj.say, "span": _span(traj.span)}


def _validated(trajectory: TrajectoryPlan) -> TrajectoryPlan:
    """A trajectory validated in one piece: its steps' ``kind`` was given to choose their
    model, but a step model made directly does not count its default ``kind`` as set."""
    for step in trajectory.steps.values():
        step.__pydantic_fields_set__.discard("kind")
    return trajectory


def compile_trajectory(traj: ir.TrajectoryIR) -> TrajectoryPlan:
    """Compile one checked trajectory (tools are collected by :func:`compile_program`)."""
    return _validated(TrajectoryPlan.model_validate(_trajectory_input(traj)))


def compile_program(program: ir.ProgramIR) -> Plan:
    """Stage `plan`: compile every trajectory of a checked program into one :class:`Plan`.

    The whole plan is validated by pydantic in one call, from plain dicts and lists (the tool
    specs from their memoised input, see :meth:`ToolSpec.input_of`)."""
    tools: dict[str, dict[str, Any]] = {}
    for t in program.trajectories:
        for tool in _tools_of(t.steps):
            if tool.qualname not in tools:
                tools[tool.qualname] = ToolSpec.input_of(tool, program.catalog)
    plan = Plan.model_validate({
        "version": PLAN_VERSION, "source_name": program.source_name, "tools": tools,
        "trajectories": [_trajectory_input(t) for t in program.trajectories]})
    for trajectory in plan.trajectories:
        _validated(trajectory)
    return plan
