"""What execution knows about a program's junctions: ``W008`` for an edge G* pruned or that
never succeeded.

The checker proves that a junction is well typed; it cannot know whether the hand-off ever
returns records. A refined tool graph G* can: refinement ran each edge against a backend and
kept its record (trials, successes, failures by kind, and the reason when it was cut). This
module reads that record in a form of its own (:class:`EdgeRecord`, built from a G* file by
:func:`edgedsl.recipe.graph.evidence.edge_evidence`, so the checker does not depend on the
recipe) and reports every junction whose edge G* pruned or never saw succeed.

A junction matches an edge when the edge runs from the tool that produced the junction's
relation (followed back through ``drv`` nodes, and through both branches of an ``if``) to the
tool called, the edge binds the junction's field to its parameter, and the call asks no more
than refinement's runs did (every other argument is another of the edge's bindings or a value
refinement drew): a record made on refinement's inputs says little about a call that adds its
own. A junction over an edge G* never proposed, or one it kept and has not tried, says
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from ..core.diagnostics import Diagnostic, diag
from .ir import (
    ArgIR,
    CallIR,
    CompareIR,
    DrvIR,
    IfIR,
    Junction,
    ParallelIR,
    ProgramIR,
    StepIR,
)

__all__ = ["EdgeEvidence", "EdgeRecord", "edge_warnings", "has_junctions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeRecord:
    """One G* edge as refinement left it: ``source`` → ``target`` (``platform.tool``), the
    ``(field, param)`` pairs it binds, the values refinement drew for its other required
    parameters, its executions and, for a cut edge, why it was cut."""

    source: str
    target: str
    bindings: tuple[tuple[str, str], ...]
    trials: int
    successes: int
    structural: int = 0
    environmental: int = 0
    defaults: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    pruned: str | None = None

    @property
    def doomed(self) -> bool:
        """True when G* pruned the edge or tried it without one success."""
        return self.pruned is not None or (self.trials > 0 and self.successes == 0)

    def record(self) -> str:
        """The record in words: ``0 of 4 executions returned records (4 structural failures)``."""
        kinds = [f"{n} {kind} failure{'s' if n != 1 else ''}"
                 for kind, n in (("structural", self.structural),
                                 ("environmental", self.environmental)) if n]
        tail = f" ({', '.join(kinds)})" if kinds else ""
        return (f"{self.successes} of {self.trials} execution{'s' if self.trials != 1 else ''} "
                f"returned records{tail}")


@dataclass(frozen=True, slots=True)
class EdgeEvidence:
    """The records of one refined graph, keyed by ``(source, target)``; the name the warnings
    give it (``the shipped G*``, ``G* GSTAR.json``) and the path a hint can name."""

    name: str
    path: str
    edges: Mapping[tuple[str, str], EdgeRecord]


def _origins(steps: tuple[StepIR, ...], into: dict[str, set[str]]) -> None:
    """Relation id → the tools that can have produced it (through ``drv`` and ``if``)."""
    for step in steps:
        if isinstance(step, CallIR):
            into.setdefault(step.id, set()).add(step.tool.qualname)
        elif isinstance(step, CompareIR):
            into.setdefault(step.id, set()).add(step.call.tool.qualname)
        elif isinstance(step, ParallelIR):
            for branch in step.branches:
                into.setdefault(branch.id, set()).add(branch.tool.qualname)
        elif isinstance(step, DrvIR):
            into.setdefault(step.id, set()).update(into.get(step.source, ()))
        elif isinstance(step, IfIR):
            _origins(step.then, into)
            _origins(step.orelse, into)


def _calls(steps: tuple[StepIR, ...]) -> Iterator[tuple[CallIR, tuple[ArgIR, ...]]]:
    """Every call with its arguments as the call receives them (a ``parallel`` group's shared
    argument put in place of the branch's reference to it)."""
    for step in steps:
        if isinstance(step, CallIR):
            yield step, step.args
        elif isinstance(step, CompareIR):
            yield step.call, step.call.args
        elif isinstance(step, ParallelIR):
            shared = {a.name: a for a in step.shared}
            for branch in step.branches:
                yield branch, tuple(
                    _as_received(arg, shared.get(arg.shared)) if arg.shared is not None else arg
                    for arg in branch.args)
        elif isinstance(step, IfIR):
            yield from _calls(step.then)
            yield from _calls(step.orelse)


def _as_received(arg: ArgIR, held: ArgIR | None) -> ArgIR:
    if held is None:
        return arg
    return ArgIR(name=arg.name, type=arg.type, literal=held.literal,
                 is_literal=held.is_literal, junction=held.junction, span=held.span)


def _as_refinement_ran(args: tuple[ArgIR, ...], relation: str, edge: EdgeRecord) -> bool:
    """True when the call asks no more than refinement's runs of ``edge`` did: every argument
    is a junction from ``relation`` over one of the edge's bindings, or a literal among the
    values refinement drew for that parameter. A call that adds an argument refinement left
    out (``JO: "003800"``), or takes one from elsewhere, is not what the record describes."""
    for arg in args:
        j = arg.junction
        if j is not None:
            if j.source != relation or (j.field, arg.name) not in edge.bindings:
                return False
        elif arg.is_literal:
            drawn = edge.defaults.get(arg.name, ())
            if str(arg.literal) not in {str(v) for v in drawn}:
                return False
    return True


def _edges_that_ran(evidence: EdgeEvidence, target: str, most: int = 3) -> str:
    """The best-recorded edges into ``target`` that succeeded, in words (or "")."""
    ran = sorted((e for e in evidence.edges.values()
                  if e.target == target and e.pruned is None and e.successes > 0),
                 key=lambda e: (-e.successes / e.trials, -e.successes, e.source))
    return ", ".join(
        f"`{e.source}` ({_pairs(e.bindings)}; "
        f"{e.successes}/{e.trials} ok)" for e in ran[:most])


def has_junctions(program: ProgramIR) -> bool:
    """True when some call of ``program`` takes a junction (so evidence could speak)."""
    return any(a.junction is not None
               for t in program.trajectories for _, args in _calls(t.steps) for a in args)


def edge_warnings(program: ProgramIR, evidence: EdgeEvidence) -> list[Diagnostic]:
    """One ``W008`` per call and upstream tool whose edge ``evidence`` records as pruned or
    never successful (at the call's first junction over it), in source order."""
    out: list[Diagnostic] = []
    for traj in program.trajectories:
        origins: dict[str, set[str]] = {}
        _origins(traj.steps, origins)
        for call, args in _calls(traj.steps):
            target = call.tool.qualname
            warned: set[str] = set()
            for arg in args:
                junction = arg.junction
                if junction is None:
                    continue
                for source in sorted(origins.get(junction.source, ())):
                    edge = evidence.edges.get((source, target))
                    if (source in warned or edge is None or not edge.doomed
                            or (junction.field, arg.name) not in edge.bindings
                            or not _as_refinement_ran(args, junction.source, edge)):
                        continue
                    warned.add(source)
                    used = {(a.junction.field, a.name) for a in args
                            if a.junction is not None and a.junction.source == junction.source}
                    out.append(_warning(evidence, edge, junction, arg, used))
    out.sort(key=lambda d: (d.span.file, d.span.start) if d.span is not None else ("", 0))
    return out


def _pairs(bindings: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{f} → {p}" for f, p in bindings)


def _warning(evidence: EdgeEvidence, edge: EdgeRecord, junction: Junction, arg: ArgIR,
             used: set[tuple[str, str]]) -> Diagnostic:
    source, target = edge.source, edge.target
    verdict = (f"{evidence.name} pruned" if edge.pruned is not None
               else f"{evidence.name} kept but never saw succeed")
    hints = [f"refinement cut it: {edge.pruned}"] if edge.pruned else []
    unused = [b for b in edge.bindings if b not in used]
    if unused:
        which = "that binding" if len(unused) == 1 else "those bindings"
        hints.append(f"refinement also bound {_pairs(unused)}; the failures may come from "
                     f"{which} rather than from the ones this call uses")
    hints.append("refinement ran it on its own inputs; if this program's run returns records "
                 "here, the edge works for these values")
    ran = _edges_that_ran(evidence, target)
    if ran:
        hints.append(f"edges into `{target}` that ran: {ran}")
    hints.append(f"`edgedsl graph show {evidence.path} {target}` lists every edge into "
                 f"`{target}` with its record")
    return diag(
        "W008",
        f"`{target}` takes {_pairs(sorted(used))} from `{junction.source}` over the edge "
        f"`{source}` → `{target}`, which {verdict}: {edge.record()}",
        junction.span if junction.span.end > junction.span.start else arg.span,
        "an edge that did not run", hints=hints)
