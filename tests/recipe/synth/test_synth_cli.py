"""``edgedsl synth run | stats | export | audit`` end to end on a light G*, and the CLI's
errors (usage errors exit 2 with a message, never a traceback)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson
import pytest

from edgedsl.cli import main
from edgedsl.recipe.graph.model import save_graph
from edgedsl.recipe.synth.record import read_records
from tests.synth_world import light_graph


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    g = root / "light.json"
    save_graph(light_graph(), g)
    out = root / "corpus"
    assert main(["synth", "run", "-n", "5", "--graph", str(g), "-o", str(out), "--seed", "1",
                 "--workers", "1", "--mix", "Seq=2,Sem=1,Cmp=1,Drv=1"]) == 0
    return out


@pytest.mark.slow
def test_run_writes_the_corpus(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = list(read_records(corpus / "tasks.jsonl"))
    assert len(recs) == 5 == len(list(corpus.glob("*.edge")))
    assert {r.structure for r in recs} == {"Seq", "Sem", "Cmp", "Drv"}


@pytest.mark.slow
def test_stats_json_and_table(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["synth", "stats", str(corpus), "--json"]) == 0
    stats = orjson.loads(capsys.readouterr().out)
    assert stats["tasks"] == 5
    # the trust measures of issue 18 §6: the run's records carry facts, bodies and the run's
    # determinacy (an undetermined run is rejected); every catalog module is listed
    trust = stats["trust"]
    assert trust["tasks"] == 5 and trust["facts_known"] == 5
    assert trust["determinacy_known"] == 5 and trust["determined"] == 5
    assert trust["duplicates"] == 0 and trust["noop_drv_tasks"] == 0
    assert {"assembly", "bus", "neis", "region"} <= set(trust["platforms"])
    assert main(["synth", "stats", str(corpus)]) == 0
    table = capsys.readouterr().out
    assert "1,781" in table or "1781" in table  # the recipe's figures beside ours
    assert "trust (issue 18)" in table and "tasks per platform:" in table


@pytest.mark.slow
def test_exports_load_back(corpus: Path, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    for fmt, name in (("sft", "sft.jsonl"), ("rl", "rl.parquet"), ("steps", "steps.jsonl")):
        assert main(["synth", "export", str(corpus), "--format", fmt,
                     "-o", str(tmp_path / name)]) == 0
    sft = [orjson.loads(line) for line in (tmp_path / "sft.jsonl").read_bytes().splitlines()]
    assert len(sft) == 5 and all(item["tools"] and item["messages"] for item in sft)
    con = duckdb.connect()
    got = con.execute("SELECT count(*) FROM read_parquet(?)", [str(tmp_path / "rl.parquet")])
    assert got.fetchall() == [(5,)]


@pytest.mark.slow
def test_audit_of_a_corpus_against_itself(corpus: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["synth", "audit", str(corpus), str(corpus), "--json"]) == 0
    rep = orjson.loads(capsys.readouterr().out)
    assert len(rep["duplicates"]) == 5 and rep["dependency"]["unseen_occurrences"] == 0


@pytest.mark.parametrize("argv, message", [
    (["synth", "run", "--graph", "/nonexistent/G.json"], "no such graph file"),
    (["synth", "run", "--mix", "Seq"], "--mix"),
    (["synth", "run", "--mix", "Chain=1"], "unknown structure"),
    (["synth", "run", "--tail", "1"], "--tail: expected"),
    (["synth", "run", "--tail", "1=-1"], "--tail: "),
    (["synth", "run", "--single", "1.5"], "--single: "),
    (["synth", "run", "--narrow-fans", "-1"], "--narrow-fans: "),
    (["synth", "run", "--combos", "chain+fan=1"], "unknown composition 'chain+fan'"),
    (["synth", "run", "--combos", "drv+fan=0"], "one must be positive"),
    (["synth", "run", "--combos", "drv+fan"], "--combos: expected"),
    (["synth", "run", "--llm-url", "http://127.0.0.1:1"], "--llm-model"),
    (["synth", "stats", "/nonexistent"], "no such directory"),
    (["synth", "audit", "/nonexistent", "/nonexistent"], "no such directory"),
])
def test_usage_errors(argv: list[str], message: str,
                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_export_of_a_directory_without_records(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", "export", str(tmp_path), "--format", "sft",
                 "-o", str(tmp_path / "x.jsonl")]) == 1
    assert "tasks.jsonl" in capsys.readouterr().err
