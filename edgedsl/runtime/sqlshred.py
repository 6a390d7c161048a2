"""The SQL shredding path: records read by DuckDB as JSON arrays, each value coerced in SQL.

:func:`record_blob` serialises the records (one ``orjson.dumps`` per array) and
:func:`write_sql_shredded` writes the relation's table from the arrays, in the layout of
:mod:`edgedsl.runtime.duck` and value for value as the python path (:mod:`edgedsl.runtime.columns`,
:func:`~edgedsl.runtime.columns.write_columns`) would: the property test of
``tests/runtime/test_shred_sql.py`` holds the two to it. From
:data:`PARALLEL_SHRED_MIN_RECORDS` records the arrays are one per thread of the connection
(:func:`scan_parts`) and DuckDB reads them in parallel (``README.md``, "Shredding, fourth pass").
"""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import duckdb
import orjson

from edgedsl.core.sqlquote import quote_ident, sql_string_literal
from edgedsl.core.types import FieldType
from edgedsl.reduce.coerce import coerce_sql, core_sql, core_text_sql

from .bind import bind_column, column_sql
from .buffers import buffer
from .columns import NOT_AN_OBJECT, arm_texts, create_table_as, json_objects

__all__ = [
    "MAX_SCAN_PARTS",
    "PARALLEL_SHRED_MIN_RECORDS",
    "record_blob",
    "scan_parts",
    "texts_blob",
    "texts_blobs",
    "write_sql_shredded",
]


def _json_pointer(field: str) -> str:
    return "/" + field.replace("~", "~0").replace("/", "~1")


#: Types of values whose JSON reads back as the value itself (an ``int`` beyond 64 bits never
#: gets here: orjson refuses the record first).
_READS_BACK_AS_ITSELF = frozenset({str, int, bool, type(None)})


def _cuts(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` (at least one) consecutive ranges covering ``0 … n``, as equal as whole
    numbers allow."""
    parts = max(parts, 1)
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
        blobs = [orjson.dumps(records[a:b]) for a, b in _cuts(len(records), parts)]
    except TypeError as exc:  # orjson.JSONEncodeError subclasses TypeError
        raise ValueError(f"records are not JSON-serialisable: {exc}") from exc

    def column(field: str) -> list[Any]:
        try:
            values = list(map(dict.get, records, itertools.repeat(field)))  # type: ignore[arg-type]
        except TypeError:  # a record that is not a dict: its JSON read back
            back = json_objects([r for b in blobs for r in orjson.loads(b)])
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
    return [texts_blob(raws[a:b]) for a, b in _cuts(len(raws), parts)]


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


def write_sql_shredded(con: duckdb.DuckDBPyConnection, blobs: Sequence[bytes], n: int,
                       types: Mapping[str, FieldType], arm: Sequence[object] | None, target: str,
                       is_temp: bool, opaque: Mapping[str, list[Any]]) -> None:
    """Write table ``target`` from ``blobs``, the ``n`` records as one JSON array or as several
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

    bind([None] * n if arm is None else arm_texts(arm), "VARCHAR", "__arm")
    kept = [f for f in names if f in opaque]
    for i, f in enumerate(kept):
        bind(opaque[f], "VARCHAR", f"__o{i}")
    scalar = [f for f in names if f not in opaque]
    q = {f: tuple(quote_ident(f"__{x}{i}") for x in "xtsc") for i, f in enumerate(scalar)}
    extract = "".join(f", __x[{i + 1}] AS {x}, __y[{i + 1}] AS {jt}"
                      for i, (x, jt, _, _) in enumerate(q.values()))
    texts, cores, cored = [], [], set()
    for f, (x, jt, s, c) in q.items():
        text = core_text_sql(x, types[f], jtype=jt)
        if text is not None:
            texts.append(f", {text} AS {s}")
            cores.append(f", {core_sql(s, types[f])} AS {c}")
            cored.add(f)
    cols, stored = [], []
    for f in names:
        if f in opaque:
            cols.append(f"{quote_ident(f'__o{kept.index(f)}')} AS {quote_ident(f)}")
            stored.append(cols[-1])
        else:
            x, jt, _, c = q[f]
            expr = coerce_sql(x, types[f], jtype=jt, core=c if f in cored else None)
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
