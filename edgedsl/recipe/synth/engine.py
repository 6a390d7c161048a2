"""The synthesis engine: drafts of trajectories grown on G*, one executed step at a time.

A :class:`Draft` is the AST of a trajectory under construction (its statements so far) with
what synthesis needs to extend it: the binding whose records the next junction reads, the tool
that made them, and those records. :class:`Engine` holds G*, the catalog and a memoising backend
(:class:`~edgedsl.recipe.synth.memo.MemoBackend`) and offers the moves the structure generators
(:mod:`edgedsl.recipe.synth.structures`) are made of:

* :meth:`Engine.root` — a first call with default arguments, run;
* :meth:`Engine.extend` — the next edge of G* drawn by Thompson sampling on its posterior, its
  junction typed from the records observed (:func:`~edgedsl.recipe.synth.junction.type_junction`),
  the new call run; the first of ``tries`` edges whose call returns records is kept (edges
  whose junction is of a kind the caller does not want, or would make the previous call
  decorative — :func:`decorative` — are passed over before anything runs);
* :meth:`Engine.execute` — emit the draft as a formatted module, compile and run it.

Every call of a paged tool reads ``pages all``, within the memo's read budget
(:data:`~edgedsl.recipe.synth.memo.READ_PAGES`, ``read_pages``): a call whose whole result does
not fit fails, and a draft whose run still read part of a call's result (a tool without paging
that returned fewer records than it reported) is not grown — either would reach the answer as
a partial read and make it undetermined (issue 18 §1). No page limit is ever the question's.

Every step runs the whole draft again (compiled from its formatted text, exactly as the final
file will be); the memoising backend makes a repeated call free, so a step costs one compile
and one local run.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard

from ...core.catalog import Catalog, Tool
from ...core.diagnostics import CompileError
from ...core.runsettings import RunSettings
from ...core.source import Source
from ...core.types import FieldType
from ...plan.model import Plan
from ...reduce.registry import synth_words
from ...runtime.backends import Backend
from ...runtime.executor import run_trajectory
from ...runtime.result import RunResult
from ...syntax import nodes as n
from ...syntax.printer import format_module
from ..graph.args import ArgChooser, carries, pool_from_graph
from ..graph.model import GraphEdge, Port, Scalar, ToolGraph
from ..graph.observe import tool_index
from ..graph.refine import emitter_for
from ..graph.rollout import literal
from .entities import ENTITY_WEIGHT, handoff_score, name_fields
from .junction import Columns, JunctionPlan, Prefer, ReduceChoice, type_junction
from .literals import body_call_args, python_value
from .memo import READ_PAGES, MemoBackend
from .plausible import catalog_view, dead_end
from .roots import Probed, once, root_args, root_call
from .wanted import column_ops

__all__ = ["Draft", "Engine", "Executed", "decorative", "emit_module", "literal_texts",
           "reducer_node", "value_literal"]

_IDENT = re.compile(r"[^A-Za-z0-9_]")

@dataclass(frozen=True)
class Draft:
    """A trajectory under construction (see the module doc); ``received`` holds the values
    (as text) the last call was handed, by junctions and literal arguments. ``last`` may be a
    branch of a ``parallel`` group (``group.branch``): a chain continued after the group."""

    body: tuple[n.Stmt, ...]
    last: str
    last_tool: str
    rows: tuple[dict[str, Any], ...]
    tools: tuple[str, ...]
    edges: tuple[GraphEdge, ...] = ()
    junctions: tuple[JunctionPlan, ...] = ()
    names: frozenset[str] = frozenset()
    received: frozenset[str] = frozenset()
    #: the draft's records with their columns coerced (:meth:`Engine.columns`), made once
    memo: list[Columns] = field(default_factory=list, init=False, compare=False, repr=False)
    #: junction kinds → whether an edge could go on from the draft (:meth:`Engine.can_grow`)
    grows: dict[frozenset[str] | None, bool] = field(default_factory=dict, init=False,
                                                     compare=False, repr=False)
    #: the coerced records the last call was handed from (None for a root): what the call
    #: before had answered, which the answer does not ask again (``Columns.echoes``)
    upstream: Columns | None = field(default=None, compare=False, repr=False)

    def fresh(self, base: str) -> str:
        """A binding name derived from ``base`` not used yet in the draft."""
        stem = re.sub("_+", "_", _IDENT.sub("_", base)).strip("_").lower() or "x"
        if stem[0].isdigit():
            stem = "x" + stem
        name, k = stem, 1
        while name in self.names or name in _RESERVED:
            k += 1
            name = f"{stem}{k}"
        return name

    def with_(self, stmts: Sequence[n.Stmt], *, names: Sequence[str], **changes: Any) -> Draft:
        """The draft with ``stmts`` appended and ``names`` taken."""
        return replace(self, body=(*self.body, *stmts), names=self.names | set(names), **changes)


_RESERVED = frozenset({"use", "trajectory", "answer", "say", "drv", "seq", "fan", "where", "max",
                       "min", "most_frequent", "after", "parallel", "compare", "over", "in", "if",
                       "else", "count", "sum", "avg", "round", "exists", "and", "or", "not",
                       "pages", "all", "true", "false", "platform", "tool", "record", "type"})


@dataclass(frozen=True)
class Executed:
    """A draft's run: the compiled plan, the result, and the formatted text that was compiled."""

    plan: Plan
    result: RunResult
    text: str

    def partial(self, step: str) -> bool:
        """True when call step ``step`` stopped short of its whole result
        (:func:`~edgedsl.recipe.synth.meaning.partial_read`)."""
        from .meaning import partial_read

        trace = self.result.trace
        st = next((s for s in trace.steps if s.id == step), None) if trace else None
        return st is not None and partial_read(st)

    def records_of(self, memo: MemoBackend, step: str) -> list[dict[str, Any]] | None:
        """The records the calls of trace step ``step`` returned, in call order (None when
        the step did not run or is not a call)."""
        trace = self.result.trace
        st = next((s for s in trace.steps if s.id == step), None) if trace else None
        if st is None or st.status != "ok" or not st.calls:
            return None
        out: list[dict[str, Any]] = []
        for c in st.calls:
            got = memo.records(st.tool or "", c.args, c.page)
            if got is None:
                return None
            out += got
        return out


def emit_module(traj: n.Trajectory, settings: RunSettings | None = None, *,
                catalog: Catalog | None = None) -> str:
    """The formatted file of one trajectory: ``use`` of the modules declaring the platforms it
    calls (from ``catalog``: platform ``tago`` is declared by module ``bus``; without a
    catalog, modules named like the platforms), the ``run`` block of ``settings`` (what it
    states), then the trajectory."""
    from .analyze import tools_of

    def module(platform: str) -> str:
        p = None if catalog is None else catalog.platforms.get(platform)
        return p.module if p is not None and p.module else platform

    modules = tuple(sorted({module(t.partition(".")[0]) for t in tools_of(traj)}))
    items: list[n.Item] = [n.UseDecl(names=modules)] if modules else []
    if settings is not None and settings.stated():
        items.append(n.RunDecl(settings=tuple(
            n.RunSetting(name=k, value=n.NumberLit(value=v)) for k, v in settings.stated().items()
        )))
    return format_module(n.Module(items=(*items, traj)))


def reducer_node(step: ReduceChoice) -> n.Reducer:
    """The AST of one reducer step."""
    pivot = None if step.pivot is None else value_literal(step.pivot)
    return n.Reducer(op=step.op, field=step.field, pivot=pivot)


def value_literal(v: object) -> n.Literal_:
    """The literal node of a coerced value (a date, a number, a boolean or text)."""
    import datetime as _dt

    if isinstance(v, _dt.date):
        return n.DateLit(value=v)
    if isinstance(v, bool):
        return n.BoolLit(value=v)
    if isinstance(v, int | float):
        return n.NumberLit(value=v)
    return n.StringLit(value=str(v))


@dataclass
class Engine:
    """G*, the catalog and a memoising backend, with the moves of synthesis. ``width`` (≤ φ)
    bounds the values a narrowing keeps, the arms of a comparison and the branches of a
    group; ``single`` is the chance that a narrowing of more than φ values is drawn among
    those handing on one value (the next call sequential) rather than several (a fan of
    parallel calls); ``narrow_fans`` is the chance that a hand-off of 2 … φ values, a fan by
    the recipe's typing, is narrowed to one value by a ``drv`` instead (:meth:`junction`;
    off by default); ``tail`` weighs the edges a chain grows after a ``parallel`` group or a
    comparison's winner (:meth:`tail_edges`); ``restarts`` is how many times a chain that
    ended short of its length is grown again from another root (the longest is kept);
    ``combos`` weighs the compositions a Mixed draft tries (None: the weights of
    :data:`~edgedsl.recipe.synth.structures.COMBOS`). These are the knobs of the call mix.
    ``entity_weight`` is what an edge handing off an entity identifier adds to its draw
    (:mod:`edgedsl.recipe.synth.entities`). ``read_pages`` is the read budget: the pages a
    draft's ``pages all`` may read of one call (:mod:`edgedsl.recipe.synth.memo`)."""

    graph: ToolGraph
    catalog: Catalog
    backend: Backend
    phi: int = 5
    tries: int = 3
    width: int = 3
    single: float = 0.0
    narrow_fans: float = 0.0
    tail: dict[int, float] = field(default_factory=lambda: {0: 1.0})
    restarts: int = 0
    combos: dict[str, float] | None = None
    entity_weight: float = ENTITY_WEIGHT
    read_pages: int = READ_PAGES
    memo: MemoBackend = field(init=False)
    #: (step, root tool) → its probed argument tuples (:func:`~edgedsl.recipe.synth.roots.probe`;
    #: step ``drawable``: those a root may be drawn from)
    probed: dict[tuple[str, str], asyncio.Future[list[Probed]]] = field(
        default_factory=dict, init=False, repr=False)
    #: (root tool, probe, loose) → the stated filters its records offer
    #: (:func:`~edgedsl.recipe.synth.roots.probe`: a partial read is narrowed again and again)
    filtered: dict[tuple[str, Any, bool], list[tuple[str, list[Any]]]] = field(
        default_factory=dict, init=False, repr=False)
    #: (question, root body, kinds) → what the root can build (:meth:`fits`)
    fitted: dict[tuple[str, tuple[n.Stmt, ...], frozenset[str] | None],
                 asyncio.Future[bool]] = field(default_factory=dict, init=False, repr=False)
    #: (root tool, probed tuple) → its draft, run (:meth:`root`): one draft object per root,
    #: so that its coerced columns, narrowings and :meth:`can_grow` are worked out once, not
    #: at every attempt that draws it (as many entries as :attr:`probed` holds tuples)
    rooted: dict[tuple[str, Probed], asyncio.Future[Draft | None]] = field(
        default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.memo = self.backend if isinstance(self.backend, MemoBackend) \
            else MemoBackend(self.backend)
        self.memo.budget = self.read_pages
        self.emitter = emitter_for(self.graph, self.catalog)
        self.nodes = {t.name: t for t in self.graph.tools}
        self.args = ArgChooser(self.nodes, pool_from_graph(self.graph), self.catalog.code_types)
        self.decls: dict[str, Tool] = tool_index(self.catalog)
        self.out: dict[str, list[GraphEdge]] = {}
        for e in sorted(self.graph.edges, key=lambda e: e.key):
            if e.target in self.decls and e.source in self.decls:
                self.out.setdefault(e.source, []).append(e)
        self.edge_of = {e.key: e for e in self.graph.edges}
        self.search_paths = tuple(Path(p) for p in self.graph.catalog.search_paths)
        self.view = catalog_view(self.catalog)  # what the plausibility rule reads of a tool

    # ---------------------------------------------------------------- catalog views

    def types(self, tool: str) -> dict[str, FieldType]:
        """Field name → type of ``tool``'s records."""
        return {f.name: f.type for f in self.decls[tool].record.fields}

    def ports(self, tool: str) -> dict[str, Port]:
        """Parameter name → port of ``tool``."""
        return {p.name: p for p in self.nodes[tool].params}

    def roots(self) -> list[str]:
        """Tools with outgoing edges whose required parameters all have candidates."""
        return [t for t in sorted(self.out) if self.out[t] and self.args.callable(t)]

    def roots_by_platform(self) -> dict[str, list[str]]:
        """The roots grouped by the catalog module declaring their platform (``bus`` holds
        ``tago`` and ``seoulbus``). A draft starts on a platform drawn uniformly, then on one of
        its roots: drawn among all roots at once, DART's 19 roots started ten times as many
        drafts as the region's 3 or Seoul's 2, and those platforms were all but absent
        (docs/synth.md, "Reach"). The in-process conversions of ``std`` start no draft (they
        are reached as targets)."""
        out: dict[str, list[str]] = {}
        for t in self.roots():
            module = self.module_of(t)
            if module != "std":
                out.setdefault(module, []).append(t)
        return out

    def module_of(self, tool: str) -> str:
        """The catalog module declaring ``tool``'s platform (``tago.stops`` → ``bus``): the
        platform a draft's start is drawn by (:meth:`roots_by_platform`)."""
        p = self.catalog.platforms.get(tool.partition(".")[0])
        return p.module if p is not None and p.module else tool.partition(".")[0]

    def context(self, draft: Draft, tool: str) -> dict[str, n.ArgValue]:
        """Arguments for ``tool``'s parameters that the draft's calls were already given — a
        literal, or a ``seq`` reference (one value): the first an earlier call passed to a
        parameter of the same kind (:func:`~edgedsl.recipe.graph.args.carries`; refinement's
        paths keep their literal context the same way). Without it, seed 1: 25 of 30 runs of
        ``tago.routes``' out-edges asked another city and came back empty."""
        ports = self.ports(tool)
        platform = tool.partition(".")[0]
        out: dict[str, n.ArgValue] = {}
        for qualname, arg in body_call_args(draft.body):
            value = arg.value
            if isinstance(value, n.FanArg | n.SharedArg | n.ListArg) or qualname not in self.nodes:
                continue
            if not isinstance(value, n.SeqArg) and not isinstance(
                    python_value(value), str | int):
                continue
            src = self.ports(qualname).get(arg.name)
            if src is None:
                continue
            same_platform = qualname.partition(".")[0] == platform
            for pname, port in ports.items():
                if pname not in out and carries(port, src, same_platform):
                    out[pname] = value
        return out

    def context_args(self, draft: Draft, edge: GraphEdge,
                     rng: random.Random) -> list[n.Arg]:
        """The arguments of ``edge``'s target that no binding fills: the draft's context where
        it has one (:meth:`context`), else defaults (:meth:`ArgChooser.edge_args`); KeyError
        or ValueError when a parameter has neither."""
        ctx = self.context(draft, edge.target)
        refs = {p: v for p, v in ctx.items() if isinstance(v, n.SeqArg)}
        given = {p: python_value(v) for p, v in ctx.items()  # type: ignore[arg-type]
                 if not isinstance(v, n.SeqArg)}
        drawn = self.args.edge_args(edge, rng, given, filled=frozenset(refs))
        return [*self.literal_args(edge.target, drawn),
                *(n.Arg(name=p, value=v) for p, v in refs.items()
                  if p in self.nodes[edge.target].required
                  and p not in {b.param for b in edge.bindings})]

    def literal_args(self, tool: str, args: Sequence[tuple[str, Scalar]]) -> list[n.Arg]:
        """Literal argument nodes (ValueError when one does not fit its parameter)."""
        ports = self.ports(tool)
        out = []
        for pname, value in args:
            lit = literal(ports[pname], value, self.catalog.code_types)
            if lit is None:
                raise ValueError(f"{value!r} does not fit parameter `{pname}` of {tool}")
            out.append(n.Arg(name=pname, value=lit))
        return out

    def call(self, tool: str, args: Sequence[n.Arg]) -> n.Call:
        """A call node (a paged tool reads all pages: see the module doc)."""
        platform, _, name = tool.partition(".")
        return n.Call(platform=platform, tool=name, args=tuple(args),
                      pages="all" if tool in self.emitter.paged else None)

    # ---------------------------------------------------------------- running

    def text(self, traj: n.Trajectory) -> str:
        """The formatted module holding ``traj`` (:func:`emit_module`)."""
        return emit_module(traj, catalog=self.catalog)

    async def execute(self, body: Sequence[n.Stmt], answer: n.AnswerStmt, *,
                      name: str = "draft", query: str = "draft",
                      keep: bool = False) -> Executed | None:
        """Emit, compile and run ``body`` with ``answer``; None when it does not compile, or
        when a call of the run read part of its result (see the module doc: nothing grows from
        a partial read). ``keep`` keeps the relations a task record needs (see
        :func:`~edgedsl.recipe.synth.trace_record.keep_for`)."""
        from ...api import compile as compile_source
        from .trace_record import keep_for

        traj = n.Trajectory(name=name, query=query, body=(*body, answer))
        text = self.text(traj)
        try:
            plan = compile_source(Source(f"<{name}>", text), search_paths=self.search_paths)
        except CompileError:
            return None
        result = await run_trajectory(plan, name, self.memo, phi=self.phi,
                                      keep=keep_for(plan, name) if keep else ())
        if result.trace is not None and any(st.complete is False for st in result.trace.steps):
            return None
        return Executed(plan, result, text)

    @staticmethod
    def count_answer(name: str) -> n.AnswerStmt:
        """``answer count(name)``: what a draft answers while it grows."""
        return n.AnswerStmt(expr=n.FuncCall(name="count", args=(n.NameExpr(name=name),)))

    # ---------------------------------------------------------------- moves

    async def root(self, tool: str, rng: random.Random, *, few: bool = False) -> Draft | None:
        """A draft of one call of ``tool`` with default arguments that made it return records
        (:func:`~edgedsl.recipe.synth.roots.root_args`; ``few``: a small read when there is
        one, for a chain that needs a fan), run; None when none did."""
        drawn = await root_args(self, tool, rng, few=few)
        if drawn is None:
            return None
        return await once(self.rooted, (tool, drawn), lambda: self.root_draft(tool, drawn))

    async def root_draft(self, tool: str, drawn: Probed) -> Draft | None:
        """A new draft of one call of ``tool`` with the probed arguments ``drawn``, run; None
        when it returns nothing (:meth:`root` keeps one per probed tuple)."""
        try:
            call = root_call(self, tool, drawn)
        except (KeyError, ValueError):
            return None
        d0 = Draft(body=(), last="", last_tool=tool, rows=(), tools=())
        name = d0.fresh(tool.partition(".")[2])
        body = (n.Binding(name=name, node=call),)
        ex = await self.execute(body, self.count_answer(name))
        rows = ex.records_of(self.memo, name) if ex is not None and ex.result.ok else None
        if not rows:
            return None
        return Draft(body=body, last=name, last_tool=tool, rows=tuple(rows), tools=(tool,),
                     names=frozenset({name}), received=literal_texts(call.args))

    def ranked(self, draft: Draft, rng: random.Random) -> list[GraphEdge]:
        """The runnable out-edges of the draft's last tool to tools not used yet, in the order
        of one Thompson draw from each edge's Beta posterior, an edge handing off an entity
        identifier scored :attr:`entity_weight` higher
        (:func:`~edgedsl.recipe.synth.entities.handoff_score`)."""
        options = self.open_edges(draft)
        draws = [(handoff_score(rng.betavariate(e.alpha, e.beta), self.handoff_code(e),
                                self.entity_weight), i) for i, e in enumerate(options)]
        return [options[i] for _, i in sorted(draws, reverse=True)]

    def handoff_code(self, edge: GraphEdge) -> str | None:
        """The code type of the parameter ``edge``'s primary binding hands off to."""
        port = self.ports(edge.target).get(edge.bindings[0].param) if edge.bindings else None
        return port.code if port is not None else None

    def open_edges(self, draft: Draft) -> list[GraphEdge]:
        """The runnable out-edges of the draft's last tool to tools not used yet, but those
        that lead nowhere an analyst goes (:meth:`dead_end`)."""
        edges = [e for e in self.out.get(draft.last_tool, ())
                 if e.target not in draft.tools and self.args.runnable(e)]
        if not draft.body or not edges:
            return edges
        return [e for e in edges if not self.dead_end(draft, e)]

    def dead_end(self, draft: Draft, edge: GraphEdge) -> bool:
        """True when growing ``draft`` along ``edge`` would make every answer downstream one an
        analyst would not run (:func:`~edgedsl.recipe.synth.plausible.dead_end`: the hand-off
        drops the entity the chain carried, or is the second one carrying none). Such an edge
        used to be grown, and the draft then replaced by the restarts or rejected as
        ``implausible`` (seed 1: 63 such rejections before, 21 after; 768 attempts for 200
        tasks before, 608 after — chains did not get longer: docs/synth.md, "The mix on the
        merged head")."""
        facts = self.view(edge.target)
        codes = [facts.codes.get(b.param) if facts else None for b in edge.bindings]
        return dead_end(draft.body, draft.last, codes, self.view) is not None

    def narrow(self, draft: Draft, edge: GraphEdge,
               jp: JunctionPlan) -> tuple[list[n.Stmt], str]:
        """The ``drv`` statement narrowing the draft's records for ``jp`` (none when the
        junction needs no narrowing) and the name the hand-off reads."""
        if not jp.steps:
            return [], draft.last
        name = draft.fresh(f"{draft.last}_{synth_words(jp.steps[0].op).name}")
        drv = n.Drv(source=tuple(draft.last.split(".")),
                    steps=tuple(reducer_node(s) for s in jp.steps))
        return [n.Binding(name=name, node=drv)], name

    def handoff_args(self, edge: GraphEdge, source: str, jp: JunctionPlan) -> list[n.Arg]:
        """The junction arguments of ``edge``'s target reading ``source`` (a binding or
        ``group.branch``; the primary binding as ``fan`` when ``jp`` hands off several
        values)."""
        out = []
        for i, b in enumerate(edge.bindings):
            ref = n.Ref(parts=(*source.split("."), b.field))
            value: n.ArgValue = n.FanArg(ref=ref) if i == 0 and jp.handoff == "fan" \
                else n.SeqArg(ref=ref)
            out.append(n.Arg(name=b.param, value=value))
        return out

    def junction(self, draft: Draft, edge: GraphEdge, rng: random.Random, *,
                 prefer: Prefer = "any",
                 kinds: frozenset[str] | None = None) -> JunctionPlan | None:
        """The junction ``edge`` would have from the draft's records (None as well when it
        could only be of a kind outside ``kinds``: then no narrowing is searched for).

        A junction that needs a narrowing is narrowed to one value with chance
        :attr:`single` (``prefer="seq"``); one of 2 … φ values, a fan, is narrowed to one
        value by a ``drv`` instead when ``kinds`` allows a ``drv`` and either allows ``seq``
        but not ``fan`` (a chain aimed at Drv) or by chance :attr:`narrow_fans` — never when
        ``prefer`` is ``"fan"``."""
        fields = [b.field for b in edge.bindings]
        types = self.types(draft.last_tool)
        if any(f not in types for f in fields):
            return None
        cols = self.columns(draft)
        d = len(cols.distinct(fields[0]))
        if kinds is not None and "drv" not in kinds and d > self.phi:
            return None
        narrow = False
        one = d > self.phi and prefer == "any" and self.single > 0 \
            and rng.random() < self.single
        if one:
            prefer = "seq"
        elif 2 <= d <= self.phi and prefer != "fan" and (kinds is None or "drv" in kinds):
            # a fan: narrowed to one value when the caller takes no fan, or by chance
            narrow = (kinds is not None and "fan" not in kinds and "seq" in kinds) \
                or (self.narrow_fans > 0 and rng.random() < self.narrow_fans)
        jp = type_junction(cols, fields, types, phi=self.phi, rng=rng, width=self.width,
                           prefer=prefer, narrow=narrow)
        # drawn to hand on one value: when no narrowing but a most_frequent tie would, the
        # edge is passed over rather than made a fan (the draw's share of sequential calls)
        return None if one and jp is not None and jp.handoff == "fan" else jp

    def tail_edges(self, rng: random.Random) -> int:
        """Edges to grow after a ``parallel`` group or a comparison's winner, drawn from
        :attr:`tail` (0 when it gives no weight)."""
        keys = [k for k, w in self.tail.items() if w > 0]
        if not keys or keys == [0]:
            return 0
        return rng.choices(keys, weights=[self.tail[k] for k in keys])[0]

    def columns(self, draft: Draft) -> Columns:
        """The draft's records with their columns coerced once, kept with the draft (junction
        typing reads the same records for every edge it considers)."""
        if not draft.memo:
            types = self.types(draft.last_tool)
            platform = draft.last_tool.partition(".")[0]
            names = name_fields(platform, types)
            ops = column_ops(platform, self.decls[draft.last_tool].record.fields)
            draft.memo.append(Columns(draft.rows, types, names, ops))
        return draft.memo[0]

    async def extend(self, draft: Draft, rng: random.Random, *, prefer: Prefer = "any",
                     kinds: frozenset[str] | None = None, ahead: bool = False,
                     ahead_kinds: frozenset[str] | None = None) -> Draft | None:
        """The draft grown by one edge (see the module doc); None when no edge works.

        ``kinds`` restricts the junction kinds accepted (``seq``, ``fan``, ``drv``): edges whose
        junction would be of another kind are passed over without running anything. An edge
        whose junction would hand on exactly the values the draft's last call was handed is
        passed over too: that call would be decorative (see :mod:`edgedsl.recipe.synth.resolve`).

        ``ahead`` (the caller will grow the draft further) looks one edge ahead: a grown draft
        from which no edge could go on (:meth:`can_grow`, with ``ahead_kinds``) is kept only
        as a fallback while the next ranked edges (within :attr:`tries` runs) are tried: a
        chain that walks into a dead end stops there."""
        runs = 0
        fallback: Draft | None = None
        for edge in self.ranked(draft, rng):
            if runs >= self.tries:
                break
            jp = self.junction(draft, edge, rng, prefer=prefer, kinds=kinds)
            if not usable(jp, draft, kinds):
                continue
            runs += 1
            grown = await self.follow(draft, edge, jp, rng)
            if grown is None:
                continue
            if not ahead or self.can_grow(grown, kinds=ahead_kinds):
                return grown
            if fallback is None:
                fallback = grown
        return fallback

    def can_grow(self, draft: Draft, *, kinds: frozenset[str] | None = None) -> bool:
        """True when some out-edge of the draft's last tool has a junction of ``kinds`` that
        would not make the draft's last call decorative, judged from its records (nothing is
        run; narrowings are drawn from a fixed generator, so the draft's own is untouched)."""
        got = draft.grows.get(kinds)
        if got is None:
            probe = random.Random(0)
            got = draft.grows[kinds] = any(
                usable(self.junction(draft, edge, probe, kinds=kinds), draft, kinds)
                for edge in self.open_edges(draft))
        return got

    async def successors(self, draft: Draft, *,
                         kinds: frozenset[str] | None = None) -> list[Draft]:
        """The draft grown along each of its first :attr:`tries` usable out-edges (junctions
        of ``kinds``), run: what a chain from it would meet one edge on. Ranking and
        narrowings are drawn from a fixed generator, so the answer is a pure function of the
        draft (every worker computes the same) and the draft's own draws are untouched."""
        probe = random.Random(0)
        out: list[Draft] = []
        runs = 0
        for edge in self.ranked(draft, probe):
            if runs >= self.tries:
                break
            jp = self.junction(draft, edge, probe, kinds=kinds)
            if not usable(jp, draft, kinds):
                continue
            runs += 1
            grown = await self.follow(draft, edge, jp, probe)
            if grown is not None:
                out.append(grown)
        return out

    async def fits(self, question: str, draft: Draft, kinds: frozenset[str] | None,
                   judge: Callable[[], Awaitable[bool]]) -> bool:
        """``judge()`` (what a root ``draft`` can build, asked as ``question``: "grows two
        edges", "makes a group"), computed once per root, question and ``kinds`` and kept:
        roots are drawn among a few probed argument tuples per tool
        (:mod:`~edgedsl.recipe.synth.roots`), so the same root is judged again and again.
        Concurrent attempts of a batch wait for one judgement."""
        return await once(self.fitted, (question, draft.body, kinds), judge)

    async def follow(self, draft: Draft, edge: GraphEdge, jp: JunctionPlan,
                     rng: random.Random) -> Draft | None:
        """The draft grown along ``edge`` with junction ``jp``, run; None when the call fails
        or returns nothing."""
        stmts, source = self.narrow(draft, edge, jp)
        try:
            lits = self.context_args(draft, edge, rng)
        except (KeyError, ValueError):
            return None
        name = draft.fresh(edge.target.partition(".")[2])
        stmts.append(n.Binding(name=name, node=self.call(
            edge.target, [*self.handoff_args(edge, source, jp), *lits])))
        body = (*draft.body, *stmts)
        ex = await self.execute(body, self.count_answer(name))
        rows = ex.records_of(self.memo, name) if ex is not None and ex.result.ok else None
        if not rows:
            return None
        taken = [s.name for s in stmts if isinstance(s, n.Binding)]
        return draft.with_(stmts, names=taken, last=name, last_tool=edge.target,
                           rows=tuple(rows), tools=(*draft.tools, edge.target),
                           edges=(*draft.edges, edge), junctions=(*draft.junctions, jp),
                           received=jp.handed | literal_texts(lits),
                           upstream=self.columns(draft))


def usable(jp: JunctionPlan | None, draft: Draft,
           kinds: frozenset[str] | None) -> TypeGuard[JunctionPlan]:
    """True when a junction was found, is of one of ``kinds`` (any when None) and would not make
    the draft's last call decorative: an edge the draft may grow along."""
    return jp is not None and (kinds is None or jp.kind in kinds) and not decorative(draft, jp)


def decorative(draft: Draft, jp: JunctionPlan) -> bool:
    """True when handing ``jp`` on would make the draft's last call decorative: no ``drv``
    chooses among its records and it would hand on only values it was handed (the rule of
    :mod:`edgedsl.recipe.synth.resolve`)."""
    from .resolve import hands_on_only_inputs

    return not jp.steps and hands_on_only_inputs(jp.handed, draft.received)


def literal_texts(args: Sequence[n.Arg]) -> frozenset[str]:
    """The values of literal arguments, as text (dates as ISO text)."""
    out = set()
    for a in args:
        v = a.value
        if isinstance(v, n.StringLit | n.NumberLit | n.DateLit | n.BoolLit):
            out.add(str(v.value))
    return frozenset(out)


