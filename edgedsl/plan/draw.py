"""Drawing plans: Graphviz DOT and Mermaid flowcharts of trajectory steps.

Nodes are steps (calls show their tool, ``drv`` nodes their reducers as written — ``where clpr
>= 55000 | max rcept_dt`` —, an ``if`` its condition) and the answer (each field as written);
edges are junctions labelled with their kind and field (``seq corp_code``, ``fan(5) code``),
``drv`` for the relation a reduction reads, ``reads`` for a relation an ``if`` condition or the
answer reads; ``parallel`` groups, ``compare`` arms and both branches of an ``if`` are clusters
(DOT ``subgraph cluster_…``, Mermaid ``subgraph``), the first step of each branch reached by a
dotted ``then`` / ``else`` edge. The spelling is :mod:`edgedsl.plan.surface`'s.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..reduce.answer import predicate_from_json, reads, value_from_json_data
from .model import (
    CallStep,
    CompareStep,
    DrvStep,
    IfStep,
    ParallelStep,
    Plan,
    RequestTemplate,
    TrajectoryPlan,
    decode_value,
)
from .surface import literal_text, predicate_text, reducer_text, value_text

__all__ = ["to_dot", "to_mermaid"]


def _selected(plan: Plan, trajectory: str | None) -> list[TrajectoryPlan]:
    return [plan.trajectory(trajectory)] if trajectory is not None else list(plan.trajectories)


def _label(tp: TrajectoryPlan, key: str) -> str:
    s = tp.steps[key]
    head = s.relation or s.id.rsplit("/", 1)[-1]
    if isinstance(s, CallStep):
        pages = "" if s.request.pages is None else f" pages {s.request.pages}"
        return f"{head}\n{s.request.tool}{pages}"
    if isinstance(s, DrvStep):
        ops = " | ".join(reducer_text(r) for r in s.reducers)
        return f"{head}\ndrv {s.source} | {ops}"
    if isinstance(s, CompareStep):
        return f"{head}\ncompare {s.request.tool} over {s.param}"
    if isinstance(s, IfStep):
        return "if " + predicate_text(s.predicate.query)
    return f"{head}\nparallel"


ANSWER = "answer"
"""The key of the answer's node (no step key is a bare word: a step's is its id)."""


def _answer_label(tp: TrajectoryPlan) -> str | None:
    if tp.answer is None:
        return None
    if tp.answer.kind == "expr":
        return "answer " + value_text(tp.answer.fields[0].query)
    return "answer\n" + "\n".join(f"{f.name}: {value_text(f.query)}" for f in tp.answer.fields)


def _read_edges(tp: TrajectoryPlan, producers: dict[str, list[str]]
                ) -> Iterator[tuple[str, str, str]]:
    """``reads`` edges into each ``if`` step and into the answer from the relations they read."""
    for key, s in tp.steps.items():
        if isinstance(s, IfStep):
            for rel in reads(predicate_from_json(s.predicate.query)):
                for p in producers.get(rel, []):
                    yield p, key, "reads"
    if tp.answer is not None:
        seen: set[str] = set()
        for f in tp.answer.fields:
            for rel in reads(value_from_json_data(f.query)):
                for p in producers.get(rel, []):
                    if p not in seen:
                        seen.add(p)
                        yield p, ANSWER, "reads"


def _edges(tp: TrajectoryPlan) -> Iterator[tuple[str, str, str]]:
    producers: dict[str, list[str]] = {}
    for key, s in tp.steps.items():
        if s.relation is not None and not isinstance(s, ParallelStep):
            producers.setdefault(s.relation, []).append(key)
    for key, s in tp.steps.items():
        reqs: list[RequestTemplate] = []
        if isinstance(s, CallStep | CompareStep):
            reqs.append(s.request)
        for req in reqs:
            for _, j in req.all_junctions:
                bound = "" if j.kind == "seq" else f"({j.bound})"
                for p in producers.get(j.source, []):
                    yield p, key, f"{j.kind}{bound} {j.field}"
        if isinstance(s, ParallelStep):
            for name, sh in s.shared.items():
                if sh.junction is not None:
                    for p in producers.get(sh.junction.source, []):
                        yield p, key, f"seq {sh.junction.field} as {name}"
            for b in s.branches:
                yield key, b, "shared"
        if isinstance(s, DrvStep):
            for p in producers.get(s.source, []):
                yield p, key, "drv"
    yield from _read_edges(tp, producers)


_Sub = tuple[str, str, list[str]]
_Cluster = tuple[str, str, list[str], list[_Sub]]


def _clusters(tp: TrajectoryPlan) -> list[_Cluster]:
    """(cluster id, label, member step keys, sub-clusters) for parallel, compare and if steps."""
    out: list[_Cluster] = []
    for key, s in tp.steps.items():
        if isinstance(s, ParallelStep):
            out.append((key, f"parallel {s.relation}", [key, *s.branches], []))
        elif isinstance(s, CompareStep):
            arms = ", ".join(literal_text(decode_value(v)) for v in s.values)
            out.append((key, f"compare over {s.param} in [{arms}]", [key], []))
        elif isinstance(s, IfStep):
            subs = [(f"{key}/then", "then", [k for layer in s.then for k in layer]),
                    (f"{key}/else", "else", [k for layer in s.orelse for k in layer])]
            out.append((key, "if", [key], subs))
    return out


# ---------------------------------------------------------------- DOT


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(plan: Plan, trajectory: str | None = None) -> str:
    """A Graphviz ``digraph`` of the plan's trajectories (or of one)."""
    lines = ["digraph plan {", "  rankdir=TB;", '  node [shape=box, fontname="monospace"];']
    for tp in _selected(plan, trajectory):
        def nid(key: str, tp: TrajectoryPlan = tp) -> str:
            return _q(f"{tp.name}::{key}")

        lines.append(f"  subgraph {_q('cluster_' + tp.name)} {{")
        lines.append(f"    label={_q(tp.name)};")
        placed: set[str] = set()
        for cid, label, members, subs in _clusters(tp):
            lines.append(f"    subgraph {_q(f'cluster_{tp.name}::{cid}')} {{")
            lines.append(f"      label={_q(label)}; style=dashed;")
            for k in members:
                if k not in placed:
                    placed.add(k)
                    shape = ", shape=diamond" if isinstance(tp.steps[k], IfStep) else ""
                    lines.append(f"      {nid(k)} [label={_q(_label(tp, k))}{shape}];")
            for sid, slabel, smembers in subs:
                lines.append(f"      subgraph {_q(f'cluster_{tp.name}::{sid}')} {{")
                lines.append(f"        label={_q(slabel)};")
                for k in smembers:
                    placed.add(k)
                    lines.append(f"        {nid(k)} [label={_q(_label(tp, k))}];")
                lines.append("      }")
            lines.append("    }")
        for k in tp.steps:
            if k not in placed:
                lines.append(f"    {nid(k)} [label={_q(_label(tp, k))}];")
        answer = _answer_label(tp)
        if answer is not None:
            lines.append(f"    {nid(ANSWER)} [label={_q(answer)}, shape=note];")
        for src, dst, label in _edges(tp):
            style = ", style=dashed" if label in ("drv", "reads") else ""
            lines.append(f"    {nid(src)} -> {nid(dst)} [label={_q(label)}{style}];")
        for key, s in tp.steps.items():
            if isinstance(s, IfStep):
                for branch, layers in (("then", s.then), ("else", s.orelse)):
                    if layers and layers[0]:
                        lines.append(f"    {nid(key)} -> {nid(layers[0][0])} "
                                     f"[label={_q(branch)}, style=dotted];")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- Mermaid


def _m(text: str) -> str:
    return '"' + text.replace('"', "#quot;").replace("\n", "<br/>") + '"'


def to_mermaid(plan: Plan, trajectory: str | None = None) -> str:
    """A Mermaid ``flowchart TD`` of the plan's trajectories (or of one)."""
    lines = ["flowchart TD"]
    ids: dict[tuple[str, str], str] = {}

    def nid(tp: TrajectoryPlan, key: str) -> str:
        return ids.setdefault((tp.name, key), f"n{len(ids)}")

    for ti, tp in enumerate(_selected(plan, trajectory)):
        lines.append(f"  subgraph t{ti}[{_m(tp.name)}]")
        placed: set[str] = set()

        def node(k: str, indent: str, tp: TrajectoryPlan = tp, placed: set[str] = placed) -> None:
            placed.add(k)
            lab = _m(_label(tp, k))
            shape = f"{{{lab}}}" if isinstance(tp.steps[k], IfStep) else f"[{lab}]"
            lines.append(f"{indent}{nid(tp, k)}{shape}")

        for ci, (_, label, members, subs) in enumerate(_clusters(tp)):
            lines.append(f"    subgraph c{ti}_{ci}[{_m(label)}]")
            for k in members:
                if k not in placed:
                    node(k, "      ")
            for si, (_, slabel, smembers) in enumerate(subs):
                lines.append(f"      subgraph c{ti}_{ci}_{si}[{_m(slabel)}]")
                for k in smembers:
                    node(k, "        ")
                lines.append("      end")
            lines.append("    end")
        for k in tp.steps:
            if k not in placed:
                node(k, "    ")
        answer = _answer_label(tp)
        if answer is not None:
            lines.append(f"    {nid(tp, ANSWER)}[/{_m(answer)}/]")
        lines.append("  end")
        for src, dst, label in _edges(tp):
            arrow = "-.->" if label in ("drv", "reads") else "-->"
            lines.append(f"  {nid(tp, src)} {arrow}|{_m(label)}| {nid(tp, dst)}")
        for key, s in tp.steps.items():
            if isinstance(s, IfStep):
                for branch, layers in (("then", s.then), ("else", s.orelse)):
                    if layers and layers[0]:
                        lines.append(f"  {nid(tp, key)} -.->|{branch}| {nid(tp, layers[0][0])}")
    return "\n".join(lines) + "\n"
