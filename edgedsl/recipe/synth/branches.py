"""The branching structures: Semantic-parallel (:func:`sem`, a ``parallel`` group of out-edges
reading the same values), Comparison (:func:`cmp`, one tool over several values of a parameter,
the winner kept by a ``drv``) and Conditional (:func:`cond`, an ``if`` over a relation's count).
See :mod:`.structures` for what each builds."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...core.types import CodeType, FieldSpec, FieldType, ListType, is_date, is_numeric
from ...reduce.registry import REDUCERS
from ...syntax import nodes as n
from ..graph.model import GraphEdge
from .chains import (
    KINDS,
    Built,
    Fit,
    answer_name,
    answer_of,
    field_label,
    field_specs,
    grow,
    single_fields,
    start,
)
from .engine import Draft, Engine, decorative, literal_texts, reducer_node, value_literal
from .entities import entity_of
from .junction import Columns, JunctionPlan, ReduceChoice, distinct, narrowings
from .knowable import statement_texts
from .literals import of_title, tool_title
from .plausible import implausible, internal_code, related_targets
from .wanted import column_ops

__all__ = [
    "can_group",
    "cmp",
    "compare_head",
    "cond",
    "conditional",
    "fresh_label",
    "groups",
    "parallel_tail",
    "sem",
]


def _sem_edges(eng: Engine, draft: Draft, rng: random.Random, width: int) -> list[GraphEdge]:
    """Up to ``width`` ranked out-edges to distinct tools whose bound fields the draft has and
    that share their primary field: of the fields read by at least two such edges and related
    (:func:`~.plausible.related_targets`: one platform, or an entity handed to one of them),
    the one whose best edge ranks first."""
    types = eng.types(draft.last_tool)
    groups: dict[str, list[GraphEdge]] = {}
    for e in eng.ranked(draft, rng):
        if all(b.field in types for b in e.bindings):
            group = groups.setdefault(e.bindings[0].field, [])
            if e.target not in {x.target for x in group} and len(group) < width:
                group.append(e)
    return next((g for g in groups.values() if len(g) >= 2 and related_targets(
        [eng.decls[e.target].platform for e in g],
        next((c for c in map(eng.handoff_code, g) if entity_of(c)), None))), [])


def can_group(eng: Engine, draft: Draft) -> bool:
    """True when a ``parallel`` group could follow ``draft``: two related out-edges read the
    same field (:func:`_sem_edges`) and handing it on would not make the draft's last call
    decorative (nothing is run; the draws come from a fixed generator)."""
    from .junction import type_junction

    probe = random.Random(0)
    edges = _sem_edges(eng, draft, probe, 2)
    if len(edges) < 2:
        return False
    fields = list(dict.fromkeys(b.field for e in edges for b in e.bindings))
    jp = type_junction(eng.columns(draft), fields, eng.types(draft.last_tool), phi=eng.phi,
                       rng=probe, single=True, width=eng.width)
    return jp is not None and not decorative(draft, jp)


def groups(kinds: frozenset[str] | None = None) -> Fit:
    """The :data:`~.chains.Fit` of a Semantic-parallel draft: a group can follow the root, or
    one of the drafts one edge (of ``kinds``) on (:meth:`Engine.successors`). An NEC
    candidate list can go on only to one candidate's pledges, from which no group follows:
    drawn as the root of a group, it ended the attempt; now another root of the platform is
    drawn (its list of elections, whose code lists make a group)."""
    async def fit(eng: Engine, d: Draft) -> bool:
        async def judge() -> bool:
            return can_group(eng, d) or any(
                can_group(eng, g) for g in await eng.successors(d, kinds=kinds))
        return await eng.fits("groups", d, kinds, judge)
    return fit


async def parallel_tail(eng: Engine, draft: Draft, rng: random.Random, *,
                        pure: bool = False, after: int = 0,
                        literal: bool = True) -> Built | None:
    """``draft`` ended by a ``parallel`` group over 2 … 3 of its out-edges (see the module doc),
    then, with ``after`` > 0, a chain of up to ``after`` edges from one of its branches when
    one works (only ``seq`` junctions with ``pure``).

    The shared values come from the draft's last relation through ``seq`` junctions (narrowed
    to one value each by a ``drv`` when needed). With ``pure``, a relation that would need the
    ``drv`` instead gives the group *literal* shared values, taken from one of its records, and
    the group alone makes the program (the shared argument of a Semantic-parallel task) —
    unless not ``literal``: then None."""
    kinds = KINDS["Seq"] if pure else None
    edges = _sem_edges(eng, draft, rng, min(max(2, eng.width), rng.choice((2, 2, 2, 3))))
    if len(edges) < 2:
        return None
    fields = list(dict.fromkeys(b.field for e in edges for b in e.bindings))
    types = eng.types(draft.last_tool)
    from .junction import type_junction

    jp = type_junction(eng.columns(draft), fields, types, phi=eng.phi, rng=rng, single=True,
                       width=eng.width)
    if jp is None or decorative(draft, jp):
        return None
    if pure and jp.steps:
        if not literal:
            return None
        return await _literal_group(eng, draft, edges, fields, rng, after=after, kinds=kinds)
    stmts: list[n.Stmt] = []
    source = draft.last
    d = draft
    if jp.steps:
        source = d.fresh(f"{draft.last}_one")
        stmts.append(n.Binding(name=source, node=n.Drv(
            source=(draft.last,), steps=tuple(reducer_node(s) for s in jp.steps))))
        d = d.with_([], names=[source])
    header = {f: n.SeqArg(ref=n.Ref(parts=(source, f))) for f in fields}
    return await _group(eng, d, draft, stmts, edges, header, jp, rng, after=after, kinds=kinds)


async def _literal_group(eng: Engine, draft: Draft, edges: Sequence[GraphEdge],
                         fields: Sequence[str], rng: random.Random, *, after: int = 0,
                         kinds: frozenset[str] | None = None) -> Built | None:
    """A pure Sem group whose shared values are literals taken from one record of ``draft``'s
    last relation (the group starts the program). Up to :attr:`Engine.tries` records are
    drawn, one after the other, until every branch returns records: the values of one record
    need not work for every branch (an election's id and type give the code lists of any
    election, but candidates only for the few elections the service holds candidates of)."""
    cols = eng.columns(draft)
    rows = [i for i in range(len(cols)) if all(cols.col(f)[i] is not None for f in fields)
            and not any(_internal(eng, edges, f, cols.col(f)[i]) for f in fields)]
    base = Draft(body=(), last="", last_tool=draft.last_tool, rows=(), tools=())
    for row in rng.sample(rows, min(len(rows), max(1, eng.tries))):
        header: dict[str, n.ArgValue] = {
            f: value_literal(cols.col(f)[row]) for f in fields}
        jp = JunctionPlan("seq", "seq", (), 1, 1, (cols.col(fields[0])[row],),
                          frozenset(str(cols.col(f)[row]) for f in fields))
        got = await _group(eng, base, base, [], edges, header, jp, rng, edges_used=(),
                           after=after, kinds=kinds)
        if got is not None:
            return got
    return None


def _param_code(eng: Engine, tool: str, param: str) -> str | None:
    """The code type (qualified name) of parameter ``param`` of ``tool``, or None."""
    p = next((p for p in eng.decls[tool].params if p.name == param), None)
    return p.type.name if p is not None and isinstance(p.type, CodeType) else None


def _internal(eng: Engine, edges: Sequence[GraphEdge], field: str, value: object) -> bool:
    """True when ``value`` of upstream ``field``, written as a literal for the parameters the
    ``edges`` bind it to, would be an internal code the query shows raw
    (:func:`~.plausible.internal_code`: a query input the user could not know)."""
    return any(internal_code(_param_code(eng, e.target, b.param), b.param, _scalar(value))
               for e in edges for b in e.bindings if b.field == field)


async def _group(eng: Engine, d: Draft, draft: Draft, stmts: list[n.Stmt],
                 edges: Sequence[GraphEdge], header_values: Mapping[str, n.ArgValue],
                 jp: JunctionPlan, rng: random.Random,
                 edges_used: Sequence[GraphEdge] | None = None, *, after: int = 0,
                 kinds: frozenset[str] | None = None) -> Built | None:
    """The group over ``edges`` with shared values ``header_values`` (by upstream field) after
    ``draft`` and ``stmts``, run; its answer reads one wanted field (or the count) per branch,
    a label another branch answers already only when nothing else is left
    (:func:`fresh_label`). With
    ``after`` > 0 a chain of up to that many edges (junctions of ``kinds``) continues from
    one branch when it can (:func:`_after_group`)."""
    shared: dict[str, str] = {}
    for f in header_values:
        shared[f] = d.fresh(f)
        d = d.with_([], names=[shared[f]])
    branches = []
    for e in edges:
        try:
            lits = eng.literal_args(e.target, eng.args.edge_args(e, rng))
        except (KeyError, ValueError):
            return None
        bname = d.fresh(e.target.partition(".")[2])
        d = d.with_([], names=[bname])
        args = [n.Arg(name=b.param, value=n.SharedArg(name=shared[b.field]))
                for b in e.bindings]
        branches.append(n.Branch(name=bname, call=eng.call(e.target, [*args, *lits])))
    group = d.fresh("both" if len(branches) == 2 else "all")
    header = tuple(n.Arg(name=shared[f], value=v) for f, v in header_values.items())
    stmts = [*stmts, n.Binding(name=group, node=n.Parallel(shared=header,
                                                           branches=tuple(branches)))]
    body = (*draft.body, *stmts)
    ex = await eng.execute(body, eng.count_answer(f"{group}.{branches[0].name}"))
    if ex is None or not ex.result.ok:
        return None
    taken: set[str] = set()
    said = statement_texts(body)  # what the query states: an answer must not repeat it
    asked: set[str] = set()  # the labels the branches answer
    fields_out: list[n.AnswerField] = []
    ran: list[list[dict[str, Any]]] = []
    for b, e in zip(branches, edges, strict=True):
        rows = ex.records_of(eng.memo, f"{group}.{b.name}")
        if not rows:
            return None
        ran.append(rows)
        others = frozenset(f for x in edges if x is not e for f in eng.types(x.target))
        specs = field_specs(eng, e.target)
        cols = Columns(rows, eng.types(e.target))
        echoed = others | frozenset(eng.types(draft.last_tool))
        # never what the records the group was handed from had answered (juso's 건물명 in
        # the coordinate service's records; see chains.answer_of)
        skip = cols.echoes(eng.columns(draft))
        one = fresh_label(single_fields(cols, 3, jp.handed | said, echoed, specs,
                                        wanted_only=True, skip=skip), specs, asked)
        if not one and len(rows) == 1:  # a code or a category, when it is all there is
            one = single_fields(cols, 1, jp.handed | said, echoed, specs, skip=skip)
        asked |= {field_label(specs, f) for f in one}
        title = tool_title(eng.decls[e.target].doc, b.name)
        if one:
            expr: n.Expr = n.Ref(parts=(group, b.name, one[0]))
            fields_out.append(n.AnswerField(
                name=answer_name(of_title(title, field_label(specs, one[0]), " "), taken),
                expr=expr))
        else:
            fields_out.append(n.AnswerField(name=answer_name(f"{title} 건수", taken),
                                            expr=n.FuncCall(name="count", args=(
                                                n.NameExpr(name=f"{group}.{b.name}"),))))
    used = tuple(edges) if edges_used is None else tuple(edges_used)
    final = d.with_(stmts, names=[group], junctions=(*draft.junctions, jp),
                    tools=(*draft.tools, *(e.target for e in edges)),
                    edges=(*draft.edges, *used))
    built = Built(final.body, n.AnswerStmt(fields=tuple(fields_out)), final.edges, final, "sem")
    if after > 0:
        arms = [(b, e, rows, f) for b, e, rows, f in zip(branches, edges, ran, fields_out,
                                                          strict=True)]
        return await _after_group(eng, final, group, arms, jp, after, rng, kinds) or built
    return built


def fresh_label(ranked: Sequence[str], specs: Mapping[str, FieldSpec],
                asked: set[str]) -> list[str]:
    """The first of ``ranked`` whose catalog label no other branch answers (``asked``), else
    the first: two member services both answering 의원 이름 ask one fact twice."""
    return [f for f in ranked if field_label(specs, f) not in asked][:1] or list(ranked[:1])


async def _after_group(eng: Engine, final: Draft, group: str,
                       arms: Sequence[tuple[n.Branch, GraphEdge, list[dict[str, Any]],
                                            n.AnswerField]],
                       jp: JunctionPlan, after: int, rng: random.Random,
                       kinds: frozenset[str] | None) -> Built | None:
    """The group of ``final`` continued by a chain of up to ``after`` edges from one of its
    branches (``group.branch`` is the relation the first junction reads; two branches are
    tried, in a random order); the answer reads the other branches as the group's answer did
    and the chain's last relation as a chain's does. None when no edge works, or when every
    continuation is one an analyst would not run (:func:`~.plausible.implausible`: the group
    alone is then the task, where the whole attempt used to be rejected)."""
    order = list(range(len(arms)))
    rng.shuffle(order)
    for k in order[:2]:
        b, e, rows, _ = arms[k]
        lits = [a for a in b.call.args if not isinstance(a.value, n.SharedArg)]
        start_ = replace(final, last=f"{group}.{b.name}", last_tool=e.target, rows=tuple(rows),
                         tools=(*(t for t in final.tools if t != e.target), e.target),
                         received=jp.handed | literal_texts(lits))
        grown = await grow(eng, start_, after, rng, kinds=kinds)
        if len(grown.edges) == len(start_.edges):
            continue
        others = [f for j, (_, _, _, f) in enumerate(arms) if j != k]
        tail = answer_of(eng, grown, rng, taken={f.name for f in others})
        got = Built(grown.body, n.AnswerStmt(fields=(*others, *(tail.fields or ()))),
                    grown.edges, grown, "sem+chain")
        if not implausible((*got.body, got.answer), eng.view):
            return got  # a continuation an analyst would not run: the group alone stands
    return None


async def sem(eng: Engine, rng: random.Random, length: int,
              target: str | None = None) -> Built | None:
    """A chain prefix of ``length - 1`` edges (possibly none) ending in a parallel group, then
    a chain of :meth:`~edgedsl.recipe.synth.engine.Engine.tail_edges` edges from one of its branches
    when one works; aimed at Sem, only ``seq`` junctions."""
    pure = target == "Sem"
    root = await start(eng, rng, fit=groups(KINDS["Seq"] if pure else None))
    if root is None:
        return None
    drafts = [root]  # the prefix, one draft per edge
    for _ in range(max(0, length - 1)):
        nxt = await eng.extend(drafts[-1], rng, prefer="seq",
                               kinds=KINDS["Seq"] if pure else None)
        if nxt is None:
            break
        drafts.append(nxt)
    d = drafts[-1]
    after = eng.tail_edges(rng)
    if pure:
        got = await _shared_prefix_group(eng, drafts, rng, after=after)
        if got is not None:
            return got
    got = await parallel_tail(eng, d, rng, pure=pure, after=after)
    if got is None and d is not root:  # no group after the prefix: one right after the root
        got = await parallel_tail(eng, root, rng, pure=pure, after=after)
    return got


async def _shared_prefix_group(eng: Engine, drafts: Sequence[Draft], rng: random.Random, *,
                               after: int = 0) -> Built | None:
    """A pure Sem group after the longest of ``drafts`` (a prefix, one draft per edge, the
    root first) whose values the group's header can share as they are — the root alone too:
    its call stays in the program, a sequential call, where a literal group would drop it.
    None when every one would need a narrowing (the caller then takes literal values)."""
    for p in reversed(drafts):
        got = await parallel_tail(eng, p, rng, pure=True, after=after, literal=False)
        if got is not None:
            return got
    return None


def _comparable(eng: Engine, tool: str) -> list[str]:
    """Numeric and date fields of ``tool``'s records that a question compares by (an amount,
    a size, a score, a date that is not record-keeping: ``max`` allowed by
    :func:`~.wanted.column_ops`) — what a comparison can be decided on."""
    ops = column_ops(tool.partition(".")[0], eng.decls[tool].record.fields)
    return [f for f, t in eng.types(tool).items()
            if not isinstance(t, ListType) and (is_numeric(t) or is_date(t))
            and "max" in ops.get(f, frozenset())]


def _scalar(v: object) -> Any:
    import datetime as _dt

    return v.isoformat() if isinstance(v, _dt.date) else v


async def compare_head(eng: Engine, rng: random.Random) -> tuple[Draft, n.AnswerStmt] | None:
    """A comparison and the ``drv`` keeping its winner, run; the draft continues from the
    winner. The arms are real values: a root tool is run and 2 … φ distinct values of the field
    a one-binding G* edge hands to the compared tool are taken (the root call itself is not
    part of the program)."""
    src = await start(eng, rng, fit=_compares)
    if src is None:
        return None
    types0 = eng.types(src.last_tool)
    for edge in _compare_edges(eng, src, rng)[: eng.tries]:
        b = edge.bindings[0]
        code = _param_code(eng, edge.target, b.param)
        values = [_scalar(v) for v in distinct(src.rows, b.field, types0[b.field])]
        values = [v for v in values if not internal_code(code, b.param, v)]  # named inputs
        if len(values) < 2:
            continue
        most = max(2, min(eng.width, eng.phi, len(values)))
        k = rng.choice([2, 2, *range(2, most + 1)])  # two arms at least half the time
        picked = rng.sample(values, k)
        got = await _compare(eng, edge, b.param, picked, rng)
        if got is not None:
            return got
    return None


def _compare_edges(eng: Engine, src: Draft, rng: random.Random) -> list[GraphEdge]:
    """The ranked one-binding out-edges of ``src`` into a tool with a numeric or date field
    whose bound field holds two values or more in ``src``'s records: the comparisons it can
    head."""
    types0 = eng.types(src.last_tool)
    cols = eng.columns(src)
    return [e for e in eng.ranked(src, rng)
            if len(e.bindings) == 1 and e.bindings[0].field in types0
            and _comparable(eng, e.target) and len(cols.distinct(e.bindings[0].field)) >= 2]


async def _compares(eng: Engine, src: Draft) -> bool:
    """The :data:`~.chains.Fit` of a comparison: the root can head one
    (:func:`_compare_edges`); otherwise another root of the platform is drawn."""
    return bool(_compare_edges(eng, src, random.Random(0)))


async def _compare(eng: Engine, edge: GraphEdge, param: str, values: list[Any],
                   rng: random.Random) -> tuple[Draft, n.AnswerStmt] | None:
    tool = edge.target
    try:
        lits = eng.literal_args(tool, eng.args.edge_args(edge, rng))
        arms = [a.value for a in eng.literal_args(tool, [(param, v) for v in values])]
    except (KeyError, ValueError):
        return None
    d = Draft(body=(), last="", last_tool=tool, rows=(), tools=(tool,))
    name = d.fresh(tool.partition(".")[2] + "_by_" + param)
    node = n.Compare(call=eng.call(tool, lits), param=param,
                     values=n.ListLit(items=tuple(arms)))  # type: ignore[arg-type]
    stmts: list[n.Stmt] = [n.Binding(name=name, node=node)]
    ex = await eng.execute(stmts, eng.count_answer(name))
    rows = ex.records_of(eng.memo, name) if ex is not None and ex.result.ok else None
    if not rows or ex is None or ex.result.trace is None:
        return None
    st = next(s for s in ex.result.trace.steps if s.id == name)
    if sum(1 for c in st.calls if c.records) < 2:
        return None  # fewer than two arms with records: nothing to compare
    types = eng.types(tool)
    usable = [f for f in _comparable(eng, tool) if len(distinct(rows, f, types[f])) >= 2]
    if not usable:
        return None
    field = rng.choice(usable)
    step = ReduceChoice(rng.choice(("max", "min")), field)
    keep = _kept(rows, step, types)
    win = d.fresh(f"{name}_{step.op}")
    stmts.append(n.Binding(name=win, node=n.Drv(source=(name,), steps=(reducer_node(step),))))
    taken: set[str] = set()
    answer = n.AnswerStmt(fields=(
        n.AnswerField(name=answer_name(_param_label(eng, tool, param), taken),
                      expr=n.Ref(parts=(win, "__arm"))),
        n.AnswerField(name=answer_name(field_label(field_specs(eng, tool), field), taken),
                      expr=n.Ref(parts=(win, field))),
    ))
    winners = [dict(rows[i]) for i in sorted(keep)]
    draft = Draft(body=tuple(stmts), last=win, last_tool=tool, rows=tuple(winners),
                  tools=(tool,), names=frozenset({name, win}), edges=(edge,))
    return draft, answer


def _param_label(eng: Engine, tool: str, param: str) -> str:
    p = eng.decls[tool].param(param)
    return p.label if p is not None and p.label else param


def _kept(rows: Sequence[Mapping[str, Any]], step: ReduceChoice,
          types: Mapping[str, FieldType]) -> set[int]:
    return set(REDUCERS[step.op].reference(rows, step.field, step.pivot, types[step.field]))


async def cmp(eng: Engine, rng: random.Random, length: int,
              target: str | None = None) -> Built | None:
    """A comparison of one tool over 2 … φ argument values, answered by the winning arm; then
    a chain of :meth:`~edgedsl.recipe.synth.engine.Engine.tail_edges` edges (``seq`` junctions only:
    the task stays a comparison) from the winner when one works, whose last relation the
    answer reads too — unless an analyst would not run it (:func:`~.plausible.implausible`:
    the count of NEC code lists of the winning election): then the comparison alone."""
    head = await compare_head(eng, rng)
    if head is None:
        return None
    d, answer = head
    after = eng.tail_edges(rng)
    if after > 0:
        g = await grow(eng, d, after, rng, kinds=KINDS["Seq"])
        if len(g.edges) > len(d.edges):
            arm = answer.fields[:1] if answer.fields else ()
            tail = answer_of(eng, g, rng, taken={f.name for f in arm})
            got = Built(g.body, n.AnswerStmt(fields=(*arm, *(tail.fields or ()))), g.edges,
                        g, "cmp+chain")
            if not implausible((*got.body, got.answer), eng.view):
                return got  # else the comparison alone: its tail asks about nothing
    return Built(d.body, answer, d.edges, d, "cmp")


def _two_narrowings(eng: Engine, draft: Draft, edge: GraphEdge, rng: random.Random, *,
                    one: bool = False) -> tuple[JunctionPlan, JunctionPlan] | None:
    """Two working narrowings of the draft's records for ``edge`` that hand on different
    values (the two branches of a conditional); with ``one``, both hand on one value each
    (the call after the ``if`` is then sequential). None when there are not two."""
    fields = [b.field for b in edge.bindings]
    types = eng.types(draft.last_tool)
    if any(f not in types for f in fields):
        return None
    plans = narrowings(eng.columns(draft), fields, types, phi=eng.phi, rng=rng, width=eng.width)
    if one:
        plans = [p for p in plans if p.handoff == "seq"]
    if len(plans) < 2:
        return None
    a = plans[rng.randrange(len(plans))]
    others = [p for p in plans if p.handed != a.handed]  # branches handing on the same values
    if not others:                                       # would make the `if` decorative
        return None
    return a, others[rng.randrange(len(others))]


async def conditional(eng: Engine, draft: Draft, rng: random.Random, *,
                      pure: bool = False) -> Draft | None:
    """``draft`` continued by an ``if`` narrowing its last relation two ways and the call that
    reads the result (see the module doc); None when no edge allows it. ``pure`` wants both
    narrowings to hand on one value (a ``seq``, no fan); otherwise they do with chance
    :attr:`~edgedsl.recipe.synth.engine.Engine.single`, as a junction's narrowing does (an
    edge whose records allow no two such narrowings is then passed over, not made a fan)."""
    x, count = draft.last, len(draft.rows)
    if count < 2:
        return None
    one = pure or (eng.single > 0 and rng.random() < eng.single)
    for edge in eng.ranked(draft, rng)[: eng.tries]:
        pair = _two_narrowings(eng, draft, edge, rng, one=one)
        if pair is None:
            continue
        then_jp, else_jp = pair
        pick = draft.fresh(f"{x}_pick")
        d = draft.with_([], names=[pick])
        threshold = count - 1 if rng.random() < 0.5 else count
        cond = n.PredCmp(op=">", left=n.FuncCall(name="count", args=(n.NameExpr(name=x),)),
                         right=n.NumberLit(value=threshold))

        def branch(jp: JunctionPlan, pick: str = pick) -> tuple[n.Stmt, ...]:
            return (n.Binding(name=pick, node=n.Drv(
                source=(x,), steps=tuple(reducer_node(s) for s in jp.steps))),)

        fan = "fan" in (then_jp.handoff, else_jp.handoff)
        use = then_jp if not fan or then_jp.handoff == "fan" else else_jp
        try:
            lits = eng.literal_args(edge.target, eng.args.edge_args(edge, rng))
        except (KeyError, ValueError):
            continue
        name = d.fresh(edge.target.partition(".")[2])
        call = eng.call(edge.target, [*eng.handoff_args(edge, pick, use), *lits])
        runs = []
        for pred in (cond, n.PredNot(operand=cond)):
            stmts: list[n.Stmt] = [
                n.IfStmt(cond=pred, then=branch(then_jp), orelse=branch(else_jp)),
                n.Binding(name=name, node=call)]
            ex = await eng.execute((*draft.body, *stmts), eng.count_answer(name))
            runs.append(ex)
        if any(ex is None or not ex.result.ok or not ex.records_of(eng.memo, name)
               for ex in runs):
            continue
        ex0 = runs[0]
        assert ex0 is not None
        rows = ex0.records_of(eng.memo, name) or []
        ran = then_jp if count > threshold else else_jp
        stmts = [n.IfStmt(cond=cond, then=branch(then_jp), orelse=branch(else_jp)),
                 n.Binding(name=name, node=call)]
        return d.with_(stmts, names=[name], last=name, last_tool=edge.target,
                       rows=tuple(rows), tools=(*draft.tools, edge.target),
                       edges=(*draft.edges, edge), junctions=(*draft.junctions, ran),
                       received=then_jp.handed | else_jp.handed | literal_texts(lits))
    return None


async def cond(eng: Engine, rng: random.Random, length: int,
               target: str | None = None) -> Built | None:
    """A root, an ``if`` and the call reading its result, then up to ``length - 2`` edges;
    aimed at Cond, only ``seq`` junctions."""
    d = await start(eng, rng)
    if d is None:
        return None
    pure = target == "Cond"
    c = await conditional(eng, d, rng, pure=pure)
    if c is None:
        return None
    c = await grow(eng, c, max(0, length - 2), rng, prefer="seq",
                   kinds=KINDS["Seq"] if pure else None)
    return Built(c.body, answer_of(eng, c, rng), c.edges, c, "cond")
