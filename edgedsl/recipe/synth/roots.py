"""Root arguments drawn from values that made the call return records (issue 18 §2).

A draft's first call takes literal arguments from the tool's default candidates (catalog enums
and the values G* observed). Drawn blindly, many of them return nothing — the election ids of
G*'s pool are elections of 1992 … 2003, for which the service holds no candidates; a NEIS
timetable needs a school that has one — or they read one page of thousands of records (the
school register of the whole country), which leaves everything downstream undetermined. So a
root's arguments are drawn from a *pool of argument tuples that made the call succeed*:
:func:`probe` runs, in a fixed order, argument tuples for the tool and keeps those whose call
returned records, noting whether the read was whole; :func:`root_args` draws among the whole
reads when there are any, else among the others. The tuples tried, in order, until
:data:`ENOUGH` whole reads are found or :data:`PROBES` tuples were run:

1. **defaults** — draws of the required parameters' default candidates (as before);
2. **a stated filter** — when such a read is partial, one optional parameter a person would
   state, named like a field of the records the read returned and holding a category there
   (:data:`CATEGORIES`; a text parameter only with Korean values: 학교종류, 시도교육청코드,
   자치구명, 전월세 구분, 시도명 …, not a lot number), takes a value
   those records hold (up to :data:`FILTERS` filters, one at a time, while the read stays
   partial; drawn again for each partial read until :data:`ENOUGH` whole reads are found;
   when no category makes a read whole, any Korean value of such a field: 서울특별시 종로구
   신교동 in the region code list).
   A parameter of an entity identifier type (:mod:`edgedsl.recipe.synth.entities`: a school
   code, a candidate id) is never filled this way — a question states names, not internal
   ids — nor is a date;
3. **all pages** — a partial read whose service reports at most :data:`ALL_PAGES` pages and
   :data:`ALL_RECORDS` records in all is read with ``pages all`` (the list of elections: two
   pages, 276 records);
4. **fed by an edge** — when the defaults made no whole read, argument tuples are taken from
   the records of a G* edge's source root into the tool (its bound fields, jointly: the
   election id and election type of one election's record, for ``nec.candidates``);
5. **narrower whole reads** — while fewer than :data:`ENOUGH` whole reads are known, a whole
   read of many records takes one stated category filter from its own records, as in step 2:
   the committee of a list of notices, the kind of a register's schools. Each is another
   root a question can start from (a tool with no required parameter had one root before).

Every probe is an ordinary memoised run of the one-call draft (:meth:`Engine.execute`), so the
root drawn afterwards costs nothing more, and the probes of a tool are a pure function of the
tool, G* and the world: every process of a run probes the same (``Engine.probed`` keeps them;
the attempts of a batch, which run concurrently, wait for one probe of a tool).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ...syntax import nodes as n
from ..graph.model import Port, Scalar
from ..graph.observe import value_ok
from .entities import entity_of
from .plausible import internal_code

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["ALL_PAGES", "ENOUGH", "FEW_ROWS", "FILTERS", "NARROWER_ARGS", "NARROWER_ROWS",
           "PROBES", "Probed", "internal_args", "once", "probe", "root_args", "root_call"]

PROBES = 24
"""Argument tuples probed per root tool at most (per step)."""

ENOUGH = 12
"""Probing stops once this many tuples gave a whole read: the roots a tool can start a draft
from. Four made the 1,781-task run saturate — its Seq, Sem, Fan and Cond drafts grew from the
same few roots into the same programs (docs/synth.md, *Performance*)."""

NARROWER_ROWS = 10
"""A whole read of more than this many records may be narrowed by a stated category filter
into another root (step 5 of the module doc)."""

NARROWER_ARGS = 3
"""… while it states fewer arguments than this."""

FEW_ROWS = 10
"""A chain that needs a fan starts from a whole read of at most this many records when the
tool has one (:func:`root_args`)."""

PARTIAL = 2
"""Default draws stop after this many partial reads and no whole one (a yearly register of
10,000 statements a year is partial whatever the year): stated filters take over."""

FILTERS = 2
"""Stated filters a partial root read may take, one at a time."""

ALL_PAGES = 3
"""A partial root read whose service reports at most this many pages, and at most
:data:`ALL_RECORDS` records, is read whole."""

ALL_RECORDS = 3000

CATEGORIES = 30
"""A stated filter is a category: its field holds 2 … this many distinct values in the records
(and at most one per ten records) — 학교종류, 시도교육청, 자치구명, not a lot number or a name."""

Args = tuple[tuple[str, Scalar], ...]
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Probed:
    """One probed argument tuple of a root: the pages it is read with (``1`` or ``"all"``), the
    records its call returned and whether they are its whole result."""

    args: Args
    pages: int | Literal["all"]
    rows: int
    whole: bool
    records: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)


def root_call(eng: Engine, tool: str, probed: Probed) -> n.Call:
    """The call node of a root drawn as ``probed`` (ValueError when an argument does not fit):
    the engine's call, reading all pages when the probe needed them."""
    call = eng.call(tool, eng.literal_args(tool, probed.args))
    if probed.pages == "all" and call.pages is not None:
        call = n.Call(platform=call.platform, tool=call.tool, args=call.args, pages="all")
    return call


async def root_args(eng: Engine, tool: str, rng: random.Random, *,
                    few: bool = False) -> Probed | None:
    """A root of ``tool`` drawn among the probed tuples that returned records — among those read
    whole when there are any; None when none returned records. With ``few`` (a chain that
    needs a fan), among the whole reads of 2 … :data:`FEW_ROWS` records when there are any: a
    fan hands on 2 … φ values without a ``drv``, which a read of hundreds rarely has (the
    members of one small party, the rest areas of one direction of a route). A tuple stating an
    internal code (:func:`internal_args`) is never drawn."""
    got = await once(eng.probed, ("drawable", tool), lambda: _drawable(eng, tool))
    whole = [p for p in got if p.whole]
    if few:
        whole = [p for p in whole if 2 <= p.rows <= FEW_ROWS] or whole
    pool = whole or got
    return rng.choice(pool) if pool else None


async def _drawable(eng: Engine, tool: str) -> list[Probed]:
    """The probed tuples of ``tool`` a root may be drawn from: those stating no internal code
    (worked out once per tool, not at every draw)."""
    return [p for p in await probe(eng, tool) if not internal_args(eng, tool, p.args)]


def internal_args(eng: Engine, tool: str, args: Args) -> bool:
    """True when ``args`` give a parameter an internal code a person could not know without
    calling the service first (:func:`~.plausible.internal_code`: a DART 고유번호, a school
    code, a TAGO city code): a draft from such a root is rejected as ``internal_input`` whatever
    it grows into, so it is not drawn (seed 1, 200 tasks: 51 of 617 attempts were so rejected,
    after their whole generation)."""
    facts = eng.view(tool)
    codes = facts.codes if facts is not None else {}
    return any(internal_code(codes.get(p), p, v) for p, v in args)


async def probe(eng: Engine, tool: str) -> list[Probed]:
    """The probed argument tuples of ``tool`` that returned records (see the module doc),
    memoised per engine: concurrent attempts of a batch wait for the same probe."""
    return await once(eng.probed, ("all", tool), lambda: _probe(eng, tool))


async def once(table: dict[K, asyncio.Future[V]], key: K,
               make: Callable[[], Awaitable[V]]) -> V:
    """``make()`` run once per ``key`` of ``table`` and kept there: the concurrent attempts of
    a batch asking for the same key wait for the one run (probes, root drafts, judgements of
    a root: :class:`~edgedsl.recipe.synth.engine.Engine`)."""
    fut = table.get(key)
    if fut is None:
        fut = table[key] = asyncio.ensure_future(make())
    return await fut


async def _probe(eng: Engine, tool: str) -> list[Probed]:
    out = list(await _own(eng, tool))
    if any(p.whole for p in out):
        return out
    rng = random.Random(f"roots:fed:{tool}")
    tried: set[Args] = set()
    for args in await _fed_args(eng, tool, rng):
        if not await _try(eng, tool, args, tried, out):
            continue
        if sum(p.whole for p in out) >= ENOUGH or len(tried) >= PROBES:
            break
    return out


async def _try(eng: Engine, tool: str, args: Args, tried: set[Args],
               out: list[Probed]) -> bool:
    """Probe ``args`` once (False when tried before), adding what returned records to ``out``."""
    if args in tried:
        return False
    tried.add(args)
    p = await _run(eng, tool, args, 1)
    if p is not None:
        out.append(p)
    return True


async def _own(eng: Engine, tool: str) -> list[Probed]:
    """Steps 1 … 3 of the module doc: the tool's own defaults and stated filters (what an edge
    into another tool reads in step 4: no probe waits on another's edge-fed step, so edge
    cycles cannot wait on each other)."""
    return await once(eng.probed, ("own", tool), lambda: _probe_own(eng, tool))


async def _probe_own(eng: Engine, tool: str) -> list[Probed]:
    rng = random.Random(f"roots:{tool}")
    out: list[Probed] = []
    tried: set[Args] = set()

    def enough(limit: int) -> bool:
        return sum(p.whole for p in out) >= ENOUGH or len(tried) >= limit

    for args in _default_args(eng, tool, rng):
        if not await _try(eng, tool, args, tried, out):
            continue
        if enough(PROBES) or (not any(p.whole for p in out) and len(out) >= PARTIAL):
            break  # more draws of a register read partially are alike: filter them instead
    partial = [p for p in out if not p.whole]
    for loose in (False, True):  # stated categories first; any stated name when none works
        if loose and any(p.whole for p in out):
            break
        for k in range(PROBES):  # stated filters, drawn again for each partial read in turn
            if not partial or enough((3 if loose else 2) * PROBES):
                break
            q = await _whole(eng, tool, partial[k % len(partial)], rng, tried, loose=loose)
            if q.whole and q not in out:
                out.append(q)
    await _narrower(eng, tool, out, rng, tried)
    return out


async def _narrower(eng: Engine, tool: str, out: list[Probed], rng: random.Random,
                    tried: set[Args]) -> None:
    """Step 5 of the module doc: while fewer than :data:`ENOUGH` whole reads are known, each
    whole read of more than :data:`NARROWER_ROWS` records takes one stated category filter
    from its own records (drawn in turn, up to :data:`PROBES` tries); a narrower whole read is
    another root (``lawmaking_notices(CURR_COMMITTEE: "법제사법위원회")`` beside
    ``lawmaking_notices()``)."""
    for k in range(PROBES):
        wide = [p for p in out if p.whole and p.rows > NARROWER_ROWS
                and len(p.args) < NARROWER_ARGS]
        if not wide or sum(p.whole for p in out) >= ENOUGH:
            return
        p = wide[k % len(wide)]
        options = _filters(eng, tool, p)
        if not options:
            continue
        name, values = options[rng.randrange(len(options))]
        args = (*p.args, (name, values[rng.randrange(len(values))]))
        if args in tried:
            continue
        tried.add(args)
        q = await _run(eng, tool, args, p.pages)
        if q is not None and q.whole and q.rows < p.rows:
            out.append(q)


async def _run(eng: Engine, tool: str, args: Args,
               pages: int | Literal["all"]) -> Probed | None:
    """One probe: ``tool`` called with ``args``, reading ``pages`` (1 or all) whatever the
    engine's own choice of pages, compiled and run like a draft — but kept when the read is
    partial (a draft's run may refuse that): its first page is what stated filters come from."""
    from ...api import compile as compile_source
    from ...core.diagnostics import CompileError
    from ...core.source import Source
    from ...runtime.executor import run_trajectory
    from .engine import Executed

    try:
        call = eng.call(tool, eng.literal_args(tool, args))
    except (KeyError, ValueError):
        return None
    if call.pages is not None:
        call = n.Call(platform=call.platform, tool=call.tool, args=call.args, pages=pages)
    traj = n.Trajectory(name="probe", query="probe", body=(
        n.Binding(name="probe", node=call), eng.count_answer("probe")))
    text = eng.text(traj)
    try:
        plan = compile_source(Source("<probe>", text), search_paths=eng.search_paths)
    except CompileError:
        return None
    ex = Executed(plan, await run_trajectory(plan, "probe", eng.memo, phi=eng.phi), text)
    rows = ex.records_of(eng.memo, "probe") if ex.result.ok else None
    if not rows:
        return None
    trace = ex.result.trace
    step = next((s for s in trace.steps if s.id == "probe"), None) if trace else None
    unread = step.unread if step is not None else None
    p = Probed(args, pages, len(rows), not ex.partial("probe"), tuple(rows))
    if not p.whole and pages == 1 and unread is not None \
            and len(rows) + unread <= min(ALL_PAGES * len(rows), ALL_RECORDS):
        whole = await _run(eng, tool, args, "all")
        if whole is not None and whole.whole:
            return whole
    return p


async def _whole(eng: Engine, tool: str, p: Probed, rng: random.Random,
                 tried: set[Args], *, loose: bool = False) -> Probed:
    """``p`` narrowed by stated filters taken from its own records while it stays partial
    (up to :data:`FILTERS`); ``p`` itself when no filter gives records."""
    for _ in range(FILTERS):
        if p.whole:
            break
        options = _filters(eng, tool, p, loose=loose)
        if not options:
            break
        name, values = options[rng.randrange(len(options))]
        args = (*p.args, (name, values[rng.randrange(len(values))]))
        if args in tried:
            break
        tried.add(args)
        narrower = await _run(eng, tool, args, 1)
        if narrower is None:
            break
        p = narrower
    return p


def _filters(eng: Engine, tool: str, p: Probed, *,
             loose: bool = False) -> list[tuple[str, list[Scalar]]]:
    """Optional parameters of ``tool`` not set in ``p`` that a person states, with the values
    ``p``'s records hold for the field of the same name (each fitting the parameter): a
    category (:data:`CATEGORIES`), or with ``loose`` any Korean value (a place name of the
    region code list, which holds no category). Memoised per engine: a partial read is
    narrowed from again at every draw."""
    key = (tool, p, loose)
    got = eng.filtered.get(key)
    if got is None:
        got = eng.filtered[key] = _filters_of(eng, tool, p, loose)
    return got


def _filters_of(eng: Engine, tool: str, p: Probed,
                loose: bool) -> list[tuple[str, list[Scalar]]]:
    have = {k for k, _ in p.args}
    bound = None if loose else min(CATEGORIES, max(2, len(p.records) // 10))
    out = []
    for port in eng.nodes[tool].params:
        if not port.optional or port.name in have or entity_of(port.code) is not None \
                or port.type == "date":
            continue
        # each distinct raw value is fitted once (a page repeats its categories); keyed by
        # type too, since 1, 1.0 and True are equal keys but fit differently
        raws = dict.fromkeys((type(raw), raw) for r in p.records
                             if (raw := r.get(port.name)) is not None
                             and not isinstance(raw, list | dict))
        values: dict[Scalar, None] = {}
        for _, raw in raws:
            v = _fit(port, raw, eng)
            # a category a person names: 고등학교, 종로구 (not a lot number)
            if v is None or (port.type == "str" and not (isinstance(v, str) and _hangul(v))):
                continue
            values[v] = None
            if bound is not None and len(values) > bound:
                break  # too many to be a category: fitting the rest changes nothing
        if len(values) >= 2 and (bound is None or len(values) <= bound):
            out.append((port.name, list(values)))
    return out


def _hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in text)


def _fit(port: Port, raw: object, eng: Engine) -> Scalar | None:
    """``raw`` (a record's JSON value) as a literal value of ``port``, or None."""
    if raw is None or isinstance(raw, list | dict):
        return None
    cands: list[Any] = [raw]
    if isinstance(raw, str):
        text = raw.strip()
        if text.lstrip("-").isdigit():
            cands.append(int(text))
        if len(text) == 8 and text.isdigit():
            with contextlib.suppress(ValueError):
                cands.append(_dt.date(int(text[:4]), int(text[4:6]), int(text[6:])).isoformat())
    elif isinstance(raw, int | float) and not isinstance(raw, bool):
        cands.append(str(raw))
    return next((v for v in cands if value_ok(port, v, eng.args.codes)), None)


def _default_args(eng: Engine, tool: str, rng: random.Random) -> list[Args]:
    """Distinct draws of the required parameters' default candidates (the old root draw)."""
    required = eng.nodes[tool].required
    defaults = eng.args.defaults(tool)
    if any(p not in defaults for p in required):
        return []
    out: list[Args] = []
    for _ in range(4 * PROBES):
        args = tuple((p, rng.choice(defaults[p])) for p in required)
        if args not in out:
            out.append(args)
        if len(out) >= PROBES:
            break
    return out


async def _fed_args(eng: Engine, tool: str, rng: random.Random) -> list[Args]:
    """Argument tuples of ``tool`` read from the records of the roots of its G* in-edges: the
    bound fields of one record, jointly, and defaults for the other required parameters."""
    node = eng.nodes[tool]
    defaults = eng.args.defaults(tool)
    ports = {p.name: p for p in node.params}
    out: list[Args] = []
    sources = sorted({e.source for e in eng.graph.edges if e.target == tool
                      and e.source != tool and e.source in eng.out})
    for src in sources:
        edges = [e for e in eng.out[src] if e.target == tool]
        if not edges or not eng.args.callable(src):
            continue
        bound = {b.param for b in edges[0].bindings}
        if any(p not in bound and p not in defaults for p in node.required):
            continue
        records = [r for p in await _own(eng, src) for r in p.records]
        for r in rng.sample(records, min(len(records), 4 * PROBES)):
            args = []
            for b in edges[0].bindings:
                v = _fit(ports[b.param], r.get(b.field), eng)
                if v is None:
                    break
                args.append((b.param, v))
            else:
                args += [(p, rng.choice(defaults[p])) for p in node.required if p not in bound]
                if tuple(args) not in out:
                    out.append(tuple(args))
    return out
