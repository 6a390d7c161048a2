"""The single registry of the reducers of a ``drv`` node, and the value coercions they share.

Each reducer has a static type rule, a DuckDB SQL builder (what the runtime runs) and a short
pure-Python reference (what tests and :mod:`edgedsl.testing` compare the SQL with — never used by
the runtime). Both implement exactly the semantics below.

Coercion (a raw JSON value → the field's catalog type; anything that does not coerce is null)
-----------------------------------------------------------------------------------------------
*Whitespace* means ASCII space, tab, LF and CR only.

``int`` / ``float`` / ``num`` (numbers)
    JSON numbers as they are (booleans are not numbers). A JSON string is a number when, after
    optional whitespace, it reads: an optional sign ``+``/``-``; an integer part that is either
    plain digits or 1–3 digits followed by groups of ``,ddd``; an optional ``.digits`` decimal part;
    optional whitespace; an optional *unit* made of ``%``, ``‰``, ASCII letters or Hangul syllables
    other than the magnitude words ``십 백 천 만 억 조 경``; optional whitespace. So ``"1,999원"`` →
    1999, ``"-4.57"`` → -4.57, ``" +12 %"`` → 12, ``"3주"`` → 3, but ``"3억"``, ``"1e5"``,
    ``"1,2345"``, ``".5"``, ``"5."``, ``"₩100"`` and ``""`` are null (no scaling is ever guessed).
    ``int`` fields keep a value only when it is integral (``"7.00"`` and ``7.0`` → 7, ``7.5`` →
    null) and within the signed 64-bit range. ``float``/``num`` fields are doubles; a text that
    overflows to infinity is null.
``date``
    ``YYYYMMDD``, ``YYYY-MM-DD`` or ``YYYY.MM.DD`` strings (surrounding whitespace allowed), or a
    JSON integer 10000101…99991231 read as ``YYYYMMDD``; year 0000 and impossible calendar dates
    are null.
``bool``
    JSON booleans; JSON integers 1 / 0; the strings ``true y yes 1`` / ``false n no 0``
    (ASCII case-insensitive, surrounding whitespace allowed).
``str``, enums and codes
    JSON strings as they are (no trimming); JSON integers → their decimal text; JSON doubles →
    the shortest round-trip text (Python ``repr``, e.g. ``3.0``, ``1e+20``). Enum membership and
    code patterns are *not* re-checked here (the checker checks pivots, backends check responses),
    so an unexpected member is still visible as text.
``[T]`` (lists)
    JSON arrays, kept as JSON text in DuckDB (elements as that JSON reads back); reducers never
    apply to lists.
``json``
    Any JSON value except null, kept as its *canonical JSON text*: ``orjson`` with sorted object
    keys (``OPT_SORT_KEYS``), compact, after orjson's own normalisation (NaN → null, a
    ``datetime.date`` → ISO text, a tuple → an array). Two json values are equal exactly when their
    canonical texts are equal: key order never matters (``{"a":1,"b":2}`` equals
    ``{"b":2,"a":1}``), but an integer and a float stay different (``1`` ≠ ``1.0``), so that a
    float such as ``3.0`` reads back as a float. :func:`coerce` returns the value as its canonical
    text reads back (an object → a ``dict``, ``3.0`` → ``3.0``, ``true`` → ``True``); the DuckDB
    column holds the text (:func:`json_text`) and every reader decodes it (:func:`decode_stored`).
    The canonical text is always made in Python: DuckDB can neither sort object keys nor write
    doubles the way orjson does (it writes ``1e+20`` as ``100000000000000000000.0``). The only
    reducer that applies to a json field is ``most_frequent`` (grouping and tie-breaking on the
    canonical text, code-point order).

Reducers (input order is always kept; the output is a sub-relation of the input)
--------------------------------------------------------------------------------
``max f`` / ``min f``: rows whose f equals the max / min non-null value (ties kept).
``where f >= p`` / ``<= p``: numeric comparison with the pivot (pivot text is read like a value,
as an integer when it has no decimal part); on an ``int`` field the comparison is exact
(``>= p`` is ``>= ceil(p)``). ``where f == v``: equality after coercing v to the field's type.
``where f after d``: strictly later date. ``most_frequent f``: rows whose f equals the most
frequent non-null value, ties going to the smallest value (text: code-point order). A pivot that
does not coerce is null and a null never satisfies a comparison, so such a step keeps nothing.

``where f != v``: rows whose non-null value differs from v coerced like ``==``'s pivot (a v that
does not coerce equals no value: every non-null row is kept). ``where f before d``: strictly
earlier date. ``where f in [v1, v2 …]``: rows whose value equals one of the elements, each
coerced like ``==``'s pivot (an element that does not coerce matches nothing; when none does,
nothing is kept). ``where f contains "t"`` / ``starts_with "t"`` (text, enum and code fields):
rows whose text holds t / begins with t, code points compared exactly (no case folding, no
normalisation; the empty text is in every text). ``top k f`` / ``bottom k f`` (numbers and
dates, ``1 <= k <=`` :data:`TOP_K_MAX`): rows whose non-null f ranks at most k from the largest /
smallest, a row's rank being 1 + the number of rows with a strictly larger / smaller value — so
every row tied at the boundary is kept (``top 2`` over 5, 4, 4, 3 keeps 5, 4, 4) and ``top 1 f``
keeps exactly the rows ``max f`` keeps; fewer than k non-null values keep them all.

Synthesis draws only the seven reducers that have :class:`SynthWords` (:data:`SYNTH_OPS`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from edgedsl.core.source import fast_frozen_init
from edgedsl.core.types import (
    STR,
    EnumType,
    FieldType,
    ListType,
    is_date,
    is_numeric,
    is_stringish,
    storage_kind,
)

from .coerce import (
    coerce,
    coerce_date,
    coerce_float,
    coerce_number,
    coercer,
    is_json,
    json_text,
    sql_type,
)
from .query import (
    Compare,
    CompareOp,
    Extreme,
    Filter,
    KeepNone,
    Member,
    Mode,
    Present,
    Rank,
    ReduceQuery,
)

__all__ = [
    "BY_SURFACE",
    "REDUCERS",
    "SYNTH_OPS",
    "TOP_K_MAX",
    "PivotKind",
    "ReduceStep",
    "Reducer",
    "SynthWords",
    "build_query",
    "check_step",
    "coerced_column",
    "synth_words",
]

Rows = Sequence[Mapping[str, Any]]
ColumnReference = Callable[[Sequence[Any], object, FieldType], list[int]]
FilterBuilder = Callable[[str, object, FieldType], Filter]
#: What a reducer's pivot is written as: none (``max f``), a number (``>= 3``), a date
#: (``after 2024-01-01``), a literal of the field's own type (``== "서울"``), a non-empty list of
#: such literals (``in ["서울", "부산"]``), a text (``contains "은행"``), or a count written
#: before the field (``top 3 f``: a whole number 1 … :data:`TOP_K_MAX`).
PivotKind = Literal["none", "number", "date", "field", "list", "text", "count"]
#: The largest ``k`` of ``top k`` / ``bottom k``.
TOP_K_MAX = 100


@dataclass(frozen=True, slots=True)
class ReduceStep:
    """One reducer applied to one field: ``ReduceStep("ge", "dealAmount", 100000)``."""

    op: str
    field: str
    pivot: object | None = None

    def __str__(self) -> str:
        r = REDUCERS.get(self.op)
        if r is None:
            return f"<unknown reducer {self.op!r}> {self.field}"
        return r.spell(self.field, None if self.pivot is None else repr(self.pivot))


fast_frozen_init(ReduceStep)  # made for every reducer of every compiled `drv`


@dataclass(frozen=True, slots=True)
class SynthWords:
    """How synthesis uses a reducer: the fields it narrows (``narrows``: a field of that type is
    narrowed with this reducer, in registry order), the word a binding is named after
    (``prices_top``), and the Korean word and phrase of a query, each for a non-date and a date
    field (``{subj}``: the field's label with its particle, ``{p}``: the pivot's text)."""

    narrows: Callable[[FieldType], bool]
    name: str
    word: tuple[str, str]
    phrase: tuple[str, str]


@dataclass(frozen=True, slots=True)
class Reducer:
    """A reducer, declared once: everything else about reducers is derived from this entry.

    ``surface`` is its spelling in source (``max f`` / ``where f >= p``); ``pivot`` the kind of
    pivot it takes (:data:`PivotKind`); ``accepts`` its static type rule and ``needs`` how the
    rule reads in a message; ``filter(field, pivot, ftype)`` the query filter it builds
    (:mod:`edgedsl.reduce.query`, rendered by :mod:`edgedsl.reduce.render`); ``compare`` the
    comparison a pivot is kept by (the pivot chooser sweeps by it); ``on_column(values, pivot,
    ftype)`` the pure-Python reference over a column coerced with :func:`coerced_column` (tests,
    :mod:`edgedsl.testing` and synthesis — never the runtime); ``synth`` its words in
    synthesis.
    """

    op: str
    surface: str
    pivot: PivotKind
    accepts: Callable[[FieldType], bool]
    needs: str
    filter: FilterBuilder
    on_column: ColumnReference
    doc: str
    synth: SynthWords | None
    compare: CompareOp | None = None

    @property
    def needs_pivot(self) -> bool:
        """True for the forms that take a pivot (``where f op p``, ``top k f``)."""
        return self.pivot != "none"

    @property
    def form(self) -> Literal["plain", "where", "count"]:
        """How it is written: ``max f`` (plain), ``where f op p`` or ``top k f`` (count)."""
        return "plain" if self.pivot == "none" else "count" if self.pivot == "count" else "where"

    def spell(self, field: str, pivot: str | None) -> str:
        """The step as source text, the field and the pivot's text given (the printer passes
        the formatted literal)."""
        if self.form == "plain":
            return f"{self.surface} {field}"
        if self.form == "count":
            return f"{self.surface} {pivot} {field}"
        return f"where {field} {self.surface} {pivot}"

    def reference(self, rows: Rows, field: str, pivot: object, ftype: FieldType) -> list[int]:
        """The indexes of the rows of ``rows`` this reducer keeps."""
        return self.on_column(coerced_column(rows, field, ftype), pivot, ftype)


def coerced_column(rows: Rows, field: str, ftype: FieldType) -> list[Any]:
    """Field ``field`` of every row, coerced as the reducers compare it (a json field as its
    canonical text, like the SQL column)."""
    if is_json(ftype):
        return [json_text(r.get(field)) for r in rows]
    fn = coercer(ftype)
    # a column repeats its texts (dates, codes, names): each distinct text is coerced once
    seen: dict[str, object] = {}
    out: list[Any] = []
    for r in rows:
        v = r.get(field)
        if type(v) is str:
            got = seen.get(v, seen)
            if got is seen:
                got = seen[v] = fn(v)
            out.append(got)
        else:
            out.append(fn(v))
    return out


# ---------------------------------------------------------------------------------------------
# Filters (the query each reducer builds) and references
# ---------------------------------------------------------------------------------------------


def _extreme(fn: Literal["max", "min"]) -> FilterBuilder:
    def build(field: str, pivot: object, ftype: FieldType) -> Filter:
        return Extreme(field, fn)

    return build


def _extreme_ref(pick: Callable[[Iterable[Any]], Any]) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        present = [v for v in vals if v is not None]
        if not present:
            return []
        best = pick(present)
        return [i for i, v in enumerate(vals) if v is not None and v == best]

    return ref


def _threshold_pivot(ftype: FieldType, pivot: object, upper: bool) -> int | float | None:
    """The pivot as the comparison runs it: a double, or an exact bound on an int field."""
    if storage_kind(ftype) != "integer":
        return coerce_float(pivot)
    p = coerce_number(pivot)
    if p is None:
        return None
    bound = math.ceil(p) if upper else math.floor(p)
    return max(-(2**64), min(2**64, bound))  # beyond every BIGINT: the answer is the same


def _threshold(op: Literal[">=", "<="]) -> FilterBuilder:
    def build(field: str, pivot: object, ftype: FieldType) -> Filter:
        p = _threshold_pivot(ftype, pivot, upper=op == ">=")
        if p is None:
            return KeepNone()
        return Compare(field, op, "HUGEINT" if storage_kind(ftype) == "integer" else "DOUBLE", p)

    return build


def _threshold_ref(ge: bool) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        p = coerce_number(pivot) if storage_kind(ftype) == "integer" else coerce_float(pivot)
        if p is None:
            return []
        return [i for i, v in enumerate(vals) if v is not None and (v >= p if ge else v <= p)]

    return ref


def _eq(field: str, pivot: object, ftype: FieldType) -> Filter:
    p = coerce(ftype, pivot)
    return KeepNone() if p is None else Compare(field, "=", sql_type(ftype), p)


def _eq_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce(ftype, pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(vals) if v is not None and v == p]


def _after(field: str, pivot: object, ftype: FieldType) -> Filter:
    p = coerce_date(pivot)
    return KeepNone() if p is None else Compare(field, ">", "DATE", p)


def _after_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce_date(pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(vals) if v is not None and v > p]


def _ne(field: str, pivot: object, ftype: FieldType) -> Filter:
    p = coerce(ftype, pivot)
    return Present(field) if p is None else Compare(field, "<>", sql_type(ftype), p)


def _ne_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce(ftype, pivot)
    return [i for i, v in enumerate(vals) if v is not None and (p is None or v != p)]


def _before(field: str, pivot: object, ftype: FieldType) -> Filter:
    p = coerce_date(pivot)
    return KeepNone() if p is None else Compare(field, "<", "DATE", p)


def _before_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    p = coerce_date(pivot)
    if p is None:
        return []
    return [i for i, v in enumerate(vals) if v is not None and v < p]


def _members(pivot: object, ftype: FieldType) -> list[Any]:
    """The elements of an ``in`` pivot that coerce to ``ftype``, each once, in order."""
    items = pivot if isinstance(pivot, list | tuple) else [pivot]
    out: list[Any] = []
    for item in items:
        v = coerce(ftype, item)
        if v is not None and not any(type(v) is type(o) and v == o for o in out):
            out.append(v)
    return out


def _in(field: str, pivot: object, ftype: FieldType) -> Filter:
    vals = _members(pivot, ftype)
    return Member(field, sql_type(ftype), tuple(vals)) if vals else KeepNone()


def _in_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    members = _members(pivot, ftype)
    return [i for i, v in enumerate(vals) if v is not None and v in members]


def _text(op: Literal["contains", "starts_with"]) -> FilterBuilder:
    def build(field: str, pivot: object, ftype: FieldType) -> Filter:
        p = coerce(STR, pivot)
        return KeepNone() if p is None else Compare(field, op, "VARCHAR", p)

    return build


def _text_ref(starts: bool) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        p = coerce(STR, pivot)
        if not isinstance(p, str):
            return []
        return [i for i, v in enumerate(vals)
                if isinstance(v, str) and (v.startswith(p) if starts else p in v)]

    return ref


def rank_k(pivot: object) -> int:
    """The ``k`` of ``top k`` / ``bottom k``; ValueError unless a whole number 1 …
    :data:`TOP_K_MAX`."""
    if isinstance(pivot, bool) or not isinstance(pivot, int) or not 1 <= pivot <= TOP_K_MAX:
        raise ValueError(f"`top` / `bottom` count rows by a whole number 1 … {TOP_K_MAX}, "
                         f"not {pivot!r}")
    return pivot


def _rank(fn: Literal["max", "min"]) -> FilterBuilder:
    def build(field: str, pivot: object, ftype: FieldType) -> Filter:
        return Rank(field, fn, rank_k(pivot))

    return build


def _rank_ref(top: bool) -> ColumnReference:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        k = rank_k(pivot)
        present = sorted((v for v in vals if v is not None), reverse=top)
        if not present:
            return []
        bound = present[min(k, len(present)) - 1]
        return [i for i, v in enumerate(vals)
                if v is not None and (v >= bound if top else v <= bound)]

    return ref


def _mode(field: str, pivot: object, ftype: FieldType) -> Filter:
    return Mode(field)


def _mf_ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    counts = Counter(v for v in vals if v is not None)
    if not counts:
        return []
    best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return [i for i, v in enumerate(vals) if v is not None and v == best]


# ---------------------------------------------------------------------------------------------
# Type rules
# ---------------------------------------------------------------------------------------------


def _orderable(t: FieldType) -> bool:
    return is_numeric(t) or is_date(t)


def _scalar(t: FieldType) -> bool:
    return not isinstance(t, ListType)


def _eq_accepts(t: FieldType) -> bool:
    return is_stringish(t) or is_numeric(t) or is_date(t) or storage_kind(t) == "bool"


def _synth_number(t: FieldType) -> bool:
    return _scalar(t) and is_numeric(t)


def _synth_orderable(t: FieldType) -> bool:
    return _scalar(t) and _orderable(t)


def _synth_date(t: FieldType) -> bool:
    return _scalar(t) and not is_numeric(t) and is_date(t)


def _synth_enum(t: FieldType) -> bool:
    return isinstance(t, EnumType) and not _orderable(t)


def _synth_other(t: FieldType) -> bool:
    return _scalar(t) and not _orderable(t) and not isinstance(t, EnumType)


# ---------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------

REDUCERS: dict[str, Reducer] = {
    r.op: r
    for r in (
        Reducer(
            "max", "max", "none", _orderable, "a number or date field", _extreme("max"),
            _extreme_ref(max), "rows whose field equals the maximum non-null value",
            SynthWords(_synth_orderable, "top", ("가장 큰", "가장 최근"),
                       ("{subj} 가장 큰", "{subj} 가장 최근인")),
        ),
        Reducer(
            "min", "min", "none", _orderable, "a number or date field", _extreme("min"),
            _extreme_ref(min), "rows whose field equals the minimum non-null value",
            SynthWords(_synth_orderable, "bottom", ("가장 작은", "가장 이른"),
                       ("{subj} 가장 작은", "{subj} 가장 이른")),
        ),
        Reducer(
            "ge", ">=", "number", is_numeric, "a numeric field", _threshold(">="),
            _threshold_ref(True), "rows whose number is at least the pivot",
            SynthWords(_synth_number, "big", ("이상", "이상"),
                       ("{subj} {p} 이상인", "{subj} {p} 이상인")),
            compare=">=",
        ),
        Reducer(
            "le", "<=", "number", is_numeric, "a numeric field", _threshold("<="),
            _threshold_ref(False), "rows whose number is at most the pivot",
            SynthWords(_synth_number, "small", ("이하", "이하"),
                       ("{subj} {p} 이하인", "{subj} {p} 이하인")),
            compare="<=",
        ),
        Reducer(
            "eq", "==", "field", _eq_accepts, "a scalar field", _eq, _eq_ref,
            "rows whose value equals the pivot after coercion",
            SynthWords(_synth_enum, "only", ("같은", "같은"), ("{subj} {p}인", "{subj} {p}인")),
            compare="=",
        ),
        Reducer(
            "after", "after", "date", is_date, "a date field", _after, _after_ref,
            "rows whose date is strictly later than the pivot",
            SynthWords(_synth_date, "recent", ("이후", "이후"),
                       ("{subj} {p} 이후인", "{subj} {p} 이후인")),
            compare=">",
        ),
        Reducer(
            "most_frequent", "most_frequent", "none", _scalar, "a scalar field", _mode, _mf_ref,
            "rows holding the most frequent non-null value (ties: smallest value)",
            SynthWords(_synth_other, "usual", ("가장 많은", "가장 많은"),
                       ("{subj} 가장 많이 나온", "{subj} 가장 많이 나온")),
        ),
        # ---- not drawn by synthesis (no SynthWords): the recipe keeps to the seven above
        Reducer(
            "ne", "!=", "field", _eq_accepts, "a scalar field", _ne, _ne_ref,
            "rows whose non-null value differs from the pivot after coercion", None,
            compare="<>",
        ),
        Reducer(
            "before", "before", "date", is_date, "a date field", _before, _before_ref,
            "rows whose date is strictly earlier than the pivot", None, compare="<",
        ),
        Reducer(
            "in", "in", "list", _eq_accepts, "a scalar field", _in, _in_ref,
            "rows whose value equals one of the list's elements after coercion", None,
            compare="=",
        ),
        Reducer(
            "contains", "contains", "text", is_stringish, "a text, enum or code field",
            _text("contains"), _text_ref(False), "rows whose text contains the pivot", None,
            compare="contains",
        ),
        Reducer(
            "starts_with", "starts_with", "text", is_stringish, "a text, enum or code field",
            _text("starts_with"), _text_ref(True), "rows whose text starts with the pivot",
            None, compare="starts_with",
        ),
        Reducer(
            "top", "top", "count", _orderable, "a number or date field", _rank("max"),
            _rank_ref(True), "rows among the k largest non-null values (boundary ties kept)",
            None,
        ),
        Reducer(
            "bottom", "bottom", "count", _orderable, "a number or date field", _rank("min"),
            _rank_ref(False), "rows among the k smallest non-null values (boundary ties kept)",
            None,
        ),
    )
}
"""Every reducer, by op name; synthesis tries those of :data:`SYNTH_OPS` in this order."""

SYNTH_OPS: tuple[str, ...] = tuple(op for op, r in REDUCERS.items() if r.synth is not None)
"""The reducers synthesis may draw (the recipe's seven): those with :class:`SynthWords`."""


def synth_words(op: str) -> SynthWords:
    """The synthesis words of reducer ``op``; ValueError for a reducer synthesis never draws."""
    words = REDUCERS[op].synth
    if words is None:
        raise ValueError(f"reducer {op!r} is not one synthesis draws ({', '.join(SYNTH_OPS)})")
    return words

BY_SURFACE: dict[str, Reducer] = {r.surface: r for r in REDUCERS.values()}
"""Every reducer by its spelling in source (``>=``, ``max`` …)."""


def check_step(step: ReduceStep, types: Mapping[str, FieldType]) -> Reducer:
    """Validate ``step`` against ``types`` and return its reducer; raise ValueError otherwise."""
    red = REDUCERS.get(step.op)
    if red is None:
        raise ValueError(f"unknown reducer {step.op!r}; expected one of {sorted(REDUCERS)}")
    if step.field not in types:
        raise ValueError(f"reducer `{red.surface}` on unknown field {step.field!r}")
    ftype = types[step.field]
    if not red.accepts(ftype):
        raise ValueError(f"reducer `{red.surface}` does not apply to {step.field!r}: {ftype}")
    if red.needs_pivot and step.pivot is None:
        raise ValueError(f"reducer `{red.surface}` needs a pivot")
    if red.pivot == "count":
        rank_k(step.pivot)
    if not red.needs_pivot and step.pivot is not None:
        raise ValueError(f"reducer `{red.surface}` takes no pivot")
    return red


def build_query(source: str | tuple[str, ...], steps: Sequence[ReduceStep],
                types: Mapping[str, FieldType]) -> ReduceQuery:
    """The typed query of ``steps`` over the shredded relation ``source`` (a name or a
    ``(schema, name)`` tuple, with one column per field and a ``__row`` input-order column);
    ValueError for a step :func:`check_step` refuses."""
    return ReduceQuery(source, tuple(
        check_step(s, types).filter(s.field, s.pivot, types[s.field]) for s in steps))
