"""Shared pytest configuration: Hypothesis profiles ``ci`` (default) and ``long``, and the
``tests/`` directory importable from every test directory (shared helpers such as
``loopback``).

Select the long profile with ``EDGEDSL_PROFILE=long``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("EDGEDSL_PROFILE", "ci"))

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
