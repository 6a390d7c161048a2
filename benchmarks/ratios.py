"""The one way a benchmark reports a figure: both sides, measured in the same process and run, and
their ratio, against the issue's target when it has one (never a lone absolute time).

Each ratio prints as one line starting with ``RATIO``::

    RATIO drv 224,958 stored vs orjson + pure Python | ours 9.1 ms | baseline 690 ms | 75.8x
      (baseline / ours) | target >= 50x: met

and, when the environment names a file in ``EDGEDSL_BENCH_RATIOS``, is appended to it as one
JSON line (``benchmarks/run_all.py`` collects them into one markdown table).

Two directions: :func:`speedup` is ``baseline / ours`` (how many times faster we are; targets
are "at least"), :func:`cost` is ``ours / baseline`` (how many times the reference we take;
targets are "at most").
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Literal

ENV = "EDGEDSL_BENCH_RATIOS"

Direction = Literal["speedup", "cost"]


@dataclass(frozen=True)
class Ratio:
    """One figure: our side, the baseline's, the ratio and its target (``None``: none set)."""

    name: str
    ours: float
    baseline: float
    unit: str
    direction: Direction
    target: float | None
    baseline_label: str = ""

    @property
    def value(self) -> float:
        """``baseline / ours`` for a speed-up, ``ours / baseline`` for a cost."""
        num, den = ((self.baseline, self.ours) if self.direction == "speedup"
                    else (self.ours, self.baseline))
        return num / den if den else float("inf")

    @property
    def met(self) -> bool | None:
        """Whether the target is met (``None`` when there is none)."""
        if self.target is None:
            return None
        return self.value >= self.target if self.direction == "speedup" else (
            self.value <= self.target)

    def target_text(self) -> str:
        """``>= 50x`` or ``<= 1.5x``, or ``-`` without a target."""
        if self.target is None:
            return "-"
        return f"{'>=' if self.direction == 'speedup' else '<='} {self.target:g}x"

    def line(self) -> str:
        """The one printed line."""
        word = "(baseline / ours)" if self.direction == "speedup" else "(ours / baseline)"
        label = f" ({self.baseline_label})" if self.baseline_label else ""
        verdict = "" if self.met is None else (
            f" | target {self.target_text()}: {'met' if self.met else 'NOT met'}")
        return (f"RATIO {self.name} | ours {_fmt(self.ours, self.unit)} | baseline{label} "
                f"{_fmt(self.baseline, self.unit)} | {self.value:.2f}x {word}{verdict}")


def _fmt(x: float, unit: str) -> str:
    if unit == "s":
        return f"{x * 1e3:.3f} ms" if x < 1 else f"{x:.3f} s"
    return f"{x:.4g} {unit}"


def _emit(r: Ratio) -> Ratio:
    print(r.line(), flush=True)
    path = os.environ.get(ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({**asdict(r), "value": r.value, "met": r.met}) + "\n")
    return r


def speedup(name: str, ours: float, baseline: float, *, at_least: float | None = None,
            unit: str = "s", baseline_label: str = "") -> Ratio:
    """Report ``baseline / ours`` (times, lower is better on each side), target ``at_least``."""
    return _emit(Ratio(name, ours, baseline, unit, "speedup", at_least, baseline_label))


def cost(name: str, ours: float, baseline: float, *, at_most: float | None = None,
         unit: str = "s", baseline_label: str = "") -> Ratio:
    """Report ``ours / baseline`` (times, lower is better on each side), target ``at_most``."""
    return _emit(Ratio(name, ours, baseline, unit, "cost", at_most, baseline_label))


def alternating_medians(sides: Mapping[str, Callable[[], object]], rounds: int
                        ) -> dict[str, float]:
    """The median wall time of each side over ``rounds`` rounds, the sides run one after the
    other in every round (after one warm-up round): a change in the machine's load then weighs
    on every side alike, where timing one side's runs and then the other's compares two
    different moments of a shared VM."""
    for fn in sides.values():
        fn()
    times: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(rounds):
        for k, fn in sides.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}
