"""The suite's Hypothesis profiles and the choice between them.

- ``ci`` (200 examples per property): the full suite, and what ``.ci/run`` runs;
- ``fast`` (50): the fast tier (``pytest -m "not slow"``) for everyday work;
- ``long`` (5,000): opt-in fuzzing.

Hypothesis's own option ``--hypothesis-profile=name`` names the profile, or else
``EDGEDSL_PROFILE=name`` does (``.ci/run`` sets ``ci``). Otherwise a run whose ``-m`` expression
leaves the ``slow`` tests out is the fast tier and gets ``fast``; every other run gets ``ci``.

A property that pins its own count (``@settings(max_examples=N)``) passes it through
:func:`examples`, so that the fast tier scales it down with the profile while ``ci`` and
``long`` run exactly ``N`` as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, settings

CI_EXAMPLES = 200
FAST_EXAMPLES = 50
FLOOR = 10
"""The fewest examples :func:`examples` scales a pinned count down to."""

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=CI_EXAMPLES, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("fast", max_examples=FAST_EXAMPLES, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("long", max_examples=5000, **_COMMON)  # type: ignore[arg-type]


def choose(markexpr: str, env: Mapping[str, str]) -> str:
    """The profile of a run: ``EDGEDSL_PROFILE`` when set, else ``fast`` when the ``-m``
    expression ``markexpr`` leaves out a test marked ``slow`` (and nothing else), else ``ci``.

    The expression is evaluated by pytest's own ``-m`` evaluator; should that move, the
    answer is ``ci`` (the larger count, never less testing)."""
    named = env.get("EDGEDSL_PROFILE")
    if named:
        return named
    if not markexpr.strip():
        return "ci"
    try:
        from _pytest.mark.expression import Expression

        slow_selected = Expression.compile(markexpr).evaluate(lambda mark, **_: mark == "slow")
    except (ImportError, AttributeError, TypeError, SyntaxError, pytest.UsageError):
        return "ci"
    return "ci" if slow_selected else "fast"


def examples(pinned: int) -> int:
    """A property's own example count under the loaded profile: ``pinned`` under ``ci`` and
    ``long``; under a smaller profile, scaled by the same ratio (never below :data:`FLOOR`, nor
    above ``pinned``). Call it at import time, after the profile is loaded (conftest does that
    in ``pytest_configure``)."""
    current = settings.default.max_examples
    if current >= CI_EXAMPLES:
        return pinned
    return min(pinned, max(FLOOR, pinned * current // CI_EXAMPLES))
