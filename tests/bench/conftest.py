"""Fixtures of the bench tests: a small bundle made from world examples and the write task of
``tests/bench/fixtures/opinion.edge`` (made once per session: each gold program runs once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgedsl.bench.bundle import Bundle, make_bundle, save_bundle

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
WORLD_FILES = [ROOT / "examples" / "world" / f for f in (
    "02_two_bridges.edge", "03_rights_offering_sweep.edge", "06_school_lunch.edge")]


@pytest.fixture(scope="session")
def small_bundle(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    """A sealed bundle of three world examples and the opinion (write) task."""
    bundle = make_bundle([*WORLD_FILES, FIXTURES / "opinion.edge"])
    return save_bundle(bundle, tmp_path_factory.mktemp("bundle") / "bundle.json")
