"""Stateful suite tools on the python backend: calls kept in the gold order, refusals as data.

edgedsl runs calls that do not depend on each other concurrently; a suite whose tools change a
shared state (τ²'s database) needs them in the gold order. An :class:`Environment` counts the
calls it has completed; every tool record carries that count as ``step``, and every call after
the first takes ``after``, the ``step`` of the call before it in the gold (written as the
reference ``after: seq prev.step``, so the plan orders the calls). A call whose ``after`` is not
the environment's count is refused with :class:`OrderError` (a failed step, never a silent
reorder). A refusal the suite itself makes (its tool raising, e.g. "Order not found") is part of
the gold trajectory: it comes back as the record's ``error`` text, as the suite hands it to its
agent, and the step count still advances.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["ORDER_PARAM", "STEP_FIELD", "Environment", "OrderError", "ToolError"]

STEP_FIELD = "step"
"""The field of every stateful tool's record: calls the environment has completed."""
ORDER_PARAM = "after"
"""The parameter of every stateful tool: the ``step`` of the call before it (absent: first)."""


class ToolError(Exception):
    """A refusal of the suite's own tool (wrong id, status not allowed, …): data, not a bug."""


class OrderError(RuntimeError):
    """A call arrived out of the gold order (its ``after`` is not the completed calls)."""


class Environment:
    """A suite's state and the count of calls made on it; :meth:`tool` wraps one operation."""

    def __init__(self) -> None:
        self.steps = 0
        self._lock = threading.Lock()

    def tool(self, fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        """``fn(**args)`` (returning the record's own fields) as a python-backend tool: takes
        ``after``, checks the order, turns a :class:`ToolError` into ``error``, adds ``step``."""

        def call(**kwargs: Any) -> dict[str, Any]:
            after = kwargs.pop(ORDER_PARAM, None)
            with self._lock:
                expected = self.steps
                if (after or 0) != expected or (after is None and expected):
                    raise OrderError(f"`{fn.__name__}` came after call {after}, but the "
                                     f"environment has completed {expected} calls")
                try:
                    out, error = fn(**kwargs), None
                except ToolError as exc:
                    out, error = {}, str(exc)
                self.steps += 1
                return {**out, STEP_FIELD: self.steps, "error": error}

        call.__name__ = fn.__name__
        call.__doc__ = fn.__doc__
        return call
