"""Beta posteriors of edges: the prior centred on a score, evidence updates, the pruning test.

An edge's success rate ``p`` has a Beta(α, β) posterior. The prior is centred on the
feasibility score ``s`` with strength ``κ`` (α + β = κ): ``α = κ·s'``, ``β = κ·(1 − s')`` with
``s'`` = ``s`` clipped to [0.02, 0.98] so that both stay positive. A trial adds evidence
(:class:`Evidence`): a success adds ``success`` to α; a structural failure adds
``structural`` to β (strong: 2 by default); an environmental failure adds ``environmental`` to β
(none by default). An edge is pruned when ``P(p > θ) < δ`` and it has had at least ``n_min``
trials.

``P(p > θ)`` is ``1 − I_θ(α, β)``, the regularised incomplete beta function, evaluated by its
continued fraction (Lentz's method; the symmetry ``I_x(a, b) = 1 − I_{1−x}(b, a)`` keeps the
fraction in its fast-converging region). The standard library has no Beta CDF and SciPy would be
a heavy dependency for one function; the tests check it against the exact binomial identity
for integer parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Evidence", "PruneRule", "beta_cdf", "prior", "prob_above"]

_EPS = 3e-16
_TINY = 1e-300


def _cf(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """The Beta(a, b) CDF at ``x``: the regularised incomplete beta function I_x(a, b)."""
    if a <= 0 or b <= 0:
        raise ValueError("Beta parameters must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _cf(x, a, b) / a
    return 1.0 - front * _cf(1.0 - x, b, a) / b


def prob_above(theta: float, a: float, b: float) -> float:
    """P(p > θ) for p ~ Beta(a, b)."""
    return max(0.0, min(1.0, 1.0 - beta_cdf(theta, a, b)))


def prior(score: float, strength: float) -> tuple[float, float]:
    """``(α, β)`` of a Beta prior with mean ``score`` (clipped to [0.02, 0.98]) and α + β =
    ``strength``."""
    if strength <= 0:
        raise ValueError("prior strength must be positive")
    s = min(0.98, max(0.02, score))
    return strength * s, strength * (1.0 - s)


@dataclass(frozen=True)
class Evidence:
    """How much one trial moves an edge's posterior, by outcome."""

    success: float = 1.0
    structural: float = 2.0
    environmental: float = 0.0


@dataclass(frozen=True)
class PruneRule:
    """Prune when P(p > θ) < δ after at least ``n_min`` trials."""

    theta: float = 0.3
    delta: float = 0.1
    n_min: int = 3

    def prunes(self, alpha: float, beta: float, trials: int) -> bool:
        """True when an edge with this posterior and trial count is to be cut."""
        return trials >= self.n_min and prob_above(self.theta, alpha, beta) < self.delta
