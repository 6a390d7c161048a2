"""The contamination audit: how much of an evaluation set a training set already shows.

Static: it reads trajectories (the AST: query, calls, junctions), never runs them. Quantities
(as the recipe reports them, ``REFERENCE.md``):

* **exact query duplicates** — evaluation queries that also occur among the training queries,
  after normalisation (Unicode NFC, runs of whitespace made one space, ends stripped); listed;
* **tool-universe overlap** — the evaluation tools (distinct ``platform.tool`` called) that the
  training set also calls: count, total, share;
* **dependency edges** — (upstream tool, downstream tool) per junction
  (:func:`~edgedsl.recipe.synth.analyze.dependency_edges`): the Jaccard index of the two edge
  *sets*, and the unseen share of the evaluation edge *occurrences* (occurrences whose edge is not
  in the training edge set, over all evaluation occurrences);
* **adjacency edges** — consecutive call sites
(:func:`~edgedsl.recipe.synth.analyze.adjacency_edges`):
  the unseen share of the evaluation occurrences, likewise.

A ratio with an empty denominator is ``None``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ...syntax import nodes
from .analyze import adjacency_edges, dependency_edges, tools_of

__all__ = [
    "AUDIT_REFERENCE",
    "AuditReport",
    "EdgeOverlap",
    "audit",
    "audit_dirs",
    "load_trajectories",
    "normalise_query",
    "render_audit",
]

AUDIT_REFERENCE: dict[str, float] = {
    "duplicates": 0,
    "tool_overlap_share": 0.622,
    "tool_overlap_count": 135,
    "tool_overlap_total": 217,
    "dependency_jaccard": 0.0,
    "dependency_unseen_share": 1.0,
    "dependency_occurrences": 178,
    "adjacency_unseen_share": 0.956,
}
"""The recipe's audit of its training set against KOPA-Bench (``REFERENCE.md``): no duplicated
query, tool overlap 62.2% (135 / 217), 178 dependency-edge occurrences 100% unseen (Jaccard
0.000), 95.6% of adjacency-edge occurrences unseen."""

_cfg = ConfigDict(extra="forbid")


class EdgeOverlap(BaseModel):
    """How the evaluation edges of one kind meet the training edges."""

    model_config = _cfg
    train_edges: int
    eval_edges: int
    shared_edges: int
    jaccard: float | None
    eval_occurrences: int
    unseen_occurrences: int
    unseen_share: float | None


class AuditReport(BaseModel):
    """The audit of an evaluation set against a training set (module docstring)."""

    model_config = _cfg
    train_tasks: int
    eval_tasks: int
    duplicates: list[str] = Field(default_factory=list)
    tool_overlap_count: int
    tool_overlap_total: int
    tool_overlap_share: float | None
    dependency: EdgeOverlap
    adjacency: EdgeOverlap
    problems: list[tuple[str, str]] = Field(default_factory=list)


def normalise_query(text: str) -> str:
    """Unicode NFC, whitespace runs as one space, ends stripped."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _overlap(train: list[tuple[str, str]], ev: list[tuple[str, str]]) -> EdgeOverlap:
    a, b = set(train), set(ev)
    union = a | b
    unseen = sum(e not in a for e in ev)
    return EdgeOverlap(
        train_edges=len(a), eval_edges=len(b), shared_edges=len(a & b),
        jaccard=len(a & b) / len(union) if union else None,
        eval_occurrences=len(ev), unseen_occurrences=unseen,
        unseen_share=unseen / len(ev) if ev else None)


def audit(train: Sequence[nodes.Trajectory], eval: Sequence[nodes.Trajectory],
          problems: Sequence[tuple[str, str]] = ()) -> AuditReport:
    """Audit the evaluation trajectories ``eval`` against the training trajectories ``train``
    (``problems``: files that could not be read, carried into the report)."""
    seen = {normalise_query(t.query) for t in train}
    dups = list(dict.fromkeys(t.query for t in eval if normalise_query(t.query) in seen))
    train_tools = {x for t in train for x in tools_of(t)}
    eval_tools = list(dict.fromkeys(x for t in eval for x in tools_of(t)))
    shared = sum(x in train_tools for x in eval_tools)
    return AuditReport(
        train_tasks=len(train), eval_tasks=len(eval), duplicates=dups,
        tool_overlap_count=shared, tool_overlap_total=len(eval_tools),
        tool_overlap_share=shared / len(eval_tools) if eval_tools else None,
        dependency=_overlap([e for t in train for e in dependency_edges(t)],
                            [e for t in eval for e in dependency_edges(t)]),
        adjacency=_overlap([e for t in train for e in adjacency_edges(t)],
                           [e for t in eval for e in adjacency_edges(t)]),
        problems=sorted(problems))


def load_trajectories(directory: str | Path
                      ) -> tuple[list[nodes.Trajectory], list[tuple[str, str]]]:
    """Parse every ``*.edge`` file under ``directory`` (recursively, sorted): its trajectories,
    and ``(file, reason)`` for each file that does not parse."""
    from ...api import parse
    from ...core.diagnostics import CompileError

    root = Path(directory)
    out: list[nodes.Trajectory] = []
    problems: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.edge")):
        rel = path.relative_to(root).as_posix()
        try:
            out += parse(path).trajectories
        except CompileError as exc:
            problems.append((rel, "; ".join(f"{d.code} {d.message}" for d in exc.diagnostics[:3])))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append((rel, f"{type(exc).__name__}: {exc}"))
    return out, problems


def audit_dirs(train_dir: str | Path, eval_dir: str | Path) -> AuditReport:
    """:func:`audit` of the trajectories of every ``.edge`` file under ``eval_dir`` against
    those under ``train_dir`` (parsed only; files that do not parse are ``problems``)."""
    train, p1 = load_trajectories(train_dir)
    ev, p2 = load_trajectories(eval_dir)
    return audit(train, ev, [(f"train/{f}", r) for f, r in p1] + [(f"eval/{f}", r) for f, r in p2])


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:.1f}%"


def render_audit(report: AuditReport) -> str:
    """A plain-text report: each quantity beside the recipe's figure (:data:`AUDIT_REFERENCE`)."""
    r, d, a = report, report.dependency, report.adjacency
    ref = AUDIT_REFERENCE
    jac = "—" if d.jaccard is None else f"{d.jaccard:.3f}"
    rows = [
        ("quantity", "this audit", "recipe"),
        ("exact query duplicates", str(len(r.duplicates)), f"{ref['duplicates']:.0f}"),
        ("tool-universe overlap",
         f"{_pct(r.tool_overlap_share)} ({r.tool_overlap_count}/{r.tool_overlap_total})",
         f"{_pct(ref['tool_overlap_share'])} ({ref['tool_overlap_count']:.0f}/"
         f"{ref['tool_overlap_total']:.0f})"),
        ("dependency-edge Jaccard", jac, f"{ref['dependency_jaccard']:.3f}"),
        ("dependency occurrences unseen",
         f"{_pct(d.unseen_share)} ({d.unseen_occurrences}/{d.eval_occurrences})",
         f"{_pct(ref['dependency_unseen_share'])} (of {ref['dependency_occurrences']:.0f})"),
        ("adjacency occurrences unseen",
         f"{_pct(a.unseen_share)} ({a.unseen_occurrences}/{a.eval_occurrences})",
         _pct(ref["adjacency_unseen_share"])),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"audit: {r.eval_tasks} evaluation against {r.train_tasks} training trajectories"]
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    for q in r.duplicates:
        lines.append(f"duplicate: {q}")
    for f, why in r.problems:
        lines.append(f"problem: {f}: {why}")
    return "\n".join(lines)
