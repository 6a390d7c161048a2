"""Benchmark: a ``drv`` reduction over a 224,958-record stored hand-off, DuckDB vs pure Python.

Builds the relation once in a DuckDB file, shredded into typed columns as the store keeps it, then
measures in the same process:

(a) ours — the ``drv`` over the stored relation as the executor runs it when a junction reads
    the kept rows (:func:`~edgedsl.runtime.relations.reduce_stored`): one statement in the
    reduction's ``"table"`` form (a scalar subquery for ``max``) counting the kept rows and
    reading their distinct hand-off values; the kept rows stay deferred (no table written). Also
    printed:
    the path before it, ``Relation.reduce`` (one ``CREATE TEMP TABLE … AS``) + the distinct
    hand-off values (a second query) + ``DROP`` (``--inline-form``: in the window form);
(b) baseline — the same records as one JSON blob, parsed with orjson, coerced and reduced in pure
    Python (the reference implementations), then the distinct hand-off values;
(c) reduction overhead at the median hand-off (27 records): what a ``drv`` step costs in the
    executor — its source is a *pending* relation (the response's typed columns in memory, no
    table written: what the executor makes of a small fresh or stored response), and the step
    is :func:`~edgedsl.runtime.selection.select_relation` with that source, as ``drv_step`` calls
    it: one ``SELECT`` reading the source inline and fetching only the kept ``__row`` ids (on
    the scratch connection; the kept columns are taken from the source's) + the distinct hand-off
    values the next junction reads (from memory). A new source relation each time. "warm" is a
    ``drv`` run before in this process (its parsed statement cached: a replay, the next run of a
    plan), "cold" its first run (statement cache emptied each time).
    For scale: ``SELECT 1`` on the same connection, the warm step's statement alone (executed
    as the step executes it, its parameters already built: what DuckDB costs without the
    Python around it; the README's "bound of the reduction overhead" says why the ≤ 6× target
    is not met on a quiet machine), and the ``Relation.reduce`` + ``distinct`` API path (two
    statements on a written table);
(d) shredding 27 records: the python path against the SQL path;
(e) shredding all the records into typed columns against polars reading and coercing them
    (the SQL path: one ``orjson.dumps`` per thread of the connection, each slice read by
    DuckDB's ``read_json_objects`` as an in-memory file — each record's text its ``__raw`` —
    its declared fields' texts and JSON types read over the list of their pointers, each text
    matched once, the slices in parallel into a staged table whose ``rowid`` becomes
    ``__row``; below 50,000 records one array in one statement).
    One run each on 2026-12-02 at load 8.5–10, the tree before the SQL path's rewrite (47d7fa7)
    and after (5188861), one after the other: 3.59 s / 0.388 s = 9.3× before, 1.64 s / 0.324 s
    = 5.1× after; peak RSS of the whole run 668 → 561 MiB. With one array read natively
    (s19-shred; the tree before it, 8f6d7ec, and after run alternately in one window, load
    10.9–12.3, median of 5): 2.19 s / 0.340 s = 6.4× and 2.47 s / 0.286 s = 8.6× before,
    1.18 s / 0.318 s = 3.7× and 1.20 s / 0.356 s = 3.4× after; in CPU time 6.8–7.0× before,
    3.4–3.6× after (target ≤ 2×, not met; the README says what bounds it). This benchmark's
    own run at load 11–12: 1.04 s / 0.302 s = 3.45×; peak RSS of the whole run 494 MiB.
    Second pass (s19-shred, a buffer's size read without copying it; one parse per record,
    ``read_json`` with JSON columns and 2 threads tried and not kept — the README says why):
    CPU time in one process, load 3.1, best of 9, four rounds: 281–308 ms / 97–98 ms =
    2.9–3.2×; this benchmark's own run at load 3–4: 0.706 s / 0.207 s = 3.41× (wall), peak
    RSS of the whole run 522 MiB. Still above 2×.
    Third pass (s28-shred, 2026-12-03: each date spelling read by its own exact reader,
    ``try_strptime`` or the ISO cast): CPU time in one process, the tree before and after
    alternating, four rounds, load 10.6: 565 / 156 ms = 3.63× before, 420 / 156 ms = 2.70×
    after. The README's "Shredding, third pass" measures the bound: without any coercion the
    design already costs ~1.8× polars (dumps, dict check, scan, two parses, write).
    Fourth pass (s37-shred, 2026-12-04): the statement ran on one thread because of ``WITH
    ORDINALITY``, not of the parses; two arrays scanned in parallel and numbered afterwards, no
    ``dict`` check (the statement refuses a non-object): three runs at load 0.3–0.8, wall,
    153.5 / 86.6 ms = 1.77×, 169.1 / 86.1 ms = 1.96×, 149.9 / 81.2 ms = 1.84× (target ≤ 2×,
    met); one array against two alternating in one process: 211–242 against 141–169 ms.

(a) is also compared with the same predicates written by hand in DuckDB over the same typed
table and, when polars is installed (the ``bench`` extra), with polars in memory: the figure to
beat; ours, the path before it and the hand-written query run alternately, run by run. Prints
both sides of every ratio and its target (``benchmarks/ratios.py``), plus peak RSS;
asserts nothing about time::

    python benchmarks/bench_drv.py [--runs 30] [--records 224958] [--inline-form] [--smoke]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratios import alternating_medians, cost, speedup

from edgedsl.core.types import DATE, INT, STR, EnumType, FieldType
from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import REDUCERS, ReduceStep, build_query
from edgedsl.reduce.render import Form
from edgedsl.runtime import selection
from edgedsl.runtime.columns import python_columns
from edgedsl.runtime.duck import Relation
from edgedsl.runtime.relations import (
    connection,
    inline_connection,
    reduce_stored,
    reduction_form,
    scratch_cursor,
)
from edgedsl.runtime.selection import run_selection, select_relation
from edgedsl.runtime.shred import shred

try:  # the figure to beat, when installed (the optional `bench` extra)
    import polars as pl
except ImportError:  # pragma: no cover - polars is optional
    pl = None

TYPES: dict[str, FieldType] = {
    "dealAmount": INT,
    "dealDate": DATE,
    "aptNm": STR,
    "sggCd": STR,
    "kind": EnumType(("A", "B", "C")),
}
CHAIN = [
    ReduceStep("eq", "kind", "A"),
    ReduceStep("ge", "dealAmount", "90,000"),
    ReduceStep("max", "dealDate"),
]
HANDOFF = "aptNm"


def make_records(n: int) -> list[dict[str, Any]]:
    """Deterministic apartment-trade-like records with string numbers and mixed date formats."""
    out = []
    for i in range(n):
        amount = (i * 7919) % 120_000
        y, m, d = 2015 + i % 10, 1 + (i // 7) % 12, 1 + (i // 3) % 28
        date = (f"{y}{m:02d}{d:02d}", f"{y}-{m:02d}-{d:02d}", f"{y}.{m:02d}.{d:02d}")[i % 3]
        out.append(
            {
                "dealAmount": f"{amount:,}" if i % 2 else amount,
                "dealDate": date,
                "aptNm": f"래미안{i % 5003}",
                "sggCd": f"{11110 + i % 25 * 10}",
                "kind": "ABC"[i % 3],
                "floor": i % 30,
            }
        )
    return out


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of ``fn`` over ``runs`` runs (one warm-up run first)."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def python_baseline(blob: bytes) -> list[Any]:
    """Parse the JSON blob, reduce with the pure-Python reference, distinct hand-off values."""
    rows = orjson.loads(blob)
    for step in CHAIN:
        kept = REDUCERS[step.op].reference(rows, step.field, step.pivot, TYPES[step.field])
        rows = [rows[i] for i in kept]
    return list(dict.fromkeys(v for r in rows if (v := coerce(STR, r.get(HANDOFF))) is not None))


# the same predicates as CHAIN, written by hand over the same typed table: the rows with
# kind = 'A' and dealAmount >= 90,000 that have the latest dealDate among them, their distinct
# hand-off values in input order
HAND_SQL = """
WITH f AS (SELECT "__row", "aptNm", "dealDate" FROM handoff
           WHERE "kind" = 'A' AND "dealAmount" >= 90000)
SELECT "aptNm" FROM f
WHERE "dealDate" = (SELECT max("dealDate") FROM f) AND "aptNm" IS NOT NULL
GROUP BY "aptNm" ORDER BY min("__row")
"""


def hand_written(con: duckdb.DuckDBPyConnection) -> list[Any]:
    """The hand-written DuckDB query of the same predicates, on the same typed table."""
    return [r[0] for r in con.execute(HAND_SQL).fetchall()]


def polars_frame(records: list[dict[str, Any]]) -> Any:
    """Polars reading the same records and coercing them to the same types (the shredding
    baseline): numbers with thousands separators, dates in three spellings, the enum."""
    assert pl is not None
    df = pl.from_dicts(records, schema=dict.fromkeys(TYPES, pl.String), strict=False)
    return df.with_columns(
        pl.col("dealAmount").str.replace_all(",", "").cast(pl.Int64, strict=False),
        pl.col("dealDate").str.replace_all(r"[-.]", "").str.strptime(pl.Date, "%Y%m%d",
                                                                     strict=False),
        pl.col("kind").cast(pl.Enum(["A", "B", "C"]), strict=False),
    )


def polars_drv(df: Any) -> list[Any]:
    """The same reduction in polars, in memory: filter, keep the latest date, distinct."""
    assert pl is not None
    f = df.filter((pl.col("kind") == "A") & (pl.col("dealAmount") >= 90_000))
    kept = f.filter(pl.col("dealDate") == pl.col("dealDate").max())
    return list(kept["aptNm"].drop_nulls().unique(maintain_order=True).to_list())


def _forget_statements() -> None:
    """Empty the memos of parsed statements and statement texts (a cold ``drv``)."""
    for memo in (selection._statement, selection._kept_text):
        memo.cache_clear()


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--records", type=int, default=224_958)
    ap.add_argument("--inline-form", action="store_true",
                    help="reduce the stored relation with the window form of the "
                         "reduction, as before plan version 2")
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size (2,000 records, 3 runs): the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        args.records, args.runs = 2_000, 3
    form: Form = "window" if args.inline_form else "table"

    records = make_records(args.records)
    blob = orjson.dumps(records)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "store.duckdb")
        t = time.perf_counter()
        with duckdb.connect(path) as con:
            shred(con, records, TYPES, name="handoff")
        took = time.perf_counter() - t
        print(f"shred {args.records:,} records into a DuckDB file: {took:.3f} s (once)")

        con = duckdb.connect(path, read_only=True)
        rel = Relation.from_table(con, "handoff", TYPES)

        stored_query = build_query("handoff", CHAIN, TYPES)

        def ours() -> list[Any]:
            out, _, _ = reduce_stored(con, "kept", TYPES, stored_query, HANDOFF)
            values = out.distinct(HANDOFF)
            out.drop()
            return values

        def written() -> list[Any]:
            out = rel.reduce(CHAIN, form=form)
            values = out.distinct(HANDOFF)
            out.drop()
            return values

        assert ours() == written() == python_baseline(blob) == hand_written(con), (
            "DuckDB, the hand-written query and the Python baseline disagree")
        # the three DuckDB sides alternate run by run (their ratios are the figures that count)
        t = alternating_medians({"ours": ours, "written": written,
                                 "hand": lambda: hand_written(con)}, args.runs)
        t_ours, t_written, t_hand = t["ours"], t["written"], t["hand"]
        t_py = median_seconds(lambda: python_baseline(blob), max(3, args.runs // 3))
        print(f"(a) drv over {args.records:,} stored: one counting statement, deferred  "
              f"median {t_ours * 1e3:9.2f} ms; kept hand-off values: {len(ours())}")
        print(f"    before: CREATE TEMP TABLE ({form} form) + distinct + DROP  "
              f"median {t_written * 1e3:9.2f} ms")
        name = f"drv over {args.records:,} stored"
        speedup(f"{name} vs orjson + pure Python", t_ours, t_py, at_least=50,
                baseline_label="orjson + pure-Python reference")
        cost(f"{name} vs hand-written DuckDB query", t_ours, t_hand, at_most=1.5,
             baseline_label="hand-written SQL, same typed table")
        cost(f"{name} before (written kept table, {form} form) vs hand-written DuckDB query",
             t_written, t_hand, baseline_label="hand-written SQL, same typed table")
        if pl is not None:
            frame = polars_frame(records)
            assert polars_drv(frame) == ours(), "polars and edgedsl disagree"
            t_pl = median_seconds(lambda: polars_drv(frame), args.runs)
            cost(f"{name} vs polars in memory (the figure to beat)", t_ours, t_pl,
                 baseline_label=f"polars {pl.__version__}")
        else:
            print("    polars is not installed (pip install -e '.[bench]'): no polars figure")
        con.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"    peak RSS so far (records in Python + DuckDB): {rss:.0f} MiB")

    small = make_records(27)
    mem = duckdb.connect()
    cols = python_columns(small, TYPES)  # as the executor materialises a small response
    query = build_query("handoff", CHAIN, TYPES)  # a plan's drv query over relation `handoff`
    small_form = reduction_form(len(small))  # form and connection as the executor chooses them
    small_on = connection(inline_connection(len(small), window=query.has_window(small_form)),
                          mem)

    def step() -> list[Any]:
        src = Relation(mem, "handoff", TYPES, len(small), columns=cols, pending=True)
        out = select_relation(mem, "kept", TYPES, query, form=small_form, source=src,
                              inline_on=small_on)  # as the executor runs it
        assert src.pending  # the source was not written
        return out.distinct(HANDOFF)

    def cold() -> list[Any]:
        _forget_statements()
        return step()

    base = shred(mem, small, TYPES)

    def api() -> list[Any]:
        out = base.reduce(CHAIN)
        values = out.distinct(HANDOFF)
        out.drop()
        return values

    scratch = scratch_cursor()
    small_blob = orjson.dumps(small)
    assert step() == cold() == api() == python_baseline(small_blob)
    # the warm step's own statement, run as the step runs it, its parameters already built:
    # what DuckDB costs, without the Python around it (the README's bound of line c)
    ran = run_selection(mem, "kept", TYPES, query, form=small_form, inline_on=small_on,
                        source=Relation(mem, "handoff", TYPES, len(small), columns=cols,
                                        pending=True))
    parsed = selection._statement(ran.sql)

    def statement() -> list[Any]:
        return small_on.execute(parsed, ran.params).fetchall()

    assert parsed is not None and len(statement()) == len(ran.relation)
    t_step = median_seconds(step, args.runs * 4)
    t_stmt = median_seconds(statement, args.runs * 4)
    t_cold = median_seconds(cold, args.runs * 2)
    t_one = median_seconds(lambda: scratch.execute("SELECT 1").fetchall(), args.runs * 4)
    t_api = median_seconds(api, args.runs)
    t_tiny_py = median_seconds(lambda: python_baseline(small_blob), args.runs)
    for label, t in (("(c) 27 records: executor drv step, warm (reduce+distinct)", t_step),
                     ("    27 records: executor drv step, cold (parsed anew)", t_cold),
                     ("    27 records: its statement alone (parameters built)", t_stmt),
                     ("    SELECT 1 on the same connection", t_one),
                     ("    27 records: Relation.reduce+distinct+drop (2 stmts)", t_api),
                     ("    27 records: pure-Python", t_tiny_py)):
        print(f"{label:<58} median {t * 1e3:7.3f} ms")
    cost("reduction overhead at 27 records (warm drv step) vs SELECT 1", t_step, t_one,
         at_most=6, baseline_label="SELECT 1, same connection")
    cost("reduction overhead at 27 records (cold drv step) vs SELECT 1", t_cold, t_one,
         baseline_label="SELECT 1, same connection")
    cost("reduction overhead at 27 records (the warm step's statement alone) vs SELECT 1",
         t_stmt, t_one, baseline_label="SELECT 1, same connection")

    def shred_with(method: str) -> None:
        shred(mem, small, TYPES, method=method).drop()  # type: ignore[arg-type]

    t_py_path = median_seconds(lambda: shred_with("python"), args.runs)
    t_sql_path = median_seconds(lambda: shred_with("sql"), args.runs)
    print(f"(d) shred 27 records: python path median {t_py_path * 1e3:7.3f} ms, "
          f"SQL path {t_sql_path * 1e3:7.3f} ms  ({t_sql_path / t_py_path:.1f}x)")
    for n in () if args.smoke else (1_000, 20_000):
        recs = make_records(n)
        tp = median_seconds(lambda recs=recs: shred(mem, recs, TYPES, method="python").drop(), 3)
        ts = median_seconds(lambda recs=recs: shred(mem, recs, TYPES, method="sql").drop(), 3)
        print(f"    shred {n:,} records: python path {tp * 1e3:8.1f} ms, "
              f"SQL path {ts * 1e3:8.1f} ms")
    if pl is None:
        print("(e) polars is not installed: no shredding ratio")
        return
    # (e) shredding every record into typed columns, against polars reading and coercing them
    t_shred = median_seconds(lambda: shred(mem, records, TYPES).drop(), 3)
    t_pl_read = median_seconds(lambda: polars_frame(records), 3)
    cost(f"shred {args.records:,} records into typed columns vs polars", t_shred, t_pl_read,
         at_most=2, baseline_label=f"polars {pl.__version__} from_dicts + coercion")

if __name__ == "__main__":
    main()
