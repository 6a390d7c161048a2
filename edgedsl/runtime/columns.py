"""A relation's columns in Python: records serialised once, coerced into typed columns (all at
once or each on first read), and whole columns written to a DuckDB table in one statement.

The layout of the columns is :mod:`edgedsl.runtime.duck`'s (``__row``, ``__arm``, one column per
declared field, ``__raw``); :class:`~edgedsl.runtime.duck.Relation` holds them and writes its
table from them (:func:`write_columns`, the python path) or from the records as one JSON array
(:func:`write_sql_shredded`, the SQL path); both build the same table (``__raw`` equal as the
value it parses to, see :mod:`edgedsl.runtime.duck`). Which path a number of
cells takes is :func:`python_shreds` (:data:`PYTHON_SHRED_MAX_CELLS`), for
:func:`edgedsl.runtime.shred.shred` and for a pending relation's table alike.
"""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import duckdb
import orjson

from edgedsl.core.sqlquote import ident_key, quote_ident, sql_string_literal
from edgedsl.core.types import FieldType
from edgedsl.reduce.coerce import (
    coerce_bool,
    coerce_date,
    coerce_float,
    coerce_int,
    coerce_sql,
    coerce_text,
    core_sql,
    core_text_sql,
    json_text,
    sql_type,
    storage_of,
)

from .bind import bind_column, column_sql
from .buffers import buffer
from .redact import excerpt

if TYPE_CHECKING:
    from .backends import ColumnSource

__all__ = [
    "PYTHON_SHRED_MAX_CELLS",
    "RESERVED_COLUMNS",
    "LazyColumns",
    "StoredColumns",
    "check_fields",
    "columns_of",
    "create_table_as",
    "lazy_columns",
    "opaque_fields",
    "python_columns",
    "python_shreds",
    "record_blob",
    "scan_parts",
    "serialise",
    "source_columns",
    "stored_columns",
    "take",
    "texts_blob",
    "texts_blobs",
    "write_columns",
    "write_sql_shredded",
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


def _json_pointer(field: str) -> str:
    return "/" + field.replace("~", "~0").replace("/", "~1")


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
    return raws, _objects(back)


def _objects(back: list[Any]) -> list[Any]:
    """``back`` (records read back from their JSON) when each is a JSON object; else the
    ValueError that names the first that is not."""
    bad = next((i for i, r in enumerate(back) if not isinstance(r, dict)), None)
    if bad is not None:  # by index: the item may itself be None
        raise ValueError(f"{NOT_AN_OBJECT}{excerpt(back[bad])}")
    return back


#: The start of the error for a record that is not a JSON object (Python or SQL path).
NOT_AN_OBJECT = "a record must be a JSON object, not "


#: Types of values whose JSON reads back as the value itself (an ``int`` beyond 64 bits never
#: gets here: orjson refuses the record first).
_READS_BACK_AS_ITSELF = frozenset({str, int, bool, type(None)})


def _cuts(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive ranges covering ``0 … n`` (as equal as whole numbers allow)."""
    bounds = [n * k // parts for k in range(parts + 1)]
    return list(itertools.pairwise(bounds))


def record_blob(records: Sequence[Mapping[str, Any]], parts: int = 1
                ) -> tuple[list[bytes], Callable[[str], list[Any]]]:
    """The records as ``parts`` JSON arrays of consecutive records (one ``orjson.dumps`` of each
    slice: each element is the record's own orjson text, as :func:`serialise` makes it), and a
    function giving one field's values (None where missing) as that JSON reads back — what
    :func:`serialise` gives, without reading every record back.

    A field's column is taken from the records as they are (``dict.get``) when every value in
    it reads back as itself (a str, int, bool or None), else read back through orjson as one
    list (a date becomes its ISO text, a tuple a list, NaN None, exactly as in the record's
    JSON); the records are never rebuilt. When a record is not a ``dict`` (a dataclass) the
    arrays are read back whole, as :func:`serialise` does. Nothing here checks that every
    record is a JSON object: :func:`write_sql_shredded` refuses an element that is not one
    (and so does a column read back), which spares touching every record once more (16 ms of
    the 224,958-record shred, ``benchmarks/bench_drv.py`` line e).
    """
    try:
        blobs = [orjson.dumps(records[a:b]) for a, b in _cuts(len(records), max(parts, 1))]
    except TypeError as exc:  # orjson.JSONEncodeError subclasses TypeError
        raise ValueError(f"records are not JSON-serialisable: {exc}") from exc

    def column(field: str) -> list[Any]:
        try:
            values = list(map(dict.get, records, itertools.repeat(field)))  # type: ignore[arg-type]
        except TypeError:  # a record that is not a dict: its JSON read back
            back = _objects([r for b in blobs for r in orjson.loads(b)])
            return list(map(dict.get, back, itertools.repeat(field)))
        if set(map(type, values)) <= _READS_BACK_AS_ITSELF:
            return values
        return orjson.loads(orjson.dumps(values))  # type: ignore[no-any-return,unused-ignore]
    return blobs, column


def texts_blob(raws: Sequence[str]) -> bytes:
    """Record texts joined into the JSON array :func:`write_sql_shredded` reads."""
    return ("[" + ",".join(raws) + "]").encode()


def texts_blobs(raws: Sequence[str], parts: int = 1) -> list[bytes]:
    """Record texts as ``parts`` JSON arrays of consecutive records (:func:`texts_blob`)."""
    return [texts_blob(raws[a:b]) for a, b in _cuts(len(raws), max(parts, 1))]


#: Records from which the SQL path reads its JSON as several arrays, one per thread of the
#: connection (at most :data:`MAX_SCAN_PARTS`): DuckDB then scans, parses and coerces them in
#: parallel, and numbers the rows afterwards (:func:`write_sql_shredded`). Below it one array is
#: read in one statement. Measured with ``benchmarks/bench_drv.py`` (line e).
PARALLEL_SHRED_MIN_RECORDS = 50_000
MAX_SCAN_PARTS = 4


def scan_parts(con: duckdb.DuckDBPyConnection, records: int) -> int:
    """How many JSON arrays the SQL path splits ``records`` records into on ``con``: one per
    thread DuckDB runs (``threads``), up to :data:`MAX_SCAN_PARTS`, from
    :data:`PARALLEL_SHRED_MIN_RECORDS` records on; else 1."""
    if records < PARALLEL_SHRED_MIN_RECORDS:
        return 1
    row = con.execute("SELECT current_setting('threads')").fetchone()
    return max(1, min(int(row[0]) if row else 1, MAX_SCAN_PARTS))


def _arm_texts(arm: Sequence[object]) -> list[str | None]:
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
        "__arm": [None] * len(raws) if arm is None else _arm_texts(arm),
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
    arms: list[Any] = [None] * n if arm is None else _arm_texts(arm)
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
    arms: list[Any] = [None] * n if arm is None else _arm_texts(arm)
    return LazyColumns(None, types, list(range(n)), arms, ordinal=True, source=source)


def write_columns(con: duckdb.DuckDBPyConnection, target: str, types: Mapping[str, FieldType],
                   columns: Mapping[str, list[Any]], *, temp: bool) -> int:
    """One ``CREATE TABLE … AS SELECT unnest(?::T[]) …`` from whole typed columns."""
    typed = "".join(f", unnest(?::{sql_type(t)}[]) AS {quote_ident(f)}" for f, t in types.items())
    sql = (f'SELECT unnest(?::BIGINT[]) AS "__row", unnest(?::VARCHAR[]) AS "__arm"{typed}, '
           f'unnest(?::VARCHAR[]) AS "__raw"')
    params = [columns["__row"], columns["__arm"], *(columns[f] for f in types), columns["__raw"]]
    return create_table_as(con, target, sql, params, temp=temp)


def write_sql_shredded(con: duckdb.DuckDBPyConnection, blob: bytes | Sequence[bytes], n: int,
                       types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
                       is_temp: bool, opaque: Mapping[str, list[Any]]) -> None:
    """Write table ``target`` from ``blob``, the ``n`` records as one JSON array or as several
    arrays of consecutive records (:func:`record_blob`), each value coerced in SQL
    (:func:`edgedsl.reduce.coerce.coerce_sql`) — the SQL shredding path. An element that is
    not a JSON object is refused (ValueError, as :func:`serialise` says it).

    DuckDB reads the array in one native pass (``read_json_objects`` over the blob as an
    in-memory file, :func:`edgedsl.runtime.buffers.buffer`; ``WITH ORDINALITY`` numbers the
    records): each record's JSON text is its ``__raw``. Each scalar field is then read by its
    JSON pointer, its text and its JSON type each in one call over the list of pointers
    (``json_extract_string``, ``json_type``: two parses of the record), and each text value
    matched once against its type's pattern (:func:`edgedsl.reduce.coerce.core_sql`), in
    layers so that no expression is computed twice.

    ``opaque`` holds the stored columns of the list and json fields (canonical JSON text, made
    in Python: see :func:`edgedsl.reduce.coerce.json_text`). They and the arm tags enter as whole
    columns (:func:`edgedsl.runtime.bind.bind_column`: a large column packed into one text),
    joined to the records by position (``POSITIONAL JOIN``). No ``ORDER BY``: the records are
    read in ``__row`` order and DuckDB writes a ``CREATE TABLE … AS`` in its source's order (its
    ``preserve_insertion_order``, on by default), as :func:`write_columns` relies on too.

    Several arrays are read by one ``read_json_objects`` over their files, in parallel: ``WITH
    ORDINALITY`` would number the rows on one thread and hold the whole pipeline there, so the
    scalar fields are coerced into a staged temporary table first (in the arrays' order, by the
    same rule) and the second statement writes ``target`` from it with its ``rowid`` as
    ``__row`` (``README.md``, "Shredding, fourth pass": 211–242 → 141–169 ms for 224,958
    records on two threads, the copy included).
    """
    names = list(types)
    side_params: list[object] = []
    side: list[str] = []
    consts: list[str] = []

    def bind(values: Sequence[Any], stype: str, name: str) -> None:
        mode, param = bind_column(values, stype, cast=True)
        if mode == "null":
            consts.append(column_sql(mode, stype, name))
            return
        side_params.append(param)
        side.append(column_sql(mode, stype, name))

    bind([None] * n if arm is None else _arm_texts(arm), "VARCHAR", "__arm")
    kept = [f for f in names if f in opaque]
    for i, f in enumerate(kept):
        bind(opaque[f], "VARCHAR", f"__o{i}")
    scalar = [f for f in names if f not in opaque]
    q = {f: tuple(quote_ident(f"__{x}{i}") for x in "xtsc") for i, f in enumerate(scalar)}
    extract = "".join(f", __x[{i + 1}] AS {x}, __y[{i + 1}] AS {jt}"
                      for i, (x, jt, _, _) in enumerate(q.values()))
    texts, cores = [], []
    for f, (x, jt, s, c) in q.items():
        text = core_text_sql(x, types[f], jtype=jt)
        if text is not None:
            texts.append(f", {text} AS {s}")
            cores.append(f", {core_sql(s, types[f])} AS {c}")
    cols, stored = [], []
    for f in names:
        if f in opaque:
            cols.append(f"{quote_ident(f'__o{kept.index(f)}')} AS {quote_ident(f)}")
            stored.append(cols[-1])
        else:
            x, jt, _, c = q[f]
            has_core = core_text_sql(x, types[f], jtype=jt) is not None
            expr = coerce_sql(x, types[f], jtype=jt, core=c if has_core else None)
            cols.append(f"{expr} AS {quote_ident(f)}")
            stored.append(quote_ident(f))
    parse = ""
    if scalar:
        pointers = "[" + ", ".join(sql_string_literal(_json_pointer(f)) for f in scalar) + "]"
        parse = (f", json_extract_string(__text, {pointers}) AS __x, "
                 f"json_type(__text, {pointers}) AS __y")
    joined = ""
    if side:
        joined = f" POSITIONAL JOIN (SELECT {', '.join(side)}) AS __side"
        consts.append("__side.*")
    const = "".join(", " + c for c in consts)
    layers = (
        f"__rec AS (SELECT *{parse} FROM __src),\n"
        f"__ext AS (SELECT *{extract} FROM __rec),\n"
        f"__txt AS (SELECT *{''.join(texts)} FROM __ext),\n"
        f"__cor AS (SELECT *{''.join(cores)} FROM __txt)\n"
    )
    scan = "read_json_objects(?, format='array', maximum_object_size=?)"
    # an element that is not a JSON object is refused (record_blob does not look)
    raw = (f"CASE WHEN starts_with(__text, '{{') THEN __text "
           f"ELSE error({sql_string_literal(NOT_AN_OBJECT)} || left(__text, 60)) END")
    blobs = [blob] if isinstance(blob, bytes) else list(blob)
    size = max(max(map(len, blobs), default=0), 1 << 24)
    with contextlib.ExitStack() as stack, _not_an_object_as_value_error():
        urls = [stack.enter_context(buffer(con, b)) for b in blobs]
        if len(urls) == 1:  # one statement: rows numbered as the one array is read
            sql = (
                "WITH __src AS (SELECT ordinality - 1 AS __row, CAST(json AS VARCHAR) AS __text"
                f"{const} FROM {scan} WITH ORDINALITY{joined}),\n{layers}"
                f'SELECT CAST(__row AS BIGINT) AS "__row", CAST(__arm AS VARCHAR) AS "__arm"'
                f'{"".join(", " + c for c in cols)}, {raw} AS "__raw"\nFROM __cor'
            )
            create_table_as(con, target, sql, [urls[0], size, *side_params], temp=is_temp)
            return
        # several arrays, read in parallel: ``WITH ORDINALITY`` would number the rows on one
        # thread, so the scalar fields are coerced into a table first, in the arrays' order
        # (DuckDB keeps insertion order), and its ``rowid`` is the ``__row`` the second
        # statement writes beside the arm tags and the list and json columns
        scalars = "".join(f", {c}" for c, f in zip(cols, names, strict=True) if f not in opaque)
        first = (f"WITH __src AS (SELECT CAST(json AS VARCHAR) AS __text FROM {scan}),\n"
                 f'{layers}SELECT {raw} AS "__raw"{scalars} FROM __cor')
        staged = f"__staged_{uuid.uuid4().hex}"
        create_table_as(con, staged, first, [urls, size], temp=True)
    try:
        inner = (f"SELECT {quote_ident(staged)}.rowid AS __row, {quote_ident(staged)}.*{const} "
                 f"FROM {quote_ident(staged)}{joined}")
        sql = (f'SELECT CAST(__row AS BIGINT) AS "__row", CAST(__arm AS VARCHAR) AS "__arm"'
               f'{"".join(", " + c for c in stored)}, "__raw" FROM ({inner})')
        create_table_as(con, target, sql, side_params, temp=is_temp)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {quote_ident(staged)}")


@contextlib.contextmanager
def _not_an_object_as_value_error() -> Iterator[None]:
    """DuckDB's error for an element that is not a JSON object, as the ValueError the python
    path raises."""
    try:
        yield
    except duckdb.Error as exc:
        at = str(exc).find(NOT_AN_OBJECT)
        if at < 0:
            raise
        raise ValueError(str(exc)[at:]) from None


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
