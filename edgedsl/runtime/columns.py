"""A relation's columns in Python: records serialised once, coerced into typed columns (all at
once or each on first read), and whole columns written to a DuckDB table in one statement.

The layout of the columns is :mod:`edgedsl.runtime.duck`'s (``__row``, ``__arm``, one column per
declared field, ``__raw``); :class:`~edgedsl.runtime.duck.Relation` holds them and writes its
table from them (:func:`write_columns`, the python path) or from the records as JSON arrays
(:func:`edgedsl.runtime.sqlshred.write_sql_shredded`, the SQL path); both build the same
table (``__raw`` equal as the value it parses to, see :mod:`edgedsl.runtime.duck`). Which path
a number of cells takes is :func:`python_shreds` (:data:`PYTHON_SHRED_MAX_CELLS`), for
:func:`edgedsl.runtime.shred.shred` and for a pending relation's table alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import duckdb
import orjson

from edgedsl.core.sqlquote import ident_key, quote_ident
from edgedsl.core.types import FieldType
from edgedsl.reduce.coerce import (
    coerce_bool,
    coerce_date,
    coerce_float,
    coerce_int,
    coerce_text,
    json_text,
    sql_type,
    storage_of,
)

from .redact import excerpt

if TYPE_CHECKING:
    from .backends import ColumnSource

__all__ = [
    "NOT_AN_OBJECT",
    "PYTHON_SHRED_MAX_CELLS",
    "RESERVED_COLUMNS",
    "LazyColumns",
    "StoredColumns",
    "arm_texts",
    "check_fields",
    "columns_of",
    "create_table_as",
    "json_objects",
    "lazy_columns",
    "opaque_fields",
    "python_columns",
    "python_shreds",
    "serialise",
    "source_columns",
    "stored_columns",
    "take",
    "write_columns",
]

RESERVED_COLUMNS = ("__row", "__arm", "__raw")
#: Above this many cells (records × (fields + 1)) a relation's table is written by the SQL path
#: (:func:`write_sql_shredded`) instead of from Python-coerced columns (:func:`write_columns`).
#: Measured with ``benchmarks/bench_drv.py`` (2 noisy cores, 5 fields): 27 records — python
#: 1.7 ms, SQL 7.1 ms; 1,000 records — 11 ms vs 13 ms; 20,000 records — 228 ms vs 123 ms. The
#: paths crossed near 1,500 records of 5 fields (~10,000 cells). Since the SQL path's rewrite (no
#: readback, each text matched once; CPU time, median of 7, load 12): 27 records — 2.9 vs
#: 9.9 ms; 1,000 — 14.1 vs 14.0 ms; 2,000 — 25 vs 20 ms; 20,000 — 211 vs 89 ms: they cross near
#: 1,000 records (~6,000 cells); the bound stays (up to it the two differ by under 5 ms). With
#: the records read as one JSON array (wall, median of 30 / 3, load 11–12): 27 records — 5.2 vs
#: 21 ms; 1,000 — 41 vs 45 ms; 20,000 — 527 vs 135 ms: the bound stays.
PYTHON_SHRED_MAX_CELLS = 10_000


def python_shreds(records: int, fields: int) -> bool:
    """True when ``records`` records of ``fields`` declared fields are shredded in Python: their
    cells (records × (fields + 1)) are at most :data:`PYTHON_SHRED_MAX_CELLS` (read at each call,
    so a test may move the bound)."""
    return records * (fields + 1) <= PYTHON_SHRED_MAX_CELLS


def check_fields(types: Mapping[str, FieldType]) -> None:
    """Refuse reserved field names, names DuckDB cannot hold, and names equal up to ASCII
    case."""
    seen: dict[str, str] = {}
    reserved = {ident_key(r) for r in RESERVED_COLUMNS}
    for name in types:
        quote_ident(name)  # rejects NUL and empty names
        key = ident_key(name)
        if key in reserved:
            raise ValueError(f"field name {name!r} is reserved")
        if key in seen:
            raise ValueError(f"fields {seen[key]!r} and {name!r} differ only by ASCII case")
        seen[key] = name


def create_table_as(con: duckdb.DuckDBPyConnection, name: str, sql: str,
                    params: Sequence[object] = (), *, temp: bool = True) -> int:
    """``CREATE [TEMP] TABLE name AS sql`` in one statement; returns the number of rows written."""
    row = con.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {quote_ident(name)} AS {sql}",
                      list(params)).fetchone()
    return int(row[0]) if row else 0




def _list_text(v: object) -> str | None:
    if not isinstance(v, list):
        return None
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()


_STORED: dict[str, Callable[[object], object]] = {
    "integer": coerce_int,
    "double": coerce_float,
    "date": coerce_date,
    "bool": coerce_bool,
    "text": coerce_text,
    "list": _list_text,
    "json": json_text,
}


def _stored_value(t: FieldType) -> Callable[[object], object]:
    """Raw value (as JSON reads back) → the value the shredded column stores."""
    return _STORED[storage_of(t)]


def serialise(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[Any]]:
    """Each record's JSON text and the records as that JSON reads back."""
    try:
        raws = [orjson.dumps(r).decode() for r in records]
    except TypeError as exc:  # orjson.JSONEncodeError subclasses TypeError
        raise ValueError(f"records are not JSON-serialisable: {exc}") from exc
    back = orjson.loads("[" + ",".join(raws) + "]") if raws else []
    return raws, json_objects(back)


def json_objects(back: list[Any]) -> list[Any]:
    """``back`` (records read back from their JSON) when each is a JSON object; else the
    ValueError that names the first that is not."""
    bad = next((i for i, r in enumerate(back) if not isinstance(r, dict)), None)
    if bad is not None:  # by index: the item may itself be None
        raise ValueError(f"{NOT_AN_OBJECT}{excerpt(back[bad])}")
    return back


#: The start of the error for a record that is not a JSON object (Python or SQL path).
NOT_AN_OBJECT = "a record must be a JSON object, not "


def arm_texts(arm: Sequence[object]) -> list[str | None]:
    """The arm tags as stored: a text as it is, another value as its JSON text."""
    return [a if a is None or isinstance(a, str) else orjson.dumps(a).decode() for a in arm]


def python_columns(records: Sequence[Mapping[str, Any]], types: Mapping[str, FieldType],
                   arm: Sequence[object] | None = None) -> dict[str, list[Any]]:
    """The columns :func:`shred` would write, computed in Python (``__row``, ``__arm``, fields,
    ``__raw``); see :class:`Relation` ``columns``."""
    check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    raws, back = serialise(records)
    return columns_of(raws, back, types, arm)


def columns_of(raws: list[str], back: list[Any], types: Mapping[str, FieldType],
                arm: Sequence[object] | None) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {
        "__row": list(range(len(raws))),
        "__arm": [None] * len(raws) if arm is None else arm_texts(arm),
    }
    for f, t in types.items():
        conv = _stored_value(t)
        columns[f] = [conv(r.get(f)) for r in back]
    columns["__raw"] = raws
    return columns


class LazyColumns(Mapping[str, list[Any]]):
    """A relation's columns (see :class:`Relation` ``columns``) computed on first use.

    ``__row`` and ``__arm`` are held; each field's stored values are coerced from the records
    (as their JSON reads back) the first time that column is read, and ``__raw`` is each
    record's JSON text, made the first time it is read. A reduction, a junction or an answer
    reads a few columns of a relation, so the columns nothing reads — most of a wide response,
    all but one of a 20,000-record list searched by name — are never coerced. The values are
    those of :func:`python_columns`, computed by the same functions.

    The records may be held as columns instead (``source``, a
    :class:`~edgedsl.runtime.backends.ColumnSource` of JSON-native records): a field's column
    is then coerced from the source's column, and no record is built unless ``__raw`` or
    :meth:`back` asks for them all (:meth:`rows` builds only the kept ones).

    ``ordinal``: ``__row`` is ``0 … n-1`` (a fresh relation, not a reduction's kept rows).
    """

    __slots__ = ("_back", "_cols", "_names", "_source", "_types", "ordinal")

    def __init__(self, back: list[Any] | None, types: Mapping[str, FieldType], row: list[Any],
                 arm: list[Any], *, raws: list[str] | None = None,
                 known: Mapping[str, list[Any]] | None = None, ordinal: bool = False,
                 source: ColumnSource | None = None) -> None:
        """``back``: the records as their JSON reads back (or None with ``source``);
        ``known``: columns already made."""
        if back is None and source is None:
            raise ValueError("lazy columns need records or a column source")
        self._back = back
        self._source = source
        self._types = dict(types)
        self._cols: dict[str, list[Any]] = {"__row": row, "__arm": arm, **(known or {})}
        if raws is not None:
            self._cols["__raw"] = raws
        self._names = ("__row", "__arm", *self._types, "__raw")
        self.ordinal = ordinal

    def __getitem__(self, name: str) -> list[Any]:
        got = self._cols.get(name)
        if got is None:
            if name == "__raw":
                got = [orjson.dumps(r).decode() for r in self.back()]
            elif name in self._types:
                if self._source is not None and self._back is None:
                    raw = self._source.column(name)
                else:  # the records are dicts (JSON objects)
                    raw = list(map(dict.get, self._back or (), itertools.repeat(name)))
                got = _coerce_column(self._types[name], raw)
            else:
                raise KeyError(name)
            self._cols[name] = got
        return got

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def made(self, name: str) -> bool:
        """True when column ``name`` has been computed already."""
        return name in self._cols

    def rows(self, idx: Sequence[int], types: Mapping[str, FieldType]) -> LazyColumns:
        """The columns of the rows at positions ``idx`` (a reduction's kept rows), fields of
        ``types``: made columns are sliced, the others stay to be made from those rows."""
        known = {n: take(c, idx) for n, c in self._cols.items() if n in types or n == "__raw"}
        cols = self._cols
        if self._back is None and self._source is not None:
            back = list(map(self._source.record, idx))
        else:
            back = take(self.back(), idx)
        return LazyColumns(back, types, take(cols["__row"], idx), take(cols["__arm"], idx),
                           known=known)

    def back(self) -> list[Any]:
        """The records as their JSON reads back."""
        if self._back is None:
            assert self._source is not None
            self._back = self._source.records()
        return self._back


def take(values: Sequence[Any], idx: Sequence[int]) -> list[Any]:
    """``[values[i] for i in idx]``, in C."""
    return list(map(values.__getitem__, idx))


#: Storage kinds whose coercion is worth doing once per distinct text (a date column of 4,000
#: rows holds a few dates; a number column repeats values).
_MEMO_KINDS = frozenset({"integer", "double", "date", "bool"})
_TEXT_ONLY = frozenset({str, type(None)})


def _coerce_column(t: FieldType, raw: list[Any]) -> list[Any]:
    """``[stored(v) for v in raw]`` for one field of type ``t`` (see :func:`_stored_value`):
    a column of texts (and nulls) is kept as is for a text field and coerced once per distinct
    text otherwise — the same values, computed by the same function."""
    kind = storage_of(t)
    conv = _STORED[kind]
    if (kind == "text" or kind in _MEMO_KINDS) and set(map(type, raw)) <= _TEXT_ONLY:
        if kind == "text":  # coerce_text keeps a str and a None as they are
            return list(raw)
        memo = {v: conv(v) for v in dict.fromkeys(raw)}
        return list(map(memo.__getitem__, raw))
    return [conv(v) for v in raw]


def opaque_fields(types: Mapping[str, FieldType]) -> list[str]:
    """The fields of ``types`` stored as canonical JSON text made in Python (list and json
    fields), on both shredding paths."""
    return [f for f, t in types.items() if storage_of(t) in ("list", "json")]


def stored_columns(types: Mapping[str, FieldType],
                   raw: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
    """Each field's stored column, coerced from ``raw(field)`` — its values as the records'
    JSON reads back (see :func:`record_texts`)."""
    return {f: _coerce_column(t, raw(f)) for f, t in types.items()}


def lazy_columns(records: Sequence[Mapping[str, Any]], types: Mapping[str, FieldType],
                 arm: Sequence[object] | None = None, *, native: bool = False) -> LazyColumns:
    """:func:`python_columns`, each field's column (and ``__raw``) made on first use (see
    :class:`LazyColumns`). ``native``: the records are values a JSON decoder made (their JSON
    text reads back as themselves), so they are not serialised and read back first; otherwise
    they are, now (a record that is not JSON-serialisable fails here, as in :func:`shred`)."""
    check_fields(types)
    if arm is not None and len(arm) != len(records):
        raise ValueError(f"{len(arm)} arm tags for {len(records)} records")
    n = len(records)
    arms: list[Any] = [None] * n if arm is None else arm_texts(arm)
    if native and set(map(type, records)) <= {dict}:
        return LazyColumns(list(records), types, list(range(n)), arms, ordinal=True)
    raws, back = serialise(records)
    return LazyColumns(back, types, list(range(n)), arms, raws=raws, ordinal=True)


def source_columns(source: ColumnSource, types: Mapping[str, FieldType],
                   arm: Sequence[object] | None = None) -> LazyColumns:
    """:func:`lazy_columns` of the JSON-native records ``source`` holds as columns, without
    building them (see :class:`LazyColumns`)."""
    check_fields(types)
    n = len(source)
    if arm is not None and len(arm) != n:
        raise ValueError(f"{len(arm)} arm tags for {n} records")
    arms: list[Any] = [None] * n if arm is None else arm_texts(arm)
    return LazyColumns(None, types, list(range(n)), arms, ordinal=True, source=source)


def write_columns(con: duckdb.DuckDBPyConnection, target: str, types: Mapping[str, FieldType],
                   columns: Mapping[str, list[Any]], *, temp: bool) -> int:
    """One ``CREATE TABLE … AS SELECT unnest(?::T[]) …`` from whole typed columns."""
    typed = "".join(f", unnest(?::{sql_type(t)}[]) AS {quote_ident(f)}" for f, t in types.items())
    sql = (f'SELECT unnest(?::BIGINT[]) AS "__row", unnest(?::VARCHAR[]) AS "__arm"{typed}, '
           f'unnest(?::VARCHAR[]) AS "__raw"')
    params = [columns["__row"], columns["__arm"], *(columns[f] for f in types), columns["__raw"]]
    return create_table_as(con, target, sql, params, temp=temp)


class StoredColumns(dict[str, list[Any]]):
    """The columns of one stored response as the store caches them in memory: they never change
    while cached (a response re-recorded under its key is a new object), so the ``__row`` ids
    each reduction of them keeps are kept beside them in :attr:`kept`, by the statement's text
    and the query's values (:func:`~edgedsl.runtime.selection.run_selection`): a replayed
    ``drv`` over the same stored response does not run the same statement again (nor the
    statement counting its ties, :func:`edgedsl.runtime.determinacy.tie_facts`, kept under a key
    led by ``"ties"``)."""

    __slots__ = ("kept",)

    #: the most reductions remembered per response (the first ones; a response reduced many
    #: ways, as synthesis may, does not grow its memo without bound)
    MAX_KEPT = 64

    def __init__(self, columns: Mapping[str, list[Any]]) -> None:
        """Hold ``columns`` (the lists themselves, not copies), with an empty memo."""
        super().__init__(columns)
        #: kept ``__row`` ids (sorted) by ``(statement text, ((type, value), …) of the query)``
        self.kept: dict[tuple[object, ...], list[int]] = {}

    def remember(self, key: tuple[object, ...], ids: list[int]) -> None:
        """Keep ``ids`` under ``key`` in :attr:`kept`, unless :attr:`MAX_KEPT` are kept."""
        if len(self.kept) < self.MAX_KEPT:
            self.kept[key] = ids
