"""Stage `run`: Plan + backend → RunResult (answer, ``say``, trace, diagnostics).

Each run owns one DuckDB connection: a cursor on one in-memory database shared by the process
(opening a database costs ~30 ms, a cursor microseconds), or — when the backend has a
:class:`~edgedsl.runtime.store.Store` (``backend.store``) — a cursor on the store. TEMP tables are
private to a cursor and go away when the run closes it. Every relation is a TEMP table (or view)
named by its relation id (through ``quote_ident``), laid out by :mod:`edgedsl.runtime.duck`;
where each relation lives and which form of a statement runs is decided by
:mod:`edgedsl.runtime.relations` (the materialisation policy and its settings), nowhere else.

Relations are written lazily: fresh responses (any size) become a *pending* relation whose typed
columns are made when first read (:func:`~.columns.lazy_columns`: a reduction, junction
or answer coerces only the fields it reads), and a stored response whose columns the store keeps in
memory becomes a pending relation holding them; junctions and answers that read a field's distinct
values read them from memory. An ``if`` predicate or an answer expression reads the in-memory
relations it reads (its query's reads) inline (:func:`~.selection.inline_query`: the
columns it reads bound as lists in leading CTEs), so no table is written for it; the table is
written (one statement) only when SQL needs one. A ``drv`` over an in-memory source runs its
reduction in one statement that reads the source inline (its columns bound as lists, large ones
packed as one text each; no table read or written) and fetches only the kept ``__row`` ids, in the
window form for a small source and in the table form above
(:func:`~edgedsl.runtime.relations.reduction_form`; the trace records the text that ran); it runs
on the process's scratch connection (:func:`~edgedsl.runtime.relations.scratch_cursor`: one thread,
no optimizer, parsed statements cached), so a ``drv`` costs one cheap statement. An inline
statement that fails is not retried silently: the run falls back to the tables and the trace
records the fallback. The kept relation takes its columns from the source's and is pending in turn.
A large stored response is a view over the store's rows (no copy); a large fresh one, when SQL
needs its table, is shredded in SQL. A ``drv`` over a relation held in SQL whose kept rows a
junction reads runs one statement that counts them and reads the values handed off; their table
waits until a statement needs it (:func:`~edgedsl.runtime.relations.reduce_stored`).

Concurrency: a step starts as soon as the steps it depends on (``deps``, within its scope) have
finished — not when its whole layer's predecessors have — so independent chains overlap; the
trace lists steps in layer order whatever order they started in. The arms of a fan, the
branches of a ``parallel`` and the arms of a ``compare`` run concurrently, with at most
``concurrency`` backend calls in flight. All DuckDB work runs synchronously on the event-loop
thread (it never awaits in between), so the connection is never used from two threads; sync
Python tools run in worker threads and never touch it.

Calls, their pages and junction checks are :mod:`edgedsl.runtime.calls`'s (a Seq must see
exactly one distinct value, a Fan 1 … its bound; ``pages all`` reads until done, bounded by
``max_pages``); answers and ``if`` predicates, rendered from their typed queries, are
:mod:`edgedsl.runtime.answers`'s. A failure never escapes: the result has ``ok=False``, the
diagnostics and the partial trace.

``keep`` (opt-in, for synthesis) names relations whose records the result should carry: before
the run's connection closes, each named relation that was computed is read back with
:meth:`~edgedsl.runtime.duck.Relation.records` into ``RunResult.relations`` (never serialised).
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Collection, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Literal

import duckdb
import orjson

from ..core.diagnostics import Diagnostic, diag
from ..core.say import SayLimitError, render_say
from ..core.types import INT, STR, FieldType, type_from_json
from ..plan.model import (
    AnswerField,
    CallStep,
    CompareStep,
    DrvStep,
    IfStep,
    JunctionSpec,
    ParallelStep,
    Plan,
    RequestTemplate,
    SpanInfo,
    ToolSpec,
    TrajectoryPlan,
    decode_value,
)
from ..reduce.query import ReduceQuery
from . import relations
from .answers import Prepared, answer_value, jsonable, predicate_value, prepared
from .backends import Backend, make_backend, unsupported_reason
from .calls import Caller, StepError, arm_text, junction_values, span_of
from .determinacy import (
    determinacy,
    partial_read_warnings,
    tie_facts,
    undetermined_warnings,
)
from .duck import Relation
from .progress import SILENT, Progress
from .redact import scrub
from .result import RunResult
from .selection import run_selection
from .shred import shred

if TYPE_CHECKING:
    from .store import Store
from .trace import (
    FailureInfo,
    StepTrace,
    Trace,
)

__all__ = ["TieBreak", "run", "run_plan", "run_plan_sync", "run_sync", "run_trajectory"]

TieBreak = Literal["smallest", "largest"]
"""Which value a ``most_frequent`` tie goes to: the language's rule, or its opposite."""

DEFAULT_MAX_PAGES = 100
DEFAULT_CONCURRENCY = 16


def _types_of(fields: Mapping[str, Any]) -> dict[str, FieldType]:
    """``{name: type_from_json(v)}`` of a plan object's ``fields``, parsed once per distinct
    declaration (keyed by its JSON text: a run re-reads the same tool and step objects, and
    runs of one plan the same declarations). Shared: read-only."""
    return _types_by_json(orjson.dumps(fields))


@functools.lru_cache(maxsize=4096)
def _types_by_json(text: bytes) -> dict[str, FieldType]:
    return {k: type_from_json(v) for k, v in orjson.loads(text).items()}


def _span_dict(info: SpanInfo) -> dict[str, Any]:
    """The span as a dict in field order (its values are ints and a file name); a fresh dict
    each time."""
    return {"file": info.file, "line": info.line, "col": info.col, "end_line": info.end_line,
            "end_col": info.end_col, "start": info.start, "end": info.end}


_BASE: duckdb.DuckDBPyConnection | None = None
_BASE_LOCK = threading.Lock()


def _connection(backend: object) -> tuple[duckdb.DuckDBPyConnection, Store | None]:
    from .store import Store

    global _BASE
    store = getattr(backend, "store", None)
    if isinstance(store, Store):
        return store.cursor(), store
    with _BASE_LOCK:
        if _BASE is None:
            _BASE = duckdb.connect(":memory:")
        return _BASE.cursor(), None


async def _gather(aws: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """``asyncio.gather(*aws, return_exceptions=True)``; a single awaitable is awaited in place
    (no task to create and schedule: most layers and calls of a run have one)."""
    if len(aws) == 1:
        try:
            return [await aws[0]]
        except Exception as exc:
            return [exc]
    return await asyncio.gather(*aws, return_exceptions=True)


class _Run:
    def __init__(self, plan: Plan, tp: TrajectoryPlan, backend: Backend, phi: int,
                 max_pages: int, concurrency: int, keep: Collection[str] = (),
                 tie_break: TieBreak = "smallest", progress: Progress = SILENT) -> None:
        self.plan, self.tp, self.backend = plan, tp, backend
        self.progress = progress
        self.tie_break = tie_break
        self.keep = tuple(dict.fromkeys(keep))
        self.phi, self.max_pages = phi, max_pages
        self.sem = asyncio.Semaphore(max(1, concurrency))
        self.calls = Caller(backend, self.sem, max_pages, self.ms, progress, tp.name)
        self.con, self.owner = _connection(backend)
        self.rels: dict[str, Relation] = {}
        self.t0 = time.perf_counter()
        #: each step's place in layer order (scope by scope), beside its trace in ``trace.steps``
        self._ranks: list[tuple[int, ...]] = []
        self.trace = Trace(trajectory=tp.name, backend=getattr(backend, "name", "?"), phi=phi)

    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 3)

    # ------------------------------------------------------------ structure

    async def layers(self, layers: list[list[str]], shared: Mapping[str, object] | None = None,
                     base: tuple[int, ...] = ()) -> None:
        """Run the steps of one scope (``base``: the rank of the container step whose scope it
        is), each
        as soon as the steps of the scope it depends on (``deps``) have finished — not when
        the whole previous layer has: a long chain of pages does not hold back a branch that
        does not read it. ``layers`` (the plan's topological levels) order the steps that are
        ready together, and the trace (see :meth:`run`).

        A failure stops steps above the failing step's layer from starting; once the running
        ones have finished, the error raised is the one layer-by-layer execution raises: in
        the lowest layer with a failure, the first failed step's (a step error first)."""
        if len(layers) <= 1:  # one layer: nothing to wait for
            for i, layer in enumerate(layers):
                got = await _gather([self.step(k, shared, (*base, i, j))
                                     for j, k in enumerate(layer)])
                errs = [g for g in got if isinstance(g, BaseException)]
                if errs:
                    raise next((e for e in errs if isinstance(e, StepError)), errs[0])
            return
        level = {k: (i, j) for i, layer in enumerate(layers) for j, k in enumerate(layer)}
        pending = {k: {d for d in self.tp.steps[k].deps if d in level and d != k}
                   for k in level}
        waiters: dict[str, list[str]] = {k: [] for k in level}
        for k, ds in pending.items():
            for d in ds:
                waiters[d].append(k)
        ready = [k for layer in layers for k in layer if not pending[k]]
        running: dict[asyncio.Task[None], str] = {}
        errors: dict[str, BaseException] = {}
        limit = len(layers)  # the lowest layer with a failure: no step above it starts
        try:
            while ready or running:
                for k in ready:
                    if level[k][0] <= limit:
                        task = asyncio.create_task(self.step(k, shared, (*base, *level[k])))
                        running[task] = k
                ready = []
                if not running:  # what became ready lies above a failed layer: nothing starts
                    break
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: level[running[f]]):
                    k = running.pop(fut)
                    exc = fut.exception()
                    if exc is not None:
                        errors[k] = exc
                        limit = min(limit, level[k][0])
                        continue
                    for w in waiters[k]:
                        pending[w].discard(k)
                        if not pending[w]:
                            ready.append(w)
                ready.sort(key=level.__getitem__)
        finally:
            for task in running:
                task.cancel()
        if errors:
            lowest = min(level[k][0] for k in errors)
            errs = [errors[k] for k in layers[lowest] if k in errors]
            raise next((e for e in errs if isinstance(e, StepError)), errs[0])

    async def step(self, key: str, shared: Mapping[str, object] | None = None,
                   rank: tuple[int, ...] = ()) -> None:
        s = self.tp.steps[key]
        st = StepTrace(id=key, kind=s.kind, relation=s.relation, start_ms=self.ms(),
                       span=None if s.span is None else _span_dict(s.span))
        self.trace.steps.append(st)
        self._ranks.append(rank)
        try:
            if isinstance(s, CallStep):
                await self.call_step(s, st, shared or {})
            elif isinstance(s, DrvStep):
                self.drv_step(s, st)
            elif isinstance(s, CompareStep):
                await self.compare_step(s, st)
            elif isinstance(s, ParallelStep):
                await self.parallel_step(s, st, rank)
            elif isinstance(s, IfStep):
                await self.if_step(s, st, rank)
        except StepError as e:
            st.status, st.failure = "failed", e.failure
            raise
        except Exception as e:  # a bug: report it, labelled, without crashing the run
            st.status = "failed"
            st.failure = FailureInfo(kind="internal", code="R509", message=scrub(repr(e)))
            raise StepError(diag("R509", scrub(f"internal error in step `{key}` (a bug in "
                                                f"edgedsl): {type(e).__name__}: {e}"),
                                  span_of(s.span)), st.failure) from e
        finally:
            st.duration_ms = round(self.ms() - st.start_ms, 3)
            self.progress.step_finished(self.tp.name, key, st.status == "ok")

    # ------------------------------------------------------------ junctions and calls

    def junction(self, j: JunctionSpec, param: str, st: StepTrace, span: SpanInfo | None,
                 tool: str) -> list[Any]:
        return junction_values(self.rels, self.tp, self.phi, j, param, st, span, tool)

    async def run_arms(self, tool: ToolSpec, arms: list[tuple[str | None, dict[str, object]]],
                       pages: int | str | None, st: StepTrace, span: SpanInfo | None,
                       relation: str, tagged: bool) -> None:
        got = await _gather([self.calls.fetch(tool, a, pages, st, arm, span) for arm, a in arms])
        if len(arms) > 1:  # calls in page order, then arm order, whatever finished first
            order = {arm: i for i, (arm, _) in enumerate(arms)}
            st.calls.sort(key=lambda c: (c.page or 0, order.get(c.arm, len(order))))
        errs = [g for g in got if isinstance(g, BaseException)]
        if errs:
            raise next((e for e in errs if isinstance(e, StepError)), errs[0])
        parts = [(arm, r) for (arm, _), resps in zip(arms, got, strict=True)
                 for r in resps]
        rel = relations.materialise(self.con, self.owner, relation,
                                    _types_of(tool.fields), parts, tagged)
        self.rels[relation] = rel
        st.records = rel.count()

    def list_args(self, request: RequestTemplate, base: dict[str, object], st: StepTrace,
                  span: SpanInfo | None, tool: str) -> None:
        """Put each list argument holding references into ``base``: its literals, and the one
        value each item's Seq junction hands on, in written order."""
        for param, items in request.lists.items():
            base[param] = [decode_value(it.literal) if it.junction is None
                           else self.junction(it.junction, param, st, span, tool)[0]
                           for it in items]

    async def call_step(self, s: CallStep, st: StepTrace, shared: Mapping[str, object]) -> None:
        tool = self.plan.tools[s.request.tool]
        st.tool = tool.qualname
        base: dict[str, object] = {k: decode_value(v) for k, v in s.request.literals.items()}
        for param, name in s.request.shared.items():
            base[param] = shared[name]
        fan: tuple[str, list[Any]] | None = None
        for param, j in s.request.junctions.items():
            values = self.junction(j, param, st, s.span, tool.qualname)
            if j.kind == "seq":
                base[param] = values[0]
            else:
                fan = (param, values)
        self.list_args(s.request, base, st, s.span, tool.qualname)
        if fan is None:
            arms: list[tuple[str | None, dict[str, object]]] = [(None, base)]
        else:
            arms = [(arm_text(v), {**base, fan[0]: v}) for v in fan[1]]
        await self.run_arms(tool, arms, s.request.pages, st, s.span, s.relation or s.id,
                            fan is not None)

    async def compare_step(self, s: CompareStep, st: StepTrace) -> None:
        tool = self.plan.tools[s.request.tool]
        st.tool = tool.qualname
        base: dict[str, object] = {k: decode_value(v) for k, v in s.request.literals.items()}
        for param, j in s.request.junctions.items():
            base[param] = self.junction(j, param, st, s.span, tool.qualname)[0]
        self.list_args(s.request, base, st, s.span, tool.qualname)
        values = [decode_value(v) for v in s.values]
        arms: list[tuple[str | None, dict[str, object]]] = [
            (arm_text(v), {**base, s.param: v}) for v in values]
        await self.run_arms(tool, arms, s.request.pages, st, s.span, s.relation or s.id, True)

    async def parallel_step(self, s: ParallelStep, st: StepTrace, rank: tuple[int, ...]
                            ) -> None:
        shared: dict[str, object] = {}
        for name, sh in s.shared.items():
            if sh.junction is not None:
                shared[name] = self.junction(sh.junction, name, st, s.span, s.id)[0]
            else:
                shared[name] = decode_value(sh.literal)
        await self.layers([s.branches], shared, base=rank)
        rows = [{"branch": b.removeprefix(f"{s.relation}."), "records": self.rels[b].count()}
                for b in s.branches]
        rel = shred(self.con, rows, {"branch": STR, "records": INT}, name=s.relation or s.id,
                    temp=True, lazy=True)
        self.rels[s.relation or s.id] = rel
        st.records = rel.count()

    # ------------------------------------------------------------ SQL steps

    def drv_step(self, s: DrvStep, st: StepTrace) -> None:
        types = _types_of(s.fields)
        query = ReduceQuery.from_json(s.query).ties_to(self.tie_break)
        st.params = [jsonable(p) for p in query.params()]
        name = s.relation or s.id
        src = self.rels.get(s.source)
        if src is not None and src.in_memory:
            # fetch the kept rows' ids (one statement reading the source inline, on the scratch
            # connection unless its form has a window over too many rows), in the form that
            # suits the source's size; the kept columns come from the source's, the table waits
            # until needed; the trace records the text that ran
            form = relations.reduction_form(src.row_count)
            on = relations.inline_connection(src.row_count, window=query.has_window(form))
            sel = run_selection(self.con, name, types, query, form=form, source=src,
                                inline_on=relations.connection(on, self.con))
            rel, st.sql, st.remembered = sel.relation, sel.sql, sel.remembered
        else:
            if src is not None:
                src.ensure()
            # a relation held in SQL: the reduction's table form; kept rows a junction reads
            # are counted with the hand-off values in one statement and stay deferred until a
            # statement needs their table (relations.py: "deferred"), others written at once
            rel, st.sql, _ = relations.reduce_stored(self.con, name, types, query,
                                                     relations.handoff_field(self.tp, name))
        self.rels[name] = rel
        st.records = rel.count()
        tie_facts(self.con, relations.scratch_cursor(), src, query, st)

    def _sql_error(self, what: str, exc: Exception, span: SpanInfo | None) -> StepError:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        hints = []
        if "More than one row" in str(exc):
            hints.append("a field reference used as a single value saw several distinct "
                         "values; narrow it with a `drv` node first")
        msg = f"evaluating {what} failed: {text}"
        return StepError(diag("R507", msg, span_of(span), hints=hints),
                          FailureInfo(kind="structural", code="R507", message=msg))

    def single_values(self, prep: Prepared, what: str, span: SpanInfo | None) -> None:
        """R507 with the field and its values when a field reference the query uses as one
        value (compared, or inside arithmetic: ``prep.scalars``) holds several — said plainly,
        before DuckDB's own text about scalar subqueries could be."""
        for source, field in prep.scalars:
            rel = self.rels.get(source)
            if rel is None:
                continue
            values = rel.distinct(field)
            if len(values) > 1:
                shown = ", ".join(repr(jsonable(v)) for v in values[:5])
                more = ", …" if len(values) > 5 else ""
                msg = (f"{what} reads `{source}.{field}` as one value, but it holds "
                       f"{len(values)} distinct values ({shown}{more})")
                hints = [f"narrow `{source}` to one row first (`drv {source} | max {field}`, "
                         f"or `where … ==`), or use an aggregate (`max({source}.{field})`, "
                         f"`count({source})`)"]
                raise StepError(diag("R507", scrub(msg), span_of(span), "several values",
                                     hints=hints),
                                FailureInfo(kind="structural", code="R507", message=scrub(msg)))

    async def if_step(self, s: IfStep, st: StepTrace, rank: tuple[int, ...]) -> None:
        prep = prepared(s.predicate)
        text, params = prep.statement()
        st.sql, st.params = text, [jsonable(p) for p in params]
        self.single_values(prep, "the `if` condition", s.span)
        try:
            taken = predicate_value(self.con, self.rels, prep, params, self.trace.fallbacks,
                                    s.id)
        except duckdb.Error as exc:
            raise self._sql_error("the `if` predicate", exc, s.span) from None
        st.branch = "then" if taken else "else"
        await self.layers(s.then if taken else s.orelse, base=rank)

    def answer_value(self, f: AnswerField) -> Any:
        what = f"answer field `{f.name}`" if f.name else "the answer"
        self.single_values(prepared(f), what, f.span)
        try:
            return answer_value(self.con, self.rels, f, self.trace.fallbacks)
        except duckdb.Error as exc:
            what = f"answer field `{f.name}`" if f.name else "the answer"
            raise self._sql_error(what, exc, f.span) from None

    def answer(self) -> Any:
        a = self.tp.answer
        if a is None:
            return None
        if a.kind == "object":
            return {f.name or f"_{i}": self.answer_value(f) for i, f in enumerate(a.fields)}
        return self.answer_value(a.fields[0])

    def say(self, answer: Any) -> str:
        ctx = dict(answer) if isinstance(answer, dict) else {}
        ctx["answer"] = answer
        try:
            return render_say(self.tp.say or "", ctx)
        except SayLimitError as exc:
            msg = f"the `say` template went past its limits: {exc}"
            hints = ["a `say` reply is bounded in time, length and memory; render less (a "
                     "smaller loop, fewer repetitions)"]
        except Exception as exc:  # TemplateError, SecurityError, anything the template raises
            msg = f"the `say` template failed: {type(exc).__name__}: {exc}"
            hints = [f"the template sees {sorted(ctx)}"]
        msg = scrub(msg)
        raise StepError(diag("R508", msg, span_of(self.tp.span), hints=hints),
                         FailureInfo(kind="structural", code="R508", message=msg))

    # ------------------------------------------------------------ whole run

    def preflight(self) -> list[Diagnostic]:
        out = []
        for s in self.tp.steps.values():
            if isinstance(s, CallStep | CompareStep):
                reason = unsupported_reason(self.backend, self.plan.tools[s.request.tool])
                if reason:
                    out.append(diag("E403", reason, span_of(s.span), "cannot run here"))
        return out

    def kept(self) -> dict[str, list[dict[str, Any]]]:
        """The records of each relation named in ``keep`` that was computed (a relation that
        cannot be read back is left out)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for name in self.keep:
            rel = self.rels.get(name)
            if rel is None:
                continue
            try:
                out[name] = rel.records()
            except duckdb.Error:
                continue
        return out

    async def run(self) -> RunResult:
        answer, say, diags = None, None, self.preflight()
        kept: dict[str, list[dict[str, Any]]] = {}
        self.progress.started(self.tp.name, len(self.tp.steps))
        try:
            if not diags:
                await self.layers(self.tp.layers)
                answer = self.answer()
                if self.tp.say is not None:
                    say = self.say(answer)
        except StepError as e:
            diags.append(e.diagnostic)
            answer = None
        finally:
            self.trace.duration_ms = self.ms()
            # in layer order, scope by scope, a container's steps after it (steps start as
            # their inputs are ready, in an order that depends on timing)
            steps = self.trace.steps
            order = sorted(range(len(steps)), key=self._ranks.__getitem__)
            steps[:] = [steps[i] for i in order]
            if self.keep:
                kept = self.kept()
            self.con.close()
            self.progress.finished(self.tp.name)
        det = None if diags else determinacy(self.tp, self.trace)
        return RunResult(trajectory=self.tp.name, ok=not diags, answer=answer,
                         say=say if not diags else None, trace=self.trace, diagnostics=diags,
                         relations=kept, determinacy=det,
                         warnings=[] if det is None else [
                             *undetermined_warnings(self.tp, det, tie_break=self.tie_break),
                             *partial_read_warnings(self.tp, self.trace, det)])


def _backend(backend: Backend | str) -> Backend:
    return make_backend(backend) if isinstance(backend, str) else backend


async def run_trajectory(
    plan: Plan,
    name: str,
    backend: Backend | str,
    *,
    phi: int = 5,
    max_pages: int = DEFAULT_MAX_PAGES,
    concurrency: int = DEFAULT_CONCURRENCY,
    keep: Collection[str] = (),
    tie_break: TieBreak = "smallest",
    progress: Progress = SILENT,
) -> RunResult:
    """Run trajectory ``name`` of ``plan`` on ``backend``; never raises for run-time failures.

    ``keep`` names relations (binding ids such as ``filings`` or ``day.meals``) whose records
    are returned in ``RunResult.relations`` (opt-in: reading them back costs time).
    ``tie_break`` is the language's rule (``"smallest"``: a ``most_frequent`` tie goes to the
    smallest value) or its opposite (``"largest"``), a perturbation of
    :mod:`edgedsl.runtime.perturb`. ``progress`` is told of steps and pages as they finish
    (:mod:`edgedsl.runtime.progress`)."""
    at_least_one(phi=phi, max_pages=max_pages)
    return await _Run(plan, plan.trajectory(name), _backend(backend), phi, max_pages,
                      concurrency, keep, tie_break, progress).run()


def at_least_one(**bounds: int) -> None:
    """ValueError naming the first of ``bounds`` (φ, ``max_pages``, a concurrency) that is not
    a whole number of at least 1."""
    for name, v in bounds.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, not {v!r}")


async def run_plan(
    plan: Plan,
    backend: Backend | str,
    *,
    trajectory: str | None = None,
    phi: int = 5,
    max_pages: int = DEFAULT_MAX_PAGES,
    concurrency: int = DEFAULT_CONCURRENCY,
    keep: Collection[str] = (),
    tie_break: TieBreak = "smallest",
    progress: Progress = SILENT,
) -> list[RunResult]:
    """Run every trajectory of ``plan`` (or only ``trajectory``), concurrently (``keep``,
    ``tie_break`` and ``progress``: see :func:`run_trajectory`)."""
    at_least_one(phi=phi, max_pages=max_pages)
    be = _backend(backend)
    names = [trajectory] if trajectory is not None else [t.name for t in plan.trajectories]
    return list(await asyncio.gather(*(
        run_trajectory(plan, n, be, phi=phi, max_pages=max_pages, concurrency=concurrency,
                       keep=keep, tie_break=tie_break, progress=progress)
        for n in names)))


_LOOPS = threading.local()


def _run_on_thread_loop(coro: Any) -> Any:
    """Run ``coro`` on this thread's reusable event loop (creating an event loop and its default
    thread pool on every run costs more than a small replay does)."""
    loop = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        loop = _LOOPS.loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(coro)
    finally:
        asyncio.set_event_loop(None)


def _sync(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_on_thread_loop(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["v"] = asyncio.run(coro)
        except BaseException as exc:
            box["e"] = exc

    th = threading.Thread(target=target)
    th.start()
    th.join()
    if "e" in box:
        raise box["e"]
    return box["v"]


def run(plan: Plan, name: str, backend: Backend | str, **options: Any) -> RunResult:
    """Synchronous :func:`run_trajectory` (works inside a running event loop too)."""
    return _sync(run_trajectory(plan, name, backend, **options))


def run_plan_sync(plan: Plan, backend: Backend | str, **options: Any) -> list[RunResult]:
    """Synchronous :func:`run_plan`."""
    return _sync(run_plan(plan, backend, **options))


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion from synchronous code, on the loop the synchronous runs use
    (works inside a running event loop too)."""
    return _sync(coro)
