"""Dataset statistics of a corpus of task records, beside the recipe's published figures.

The quantities are exactly those the recipe reports (``REFERENCE.md``), computed from
:class:`~edgedsl.recipe.synth.record.TaskRecord` s (``docs/synth.md`` has the definitions):

* ``tasks``; calls per task: mean, median (the mean of the two middle values for an even
  count), max — a call is one executed tool call (a fan over 3 values is 3 calls);
* step buckets: the share of tasks with ≤ 3, 4–5 and ≥ 6 **calls**. The recipe says "steps", but
  its buckets match its calls (4.13 calls per task, median 4: 50.9% of tasks in 4–5), not its
  turns, so a step here is a call;
* turns per task, mean (a turn groups the calls that run together);
* the sequential and the parallel share of all calls (a call is parallel when its turn holds
  other calls), pooled over the corpus;
* the share of tasks of each structure type (all seven, zeros included);
* the share of one-to-many junctions: junctions whose hand-off cardinality exceeds 1, over all
  junctions of the corpus;
* hand-off cardinality median, p90 and max over all junctions; p90 is the **nearest-rank**
  percentile: the value at rank ⌈0.9·n⌉ of the n cardinalities sorted ascending;
* the share of tasks with at least one parallel call.

A quantity with an empty denominator (no tasks, no calls, no junctions) is ``None``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from .record import STRUCTURES, TaskRecord

__all__ = ["REFERENCE", "SynthStats", "corpus_stats", "nearest_rank", "render_stats"]

TRAIN = "training set"
BENCH = "KOPA-Bench"

REFERENCE: dict[str, tuple[float, str]] = {
    "tasks": (1781, TRAIN),
    "calls_mean": (4.13, TRAIN),
    "calls_median": (4, TRAIN),
    "calls_max": (36, TRAIN),
    "steps_le3": (0.423, TRAIN),
    "steps_4_5": (0.509, TRAIN),
    "steps_ge6": (0.067, TRAIN),
    "turns_mean": (3.32, BENCH),
    "sequential_share": (0.638, TRAIN),
    "parallel_share": (0.362, TRAIN),
    "structure.Seq": (0.121, TRAIN),
    "structure.Fan": (0.027, TRAIN),
    "structure.Drv": (0.197, TRAIN),
    "structure.Sem": (0.170, TRAIN),
    "structure.Cmp": (0.090, TRAIN),
    "structure.Cond": (0.028, TRAIN),
    "structure.Mixed": (0.367, TRAIN),
    "one_to_many_share": (0.812, BENCH),
    "cardinality_median": (27, BENCH),
    "cardinality_p90": (157, BENCH),
    "cardinality_max": (224958, BENCH),
    "parallel_task_share": (0.59, BENCH),
}
"""The recipe's figures, from ``REFERENCE.md`` (key → (value, where it was reported)): the
synthesized training set (EDGE phase B) where it reports the quantity, else the benchmark
(KOPA-Bench: per task 3.32 sequential steps, 59% of tasks with parallel calls; the "why
one-to-many hand-offs matter" table). Shares are fractions."""


class SynthStats(BaseModel):
    """The recipe's dataset statistics of one corpus (module docstring); shares are fractions."""

    model_config = ConfigDict(extra="forbid")
    tasks: int
    calls: int
    junctions: int
    calls_mean: float | None
    calls_median: float | None
    calls_max: int | None
    steps_le3: float | None
    steps_4_5: float | None
    steps_ge6: float | None
    turns_mean: float | None
    sequential_share: float | None
    parallel_share: float | None
    structures: dict[str, float | None]
    one_to_many_share: float | None
    cardinality_median: float | None
    cardinality_p90: int | None
    cardinality_max: int | None
    parallel_task_share: float | None


def nearest_rank(values: Sequence[int], q: float) -> int | None:
    """The nearest-rank ``q``-quantile (0 < q ≤ 1): the value at rank ⌈q·n⌉ of the sorted
    values (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _parallel_calls(rec: TaskRecord) -> int:
    sizes: dict[int, int] = {}
    for c in rec.calls:
        sizes[c.turn] = sizes.get(c.turn, 0) + 1
    return sum(k for k in sizes.values() if k > 1)


def corpus_stats(records: Sequence[TaskRecord]) -> SynthStats:
    """The statistics of ``records`` (see the module docstring for each definition)."""
    n = len(records)
    per_task = [len(r.calls) for r in records]
    calls = sum(per_task)
    par = [_parallel_calls(r) for r in records]
    cards = [j.cardinality for r in records for j in r.junctions]
    return SynthStats(
        tasks=n,
        calls=calls,
        junctions=len(cards),
        calls_mean=statistics.fmean(per_task) if n else None,
        calls_median=float(statistics.median(per_task)) if n else None,
        calls_max=max(per_task) if n else None,
        steps_le3=_share(sum(k <= 3 for k in per_task), n),
        steps_4_5=_share(sum(4 <= k <= 5 for k in per_task), n),
        steps_ge6=_share(sum(k >= 6 for k in per_task), n),
        turns_mean=statistics.fmean([r.turns for r in records]) if n else None,
        sequential_share=_share(calls - sum(par), calls),
        parallel_share=_share(sum(par), calls),
        structures={s: _share(sum(r.structure == s for r in records), n) for s in STRUCTURES},
        one_to_many_share=_share(sum(c > 1 for c in cards), len(cards)),
        cardinality_median=float(statistics.median(cards)) if cards else None,
        cardinality_p90=nearest_rank(cards, 0.9),
        cardinality_max=max(cards) if cards else None,
        parallel_task_share=_share(sum(k > 0 for k in par), n),
    )


_ROWS: list[tuple[str, str, str]] = [
    # (label, key in REFERENCE / SynthStats, format: share | mean | median | int)
    ("tasks", "tasks", "int"),
    ("calls per task, mean", "calls_mean", "mean"),
    ("calls per task, median", "calls_median", "median"),
    ("calls per task, max", "calls_max", "int"),
    ("tasks with ≤ 3 calls", "steps_le3", "share"),
    ("tasks with 4–5 calls", "steps_4_5", "share"),
    ("tasks with ≥ 6 calls", "steps_ge6", "share"),
    ("turns per task, mean", "turns_mean", "mean"),
    ("sequential calls", "sequential_share", "share"),
    ("parallel calls", "parallel_share", "share"),
    *[(f"structure {s}", f"structure.{s}", "share")
      for s in ("Mixed", "Drv", "Sem", "Seq", "Cmp", "Cond", "Fan")],
    ("one-to-many junctions", "one_to_many_share", "share"),
    ("hand-off cardinality, median", "cardinality_median", "median"),
    ("hand-off cardinality, p90", "cardinality_p90", "int"),
    ("hand-off cardinality, max", "cardinality_max", "int"),
    ("tasks with parallel calls", "parallel_task_share", "share"),
]


def _value(stats: SynthStats, key: str) -> float | None:
    if key.startswith("structure."):
        return stats.structures.get(key.removeprefix("structure."))
    got = getattr(stats, key)
    return None if got is None else float(got)


def _fmt(v: float | None, kind: str) -> str:
    if v is None:
        return "—"
    if kind == "share":
        return f"{v * 100:.1f}%"
    if kind == "int" or (kind == "median" and v == int(v)):
        return f"{v:,.0f}"
    return f"{v:.1f}" if kind == "median" else f"{v:.2f}"


def _diff(v: float | None, ref: float, kind: str) -> str:
    if v is None:
        return "—"
    d = v - ref
    if kind == "share":
        return f"{d * 100:+.1f} pp"
    if kind == "int" or (kind == "median" and d == int(d)):
        return f"{d:+,.0f}"
    return f"{d:+.1f}" if kind == "median" else f"{d:+.2f}"


def render_stats(stats: SynthStats) -> str:
    """A plain-text table: each quantity, the recipe's figure (:data:`REFERENCE`), the
    difference (percentage points for shares) and where the figure was reported."""
    head = ("quantity", "this corpus", "recipe", "difference", "reported for")
    rows = [head]
    for label, key, kind in _ROWS:
        ref, where = REFERENCE[key]
        v = _value(stats, key)
        rows.append((label, _fmt(v, kind), _fmt(ref, kind), _diff(v, ref, kind), where))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = []
    for i, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:4], widths[1:4],
                                                                     strict=True)), r[4]]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(f"({stats.calls} calls, {stats.junctions} junctions; a step is a call; p90 is "
                 "the nearest-rank percentile)")
    return "\n".join(lines)
