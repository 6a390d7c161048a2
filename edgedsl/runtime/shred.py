"""Shredding: records turned once into a typed DuckDB relation (:class:`~.duck.Relation`).

Shredding is columnar and never inserts Python rows one by one. Every value is coerced from the
record *as its orjson JSON reads back*, by one of two equivalent paths producing the same table
(the layout is :mod:`edgedsl.runtime.duck`'s; the columns and both writers are
:mod:`edgedsl.runtime.columns`):

* **python** (small inputs): each record is serialised with orjson (its ``__raw`` text),
  :func:`edgedsl.reduce.coerce.coerce` coerces each field in Python and one
  ``CREATE TABLE … AS SELECT unnest(?::BIGINT[]) AS …, unnest(?::DATE[]) AS …`` loads whole
  typed columns bound as lists — one statement, with no JSON or regex work left for DuckDB to
  plan (planning dominated the cost of small shreds);
* **sql** (large inputs, :func:`edgedsl.runtime.sqlshred.write_sql_shredded`): the records are
  serialised by one ``orjson.dumps`` of the whole list, or of one slice per thread of the
  connection from 50,000 records on (:func:`~.sqlshred.record_blob`,
  :func:`~.sqlshred.scan_parts`), which DuckDB reads as in-memory files
  (:mod:`edgedsl.runtime.buffers`) in one native pass (``read_json_objects``: each record's
  text, its ``__raw``); the declared fields of each record are read by their JSON pointers
  (their texts and their JSON types, one call each) and
  :func:`edgedsl.reduce.coerce.coerce_sql` coerces in SQL with our rules, each text matched
  once against its type's pattern, in one ``CREATE TABLE … AS`` statement (several slices:
  in parallel into a staged table, whose order gives ``__row`` in a second statement). Only
  list and json fields need Python values, and those are taken column by column.

The two paths build the same table value for value, except that ``__raw`` is only required to
*parse* to the same record (keys in the same order): the SQL path keeps the text DuckDB reads
out of the one array (today the element's own orjson bytes, not guaranteed by DuckDB), so a
reader of ``__raw`` compares parsed values (the property test of ``tests/runtime/
test_shred_sql.py`` does).

List and ``json`` fields are stored as canonical JSON text made in Python on both paths (see
:func:`edgedsl.reduce.coerce.json_text`). The choice is by the number of cells (records × (fields
+ 1)) against :data:`edgedsl.runtime.columns.PYTHON_SHRED_MAX_CELLS`
(:func:`~edgedsl.runtime.columns.python_shreds`), measured with ``benchmarks/bench_drv.py``; the
differential tests check that both paths agree with :func:`edgedsl.reduce.coerce.coerce`, and a
property test that they build the same tables. Records must be JSON-serialisable by orjson
(``datetime.date`` becomes ISO text, tuples become arrays, NaN becomes null, integers beyond 64
bits are refused), so :meth:`~.duck.Relation.records` returns the records as that JSON reads back.

A relation built by the python path keeps its typed columns in memory as well (and may be left
*pending*, its table unwritten: ``lazy``), so reading its distinct hand-off values costs no query
and a reduction of it reads it inline (:mod:`edgedsl.runtime.selection`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import duckdb

from edgedsl.core.types import FieldType

from .columns import (
    check_fields,
    columns_of,
    opaque_fields,
    python_shreds,
    serialise,
    stored_columns,
    write_columns,
)
from .duck import Relation, fresh_name
from .sqlshred import record_blob, scan_parts, write_sql_shredded

__all__ = ["ShredMethod", "shred"]

#: ``auto`` chooses by size (:func:`~edgedsl.runtime.columns.python_shreds`); the others force a
#: path (both build the same table).
ShredMethod = Literal["auto", "python", "sql"]


def shred(
    con: duckdb.DuckDBPyConnection,
    records: Sequence[Mapping[str, Any]],
    types: Mapping[str, FieldType],
    *,
    arm: Sequence[str | None] | None = None,
    name: str | None = None,
    temp: bool | None = None,
    method: ShredMethod = "auto",
    lazy: bool = False,
) -> Relation:
    """Shred ``records`` once into a typed DuckDB table and return its :class:`~.duck.Relation`.

    ``arm`` optionally tags each record with the branch it came from. ``name`` names the table
    (default: a fresh name); the table is temporary unless a ``name`` is given (``temp``
    overrides), so that a store can keep shredded responses in its DuckDB file. ``method``
    forces the python or the sql path (see the module docstring); both build the same table.
    ``lazy`` (python path only) returns a *pending* relation whose table is written only when
    SQL first needs it (see :meth:`~.duck.Relation.ensure`).
    """
    check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    target = name or fresh_name()
    is_temp = name is None if temp is None else temp
    if method == "python" or (method == "auto" and python_shreds(len(records), len(types))):
        raws, back = serialise(records)
        return _shred_python(con, raws, back, types, arm, target, is_temp, lazy)
    blobs, column = record_blob(records, scan_parts(con, len(records)))
    opaque = stored_columns({f: types[f] for f in opaque_fields(types)}, column)
    write_sql_shredded(con, blobs, len(records), types, arm, target, is_temp, opaque)
    return Relation(con, target, types, len(records))


def _shred_python(con: duckdb.DuckDBPyConnection, raws: list[str], back: list[Any],
                  types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
                  is_temp: bool, lazy: bool) -> Relation:
    """The python path: columns coerced in Python, written in one statement (or left pending
    when ``lazy`` and temporary)."""
    columns = columns_of(raws, back, types, arm)
    if lazy and is_temp:
        return Relation(con, target, types, len(raws), columns=columns, pending=True)
    write_columns(con, target, types, columns, temp=is_temp)
    return Relation(con, target, types, len(raws), columns=columns)
