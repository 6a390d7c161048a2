"""Binding whole columns into a statement (edgedsl.runtime.bind): every mode reads back the
values it was given, and a column is packed only when packing keeps them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from edgedsl.runtime.bind import (
    PACK_MIN_VALUES,
    RANGE_MIN_VALUES,
    bind_column,
    column_sql,
    packing,
)

_CON = duckdb.connect()
_CON.execute("PRAGMA disable_optimizer")  # as the scratch connection reads inline relations

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_COLUMNS = {
    "VARCHAR": st.lists(st.none() | _TEXT | st.sampled_from(["", "\0", "\x01", "a\0b", "삼성"])),
    "BIGINT": st.lists(st.none() | st.integers(-(2**63), 2**63 - 1)),
    "DATE": st.lists(st.none() | st.dates()),
    "DOUBLE": st.lists(st.none() | st.floats(allow_nan=False)),
}


def read_back(values: list[Any], stype: str, *, row: bool = False,
              ordinal: bool = False) -> tuple[str, list[Any]]:
    """``(mode, values)`` of the column bound and selected again (beside a ``__row`` that
    decides the number of rows)."""
    mode, param = bind_column(values, stype, row=row, ordinal=ordinal)
    if row:
        sql = f"SELECT {column_sql(mode, stype, 'c')}"
        params = [param]
    else:
        sql = f"SELECT unnest(?) AS \"__row\", {column_sql(mode, stype, 'c')}"
        params = [list(range(len(values))), *([param] if mode != "null" else [])]
    rows = _CON.execute(sql, params).fetchall()
    return mode, [r[-1] for r in rows]


@given(stype=st.sampled_from(sorted(_COLUMNS)), data=st.data(), packed=st.booleans())
@example(stype="VARCHAR", data=None, packed=True)
def test_a_bound_column_reads_back_as_given(stype: str, data: Any, packed: bool) -> None:
    """Whatever the mode — list, packed, typed NULL — the statement reads the values given."""
    values = ["x", None, "\x01"] if data is None else data.draw(_COLUMNS[stype])
    with packing(0 if packed else float("inf")):
        mode, got = read_back(values, stype)
    if values and all(v is None for v in values):
        assert mode == "null" and got == values
    else:
        assert got == values, mode
        assert [type(v) for v in got] == [type(v) for v in values], mode


def test_packing_is_chosen_by_size_and_type() -> None:
    """Large text, integer and date columns are packed; doubles, small columns and columns that
    cannot be packed keep their list; an ordinal ``__row`` is ``range(n)``."""
    n = PACK_MIN_VALUES["VARCHAR"]
    assert bind_column(["a"] * (n - 1), "VARCHAR")[0] == "list"
    assert bind_column(["a"] * n, "VARCHAR") == ("packed", "\0".join(["a"] * n))
    assert bind_column(["a", None] * n, "VARCHAR")[0] == "packed_null"
    assert bind_column(["a", "b\0c"] * n, "VARCHAR")[0] == "list"  # a value holds NUL
    assert bind_column(["\x01", None] * n, "VARCHAR")[0] == "list"  # chr(1) beside a NULL
    assert bind_column(["\x01"] * n, "VARCHAR")[0] == "packed"  # no NULL: chr(1) is a value
    assert bind_column([1, 2] * n, "BIGINT", cast=True)[0] == "packed"
    assert bind_column([1.5] * n, "BIGINT", cast=True)[0] == "cast"  # not an int: a list
    assert bind_column([1.5] * (2 * n), "DOUBLE")[0] == "list"
    m = PACK_MIN_VALUES["DATE"]
    assert bind_column([dt.date(2024, 1, 1)] * (m - 1), "DATE")[0] == "list"
    assert bind_column([dt.date(2024, 1, 1)] * m, "DATE")[0] == "packed"
    assert bind_column([None] * 5, "DATE") == ("null", None)
    assert bind_column([], "VARCHAR") == ("null", None)  # an empty column has no type either
    rows = list(range(RANGE_MIN_VALUES))
    assert bind_column(rows, "BIGINT", row=True, ordinal=True) == ("range", len(rows))
    assert bind_column(rows[:-1], "BIGINT", row=True, ordinal=True)[0] == "list"
    with packing(0):
        assert bind_column([], "BIGINT", row=True, ordinal=True) == ("range", 0)  # no rows
        assert bind_column([], "BIGINT", row=True)[0] == "list"


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_row_column_decides_the_number_of_rows(n: int) -> None:
    """``__row`` is never a typed NULL: an empty relation reads no row, in any mode."""
    for scale in (0, float("inf")):
        with packing(scale):
            _, got = read_back(list(range(n)), "BIGINT", row=True, ordinal=True)
        assert got == list(range(n))
