"""Calling tools for a run: the requests of a step, their pages, the values junctions read.

A :class:`Caller` makes one step's calls on the run's backend — at most ``concurrency`` in
flight, each recorded as a :class:`~edgedsl.runtime.trace.CallTrace` with its arguments redacted
— and reads pages as the plan says (no clause: the first page; ``pages N``: at most N;
``pages all``: until the reported total is reached or a page comes back short, bounded by
``max_pages``, R506 when still unfinished). :func:`junction_values` reads a junction's distinct
values and checks their number. A failure raises :class:`StepError`, which carries the
diagnostic and the trace's failure; the executor (:mod:`edgedsl.runtime.executor`) records it on
the step.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from ..core.diagnostics import Diagnostic, diag
from ..core.source import Span
from ..plan.model import (
    CallStep,
    CompareStep,
    DrvStep,
    JunctionSpec,
    SpanInfo,
    ToolSpec,
    TrajectoryPlan,
)
from ..plan.surface import reducer_text
from .answers import jsonable
from .backends import MAX_TOTAL, Backend, Response, classify
from .duck import Relation
from .progress import SILENT, Progress
from .redact import scrub
from .trace import (
    MAX_SHOWN,
    REDACTED,
    CallTrace,
    FailureInfo,
    JunctionTrace,
    StepTrace,
    would_be,
)

__all__ = ["Caller", "StepError", "arm_text", "junction_values", "span_of"]


class StepError(Exception):
    """A step failed: ``diagnostic`` for the result, ``failure`` for the step's trace."""

    def __init__(self, d: Diagnostic, failure: FailureInfo) -> None:
        super().__init__(d.message)
        self.diagnostic = d
        self.failure = failure


def span_of(info: SpanInfo | None) -> Span | None:
    """The source span of a plan span (None for none)."""
    return None if info is None else info.to_span()


def arm_text(v: object) -> str:
    """The text naming an arm of a fan or ``compare`` by its value (dates ISO, others JSON)."""
    if isinstance(v, str):
        return v
    if isinstance(v, _dt.date):
        return v.isoformat()
    return orjson.dumps(jsonable(v)).decode()


def junction_values(rels: Mapping[str, Relation], tp: TrajectoryPlan, phi: int, j: JunctionSpec,
                    param: str, st: StepTrace, span: SpanInfo | None, tool: str) -> list[Any]:
    """The distinct values junction ``j`` (argument ``param`` of a call of ``tool`` in step
    ``st``) reads from its source relation, recorded in the trace; a Seq must see exactly one, a
    Fan 1 … its bound: 0 values is R501, more than the bound R502 (a :class:`StepError` whose
    hints say how to narrow or widen)."""
    rel = rels.get(j.source)
    if rel is None:
        raise KeyError(f"relation {j.source!r} was not computed before `{st.id}`")
    values = rel.distinct(j.field)
    n = len(values)
    ok = n == 1 if j.kind == "seq" else 1 <= n <= j.bound
    st.junctions.append(JunctionTrace(
        param=param, kind=j.kind, source=j.source, field=j.field, bound=j.bound,
        cardinality=n, values=[jsonable(v) for v in values[:MAX_SHOWN]],
        would_be=would_be(n, phi), ok=ok))
    if ok:
        return values
    spelled = f"{j.kind}{'' if j.kind == 'seq' or j.bound == phi else f'({j.bound})'}"
    ref = f"{j.source}.{j.field}"
    need = "exactly 1" if j.kind == "seq" else f"1 … {j.bound}"
    hints: list[str] = []
    culprit, label = j.source, f"`{j.source}` comes from here"
    if n == 0:
        culprit, label, hint = empty_culprit(rels, tp, j.source, j.field)
        hints.append(hint)
    elif j.kind == "seq" and n <= phi:
        hints.append(f"use `fan` (k ≤ {phi}) to call `{tool}` once per value: "
                     f"`fan {ref}`, or add a `drv` node to narrow `{j.source}` first")
    else:
        if j.kind == "fan" and n <= phi:
            hints.append(f"raise the bound: `fan({n}) {ref}`")
        hints.append(f"add a `drv` node to narrow `{j.source}` first "
                     f"(e.g. `drv {j.source} | max …` or `| where …`)")
    code = "R501" if n == 0 else "R502"  # no value / more values than the bound
    msg = (f"`{spelled} {ref}` saw {n} distinct value{'s' if n != 1 else ''}; "
           f"a {j.kind} junction needs {need}")
    src = tp.steps.get(culprit)
    secondary = [] if src is None or src.span is None else [(src.span.to_span(), label)]
    d = diag(code, msg, span_of(j.span or span), f"{n} values", hints=hints,
             secondary=secondary)
    raise StepError(d, FailureInfo(kind="structural", code=code, message=msg))


def empty_culprit(rels: Mapping[str, Relation], tp: TrajectoryPlan, source: str,
                  field: str) -> tuple[str, str, str]:
    """The step to blame when a junction reading ``source.field`` saw no value, the label of
    its span and the hint saying why: ``source`` itself when it has records but none with a
    ``field`` value; otherwise, up its ``drv`` chain, the first step that was given records
    and kept none (a ``drv`` whose filter kept nothing), or the call that returned none."""
    rel = rels[source]
    if rel.count():
        return source, f"`{source}` comes from here", (
            f"`{source}` has {rel.count()} records but none with a `{field}` value")
    name = source
    while True:
        step = tp.steps.get(name)
        if not isinstance(step, DrvStep) or step.source not in rels:
            break
        upstream = rels[step.source].count()
        if upstream:
            chain = " | ".join(reducer_text(r) for r in step.reducers)
            return name, f"`{name}` kept none of its records", (
                f"`{name}` (`drv {step.source} | {chain}`) kept none of `{step.source}`'s "
                f"{upstream} records; loosen its filter")
        name = step.source
    what = f"the call `{name}`" if isinstance(step, CallStep | CompareStep) else f"`{name}`"
    via = "" if name == source else f" (and so `{source}`, which reads it, is empty)"
    return name, f"`{name}` returned nothing", (
        f"{what} returned no records{via}; check its arguments")


def read_fact(st: StepTrace, got: int, total: int | None, *, done: bool | None) -> None:
    """Fold one arm's read into the step's facts: ``complete`` is False when some arm stopped
    short, else None when some arm cannot be told, else True; ``unread`` adds what a reported
    ``total`` says the arm left."""
    if not st.arms_read:
        st.complete = done
    elif st.complete is not False:
        st.complete = False if done is False else None if done is None or st.complete is None \
            else True
    st.arms_read += 1
    if total is not None and total > got:
        st.unread = (st.unread or 0) + total - got


class Caller:
    """Calls a run's tools: at most ``sem``'s count of calls in flight on ``backend``, each
    recorded in its step's trace (arguments redacted; times from ``ms``), pages read up to
    ``max_pages`` for ``pages all``. A failure is a :class:`StepError` with its classified code."""

    def __init__(self, backend: Backend, sem: asyncio.Semaphore, max_pages: int,
                 ms: Callable[[], float], progress: Progress = SILENT,
                 trajectory: str = "") -> None:
        self.backend, self.sem, self.max_pages, self.ms = backend, sem, max_pages, ms
        self.progress, self.trajectory = progress, trajectory

    def _redact(self, tool: ToolSpec, args: Mapping[str, object]) -> dict[str, Any]:
        shown = {k: REDACTED if k == tool.secret else jsonable(v) for k, v in args.items()}
        return scrub(shown)  # a live key the arguments hold (see redact.remember)

    async def one_call(self, tool: ToolSpec, args: dict[str, object], page: int | None,
                       st: StepTrace, arm: str | None, span: SpanInfo | None) -> Response:
        """One call of ``tool`` (one page), recorded in ``st``; a failure is classified."""
        async with self.sem:
            ct = CallTrace(arm=arm, args=self._redact(tool, args), page=page, start_ms=self.ms())
            st.calls.append(ct)
            try:
                resp = await self.backend.call(tool, dict(args), page=page)
            except Exception as exc:
                f = classify(tool, exc)
                ct.failure = FailureInfo(kind=f.kind, code=f.code, message=scrub(f.message))
                ct.duration_ms = round(self.ms() - ct.start_ms, 3)
                if f.code == "R505":
                    st.store_misses += 1
                hints = (["an environmental failure (timeout, connection, 5xx, quota): "
                          "retrying later may succeed"] if f.kind == "environmental" else [])
                d = diag(f.code, f"call of `{tool.qualname}` failed: {ct.failure.message}",
                         span_of(span), f"{f.kind} failure", hints=hints)
                raise StepError(d, ct.failure) from None
            ct.duration_ms = round(self.ms() - ct.start_ms, 3)
            if resp.total is not None and not (isinstance(resp.total, int)
                                               and 0 <= resp.total <= MAX_TOTAL):
                msg = (f"`{tool.qualname}`: the backend reported a total of {resp.total!r:.40}, "
                       "which is not a count (0 … 2^63 - 1)")
                ct.failure = FailureInfo(kind="structural", code="R503", message=msg)
                raise StepError(diag("R503", f"call of `{tool.qualname}` failed: {msg}",
                                     span_of(span), "structural failure"), ct.failure)
            ct.records, ct.total, ct.store_hit = len(resp), resp.total, resp.from_store
            if resp.from_store is True:
                st.store_hits += 1
            elif resp.from_store is False:
                st.store_misses += 1
            return resp

    async def fetch(self, tool: ToolSpec, args: dict[str, object], pages: int | str | None,
                    st: StepTrace, arm: str | None, span: SpanInfo | None) -> list[Response]:
        """The responses of one arm's call, page by page as ``pages`` asks (None: the first
        page; N: at most N; ``"all"``: until done, R506 past ``max_pages``)."""
        pg = tool.paging
        if pg is None:
            resp = await self.one_call(tool, args, None, st, arm, span)
            st.pages_read += 1
            self.progress.page_read(self.trajectory, st.id, 1, len(resp), resp.total)
            read_fact(st, len(resp), resp.total, done=resp.total is None
                      or len(resp) >= resp.total)
            return [resp]
        size = pg.size_limit if pg.size else None
        limit = 1 if pages is None else self.max_pages if pages == "all" else int(pages)
        out: list[Response] = []
        got, total, page = 0, None, 1
        while True:
            resp = await self.one_call(tool, args, page, st, arm, span)
            out.append(resp)
            st.pages_read += 1
            n = len(resp)
            got += n
            if resp.total is not None:
                total = resp.total
                st.total_reported = total if st.total_reported is None else max(
                    st.total_reported, total)
            self.progress.page_read(self.trajectory, st.id, page, got, total)
            done = n == 0 or (total is not None and got >= total) or (size is not None and n < size)
            if done or page >= limit:
                break
            page += 1
        # the arm's read fact: whole (done), or stopped at its page limit with records left
        # (a total not reached, or a full last page) — None when it cannot be told
        read_fact(st, got, total, done=True if done else False if total is not None
                  or size is not None else None)
        if pages == "all" and not done:
            msg = (f"`{tool.qualname}` still had records after {limit} pages (max_pages) "
                   f"— read {got}" + ("" if total is None else f" of {total}"))
            d = diag("R506", msg, span_of(span), "pages all",
                     hints=["narrow the call's arguments, or raise max_pages; edgedsl never "
                            "truncates `pages all` silently"])
            raise StepError(d, FailureInfo(kind="structural", code="R506", message=msg))
        return out
