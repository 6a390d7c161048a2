"""Whole columns bound into one DuckDB statement: as lists, or *packed* into one text.

A relation read *inline* (see :mod:`edgedsl.runtime.selection`) enters a statement as a CTE whose
columns are ``unnest``-ed parameters, and a pending relation is written by one ``CREATE TABLE …
AS SELECT unnest(?) …``. DuckDB converts a bound Python list value by value — about 0.4 µs
for a short Korean text, more when it infers the type — so a 22,671-record ``corpCode.xml``
costs ~20 ms per text column before the statement runs. A large text, integer or date column is
therefore bound packed: its values joined by NUL into one text (a NUL never occurs in an XML
text and is checked for otherwise), split back in SQL with ``string_split`` and cast to the
stored type — one parameter, converted once (4.5 ms for the same column;
``benchmarks/bench_inline.py`` measures a ``drv`` both ways). A NULL is an empty text for an
integer or a date (which never print empty) and ``chr(1)`` for a text (only when no value is
``chr(1)``). An ordinal ``__row`` (``0 … n-1``) is ``range(n)``. Double and boolean columns,
small columns, and columns that cannot be packed are bound as lists.

:func:`bind_column` decides how one column is bound (its *mode* and parameter) and
:func:`column_sql` writes the expression for a mode; the mode is part of every cached
statement text's key, so one statement text serves one way of binding. :func:`packing` changes
the thresholds for a block (tests force every column packed).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Literal

from edgedsl.core.sqlquote import quote_ident

__all__ = ["PACK_MIN_VALUES", "BindMode", "bind_column", "column_sql", "packing"]

BindMode = Literal["null", "list", "cast", "range", "packed", "packed_null"]
"""How a column is bound: a typed ``NULL`` (no value at all; no parameter), a list (uncast or
``?::T[]``), ``range(n)``, or packed text (``packed_null``: a text column holding NULLs)."""

#: Columns of at least this many values are bound packed, by stored SQL type. Measured on the
#: scratch connection: a text column gains from ~500 values (22,671:
#: 21 → 4.5 ms), an integer column from ~1,000, a date column only from ~2,000 (Python's
#: ``isoformat`` and DuckDB's date cast cost nearly what the list conversion saves); a double
#: column never (``repr`` and parsing cost more).
PACK_MIN_VALUES: Mapping[str, int] = {"VARCHAR": 1_000, "BIGINT": 1_000, "DATE": 2_000}
#: An ordinal ``__row`` of at least this many values is ``range(n)`` (22,671: 7 → 0.6 ms).
RANGE_MIN_VALUES = 1_000
_SEP = "\0"
_NULL_TEXT = "\x01"
_SCALE: ContextVar[float] = ContextVar("edgedsl_pack_scale", default=1.0)


@contextlib.contextmanager
def packing(scale: float) -> Iterator[None]:
    """Within the block, every threshold (:data:`PACK_MIN_VALUES`, the ``range`` one) is
    multiplied by ``scale``: ``packing(0)`` binds every column that can be packed packed (the
    differential tests run both ways), ``packing(float("inf"))`` none."""
    token = _SCALE.set(scale)
    try:
        yield
    finally:
        _SCALE.reset(token)


def bind_column(values: Sequence[Any], stype: str, *, cast: bool = False,
                ordinal: bool = False, row: bool = False) -> tuple[BindMode, object]:
    """``(mode, parameter)`` binding the column ``values`` of stored SQL type ``stype``.

    ``cast``: a list is bound as ``?::T[]`` (else uncast: DuckDB types it from the values);
    ``row``: the column is ``__row``, which decides the number of rows and is never a typed
    ``NULL`` (any other column with no value at all is one, an empty one too); ``ordinal``: it
    is ``0 … n-1`` (a fresh relation). The parameter of a ``null`` mode is None and is not
    bound."""
    n = len(values)
    scale = _SCALE.get()
    if row and ordinal and n >= RANGE_MIN_VALUES * scale:
        return "range", n
    nulls = values.count(None)
    if nulls == n and not row:
        return "null", None
    least = PACK_MIN_VALUES.get(stype)
    if least is not None and n >= least * scale and n:
        packed = _pack(values, stype, nulls)
        if packed is not None:
            return packed
    return ("cast" if cast else "list"), values


def column_sql(mode: BindMode, stype: str, name: str) -> str:
    """The ``SELECT``-list item binding column ``name`` in ``mode`` (one ``?`` unless null)."""
    col = quote_ident(name)
    if mode == "null":
        return f"CAST(NULL AS {stype}) AS {col}"
    if mode == "list":
        return f"unnest(?) AS {col}"
    if mode == "cast":
        return f"unnest(?::{stype}[]) AS {col}"
    if mode == "range":
        return f"unnest(range(?)) AS {col}"
    split = "unnest(string_split(?, chr(0)))"
    if stype == "VARCHAR":
        return f"{split} AS {col}" if mode == "packed" else f"NULLIF({split}, chr(1)) AS {col}"
    return f"CAST(NULLIF({split}, '') AS {stype}) AS {col}"


def _pack(values: Sequence[Any], stype: str, nulls: int) -> tuple[BindMode, str] | None:
    """The packed text of ``values`` (None when they cannot be packed: a value of another
    type, a text holding NUL, or ``chr(1)`` beside a NULL)."""
    mode: BindMode = "packed"
    try:
        if stype == "VARCHAR":
            if nulls:
                if _NULL_TEXT in values:
                    return None
                mode = "packed_null"
                text = _SEP.join([_NULL_TEXT if v is None else v for v in values])
            else:
                text = _SEP.join(values)
            if text.count(_SEP) != len(values) - 1:
                return None  # a value holds NUL
        elif stype == "BIGINT":  # int.__repr__: a bool prints 1/0, a float is refused
            text = _SEP.join(map(int.__repr__, values)) if not nulls else \
                _SEP.join(["" if v is None else int.__repr__(v) for v in values])
        elif stype == "DATE":  # a date column repeats its values: each one printed once
            iso = {v: "" if v is None else datetime.date.isoformat(v)
                   for v in dict.fromkeys(values)}
            text = _SEP.join(map(iso.__getitem__, values))
        else:
            return None
    except TypeError:
        return None
    return mode, text
