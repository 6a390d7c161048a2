"""Shared pytest configuration: Hypothesis profiles ``ci`` (default) and ``long``.

Select the long profile with ``EDGEDSL_PROFILE=long``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("EDGEDSL_PROFILE", "ci"))
