"""The command line: every subcommand, its output and its exit code (0 clean, 1 errors, 2 usage)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from edgedsl.cli import main
from edgedsl.plan.model import PLAN_VERSION

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
MAIN = str(EX / "samsung_filing.edge")
TOOLS = str(EX / "tools.py")

BAD = """\
use fin

trajectory wrong "삼성전자 공시" {
  corp = dart.corp_code(corp_name: "삼성전자")
  filings = dart.disclosures(corp_code: seq corp.stock_code, bgn_de: 2024-12-01) pages all
  latest = drv filings | max report_nm
  answer latest.rcept_dt
}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_main_example_prints_answer_and_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", MAIN, "--tools", TOOLS)
    assert code == 0
    assert "answer:" in out
    assert "trajectory samsung_latest_filing" in out
    assert "dart.disclosures" in out  # trace summary lists the calls


def test_run_json_and_trace_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    code, out, _ = run(
        capsys,
        "run",
        str(EX / "market_day.edge"),
        "--tools",
        TOOLS,
        "--json",
        "--trace",
        str(trace),
    )
    assert code == 0
    lines = [orjson.loads(x) for x in out.splitlines()]
    assert [x["trajectory"] for x in lines] == [
        "market_movers",
        "samsung_vs_hynix",
        "heavy_trading_first_pages",
    ]
    assert all(x["ok"] for x in lines)
    assert isinstance(lines[0]["answer"], dict)
    data = orjson.loads(trace.read_bytes())
    assert len(data) == 3 and data[0]["steps"]


def test_run_one_trajectory_and_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "run",
        str(EX / "market_day.edge"),
        "--tools",
        TOOLS,
        "--json",
        "--trajectory",
        "samsung_vs_hynix",
    )
    assert code == 0 and len(out.splitlines()) == 1
    code, _, err = run(
        capsys,
        "run",
        str(EX / "market_day.edge"),
        "--tools",
        TOOLS,
        "--trajectory",
        "samsung_vs_hynx",
    )
    assert code == 2 and "did you mean `samsung_vs_hynix`" in err


def test_record_then_strict_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "rec.duckdb"
    code, live, _ = run(capsys, "run", MAIN, "--tools", TOOLS, "--record", str(store), "--json")
    assert code == 0
    code, replay, _ = run(
        capsys, "run", MAIN, "--backend", "store", "--store", str(store), "--json"
    )
    assert code == 0
    assert orjson.loads(replay)["answer"] == orjson.loads(live)["answer"]
    # a trajectory whose calls were never recorded: strict replay names the missing call
    code, out, _ = run(
        capsys, "run", str(EX / "bills.edge"), "--backend", "store", "--store", str(store), "--json"
    )
    assert code == 1
    first = orjson.loads(out.splitlines()[0])
    assert first["ok"] is False
    assert first["diagnostics"][0]["code"] == "R505"
    assert "assembly." in first["diagnostics"][0]["message"]


def test_check_reports_every_error_with_codes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.edge"
    bad.write_text(BAD, encoding="utf-8")
    (tmp_path / "fin.edge").write_text((EX / "fin.edge").read_text(encoding="utf-8"))
    code, _, err = run(capsys, "check", str(bad))
    assert code == 1
    assert "error[E203]" in err  # a StockCode field bound to a CorpCode parameter
    assert "error[E204]" in err  # `max` on a str field
    assert "bad.edge:5:" in err
    code, out, _ = run(capsys, "check", str(bad), "--json")
    assert code == 1
    codes = {d["code"] for d in orjson.loads(out)}
    assert {"E203", "E204"} <= codes


def test_check_clean_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", MAIN, str(EX / "bills.edge"))
    assert code == 0 and err.startswith("ok: 2 files")


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "e203")
    assert code == 0 and "E203" in out
    code, _, err = run(capsys, "explain", "E999")
    assert code == 2 and "unknown code" in err


def test_fmt_check_and_write(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "ugly.edge"
    f.write_text('trajectory t "q" {   a = p.f( x : 1 )\nanswer a.b }', encoding="utf-8")
    code, _, err = run(capsys, "fmt", "--check", str(f))
    assert code == 1 and "would reformat" in err
    code, _, _ = run(capsys, "fmt", str(f))
    assert code == 0
    assert f.read_text(encoding="utf-8").startswith('trajectory t "q" {\n  a = p.f(x: 1)\n')
    code, _, _ = run(capsys, "fmt", "--check", str(f))
    assert code == 0
    code, _, err = run(capsys, "fmt", str(tmp_path / "missing.edge"))
    assert code == 2


def test_compile_plan_round_trip_and_graphs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan = tmp_path / "plan.json"
    code, _, _ = run(capsys, "compile", MAIN, "-o", str(plan))
    assert code == 0 and orjson.loads(plan.read_bytes())["version"] == PLAN_VERSION
    code, out, _ = run(capsys, "run", str(plan), "--tools", TOOLS, "--json")
    assert code == 0 and orjson.loads(out)["ok"]
    code, out, _ = run(capsys, "compile", MAIN, "--graph", "dot")
    assert code == 0 and out.lstrip().startswith("digraph")
    code, out, _ = run(capsys, "compile", MAIN, "--graph", "mermaid")
    assert code == 0 and out.lstrip().startswith("flowchart")


def test_corrupt_and_foreign_plans(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = run(capsys, "run", str(bad), "--tools", TOOLS)
    assert code == 1 and "E401" in err
    plan = tmp_path / "plan.json"
    run(capsys, "compile", MAIN, "-o", str(plan))
    data = orjson.loads(plan.read_bytes())
    data["version"] = 99
    plan.write_bytes(orjson.dumps(data))
    code, _, err = run(capsys, "run", str(plan), "--tools", TOOLS)
    assert code == 1 and "E402" in err


def test_parse_prints_ast(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "parse", MAIN, "--no-spans")
    assert code == 0
    assert orjson.loads(out)["_node"] == "Module"
    code, out, _ = run(capsys, "parse", MAIN, "--tree")
    assert code == 0 and out.startswith("start")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "run", str(tmp_path / "nope.edge"), "--tools", TOOLS)[0] == 2
    assert run(capsys, "run", MAIN, "--tools", str(tmp_path / "nope.py"))[0] == 2
    assert run(capsys, "run", MAIN, "--backend", "carrier-pigeon")[0] == 2
    assert run(capsys, "frobnicate")[0] == 2


def test_python_dash_m_and_console_script() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "edgedsl", "explain", "E101"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and "E101" in proc.stdout


UGLY = 'trajectory t "q" {   a = p.f( x : 1 )\nanswer a.b }'


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_fmt_stdin_writes_the_formatted_text_to_stdout(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, UGLY.encode())
    code, out, _ = run(capsys, "fmt", "-")
    assert code == 0 and out.startswith('trajectory t "q" {\n  a = p.f(x: 1)\n')
    _stdin(monkeypatch, out.encode())
    code, again, _ = run(capsys, "fmt", "--check", "-")
    assert code == 0 and again == ""  # --check writes nothing, formatted text passes
    _stdin(monkeypatch, b"trajectory x {\n")
    code, out, err = run(capsys, "fmt", "-")
    assert code == 1 and out == "" and "E008" in err and "<stdin>:1:14" in err
    code, _, err = run(capsys, "fmt", "-", "other.edge")
    assert code == 2 and "standard input alone" in err


def test_fmt_diff_prints_a_unified_diff_and_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    f = tmp_path / "ugly.edge"
    f.write_text(UGLY, encoding="utf-8")
    code, out, _ = run(capsys, "fmt", "--diff", str(f))
    assert code == 1
    assert out.startswith(f"--- {f}\n+++ {f} (formatted)\n@@ ")
    assert "-trajectory t \"q\" {   a = p.f( x : 1 )\n" in out and "+  a = p.f(x: 1)\n" in out
    assert f.read_text(encoding="utf-8") == UGLY  # nothing written
    _stdin(monkeypatch, UGLY.encode())
    code, out, _ = run(capsys, "fmt", "--diff", "-")
    assert code == 1 and out.startswith("--- <stdin>\n+++ <stdin> (formatted)\n")
    run(capsys, "fmt", str(f))
    code, out, _ = run(capsys, "fmt", "--diff", str(f))
    assert code == 0 and out == ""
