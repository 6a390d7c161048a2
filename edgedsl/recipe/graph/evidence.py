"""G* as evidence for the checker: each edge's execution record in the checker's own form
(:class:`edgedsl.check.evidence.EdgeRecord`), so ``edgedsl check`` can warn (``W008``) about a
junction over an edge refinement pruned or never saw succeed; and where the shipped G* lives."""

from __future__ import annotations

from pathlib import Path

from ...check.evidence import EdgeEvidence, EdgeRecord
from .model import GraphEdge, PrunedEdge, ToolGraph

__all__ = ["default_graph_path", "edge_evidence"]


def default_graph_path() -> Path:
    """The G* shipped with edgedsl: ``graph build`` then ``graph refine --iterations 100
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
