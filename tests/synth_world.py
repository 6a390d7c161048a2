"""A light G* for synthesis tests: the shipped G* restricted to four platforms whose world data
is quick to make (NEIS, the Assembly, the NEC, the expressway corporation)."""

from __future__ import annotations

from functools import cache

from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import CatalogRef, ToolGraph, load_graph

LIGHT = ("assembly", "ex", "nec", "neis")


@cache
def light_graph() -> ToolGraph:
    """The shipped G* on :data:`LIGHT` only (a fresh copy is not needed: tests never mutate
    it)."""
    g = load_graph(default_graph_path())
    keep = set(LIGHT)

    def ok(tool: str) -> bool:
        return tool.partition(".")[0] in keep

    return g.model_copy(update={
        "catalog": CatalogRef(modules=list(LIGHT)),
        "tools": [t for t in g.tools if ok(t.name)],
        "edges": [e for e in g.edges if ok(e.source) and ok(e.target)],
        "pruned": [],
    })


@cache
def light_catalog():  # type: ignore[no-untyped-def]
    """The catalog of :data:`LIGHT`."""
    from edgedsl.check import load_catalog

    return load_catalog(list(LIGHT), [])
