"""Chains and answers, the base of every structure generator: :class:`Built` (what a generator
returns), :func:`answer_of` (the answer of a finished draft), and growing a chain of G* edges from
a root (:func:`start`, :func:`grow`, :func:`chain`). See :mod:`.structures` for the structures."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...core.types import FieldType, ListType, is_date, is_numeric
from ...syntax import nodes as n
from ..graph.model import GraphEdge
from .engine import Draft, Engine, Prefer
from .junction import Columns

__all__ = [
    "KINDS",
    "NEED",
    "Built",
    "answer_name",
    "answer_of",
    "chain",
    "grow",
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


_NAMEY = ("nm", "name", "title", "명", "ttl")


def _field_rank(name: str, t: FieldType) -> int:
    low = name.lower()
    if any(k in low for k in _NAMEY):
        return 0
    if is_numeric(t):
        return 1
    if is_date(t):
        return 2
    return 3


def answer_name(field: str, taken: set[str]) -> str:
    """An answer field name for ``field``: an identifier, not in ``taken`` (a suffix if needed)."""
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in field).strip("_") or "value"
    if base[0].isdigit():
        base = "f_" + base
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def single_fields(cols: Columns, limit: int = 2, echo: frozenset[str] = frozenset(),
                  avoid: frozenset[str] = frozenset()) -> list[str]:
    """Up to ``limit`` fields holding exactly one value in the records of ``cols`` (names, then
    numbers, then dates), skipping lists, text longer than 60 characters and values in ``echo``
    (the values the call was handed: answering them would answer nothing); fields named in
    ``avoid`` (the upstream tool's, which the records echo) only when nothing else is left."""
    ok = []
    for f, t in sorted(cols.types.items(), key=lambda kv: (_field_rank(*kv), kv[0])):
        if isinstance(t, ListType) or f.startswith("__"):
            continue
        vals = cols.distinct(f)
        if len(vals) == 1 and str(vals[0]) not in echo \
                and not (isinstance(vals[0], str) and len(vals[0]) > 60):
            ok.append(f)
    fresh = [f for f in ok if f not in avoid]
    return (fresh + [f for f in ok if f in avoid])[:limit]


def answer_of(eng: Engine, draft: Draft, rng: random.Random, *,
              taken: set[str] | None = None) -> n.AnswerStmt:
    """The answer of a chain: single-valued fields of the last relation, and its count when it
    holds several records (see the module doc); ``taken`` holds the answer names already used
    (by fields the caller adds)."""
    taken = set() if taken is None else taken
    echo = draft.junctions[-1].handed if draft.junctions else frozenset()
    before = draft.tools[-2] if len(draft.tools) > 1 else None
    avoid = frozenset(eng.types(before)) if before else frozenset()
    fields = [n.AnswerField(name=answer_name(f, taken), expr=n.Ref(parts=(draft.last, f)))
              for f in single_fields(eng.columns(draft), limit=rng.choice((1, 2, 2)),
                                     echo=echo, avoid=avoid)]
    # the count of a partial read is a page size, not an answer (unless nothing else is left)
    if (len(draft.rows) > 1 and not draft.partial) or not fields:
        fields.append(n.AnswerField(name=answer_name("count", taken), expr=n.FuncCall(
            name="count", args=(n.NameExpr(name=draft.last),))))
    return n.AnswerStmt(fields=tuple(fields))


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


async def start(eng: Engine, rng: random.Random, attempts: int = 4) -> Draft | None:
    """A root draft: a platform drawn among those with roots, then a callable tool of it drawn
    among its roots, run (a few draws; see :meth:`Engine.roots_by_platform`). A root from
    which no edge could go on (:meth:`Engine.can_grow`: a NEIS meal list hands on only the
    school it was given) is drawn again on the same platform, so that a platform whose chains
    start at one hub (NEIS at its school register) keeps its share of drafts."""
    by_platform = eng.roots_by_platform()
    platforms = sorted(by_platform)
    for _ in range(attempts):
        tools = list(by_platform[rng.choice(platforms)])
        while tools:
            tool = tools.pop(rng.randrange(len(tools)))
            d = await eng.root(tool, rng)
            if d is not None and eng.can_grow(d):
                return d
    return None


async def chain(eng: Engine, rng: random.Random, length: int,
                target: str | None = None) -> Built | None:
    """A chain of ``length`` edges (at least one); aimed at Seq, Fan or Drv, its junctions are
    restricted accordingly (:data:`KINDS`, :data:`NEED`). A chain that fails or ends short of
    ``length`` (no out-edge of its last tool works) is grown again from another root, up to
    :attr:`~edgedsl.recipe.synth.engine.Engine.restarts` times; the longest is kept."""
    need = NEED.get(target or "")
    best: Draft | None = None
    for _ in range(1 + eng.restarts):
        d = await start(eng, rng)
        if d is None:
            continue
        d = await grow(eng, d, max(1, length), rng, kinds=KINDS.get(target or ""), need=need)
        if not d.edges or (need is not None and not any(j.kind == need for j in d.junctions)):
            continue
        if best is None or len(d.edges) > len(best.edges):
            best = d
        if len(best.edges) >= length:
            break
    if best is None:
        return None
    return Built(best.body, answer_of(eng, best, rng), best.edges, best, "chain")
