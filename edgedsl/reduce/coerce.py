"""Value coercion: a raw JSON value → the field's catalog type, in Python and in DuckDB SQL.

The rules are documented in :mod:`.registry` (and in docs/language.md §7). ``coerce`` is
the Python implementation (used when small responses are shredded in Python, and by the
reference semantics); ``coerce_sql`` builds the DuckDB expression used when large responses are
shredded in SQL. One set of regular expressions serves both; the differential property tests
check that the two agree value for value.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable

import orjson

from edgedsl.core.sqlquote import sql_string_literal
from edgedsl.core.types import (
    CodeType,
    EnumType,
    FieldType,
    ListType,
    ScalarType,
    storage_kind,
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# ---------------------------------------------------------------------------------------------
# Coercion: one set of regular expressions, read by Python's ``re`` and by DuckDB's RE2 alike.
# ---------------------------------------------------------------------------------------------

MAGNITUDE_CHARS = "십백천만억조경"
_WS = r"[ \t\n\r]*"


def _unit_class() -> str:
    """Characters of a unit: ``%``, ``‰``, ASCII letters, Hangul syllables minus magnitude words."""
    lo, parts = 0xAC00, []
    for cp in sorted(ord(c) for c in MAGNITUDE_CHARS):
        if cp > lo:
            parts.append((lo, cp - 1))
        lo = cp + 1
    parts.append((lo, 0xD7A3))
    body = "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in parts)
    return f"[%‰A-Za-z{body}]"


_UNIT = _unit_class()
_INT_PART = r"(?:[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+)"
#: Each pattern captures its *core* as group 1 — the number without spaces or unit (thousands
#: separators still in), the date's digits with their separators — so that one match both
#: accepts a text and finds what it reads (in SQL the match is decided without the capture and
#: the core read by :data:`CORE_AFTER_MATCH`, the same group; see :func:`core_sql`).
NUMBER_PATTERN = rf"^{_WS}([+-]?{_INT_PART}(?:\.[0-9]+)?){_WS}(?:{_UNIT}+{_WS})?$"
INTEGER_PATTERN = rf"^{_WS}([+-]?{_INT_PART})(?:\.0+)?{_WS}(?:{_UNIT}+{_WS})?$"
_DATE_FORMS = r"[0-9]{8}|[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}\.[0-9]{2}\.[0-9]{2}"
DATE_PATTERN = rf"^{_WS}({_DATE_FORMS}){_WS}$"
TRUE_WORDS = ("true", "y", "yes", "1")
FALSE_WORDS = ("false", "n", "no", "0")

_NUMBER_RE = re.compile(NUMBER_PATTERN)
_INTEGER_RE = re.compile(INTEGER_PATTERN)
_DATE_RE = re.compile(DATE_PATTERN)
#: A number text that is its own core (ASCII digits, no separator, space or unit): ``float``
#: reads it as the full rule would, and it is always finite.
_PLAIN_NUMBER_RE = re.compile(r"[+-]?[0-9]{1,300}(?:\.[0-9]+)?")
_NON_DIGIT_RE = re.compile(r"[^0-9]")


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def coerce_int(v: object) -> int | None:
    """Coerce a raw value to a 64-bit integer, or None (see the module docstring)."""
    if _is_int(v):
        return v if INT64_MIN <= v <= INT64_MAX else None  # type: ignore[operator,return-value]
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and INT64_MIN <= int(v) <= INT64_MAX:
            return int(v)
        return None
    if isinstance(v, str) and (m := _INTEGER_RE.fullmatch(v)):
        n = int(m.group(1).replace(",", ""))
        return n if INT64_MIN <= n <= INT64_MAX else None
    return None


def coerce_float(v: object) -> float | None:
    """Coerce a raw value to a finite double, or None."""
    if _is_int(v):
        try:
            return float(v)  # type: ignore[arg-type]
        except OverflowError:
            return None
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str) and _PLAIN_NUMBER_RE.fullmatch(v):  # most texts: no separator or unit
        return float(v)
    if isinstance(v, str) and (m := _NUMBER_RE.fullmatch(v)):
        x = float(m.group(1).replace(",", ""))
        return x if math.isfinite(x) else None
    return None


def coerce_number(v: object) -> int | float | None:
    """Coerce a pivot to an exact number: int when it has no decimal part, else a finite float."""
    if _is_int(v):
        return v  # type: ignore[return-value]
    if isinstance(v, str) and (m := _NUMBER_RE.fullmatch(v)):
        core = m.group(1).replace(",", "")
        if "." not in core:
            return int(core)
    return coerce_float(v)


def coerce_date(v: object) -> _dt.date | None:
    """Coerce a raw value to a date, or None."""
    if isinstance(v, _dt.datetime):
        return None
    if isinstance(v, _dt.date):
        return v
    if _is_int(v) and 10000101 <= v <= 99991231:  # type: ignore[operator]
        v = str(v)
    if isinstance(v, str) and (found := _DATE_RE.fullmatch(v)):
        d = _NON_DIGIT_RE.sub("", found.group(1))
        y, m, day = int(d[:4]), int(d[4:6]), int(d[6:8])
        try:
            return _dt.date(y, m, day) if y > 0 else None
        except ValueError:
            return None
    return None


def coerce_bool(v: object) -> bool | None:
    """Coerce a raw value to a boolean, or None."""
    if isinstance(v, bool):
        return v
    if _is_int(v):
        return True if v == 1 else False if v == 0 else None
    if isinstance(v, str):
        w = v.strip(" \t\n\r").lower()
        if w in TRUE_WORDS:
            return True
        if w in FALSE_WORDS:
            return False
    return None


def coerce_text(v: object) -> str | None:
    """Coerce a raw value to text: strings as is, numbers to their canonical text, else None."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else None
    if isinstance(v, _dt.date):  # serialised by orjson as ISO text
        return v.isoformat()
    return None


def is_json(t: FieldType | None) -> bool:
    """True for the ``json`` scalar type."""
    return isinstance(t, ScalarType) and t.kind == "json"


def storage_of(t: FieldType) -> str:
    """:func:`edgedsl.core.types.storage_kind`, with ``json`` told apart from text."""
    return "json" if is_json(t) else storage_kind(t)


def json_text(v: object) -> str | None:
    """The canonical JSON text of a json field's raw value (None for null / missing)."""
    if v is None:
        return None
    text = orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()
    return None if text == "null" else text


def decode_stored(t: FieldType | None, v: object) -> object:
    """A value read from a shredded column as a Python value (list and json fields decoded)."""
    if isinstance(v, str) and (isinstance(t, ListType) or is_json(t)):
        return orjson.loads(v)
    return v


def coerce(t: FieldType, v: object) -> object:
    """Coerce raw value ``v`` to field type ``t`` (Python reference of :func:`coerce_sql`); the
    type comes first — a TypeError when ``t`` is not a field type (``coerce("5", INT)``, the
    arguments swapped, would otherwise read as null)."""
    return coercer(t)(v)


def _coerce_json(v: object) -> object:
    text = json_text(v)
    return None if text is None else orjson.loads(text)


def _coerce_list(v: object) -> object:
    # kept as JSON text in DuckDB: elements read back as JSON (NaN → None, date → ISO text)
    return orjson.loads(orjson.dumps(v)) if isinstance(v, list | tuple) else None


def coercer(t: FieldType) -> Callable[[object], object]:
    """The function coercing a raw value to field type ``t`` (:func:`coerce` with the type's
    storage kind looked up once: a column is coerced with one); TypeError when ``t`` is not a
    field type."""
    if not isinstance(t, ScalarType | EnumType | CodeType | ListType):
        raise TypeError(f"coerce(type, value): the field type comes first, not {t!r}")
    kind = storage_of(t)
    if kind == "json":
        return _coerce_json
    if kind == "integer":
        return coerce_int
    if kind == "double":
        return coerce_float
    if kind == "date":
        return coerce_date
    if kind == "bool":
        return coerce_bool
    if kind == "list":
        return _coerce_list
    return coerce_text


_SQL_TYPES = {
    "integer": "BIGINT",
    "double": "DOUBLE",
    "date": "DATE",
    "bool": "BOOLEAN",
    "text": "VARCHAR",
    "list": "VARCHAR",
    "json": "VARCHAR",
}


def sql_type(t: FieldType) -> str:
    """The DuckDB column type a field of type ``t`` is shredded into (lists: JSON text)."""
    return _SQL_TYPES[storage_of(t)]


_CORE_PATTERNS = {"integer": INTEGER_PATTERN, "double": NUMBER_PATTERN, "date": DATE_PATTERN}
#: The core of a text its type's pattern matches, read without that pattern's capture: in such a
#: text the core is the first run of these characters after the leading spaces (a unit, a space
#: or ``.0`` ends it). DuckDB's ``regexp_full_match`` decides a pattern without its capture
#: group, which costs RE2 a fraction of ``regexp_extract``'s capture; these patterns are
#: one-pass. ``tests/reduce/test_coerce_core.py`` checks that they read group 1 of every match.
CORE_AFTER_MATCH = {
    "integer": rf"^{_WS}([+-]?[0-9,]+)",
    "double": rf"^{_WS}([+-]?[0-9,.]+)",
    "date": rf"^{_WS}([0-9.-]+)",
}


def _text_sql(kind: str, x: str, jt: str) -> str:
    """The text a value of storage ``kind`` is read from: a JSON string's text; for a date, also
    an integer's digits when it is in the 8-digit range (see :func:`coerce_date`)."""
    if kind != "date":
        return f"CASE WHEN {jt} = 'VARCHAR' THEN {x} END"
    return (
        f"CASE {jt} WHEN 'VARCHAR' THEN {x} "
        f"WHEN 'BIGINT' THEN CASE WHEN TRY_CAST({x} AS BIGINT) BETWEEN 10000101 AND 99991231 "
        f"THEN {x} END "
        f"WHEN 'UBIGINT' THEN CASE WHEN TRY_CAST({x} AS BIGINT) BETWEEN 10000101 AND 99991231 "
        f"THEN {x} END END"
    )


def core_text_sql(x: str, t: FieldType, *, jtype: str) -> str | None:
    """SQL expression of the text a value's *core* is read from (NULL when the value is no text
    for its type), or None for a type read without one (only integer, double and date fields
    have one). ``x`` and ``jtype`` are as for :func:`coerce_sql`."""
    kind = storage_of(t)
    return None if kind not in _CORE_PATTERNS else _text_sql(kind, x, jtype)


def core_sql(s: str, t: FieldType) -> str | None:
    """SQL expression of the *core* of text ``s`` (:func:`core_text_sql`): group 1 of the type's
    pattern, ``''`` when the text does not match, NULL when ``s`` is NULL; None for a type read
    without one. The pattern is decided by ``regexp_full_match`` and the core then read by the
    one-pass :data:`CORE_AFTER_MATCH` pattern (the same group, at a fraction of the capture's
    cost; a date text with no space around it is its own core). ``s`` should name a column: it
    is read several times.

    A statement that shreds many records computes it once per value in a layer of its own and
    hands it to :func:`coerce_sql` (``core=``).
    """
    kind = storage_of(t)
    pattern = _CORE_PATTERNS.get(kind)
    if pattern is None:
        return None
    core = f"regexp_extract({s}, {sql_string_literal(CORE_AFTER_MATCH[kind])}, 1)"
    if kind == "date":  # a matched text of 8 bytes, or of 10 with a separator at byte 5, is
        # its own core (no space around it): read without the second pattern (2026-12-03,
        # 224,958 dates in three spellings, CPU, best of 7 in each of 3 rounds alternating,
        # load 7–9: the core 39 ms -> 27 ms, 1.46x)
        core = (f"CASE WHEN strlen({s}) = 8 OR (strlen({s}) = 10 AND "
                f"substr({s}, 5, 1) IN ('-', '.')) THEN {s} ELSE {core} END")
    return (f"CASE WHEN regexp_full_match({s}, {sql_string_literal(pattern)}) "
            f"THEN {core} WHEN {s} IS NOT NULL THEN '' END")


def _date_from_core_sql(core: str) -> str:
    """The date a date core (``yyyymmdd``, ``yyyy-mm-dd`` or ``yyyy.mm.dd``, as the pattern
    matched it) names: year 0 refused, an impossible day NULL. Each spelling is read by the
    cheapest exact reader of its fixed form — ``try_strptime`` with that form's one format,
    DuckDB's own ``TRY_CAST`` for the ISO one — instead of rebuilding ISO text with ``substr``
    and ``||`` (measured 2026-12-03 on 224,958 dates in the three spellings, CPU, best of 7 in
    each of 3 rounds alternating, load 7–9: the core and the date 83 ms before, 45 ms with
    these readers, 1.8x). ``TRY_CAST`` of an impossible ISO day fails slowly (~0.5 µs, DuckDB's
    error path) but gives NULL as the rule does. ``core`` should name a column."""
    return (
        f"CASE WHEN {core} = '' OR starts_with({core}, '0000') THEN NULL "
        f"WHEN strlen({core}) = 8 THEN CAST(try_strptime({core}, '%Y%m%d') AS DATE) "
        f"WHEN substr({core}, 5, 1) = '-' THEN TRY_CAST({core} AS DATE) "
        f"ELSE CAST(try_strptime({core}, '%Y.%m.%d') AS DATE) END"
    )


def coerce_sql(x: str, t: FieldType, *, jtype: str, core: str | None = None) -> str:
    """SQL expression coercing one JSON value to type ``t`` (SQL NULL when missing), from its
    text and its JSON type — what DuckDB's ``json_extract_string`` and ``json_type`` give for it
    (a string's text, a number's digits, ``true``/``false``, an object's or array's JSON text;
    ``VARCHAR``, ``BIGINT``, ``UBIGINT``, ``DOUBLE``, ``BOOLEAN``, ``OBJECT``, ``ARRAY``,
    ``NULL``).

    ``x`` and ``jtype`` must be trusted SQL expressions (e.g. quoted column names); ``core`` may
    name a precomputed :func:`core_sql` of :func:`core_text_sql` (cheaper to plan and to run).
    The result has type :func:`sql_type` ``(t)``. Semantics are those of :func:`coerce`: a text
    is matched once, by the same pattern as in Python, and read from the core that match
    decides. List and ``json`` fields are refused: their stored text is canonical JSON that
    only Python makes (see :func:`json_text`).
    """
    kind = storage_of(t)
    jt = jtype
    if kind in ("list", "json"):
        raise ValueError(f"a {kind} field's stored text is made in Python, not in SQL")
    c = core
    if c is None and (text := core_text_sql(x, t, jtype=jt)) is not None:
        c = core_sql(f"({text})", t)
    if kind == "integer":
        d = f"CAST({x} AS DOUBLE)"
        body = (
            f"CASE {jt} WHEN 'BIGINT' THEN CAST({x} AS BIGINT) "
            f"WHEN 'UBIGINT' THEN TRY_CAST({x} AS BIGINT) "
            f"WHEN 'DOUBLE' THEN CASE WHEN {d} = trunc({d}) THEN TRY_CAST({d} AS BIGINT) END "
            f"WHEN 'VARCHAR' THEN TRY_CAST(replace(nullif({c}, ''), ',', '') AS BIGINT) END"
        )
    elif kind == "double":
        parsed = f"TRY_CAST(replace(nullif({c}, ''), ',', '') AS DOUBLE)"
        body = (
            f"CASE {jt} WHEN 'BIGINT' THEN CAST({x} AS DOUBLE) "
            f"WHEN 'UBIGINT' THEN CAST({x} AS DOUBLE) WHEN 'DOUBLE' THEN CAST({x} AS DOUBLE) "
            f"WHEN 'VARCHAR' THEN nullif(nullif({parsed}, 'inf'::DOUBLE), '-inf'::DOUBLE) END"
        )
    elif kind == "date":
        body = _date_from_core_sql(f"({c})")
    elif kind == "bool":
        w = f"lower(regexp_replace({x}, {sql_string_literal(f'^{_WS}|{_WS}$')}, '', 'g'))"
        trues = ", ".join(sql_string_literal(v) for v in TRUE_WORDS)
        falses = ", ".join(sql_string_literal(v) for v in FALSE_WORDS)
        flag = f"CASE TRY_CAST({x} AS BIGINT) WHEN 1 THEN true WHEN 0 THEN false END"
        body = (
            f"CASE {jt} WHEN 'BOOLEAN' THEN CAST({x} AS BOOLEAN) "
            f"WHEN 'BIGINT' THEN {flag} WHEN 'UBIGINT' THEN {flag} "
            f"WHEN 'VARCHAR' THEN CASE WHEN {w} IN ({trues}) THEN true "
            f"WHEN {w} IN ({falses}) THEN false END END"
        )
    else:
        body = (
            f"CASE {jt} WHEN 'VARCHAR' THEN {x} WHEN 'BIGINT' THEN {x} "
            f"WHEN 'UBIGINT' THEN {x} "
            f"WHEN 'DOUBLE' THEN CAST(CAST({x} AS DOUBLE) AS VARCHAR) END"
        )
    return f"CAST(({body}) AS {sql_type(t)})"
