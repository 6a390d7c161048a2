"""Tests of edgedsl.suites: the importers of third-party suites (data in tests/data/external/)."""

from pathlib import Path

import pytest

from edgedsl.suites.registry import SUITES

ROOT = Path(__file__).resolve().parents[2]
# the third-party suites' data files, copied with their licences from the workplace's
# shared/external/ (tests/data/external/README.md; τ² airline left out: no test reads it)
EXTERNAL = ROOT / "tests" / "data" / "external"

needs = {name: pytest.mark.skipif(not (EXTERNAL / name).is_dir(),
                                  reason=f"third-party data {EXTERNAL / name} not present")
         for name in ("nestful", "tau2", "bfcl")}
"""A skip mark per suite folder: the tests need the suite's data beside the checkout."""

TAU2_FAST = ("0", "2", "3", "10", "16", "20", "21", "22", "35", "46")
"""τ² retail train tasks of the fast tier: every tool the train gold uses, gift cards, and
refusals that are part of the gold (all train tasks run in the slow tier)."""

BFCL_FAST = tuple(f"multi_turn_base_{i}" for i in (0, 2, 14, 15, 24, 31, 51, 55, 103, 147))
"""BFCL train entries of the fast tier: every simulator class the train entries use
(TravelAPI appears in none), positional arguments, and entry 147, whose replay's parsed
arguments show a list the simulator changed later (the call's text is the gold)."""


def imported(factory: pytest.TempPathFactory, suite: str) -> Path:
    """A fresh folder with ``suite`` written into it (its default split: never held out)."""
    path = factory.mktemp(suite)
    SUITES[suite].write(EXTERNAL / suite, path, SUITES[suite].splits[0])
    return path
