"""Paths of the graph as edgedsl trajectories: emitted, compiled, run, and judged per edge.

A :class:`PathSpec` is a chain of tools ``t0 → t1 → … → tn`` along graph edges, with the
literal arguments of each step (the defaults chosen for parameters no binding fills). It is
written as an AST (never as text) and formatted::

    trajectory p3 "refinement path: dart.corp_codes → dart.company" {
      s0 = dart.corp_codes()
      h1 = drv s0 | most_frequent corp_code
      s1 = dart.company(corp_code: seq h1.corp_code)
      answer count(s1)
    }

Each hand-off narrows the source's records to one value per bound field with ``most_frequent``
(ties in frequency go to the smallest value in the type's order, the language's rule), so every
junction is a ``seq`` of exactly one value when the source returned any. A paged tool reads one
page (``pages 1``).

An edge is never judged through a tie: when the trace's tie facts say the hand-off's
``most_frequent`` chose among tied values and the target returned nothing, the edge is judged
again through a fan of up to φ values the source produced
(:func:`edgedsl.recipe.graph.handoff.fan_values`: the latest records first, or an even spread),
one call of the target per value: ``success`` when one of them returns records.

:func:`run_paths` compiles a batch of paths as one module (falling back to one module per path
when the batch does not compile) and runs them concurrently; :func:`judge` turns a run's trace
into one :class:`EdgeOutcome` per edge tried: ``success`` when the target returned records,
``structural`` (an error, a failed junction, no records), ``environmental`` (a transient failure),
or ``internal`` (a bug, never counted as evidence). Edges after the first failure are not
tried and get no outcome. A path's ``passed``, ``steps`` and ``steps_ok`` count its own program:
a tied edge that succeeds through the fan is a success of the edge, and the path still stops
there.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from ...core.diagnostics import CompileError
from ...core.source import Source
from ...core.types import CodeType
from ...plan.model import Plan
from ...runtime.backends import Backend
from ...runtime.executor import run_trajectory
from ...runtime.result import RunResult
from ...syntax import nodes as n
from ...syntax.printer import format_module
from .handoff import PHI, SOURCE_PAGES, fan_values
from .model import Binding, Port, Scalar, ToolNode
from .observe import value_ok

__all__ = ["EdgeOutcome", "PathOutcome", "PathSpec", "Step", "calls_of", "judge", "path_module",
           "path_trajectory", "run_paths", "tied_failure"]

Outcome = Literal["success", "structural", "environmental", "internal"]


@dataclass(frozen=True)
class Step:
    """One call of a path: the tool, its literal arguments, and the bindings from the previous
    step's output (empty for the first step)."""

    tool: str
    args: tuple[tuple[str, Scalar], ...] = ()
    bindings: tuple[Binding, ...] = ()


def calls_of(steps: Sequence[Step]) -> list[tuple[str, tuple[tuple[str, Scalar], ...]]]:
    """The literal arguments of ``steps`` as the context of the next one
    (:meth:`edgedsl.recipe.graph.args.ArgChooser.path_args`)."""
    return [(s.tool, s.args) for s in steps]


@dataclass(frozen=True)
class PathSpec:
    """A chain of steps; step ``i`` (i ≥ 1) is the target of edge ``(steps[i-1].tool,
    steps[i].tool)``."""

    steps: tuple[Step, ...]

    @property
    def edges(self) -> list[tuple[str, str]]:
        """The edges along the path, in order."""
        return [(a.tool, b.tool) for a, b in zip(self.steps, self.steps[1:], strict=False)]

    def describe(self) -> str:
        """``a → b → c``."""
        return " → ".join(s.tool for s in self.steps)


@dataclass(frozen=True)
class EdgeOutcome:
    """What one trial said about one edge."""

    edge: tuple[str, str]
    outcome: Outcome
    code: str = ""
    message: str = ""


@dataclass(frozen=True)
class PathOutcome:
    """One path's run: whether it passed, its steps attempted and succeeded, per-edge outcomes,
    and the first failure's code and message (empty when it passed)."""

    path: PathSpec
    passed: bool
    steps: int
    steps_ok: int
    edges: tuple[EdgeOutcome, ...]
    environmental: int = 0
    code: str = ""
    message: str = ""


# ---------------------------------------------------------------- emission


def literal(port: Port, value: Scalar, codes: Mapping[str, CodeType]) -> n.Literal_ | None:
    """The literal node of ``value`` for ``port``, or None when it would not check."""
    if not value_ok(port, value, codes):
        return None
    if port.type == "date":
        return n.DateLit(value=_dt.date.fromisoformat(str(value)))
    if isinstance(value, bool):
        return n.BoolLit(value=value)
    if isinstance(value, int | float):
        return n.NumberLit(value=value)
    return n.StringLit(value=str(value))


def path_trajectory(path: PathSpec, name: str, nodes_by_name: Mapping[str, ToolNode],
                    codes: Mapping[str, CodeType], paged: frozenset[str] = frozenset(),
                    query: str | None = None, last_pages: int = 1) -> n.Trajectory:
    """The AST of ``path`` as a trajectory called ``name`` (see the module doc for its shape):
    a paged tool reads one page, the last step ``last_pages``. Raises ValueError when a literal
    argument does not fit its parameter."""
    body: list[n.Stmt] = []
    for i, step in enumerate(path.steps):
        platform, _, tool = step.tool.partition(".")
        node = nodes_by_name[step.tool]
        ports = {p.name: p for p in node.params}
        args: list[n.Arg] = []
        if step.bindings:
            fields = tuple(dict.fromkeys(b.field for b in step.bindings))
            body.append(n.Binding(name=f"h{i}", node=n.Drv(
                source=(f"s{i - 1}",),
                steps=tuple(n.Reducer(op="most_frequent", field=f) for f in fields))))
            args += [n.Arg(name=b.param, value=n.SeqArg(ref=n.Ref(parts=(f"h{i}", b.field))))
                     for b in step.bindings]
        for pname, value in step.args:
            port = ports.get(pname)
            lit = literal(port, value, codes) if port is not None else None
            if lit is None:
                raise ValueError(f"{value!r} does not fit parameter `{pname}` of {step.tool}")
            args.append(n.Arg(name=pname, value=lit))
        limit = last_pages if i == len(path.steps) - 1 else 1
        call = n.Call(platform=platform, tool=tool, args=tuple(args),
                      pages=limit if step.tool in paged else None)
        body.append(n.Binding(name=f"s{i}", node=call))
    body.append(n.AnswerStmt(expr=n.FuncCall(name="count", args=(
        n.NameExpr(name=f"s{len(path.steps) - 1}"),))))
    return n.Trajectory(name=name, query=query or f"path: {path.describe()}", body=tuple(body))


def path_module(trajectories: Sequence[n.Trajectory], modules: Sequence[str]) -> n.Module:
    """A module using ``modules`` and holding ``trajectories``."""
    items: list[n.Item] = [n.UseDecl(names=tuple(modules))] if modules else []
    return n.Module(items=(*items, *trajectories))


# ---------------------------------------------------------------- judging a run


def judge(path: PathSpec, result: RunResult) -> PathOutcome:
    """Per-edge outcomes of one run of ``path`` (trajectory steps ``s0…sn``, ``h1…hn``)."""
    steps = {s.id: s for s in result.trace.steps} if result.trace is not None else {}
    outcomes: list[EdgeOutcome] = []
    attempted = ok = env = 0
    code = message = ""
    passed = True
    for i, step in enumerate(path.steps):
        st = steps.get(f"s{i}")
        hand = steps.get(f"h{i}")
        failure = (hand.failure if hand is not None and hand.failure is not None
                   else st.failure if st is not None else None)
        if st is None and failure is None:
            passed = False  # not reached
            break
        attempted += 1
        records = st.records if st is not None else None
        if failure is None and st is not None and st.status == "ok" and records:
            ok += 1
            if i:
                outcomes.append(EdgeOutcome((path.steps[i - 1].tool, step.tool), "success"))
            continue
        passed = False
        if failure is None:
            kind: Outcome = "structural"
            code, message = "empty", f"{step.tool} returned no records"
        else:
            kind = failure.kind
            code, message = failure.code, failure.message
            env += kind == "environmental"
        if i:
            outcomes.append(EdgeOutcome((path.steps[i - 1].tool, step.tool), kind, code,
                                        message))
        break
    return PathOutcome(path, passed and ok == len(path.steps), attempted, ok, tuple(outcomes),
                       env, code, message)


def _static_failure(path: PathSpec, err: CompileError, base_line: int) -> PathOutcome:
    """A path whose program does not compile: the step the first error points at fails
    structurally (its incoming edge is counted; a failing first step counts no edge)."""
    d = next((d for d in err.diagnostics if d.severity == "error"), err.diagnostics[0])
    line = d.span.line - base_line if d.span is not None else 0
    # lines of the emitted trajectory: 1 header, then s0, then (h_i, s_i) pairs
    index = max(0, min(len(path.steps) - 1, (line - 1) // 2))
    edges: tuple[EdgeOutcome, ...] = ()
    if index:
        edges = (EdgeOutcome((path.steps[index - 1].tool, path.steps[index].tool),
                             "structural", d.code, d.message),)
    return PathOutcome(path, False, index + 1, index, edges, 0, d.code, d.message)


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class Emitter:
    """What emission needs from the graph and the catalog."""

    nodes: Mapping[str, ToolNode]
    codes: Mapping[str, CodeType]
    paged: frozenset[str]
    modules: tuple[str, ...]
    search_paths: tuple[Path, ...] = ()

    def trajectory(self, path: PathSpec, name: str, last_pages: int = 1) -> n.Trajectory:
        """The AST of one path (its last step reading ``last_pages`` pages when paged)."""
        return path_trajectory(path, name, self.nodes, self.codes, self.paged,
                               last_pages=last_pages)

    def source(self, trajs: Sequence[n.Trajectory], name: str) -> Source:
        """The formatted module holding ``trajs``."""
        return Source(name, format_module(path_module(trajs, self.modules)))

    def compile(self, trajs: Sequence[n.Trajectory], name: str) -> Plan:
        """Compile ``trajs`` as one module (CompileError when it does not check)."""
        from ...api import compile as compile_source

        return compile_source(self.source(trajs, name), search_paths=self.search_paths)


async def run_paths(paths: Sequence[PathSpec], emitter: Emitter, backend: Backend, *,
                    concurrency: int = 8, label: str = "path") -> list[PathOutcome]:
    """Emit, compile and run ``paths`` on ``backend``; one :class:`PathOutcome` each, in order.

    The batch compiles as one module; when that fails, each path compiles alone and a path that
    still fails is judged from its first diagnostic (:func:`_static_failure`).
    """
    names = [f"{label}{i}" for i in range(len(paths))]
    trajs: list[n.Trajectory | None] = []
    outcomes: list[PathOutcome | None] = [None] * len(paths)
    for i, p in enumerate(paths):
        try:
            trajs.append(emitter.trajectory(p, names[i]))
        except ValueError as exc:
            trajs.append(None)
            outcomes[i] = PathOutcome(p, False, 0, 0, (), 0, "literal", str(exc))
    plans: dict[int, Plan] = {}
    good = [i for i, t in enumerate(trajs) if t is not None]
    try:
        plan = emitter.compile([t for t in trajs if t is not None], f"<{label}s>")
        plans = dict.fromkeys(good, plan)
    except CompileError:
        for i in good:
            t = trajs[i]
            assert t is not None
            try:
                plans[i] = emitter.compile([t], f"<{names[i]}>")
            except CompileError as err:
                offset = 2 if emitter.modules else 0  # the `use` line and a blank line
                outcomes[i] = _static_failure(paths[i], err, offset)
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            result = await run_trajectory(plans[i], names[i], backend)
        got = judge(paths[i], result)
        k = tied_failure(paths[i], got, result)
        if k is not None:
            async with sem:
                got = await _through_fan(paths[i], k, got, emitter, backend, concurrency,
                                         f"{names[i]}f")
        outcomes[i] = got

    await asyncio.gather(*(one(i) for i in plans))
    return [o for o in outcomes if o is not None]


def tied_failure(path: PathSpec, outcome: PathOutcome, result: RunResult) -> int | None:
    """The index ``k`` of the step whose incoming edge failed structurally *at the target*
    after a hand-off ``h{k}`` whose ``most_frequent`` broke a tie, or None."""
    if not outcome.edges or outcome.edges[-1].outcome != "structural" or result.trace is None:
        return None
    k = outcome.steps - 1
    if k < 1 or outcome.edges[-1].edge != (path.steps[k - 1].tool, path.steps[k].tool):
        return None
    steps = {s.id: s for s in result.trace.steps}
    hand = steps.get(f"h{k}")
    if hand is None or hand.failure is not None or not any(t.broken for t in hand.ties):
        return None
    return k


async def _source_rows(path: PathSpec, k: int, emitter: Emitter, backend: Backend,
                       name: str) -> list[dict[str, object]]:
    """The records of step ``k - 1`` of ``path``: its prefix run again, the source reading up
    to :data:`~edgedsl.recipe.graph.handoff.SOURCE_PAGES` pages (empty when it fails)."""
    prefix = PathSpec(path.steps[:k])
    try:
        plan = emitter.compile([emitter.trajectory(prefix, name, SOURCE_PAGES)], f"<{name}>")
    except (CompileError, ValueError):
        return []
    again = await run_trajectory(plan, name, backend, keep=(f"s{k - 1}",))
    return again.relations.get(f"s{k - 1}") or []


async def _through_fan(path: PathSpec, k: int, outcome: PathOutcome, emitter: Emitter,
                       backend: Backend, concurrency: int, label: str) -> PathOutcome:
    """Judge edge ``k`` of ``path`` again through a fan of the values its source produced
    (the prefix is run again keeping the source's records; one call of the target per
    value)."""
    rows = await _source_rows(path, k, emitter, backend, f"{label}s")
    prev, step = path.steps[k - 1], path.steps[k]
    handed = fan_values(rows, emitter.nodes[prev.tool], emitter.nodes[step.tool],
                        step.bindings, emitter.codes, phi=PHI)
    if not handed:
        return outcome
    fan = [PathSpec((Step(step.tool, (*step.args, *args)),)) for args in handed]
    got = await run_paths(fan, emitter, backend, concurrency=concurrency, label=label)
    edge = (prev.tool, step.tool)
    tried = [o for o in got if o.steps]
    ok = sum(o.passed for o in tried)
    if ok:
        verdict = EdgeOutcome(edge, "success", "fan",
                              f"a tied hand-off: {ok} of {len(tried)} values the source "
                              f"produced answered")
    elif tried and all(o.environmental for o in tried):
        verdict = EdgeOutcome(edge, "environmental", tried[0].code, tried[0].message)
    else:
        verdict = EdgeOutcome(edge, "structural", outcome.edges[-1].code,
                              f"{outcome.edges[-1].message} (a tied hand-off: none of "
                              f"{len(tried)} values the source produced answered)")
    return replace(outcome, edges=(*outcome.edges[:-1], verdict))
