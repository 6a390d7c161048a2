"""pass@k with the unbiased estimator, and bootstrap intervals over tasks.

For a task with ``n`` rollouts of which ``c`` passed, pass@k = 1 − C(n−c, k) / C(n, k) (the
probability that k rollouts drawn without replacement include a passing one; Chen et al.
2021), 1 when fewer than k rollouts failed; undefined for k > n. A run's pass@k is the mean
over tasks; its 95 % interval is the percentile bootstrap over tasks (tasks drawn with
replacement, ``resamples`` times, from a seeded generator: the same run gives the same
interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["bootstrap_interval", "pass_at_k"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of a task with ``n`` rollouts, ``c`` of them passing (ValueError
    when k is not in 1 … n or c not in 0 … n)."""
    if not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs 1 ≤ k ≤ n rollouts (n = {n})")
    if not 0 <= c <= n:
        raise ValueError(f"{c} passing rollouts out of {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def bootstrap_interval(values: Sequence[float], *, resamples: int = 2000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (per-task scores) at
    ``level``; ``(nan, nan)`` for no values."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    vals = np.asarray(values, dtype=float)
    means = vals[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    lo, hi = np.percentile(means, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])
    return (float(lo), float(hi))
