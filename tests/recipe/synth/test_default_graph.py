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


def test_no_field_of_another_unit_feeds_the_utm_k_coordinates() -> None:
    """``std.utmk_to_wgs84`` takes juso's UTM-K metres. Seoul bus stations' ``tmX``/``tmY`` are
    WGS84 degrees; labelled "X 좌표" they shared its pool, and the shipped G*'s defaults for it
    were degrees that convert to a point off Korea (so its edge into ``tago.stops_near`` was
    pruned). Only fields holding UTM-K metres may feed it, and its defaults are metres."""
    from edgedsl.recipe.graph.observe import keys_for_field, keys_for_param

    g = load_graph(default_graph_path())
    tools = tool_index(load_catalog(g.catalog.modules, []))
    node = g.tool("std.utmk_to_wgs84")
    for pname in ("entX", "entY"):
        keys = set(keys_for_param(next(p for p in node.params if p.name == pname)))
        feeding = {f"{q}.{f.name}" for q, t in tools.items() for f in t.record.fields
                   if keys & set(keys_for_field(f.name, f.type, f.label))}
        assert feeding == {f"juso.addrCoordApi.{pname}", f"std.utmk_to_wgs84.{pname}"}
    for v in node.defaults.get("entX", []):
        assert 700_000 <= float(v) <= 1_400_000
    for v in node.defaults.get("entY", []):
        assert 1_400_000 <= float(v) <= 2_300_000
