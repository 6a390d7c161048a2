"""A readable view of one tool's neighbourhood in G or G*: its signature and defaults, the
edges into and out of it with their bindings and posteriors, and the pruned ones with why."""

from __future__ import annotations

from typing import Any

from .model import GraphEdge, PrunedEdge, ToolGraph

__all__ = ["neighbourhood", "render_neighbourhood"]


def _edge(e: GraphEdge, other: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tool": other,
        "bindings": [f"{b.field} → {b.param}" for b in e.bindings],
        "defaults": e.defaults,
        "score": round(e.score, 3),
        "similarity": round(e.similarity, 3),
        "same_domain": e.same_domain,
        "posterior_mean": round(e.mean, 3),
        "alpha": round(e.alpha, 3),
        "beta": round(e.beta, 3),
        "trials": e.trials,
        "successes": e.successes,
        "structural_failures": e.failures.structural,
        "environmental_failures": e.failures.environmental,
    }
    if isinstance(e, PrunedEdge):
        out["pruned_at"] = e.pruned_at
        out["reason"] = e.reason
    return out


def neighbourhood(graph: ToolGraph, tool: str) -> dict[str, Any]:
    """The neighbourhood of ``tool`` as JSON-ready data (KeyError when it is not in the graph)."""
    node = graph.tool(tool)

    def rank(es: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(es, key=lambda d: (-d["posterior_mean"], d["tool"]))

    return {
        "tool": node.name,
        "domain": node.domain,
        "doc": node.doc,
        "stage": graph.stage,
        "params": [f"{p.name}: {p.type}{'?' if p.optional else ''}" for p in node.params],
        "fields": [f"{p.name}: {p.type}" for p in node.fields],
        "defaults": node.defaults,
        "in": rank([_edge(e, e.source) for e in graph.edges if e.target == tool]),
        "out": rank([_edge(e, e.target) for e in graph.edges if e.source == tool]),
        "pruned_in": rank([_edge(e, e.source) for e in graph.pruned if e.target == tool]),
        "pruned_out": rank([_edge(e, e.target) for e in graph.pruned if e.source == tool]),
    }


def _line(arrow: str, e: dict[str, Any]) -> list[str]:
    head = (f"  {arrow} {e['tool']:<32} mean {e['posterior_mean']:.2f}  "
            f"({e['successes']}/{e['trials']} ok, prior {e['score']:.2f}, "
            f"{'same' if e['same_domain'] else 'cross'} domain)")
    lines = [head, f"      {', '.join(e['bindings'])}"]
    if e["defaults"]:
        lines.append("      defaults: " + "; ".join(
            f"{k} ∈ {{{', '.join(map(str, v[:4]))}{', …' if len(v) > 4 else ''}}}"
            for k, v in e["defaults"].items()))
    if "reason" in e:
        lines.append(f"      pruned at iteration {e['pruned_at']}: {e['reason']}")
    return lines


def render_neighbourhood(view: dict[str, Any]) -> str:
    """The view as text."""
    lines = [f"{view['tool']}  ({view['domain']}, {view['stage']} graph)"]
    if view["doc"]:
        lines.append(f"  {view['doc']}")
    lines.append(f"  params: {', '.join(view['params']) or '-'}")
    lines.append(f"  fields: {', '.join(view['fields']) or '-'}")
    if view["defaults"]:
        lines.append("  defaults: " + "; ".join(f"{k} ∈ {{{', '.join(map(str, v[:4]))}}}"
                                                  for k, v in view["defaults"].items()))
    for title, key, arrow in (("feeds", "out", "→"), ("fed by", "in", "←"),
                              ("pruned, would feed", "pruned_out", "→"),
                              ("pruned, would be fed by", "pruned_in", "←")):
        items = view[key]
        lines.append(f"{title} ({len(items)}):")
        for e in items:
            lines += _line(arrow, e)
    return "\n".join(lines)
