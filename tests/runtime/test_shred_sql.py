"""The SQL shredding path (large inputs): the records as one JSON array read by DuckDB in one
pass, each text matched once — the same table as the python path, value for value, with
``__raw`` a JSON text that parses to the same record (keys in the same order)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import math
from collections.abc import Iterator
from typing import Any

import duckdb
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.core.types import BOOL, DATE, FLOAT, INT, JSON, STR, FieldType, ListType
from edgedsl.reduce.coerce import coerce
from edgedsl.runtime import sqlshred
from edgedsl.runtime.bind import packing
from edgedsl.runtime.columns import serialise
from edgedsl.runtime.shred import shred
from edgedsl.runtime.sqlshred import record_blob, texts_blob, texts_blobs
from edgedsl.testing import HOSTILE_TEXT, field_type_maps, values
from tests.profiles import examples


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    yield c
    c.close()


def _table(con: duckdb.DuckDBPyConnection, records: list[dict[str, Any]],
           types: dict[str, FieldType], method: str,
           arm: list[str | None] | None = None) -> tuple[Any, list[Any]]:
    """DESCRIBE and the rows (each value with its Python type) in the table's own order — no
    ORDER BY: the written order must be ``__row`` order on both paths. ``__raw`` (the last
    column) as the value its JSON parses to, with its keys in order."""
    rel = shred(con, records, types, arm=arm, method=method)  # type: ignore[arg-type]
    desc = con.execute(f"DESCRIBE {rel.sql_name}").fetchall()
    body = con.execute(f"SELECT * FROM {rel.sql_name}").fetchall()
    rel.drop()
    return desc, [(*((type(v), v) for v in row[:-1]), _parsed(row[-1])) for row in body]


@contextlib.contextmanager
def _split(con: duckdb.DuckDBPyConnection, on: bool = True) -> Iterator[None]:
    """Within the block (when ``on``), the SQL path reads any number of records as three JSON
    arrays scanned in parallel (``scan_parts``), the rows numbered afterwards."""
    if not on:
        yield
        return
    old = sqlshred.PARALLEL_SHRED_MIN_RECORDS
    threads = con.execute("SELECT current_setting('threads')").fetchone()
    sqlshred.PARALLEL_SHRED_MIN_RECORDS = 0
    con.execute("SET threads = 3")
    try:
        yield
    finally:
        sqlshred.PARALLEL_SHRED_MIN_RECORDS = old
        con.execute(f"SET threads = {threads[0] if threads else 1}")


def _parsed(raw: str) -> tuple[object, list[str]]:
    """A ``__raw`` text as its value and its keys in order."""
    value = orjson.loads(raw)
    return value, list(value)


# escaped quotes and backslashes, the text of unicode escapes, strings that look like numbers,
# booleans, null or nested JSON (their JSON type is still a string), and numbers with exponents
_LOOKALIKES = ["a\"b", "\\\"", "\"\"", "\\u0041", "\\u00e9\\n", "C:\\dir\\", "123", "-1.5",
               "1E5", "1.0e+2", "12e3", "-0", "0x10", "Infinity", "NaN", "true", "false", "null",
               "[1]", "{\"a\": 1}", "1,000.0", "20240229.0", " 1 ", "1.", ".5"]
_EXPONENTS = [6.02e23, 1.5e-10, -2.5e-300, 1e22, 1e21, 2e-7, 123e-20, 1.7976931348623157e308]

# values a large response really holds, and the odd ones: thousands separators, units, blanks,
# unicode, nested objects, huge integers at the edges of 64 bits, floats that read back as None
_ODD = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "1,234", "-1,234,567", "12,345,678.9 KRW", "1,2345", " +12 %",
                     "3억", "20240229", " 2024.02.29 ", "2024-02-30", "0000-01-01", "Y", " no ",
                     "삼성전자", "\u0000", "\x01", "a\nb", "\"quoted\"", "\\", "🙂", "ｆｕｌｌ",
                     "1e16", "-0.0", "\u2028", "é", "\ud7a3", "12,345,678,901,234,567,890"]),
    # escaped quotes and backslashes, the text of unicode escapes, strings that look like
    # numbers, booleans, null or nested JSON (their JSON type is still a string)
    st.sampled_from(_LOOKALIKES),
    st.sampled_from(_EXPONENTS),
    st.sampled_from(HOSTILE_TEXT),
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([2**63 - 1, -(2**63), 2**63, 2**64 - 1, 0, 1, 20240102]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e16, -0.0, 0.0, 1e300, 5e-324, 2.5, 1e-7, 123456789012345680.0,
                     9007199254740993.0, -1e16]),
    st.booleans(),
    st.text(max_size=5),
    st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)),
    st.recursive(st.none() | st.integers(-5, 5) | st.text(max_size=3),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6),
)


@st.composite
def odd_relations(draw: st.DrawFn) -> tuple[dict[str, FieldType], list[dict[str, Any]]]:
    """A type map (json and list fields among them) and records whose declared fields are
    missing, null, nested or odd, with undeclared keys besides."""
    types = draw(field_type_maps(max_fields=4))
    if draw(st.booleans()) and "j" not in {n.lower() for n in types}:
        types["j"] = JSON
    rows = []
    for _ in range(draw(st.integers(0, 12))):
        row: dict[str, Any] = {}
        for f, t in types.items():
            how = draw(st.integers(0, 3))
            if how == 1:
                row[f] = draw(_ODD)
            elif how == 2:
                row[f] = draw(values(t))
        if draw(st.booleans()):
            row[draw(st.text(max_size=4))] = draw(_ODD)  # undeclared (or a declared one again)
        rows.append(row)
    return types, rows


@given(case=odd_relations(), packed=st.booleans(), tagged=st.booleans(), split=st.booleans())
@settings(max_examples=examples(150))
def test_sql_path_builds_the_python_paths_table(case: tuple[dict[str, FieldType],
                                                            list[dict[str, Any]]],
                                                packed: bool, tagged: bool, split: bool,
                                                con: duckdb.DuckDBPyConnection) -> None:
    """Both paths build the same table; the SQL path read as one JSON array or as three
    scanned in parallel (``split``)."""
    types, rows = case
    arm = [("a", None, "가")[i % 3] for i in range(len(rows))] if tagged else None
    try:
        serialise(rows)
    except ValueError:  # e.g. an integer beyond 64 bits: refused by both paths alike
        for method in ("python", "sql"):
            with pytest.raises(ValueError, match="not JSON-serialisable"):
                shred(con, rows, types, method=method)
        return
    want = _table(con, rows, types, "python", arm)
    with packing(0 if packed else float("inf")), _split(con, split):
        got = _table(con, rows, types, "sql", arm)  # records, arms and lists packed or not
    assert got == want


@given(rows=st.lists(st.dictionaries(st.sampled_from(["a", "b", "가"]), _ODD, max_size=3),
                     max_size=8))
def test_record_blob_reads_fields_back_as_serialise(rows: list[dict[str, Any]]) -> None:
    try:
        raws, back = serialise(rows)
    except ValueError:
        with pytest.raises(ValueError, match="not JSON-serialisable"):
            record_blob(rows)
        return
    for parts in (1, 2, 3):  # one dumps of each slice: the records' own texts, joined
        assert record_blob(rows, parts)[0] == texts_blobs(raws, parts)
    blobs, column = record_blob(rows)
    assert blobs == [texts_blob(raws)]
    for f in ("a", "b", "가", "missing"):
        got, want = column(f), [r.get(f) for r in back]
        assert orjson.dumps(got) == orjson.dumps(want)  # NaN-free: every float read back
        assert [type(v) for v in got] == [type(v) for v in want]


class Kind(enum.IntEnum):
    A = 1


@dataclasses.dataclass
class Trade:
    amount: str
    when: dt.date


def test_record_blob_values_that_do_not_read_back_as_themselves() -> None:
    rows: list[Any] = [{"a": (1, 2), "b": dt.date(2024, 1, 2), "c": math.nan, "d": Kind.A},
                       {"a": "x", "b": None, "c": 1.5, "d": True}]
    blobs, column = record_blob(rows)
    assert column("a") == [[1, 2], "x"]
    assert column("b") == ["2024-01-02", None]
    assert column("c") == [None, 1.5]
    assert column("d") == [1, True] and type(column("d")[0]) is int
    assert blobs == [texts_blob([orjson.dumps(r).decode() for r in rows])]
    # records that are not dicts are read back whole, as before
    blobs, column = record_blob([Trade("1,000", dt.date(2024, 1, 2))])  # type: ignore[list-item]
    assert column("amount") == ["1,000"] and column("when") == ["2024-01-02"]
    # an element that is not a JSON object: refused when a column is read back, and by the
    # statement (record_blob itself does not look at every record)
    _, column = record_blob([{"a": 1}, None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="must be a JSON object, not None"):
        column("a")


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("bad", [None, [1, 2], "text", 3])
def test_a_record_that_is_not_an_object_is_refused_on_both_paths(
        bad: object, split: bool, con: duckdb.DuckDBPyConnection) -> None:
    rows: list[Any] = [{"a": "1"}, bad, {"a": "2"}]
    for method in ("python", "sql"):
        with _split(con, split), pytest.raises(ValueError, match="must be a JSON object, not"):
            shred(con, rows, {"a": INT}, method=method)  # type: ignore[arg-type]
    # the SQL path's statement refuses it too when nothing is read back in Python
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE "
                           "'__staged_%'").fetchone()[0]  # nothing staged is left behind


@pytest.mark.parametrize("split", [False, True])
def test_a_large_sql_shred_keeps_row_order_and_values(con: duckdb.DuckDBPyConnection,
                                                      split: bool) -> None:
    """One array, or three scanned in parallel (the rows numbered by the staged table's
    order, which DuckDB keeps as the arrays' order)."""
    types: dict[str, FieldType] = {"amt": INT, "rate": FLOAT, "dt": DATE, "name": STR,
                                   "tags": ListType(INT), "j": JSON}
    rows = [{"amt": f"{i * 7919:,}" if i % 2 else i, "rate": f" {i}.5 %", "name": f"이름{i % 7}",
             "dt": ("20240102", "2024-01-02", "2024.01.02", 20240102, "0000-01-01")[i % 5],
             "tags": [i, None] if i % 3 else None, "j": {"k": [i]} if i % 4 else "x"}
            for i in range(5_000)]  # large enough for packed binding and range(n)
    arm = [f"arm{i % 3}" for i in range(5_000)]  # the second statement's positional join
    with _split(con, split):
        rel = shred(con, rows, types, arm=arm, method="sql")
    got = con.execute(f'SELECT "__row", "amt", "rate", "dt", "tags", "j" FROM {rel.sql_name}'
                      ).fetchall()
    arms = [r[0] for r in con.execute(f'SELECT "__arm" FROM {rel.sql_name}').fetchall()]
    assert arms == arm
    assert [r[0] for r in got] == list(range(5_000))  # written in __row order, no sort
    for (_, amt, rate, day, tags, j), row in zip(got, rows, strict=True):
        assert amt == coerce(INT, row["amt"]) and rate == coerce(FLOAT, row["rate"])
        assert day == coerce(DATE, row["dt"])
        assert tags == (None if row["tags"] is None else orjson.dumps(row["tags"]).decode())
        assert orjson.loads(j) == coerce(JSON, row["j"])
    assert rel.records() == rows


def test_the_sql_paths_raw_parses_to_each_record_keys_in_order(
        con: duckdb.DuckDBPyConnection) -> None:
    """``__raw`` is only promised to parse to the record's orjson round trip, keys in order: the
    values JSON could spell another way (1e16, -0.0, 5e-324, 2**64 - 1, escapes, nesting)."""
    odd: list[dict[str, Any]] = [
        {"z": 1e16, "a": -0.0, "m": 5e-324, "b": 2**64 - 1, "c": -(2**63)},
        {"s": "\u0000\u001f\"\\/\u2028🙂가", "n": {"y": [1, {"x": None}], "a": -1e-7}},
        {}, {"a": "1,234", "z": ""}, {"b": math.nan, "d": dt.date(2024, 2, 29), "t": (1, 2)},
    ]
    rows = odd * 400  # large enough for the SQL path under `auto` too
    rel = shred(con, rows, {"a": STR, "z": FLOAT}, method="sql")
    got = rel.records()
    want = orjson.loads(orjson.dumps(rows))
    assert got == want
    assert [list(r) for r in got] == [list(r) for r in want]  # keys in the same order
    assert math.copysign(1.0, got[0]["a"]) == -1.0  # -0.0 keeps its sign
    raws = [r[0] for r in con.execute(f'SELECT "__raw" FROM {rel.sql_name} ORDER BY "__row"')
            .fetchall()]
    assert [orjson.loads(r) for r in raws] == want
    rel.drop()


@pytest.mark.parametrize("ftype", [INT, FLOAT, DATE, STR, BOOL])
def test_lookalike_strings_and_exponents_coerce_alike_on_both_paths(
        ftype: FieldType, con: duckdb.DuckDBPyConnection) -> None:
    """Each odd spelling above, in every scalar field type: the SQL path's table is the python
    path's (a string that looks like a number is still a string, an exponent still a number)."""
    rows: list[dict[str, Any]] = [{"v": v, "w": v} for v in (*_LOOKALIKES, *_EXPONENTS)]
    types: dict[str, FieldType] = {"v": ftype, "w": STR}
    assert _table(con, rows, types, "sql") == _table(con, rows, types, "python")
