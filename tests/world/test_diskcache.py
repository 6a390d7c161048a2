"""The world's generated datasets kept on disk: the same values as generating them, never a
stale entry, nothing kept where nothing can be."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from edgedsl.world import diskcache
from edgedsl.world.addresses import addresses
from edgedsl.world.diskcache import CACHE_ENV, cache_dir, disk_cached, fingerprint
from edgedsl.world.platforms import dart_data, seoul


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / fingerprint()


def _generate(fn: object, *args: object) -> object:
    """What the generator behind ``fn`` (under its ``lru_cache`` and the disk) returns."""
    inner = fn.__wrapped__  # type: ignore[attr-defined]
    return getattr(inner, "__wrapped__", inner)(*args)


@pytest.mark.parametrize("fn", [seoul._rtms_gu_year, seoul._rent_gu_year])
def test_a_loaded_gu_year_is_the_generated_one(where: Path, fn: object) -> None:
    made = _generate(fn, 7, "11680", 2024)
    kept = fn.__wrapped__  # type: ignore[attr-defined]  # the disk layer, no lru_cache
    first = kept(7, "11680", 2024)  # generated and written
    assert len(list(where.iterdir())) == 1
    again = kept(7, "11680", 2024)  # read back
    assert first == again == made and type(again) is tuple
    assert [list(r) for r in again] == [list(r) for r in made]  # key order too


def test_addresses_load_as_generated(where: Path) -> None:
    made = _generate(addresses, 3)
    kept = addresses.__wrapped__  # type: ignore[attr-defined]
    kept(3)
    assert kept(3) == made


@pytest.mark.slow  # builds the 22,671 companies twice (~5 s)
def test_the_company_universe_loads_as_generated(where: Path) -> None:
    """DART's 22,671 companies kept on disk come back field for field, and the universe made
    from them is the one built directly (its lookups too)."""
    from dataclasses import astuple

    direct = dart_data._build(0, addresses(0))
    made = tuple(astuple(c) for c in direct.corps)
    assert dart_data._corp_fields(0) == made  # generated and written
    assert any(where.glob("*.marshal.z"))
    loaded = [dart_data.Corp(*row) for row in dart_data._corp_fields(0)]  # read back
    assert [astuple(c) for c in loaded] == list(made)
    u = dart_data.Universe(loaded, addresses(0))
    assert u.by_code.keys() == direct.by_code.keys() and u.by_stock.keys() == direct.by_stock.keys()


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_dir() is None
    calls = []

    @disk_cached
    def gen(seed: int) -> tuple[int, ...]:
        calls.append(seed)
        return (seed,)

    assert gen(1) == gen(1) == (1,) and calls == [1, 1]


def test_a_torn_file_is_generated_again_and_rewritten(where: Path) -> None:
    calls = []

    @disk_cached
    def gen(seed: int) -> tuple[dict[str, object], ...]:
        calls.append(seed)
        return ({"a": seed, "b": "가", "c": 1.5, "d": None, "e": True},)

    assert gen(2) == gen(2) and calls == [2]
    (entry,) = where.iterdir()
    entry.write_bytes(entry.read_bytes()[:5])
    assert gen(2) == ({"a": 2, "b": "가", "c": 1.5, "d": None, "e": True},) and calls == [2, 2]
    assert gen(2) and calls == [2, 2]  # whole again


def test_a_value_marshal_cannot_write_is_not_kept(where: Path) -> None:
    @disk_cached
    def gen(seed: int) -> tuple[object, ...]:
        return (object(),)

    assert len(gen(1)) == 1
    assert not where.exists() or not list(where.iterdir())


def test_an_unwritable_directory_only_costs_time(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(CACHE_ENV, str(blocker))

    @disk_cached
    def gen(seed: int) -> tuple[int, ...]:
        return (seed,)

    assert gen(4) == (4,)


def test_the_fingerprint_follows_the_package_files(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "world"
    (pkg / "data").mkdir(parents=True)
    (pkg / "gen.py").write_text("x = 1\n")
    (pkg / "data" / "codes.tsv").write_text("11680\t강남구\n")
    monkeypatch.setattr(diskcache, "_PACKAGE", pkg)

    def now() -> str:
        diskcache.fingerprint.cache_clear()
        return diskcache.fingerprint()

    try:
        first = now()
        (pkg / "__pycache__").mkdir()
        (pkg / "__pycache__" / "gen.pyc").write_bytes(b"\0")
        assert now() == first  # compiled files do not count
        (pkg / "data" / "codes.tsv").write_text("11680\t강남구\n11110\t종로구\n")
        assert now() != first  # a changed table is a new directory
    finally:
        diskcache.fingerprint.cache_clear()


def test_old_directories_of_other_fingerprints_are_pruned(where: Path) -> None:
    old, recent = where.parent / ("0" * 20), where.parent / ("1" * 20)
    for d in (old, recent):
        d.mkdir(parents=True)
    stale = time.time() - (diskcache.KEEP_DAYS + 1) * 86_400
    os.utime(old, (stale, stale))

    @disk_cached
    def gen(seed: int) -> tuple[int, ...]:
        return (seed,)

    gen(5)
    assert not old.exists() and recent.exists() and where.is_dir()


def test_the_code_table_loads_as_read(where: Path) -> None:
    """The 법정동 table kept on disk comes back row for row as the CSV reads."""
    from edgedsl.world import regions

    made = regions._rows.__wrapped__()  # type: ignore[attr-defined]
    assert regions._rows() == made  # read and written
    assert regions._rows() == made and len(made) == 46_345  # read back
    assert all(len(r) == 9 for r in made)
