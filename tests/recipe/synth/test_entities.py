"""Entity hand-offs (edgedsl.recipe.synth.entities): the registry names code types the catalog
declares, and junction typing ranks an edge handing off an entity identifier higher."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.evidence import default_graph_path
from edgedsl.recipe.graph.model import load_graph
from edgedsl.recipe.synth.engine import Engine
from edgedsl.recipe.synth.entities import (
    ENTITY_CODES,
    KNOWN_CODES,
    entity_of,
    handoff_score,
    reads_as_text,
)
from edgedsl.runtime.backends import make_backend
from tests.synth_world import light_catalog, light_graph


def test_every_entity_code_is_a_code_type_of_the_catalog() -> None:
    graph = load_graph(default_graph_path())
    catalog = load_catalog(list(graph.catalog.modules), [])
    assert set(ENTITY_CODES) <= set(catalog.code_types), \
        sorted(set(ENTITY_CODES) - set(catalog.code_types))
    # region and office codes are generic: they pick an arbitrary member downstream
    assert entity_of("codes.NeisOffice") is None and entity_of("tago.CityCode") is None
    assert entity_of("codes.CorpCode") == "company" and entity_of(None) is None


def test_addresses_hand_a_place_on_into_the_address_search() -> None:
    """The catalog's addresses of places (a school's, a head office's, a building's lot, a
    fuel station's) share one type with juso's search keyword, so that a graph binds them: an
    address is a place a person knows and reads (never a code in a query or an answer)."""
    graph = load_graph(default_graph_path())
    catalog = load_catalog(list(graph.catalog.modules), [])
    address = catalog.code_types["codes.Address"]
    fed = {(r, spec.name) for r, rec in catalog.records.items() for spec in rec.fields
           if spec.type == address}
    assert {("neis.School", "ORG_RDNMA"), ("dart.Company", "adres"),
            ("fsc.CorpOutline", "enpBsadr"), ("molit.BrTitle", "newPlatPlc")} <= fed, fed
    assert catalog.tool("juso.addrLinkApi").param("keyword").type == address
    # the English search is looked up for its English address, not as a way to a code
    assert catalog.tool("juso.addrEngApi").param("keyword").type != address
    # the register writes its road address with a leading space: still an address
    assert re.fullmatch(address.pattern, " 대전광역시 유성구 봉명로 214")
    assert not re.fullmatch(address.pattern, "  ")
    assert entity_of("codes.Address") == "place" and "codes.Address" in KNOWN_CODES
    assert reads_as_text("codes.Address") and not reads_as_text("codes.CorpCode")


def test_the_score_adds_the_weight_to_an_entity_hand_off_only() -> None:
    assert handoff_score(0.5, "codes.NeisSchool") == 0.7
    assert handoff_score(0.5, "codes.NeisOffice") == 0.5
    assert handoff_score(0.5, "codes.NeisSchool", weight=0.0) == 0.5


@pytest.mark.slow
def test_ranked_puts_entity_hand_offs_first_with_a_large_weight() -> None:
    """With a weight of 1 (more than any draw) every entity edge ranks before every generic
    one; with 0 the order is the plain Thompson order, which mixes them on these roots."""
    mixed = 0
    for weight in (1.0, 0.0):
        eng = Engine(light_graph(), light_catalog(), make_backend("world", seed=0),
                     entity_weight=weight)

        async def main(eng: Engine = eng) -> list[list[bool]]:
            out = []
            for tool in eng.roots():
                d = await eng.root(tool, random.Random(0))
                if d is not None:
                    out.append([entity_of(eng.handoff_code(e)) is not None
                                for e in eng.ranked(d, random.Random(1))])
            return out

        for flags in asyncio.run(main()):
            ordered = flags == sorted(flags, reverse=True)
            if weight == 1.0:
                assert ordered
            else:
                mixed += not ordered
    assert mixed > 0
