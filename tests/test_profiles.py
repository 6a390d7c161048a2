"""The Hypothesis profile of a run (:mod:`tests.profiles`): ``fast`` for the fast tier, ``ci``
for the full suite, a named one on request; and pinned example counts scaled with it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.profiles import CI_EXAMPLES, FAST_EXAMPLES, FLOOR, choose, examples


@pytest.mark.parametrize(("markexpr", "want"), [
    ("not slow", "fast"),
    ("not slow and not fallback", "fast"),
    ("fallback", "fast"),
    ("", "ci"),
    ("slow", "ci"),
    ("slow or fallback", "ci"),
    ("not fallback", "ci"),
])
def test_the_tier_chooses_the_profile(markexpr: str, want: str) -> None:
    assert choose(markexpr, {}) == want


def test_a_named_profile_wins() -> None:
    assert choose("not slow", {"EDGEDSL_PROFILE": "long"}) == "long"
    assert choose("", {"EDGEDSL_PROFILE": "fast"}) == "fast"
    assert choose("not slow", {"EDGEDSL_PROFILE": ""}) == "fast"  # empty: not set


def test_this_run_loaded_the_chosen_profile(pytestconfig: pytest.Config) -> None:
    named = pytestconfig.getoption("--hypothesis-profile", None)
    want = named or choose(pytestconfig.getoption("markexpr") or "", os.environ)
    assert settings.get_current_profile_name() == want


@pytest.fixture
def profile() -> Iterator[None]:
    """Restore the run's profile after a test loads another."""
    name = settings.get_current_profile_name()
    yield
    settings.load_profile(name)


@pytest.mark.usefixtures("profile")
def test_pinned_counts_scale_down_only_under_a_smaller_profile() -> None:
    settings.load_profile("ci")
    assert settings.default.max_examples == CI_EXAMPLES
    assert [examples(n) for n in (5, 15, 40, 300)] == [5, 15, 40, 300]
    settings.load_profile("long")
    assert [examples(n) for n in (5, 15, 40, 300)] == [5, 15, 40, 300]
    settings.load_profile("fast")
    assert settings.default.max_examples == FAST_EXAMPLES
    assert [examples(n) for n in (5, 15, 40, 300)] == [5, FLOOR, FLOOR, 75]
