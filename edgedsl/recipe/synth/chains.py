"""Chains and answers, the base of every structure generator: :class:`Built` (what a generator
returns), :func:`answer_of` (the answer of a finished draft), and growing a chain of G* edges from
a root (:func:`start`, :func:`grow`, :func:`chain`). See :mod:`.structures` for the structures."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass

from ...core.types import FieldSpec, ListType, is_date
from ...syntax import nodes as n
from ..graph.model import GraphEdge
from .engine import Draft, Engine, Prefer
from .junction import Columns
from .knowable import statement_texts
from .plausible import implausible
from .wanted import (
    WANT_RANK,
    WANTED,
    Want,
    answer_key,
    column_ops,
    field_want,
    is_constant,
    secondary,
)

__all__ = [
    "AIM",
    "KINDS",
    "NEED",
    "Built",
    "Fit",
    "aggregate_field",
    "aggregate_label",
    "answer_name",
    "answer_of",
    "chain",
    "field_label",
    "field_specs",
    "grow",
    "grows_twice",
    "ranked_fields",
    "single_fields",
    "start",
]


@dataclass(frozen=True)
class Built:
    """A finished trajectory body: statements, answer, the edges used, its last draft."""

    body: tuple[n.Stmt, ...]
    answer: n.AnswerStmt
    edges: tuple[GraphEdge, ...]
    draft: Draft
    kind: str


def field_specs(eng: Engine, tool: str) -> dict[str, FieldSpec]:
    """Field name → catalog declaration (type, Korean label, unit) of ``tool``'s records."""
    return {f.name: f for f in eng.decls[tool].record.fields}


def field_label(specs: Mapping[str, FieldSpec], field: str) -> str:
    """The catalog label of ``field`` (its name when it declares none)."""
    spec = specs.get(field)
    return spec.label if spec is not None and spec.label else field


def answer_name(label: str, taken: set[str]) -> str:
    """An answer key for a field labelled ``label`` (:func:`~.wanted.answer_key`: the catalog
    label as an identifier, ``생일_구분``), not in ``taken`` (a suffix if needed)."""
    base = answer_key(label)
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def ranked_fields(cols: Columns, specs: Mapping[str, FieldSpec] | None = None,
                  echo: frozenset[str] = frozenset(),
                  avoid: frozenset[str] = frozenset(), *,
                  skip: frozenset[str] = frozenset()) -> list[tuple[str, Want]]:
    """The fields holding exactly one value in the records of ``cols`` — in every record when
    there are several: a value most records lack is not "the" value of the relation — with their
    :data:`~.wanted.Want`, best first: the wanted ones (:data:`~.wanted.WANTED`) before the
    others, fields named in ``avoid`` (the upstream tool's, which the records echo) after the
    fresh ones of their class, then by :data:`~.wanted.WANT_RANK`, a primary form before a
    secondary one (:func:`~.wanted.secondary`: 의원 이름 before 영문 이름). Lists, blank text
    (an empty answer is ungradable), text longer than 60 characters and values in ``echo``
    (the values the call was handed: answering them would answer nothing) are skipped, and so
    are the fields named in ``skip``."""
    specs = specs or {}
    out: list[tuple[tuple[bool, bool, int, bool, str], str, Want]] = []
    for f, t in cols.types.items():
        if isinstance(t, ListType) or f.startswith("__") or f in skip:
            continue
        vals = cols.distinct(f)
        if len(vals) != 1 or str(vals[0]) in echo or (isinstance(vals[0], str) and (
                len(vals[0]) > 60 or not vals[0].strip())):
            continue
        col = cols.col(f)
        if len(cols) > 1 and None in col:
            continue
        spec = specs.get(f)
        want = field_want(f, t, spec.label if spec else None, spec.unit if spec else None,
                          constant=is_constant(col, len(cols)))
        out.append(((want not in WANTED, f in avoid, WANT_RANK[want],
                     secondary(spec.label if spec else None), f), f, want))
    return [(f, w) for _, f, w in sorted(out)]


def single_fields(cols: Columns, limit: int = 2, echo: frozenset[str] = frozenset(),
                  avoid: frozenset[str] = frozenset(),
                  specs: Mapping[str, FieldSpec] | None = None, *,
                  wanted_only: bool = False, skip: frozenset[str] = frozenset()) -> list[str]:
    """Up to ``limit`` single-valued fields of ``cols`` ranked by what a person wants
    (:func:`ranked_fields`, never a field in ``skip``); with ``wanted_only``, only those of
    :data:`~.wanted.WANTED` (names, amounts, dates, numbers, text — not codes, categories or
    constants)."""
    got = ranked_fields(cols, specs, echo, avoid, skip=skip)
    return [f for f, w in got if w in WANTED or not wanted_only][:limit]


def answer_of(eng: Engine, draft: Draft, rng: random.Random, *,
              taken: set[str] | None = None) -> n.AnswerStmt:
    """The answer of a chain: up to two single-valued fields of the last relation that a person
    wants (:mod:`.wanted`: names, amounts, dates before codes and categories; never a constant
    of the service, nor a value the query states), and its count when it holds several records
    read whole — with the latest date or the largest amount of the records when nothing else is
    answered (:func:`aggregate_field`: not a count alone); a code or category only when
    neither is left (see the module doc). Keys are the fields' catalog labels
    (:func:`answer_name`); ``taken`` holds the keys already used (by fields the caller adds)."""
    taken = set() if taken is None else taken
    echo = draft.junctions[-1].handed if draft.junctions else frozenset()
    echo |= statement_texts(draft.body)  # what the query states (the district it gave)
    before = draft.tools[-2] if len(draft.tools) > 1 else None
    avoid = frozenset(eng.types(before)) if before else frozenset()
    specs = field_specs(eng, draft.last_tool)
    cols = eng.columns(draft)
    # never what the call before had answered: juso's 건물명, repeated by the coordinate
    # service (session 36: 18 of 200 tasks of seed 0 ended "…좌표를 조회하고, 좌표의
    # 건물명은?", a last call that added nothing)
    skip = cols.echoes(draft.upstream) if draft.upstream is not None else frozenset()
    limit = rng.choice((1, 2, 2))
    # every draft reads each call whole (Engine.execute grows nothing from a partial read),
    # so the count of its last relation is the service's count, never a page size
    counted = len(draft.rows) > 1
    chosen = single_fields(cols, limit, echo, avoid, specs, wanted_only=True, skip=skip)
    if not chosen and not counted:  # a code or a category, when it is all there is
        chosen = single_fields(cols, 1, echo, avoid, specs, skip=skip)
    fields = [n.AnswerField(name=answer_name(field_label(specs, f), taken),
                            expr=n.Ref(parts=(draft.last, f))) for f in chosen]
    if counted and not fields:  # not a count alone: the latest date or the largest amount too
        agg = aggregate_field(eng, draft, cols)
        if agg is not None:
            fields.append(n.AnswerField(
                name=answer_name(aggregate_label(specs, agg), taken),
                expr=n.FuncCall(name="max", args=(n.Ref(parts=(draft.last, agg)),))))
    if counted or not fields:
        fields.append(n.AnswerField(name=answer_name("건수", taken), expr=n.FuncCall(
            name="count", args=(n.NameExpr(name=draft.last),))))
    return n.AnswerStmt(fields=tuple(fields))


def aggregate_field(eng: Engine, draft: Draft, cols: Columns) -> str | None:
    """The field whose largest value a count-only answer also asks for: a date a question
    narrows by (the latest 접수일자), else an amount, a count or a size with a unit (the
    largest 거래금액) — :func:`~.wanted.column_ops` — holding two values or more across
    the records (one value everywhere is a constant of the service), the one holding the most
    distinct values among them; None when none does."""
    ops = column_ops(draft.last_tool.partition(".")[0], eng.decls[draft.last_tool].record.fields)
    dates: list[str] = []
    measures: list[str] = []
    for f, t in cols.types.items():
        if "max" not in ops.get(f, frozenset()) or len(cols.distinct(f)) < 2:
            continue
        (dates if is_date(t) else measures).append(f)
    got = dates or measures
    # the field of most distinct values: its largest says most about these records (seed 0
    # of session 36 answered "최대 전용면적 164.3" in 18 of 200 tasks — the largest of a dozen
    # standard sizes, the same in every district — where 거래금액 differs everywhere)
    return max(got, key=lambda f: len(cols.distinct(f))) if got else None


def aggregate_label(specs: Mapping[str, FieldSpec], field: str) -> str:
    """The answer label of the largest value of ``field``: 최근 접수일자 for a date, 최대
    거래금액 for a number."""
    spec = specs.get(field)
    word = "최근" if spec is not None and is_date(spec.type) else "최대"
    return f"{word} {field_label(specs, field)}"


KINDS: dict[str, frozenset[str]] = {"Seq": frozenset({"seq"}), "Fan": frozenset({"seq", "fan"}),
                                    "Drv": frozenset({"seq", "drv"})}


"""The junction kinds a chain aimed at a pure type accepts."""


NEED: dict[str, str] = {"Fan": "fan", "Drv": "drv"}


"""The junction kind a chain aimed at a type must have at least once."""


async def grow(eng: Engine, draft: Draft, edges: int, rng: random.Random, *,
               kinds: frozenset[str] | None = None, need: str | None = None,
               prefer: Prefer = "any") -> Draft:
    """``draft`` grown by up to ``edges`` edges (fewer when no edge works), with junctions of
    ``kinds`` only; while no junction is of kind ``need``, that kind is tried first."""
    for k in range(edges):
        ahead = k < edges - 1  # more edges wanted: avoid dead ends (Engine.extend)
        nxt = None
        if need is not None and not any(j.kind == need for j in draft.junctions):
            nxt = await eng.extend(draft, rng, kinds=frozenset({need}), prefer=prefer,
                                   ahead=ahead, ahead_kinds=kinds)
        if nxt is None:
            nxt = await eng.extend(draft, rng, kinds=kinds, prefer=prefer, ahead=ahead,
                                   ahead_kinds=kinds)
        if nxt is None:
            break
        draft = nxt
    return draft


AIM: ContextVar[str | None] = ContextVar("aim", default=None)
"""The platform (catalog module) the running attempt is aimed at, or None: its drafts draw
their first root there (:func:`start`). Set per attempt by the worker from the schedule's
platform floor (:mod:`edgedsl.recipe.synth.pipeline`); a context variable, so the attempts of
a batch, run concurrently, each see their own."""


Fit = Callable[[Engine, Draft], Awaitable[bool]]
"""What a structure needs of its root, beyond an edge to go on (:func:`start`): a judgement of
the root draft, kept per root (:meth:`~edgedsl.recipe.synth.engine.Engine.fits`)."""


def grows_twice(kinds: frozenset[str] | None = None) -> Fit:
    """The :data:`Fit` of a chain of two or more edges: some usable out-edge of the root (of
    ``kinds``) leads to a tool from which a usable edge goes on again. A root whose usable
    edges all end in dead ends — an NEC candidate list, whose only way on is one candidate's
    pledges, which hand on nothing new — builds a chain of one edge, which the chain's
    restarts then drop for a longer one from another platform (docs/synth.md, "NEC")."""
    async def fit(eng: Engine, d: Draft) -> bool:
        async def judge() -> bool:
            return any(eng.can_grow(g, kinds=kinds)
                       for g in await eng.successors(d, kinds=kinds))
        return await eng.fits("grows twice", d, kinds, judge)
    return fit


async def start(eng: Engine, rng: random.Random, attempts: int = 4, *,
                few: bool = False, kinds: frozenset[str] | None = None,
                fit: Fit | None = None) -> Draft | None:
    """A root draft: a platform drawn among those with roots, then a callable tool of it drawn
    among its roots, run (a few draws; see :meth:`Engine.roots_by_platform`). A root that
    cannot build what the caller builds is drawn again on the same platform (then on another,
    up to ``attempts`` platforms): one from which no edge of ``kinds`` could go on
    (:meth:`Engine.can_grow`: a NEIS meal list hands on only the school it was given; a root
    whose only ways on are narrowings, for a chain that takes none), or one ``fit`` refuses
    (:func:`grows_twice` for a chain of two edges or more; a group for a Semantic-parallel
    draft) — so a platform whose chains start at one hub (NEIS at its school register, NEC at
    its list of elections) keeps its share of drafts. An attempt aimed at a platform
    (:data:`AIM`) draws its first platform there. ``few``: the root is a small read when
    its tool has one (a chain that needs a fan: :func:`~edgedsl.recipe.synth.roots.root_args`)."""
    by_platform = eng.roots_by_platform()
    platforms = sorted(by_platform)
    aim = AIM.get()
    for k in range(attempts):
        platform = aim if k == 0 and aim in by_platform else rng.choice(platforms)
        tools = list(by_platform[platform])
        while tools:
            tool = tools.pop(rng.randrange(len(tools)))
            d = await eng.root(tool, rng, few=few)
            if d is not None and eng.can_grow(d, kinds=kinds) \
                    and (fit is None or await fit(eng, d)):
                return d
    return None


async def chain(eng: Engine, rng: random.Random, length: int,
                target: str | None = None) -> Built | None:
    """A chain of ``length`` edges (at least one); aimed at Seq, Fan or Drv, its junctions are
    restricted accordingly (:data:`KINDS`, :data:`NEED`). A chain that fails or ends short of
    ``length`` (no out-edge of its last tool works) or one an analyst would not run
    (:func:`~.plausible.implausible`) is grown again from another root, up to
    :attr:`~edgedsl.recipe.synth.engine.Engine.restarts` times; the longest plausible one is
    kept (the longest of all when none is)."""
    need = NEED.get(target or "")
    best: tuple[bool, int, Draft, n.AnswerStmt] | None = None
    kinds = KINDS.get(target or "")
    fit = grows_twice(kinds) if length >= 2 else None
    for _ in range(1 + eng.restarts):
        d = await start(eng, rng, few=need == "fan", kinds=kinds, fit=fit)
        if d is None:
            continue
        d = await grow(eng, d, max(1, length), rng, kinds=kinds, need=need)
        if not d.edges or (need is not None and not any(j.kind == need for j in d.junctions)):
            continue
        answer = answer_of(eng, d, rng)
        ok = not implausible((*d.body, answer), eng.view)
        if best is None or (ok, len(d.edges)) > best[:2]:
            best = (ok, len(d.edges), d, answer)
        if best[0] and best[1] >= length:
            break
    if best is None:
        return None
    _, _, d, answer = best
    return Built(d.body, answer, d.edges, d, "chain")
