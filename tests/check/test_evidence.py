"""W008: a junction over an edge G* pruned or never saw succeed (edgedsl.check.evidence), read
from the shipped G* by `edgedsl check`, from `--graph FILE`, or not at all (`--no-graph`)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from edgedsl.api import check
from edgedsl.check.evidence import EdgeEvidence, EdgeRecord, edge_warnings, has_junctions
from edgedsl.cli import main
from edgedsl.core.resources import stdlib_dir
from edgedsl.recipe.graph.evidence import default_graph_path, edge_evidence
from edgedsl.recipe.graph.model import load_graph

# the hand-off: a fuel station's standard code into the rest-area menu tool
MENUS = """\
use ex

trajectory cheapest_menus
  "휘발유가 가장 싼 고속도로 주유소가 있는 휴게소의 메뉴는?"
{
  prices = ex.fuel_prices() pages all
  cheapest = drv prices | min gasolinePrice
  menus = ex.menus(stdRestCd: seq cheapest.serviceAreaCode2) pages all
  answer menus.foodNm
}
"""


def _edge(**kw: object) -> EdgeRecord:
    base: dict[str, object] = {
        "source": "ex.fuel_prices", "target": "ex.menus",
        "bindings": (("routeCode", "routeCd"), ("serviceAreaCode2", "stdRestCd")),
        "trials": 4, "successes": 0, "structural": 4, "pruned": "P(p > 0.3) = 0.079 < 0.1"}
    base.update(kw)
    return EdgeRecord(**base)  # type: ignore[arg-type]


def _warnings(text: str, *edges: EdgeRecord) -> list[str]:
    ev = EdgeEvidence(name="G* test", path="G.json",
                      edges={(e.source, e.target): e for e in edges})
    return [d.message for d in edge_warnings(check(text, "t.edge").program, ev)]


def test_a_pruned_edge_is_w008_with_its_record() -> None:
    (msg,) = _warnings(MENUS, _edge())
    assert msg == ("`ex.menus` takes serviceAreaCode2 → stdRestCd from `cheapest` over the edge "
                   "`ex.fuel_prices` → `ex.menus`, which G* test pruned: 0 of 4 executions "
                   "returned records (4 structural failures)")


def test_a_kept_edge_that_never_succeeded_is_w008() -> None:
    (msg,) = _warnings(MENUS, _edge(pruned=None, trials=2, structural=1, environmental=1))
    assert "G* test kept but never saw succeed: 0 of 2 executions returned records " \
           "(1 structural failure, 1 environmental failure)" in msg


@pytest.mark.parametrize("edge", [
    _edge(pruned=None, successes=3, structural=1),       # kept, and it ran
    _edge(pruned=None, trials=0, structural=0),          # kept, never tried
    _edge(bindings=(("routeCode", "routeCd"),)),         # binds another field
    _edge(source="ex.rest_areas"),                       # another upstream tool
], ids=["ran", "untried", "other-binding", "other-source"])
def test_no_warning_without_a_failing_record_of_this_hand_off(edge: EdgeRecord) -> None:
    assert _warnings(MENUS, edge) == []


def test_a_call_that_adds_its_own_argument_is_not_what_the_record_describes() -> None:
    own = MENUS.replace("(stdRestCd: seq cheapest.serviceAreaCode2)",
                        '(stdRestCd: seq cheapest.serviceAreaCode2, bestfoodyn: "Y")')
    assert _warnings(own, _edge()) == []
    drawn = _edge(defaults={"bestfoodyn": ("Y", "N")})  # a value refinement drew itself
    assert len(_warnings(own, drawn)) == 1


def test_the_hand_off_is_followed_through_if_and_parallel() -> None:
    text = """\
use ex

trajectory branches
  "주유소 메뉴"
{
  prices = ex.fuel_prices() pages all
  if count(prices) > 10 {
    pick = drv prices | min gasolinePrice
  } else {
    pick = drv prices | max gasolinePrice
  }
  both = parallel (code: seq pick.serviceAreaCode2) {
    menus = ex.menus(stdRestCd: code) pages all
    facilities = ex.station_facilities(stdRestCd: code)
  }
  answer both.menus.foodNm
}
"""
    (msg,) = _warnings(text, _edge())
    assert "`ex.menus` takes serviceAreaCode2 → stdRestCd from `pick`" in msg


def test_one_warning_per_call_and_edge() -> None:
    text = MENUS.replace("(stdRestCd: seq cheapest.serviceAreaCode2)",
                         "(stdRestCd: seq cheapest.serviceAreaCode2, "
                         "routeCd: seq cheapest.routeCode)")
    (msg,) = _warnings(text, _edge())
    assert "takes routeCode → routeCd, serviceAreaCode2 → stdRestCd from `cheapest`" in msg


def test_has_junctions() -> None:
    assert has_junctions(check(MENUS, "t.edge").program)
    lone = "use ex\n\ntrajectory t \"메뉴\" {\n  m = ex.menus() pages all\n  answer count(m)\n}\n"
    assert not has_junctions(check(lone, "t.edge").program)


def test_the_shipped_gstar_reads_as_evidence() -> None:
    ev = edge_evidence(load_graph(default_graph_path()), "the shipped G*", "G.json")
    menus = ev.edges[("ex.fuel_prices", "ex.menus")]
    assert menus.doomed and menus.pruned and menus.trials == 4 and menus.successes == 0
    kept = [e for e in ev.edges.values() if e.pruned is None]
    assert kept and any(not e.doomed for e in kept)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_check_warns_with_the_shipped_gstar(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "menus.edge"
    f.write_text(MENUS, encoding="utf-8")
    code, err = _cli(capsys, "check", str(f))
    assert code == 0 and "warning[W008]" in err
    assert "which the shipped G* pruned: 0 of 4 executions returned records" in err
    ran = next(line for line in err.splitlines() if "edges into `ex.menus` that ran:" in line)
    assert "`ex.rest_areas` (routeNo → routeCd, stdRestCd → stdRestCd;" in ran
    code, err = _cli(capsys, "check", "--no-graph", str(f))
    assert code == 0 and "W008" not in err


def test_check_reads_the_graph_it_is_given(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "menus.edge"
    f.write_text(MENUS, encoding="utf-8")
    graph = orjson.loads(default_graph_path().read_bytes())
    (cut,) = [e for e in graph["pruned"]
              if (e["source"], e["target"]) == ("ex.fuel_prices", "ex.menus")]
    graph["pruned"].remove(cut)
    del cut["reason"], cut["pruned_at"]
    graph["edges"].append({**cut, "trials": 5, "successes": 5,
                           "failures": {"structural": 0, "environmental": 0}})
    mine = tmp_path / "GSTAR.json"
    mine.write_bytes(orjson.dumps(graph))
    code, err = _cli(capsys, "check", "--graph", str(mine), str(f))
    assert code == 0 and "W008" not in err
    code, err = _cli(capsys, "check", "--graph", str(tmp_path / "missing.json"), str(f))
    assert code == 2 and "no such graph file" in err


def test_the_shipped_gstar_speaks_only_for_the_stdlib(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A module of the user's own called `ex` (found first, beside the file) is not the catalog
    G* was refined on, even when its text is the same."""
    (tmp_path / "ex.edge").write_bytes((stdlib_dir() / "ex.edge").read_bytes())
    f = tmp_path / "menus.edge"
    f.write_text(MENUS, encoding="utf-8")
    code, err = _cli(capsys, "check", str(f))
    assert code == 0 and "W008" not in err, err
