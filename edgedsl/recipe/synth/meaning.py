"""Rules for meaningful programs (issue 18 §2): facts of one run that a person would not trust.

Every fact is computed from the program's AST (structure as data) and its run: the trace (records
per step, the totals the service reported per call) and the records of the relations the run
kept (:func:`keep_for_facts`). A ``drv`` is re-evaluated on its source's records with the
reducers' pure-Python reference (``REDUCERS[op].on_column``, the semantics the DuckDB SQL is
tested against); nothing is read back from generated text.

:class:`ProgramFacts` holds, by step or binding name:

* ``noop_drv`` — a ``drv`` that does not narrow: it keeps every row of its source, or every
  field read from it (by a junction, the answer or a predicate) has the same distinct values
  before and after it (one value in, the same value out) and nothing counts its rows;
* ``tie_drv`` — a ``drv`` whose ``most_frequent`` step chose among values tied for the top
  count (the outcome is the tie-break policy's, not the data's);
* ``distinct_mf`` — a ``most_frequent`` over a field whose values are all distinct (every value
  appears once: the purest tie);
* ``decorative_if`` — an ``if`` (``if1``, ``if2``, … in source order) whose two branches hand
  on the same values (the fields read downstream of the names both branches bind, evaluated
  on the same records);
* ``page_if`` — an ``if`` comparing the count of a relation read partially (fewer records than
  the service reported: a page limit decides the branch);
* ``page_answer`` — an answer field ``count(x)`` over a call read partially (the answer is a page
  size, not the service's total);
* ``round_trip`` — a call whose every hand-off gives it exactly the values an earlier call of
  its lineage was handed (the trace's junction values, compared as text; a new value beside an
  old one — a school's code with its office's — is no round trip), while the calls between —
  or that earlier call, when it fed this one directly — give the answer nothing: the chain
  carried an identifier away and back (``corp_outline(crno: …)`` → its 고유번호 →
  ``dart.company`` → its 법인등록번호 → ``listed_items(crno: …)``, the same 법인등록번호), so
  the calls between only relay it; and an answer field (``answer.name``) whose value is
  exactly what a junction of its lineage was handed — the chain came back to a value it had
  before it set out (용산구's 자치구코드 handed on at the second call and asked for as "시군구
  코드" after five more);
* ``partial_reads`` — every call step that stopped short of its whole result (the trace's
  ``complete`` fact).

:func:`meaning_rejections` turns the facts into the synthesis rejection reasons (the first seven
are reasons of the same name). :func:`body_key` is the key of the ``duplicate`` rule: the hash
of the trajectory formatted by the printer without its name, query and comments.

The ``undetermined`` rule is not here: it reads the run's own determinacy
(:attr:`edgedsl.runtime.result.RunResult.determined`, :mod:`edgedsl.runtime.determinacy`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...core.types import FieldType, type_from_json
from ...plan.model import DrvStep, Plan
from ...reduce.registry import REDUCERS, coerced_column
from ...runtime.result import RunResult
from ...runtime.trace import StepTrace
from ...syntax import nodes as n
from ...syntax.printer import format_module
from .junction import mf_tie
from .plausible import judge, plan_view
from .record import ProgramFacts
from .rejections import Rejection

__all__ = ["MEANING_RULES", "ProgramFacts", "body_key", "keep_for_facts", "meaning_rejections",
           "mf_tie", "partial_read", "program_facts"]

MEANING_RULES: tuple[Rejection, ...] = ("noop_drv", "tie_drv", "distinct_mf", "decorative_if",
                                  "page_if", "page_answer", "round_trip")
"""The rules of :class:`ProgramFacts` that reject, in the order they are reported."""


# ----------------------------------------------------------------------------- reading the run


def partial_read(st: StepTrace) -> bool:
    """True when a call step stopped short of its whole result: the run's own fact
    (``StepTrace.complete``, :func:`edgedsl.runtime.calls.read_fact` — a reported total not
    reached, or a full last page at the page limit)."""
    return st.complete is False


def _stmts(body: Sequence[n.Stmt]) -> Iterator[n.Stmt]:
    for s in body:
        yield s
        if isinstance(s, n.IfStmt):
            yield from _stmts(s.then)
            yield from _stmts(s.orelse or ())


def _call_of(node: n.NodeExpr) -> n.Call | None:
    return node if isinstance(node, n.Call) else node.call if isinstance(node, n.Compare) \
        else None


def keep_for_facts(plan: Plan, name: str) -> set[str]:
    """The relations :func:`program_facts` needs kept (``keep=`` of a run of trajectory
    ``name``): the source of every ``drv``."""
    return {s.source for s in plan.trajectory(name).steps.values() if isinstance(s, DrvStep)}


def _reads(body: Sequence[n.Stmt]) -> tuple[dict[str, set[str]], set[str]]:
    """Fields read, by binding (``x.f`` → ``{x: {f}}``: junctions, answers, predicates), and
    the bindings read as a whole (``count(x)``, ``exists x``: every row matters)."""
    fields: dict[str, set[str]] = {}
    whole: set[str] = set()

    def arg(v: n.ArgValue) -> None:
        if isinstance(v, n.SeqArg | n.FanArg):
            fields.setdefault(".".join(v.ref.parts[:-1]), set()).add(v.ref.parts[-1])

    def expr(e: Any) -> None:
        if isinstance(e, n.Ref):
            fields.setdefault(".".join(e.parts[:-1]), set()).add(e.parts[-1])
        elif isinstance(e, n.NameExpr | n.PredExists):
            whole.add(e.name)
        elif isinstance(e, n.FuncCall):
            for a in e.args:
                expr(a)
        elif isinstance(e, n.BinOp | n.PredCmp):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, n.Neg | n.PredNot):
            expr(e.operand)
        elif isinstance(e, n.PredAnd | n.PredOr):
            for q in e.operands:
                expr(q)

    for s in _stmts(body):
        if isinstance(s, n.Binding):
            call = _call_of(s.node)
            for a in call.args if call is not None else ():
                arg(a.value)
            if isinstance(s.node, n.Parallel):
                for a in s.node.shared:
                    arg(a.value)
        elif isinstance(s, n.IfStmt):
            expr(s.cond)
        elif isinstance(s, n.AnswerStmt):
            expr(s.expr)
            for f in s.fields or ():
                expr(f.expr)
    return fields, whole


class _Eval:
    """Relations of one run as records with their tool's field types; ``drv`` re-evaluated."""

    def __init__(self, traj: n.Trajectory, plan: Plan, result: RunResult) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = dict(result.relations)
        self.types: dict[str, dict[str, FieldType]] = {}
        for s in _stmts(traj.body):
            if not isinstance(s, n.Binding):
                continue
            calls = [(s.name, _call_of(s.node))] if _call_of(s.node) is not None else []
            if isinstance(s.node, n.Parallel):
                calls = [(f"{s.name}.{b.name}", b.call) for b in s.node.branches]
            for rel, call in calls:
                spec = plan.tools.get(call.qualname) if call is not None else None
                if spec is not None:
                    self.types[rel] = {k: type_from_json(v) for k, v in spec.fields.items()}
            if isinstance(s.node, n.Drv) and ".".join(s.node.source) in self.types:
                self.types[s.name] = self.types[".".join(s.node.source)]

    def drv(self, node: n.Drv) -> tuple[list[int], dict[str, FieldType], list[dict[str, Any]],
                                        list[tuple[int, str]]] | None:
        """The rows of the source ``node`` keeps, the field types, the source rows, and the
        ``most_frequent`` steps that chose among ties (step index, ``tie``/``distinct``); None
        when the source was not kept."""
        src = ".".join(node.source)
        rows, types = self.rows.get(src), self.types.get(src)
        if rows is None or types is None:
            return None
        idx = list(range(len(rows)))
        ties: list[tuple[int, str]] = []
        for k, step in enumerate(node.steps):
            ftype = types.get(step.field)
            if ftype is None or step.op not in REDUCERS:
                return None
            col = coerced_column([rows[i] for i in idx], step.field, ftype)
            if step.op == "most_frequent":
                why = mf_tie(col)
                if why is not None:
                    ties.append((k, why))
            pivot = _pivot(step.pivot)
            keep = REDUCERS[step.op].on_column(col, pivot, ftype)
            idx = [idx[i] for i in keep]
        return idx, types, rows, ties


def _pivot(lit: n.Literal_ | None) -> object:
    if lit is None or isinstance(lit, n.ListLit | n.DictLit):
        return None
    return lit.value


def _distinct(rows: Sequence[Mapping[str, Any]], idx: Sequence[int], field: str,
              ftype: FieldType) -> set[str]:
    col = coerced_column([rows[i] for i in idx], field, ftype)
    return {repr(v) for v in col if v is not None}


def _count_of(e: Any) -> str | None:
    """``x`` when ``e`` is ``count(x)``."""
    if isinstance(e, n.FuncCall) and e.name == "count" and len(e.args) == 1 \
            and isinstance(e.args[0], n.NameExpr):
        return e.args[0].name
    return None


def _counted(p: Any, out: list[str]) -> None:
    if isinstance(p, n.PredCmp):
        for side in (p.left, p.right):
            x = _count_of(side)
            if x is not None:
                out.append(x)
    elif isinstance(p, n.PredNot):
        _counted(p.operand, out)
    elif isinstance(p, n.PredAnd | n.PredOr):
        for q in p.operands:
            _counted(q, out)


def program_facts(traj: n.Trajectory, plan: Plan, result: RunResult) -> ProgramFacts:
    """The facts of one run of ``traj`` (module doc). The run should keep the relations of
    :func:`keep_for_facts`; a ``drv`` whose source was not kept is not judged."""
    facts = ProgramFacts()
    steps = list(result.trace.steps) if result.trace is not None else []
    partial = {st.relation or st.id for st in steps
               if st.tool is not None and st.calls and partial_read(st)}
    facts.partial_reads = sorted(partial)
    ev = _Eval(traj, plan, result)
    fields, whole = _reads(traj.body)
    seen: set[str] = set()
    ifs = 0
    for s in _stmts(traj.body):
        if isinstance(s, n.Binding) and isinstance(s.node, n.Drv):
            got = ev.drv(s.node)
            if got is None:
                continue
            kept, types, rows, ties = got
            for _, why in ties:
                bucket = facts.distinct_mf if why == "distinct" else facts.tie_drv
                if s.name not in bucket:
                    bucket.append(s.name)
            read = fields.get(s.name, set())
            if s.name not in seen and (read or s.name in whole) and (
                    len(kept) == len(rows) or (s.name not in whole and all(
                        f in types and _distinct(rows, kept, f, types[f])
                        == _distinct(rows, range(len(rows)), f, types[f]) for f in read))):
                facts.noop_drv.append(s.name)
            seen.add(s.name)
        elif isinstance(s, n.IfStmt):
            ifs += 1
            where = f"if{ifs}"
            if _same_handoff(s, ev, fields, whole):
                facts.decorative_if.append(where)
            counted: list[str] = []
            _counted(s.cond, counted)
            if any(x in partial for x in counted):
                facts.page_if.append(where)
        elif isinstance(s, n.AnswerStmt):
            for f in s.fields or ():
                x = _count_of(f.expr)
                if x is not None and x in partial:
                    facts.page_answer.append(f.name)
            x = _count_of(s.expr)
            if x is not None and x in partial:
                facts.page_answer.append("answer")
    handed, sources = _handed(steps), _sources(traj.body)
    facts.round_trip = (_round_trips(traj.body, handed, sources)
                        + _answer_trips(traj.body, handed, sources, result.answer))
    counts = {st.relation or st.id: st.records for st in steps if st.records is not None}
    found, wants = judge(traj.body, plan_view(plan), counts)
    facts.implausible, facts.answer_wants = list(found), wants
    return facts


def _sources(body: Sequence[n.Stmt]) -> dict[str, set[str]]:
    """Each relation → the relations it reads directly (its junctions' sources, a ``drv``'s
    source; a ``parallel`` branch ``g.b`` its own and the group's shared ones)."""
    out: dict[str, set[str]] = {}

    def refs(args: Sequence[n.Arg]) -> set[str]:
        return {".".join(a.value.ref.parts[:-1]) for a in args
                if isinstance(a.value, n.SeqArg | n.FanArg)}

    for s in _stmts(body):
        if not isinstance(s, n.Binding):
            continue
        node, call = s.node, _call_of(s.node)
        if call is not None:
            out[s.name] = refs(call.args)
        elif isinstance(node, n.Drv):
            out[s.name] = {".".join(node.source)}
        elif isinstance(node, n.Parallel):
            shared = refs(node.shared)
            for b in node.branches:
                out[f"{s.name}.{b.name}"] = refs(b.call.args) | shared
    return out


def _ancestors(rel: str, sources: Mapping[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(sources.get(rel, ()))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(sources.get(x, ()))
    return seen


def _handed(steps: Sequence[StepTrace]) -> dict[str, set[frozenset[str]]]:
    """Relation → the value sets its junctions were handed (as text; every value recorded,
    none capped)."""
    handed: dict[str, set[frozenset[str]]] = {}
    for st in steps:
        for j in st.junctions:
            if j.values and len(j.values) == j.cardinality:
                handed.setdefault(st.relation or st.id, set()).add(
                    frozenset(str(v).strip() for v in j.values))
    return handed


def _round_trips(body: Sequence[n.Stmt], handed: Mapping[str, set[frozenset[str]]],
                 sources: Mapping[str, set[str]]) -> list[str]:
    """The ``round_trip`` relations (module doc): handed by every junction values an ancestor
    was handed (:func:`_handed`), through relays the answer does not read."""
    answer = next((s for s in body if isinstance(s, n.AnswerStmt)), None)
    fields, whole = _reads([answer]) if answer is not None else ({}, set())
    read = set(fields) | whole
    out = []
    for rel, sets in handed.items():
        up = _ancestors(rel, sources)
        for a in sorted(up):
            if a not in handed or not sets <= handed[a]:
                continue  # a new value beside the old one (a school's code with its office)
            relays = up - _ancestors(a, sources) - {a} or {a}
            if not relays & read:
                out.append(rel)
                break
    return sorted(out)


def _answer_trips(body: Sequence[n.Stmt], handed: Mapping[str, set[frozenset[str]]],
                  sources: Mapping[str, set[str]], answer: Any) -> list[str]:
    """The answer fields (``answer.name``) whose value is exactly what a junction of their own
    lineage was handed: the chain came back to a value it had before it set out (seed 1 of
    session 36: 용산구's 자치구코드 11170 handed to the rent records, and five calls later
    "시군구 코드를 찾으려고 해요" answers 11170)."""
    stmt = next((s for s in body if isinstance(s, n.AnswerStmt)), None)
    if stmt is None or stmt.fields is None or not isinstance(answer, dict):
        return []
    out = []
    for f in stmt.fields:
        if not isinstance(f.expr, n.Ref) or f.name not in answer:
            continue
        value = answer[f.name]
        got = frozenset(str(v).strip() for v in (value if isinstance(value, list) else [value])
                        if v is not None)
        rel = ".".join(f.expr.parts[:-1])
        lineage = _ancestors(rel, sources) | {rel}
        if got and any(got in handed.get(a, ()) for a in lineage):
            out.append(f"answer.{f.name}")
    return out


def _same_handoff(s: n.IfStmt, ev: _Eval, fields: Mapping[str, set[str]],
                  whole: set[str]) -> bool:
    """True when every name both branches bind with a ``drv`` hands on the same values of every
    field read downstream, and the same rows when it is counted (and there is one such name
    at least)."""
    def drvs(body: Sequence[n.Stmt] | None) -> dict[str, n.Drv]:
        return {b.name: b.node for b in body or () if isinstance(b, n.Binding)
                and isinstance(b.node, n.Drv)}

    then, other = drvs(s.then), drvs(s.orelse)
    both = [x for x in then if x in other and (fields.get(x) or x in whole)]
    if not both:
        return False
    for x in both:
        a, b = ev.drv(then[x]), ev.drv(other[x])
        if a is None or b is None or a[2] is not b[2]:
            return False
        if x in whole and a[0] != b[0]:  # counted: the rows kept must be the same
            return False
        for f in fields.get(x, ()):
            ftype = a[1].get(f)
            if ftype is None or _distinct(a[2], a[0], f, ftype) != _distinct(b[2], b[0], f,
                                                                               ftype):
                return False
    return True


def meaning_rejections(facts: ProgramFacts) -> list[Rejection]:
    """The rules of :data:`MEANING_RULES` whose facts are not empty."""
    return [r for r in MEANING_RULES if getattr(facts, r)]


def body_key(traj: n.Trajectory) -> str:
    """The ``duplicate`` rule's key: sha256 of ``traj`` formatted by the printer with a fixed
    name, no query and no comments — two programs with the same body have the same key."""
    bare = n.Trajectory(name="t", query="", body=traj.body)
    return hashlib.sha256(format_module(n.Module(items=(bare,))).encode("utf-8")).hexdigest()
