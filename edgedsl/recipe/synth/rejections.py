"""The vocabulary of the synthesis filters: stages, rejection reasons and the report.

Every filter stage (:mod:`edgedsl.recipe.synth.filters`: ``rules``, ``static``; the re-solve,
:mod:`edgedsl.recipe.synth.resolve` and :mod:`edgedsl.recipe.synth.meaning`: ``resolve``; the
corpus run: ``corpus``) names why it drops a trajectory with a :data:`Rejection`, found by the
stage :data:`STAGE_OF` says, and counts it in a :class:`FilterReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["REJECTIONS", "STAGE_OF", "FilterReport", "Rejection", "Stage"]

Stage = Literal["rules", "static", "resolve", "corpus"]
Rejection = Literal[
    "format", "leak", "ungradable",                                        # rules
    "query_mismatch", "unused_step", "tool_incoherent", "model_rejected",  # static
    "implausible", "odd_narrowing", "internal_input",
    "restated_input",                                                      # rules
    "decorative", "resolve_mismatch", "resolve_failed",                    # resolve (execution)
    "perturbed_tie_break", "perturbed_page_size", "perturbed_pages_all",   # resolve (perturbed)
    "noop_drv", "tie_drv", "distinct_mf", "decorative_if", "page_if",      # resolve: meaning
    "page_answer", "round_trip", "undetermined",
    "duplicate",                                                           # corpus
]
REJECTIONS: tuple[Rejection, ...] = get_args(Rejection)
"""Every rejection reason, in stage order."""

STAGE_OF: dict[Rejection, Stage] = {
    "format": "rules", "leak": "rules", "ungradable": "rules",
    "query_mismatch": "static", "unused_step": "static", "tool_incoherent": "static",
    "model_rejected": "static", "implausible": "static", "odd_narrowing": "static",
    "internal_input": "static", "restated_input": "rules",
    "decorative": "resolve", "resolve_mismatch": "resolve", "resolve_failed": "resolve",
    "perturbed_tie_break": "resolve", "perturbed_page_size": "resolve",
    "perturbed_pages_all": "resolve",
    "noop_drv": "resolve", "tie_drv": "resolve", "distinct_mf": "resolve",
    "decorative_if": "resolve", "page_if": "resolve", "page_answer": "resolve",
    "round_trip": "resolve",
    "undetermined": "resolve", "duplicate": "corpus",
}
"""The stage that finds each reason. ``decorative`` (a call that changes nothing) needs
execution, so it runs with the re-solve; ``resolve_mismatch`` is a re-solve that gives another
answer, ``resolve_failed`` one that does not compile or run; ``perturbed_*`` an answer that the
perturbation check (:func:`edgedsl.recipe.synth.resolve.resolve`) changed by the opposite
``most_frequent`` tie-break, half the page size, or ``pages all`` where the limit was
implicit. The rules of meaningful programs (``noop_drv`` … ``round_trip``,
:mod:`edgedsl.recipe.synth.meaning`) and ``undetermined`` (the run's determinacy facts:
:func:`edgedsl.runtime.determinacy.determinacy`) read the run, before the re-solve;
``duplicate`` (a program identical to one accepted before) is found by the run over the whole
corpus (stage ``corpus``). ``implausible`` is a chain an analyst would not run
(:mod:`edgedsl.recipe.synth.plausible`: the answer asks only for codes, a count after a hand-off
carrying no entity, the entity dropped before the answer, a group of unrelated services).
``odd_narrowing`` (a ``drv`` over a field no question narrows by) and ``internal_input`` (a query
input that is the service's internal code) are plausibility findings with a reason of their own;
``restated_input`` (an answer that repeats a value the query states) is the rule of
:mod:`edgedsl.recipe.synth.knowable`."""


# ----------------------------------------------------------------------------- the report


class FilterReport(BaseModel):
    """What the filters did: trajectories checked and dropped per stage, rejections per stage
    and reason (a trajectory may have several reasons), model fallbacks, and notes."""

    model_config = ConfigDict(extra="forbid")
    checked: dict[Stage, int] = Field(default_factory=dict)
    dropped: dict[Stage, int] = Field(default_factory=dict)
    rejections: dict[Stage, dict[Rejection, int]] = Field(default_factory=dict)
    model_fallbacks: int = 0
    notes: list[str] = Field(default_factory=list)

    def record(self, stage: Stage, reasons: Sequence[Rejection], *, name: str = "") -> bool:
        """Count one trajectory checked by ``stage`` and its rejection reasons; True when it
        passed. :class:`ValueError` on a reason that is not a :data:`Rejection`."""
        unknown = [r for r in reasons if r not in REJECTIONS]
        if unknown:
            raise ValueError(f"unknown rejection reason(s): {', '.join(unknown)}")
        self.checked[stage] = self.checked.get(stage, 0) + 1
        if not reasons:
            return True
        self.dropped[stage] = self.dropped.get(stage, 0) + 1
        counts = self.rejections.setdefault(stage, {})
        for r in dict.fromkeys(reasons):
            counts[r] = counts.get(r, 0) + 1
        if name:
            self.notes.append(f"{name}: {stage}: {', '.join(dict.fromkeys(reasons))}")
        return False

    def total(self, reason: Rejection) -> int:
        """Rejections for ``reason`` over all stages."""
        return sum(c.get(reason, 0) for c in self.rejections.values())

    def merge(self, other: FilterReport) -> FilterReport:
        """The sum of two reports (for runs split across workers)."""
        out = self.model_copy(deep=True)
        for stage, k in other.checked.items():
            out.checked[stage] = out.checked.get(stage, 0) + k
        for stage, k in other.dropped.items():
            out.dropped[stage] = out.dropped.get(stage, 0) + k
        for stage, counts in other.rejections.items():
            mine = out.rejections.setdefault(stage, {})
            for r, k in counts.items():
                mine[r] = mine.get(r, 0) + k
        out.model_fallbacks += other.model_fallbacks
        out.notes += other.notes
        return out
