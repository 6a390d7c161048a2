"""The G* shipped with edgedsl (``synth run``'s default) still matches the catalog: a catalog
change that breaks it fails here, and docs/synth.md says how to make it again."""

from __future__ import annotations

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.graph.observe import tool_index
from edgedsl.recipe.graph.signature import tool_node


def test_the_shipped_gstar_matches_the_catalog() -> None:
    g = load_graph(default_graph_path())
    assert g.stage == "refined" and g.iterations and g.edges
    catalog = load_catalog(g.catalog.modules, [])
    tools = tool_index(catalog)
    for node in g.tools:
        assert node.name in tools, f"{node.name} is no longer in the catalog"
        now = tool_node(tools[node.name], node.domain)
        assert (now.params, now.fields, now.writes) == (node.params, node.fields, node.writes), \
            f"{node.name} changed since the shipped G* was made: rebuild it (docs/synth.md)"
    names = {t.name for t in g.tools}
    for e in g.edges:
        assert e.source in names and e.target in names
        fields = {f.name for f in g.tool(e.source).fields}
        params = {p.name for p in g.tool(e.target).params}
        assert all(b.field in fields and b.param in params for b in e.bindings)
