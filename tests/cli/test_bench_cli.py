"""``edgedsl bench make | run | score | report`` end to end on one world task."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from edgedsl.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_make_run_score_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle, results = tmp_path / "b.json", tmp_path / "r"
    src = [str(ROOT / "examples" / "world" / "02_two_bridges.edge"),
           str(ROOT / "tests" / "bench" / "fixtures" / "refused" / "partial.edge")]
    assert main(["bench", "make", *src, "-o", str(bundle), "-q"]) == 0
    out, err = capsys.readouterr()
    assert "wrote 1 tasks (1 refused" in out
    assert "refused" in err and "partial_day_count" in err and "records unread" in err
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "-o", str(results)]) == 0
    out, err = capsys.readouterr()
    assert "[1/1] two_bridges #0 answered pass" in err
    assert "pass@1       1.000" in out and "ACTION       1.000" in out
    assert main(["bench", "score", str(results)]) == 0
    assert "pass@1       1.000" in capsys.readouterr().out
    svg = tmp_path / "r.svg"
    assert main(["bench", "report", str(results), "--json", "--plot", str(svg)]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["pass_at_1"]["value"] == 1.0 and data["agent"] == "oracle"
    assert [r["group"] for r in data["by_platform"]] == ["dart", "fsc"]
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    assert root.tag.endswith("svg") and any("dart" in (t.text or "") for t in root.iter()
                                            if t.tag.endswith("text"))
    # usage errors and unknown names are clear
    assert main(["bench", "run", str(bundle), "--agent", "gpt", "-o",
                 str(tmp_path / "x")]) == 2
    assert "unknown agent 'gpt'" in capsys.readouterr().err
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "--backend", "store",
                 "-o", str(tmp_path / "y")]) == 2
    assert "needs `--store FILE`" in capsys.readouterr().err
    assert main(["bench", "score", str(tmp_path / "nowhere")]) == 1
    assert "not a results directory" in capsys.readouterr().err
