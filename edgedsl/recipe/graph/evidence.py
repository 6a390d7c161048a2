"""G* as evidence for the checker: each edge's execution record in the checker's own form
(:class:`edgedsl.check.evidence.EdgeRecord`), so ``edgedsl check`` and the language server can
warn (``W008``) about a junction over an edge refinement pruned or never saw succeed; which G*
speaks for a program; and where the shipped G* lives."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ...check.evidence import EdgeEvidence, EdgeRecord, edge_warnings, has_junctions
from ...check.ir import ProgramIR
from ...core.diagnostics import Diagnostic
from ...core.resources import stdlib_dir
from .model import GraphEdge, PrunedEdge, ToolGraph, load_graph

__all__ = ["default_graph_path", "edge_evidence", "junction_warnings"]


def default_graph_path() -> Path:
    """The G* shipped with edgedsl: ``graph build`` then ``graph refine --iterations 150
    --paths 32`` on the world (seed 0) over the ten-platform catalog (see docs/synth.md)."""
    return Path(__file__).resolve().parents[1] / "synth" / "data" / "gstar_world.json"


def _record(edge: GraphEdge) -> EdgeRecord:
    return EdgeRecord(
        source=edge.source, target=edge.target,
        bindings=tuple((b.field, b.param) for b in edge.bindings),
        defaults={k: tuple(v) for k, v in edge.defaults.items()},
        trials=edge.trials, successes=edge.successes,
        structural=edge.failures.structural, environmental=edge.failures.environmental,
        pruned=edge.reason if isinstance(edge, PrunedEdge) else None)


def edge_evidence(graph: ToolGraph, name: str, path: str) -> EdgeEvidence:
    """The records of every kept and pruned edge of ``graph``, named ``name`` in warnings
    (``path`` is what a hint tells the reader to open)."""
    edges = {e.key: _record(e) for e in graph.edges}
    edges.update({e.key: _record(e) for e in graph.pruned})
    return EdgeEvidence(name=name, path=path, edges=edges)


@lru_cache(maxsize=4)
def _shipped(mtime_ns: int, shown: str) -> EdgeEvidence:
    """The shipped G*'s evidence (read once per process while the file is unchanged)."""
    return edge_evidence(load_graph(default_graph_path()), "the shipped G*", shown)


def _shown(path: Path) -> str:
    """``path`` as a hint shows it: relative to the working directory when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def junction_warnings(program: ProgramIR, modules: Iterable[str],
                      evidence: EdgeEvidence | None = None) -> list[Diagnostic]:
    """``W008`` for ``program`` (whose used modules were read from the files ``modules``) from
    ``evidence`` (:func:`edge_evidence` of a G* the caller read); with None, from the shipped
    G* when every module came from the standard library (a user's own module of the same name
    is not the catalog it was refined on), else none."""
    if not has_junctions(program):
        return []
    if evidence is None:
        stdlib = stdlib_dir().resolve()
        if not all(Path(m).resolve().is_relative_to(stdlib) for m in modules):
            return []
        path = default_graph_path()
        evidence = _shipped(path.stat().st_mtime_ns, _shown(path))
    return edge_warnings(program, evidence)
