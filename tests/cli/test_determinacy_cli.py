"""`edgedsl run`: the W006 warning, `--json`'s determinacy, and `--determinacy`."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from edgedsl.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
TOOLS = str(EX / "tools.py")

TIED = """\
platform t {
  record R {
    k: str
    v: int
  }

  tool rows () -> [R]
}

trajectory usual "가장 많이 나온 k는?" {
  r = t.rows()
  m = drv r | most_frequent k
  answer m.k
}

trajectory biggest "가장 큰 v는?" {
  r = t.rows()
  m = drv r | max v
  answer max(m.v)
}
"""

TOOLS_PY = """\
TOOLS = {"t.rows": lambda: [{"k": "b", "v": 1}, {"k": "a", "v": 2}, {"k": "c", "v": 2}]}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tied(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "t.edge").write_text(TIED, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    return str(tmp_path / "t.edge"), str(tmp_path / "tools.py")


def test_run_warns_with_code_span_and_hints(capsys: pytest.CaptureFixture[str],
                                            tied: tuple[str, str]) -> None:
    code, _, err = run(capsys, "run", tied[0], "--tools", tied[1])
    assert code == 0  # a warning, not an error
    assert "warning[W006]" in err and "most_frequent k" in err and "3 values tied" in err
    assert "t.edge:12:" in err  # the drv step's span
    assert "help:" in err and err.count("warning[W006]") == 1  # `biggest` keeps its ties


def test_run_json_carries_determinacy(capsys: pytest.CaptureFixture[str],
                                      tied: tuple[str, str]) -> None:
    code, out, _ = run(capsys, "run", tied[0], "--tools", tied[1], "--json")
    assert code == 0
    usual, biggest = (orjson.loads(x) for x in out.splitlines())
    assert usual["determined"] is False
    assert usual["causes"] == [{"step": "m", "kind": "tie", "fields": [""], "field": "k",
                                "tied": 3}]
    assert usual["warnings"][0]["code"] == "W006"
    assert "determined" not in biggest and "warnings" not in biggest


def test_determinacy_reports_the_perturbation_that_changed_the_answer(
        capsys: pytest.CaptureFixture[str], tied: tuple[str, str]) -> None:
    code, out, _ = run(capsys, "run", tied[0], "--tools", tied[1], "--determinacy")
    assert code == 1
    assert "determinacy: CHANGED by tie_break" in out
    assert 'tie_break  changed (most_frequent ties to the largest value): "c"' in out
    assert "determinacy: stable" in out  # `biggest`
    code, out, _ = run(capsys, "run", tied[0], "--tools", tied[1], "--determinacy", "--json",
                       "--trajectory", "biggest")
    assert code == 0
    [line] = [orjson.loads(x) for x in out.splitlines()]
    assert line["stable"] is True
    assert [p["outcome"] for p in line["perturbations"]] == ["same", "not_applied",
                                                             "not_applied"]


def test_determinacy_perturbs_page_size_and_implicit_page_limits(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", str(EX / "market_day.edge"), "--tools", TOOLS,
                       "--determinacy", "--json", "--trajectory", "heavy_trading_first_pages")
    [line] = [orjson.loads(x) for x in out.splitlines()]
    assert line["determined"] is False and line["causes"][0]["kind"] == "partial"
    assert line["causes"][0]["unread"] > 0
    by = {p["name"]: p for p in line["perturbations"]}
    # `pages 2` is explicit: no implicit limit to lift; half the page size reads other records
    assert by["pages_all"]["outcome"] == "not_applied"
    assert by["page_size"]["detail"] == "krx.stock_price 100→50"
    assert by["page_size"]["outcome"] == "changed" and code == 1
