"""``edgedsl graph refine | report | show`` end to end on tg.edge with its python tools, and the
CLI's errors. (``graph build`` over the ten-platform catalog: test_graph_build.py.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from edgedsl.cli import main
from edgedsl.recipe.graph.model import load_graph, save_graph
from tests.recipe.graph.graph_tools import HERE, graph

TOOLS = str(HERE / "graph_tools.py")


@pytest.fixture()
def g_file(tmp_path: Path) -> Path:
    p = tmp_path / "G.json"
    save_graph(graph(), p)
    return p


def _refine(g_file: Path, out: Path, *extra: str) -> int:
    return main(["graph", "refine", str(g_file), "-o", str(out), "--iterations", "20",
                 "--paths", "8", "--epsilon", "0.3", "--seed", "3", "--tools", TOOLS,
                 *extra])


def test_refine_report_show(g_file: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "GSTAR.json"
    assert _refine(g_file, out, "--json") == 0
    cap = capsys.readouterr()
    summary = orjson.loads(cap.out)
    assert summary["iterations"] == 20 and summary["pruned"] >= 1
    assert "iteration 20/20" in cap.err  # progress
    assert not (tmp_path / "GSTAR.json.ckpt").exists()  # removed once finished
    gstar = load_graph(out)
    assert gstar.stage == "refined" and gstar.config["epsilon"] == 0.3

    plot = tmp_path / "plot.svg"
    assert main(["graph", "report", str(out), "--tools", TOOLS, "--plot", str(plot)]) == 0
    text = capsys.readouterr().out
    assert "skeleton" in text and "recipe" in text and "per iteration" in text
    assert ET.parse(plot).getroot().tag.endswith("svg")
    assert main(["graph", "report", str(out), "--tools", TOOLS, "--json"]) == 0
    rep = orjson.loads(capsys.readouterr().out)
    assert {s["name"] for s in rep["sets"]} == {"skeleton", "gstar", "pruned"}

    assert main(["graph", "show", str(out), "tg.items"]) == 0
    assert "feeds" in capsys.readouterr().out
    assert main(["graph", "show", str(out), "tg.items", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["tool"] == "tg.items"


@pytest.mark.slow
def test_resume_continues_an_interrupted_run(g_file: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    whole = tmp_path / "whole.json"
    assert _refine(g_file, whole) == 0
    part = tmp_path / "part.json"
    ckpt = tmp_path / "part.json.ckpt"
    # Ctrl-C in the middle of an iteration: exit 1, the checkpoint of the last whole iteration
    # stays, and no output is written
    interrupted = ["graph", "refine", str(g_file), "-o", str(part), "--iterations", "20",
                   "--paths", "8", "--epsilon", "0.3", "--seed", "3"]
    assert main([*interrupted, "--tools", str(HERE / "interrupting_tools.py")]) == 1
    assert "--resume" in capsys.readouterr().err
    assert ckpt.is_file() and not part.exists()
    done = orjson.loads(ckpt.read_bytes())["iteration"]
    assert 0 < done < 20
    assert main([*interrupted, "--tools", TOOLS, "--resume"]) == 0
    assert load_graph(part) == load_graph(whole)
    assert not ckpt.exists()
    # without --resume an old checkpoint is set aside, with a note
    ckpt.write_bytes(b"{}")
    assert main([*interrupted, "--tools", TOOLS]) == 0
    assert "starting afresh" in capsys.readouterr().err


def test_errors_are_usage_errors(tmp_path: Path, g_file: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", "show", str(tmp_path / "nope.json"), "x"]) == 2
    assert "no such graph file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{]", encoding="utf-8")
    assert main(["graph", "refine", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["graph", "show", str(g_file), "tg.item"]) == 2
    assert "did you mean `tg.items`" in capsys.readouterr().err
    assert main(["graph", "report", str(g_file), "--tools", TOOLS]) == 2
    assert "refine it first" in capsys.readouterr().err
    assert main(["graph", "refine", str(g_file), "--iterations", "0", "--tools", TOOLS]) == 2


def test_build_probes_and_writes_g(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "G.json"
    assert main(["graph", "build", "--modules", "tg", "--search-path", str(HERE), "-o", str(out),
                 "--tools", TOOLS, "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)
    g = load_graph(out)
    assert g.stage == "candidates" and summary["edges"] == len(g.edges) > 0
    assert summary["probed"] >= 5 and summary["uncallable"] == 0
    # observed defaults: by_owner's owner (seen in detail's records) and year (from dates)
    by_owner = g.tool("tg.by_owner")
    assert by_owner.defaults["owner"] == ["kim"] and 2024 in by_owner.defaults["year"]
    assert all(b.field == "code" for e in g.edges for b in e.bindings if b.param == "code")
    # the candidate graph refines straight away
    assert main(["graph", "refine", str(out), "-o", str(tmp_path / "S.json"), "--iterations",
                 "3", "--tools", TOOLS]) == 0
    assert main(["graph", "build", "--modules", "nope", "-o", str(out)]) == 2
    assert "cannot load the catalog" in capsys.readouterr().err


@pytest.mark.parametrize("knob", [["--iterations", "0"], ["--paths", "-1"],
                                  ["--epsilon", "5"], ["--theta", "-1"], ["--delta", "nan"],
                                  ["--strength", "0"], ["--n-min", "0"],
                                  ["--env-weight", "-0.5"]])
def test_refine_refuses_knobs_out_of_range(knob: list[str], g_file: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # a probability above 1 or a negative threshold used to run, meaning nothing
    out = tmp_path / "GSTAR.json"
    assert main(["graph", "refine", str(g_file), "-o", str(out), "--tools", TOOLS,
                 *knob]) == 2
    assert knob[0] in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("knob", [["--k-code", "-1"], ["--k-cross", "x"], ["--k-same", "-2"]])
def test_build_refuses_negative_retrieval_sizes(knob: list[str], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "G.json"
    assert main(["graph", "build", "--no-probe", "-o", str(out), *knob]) == 2
    assert knob[0] in capsys.readouterr().err and not out.exists()


def test_build_help_states_the_code_join_default(capsys: pytest.CaptureFixture[str]) -> None:
    from edgedsl.recipe.graph.build import K_CODE

    assert main(["graph", "build", "--help"]) == 0
    assert f"(default {K_CODE};" in " ".join(capsys.readouterr().out.split())
