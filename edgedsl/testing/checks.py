"""Differential checks: reducer chains, coercion and whole trajectories against the reference
semantics (see :mod:`edgedsl.testing`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import duckdb

from edgedsl.core.source import Source
from edgedsl.core.types import (
    FieldType,
)
from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import ReduceStep, build_query, check_step
from edgedsl.reduce.render import Form, render
from edgedsl.runtime import relations as _placement
from edgedsl.runtime.bind import packing
from edgedsl.runtime.columns import python_columns
from edgedsl.runtime.duck import Relation
from edgedsl.runtime.perturb import same_answer
from edgedsl.runtime.selection import select_relation
from edgedsl.runtime.shred import shred


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
    *,
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
    *,
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

    ``source`` is edgedsl text or a path to an ``.edge`` file — a :class:`~pathlib.Path`, or a
    ``str`` of one line ending in ``.edge`` (which must name an existing file:
    FileNotFoundError otherwise, never read as source text); ``tools`` maps ``platform.tool``
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

    src: Any = Path(source) if isinstance(source, Path) or _names_a_file(source) \
        else Source(name, source)
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


def _names_a_file(source: str | Path) -> bool:
    """True when ``source`` is a path (a one-line ``str`` ending in ``.edge``); such a path
    that names no file is a FileNotFoundError rather than text that fails to parse."""
    if not isinstance(source, str) or "\n" in source or not source.strip().endswith(".edge"):
        return False
    if not Path(source.strip()).is_file():
        raise FileNotFoundError(f"check_trajectory: no .edge file at {source.strip()!r}")
    return True


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
