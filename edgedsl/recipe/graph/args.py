"""Literal arguments of graph paths: default candidates for the parameters no binding fills.

Refinement, the report's fresh executions and synthesis all fill a tool's required parameters
the same way: the edge's own defaults first, then the tool's default candidates — its catalog
enums and the values observed so far (a :class:`~edgedsl.recipe.graph.observe.ValuePool`) — memoised
until the pool next changes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ...core.types import CodeType
from .model import GraphEdge, Port, Scalar, ToolGraph, ToolNode
from .observe import ValuePool, keys_for_param, node_defaults, value_ok

__all__ = ["ArgChooser", "Earlier", "carries", "pool_from_graph"]

Earlier = Sequence[tuple[str, Sequence[tuple[str, Scalar]]]]
"""The literal arguments of a path's earlier calls: ``(tool, ((parameter, value), …))``."""


def carries(param: Port, source: Port, same_platform: bool) -> bool:
    """Whether an argument an earlier call gave its parameter ``source`` is the context of a
    later call's parameter ``param``: the same code type, or for a parameter of none, the same
    name on the same platform. A chain keeps its context as an analyst does — the stops of a
    route are asked in the city its routes were listed in (TAGO's ``cityCode``), a company's
    reports for the year already asked — where a default drawn afresh named another city,
    whose codes the route ids are not, and the call came back empty."""
    if param.code is not None:
        return param.code == source.code
    return source.code is None and param.name == source.name and same_platform


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

    def context(self, earlier: Earlier, tool: str) -> dict[str, Scalar]:
        """``tool``'s parameters that the path's ``earlier`` calls already gave a literal of the
        same kind (:func:`carries`): the first such value each."""
        ports = self.nodes[tool].params
        platform = tool.partition(".")[0]
        out: dict[str, Scalar] = {}
        for qualname, args in earlier:
            sources = {p.name: p for p in self.nodes[qualname].params}
            same = qualname.partition(".")[0] == platform
            for sname, value in args:
                src = sources.get(sname)
                if src is None:
                    continue
                for port in ports:
                    if port.name not in out and carries(port, src, same):
                        out[port.name] = value
        return out

    def path_args(self, edge: GraphEdge, rng: random.Random,
                  earlier: Earlier) -> tuple[tuple[str, Scalar], ...]:
        """:meth:`edge_args` of the next call of a path whose calls so far were ``earlier``:
        its context first (:meth:`context`)."""
        return self.edge_args(edge, rng, self.context(earlier, edge.target))

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
