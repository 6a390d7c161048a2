"""Determinacy as a run-time fact (issue 18 §1): tie facts, and whether the answer is determined.

**Facts.** A ``drv`` step records, for each ``most_frequent`` / ``max`` / ``min`` / ``top`` /
``bottom`` filter, how many values shared the top count or how many rows held the extreme (the
boundary value of a ``top k`` / ``bottom k``) (:func:`tie_facts`: one
DuckDB statement per reduction, :func:`edgedsl.reduce.render.render_ties`, over the same source
the reduction read — inline from memory or its table); a call step records whether every arm read
its whole result (:func:`edgedsl.runtime.calls.read_fact`). Both live in the trace
(:class:`~edgedsl.runtime.trace.StepTrace` ``ties``, ``complete``, ``unread``).

**Determined.** :func:`determinacy` follows the dataflow of the plan from each answer field back:
a relation is *undetermined* by a step when that step is a ``most_frequent`` whose tie-break
chose (``broken``), a call that read part of its result (``complete`` False), or any step reading
such a relation — through a ``drv`` source, a ``seq`` / ``fan`` junction, a ``parallel``'s shared
argument, or an ``if`` predicate (every relation of the branch it took then inherits it). Only
steps that ran count, and only relations an answer field reads: a tie in a branch not taken or in
a relation the answer never reads does not. ``max`` / ``min`` and ``top k`` / ``bottom k`` keep
every tied row, so their ties are facts, never causes. :func:`undetermined_warnings` turns the
causes into ``W006`` diagnostics, one per causing step, at its span with hints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import duckdb

from ..core.diagnostics import Diagnostic, diag
from ..plan.model import (
    CallStep,
    CompareStep,
    DrvStep,
    IfStep,
    ParallelStep,
    TrajectoryPlan,
)
from ..reduce.query import Extreme, Mode, Rank, ReduceQuery
from ..reduce.render import render_ties, tie_filters
from .answers import prepared
from .duck import Relation
from .selection import execute_cached, inline_query
from .trace import Cause, Determinacy, StepTrace, TieTrace, Trace

__all__ = ["Cause", "Determinacy", "determinacy", "tie_facts", "undetermined_warnings"]


# ------------------------------------------------------------------------- tie facts


def tie_facts(con: duckdb.DuckDBPyConnection, scratch: duckdb.DuckDBPyConnection,
              src: Relation | None, query: ReduceQuery, st: StepTrace) -> None:
    """Record in ``st.ties`` the tie facts of ``query`` (the query the step ran) over its
    source: one statement, inline on ``scratch`` when ``src`` holds its columns in memory,
    else over the tables on ``con`` (``src`` written first)."""
    inline_src = src is not None and src.in_memory and isinstance(src.table, str)
    if inline_src and src is not None and query.source != src.table:
        query = ReduceQuery(src.table, query.filters)  # the inline copy is named like ``src``
    got = render_ties(query)
    if got is None:
        return
    sql, params = got
    row: Sequence[object] | None = None
    if inline_src and src is not None:
        inline = inline_query(sql, [(src, query.fields())])
        if inline is not None:
            # over a stored response's cached columns the counts are remembered, as the kept
            # ids are (a replayed drv runs neither statement again)
            memo = src.stored_memo()
            key = ("ties", inline[0], *((type(v), v) for v in params))
            row = None if memo is None else memo.kept.get(key)
            if row is None:
                row = execute_cached(scratch, inline[0], [*inline[1], *params]).fetchone()
                if memo is not None and row is not None:
                    memo.remember(key, [int(v) for v in row])
    if row is None:
        if src is not None:
            src.ensure()
        row = execute_cached(con, sql, params).fetchone()
    assert row is not None
    for i, tied in zip(tie_filters(query), row, strict=True):
        f = query.filters[i]
        assert isinstance(f, Mode | Extreme | Rank)
        op: Literal["most_frequent", "max", "min", "top", "bottom"] = \
            "most_frequent" if isinstance(f, Mode) else f.fn if isinstance(f, Extreme) \
            else "top" if f.fn == "max" else "bottom"
        st.ties.append(TieTrace(filter=i, op=op, field=f.field, tied=int(tied),
                                broken=op == "most_frequent" and int(tied) > 1))


# ------------------------------------------------------------------------- the dataflow


def _own(st: StepTrace) -> Cause | None:
    broken = [t for t in st.ties if t.broken]
    if broken:
        return Cause(step=st.id, kind="tie", field=broken[0].field, tied=broken[0].tied)
    if st.complete is False:
        read = sum(c.records for c in st.calls)
        return Cause(step=st.id, kind="partial", read=read, unread=st.unread,
                     pages=st.pages_read)
    return None


class _Flow:
    def __init__(self, tp: TrajectoryPlan, trace: Trace) -> None:
        self.tp = tp
        self.ran = {s.id: s for s in trace.steps}
        self.taint: dict[str, frozenset[str]] = {}  # relation → causing steps
        self.causes: dict[str, Cause] = {}

    def of(self, names: Sequence[str] | Mapping[str, object]) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for n in names:
            out |= self.taint.get(n, frozenset())
        return out

    def layers(self, layers: Sequence[Sequence[str]], ctx: frozenset[str],
               shared: frozenset[str] = frozenset()) -> None:
        for layer in layers:
            for key in layer:
                self.step(key, ctx, shared)

    def step(self, key: str, ctx: frozenset[str], shared: frozenset[str]) -> None:
        st = self.ran.get(key)
        if st is None:  # not run: a branch not taken, or after a failure
            return
        s = self.tp.steps[key]
        got = set(ctx)
        name = s.relation or s.id
        if isinstance(s, CallStep | CompareStep):
            got |= self.of([j.source for _, j in s.request.all_junctions])
            if isinstance(s, CallStep) and s.request.shared:
                got |= shared
        elif isinstance(s, DrvStep):
            got |= self.taint.get(s.source, frozenset())
        elif isinstance(s, ParallelStep):
            inner = frozenset(got | self.of([sh.junction.source for sh in s.shared.values()
                                            if sh.junction is not None]))
            self.layers([s.branches], frozenset(ctx), inner)
            got |= inner | self.of(s.branches)
        elif isinstance(s, IfStep):
            pred = frozenset(got | self.of(prepared(s.predicate).facts.reads))
            self.layers(s.then if st.branch == "then" else s.orelse, pred)
            return
        own = _own(st)
        if own is not None:
            self.causes[st.id] = own
            got.add(st.id)
        self.taint[name] = frozenset(got)


def determinacy(tp: TrajectoryPlan, trace: Trace) -> Determinacy:
    """Whether the answer of the run of ``tp`` that ``trace`` records is determined: no broken
    tie and no partial read reaches an answer field (see the module docstring). Works on a
    trace read back from JSON as well."""
    flow = _Flow(tp, trace)
    flow.layers(tp.layers, frozenset())
    reached: dict[str, list[str]] = {}
    if tp.answer is not None:
        for i, f in enumerate(tp.answer.fields):
            label = f.name or ("" if tp.answer.kind == "expr" else f"_{i}")
            for step in sorted(flow.of(prepared(f).facts.reads)):
                reached.setdefault(step, []).append(label)
    order = {s.id: i for i, s in enumerate(trace.steps)}
    causes = [flow.causes[k].model_copy(update={"fields": v})
              for k, v in sorted(reached.items(), key=lambda kv: order.get(kv[0], 0))]
    return Determinacy(determined=not causes, causes=causes)


def _what(fields: Sequence[str]) -> str:
    named = [f for f in fields if f]
    if not named:
        return "the answer is"
    if len(named) == 1:
        return f"answer field `{named[0]}` is"
    return "answer fields " + ", ".join(f"`{f}`" for f in named) + " are"


def undetermined_warnings(tp: TrajectoryPlan, det: Determinacy, *,
                          tie_break: Literal["smallest", "largest"] = "smallest",
                          ) -> list[Diagnostic]:
    """One ``W006`` per cause of ``det``, at the causing step's span, with hints. ``tie_break``
    is the rule the run used (the ``tie_break`` perturbation keeps the largest value)."""
    out: list[Diagnostic] = []
    for c in det.causes:
        s = tp.steps.get(c.step)
        span = None if s is None or s.span is None else s.span.to_span()
        what = _what(c.fields)
        if c.kind == "tie":
            msg = (f"{what} not determined: `most_frequent {c.field}` in `{c.step}` found "
                   f"{c.tied} values sharing the top count and kept the {tie_break}")
            label = f"{c.tied} values tied"
            hints = [f"narrow `{c.step}`'s input first by something meaningful (a `drv … | "
                     "where …` the question states) so one value is the most frequent",
                     "or say in the question which of the tied values is meant"]
        else:
            left = "an unknown number of records" if c.unread is None \
                else f"{c.unread:,} records"
            msg = (f"{what} not determined: `{c.step}` read {c.read:,} records in "
                   f"{c.pages} page{'s' if c.pages != 1 else ''} and left {left} unread")
            label = "partial read"
            hints = [f"read every page: `… ) pages all` on `{c.step}`",
                     "or narrow the call's arguments so that one page holds the whole result",
                     "or say in the question that only the first records are meant"]
        out.append(diag("W006", msg, span, label, hints=hints))
    return out


def partial_read_warnings(tp: TrajectoryPlan, trace: Trace,
                          det: Determinacy | None) -> list[Diagnostic]:
    """One ``W007`` per call or ``compare`` step that read fewer records than the service
    reported (``StepTrace.unread``), whether or not the answer depends on them — a call without
    ``pages`` answers 100 while the service reported 128, and the run says so. A step already
    named by a ``W006`` (its partial read leaves the answer undetermined) is not named twice."""
    named = {c.step for c in det.causes} if det is not None else set()
    out: list[Diagnostic] = []
    for st in trace.steps:
        if not st.unread or st.id in named or st.kind not in ("call", "compare"):
            continue
        s = tp.steps.get(st.id)
        read = st.records or 0
        pages = getattr(getattr(s, "request", None), "pages", None)
        msg = (f"`{st.id}` read {read:,} records while the service reported "
               f"{read + st.unread:,} ({st.unread:,} unread, {st.pages_read} "
               f"page{'s' if st.pages_read != 1 else ''} read)")
        if pages is None:
            hints = [f"without `pages` only the first page is read: add `pages all` to "
                     f"`{st.id}`'s call, or narrow its arguments"]
        else:
            hints = [f"`pages {pages}` stopped before the end: `pages all` reads every page "
                     "(bounded by max_pages), or narrow the call's arguments"]
        span = None if s is None or s.span is None else s.span.to_span()
        out.append(diag("W007", msg, span, "partial read", hints=hints))
    return out
