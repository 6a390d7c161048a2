"""Chains an analyst would run (issue 18 §3): a plausibility rule read from the trajectory's AST
and the catalog, never from its text.

A synthesized program strings tool calls together along G* edges; every edge runs, but not every
string of them is a question someone asks. The findings, each a named reason:

* ``unwanted_answer`` — no field of the answer is something a person wants (:mod:`.wanted`):
  every field is a code, a category or a flag (``생일 구분`` → ``양``), and there is no count.
  A code is the point — and the answer plausible — when it is the output of a conversion tool
  of platform ``std``.
* ``count_after_generic`` — the answer is only the count of a relation whose call was reached
  through a hand-off that carries no entity (:mod:`.entities`: a city code, coordinates, an
  education office): "how many records does the thing found through the city code have" asks
  about nothing in particular. A count of a root call, or of a call fed an entity (a company, a
  school, a bill), is a question.
* ``entity_dropped`` — the chain carried an entity (some hand-off upstream had an entity code
  type) and then, on the way to the relation the answer reads, passed a hand-off that carries
  none (a date, a city code, an assembly term): the answer is no longer about the entity the
  chain carried, even when a later hand-off carries an entity again — another one, picked
  through the date ("그 기준일자로 주식발행현황을 조회하고, 그중 … 가장 큰 것, 그 법인등록번호로
  기업개요를 조회한 뒤 …" after a company chain).
* ``generic_chain`` — two or more hand-offs carrying no entity on the way to the relation the
  answer reads: a walk through stop names, coordinates and a city code (a bus chain handing on
  ``cityCode`` to a route it names itself) is not a question about anything it found.
* ``unrelated_branches`` — a ``parallel`` group whose branches are on different platforms and
  whose shared values carry no entity: two services looked up together for no common subject
  (a region code fed to a real-estate and a bus service).
* ``odd_narrowing`` — a ``drv`` narrows by a field no question narrows by: its catalog
  declaration (:func:`.wanted.narrow_ops`: an amount, a count, a size or a score with a unit, a
  date, a category, an entity) does not allow the reducer ("주소가 가장 많이 나온 것",
  "경도가 128.3176701 이상인 것", "층이 가장 큰 것").
* ``internal_input`` — a literal input (a call argument, a ``parallel`` header value, a
  ``compare`` arm) of a parameter whose code type is the service's internal id (not in
  :data:`.entities.KNOWN_CODES`) that the query would show as the raw code — the glossary
  gives it no meaning (``00126380`` is written 삼성전자, ``B10`` 서울특별시교육청): 기관코드
  1721000, 노선ID CCB…, an input the user could not know without calling the service first.

:func:`implausible` lists the findings of a finished trajectory (the ``implausible`` rejection
of stage ``static``, and ``ProgramFacts.implausible`` which ``synth stats`` counts). Generation
prevents them first: answers rank fields by what a person wants (:func:`.chains.answer_of`),
a chain whose answer is implausible is grown again from another root while restarts are left
(:func:`.chains.chain`), and a group's edges must be related (:func:`related_targets`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...core.catalog import Catalog
from ...core.types import CodeType, FieldType, type_from_json
from ...plan.model import Plan
from ...syntax import nodes as n
from .entities import KNOWN_CODES, entity_of
from .korean import korean_forms
from .literals import items_of, python_value
from .templates import load_glossary
from .wanted import WANTED, field_want, narrow_ops

__all__ = [
    "Finding",
    "ToolFacts",
    "View",
    "catalog_view",
    "dead_end",
    "implausible",
    "internal_code",
    "judge",
    "plan_view",
    "related_targets",
]

Finding = Literal["unwanted_answer", "count_after_generic", "entity_dropped",
                  "generic_chain", "unrelated_branches", "odd_narrowing", "internal_input"]


@dataclass(frozen=True)
class ToolFacts:
    """What the rule reads of one tool in the catalog: its platform, its record fields (type,
    Korean label, unit) and the code type of each parameter (None for a plain one)."""

    platform: str
    fields: Mapping[str, tuple[FieldType | None, str | None, str | None]] = field(
        default_factory=dict)
    codes: Mapping[str, str | None] = field(default_factory=dict)


View = Callable[[str], ToolFacts | None]
"""A tool's :class:`ToolFacts` by qualified name (None for an unknown tool)."""


def plan_view(plan: Plan) -> View:
    """The :data:`View` of a compiled plan's tools (their ``ToolSpec``)."""
    cache: dict[str, ToolFacts | None] = {}

    def view(tool: str) -> ToolFacts | None:
        if tool not in cache:
            spec = plan.tools.get(tool)
            cache[tool] = None if spec is None else ToolFacts(
                spec.platform,
                {f: (_type(t), spec.labels.get(f), spec.units.get(f))
                 for f, t in spec.fields.items()},
                {p.name: _code(p.type) for p in spec.params})
        return cache[tool]
    return view


def catalog_view(catalog: Catalog) -> View:
    """The :data:`View` of a catalog's tools (what generation has before anything compiles)."""
    cache: dict[str, ToolFacts | None] = {}

    def view(tool: str) -> ToolFacts | None:
        if tool not in cache:
            t = catalog.tool(tool)
            cache[tool] = None if t is None else ToolFacts(
                t.platform, {f.name: (f.type, f.label, f.unit) for f in t.record.fields},
                {p.name: p.type.name if isinstance(p.type, CodeType) else None
                 for p in t.params})
        return cache[tool]
    return view


def _type(t: Any) -> FieldType | None:
    try:
        return type_from_json(t)
    except (TypeError, ValueError, KeyError):
        return None


def _code(t: Any) -> str | None:
    got = _type(t)
    return got.name if isinstance(got, CodeType) else None


def internal_code(code: str | None, param: str, value: object) -> bool:
    """True when ``value``, given to parameter ``param`` of code type ``code``, is the
    service's internal id shown as the raw code (see the ``internal_input`` finding). A plain
    parameter holds codes too when the glossary gives meanings to its values: DART's
    ``multi_accounts`` takes its 고유번호 as text, a comma-separated list, and seed 1 of session
    36 asked "다중회사 주요계정(고유번호 01135544, …)" in 6 of 200 queries."""
    glossary = load_glossary(None)
    if code in KNOWN_CODES or (code is None and param not in glossary.values):
        return False
    forms = korean_forms(value, param, glossary)
    return not forms or forms[0] == str(value)


def related_targets(platforms: Sequence[str], code: str | None) -> bool:
    """True when branches on ``platforms`` sharing a value for parameters of code type ``code``
    ask about one subject: the value carries an entity, or every branch is on one platform."""
    return entity_of(code) is not None or len(set(platforms)) <= 1


# ------------------------------------------------------------------------- the walk


@dataclass
class _Walk:
    view: View
    tool_of: dict[str, str] = field(default_factory=dict)      # relation -> tool
    fed: dict[str, list[str | None]] = field(default_factory=dict)  # relation -> hand-off codes
    sources: dict[str, set[str]] = field(default_factory=dict)  # relation -> relations feeding it
    carried: dict[str, bool] = field(default_factory=dict)  # an entity handed on upstream
    dropped: dict[str, bool] = field(default_factory=dict)  # ... then a generic hand-off
    generics: dict[str, int] = field(default_factory=dict)  # generic hand-offs on the lineage
    findings: list[Finding] = field(default_factory=list)
    wants: list[str] = field(default_factory=list)  # of each value the answer reads

    def stmts(self, body: Sequence[n.Stmt]) -> None:
        for s in body:
            if isinstance(s, n.IfStmt):
                self.stmts(s.then)
                self.stmts(s.orelse or ())
            elif isinstance(s, n.Binding):
                self.binding(s.name, s.node)

    def binding(self, name: str, node: Any) -> None:
        if isinstance(node, n.Call | n.Compare):
            call = node.call if isinstance(node, n.Compare) else node
            self.call(name, call, {})
            if isinstance(node, n.Compare):
                facts = self.view(call.qualname)
                code = facts.codes.get(node.param) if facts else None
                self.inputs(code, node.param, node.values)
        elif isinstance(node, n.Drv):
            src = ".".join(node.source)
            self.narrowing(src, node)
            if src in self.tool_of:
                self.tool_of[name] = self.tool_of[src]
                self.fed[name] = self.fed.get(src, [])
                self.sources[name] = self.sources.get(src, set())
                self.carried[name] = self.carried.get(src, False)
                self.dropped[name] = self.dropped.get(src, False)
                self.generics[name] = self.generics.get(src, 0)
        elif isinstance(node, n.Parallel):
            shared = {a.name: a.value for a in node.shared}
            for b in node.branches:
                self.call(f"{name}.{b.name}", b.call, shared)
            self.group(node, shared)

    def inputs(self, code: str | None, param: str, value: Any) -> None:
        """An ``internal_input`` finding when a literal ``value`` of ``param`` is an internal
        code shown raw."""
        if value is None or isinstance(value, n.SeqArg | n.FanArg | n.SharedArg):
            return
        if any(internal_code(code, param, python_value(i)) for i in items_of(value)):
            self.findings.append("internal_input")

    def narrowing(self, src: str, node: n.Drv) -> None:
        """An ``odd_narrowing`` finding for a reducer over a field no question narrows by."""
        tool = self.tool_of.get(src)
        facts = self.view(tool) if tool else None
        if facts is None:
            return
        for r in node.steps:
            if r.field.startswith("__") or r.field not in facts.fields:
                continue
            t, label, unit = facts.fields[r.field]
            if r.op not in narrow_ops(facts.platform, r.field, t, label, unit):
                self.findings.append("odd_narrowing")

    def call(self, rel: str, call: n.Call, shared: Mapping[str, Any]) -> None:
        tool = call.qualname
        facts = self.view(tool)
        codes: list[str | None] = []
        sources: set[str] = set()
        for a in call.args:
            v = shared.get(a.value.name) if isinstance(a.value, n.SharedArg) else a.value
            self.inputs(facts.codes.get(a.name) if facts else None, a.name, v)
            if isinstance(v, n.SeqArg | n.FanArg):
                codes.append(facts.codes.get(a.name) if facts else None)
                sources.add(".".join(v.ref.parts[:-1]))
        self.tool_of[rel] = tool
        self.fed[rel] = codes
        self.sources[rel] = sources
        self.carried[rel] = any(entity_of(c) for c in codes) or any(
            self.carried.get(x, False) for x in sources)
        generic = bool(codes) and not any(entity_of(c) for c in codes)
        self.dropped[rel] = any(self.dropped.get(x, False) for x in sources) or (
            generic and any(self.carried.get(x, False) for x in sources))
        self.generics[rel] = max((self.generics.get(x, 0) for x in sources), default=0) \
            + generic

    def group(self, node: n.Parallel, shared: Mapping[str, Any]) -> None:
        platforms = []
        codes: set[str | None] = set()
        for b in node.branches:
            facts = self.view(b.call.qualname)
            platforms.append(facts.platform if facts else b.call.platform)
            for a in b.call.args:
                if isinstance(a.value, n.SharedArg) and facts is not None:
                    code = facts.codes.get(a.name)
                    if code is not None:
                        codes.add(code)
        if shared and not any(related_targets(platforms, c) for c in (codes or {None})):
            self.findings.append("unrelated_branches")

    def answer(self, stmt: n.AnswerStmt, records: Mapping[str, int]) -> None:
        exprs = [f.expr for f in stmt.fields] if stmt.fields is not None else [stmt.expr]
        counted: list[str] = []
        read: list[str] = []
        for e in exprs:
            whole = isinstance(e, n.FuncCall) and e.name in _AGGREGATES
            for kind, rel in self.reads(e):
                if kind in ("amount", "number", "date") and records.get(rel, 0) > 1 \
                        and not whole:
                    kind = "constant"  # one value answered from several records
                (counted if kind == "count" else read).append(rel)
                self.wants.append(kind)
        if not self.wants:
            return
        if not any(w in WANTED or w in ("count", "arm", "point") for w in self.wants):
            self.findings.append("unwanted_answer")
        generic = {r for r in (*counted, *read) if self.fed.get(r)
                   and not any(entity_of(c) for c in self.fed[r])}
        if all(w == "count" for w in self.wants) and generic & set(counted):
            self.findings.append("count_after_generic")
        if any(self.dropped.get(r, False) for r in (*counted, *read)):
            self.findings.append("entity_dropped")
        if any(self.generics.get(r, 0) >= 2 for r in (*counted, *read)):
            self.findings.append("generic_chain")

    def reads(self, e: Any) -> Iterator[tuple[str, str]]:
        """(want, relation) of each value an answer expression reads."""
        if isinstance(e, n.FuncCall) and e.name == "count" and e.args \
                and isinstance(e.args[0], n.NameExpr):
            yield "count", e.args[0].name
        elif isinstance(e, n.Ref):
            rel, f = ".".join(e.parts[:-1]), e.field
            tool = self.tool_of.get(rel)
            facts = self.view(tool) if tool else None
            if f == "__arm":
                yield "arm", rel
            elif facts is not None and facts.platform == "std":
                yield "point", rel
            elif facts is not None and f in facts.fields:
                t, label, unit = facts.fields[f]
                yield field_want(f, t, label, unit), rel
        elif isinstance(e, n.FuncCall | n.BinOp | n.Neg):
            for sub in (getattr(e, "args", ()) or ()):
                yield from self.reads(sub)
            for sub in (getattr(e, "left", None), getattr(e, "right", None),
                        getattr(e, "operand", None)):
                if sub is not None:
                    yield from self.reads(sub)


_AGGREGATES = ("max", "min", "sum", "avg")
"""Answer functions over every record of a relation (the latest date, the largest amount): their
value is a fact about the records, not a constant of the service."""


def judge(body: Sequence[n.Stmt], view: View,
          records: Mapping[str, int] | None = None) -> tuple[list[Finding], list[str]]:
    """The plausibility findings of a trajectory body (statements and its answer; empty when an
    analyst would run it) and the want of each value its answer reads (:data:`~.wanted.Want`,
    or ``count``, ``arm`` for a comparison's winner, ``point`` for a conversion's output).
    ``records`` (relation → records, from a run's trace) marks a number or a date answered
    from a relation of several records ``constant``: every record holds it alike."""
    w = _Walk(view)
    w.stmts(body)
    ans = next((s for s in body if isinstance(s, n.AnswerStmt)), None)
    if ans is not None:
        w.answer(ans, records or {})
    order: tuple[Finding, ...] = ("unwanted_answer", "count_after_generic", "entity_dropped",
                                  "generic_chain", "unrelated_branches", "odd_narrowing",
                                  "internal_input")
    return [f for f in order if f in w.findings], w.wants


def implausible(body: Sequence[n.Stmt], view: View) -> list[Finding]:
    """The plausibility findings of a trajectory body (:func:`judge`), in the order of the
    module doc; empty when an analyst would run it."""
    return judge(body, view)[0]


def dead_end(body: Sequence[n.Stmt], source: str, codes: Sequence[str | None],
             view: View) -> Finding | None:
    """The path finding a call fed from relation ``source`` of ``body`` through parameters of
    code types ``codes`` (one per hand-off) would carry whatever follows it: ``entity_dropped``
    when the lineage of ``source`` carried an entity (or had dropped one) and none of
    ``codes`` carries one, ``generic_chain`` when the hand-off carries no entity and the
    lineage already had one such; None when the way on stays plausible. Both findings hold for
    every relation downstream (:class:`_Walk` inherits them), so a chain grown along such an
    edge can only end in an answer an analyst would not run: generation passes the edge over
    (:meth:`~edgedsl.recipe.synth.engine.Engine.extend`) instead of growing a chain the
    restarts or the ``static`` stage then throw away."""
    w = _Walk(view)
    w.stmts(body)
    generic = bool(codes) and not any(entity_of(c) for c in codes)
    if w.dropped.get(source, False) or (generic and w.carried.get(source, False)):
        return "entity_dropped"
    if generic and w.generics.get(source, 0) >= 1:
        return "generic_chain"
    return None
