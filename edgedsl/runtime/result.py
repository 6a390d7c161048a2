"""The result of running one trajectory: answer, ``say`` reply, trace and diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..core.diagnostics import Diagnostic
from .trace import Determinacy, Trace

__all__ = ["RunResult"]


@dataclass
class RunResult:
    """``ok`` is False when a step failed; ``trace`` then holds the steps that ran.

    ``relations`` holds the records of the relations a run was asked to keep (``keep=`` of
    :func:`~edgedsl.runtime.executor.run_trajectory`); it is never part of :meth:`to_json`.

    ``determinacy`` (a run that succeeded) says whether the answer is determined and, if not,
    why (:mod:`edgedsl.runtime.determinacy`); ``warnings`` holds its ``W006`` diagnostics and
    a ``W007`` for each call that read fewer records than the service reported —
    warnings, apart from ``diagnostics``, so they never make a run fail.
    """

    trajectory: str
    ok: bool
    answer: Any = None
    say: str | None = None
    trace: Trace | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    relations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    determinacy: Determinacy | None = None
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def determined(self) -> bool | None:
        """True when the answer is determined, False when not, None when the run failed."""
        return None if self.determinacy is None else self.determinacy.determined

    def to_json(self, *, with_trace: bool = False) -> dict[str, Any]:
        """``trajectory``, ``ok``, ``answer`` (+ ``say``, ``diagnostics``, ``trace`` if any;
        ``determined`` false with its ``causes`` for an undetermined answer; ``warnings`` when there
        are any: ``W006``, ``W007``)."""
        out: dict[str, Any] = {"trajectory": self.trajectory, "ok": self.ok,
                               "answer": self.answer}
        if self.say is not None:
            out["say"] = self.say
        if self.diagnostics:
            out["diagnostics"] = [d.to_json() for d in self.diagnostics]
        if self.determinacy is not None and not self.determinacy.determined:
            out["determined"] = False
            out["causes"] = [c.model_dump(mode="json", exclude_none=True)
                             for c in self.determinacy.causes]
        if self.warnings:
            out["warnings"] = [d.to_json() for d in self.warnings]
        if with_trace and self.trace is not None:
            out["trace"] = self.trace.model_dump(mode="json")
        return out

    def to_json_bytes(self, *, with_trace: bool = False) -> bytes:
        """:meth:`to_json` serialised with orjson (indented)."""
        return orjson.dumps(self.to_json(with_trace=with_trace), option=orjson.OPT_INDENT_2)
