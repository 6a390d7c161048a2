"""Literal arguments of graph paths: default candidates for the parameters no binding fills.

Refinement, the report's fresh executions and synthesis all fill a tool's required parameters
the same way: the edge's own defaults first, then the tool's default candidates — its catalog
enums and the values observed so far (a :class:`~edgedsl.recipe.graph.observe.ValuePool`) — memoised
until the pool next changes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from ...core.types import CodeType
from .model import GraphEdge, Scalar, ToolGraph, ToolNode
from .observe import ValuePool, keys_for_param, node_defaults, value_ok

__all__ = ["ArgChooser", "pool_from_graph"]


def pool_from_graph(graph: ToolGraph) -> ValuePool:
    """A value pool seeded with the defaults written into ``graph``'s nodes (by ``graph build``
    or by refinement)."""
    pool = ValuePool()
    for t in graph.tools:
        for port in t.params:
            for v in t.defaults.get(port.name, []):
                for k in keys_for_param(port):
                    pool.add(k, v)
    return pool


class ArgChooser:
    """Default candidates and literal arguments for the tools of a graph (see the module doc)."""

    def __init__(self, nodes: Mapping[str, ToolNode], pool: ValuePool,
                 codes: Mapping[str, CodeType]) -> None:
        self.nodes = nodes
        self.pool = pool
        self.codes = codes
        self._memo: dict[str, dict[str, list[Scalar]]] = {}
        self._pool_size = -1

    def defaults(self, tool: str) -> dict[str, list[Scalar]]:
        """Default candidates of ``tool``'s required parameters (enums and observed values),
        memoised until the pool next changes."""
        memo = self._memo
        if len(self.pool) != self._pool_size:
            memo.clear()
            self._pool_size = len(self.pool)
        if tool not in memo:
            memo[tool] = node_defaults(self.nodes[tool], self.pool, self.codes)
        return memo[tool]

    def candidates(self, edge: GraphEdge, pname: str) -> list[Scalar]:
        """Candidates of parameter ``pname`` of the edge's target: the edge's defaults that fit,
        then the target's."""
        ports = {p.name: p for p in self.nodes[edge.target].params}
        out = [v for v in edge.defaults.get(pname, []) if value_ok(ports[pname], v, self.codes)]
        out += [v for v in self.defaults(edge.target).get(pname, []) if v not in out]
        return out

    def edge_args(self, edge: GraphEdge, rng: random.Random,
                  given: Mapping[str, Scalar] | None = None,
                  filled: frozenset[str] = frozenset()) -> tuple[tuple[str, Scalar], ...]:
        """Literal arguments of the edge's target: a default for each required parameter no
        binding fills (raises KeyError when one has no candidate). A value ``given`` for a
        parameter is taken instead when it fits the parameter (the context a path already
        set: the city its routes were listed in, the year its reports were asked for);
        parameters ``filled`` otherwise (by a reference) get none."""
        bound = {b.param for b in edge.bindings} | filled
        args: list[tuple[str, Scalar]] = []
        ports = {p.name: p for p in self.nodes[edge.target].params}
        for pname in self.nodes[edge.target].required:
            if pname in bound:
                continue
            if given and pname in given and value_ok(ports[pname], given[pname], self.codes):
                args.append((pname, given[pname]))
                continue
            cands = self.candidates(edge, pname)
            if not cands:
                raise KeyError(pname)
            args.append((pname, rng.choice(cands)))
        return tuple(args)

    def runnable(self, edge: GraphEdge) -> bool:
        """True when every required parameter of the edge's target can be filled."""
        bound = {b.param for b in edge.bindings}
        missing = [p for p in self.nodes[edge.target].required if p not in bound]
        if not missing:
            return True
        have = self.defaults(edge.target)
        ports = {p.name: p for p in self.nodes[edge.target].params}
        return all(p in have or any(value_ok(ports[p], v, self.codes)
                                    for v in edge.defaults.get(p, ())) for p in missing)

    def callable(self, tool: str) -> bool:
        """True when every required parameter of ``tool`` has a default candidate."""
        d = self.defaults(tool)
        return all(p in d for p in self.nodes[tool].required)

    def root_args(self, tool: str, rng: random.Random) -> tuple[tuple[str, Scalar], ...]:
        """Literal arguments of a path's first step."""
        d = self.defaults(tool)
        return tuple((p, rng.choice(d[p])) for p in self.nodes[tool].required)
