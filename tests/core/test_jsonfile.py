"""Atomic writes (edgedsl.core.jsonfile.write_atomic): a whole file or the old one, and no
temporary file left behind."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from edgedsl.core.jsonfile import write_atomic


def test_a_write_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "g.json"
    target.write_bytes(b"old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and list(tmp_path.iterdir()) == [target]


def test_writers_of_the_same_path_at_once_each_leave_a_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "entry"
    blobs = [bytes([i]) * 200_000 for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda b: write_atomic(target, b), blobs))
    assert target.read_bytes() in blobs and list(tmp_path.iterdir()) == [target]


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "g.json"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old" and list(tmp_path.iterdir()) == [target]
