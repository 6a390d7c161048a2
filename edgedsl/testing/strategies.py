"""Hypothesis strategies for raw public-API values, records, relations and reducer chains (see
:mod:`edgedsl.testing`)."""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from edgedsl.core.sqlquote import ident_key
from edgedsl.core.types import (
    BOOL,
    DATE,
    FLOAT,
    INT,
    NUM,
    STR,
    CodeType,
    EnumType,
    FieldType,
    ListType,
    RecordType,
    is_date,
    is_numeric,
    storage_kind,
)
from edgedsl.reduce.registry import REDUCERS, ReduceStep, coerced_column
from edgedsl.runtime.columns import RESERVED_COLUMNS

HOSTILE_NAMES: tuple[str, ...] = (
    '"; drop table x; --',
    'a"b',
    "'",
    "it's",
    "; select 1",
    "with space",
    "종가",
    "보고서 명",
    "?",
    "$1",
    "a/b",
    "~0",
    "$.x",
    "[0]",
    "*",
    "0",
    "back\\slash",
    "new\nline",
    "Select",
    "rcept_dt",
)
HOSTILE_TEXT: tuple[str, ...] = (
    "'; drop table x; --",
    '"; drop table x; --',
    "?",
    "$1",
    "' OR '1'='1",
    "\\",
    "%",
    "_",
    "",
    " ",
)
_KOREAN = (
    "삼성전자",
    "SK하이닉스",
    "국민의힘",
    "더불어민주당",
    "서울특별시",
    "부산",
    "보통주",
    "가",
    "나",
)
_UNITS = ("", "", "원", "%", "주", "건", "명", "KRW", "원/주")
_NUMBER_JUNK = (
    "",
    " ",
    "-",
    "N/A",
    "3억",
    "1e5",
    "1,2345",
    ".5",
    "5.",
    "₩100",
    "--1",
    "1천원",
    "없음",
)
_DATE_JUNK = (
    "20230229",
    "2024-13-01",
    "2024.02.30",
    "0000-01-01",
    "2024-1-2",
    "2024/01/02",
    "24-01-02",
    "2024-01-02T00:00:00",
    "",
)
_BOOL_WORDS = ("Y", "N", "y", " yes ", "TRUE", "false", "0", "1", "No", "maybe", "")

field_types_pool: tuple[FieldType, ...] = (
    INT,
    FLOAT,
    NUM,
    DATE,
    STR,
    BOOL,
    EnumType(("KOSPI", "KOSDAQ", "KONEX")),
    CodeType("codes.StockCode", r"^[0-9]{6}$"),
    ListType(INT),
)


@st.composite
def _number_text(draw: st.DrawFn) -> str:
    n = draw(st.one_of(st.integers(-2000, 2000), st.integers(-(10**12), 10**12)))
    body = f"{abs(n):,}" if draw(st.booleans()) else str(abs(n))
    if draw(st.booleans()):
        body += "." + draw(st.sampled_from(("0", "00", "5", "25", "999", "000001")))
    sign = "-" if n < 0 else draw(st.sampled_from(("", "", "+")))
    pad = st.sampled_from(("", "", " ", "  ", "\t"))
    return f"{draw(pad)}{sign}{body}{draw(pad)}{draw(st.sampled_from(_UNITS))}{draw(pad)}"


@st.composite
def _date_text(draw: st.DrawFn) -> str:
    d = draw(st.dates(_dt.date(1990, 1, 1), _dt.date(2030, 12, 31)))
    fmt = draw(st.sampled_from(("%Y%m%d", "%Y-%m-%d", "%Y.%m.%d")))
    return d.strftime(fmt)


_ints = st.one_of(st.integers(-1000, 1000), st.integers(-(2**63), 2**63 - 1))
_floats = st.one_of(st.floats(-1e6, 1e6), st.floats(allow_nan=True, allow_infinity=True))
_korean = st.one_of(
    st.sampled_from(_KOREAN),
    st.text(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=1, max_size=4),
)


def values(ftype: FieldType) -> st.SearchStrategy[Any]:
    """Raw values for a field of type ``ftype``, with real-world quirks and nulls."""
    if is_numeric(ftype):
        return st.one_of(
            st.none(), _ints, _floats, _number_text(), st.sampled_from(_NUMBER_JUNK), st.booleans()
        )
    if is_date(ftype):
        return st.one_of(
            st.none(),
            _date_text(),
            _date_text().map(lambda s: f" {s} "),
            st.sampled_from(_DATE_JUNK),
            st.integers(19900101, 20301231),
            st.dates(_dt.date(1990, 1, 1), _dt.date(2030, 12, 31)),
        )
    kind = storage_kind(ftype)
    if kind == "bool":
        return st.one_of(st.none(), st.booleans(), st.sampled_from(_BOOL_WORDS), st.integers(-1, 2))
    if isinstance(ftype, ListType):
        item = values(ftype.item) if not isinstance(ftype.item, ListType) else st.none()
        return st.one_of(st.none(), st.lists(item, max_size=3), st.just("[1, 2]"))
    if isinstance(ftype, EnumType):
        return st.one_of(st.none(), st.sampled_from(ftype.members), st.sampled_from(_KOREAN))
    if isinstance(ftype, CodeType):
        return st.one_of(
            st.none(), st.from_regex(ftype.pattern, fullmatch=True), st.integers(0, 999999)
        )
    return st.one_of(
        st.none(),
        _korean,
        st.text(max_size=6),
        st.sampled_from(HOSTILE_TEXT),
        st.integers(-100, 100),
        st.floats(allow_nan=False),
        st.booleans(),
    )


def present_values(ftype: FieldType) -> st.SearchStrategy[Any]:
    """Raw values for a field of type ``ftype`` that coerce to a value (never null)."""
    if is_numeric(ftype):
        return st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6), _number_text())
    if is_date(ftype):
        return st.one_of(_date_text(), st.dates(_dt.date(1990, 1, 1), _dt.date(2030, 12, 31)))
    if storage_kind(ftype) == "bool":
        return st.booleans()
    if isinstance(ftype, ListType):
        return st.lists(st.integers(-3, 3), max_size=3)
    if isinstance(ftype, EnumType):
        return st.sampled_from(ftype.members)
    if isinstance(ftype, CodeType):
        return st.from_regex(ftype.pattern, fullmatch=True)
    return st.one_of(_korean, st.text(min_size=1, max_size=6), st.sampled_from(HOSTILE_TEXT))


def hostile_names() -> st.SearchStrategy[str]:
    """Field names built to break naive SQL: quotes, semicolons, spaces, Korean, JSON paths."""
    reserved = {ident_key(r) for r in RESERVED_COLUMNS}
    return st.one_of(
        st.sampled_from(HOSTILE_NAMES), st.text(min_size=1, max_size=6), _korean
    ).filter(lambda s: "\x00" not in s and ident_key(s) not in reserved)


def field_type_maps(
    names: st.SearchStrategy[str] | None = None, *, min_fields: int = 1, max_fields: int = 4
) -> st.SearchStrategy[dict[str, FieldType]]:
    """Field name → type maps whose names DuckDB can tell apart (unique up to ASCII case)."""
    pairs = st.lists(
        st.tuples(
            names if names is not None else hostile_names(), st.sampled_from(field_types_pool)
        ),
        min_size=min_fields,
        max_size=max_fields,
        unique_by=lambda kv: ident_key(kv[0]),
    )
    return pairs.map(dict)


def records(record_type: RecordType) -> st.SearchStrategy[dict[str, Any]]:
    """Raw records of ``record_type``; optional fields are sometimes missing."""
    required = {f.name: values(f.type) for f in record_type.fields if not f.optional}
    optional = {f.name: values(f.type) for f in record_type.fields if f.optional}
    return st.fixed_dictionaries(required, optional=optional)


def _types_of(spec: RecordType | Mapping[str, FieldType]) -> dict[str, FieldType]:
    return spec.field_types() if isinstance(spec, RecordType) else dict(spec)


@st.composite
def relations(
    draw: st.DrawFn,
    spec: RecordType | Mapping[str, FieldType],
    *,
    min_size: int = 0,
    max_size: int = 20,
) -> list[dict[str, Any]]:
    """Relations (lists of raw records) with deliberate ties: values come from small pools, at
    least one of which is present (not null after coercion), so rows share values — tied
    extremes, tied top counts, ties at a ``top k`` boundary."""
    types = _types_of(spec)
    # Hypothesis favours the first alternative and small numbers: the pool's present value
    # comes first, and a small `how` reads the pool
    pools = {f: [draw(present_values(t)), *draw(st.lists(values(t), min_size=0, max_size=3))]
             for f, t in types.items()}
    n = draw(st.integers(min_size, max_size))
    rows: list[dict[str, Any]] = []
    for _ in range(n):
        row: dict[str, Any] = {}
        for f, t in types.items():
            how = draw(st.integers(0, 9))
            if how == 9:
                continue  # missing
            row[f] = draw(values(t)) if how == 8 else draw(st.sampled_from(pools[f]))
        rows.append(row)
    return rows


def _neighbours(v: Any, ftype: FieldType) -> list[Any]:
    """Values next to the coerced value ``v``: one step below and above (an int ±1, a number
    ±1 and ±0.5, a date ±1 day, a text with its last character dropped or one added)."""
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v - 1, v + 1]
    if isinstance(v, float):
        return [v - 1, v + 1, v - 0.5, v + 0.5]
    if isinstance(v, _dt.date):
        out = []
        for d in (-1, 1):
            with contextlib.suppress(OverflowError):
                out.append(v + _dt.timedelta(days=d))
        return out
    if isinstance(v, str):
        return [v[:-1], v + "a", v + "가"] if v else ["a"]
    return []


def _text_parts(v: str) -> list[str]:
    """Prefixes, suffixes and an inner part of a text, for ``contains`` / ``starts_with``."""
    return list(dict.fromkeys([v, v[:1], v[:2], v[:-1], v[1:], v[-1:], v[1:-1]]))


@st.composite
def pivots(draw: st.DrawFn, op: str, ftype: FieldType,
           rows: Sequence[Mapping[str, Any]] = (), field: str | None = None) -> Any:
    """A pivot for reducer ``op`` on a field of ``ftype``: mostly drawn from the values the
    field holds in ``rows`` (coerced) and their neighbours (:func:`_neighbours`), so that a
    comparison off by one at the boundary (``>`` for ``>=``, a tie dropped at a ``top k``
    boundary) shows within a default example budget; sometimes an arbitrary raw value."""
    red = REDUCERS[op]
    seen = [v for v in coerced_column(rows, field, ftype) if v is not None] \
        if field is not None else []
    if red.pivot == "count":
        ranked = sorted(seen, reverse=op == "top")
        # k at each position where the next value repeats this one: a tie at the boundary
        boundary = [i + 1 for i in range(len(ranked) - 1) if ranked[i] == ranked[i + 1]]
        # the boundary first: Hypothesis favours the first alternative
        ks: list[st.SearchStrategy[int]] = [st.sampled_from(boundary)] * 3 if boundary else []
        ks.append(st.integers(1, max(1, len(ranked) + 1)))
        return draw(st.one_of(ks))
    if red.pivot == "list":
        one = pivots(op="eq", ftype=ftype, rows=rows, field=field)
        return draw(st.lists(one, min_size=1, max_size=4))
    raw = values(ftype).filter(lambda v: v is not None)
    if red.pivot == "text":
        texts = [v for v in seen if isinstance(v, str)]
        texty: list[st.SearchStrategy[str]] = []
        if texts:
            parts = [p for v in texts for p in _text_parts(v) + _neighbours(v, ftype)]
            texty += [st.sampled_from(parts)] * 4
        texty += [st.text(max_size=3), st.sampled_from(HOSTILE_TEXT)]
        return draw(st.one_of(texty))
    # the values held and their neighbours first: Hypothesis favours the first alternative
    choices: list[st.SearchStrategy[Any]] = []
    if seen:
        near = [w for v in seen for w in _neighbours(v, ftype)]
        choices += [st.sampled_from(seen)] * 3 + ([st.sampled_from(near)] * 2 if near else [])
    choices.append(raw)
    if op in ("eq", "ne") and storage_kind(ftype) == "text":
        choices.append(st.sampled_from(HOSTILE_TEXT))
    return draw(st.one_of(choices))


@st.composite
def reduce_steps(
    draw: st.DrawFn,
    field_types: Mapping[str, FieldType],
    rows: Sequence[Mapping[str, Any]] = (),
    *,
    min_steps: int = 1,
    max_steps: int = 3,
    ops: Sequence[str] | None = None,
) -> list[ReduceStep]:
    """Random reducer chains respecting the type rules (of every reducer of the registry, or
    of ``ops``); pivots from :func:`pivots`, over ``rows``."""
    names = list(ops) if ops is not None else list(REDUCERS)
    fields = {op: [f for f, t in field_types.items() if REDUCERS[op].accepts(t)] for op in names}
    fields = {op: fs for op, fs in fields.items() if fs}
    if not fields:
        return []
    steps = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        op = draw(st.sampled_from(sorted(fields)))  # the op first, so rare types get exercised
        field = draw(st.sampled_from(fields[op]))
        pivot = None
        if REDUCERS[op].needs_pivot:
            pivot = draw(pivots(op, field_types[field], rows, field))
        steps.append(ReduceStep(op, field, pivot))
    return steps


@st.composite
def reducer_cases(
    draw: st.DrawFn,
    field_types: Mapping[str, FieldType] | None = None,
    *,
    max_size: int = 20,
    ops: Sequence[str] | None = None,
) -> tuple[dict[str, FieldType], list[dict[str, Any]], list[ReduceStep]]:
    """``(types, rows, steps)``: random (or given) field types, a relation and a chain over it
    (of every reducer, or of ``ops``)."""
    types = dict(field_types) if field_types is not None else draw(field_type_maps())
    rows = draw(relations(types, max_size=max_size))
    return types, rows, draw(reduce_steps(types, rows, ops=ops))


