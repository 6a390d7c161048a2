"""Static analysis of trajectories: features, structure types, tools, dependency and adjacency
edges — on the hand-written programs of ``tests/recipe/synth/programs`` (one per structure type, all
running on the world backend) and the shipped ``examples/world`` chains."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgedsl.api import parse
from edgedsl.recipe.synth.analyze import (
    adjacency_edges,
    dependency_edges,
    features,
    structure_of,
    tools_of,
)
from edgedsl.syntax import nodes

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PROGRAMS = HERE / "programs"
WORLD = ROOT / "examples" / "world"


def one(path: Path) -> nodes.Trajectory:
    (t,) = parse(path).trajectories
    return t


def text(src: str) -> nodes.Trajectory:
    (t,) = parse(src).trajectories
    return t


def example(prefix: str) -> nodes.Trajectory:
    (path,) = sorted(WORLD.glob(f"{prefix}_*.edge"))
    return one(path)


@pytest.mark.parametrize(("name", "structure", "feats"), [
    ("seq", "Seq", []),
    ("drv", "Drv", ["drv"]),
    ("fan", "Fan", ["fan"]),
    ("sem", "Sem", ["sem"]),
    ("cmp", "Cmp", ["cmp"]),
    ("cond", "Cond", ["cond"]),
])
def test_each_structure_type(name: str, structure: str, feats: list[str]) -> None:
    t = one(PROGRAMS / f"{name}.edge")
    assert features(t) == feats
    assert structure_of(t) == structure


@pytest.mark.parametrize(("prefix", "feats"), [
    ("02", ["drv", "sem"]),
    ("03", ["drv", "fan"]),
    ("10", ["drv", "cond"]),
    ("11", ["drv", "cmp"]),
    ("13", ["drv", "sem"]),
    ("15", ["drv", "cmp"]),
    ("17", ["drv", "cond"]),
])
def test_examples_are_mixed(prefix: str, feats: list[str]) -> None:
    t = example(prefix)
    assert features(t) == feats
    assert structure_of(t) == "Mixed"


def test_drv_counts_only_when_it_feeds_a_junction_or_the_answer() -> None:
    base = """use fsc
trajectory t "q" {{
  prices = fsc.stock_prices(basDt: 2024-12-27) pages all
  top = drv prices | max fltRt
  {rest}
}}"""
    # feeds nothing but a predicate: not the drv feature
    unused = text(base.format(rest="if count(top) > 0 { x = fsc.corp_outline(corpNm: \"a\") }\n"
                                   "answer x.crno"))
    assert features(unused) == ["cond"]
    assert structure_of(unused) == "Cond"
    # feeds the answer through count()
    assert features(text(base.format(rest="answer count(top)"))) == ["drv"]
    # feeds a parallel header junction
    header = text(base.format(rest="g = parallel (c: seq top.srtnCd) {\n"
                                   "a = fsc.listed_items(likeSrtnCd: c)\n}\nanswer count(g.a)"))
    assert features(header) == ["drv", "sem"]


def test_fan_in_a_parallel_header_counts_as_fan() -> None:
    t = text("""use fsc
trajectory t "q" {
  p = fsc.stock_prices(basDt: 2024-12-27, likeItmsNm: "삼성전자") pages 1
  g = parallel (c: fan p.srtnCd) {
    a = fsc.listed_items(likeSrtnCd: c)
  }
  answer count(g.a)
}""")  # the checker rejects this (E2xx), the analysis still names it
    assert features(t) == ["fan", "sem"]
    assert dependency_edges(t) == [("fsc.stock_prices", "fsc.listed_items")]


def test_dependency_edges_follow_drv_parallel_compare_and_if() -> None:
    # 02: company → outline; the header's two shared junctions (both from outline) each used by
    # one branch; drv nodes over the branches feed only the answer
    assert dependency_edges(example("02")) == [
        ("dart.company", "fsc.corp_outline"),
        ("fsc.corp_outline", "fsc.fs_summary"),
        ("fsc.corp_outline", "dart.single_accounts"),
    ]
    # 03: two fan junctions from a drv over `sweep`: the upstream tool is the sweep's
    assert dependency_edges(example("03")) == [
        ("dart.disclosures", "dart.rights_offerings"),
        ("dart.disclosures", "fsc.stock_prices"),
    ]
    # sem: one header junction used by both branches → two occurrences
    assert dependency_edges(one(PROGRAMS / "sem.edge")) == [
        ("fsc.corp_outline", "fsc.issue_stat"),
        ("fsc.corp_outline", "fsc.fs_summary"),
    ]
    # 09: a drv over the law search feeds the header (both branches) and prec_search; then a
    # chain of drv nodes over prec_search feeds prec_text
    assert dependency_edges(example("09")) == [
        ("law.law_search", "law.law_text"),
        ("law.law_search", "law.law_article"),
        ("law.law_search", "law.prec_search"),
        ("law.prec_search", "law.prec_text"),
    ]


def test_a_name_bound_in_both_if_branches_may_come_from_either_tool() -> None:
    t = text("""use fsc
trajectory t "q" {
  asked = fsc.stock_prices(basDt: 2024-12-28) pages 1
  if count(asked) > 0 {
    pick = fsc.corp_outline(corpNm: "a") pages 1
  } else {
    items = fsc.listed_items(likeItmsNm: "a") pages 1
    pick = drv items | max basDt
  }
  sums = fsc.fs_summary(crno: seq pick.crno, bizYear: 2023)
  g = parallel (c: seq pick.crno) {
    a = fsc.issue_stat(crno: c)
    b = fsc.item_basics(crno: c)
  }
  answer count(sums)
}""")
    assert dependency_edges(t) == [
        ("fsc.corp_outline", "fsc.fs_summary"), ("fsc.listed_items", "fsc.fs_summary"),
        ("fsc.corp_outline", "fsc.issue_stat"), ("fsc.listed_items", "fsc.issue_stat"),
        ("fsc.corp_outline", "fsc.item_basics"), ("fsc.listed_items", "fsc.item_basics"),
    ]
    assert adjacency_edges(t) == [
        ("fsc.stock_prices", "fsc.corp_outline"), ("fsc.corp_outline", "fsc.listed_items"),
        ("fsc.listed_items", "fsc.fs_summary"), ("fsc.fs_summary", "fsc.issue_stat"),
        ("fsc.issue_stat", "fsc.item_basics"),
    ]
    assert tools_of(t) == ["fsc.stock_prices", "fsc.corp_outline", "fsc.listed_items",
                           "fsc.fs_summary", "fsc.issue_stat", "fsc.item_basics"]
    # the drv inside the `else` branch is how the conditional branches: not the drv feature
    assert features(t) == ["sem", "cond"]


def test_a_drv_deciding_a_comparison_or_inside_a_branch_is_part_of_that_structure() -> None:
    cmp = text("""use fsc
trajectory t "q" {
  c = compare fsc.stock_prices(basDt: 2024-12-27) pages 1 over likeSrtnCd in ["005930", "000660"]
  w = drv c | max fltRt
  answer { arm: w.__arm, rate: w.fltRt }
}""")
    assert features(cmp) == ["cmp"] and structure_of(cmp) == "Cmp"
    cond = text("""use fsc
trajectory t "q" {
  x = fsc.stock_prices(basDt: 2024-12-27) pages 1
  if count(x) > 3 {
    p = drv x | max clpr
  } else {
    p = drv x | min clpr
  }
  o = fsc.corp_outline(crno: seq p.srtnCd) pages 1
  answer count(o)
}""")
    assert features(cond) == ["cond"] and structure_of(cond) == "Cond"
    both = text("""use fsc
trajectory t "q" {
  c = compare fsc.stock_prices(basDt: 2024-12-27) pages 1 over likeSrtnCd in ["005930", "000660"]
  w = drv c | max fltRt
  top = drv w | max clpr
  answer top.clpr
}""")
    assert features(both) == ["drv", "cmp"] and structure_of(both) == "Mixed"


def test_adjacency_and_tools_in_source_order() -> None:
    t13 = example("13")  # rests, (parallel: fuel, facilities), trips
    assert adjacency_edges(t13) == [
        ("ex.rest_areas", "ex.fuel_prices"),
        ("ex.fuel_prices", "ex.station_facilities"),
        ("ex.station_facilities", "ex.travel_times"),
    ]
    t17 = example("17")  # the same tool twice: one site before the if, one inside
    assert adjacency_edges(t17) == [("fsc.stock_prices", "fsc.stock_prices")]
    assert tools_of(t17) == ["fsc.stock_prices"]
    assert dependency_edges(t17) == []
    cmp = one(PROGRAMS / "cmp.edge")  # a compare is one call site whatever its arms
    assert adjacency_edges(cmp) == [] and tools_of(cmp) == ["fsc.stock_prices"]


def test_every_world_example_has_tools_and_edges_within_its_tools() -> None:
    for path in sorted(WORLD.glob("*.edge")):
        for t in parse(path).trajectories:
            tools = set(tools_of(t))
            assert tools
            for a, b in dependency_edges(t) + adjacency_edges(t):
                assert a in tools and b in tools
            assert len(adjacency_edges(t)) >= len(tools) - 1
