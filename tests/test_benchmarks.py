"""The benchmark smoke test (slow tier): every benchmark runs at its smallest size
(``--smoke``, as ``benchmarks/run_all.py --size smoke`` runs it) and reports its ratios, so
that none can rot (``bench_graph_refine`` once died after its 100 iterations on a renamed
method). Figures are not looked at: nothing here depends on time."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"


def _run_all() -> ModuleType:
    spec = importlib.util.spec_from_file_location("edgedsl_bench_run_all",
                                                  BENCHMARKS / "run_all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


RUN_ALL = _run_all()


def test_run_all_lists_every_benchmark() -> None:
    scripts = {p.name for p in BENCHMARKS.glob("bench_*.py")}
    assert {b.script for b in RUN_ALL.BENCHES} == scripts


def test_ratio_lines_carry_both_sides_and_the_target(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    ratios = sys.modules["ratios"]  # loaded by run_all from benchmarks/
    sink = tmp_path / "r.jsonl"
    monkeypatch.setenv(ratios.ENV, str(sink))
    fast = ratios.speedup("a", 0.01, 0.6, at_least=50)  # 60x faster: met
    slow = ratios.cost("b", 0.03, 0.01, at_most=1.5)  # 3x the baseline: not met
    free = ratios.cost("c", 2.0, 1.0)
    assert (fast.value, fast.met, slow.value, slow.met, free.met) == (60, True, 3, False, None)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("RATIO a | ours 10.000 ms | baseline 600.000 ms | 60.00x (baseline / ours)"
                      " | target >= 50x: met")
    assert out[1].endswith("3.00x (ours / baseline) | target <= 1.5x: NOT met")
    loaded = [RUN_ALL.load(line) for line in sink.read_text(encoding="utf-8").splitlines()]
    assert loaded == [fast, slow, free]
    table = RUN_ALL.table([("x", r) for r in loaded]).splitlines()
    assert len(table) == 5 and table[2].endswith("| >= 50x | yes |")
    assert table[3].endswith("| <= 1.5x | **no** |") and table[4].endswith("| - |  |")


@pytest.mark.slow
@pytest.mark.parametrize("bench", RUN_ALL.BENCHES, ids=[b.label for b in RUN_ALL.BENCHES])
def test_benchmark_runs_at_its_smallest_size(bench: object, tmp_path: Path) -> None:
    missing = [p for p in bench.needs if shutil.which(p) is None]  # type: ignore[attr-defined]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    sink = tmp_path / "ratios.jsonl"
    done = RUN_ALL.run(bench, "smoke", sink, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    if bench.script != "bench_compile_instructions.py":  # type: ignore[attr-defined]
        ratios = [RUN_ALL.load(line) for line in sink.read_text(encoding="utf-8").splitlines()]
        assert ratios and all(r.ours > 0 and r.baseline > 0 for r in ratios)
        assert all(line.startswith("RATIO ") for line in done.stdout.splitlines()
                   if " | baseline" in line)
