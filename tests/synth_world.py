"""A light G* for synthesis tests: the shipped G* restricted to four platforms whose world data
is quick to make (NEIS, the Assembly, the NEC, the expressway corporation)."""

from __future__ import annotations

from functools import cache

from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import ToolGraph, load_graph

LIGHT = ("assembly", "ex", "nec", "neis")


@cache
def light_graph() -> ToolGraph:
    """The shipped G* on :data:`LIGHT` only (a fresh copy is not needed: tests never mutate
    it)."""
    return load_graph(default_graph_path()).on_platforms(LIGHT)


@cache
def light_catalog():  # type: ignore[no-untyped-def]
    """The catalog of :data:`LIGHT`."""
    from edgedsl.check import load_catalog

    return load_catalog(list(LIGHT), [])
