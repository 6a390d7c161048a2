"""Benchmark: a ``drv`` reduction over a 224,958-record stored hand-off, DuckDB vs pure Python.

Builds the relation once in a DuckDB file, shredded into typed columns as the store keeps it, then
measures in the same process:

(a) ours — the ``drv`` over the stored relation: ``reduce`` (one ``CREATE TEMP TABLE … AS``,
    which reports its row count, in the reduction's ``"table"`` form — a scalar subquery for
    ``max``, as the executor runs a ``drv`` over a stored source; ``--inline-form`` measures
    the window form instead) + the kept rows' distinct hand-off values (one query);
    Beside it, the same predicates written by hand in one DuckDB query over the same typed
    table, and (when installed) polars over the same typed columns in memory;
(b) baseline — the same records as one JSON blob, parsed with orjson, coerced and reduced in pure
    Python (the reference implementations), then the distinct hand-off values;
(c) reduction overhead at the median hand-off (27 records): what a ``drv`` step costs in the
    executor — its source is a *pending* relation (the response's typed columns in memory, no
    table written: what the executor makes of a small fresh or stored response), and the step
    is :func:`~edgedsl.runtime.duck.select_relation` with that source, as ``drv_step`` calls it:
    one ``SELECT`` reading the source inline and fetching only the kept ``__row`` ids (on the
    scratch connection; the kept columns are taken from the source's) + the distinct hand-off
    values the next junction reads (from memory). A new source relation each time. "warm" is a
    ``drv`` run before in this process (its parsed statement cached: a replay, the next run of a
    plan), "cold" its first run (statement cache emptied each time); and warm again with
    For scale: ``SELECT 1`` on the same connection, and the ``Relation.reduce`` + ``distinct``
    API path (two statements on a written table);
(d) shredding 27 records: the python path against the SQL path.

Prints medians, ratios and each target's ratio, plus peak RSS; asserts nothing about time::

    python benchmarks/bench_drv.py [--runs 30] [--records 224958] [--inline-form]
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

from edgedsl.reduce.coerce import coerce
from edgedsl.reduce.registry import REDUCERS, ReduceStep, build_query
from edgedsl.reduce.render import Form
from edgedsl.runtime import duck
from edgedsl.runtime.duck import Relation, python_columns, scratch_cursor, select_relation, shred
from edgedsl.sqlquote import quote_ident
from edgedsl.types import DATE, INT, STR, EnumType, FieldType

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


#: The same reduction and hand-off written by hand over the same typed table: what a person
#: fluent in DuckDB would write for ``eq kind | ge dealAmount | max dealDate``, distinct aptNm.
HAND_SQL = (
    'WITH f AS (SELECT "aptNm", "dealDate", "__row" FROM handoff '
    'WHERE "kind" = \'A\' AND "dealAmount" >= 90000) '
    'SELECT "aptNm" FROM f WHERE "dealDate" = (SELECT max("dealDate") FROM f) '
    'AND "aptNm" IS NOT NULL GROUP BY "aptNm" ORDER BY min("__row")')


def polars_figure(con: duckdb.DuckDBPyConnection, runs: int) -> float | None:
    """The same reduction in polars over the typed columns held in memory (None when polars
    is not installed): the figure to beat."""
    try:
        import polars as pl
    except ImportError:
        return None
    names = ["__row", "kind", "dealAmount", "dealDate", "aptNm"]
    rows = con.execute(f"SELECT {', '.join(quote_ident(n) for n in names)} FROM handoff "
                       'ORDER BY "__row"').fetchall()
    df = pl.DataFrame({n: [r[i] for r in rows] for i, n in enumerate(names)})

    def run() -> list[Any]:
        f = df.filter((pl.col("kind") == "A") & (pl.col("dealAmount") >= 90000))
        f = f.filter(pl.col("dealDate") == f["dealDate"].max())
        return f.filter(pl.col("aptNm").is_not_null())["aptNm"].unique(
            maintain_order=True).to_list()

    run()
    return median_seconds(run, runs)


def python_baseline(blob: bytes) -> list[Any]:
    """Parse the JSON blob, reduce with the pure-Python reference, distinct hand-off values."""
    rows = orjson.loads(blob)
    for step in CHAIN:
        kept = REDUCERS[step.op].reference(rows, step.field, step.pivot, TYPES[step.field])
        rows = [rows[i] for i in kept]
    return list(dict.fromkeys(v for r in rows if (v := coerce(STR, r.get(HANDOFF))) is not None))


def target(label: str, ok: bool, detail: str) -> None:
    """One line comparing a figure with its target."""
    print(f"    target {label}: {detail} -> {'met' if ok else 'NOT met'}")


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--records", type=int, default=224_958)
    ap.add_argument("--inline-form", action="store_true",
                    help="reduce the stored relation with the window form of the "
                         "reduction, as before plan version 2")
    args = ap.parse_args()
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

        def ours() -> list[Any]:
            out = rel.reduce(CHAIN, form=form)
            values = out.distinct(HANDOFF)
            out.drop()
            return values

        def hand() -> list[Any]:
            return [r[0] for r in con.execute(HAND_SQL).fetchall()]

        assert ours() == python_baseline(blob) == hand(), "DuckDB and the Python baseline disagree"
        t_ours = median_seconds(ours, args.runs)
        t_hand = median_seconds(hand, args.runs)
        t_py = median_seconds(lambda: python_baseline(blob), max(3, args.runs // 3))
        t_pl = polars_figure(con, args.runs)
        print(f"(a) drv over {args.records:,} stored: reduce+distinct  "
              f"median {t_ours * 1e3:9.2f} ms  ({form} form)")
        print(f"    hand-written DuckDB query, same table     median {t_hand * 1e3:9.2f} ms")
        print(f"(b) orjson + pure-Python reduce            median {t_py * 1e3:9.2f} ms")
        if t_pl is not None:
            print(f"    polars, typed columns in memory         median {t_pl * 1e3:9.2f} ms  "
                  f"(edgedsl / polars = {t_ours / t_pl:.1f}x)")
        else:
            print("    polars: not installed")
        print(f"    speed-up (b)/(a): {t_py / t_ours:.1f}x   kept hand-off values: {len(ours())}")
        target(">= 50x faster than (b)", t_py / t_ours >= 50, f"{t_py / t_ours:.1f}x")
        target("<= 1.5x the hand-written query", t_ours / t_hand <= 1.5,
               f"(a)/hand = {t_ours / t_hand:.2f}x")
        con.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"    peak RSS so far (records in Python + DuckDB): {rss:.0f} MiB")

    small = make_records(27)
    mem = duckdb.connect()
    cols = python_columns(small, TYPES)  # as the executor materialises a small response
    query = build_query("handoff", CHAIN, TYPES)  # a plan's drv query over relation `handoff`

    def step() -> list[Any]:
        src = Relation(mem, "handoff", TYPES, len(small), columns=cols, pending=True)
        out = select_relation(mem, "kept", TYPES, query, form=duck.reduction_form(len(small)),
                              source=src)
        assert src.pending  # the source was not written
        return out.distinct(HANDOFF)

    def cold() -> list[Any]:
        duck._STATEMENTS.clear()
        duck._KEPT_TEXTS.clear()
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
    t_step = median_seconds(step, args.runs * 4)
    t_cold = median_seconds(cold, args.runs * 2)
    t_one = median_seconds(lambda: scratch.execute("SELECT 1").fetchall(), args.runs * 4)
    t_api = median_seconds(api, args.runs)
    t_tiny_py = median_seconds(lambda: python_baseline(small_blob), args.runs)
    for label, t in (("(c) 27 records: executor drv step, warm (reduce+distinct)", t_step),
                     ("    27 records: executor drv step, cold (parsed anew)", t_cold),
                     ("    SELECT 1 on the same connection", t_one),
                     ("    27 records: Relation.reduce+distinct+drop (2 stmts)", t_api),
                     ("    27 records: pure-Python", t_tiny_py)):
        print(f"{label:<58} median {t * 1e3:7.3f} ms")
    target("reduction overhead <= 6x SELECT 1", t_step / t_one <= 6,
           f"warm step / SELECT 1 = {t_step / t_one:.1f}x (cold {t_cold / t_one:.1f}x)")

    def shred_with(method: str) -> None:
        shred(mem, small, TYPES, method=method).drop()  # type: ignore[arg-type]

    t_py_path = median_seconds(lambda: shred_with("python"), args.runs)
    t_sql_path = median_seconds(lambda: shred_with("sql"), args.runs)
    print(f"(d) shred 27 records: python path median {t_py_path * 1e3:7.3f} ms, "
          f"SQL path {t_sql_path * 1e3:7.3f} ms  ({t_sql_path / t_py_path:.1f}x)")
    for n in (1_000, 20_000):
        recs = make_records(n)
        tp = median_seconds(lambda recs=recs: shred(mem, recs, TYPES, method="python").drop(), 3)
        ts = median_seconds(lambda recs=recs: shred(mem, recs, TYPES, method="sql").drop(), 3)
        print(f"    shred {n:,} records: python path {tp * 1e3:8.1f} ms, "
              f"SQL path {ts * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
