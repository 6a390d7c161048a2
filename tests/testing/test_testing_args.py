"""`edgedsl.testing` arguments that cannot be swapped silently, and paths as `str`
(issue 20 §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgedsl.core.types import INT
from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import ReduceStep
from edgedsl.testing import check_coercion, check_reducer_chain, check_trajectory

SOURCE = """platform reg {
  record Row {
    n: int
  }

  tool rows (q: str) -> [Row]
}

trajectory t "q" {
  rows = reg.rows(q: "1")
  best = drv rows | top 2 n
  answer count(best)
}
"""
TOOLS = {"reg.rows": lambda **kw: [{"n": 3}, {"n": 5}, {"n": 3}, {"n": 1}]}


def test_coerce_with_swapped_arguments_is_a_type_error() -> None:
    assert coerce(INT, "5") == 5
    with pytest.raises(TypeError, match="field type comes first"):
        coerce("5", INT)  # type: ignore[arg-type]


def test_the_connection_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        check_reducer_chain([{"n": 1}], [ReduceStep("max", "n")], {"n": INT}, None)  # type: ignore[misc]
    with pytest.raises(TypeError):
        check_coercion([{"n": 1}], {"n": INT}, None)  # type: ignore[misc]


def test_check_trajectory_reads_a_path_given_as_str(tmp_path: Path) -> None:
    path = tmp_path / "top.edge"
    path.write_text(SOURCE, encoding="utf-8")
    # top 2 over 3, 5, 3, 1: 5 and both 3s (the tie at the boundary kept)
    assert check_trajectory(str(path), TOOLS) == {"t": 3}
    assert check_trajectory(path, TOOLS) == {"t": 3}
    assert check_trajectory(SOURCE, TOOLS) == {"t": 3}


def test_a_str_naming_a_missing_edge_file_is_not_read_as_text(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no \.edge file"):
        check_trajectory(str(tmp_path / "missing.edge"), TOOLS)
