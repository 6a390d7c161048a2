"""Shared pytest configuration: the Hypothesis profile of the run (:mod:`tests.profiles`:
``fast`` for the fast tier, ``ci`` for the full suite, ``long`` on request), the
``--update-goldens`` option (:mod:`tests.goldens`), and the fake chat endpoint as fixtures
(``llm_served``, ``fake``). ``tests`` is a package: shared helpers
import as ``tests.loopback``, ``tests.plan_fixtures`` and so on.

Two tiers: ``pytest -m "not slow"`` is the fast tier for everyday work (profile ``fast``); the
full suite (``.ci/run``) runs the ``slow`` tests too (profile ``ci``). ``EDGEDSL_PROFILE=name``
or Hypothesis's own ``--hypothesis-profile=name`` overrides the choice (``long`` for thousands of
cases per property).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from tests import profiles


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-goldens``: rewrite every golden file instead of comparing (``goldens.py``)."""
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite golden files instead of comparing them "
                          "(the same as EDGEDSL_UPDATE_GOLDENS=1)")


def pytest_configure(config: pytest.Config) -> None:
    """Load the run's Hypothesis profile (:func:`tests.profiles.choose`, before any test module
    is imported) and turn ``--update-goldens`` into ``EDGEDSL_UPDATE_GOLDENS=1`` (xdist workers
    are configured with the same options, so they see both)."""
    named = config.getoption("--hypothesis-profile", None)  # Hypothesis's own option wins
    settings.load_profile(named or profiles.choose(config.getoption("markexpr") or "",
                                                   os.environ))
    if config.getoption("--update-goldens"):
        os.environ["EDGEDSL_UPDATE_GOLDENS"] = "1"


def pytest_report_header(config: pytest.Config) -> str:
    """Name the Hypothesis profile in the run's header."""
    return f"hypothesis profile: {settings.get_current_profile_name()}"


@pytest.fixture(autouse=True)
def _forget_live_keys() -> Iterator[None]:
    """Keys a test's backends remember (edgedsl.runtime.redact) do not outlive the test: a later
    test on the same worker would see them masked in its own output."""
    yield
    from edgedsl.runtime import redact

    redact.forget_all()


@pytest.fixture(autouse=True)
def _no_unexpected_fallback(request: pytest.FixtureRequest) -> Iterator[None]:
    """A fast path that fails where the tables then succeed (a fallback of
    :mod:`edgedsl.runtime.relations`, recorded in the trace) fails the test that caused it in
    this process, unless the test is marked ``fallback`` (it forces one on purpose)."""
    mod = sys.modules.get("edgedsl.runtime.relations")
    before = None if mod is None else mod.unexpected_fallbacks()
    yield
    mod = sys.modules.get("edgedsl.runtime.relations")
    if mod is None or request.node.get_closest_marker("fallback") is not None:
        return
    made = mod.unexpected_fallbacks() - (before or 0)
    assert made == 0, f"{made} inline statement(s) failed where the tables succeeded " \
        "(see the trace's `fallbacks`): a fast path disagrees with the tables"


@pytest.fixture(scope="module")
def llm_served() -> Iterator[tuple[Any, str]]:
    """The fake OpenAI-compatible endpoint (``tests/recipe/graph/fake_llm.py``) served on
    127.0.0.1 for a module: the app and its base URL."""
    from tests.recipe.graph.fake_llm import FakeLLM, serve

    app = FakeLLM()
    with serve(app) as url:
        yield app, url


@pytest.fixture
def fake(llm_served: tuple[Any, str]) -> Iterator[Any]:
    """The module's fake endpoint, forgetting its script and requests around each test."""
    app = llm_served[0]
    app.reset()
    yield app
    app.reset()


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str]]:
    """Every ``(connection, SQL text)`` run through ``execute_cached`` during the test, by the
    policy (:mod:`edgedsl.runtime.relations`) or by :mod:`edgedsl.runtime.selection` (both names are
    patched)."""
    from edgedsl.runtime import relations, selection

    ran: list[tuple[Any, str]] = []
    real = selection.execute_cached

    def spy(con: Any, sql: str, params: Any = ()) -> Any:
        ran.append((con, sql))
        return real(con, sql, params)

    monkeypatch.setattr(selection, "execute_cached", spy)
    monkeypatch.setattr(relations, "execute_cached", spy)
    return ran
