"""Beta posteriors: the CDF against the exact binomial identity, priors, the prune rule."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.graph.beta import PruneRule, beta_cdf, prior, prob_above


def _binomial_cdf(x: float, a: int, b: int) -> float:
    """I_x(a, b) for integers: P(Binomial(a + b − 1, x) ≥ a)."""
    n = a + b - 1
    return sum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1))


@given(st.integers(1, 40), st.integers(1, 40), st.floats(0.001, 0.999))
def test_cdf_matches_the_binomial_identity(a: int, b: int, x: float) -> None:
    assert beta_cdf(x, a, b) == pytest.approx(_binomial_cdf(x, a, b), abs=1e-9)


@given(st.floats(0.05, 50), st.floats(0.05, 50), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_cdf_is_monotone_and_bounded(a: float, b: float, x: float, y: float) -> None:
    lo, hi = sorted((x, y))
    assert 0.0 <= beta_cdf(lo, a, b) <= beta_cdf(hi, a, b) + 1e-12 <= 1.0 + 1e-12


def test_known_values() -> None:
    assert beta_cdf(0.5, 1, 1) == pytest.approx(0.5)
    assert beta_cdf(0.5, 2, 2) == pytest.approx(0.5)
    assert beta_cdf(0.25, 2, 3) == pytest.approx(0.26171875)  # 1 − (1−x)^4 − 4x(1−x)^3
    assert beta_cdf(0.0, 2, 3) == 0.0 and beta_cdf(1.0, 2, 3) == 1.0
    with pytest.raises(ValueError):
        beta_cdf(0.5, 0, 1)


@given(st.floats(0.0, 1.0), st.floats(0.5, 100))
def test_prior_is_centred_on_the_score(score: float, strength: float) -> None:
    a, b = prior(score, strength)
    assert a > 0 and b > 0
    assert a + b == pytest.approx(strength)
    assert a / (a + b) == pytest.approx(min(0.98, max(0.02, score)))


def test_prune_rule_needs_trials_and_low_probability() -> None:
    rule = PruneRule(theta=0.3, delta=0.1, n_min=3)
    a, b = prior(0.5, 4.0)
    assert not rule.prunes(a, b + 20, trials=2)  # too few trials, however bad
    assert rule.prunes(a, b + 20, trials=10)
    assert not rule.prunes(a + 10, b, trials=10)  # mostly successes
    assert prob_above(0.3, a, b + 20) < 0.1 < prob_above(0.3, a + 10, b)
