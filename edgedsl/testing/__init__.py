"""Property-testing helpers for edgedsl users: Hypothesis strategies and differential checks.

Test your own reducer chain against the reference semantics in a few lines::

    from hypothesis import given
    from edgedsl.reduce.registry import ReduceStep
    from edgedsl.testing import check_reducer_chain, relations
    from edgedsl.core.types import DATE, INT, STR

    TYPES = {"dealAmount": INT, "rcept_dt": DATE, "report_nm": STR}
    CHAIN = [ReduceStep("ge", "dealAmount", "100,000원"), ReduceStep("max", "rcept_dt")]

    @given(relations(TYPES, max_size=30))
    def test_latest_big_deal(rows):
        check_reducer_chain(rows, CHAIN, TYPES)   # DuckDB and the reference must agree

Random chains too: ``@given(reducer_cases())`` draws ``(types, rows, steps)`` with hostile field
names, ties, nulls, numbers written as ``"1,999원"``, three date formats and Korean text.

The strategies produce *raw* values, as a public API would return them; the coercion rules they
exercise are documented in :mod:`edgedsl.reduce.registry`.

A whole trajectory, on in-process tools, against the reference interpreter
(:mod:`edgedsl.testing.reference`)::

    from hypothesis import given, strategies as st
    from edgedsl.testing import check_trajectory, records
    from edgedsl.core.types import DATE, INT, RecordType, FieldSpec

    DEAL = RecordType("Deal", (FieldSpec("dealAmount", INT), FieldSpec("dealDate", DATE)))
    SOURCE = '''
    platform realty { record Deal { dealAmount: int
                                   dealDate: date }
                      tool deals (LAWD_CD: str) -> [Deal] }
    trajectory big "가장 큰 거래는?" {
      deals = realty.deals(LAWD_CD: "11680")
      top = drv deals | where dealAmount >= 100000 | max dealDate
      answer { amount: max(top.dealAmount), n: count(deals) }
    }
    '''

    @given(st.lists(records(DEAL), max_size=40))
    def test_big_deal(rows):
        check_trajectory(SOURCE, {"realty.deals": lambda **kw: rows})
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import duckdb
from hypothesis import strategies as st

from edgedsl.core.source import Source
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
from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import REDUCERS, ReduceStep, build_query, check_step
from edgedsl.reduce.render import Form, render
from edgedsl.runtime import relations as _placement
from edgedsl.runtime.bind import packing
from edgedsl.runtime.columns import RESERVED_COLUMNS, python_columns
from edgedsl.runtime.duck import Relation
from edgedsl.runtime.perturb import same_answer
from edgedsl.runtime.selection import select_relation
from edgedsl.runtime.shred import shred

__all__ = [
    "HOSTILE_NAMES",
    "HOSTILE_TEXT",
    "check_coercion",
    "check_reducer_chain",
    "check_trajectory",
    "field_type_maps",
    "field_types_pool",
    "hostile_names",
    "records",
    "reduce_steps",
    "reducer_cases",
    "reference_reduce",
    "relations",
    "values",
]

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
    min_size: int = 0,
    max_size: int = 20,
) -> list[dict[str, Any]]:
    """Relations (lists of raw records) with deliberate ties: values come from small pools."""
    types = _types_of(spec)
    pools = {f: draw(st.lists(values(t), min_size=1, max_size=4)) for f, t in types.items()}
    n = draw(st.integers(min_size, max_size))
    rows: list[dict[str, Any]] = []
    for _ in range(n):
        row: dict[str, Any] = {}
        for f, t in types.items():
            how = draw(st.integers(0, 9))
            if how == 0:
                continue  # missing
            row[f] = draw(values(t)) if how == 1 else draw(st.sampled_from(pools[f]))
        rows.append(row)
    return rows


@st.composite
def reduce_steps(
    draw: st.DrawFn,
    field_types: Mapping[str, FieldType],
    rows: Sequence[Mapping[str, Any]] = (),
    min_steps: int = 1,
    max_steps: int = 3,
) -> list[ReduceStep]:
    """Random reducer chains respecting the type rules; pivots often taken from ``rows``."""
    ops = {op: [f for f, t in field_types.items() if r.accepts(t)] for op, r in REDUCERS.items()}
    ops = {op: fs for op, fs in ops.items() if fs}
    if not ops:
        return []
    steps = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        op = draw(st.sampled_from(sorted(ops)))  # the op first, so that rare types get exercised
        field = draw(st.sampled_from(ops[op]))
        pivot = None
        if REDUCERS[op].needs_pivot:
            ftype = field_types[field]
            seen = [r[field] for r in rows if r.get(field) is not None]
            choices = [values(ftype).filter(lambda v: v is not None)]
            if seen:
                choices += [st.sampled_from(seen)] * 3
            if op == "eq" and storage_kind(ftype) == "text":
                choices.append(st.sampled_from(HOSTILE_TEXT))
            pivot = draw(st.one_of(choices))
        steps.append(ReduceStep(op, field, pivot))
    return steps


@st.composite
def reducer_cases(
    draw: st.DrawFn,
    field_types: Mapping[str, FieldType] | None = None,
    max_size: int = 20,
) -> tuple[dict[str, FieldType], list[dict[str, Any]], list[ReduceStep]]:
    """``(types, rows, steps)``: random (or given) field types, a relation and a chain over it."""
    types = dict(field_types) if field_types is not None else draw(field_type_maps())
    rows = draw(relations(types, max_size=max_size))
    return types, rows, draw(reduce_steps(types, rows))


def reference_reduce(
    rows: Sequence[Mapping[str, Any]], steps: Sequence[ReduceStep], types: Mapping[str, FieldType]
) -> list[int]:
    """Indexes of the rows a chain keeps, by the pure-Python reference implementations."""
    idx = list(range(len(rows)))
    for step in steps:
        red = check_step(step, types)
        kept = red.reference([rows[i] for i in idx], step.field, step.pivot, types[step.field])
        idx = [idx[k] for k in kept]
    return idx


_local = threading.local()


def _shared_connection() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB connection per thread (connecting costs ~30 ms)."""
    con = getattr(_local, "con", None)
    if con is None:
        con = _local.con = duckdb.connect()
    return con


def _table(
    rows: Sequence[Mapping[str, Any]],
    fields: Sequence[str],
    types: Mapping[str, FieldType],
    mark: set[int],
    other: set[int],
) -> str:
    lines = []
    for i, r in enumerate(rows):
        cells = ", ".join(f"{f}={r.get(f)!r}→{coerce(types[f], r.get(f))!r}" for f in fields)
        flag = ("R" if i in mark else "-") + ("D" if i in other else "-")
        lines.append(f"  [{i:>3}] {flag} {cells}")
    return "\n".join(lines[:60]) + ("\n  …" if len(lines) > 60 else "")


def check_reducer_chain(
    rows: Sequence[Mapping[str, Any]],
    steps: Sequence[ReduceStep],
    types: Mapping[str, FieldType],
    con: duckdb.DuckDBPyConnection | None = None,
) -> list[int]:
    """Run a chain in DuckDB (shred + reduce) and by the reference; raise AssertionError on a diff.

    Returns the kept row indexes. The error message lists the steps, the SQL, both results and
    every row's raw → coerced values (flags: R = kept by reference, D = kept by DuckDB).
    """
    con = con or _shared_connection()
    want = reference_reduce(rows, steps, types)
    for method, form, got in _duckdb_kept(con, rows, steps, types):
        if got == want:
            continue
        query = build_query("relation", steps, types)
        sql, params = render(query, form), query.params()
        fields = list(dict.fromkeys(s.field for s in steps))
        raise AssertionError(
            f"DuckDB ({method}, {form} form) and the reference disagree\n"
            f"steps: {' | '.join(map(str, steps))}\n"
            f"types: { {f: str(types[f]) for f in fields} }\n"
            f"reference kept: {want}\nduckdb kept:    {got}\n"
            f"sql:\n{sql}\nparams: {params!r}\nrows:\n"
            + _table(rows, fields, types, set(want), set(got))
        )
    return want


def _duckdb_kept(
    con: duckdb.DuckDBPyConnection,
    rows: Sequence[Mapping[str, Any]],
    steps: Sequence[ReduceStep],
    types: Mapping[str, FieldType],
) -> Iterator[tuple[str, Form, list[int]]]:
    """``(path, form, kept row ids)`` of the chain run every way the runtime may run it, each
    in both of the reduction's forms: a written table from either shredding path (SQL coercion
    for large responses, Python coercion for small ones), and an in-memory relation read inline
    by the ``drv`` step's statement, its columns bound as lists or packed into texts."""
    forms: tuple[Form, ...] = ("window", "table")
    for method in ("sql", "python"):
        rel = shred(con, rows, types, method=method)
        try:
            for form in forms:
                out = rel.reduce(steps, form=form)
                try:
                    got = out.row_ids()
                finally:
                    out.drop()
                yield f"{method} shredding", form, got
        finally:
            rel.drop()
    cols = python_columns(rows, types)
    for packed in (False, True):
        for form in forms:
            src = Relation(con, "relation", types, len(rows), columns=cols, pending=True)
            query = build_query("relation", steps, types)
            on = _placement.inline_connection(len(rows), window=query.has_window(form))
            with packing(0 if packed else float("inf")):
                kept = select_relation(con, "kept", types, query, form=form, source=src,
                                       inline_on=_placement.connection(on, con))
            assert kept._columns is not None
            yield f"inline read ({'packed' if packed else 'lists'})", form, \
                list(kept._columns["__row"])


def check_coercion(
    rows: Sequence[Mapping[str, Any]],
    types: Mapping[str, FieldType],
    con: duckdb.DuckDBPyConnection | None = None,
) -> None:
    """Check that shredding coerces every field exactly like
    :func:`edgedsl.reduce.coerce.coerce`."""
    con = con or _shared_connection()
    for method in ("sql", "python"):
        _check_coercion_path(con, rows, types, method)


def _check_coercion_path(
    con: duckdb.DuckDBPyConnection,
    rows: Sequence[Mapping[str, Any]],
    types: Mapping[str, FieldType],
    method: Any,
) -> None:
    rel = shred(con, rows, types, method=method)
    try:
        for f, t in types.items():
            got = rel.column(f)
            want = [coerce(t, r.get(f)) for r in rows]
            bad = [
                (i, rows[i].get(f), w, g)
                for i, (w, g) in enumerate(zip(want, got, strict=True))
                if (type(w), w) != (type(g), g)
            ]
            if bad:
                detail = "\n".join(
                    f"  [{i}] raw={r!r} reference={w!r} duckdb={g!r}" for i, r, w, g in bad
                )
                raise AssertionError(
                    f"coercion of field {f!r} ({t}) disagrees on the {method} path:\n{detail}"
                )
    finally:
        rel.drop()


# ---------------------------------------------------------------------------------------------
# Trajectory checks on the python backend


def check_trajectory(
    source: str | Path,
    tools: Mapping[str, Callable[..., Any]],
    *,
    trajectory: str | None = None,
    name: str = "<test>.edge",
    search_paths: Sequence[Path] = (),
    phi: int = 5,
    max_pages: int = 100,
    require_determined: bool = False,
    tie_break: Literal["smallest", "largest"] = "smallest",
) -> dict[str, Any]:
    """Run trajectories on the ``python`` backend and by the reference semantics; compare.

    ``source`` is edgedsl text or a path to an ``.edge`` file; ``tools`` maps ``platform.tool``
    to plain callables (as for ``edgedsl run --tools``). Both the real executor (plan, DuckDB,
    concurrency) and the pure-Python reference interpreter (:mod:`edgedsl.testing.reference`) run
    every trajectory (or only ``trajectory``). They must agree: the same answer (numbers within a
    relative 1e-9), or the same structural failure code (R501 no value at a junction, R502 too
    many values, R506 page bound, R507 multi-valued field in arithmetic) — and the same
    determinacy facts: each reduction's ties (values sharing the top count of a
    ``most_frequent``, rows at a ``max`` / ``min``), whether each call read its whole result,
    and whether the answer is determined. With ``require_determined``, an answer that is not
    determined (a ``most_frequent`` tie-break or a partial read reaches it, see
    :mod:`edgedsl.runtime.determinacy`) fails with the executor's ``W006`` messages.
    ``tie_break`` runs both sides with that policy. Raises AssertionError with both sides
    otherwise; returns trajectory name → answer.
    """
    from ..api import check
    from ..plan.compile import compile_program
    from ..runtime.executor import run_plan_sync
    from ..runtime.python_backend import PythonBackend
    from .reference import ReferenceFailure, reference_runs

    src: Any = Path(source) if isinstance(source, Path) else Source(name, source)
    program = check(src, search_paths=search_paths, phi=phi).program
    plan = compile_program(program)
    be = PythonBackend(dict(tools))
    if trajectory is None:
        results = run_plan_sync(plan, be, phi=phi, max_pages=max_pages, tie_break=tie_break)
    else:
        results = run_plan_sync(plan, be, trajectory=trajectory, phi=phi,
                                max_pages=max_pages, tie_break=tie_break)
    expected = reference_runs(program, tools, trajectory=trajectory, max_pages=max_pages,
                              tie_break=tie_break)
    out: dict[str, Any] = {}
    for res in results:
        want = expected[res.trajectory]
        if isinstance(want, ReferenceFailure):
            codes = [d.code for d in res.diagnostics]
            if res.ok or want.code not in codes:
                raise AssertionError(
                    f"trajectory `{res.trajectory}`: the reference fails with {want} but the "
                    f"executor {'succeeded with ' + repr(res.answer) if res.ok else codes}"
                )
            out[res.trajectory] = want
            continue
        if not res.ok:
            msgs = "; ".join(f"{d.code} {d.message}" for d in res.diagnostics)
            raise AssertionError(
                f"trajectory `{res.trajectory}`: the executor failed ({msgs}) but the reference "
                f"answers {want.answer!r}"
            )
        if not same_answer(res.answer, want.answer):
            raise AssertionError(
                f"trajectory `{res.trajectory}`: answers differ\n"
                f"  executor:  {res.answer!r}\n  reference: {want.answer!r}"
            )
        _check_facts(res, want.run)
        if require_determined and not res.determined:
            msgs = "; ".join(d.message for d in res.warnings)
            raise AssertionError(f"trajectory `{res.trajectory}`: {msgs}")
        out[res.trajectory] = res.answer
    return out


def _check_facts(res: Any, ref: Any) -> None:
    """The executor's determinacy facts (trace) against the reference's; AssertionError."""
    assert res.trace is not None
    ties: dict[str, list[tuple[str, str, int]]] = {}
    complete: dict[str, bool | None] = {}
    for step in res.trace.steps:
        rel = step.relation or step.id
        if step.ties:
            ties[rel] = [(t.op, t.field, t.tied) for t in step.ties]
        if step.kind in ("call", "compare"):
            complete[rel] = step.complete
    sides = [("ties", ties, ref.ties), ("complete reads", complete, ref.complete),
             ("determined", res.determined, ref.determined())]
    for what, mine, theirs in sides:
        if mine != theirs:
            raise AssertionError(f"trajectory `{res.trajectory}`: {what} differ\n"
                                 f"  executor:  {mine!r}\n  reference: {theirs!r}")
