"""The SQL shredding path reads a number's or a date's core without the pattern's capture
(``regexp_full_match``, then the one-pass :data:`~edgedsl.reduce.coerce.CORE_AFTER_MATCH`): in
every text a type's pattern matches, that read is the pattern's own group 1, in Python and in
DuckDB alike."""

from __future__ import annotations

import re
from collections.abc import Iterator

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.core.sqlquote import sql_string_literal
from edgedsl.core.types import DATE, FLOAT, INT, FieldType
from edgedsl.reduce.coerce import (
    CORE_AFTER_MATCH,
    DATE_PATTERN,
    INTEGER_PATTERN,
    NUMBER_PATTERN,
    coerce_date,
    coerce_sql,
    core_sql,
)

_CASES: list[tuple[str, str, FieldType]] = [
    ("integer", INTEGER_PATTERN, INT),
    ("double", NUMBER_PATTERN, FLOAT),
    ("date", DATE_PATTERN, DATE),
]


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    yield c
    c.close()


@pytest.mark.parametrize(("kind", "pattern", "ftype"), _CASES)
@given(data=st.data())
@settings(max_examples=60)
def test_the_core_read_after_a_match_is_the_patterns_group(kind: str, pattern: str,
                                                           ftype: FieldType,
                                                           data: st.DataObject,
                                                           con: duckdb.DuckDBPyConnection
                                                           ) -> None:
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    want = re.fullmatch(pattern, text)
    assert want is not None
    got = re.match(CORE_AFTER_MATCH[kind], text)
    assert got is not None and got.group(1) == want.group(1)
    sql = core_sql("s", ftype)
    assert sql is not None
    assert con.execute(f"SELECT {sql} FROM (SELECT ? AS s)", [text]).fetchone() == (
        want.group(1),)


@pytest.mark.parametrize(("kind", "pattern", "ftype"), _CASES)
@given(text=st.one_of(st.none(), st.text(max_size=12),
                      st.sampled_from(["1,2345", " 12 ", "+1.5 %", "2024.02.29", "2024-0229",
                                       "12e3", "1,000.0", "３", ".5", "1.", "20240229 x"])))
@settings(max_examples=60)
def test_the_core_sql_is_empty_exactly_when_no_match(kind: str, pattern: str, ftype: FieldType,
                                                     text: str | None,
                                                     con: duckdb.DuckDBPyConnection) -> None:
    sql = core_sql("s", ftype)
    assert sql is not None
    (got,) = con.execute(f"SELECT {sql} FROM (SELECT ?::VARCHAR AS s)", [text]).fetchone() or ()
    if text is None:
        assert got is None
    else:
        m = re.fullmatch(pattern, text)
        assert got == ("" if m is None else m.group(1)), sql_string_literal(text)


_DAYS = [(y, m, d) for y in (0, 1, 1999, 2000, 2023, 2024, 9999) for m in (0, 1, 2, 12, 13)
         for d in (0, 1, 28, 29, 30, 31, 32)]


@pytest.mark.parametrize("spelling", ["{:04d}{:02d}{:02d}", "{:04d}-{:02d}-{:02d}",
                                      "{:04d}.{:02d}.{:02d}"])
@pytest.mark.parametrize("pad", ["", " ", "\t ", "  \n"])
def test_each_date_spelling_reads_as_the_python_rule(spelling: str, pad: str,
                                                     con: duckdb.DuckDBPyConnection) -> None:
    # every spelling is read by its own reader in SQL (strptime, the ISO cast): impossible
    # days, month 0 or 13 and year 0 give NULL as coerce_date does, with or without spaces
    texts = [pad + spelling.format(*ymd) + pad[::-1] for ymd in _DAYS]
    texts += [pad + spelling.format(*ymd) for ymd in _DAYS[::3]]  # space on one side only
    sql = coerce_sql("s", DATE, jtype="'VARCHAR'", core="c")
    got = con.execute(f"SELECT list({sql}) FROM (SELECT s, {core_sql('s', DATE)} AS c "
                      "FROM (SELECT unnest(?::VARCHAR[]) AS s))", [texts]).fetchone()
    assert got is not None
    assert got[0] == [coerce_date(t) for t in texts]
    assert any(got[0]) and not all(got[0])  # both valid and impossible days were read
