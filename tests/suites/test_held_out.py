"""Held-out cases stay out of the tests: the τ² retail tasks of the `test` split and the BFCL
multi-turn base entries numbered 150 to 199 (tests/data/external/README.md). Only the acceptance
command (`edgedsl import … --split test --check`) may read them."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from . import EXTERNAL, ROOT, TAU2_FAST, needs

TESTS = ROOT / "tests"
HELD_OUT_BFCL = re.compile(r"multi_turn_base_1[5-9]\d")


def _test_files() -> list[Path]:
    """Every file of the tests but the suites' own data (the copy in ``EXTERNAL`` holds the
    held-out cases as the suites ship them; what must not name them is our tests and fixtures)."""
    return [p for p in TESTS.rglob("*") if p.is_file() and p.suffix != ".pyc"
            and not p.is_relative_to(EXTERNAL)]


def test_no_test_file_or_fixture_names_a_held_out_bfcl_entry() -> None:
    hits = [str(p) for p in _test_files()
            if HELD_OUT_BFCL.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert hits == []


@needs["tau2"]
def test_the_tau2_tasks_the_tests_use_are_train_tasks() -> None:
    split = json.loads((EXTERNAL / "tau2" / "retail" / "split_tasks.json").read_text())
    assert set(TAU2_FAST) <= set(split["train"])
    assert not set(TAU2_FAST) & set(split["test"])


def _split_arguments(path: Path) -> list[object]:
    """Every split a test passes by keyword (``split=…``), positionally after the paths, or on
    a command line (``"--split", …``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[object] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found += [k.value.value for k in node.keywords if k.arg == "split"
                      and isinstance(k.value, ast.Constant)]
        if isinstance(node, ast.List):
            items = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            found += [items[i + 1] for i, v in enumerate(items[:-1]) if v == "--split"]
    return found


def test_no_test_reads_a_held_out_split() -> None:
    """(NESTFUL has no held-out cases; its test passes `--split test` to see it refused.)"""
    used = {str(p.relative_to(ROOT)): _split_arguments(p) for p in TESTS.rglob("*.py")}
    used = {k: v for k, v in used.items() if v}
    assert all(s not in ("test", "all") or "nestful" in k
               for k, v in used.items() for s in v), used
