"""Benchmark: a ``drv`` over a large in-memory source, the way the executor runs it.

A fresh response becomes a *pending* relation (its typed columns in memory, no table written;
here coerced once, before timing); a ``drv`` over it is one statement reading it inline
(:func:`~edgedsl.runtime.selection.select_relation` with the source, as ``drv_step`` calls it) that
fetches the kept ``__row`` ids.
Three shapes from the world's chains, each a new source relation per run:

- ``corp_codes``: 22,671 DART filers (``corpCode.xml``), ``where corp_name == "…"``;
- ``week``: a week of KOSPI prices, 4,750 rows, ``max basDt | max fltRt``;
- ``bills``: 1,000 bills, ``most_frequent COMMITTEE``.

baseline — the policy before packing: the window form, every column bound as a Python list,
the run's own connection (optimizer on) above 1,000 rows (the scratch one below);
ours — :func:`~edgedsl.runtime.relations.reduction_form` (the table form above
``Settings.window_max_rows`` rows), large text/integer/date columns bound packed
(:mod:`edgedsl.runtime.bind`), the scratch connection. Also each change alone. Both keep the
same rows (checked). Prints medians and ratios; asserts nothing about time::

    python benchmarks/bench_inline.py [--runs 21] [--smoke]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import duckdb
from bench_drv import median_seconds  # benchmarks/ is the script's directory
from ratios import speedup

from edgedsl.core.types import DATE, FLOAT, STR, FieldType
from edgedsl.reduce.registry import ReduceStep, build_query
from edgedsl.reduce.render import Form
from edgedsl.runtime.bind import packing
from edgedsl.runtime.columns import python_columns
from edgedsl.runtime.duck import Relation
from edgedsl.runtime.relations import connection, inline_connection, reduction_form
from edgedsl.runtime.selection import select_relation

Case = tuple[str, list[dict[str, Any]], dict[str, FieldType], list[ReduceStep]]


def cases(seed: int = 0) -> list[Case]:
    """The three sources and chains (deterministic)."""
    rnd = random.Random(seed)
    corps = [{"corp_code": f"{i:08d}", "corp_name": f"회사{rnd.randrange(10**6)}",
              "stock_code": f"{rnd.randrange(10**6):06d}"} for i in range(22_671)]
    corps[12_345]["corp_name"] = "삼성전자"
    day0 = dt.date(2024, 12, 20)
    week = [{"basDt": (day0 + dt.timedelta(days=i // 950)).strftime("%Y%m%d"),
             "itmsNm": f"종목{i % 950}", "fltRt": f"{rnd.uniform(-30, 30):.2f}"}
            for i in range(4_750)]
    bills = [{"BILL_NO": str(2200000 + i), "COMMITTEE": f"위원회{rnd.randrange(17)}"}
             for i in range(1_000)]
    return [
        ("corp_codes", corps, {"corp_code": STR, "corp_name": STR, "stock_code": STR},
         [ReduceStep("eq", "corp_name", "삼성전자")]),
        ("week", week, {"basDt": DATE, "itmsNm": STR, "fltRt": FLOAT},
         [ReduceStep("max", "basDt"), ReduceStep("max", "fltRt")]),
        ("bills", bills, {"BILL_NO": STR, "COMMITTEE": STR},
         [ReduceStep("most_frequent", "COMMITTEE")]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--smoke", action="store_true",
                    help="one run per variant: the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        args.runs = 1
    con = duckdb.connect()
    print(f"{'source':<11} {'rows':>6}  {'baseline':>9}  {'+table form':>11}  {'+packed':>8}  "
          f"{'ours':>7}  ratio")
    for label, records, types, steps in cases():
        n = len(records)
        columns = python_columns(records, types)  # coerced once: the statement is measured

        def run(form: Form, packed: bool, scratch: bool,
                columns: dict[str, list[Any]] = columns, types: dict[str, FieldType] = types,
                steps: list[ReduceStep] = steps, n: int = n) -> list[int]:
            src = Relation(con, "src", types, n, pending=True, columns=columns)
            query = build_query("src", steps, types)
            window = query.has_window(form)
            on = connection(inline_connection(n, window=window), con) if scratch else con
            with packing(0 if packed else float("inf")):
                kept = select_relation(con, "kept", types, query, form=form, source=src,
                                       inline_on=on)
            assert kept._columns is not None
            return list(kept._columns["__row"])

        Way = tuple[Form, bool, bool]
        old: Way = ("window", False, n <= 1_000)
        new: Way = (reduction_form(n), True, True)
        variants: dict[str, Way] = {"baseline": old, "+table form": (new[0], False, True),
                    "+packed": ("window", True, n <= 1_000), "ours": new}
        kept = {k: run(*v) for k, v in variants.items()}
        assert len({tuple(v) for v in kept.values()}) == 1, f"{label}: the variants disagree"
        ms = {k: median_seconds(lambda v=v: run(*v), args.runs) * 1e3  # type: ignore[misc]
              for k, v in variants.items()}
        print(f"{label:<11} {n:>6}  {ms['baseline']:>7.2f}ms  {ms['+table form']:>9.2f}ms  "
              f"{ms['+packed']:>6.2f}ms  {ms['ours']:>5.2f}ms")
        speedup(f"inline drv over {label} ({n:,} rows) vs the policy before packing",
                ms["ours"] / 1e3, ms["baseline"] / 1e3,
                baseline_label="window form, unpacked lists")


if __name__ == "__main__":
    main()
