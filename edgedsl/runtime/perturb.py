"""The perturbation check (issue 18 §1): does the answer survive what the query does not state?

:func:`check_determinacy` runs a trajectory as written (or takes that run) and then once per
perturbation of what the program leaves to the runtime; a determined answer is the same every
time:

* ``tie_break`` — ``most_frequent`` ties go to the largest value instead of the smallest
  (``run_trajectory(tie_break="largest")``; ``max`` / ``min`` keep their ties either way, so what
  differs downstream is which rows a later step reads);
* ``page_size`` — every paged tool the trajectory calls reads pages of half its page size (so a
  page limit covers other records);
* ``pages_all`` — every call of a paged tool without a ``pages`` clause (an implicit limit of one
  page) reads all pages; not applied when the trajectory has no such call. With
  ``lift="every"`` every page limit is lifted, ``pages N`` too: synthesis uses it, since the
  generator, not the question, chose its ``pages 1``.

Each perturbation is ``same``, ``changed`` (another answer), ``failed`` (the perturbed run failed:
the answer held only because of what was perturbed — a ``seq`` that sees more values once more
records are read, say) or ``not_applied``. The answer is *stable* when none changed or failed.
The check reads the store or the world like any run: a replay-only store misses the perturbed
calls (they are other requests), which shows as ``failed``.

**Moot perturbations.** With ``skip_moot`` a perturbation the baseline run's own facts show
cannot change anything is not run (outcome ``not_applied``, detail ``moot: …``;
:func:`moot_perturbations`): ``tie_break`` when no ``most_frequent`` step of the run broke a
tie (the policy decides nothing else, so every step reads and keeps the same rows), and
``pages_all`` when every call it would lift read its whole result (the runtime stops at the
same page either way). ``page_size`` is never moot: another page size asks the service other
requests.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..plan.model import CallStep, CompareStep, Plan, TrajectoryPlan
from .backends import Backend
from .executor import DEFAULT_MAX_PAGES, run_trajectory
from .result import RunResult

__all__ = ["PERTURBATIONS", "DeterminacyCheck", "PerturbationResult", "check_determinacy",
           "moot_perturbations", "same_answer"]

PerturbationName = Literal["tie_break", "page_size", "pages_all"]
Lift = Literal["implicit", "every"]
"""Which page limits the ``pages_all`` perturbation lifts."""
PERTURBATIONS: tuple[PerturbationName, ...] = ("tie_break", "page_size", "pages_all")
"""The perturbations, in the order they run."""


class PerturbationResult(BaseModel):
    """One perturbed run: its ``outcome``, what was perturbed (``detail``), its answer or the
    code it failed with."""

    name: PerturbationName
    outcome: Literal["same", "changed", "failed", "not_applied"]
    detail: str = ""
    answer: Any = None
    code: str | None = None


class DeterminacyCheck(BaseModel):
    """The perturbation check of one trajectory: the answer as written, whether the run's facts
    call it determined, and each perturbation."""

    trajectory: str
    ok: bool
    answer: Any = None
    determined: bool | None = None
    perturbations: list[PerturbationResult] = Field(default_factory=list)

    @property
    def stable(self) -> bool:
        """True when the run succeeded and no perturbation changed or broke the answer."""
        return self.ok and all(p.outcome in ("same", "not_applied") for p in self.perturbations)

    @property
    def changed_by(self) -> list[str]:
        """The perturbations that changed or broke the answer."""
        return [p.name for p in self.perturbations if p.outcome in ("changed", "failed")]


def same_answer(a: Any, b: Any, rel: float = 1e-9) -> bool:
    """Structural equality of two answers, numbers within a relative ``rel``."""
    if isinstance(a, bool) or isinstance(b, bool):  # `true` is not `1`
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=rel)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_answer(x, y, rel) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_answer(a[k], b[k], rel) for k in a)
    return bool(a == b)


def _requests(tp: TrajectoryPlan) -> list[tuple[str, CallStep | CompareStep]]:
    return [(k, s) for k, s in tp.steps.items() if isinstance(s, CallStep | CompareStep)]


def _half_pages(plan: Plan, tp: TrajectoryPlan) -> tuple[Plan, str] | None:
    """``plan`` with every paged tool ``tp`` calls reading half its page size."""
    tools = dict(plan.tools)
    changed: list[str] = []
    for _, s in _requests(tp):
        tool = tools[s.request.tool]
        pg = tool.paging
        if pg is None or not pg.size or not pg.size_limit or pg.size_limit < 2 \
                or s.request.tool in changed:
            continue
        half = pg.size_limit // 2
        tools[s.request.tool] = dataclasses.replace(
            tool, paging=dataclasses.replace(pg, size_limit=half))
        changed.append(s.request.tool)
    if not changed:
        return None
    detail = ", ".join(f"{t} {plan.tools[t].paging.size_limit}→"  # type: ignore[union-attr]
                       f"{tools[t].paging.size_limit}" for t in changed)  # type: ignore[union-attr]
    return dataclasses.replace(plan, tools=tools), detail


def _all_pages(plan: Plan, tp: TrajectoryPlan, lift: Lift) -> tuple[Plan, str] | None:
    """``plan`` with every call of a paged tool in ``tp`` without ``pages`` (``lift="every"``:
    with any limit) reading all pages."""
    steps = dict(tp.steps)
    changed: list[str] = []
    for key, s in _requests(tp):
        limited = s.request.pages is None or (lift == "every" and s.request.pages != "all")
        if limited and plan.tools[s.request.tool].paging is not None:
            steps[key] = dataclasses.replace(
                s, request=dataclasses.replace(s.request, pages="all"))
            changed.append(key)
    if not changed:
        return None
    new_tp = dataclasses.replace(tp, steps=steps)
    trajs = [new_tp if t.name == tp.name else t for t in plan.trajectories]
    return dataclasses.replace(plan, trajectories=trajs), "pages all on " + ", ".join(
        f"`{k}`" for k in changed)


def moot_perturbations(plan: Plan, tp: TrajectoryPlan, base: RunResult,
                       lift: Lift = "implicit") -> dict[PerturbationName, str]:
    """The perturbations that cannot change the answer of ``base`` (a successful run of ``tp``),
    by its trace's facts (module docstring, "Moot perturbations"), each with why."""
    out: dict[PerturbationName, str] = {}
    trace = base.trace
    if trace is None or not base.ok:
        return out
    if not any(t.broken for st in trace.steps for t in st.ties):
        out["tie_break"] = "moot: no most_frequent tie was broken"
    ran = {st.id: st for st in trace.steps}
    lifted = [k for k, s in _requests(tp)
              if (s.request.pages is None or (lift == "every" and s.request.pages != "all"))
              and plan.tools[s.request.tool].paging is not None]
    if lifted and all(k in ran and ran[k].complete is True for k in lifted):
        out["pages_all"] = "moot: every call read its whole result"
    return out


async def check_determinacy(plan: Plan, name: str, backend: Backend, *, phi: int = 5,
                            max_pages: int = DEFAULT_MAX_PAGES,
                            baseline: RunResult | None = None,
                            lift: Lift = "implicit",
                            skip_moot: bool = False) -> DeterminacyCheck:
    """The perturbation check of trajectory ``name`` of ``plan`` on ``backend`` (see the module
    docstring); ``baseline`` is the run as written when the caller already has it; ``lift``
    which page limits ``pages_all`` lifts (``"implicit"``: calls without ``pages``;
    ``"every"``: ``pages N`` too); ``skip_moot`` skips the perturbations
    :func:`moot_perturbations` finds moot."""
    base = baseline or await run_trajectory(plan, name, backend, phi=phi, max_pages=max_pages)
    out = DeterminacyCheck(trajectory=name, ok=base.ok, answer=base.answer,
                           determined=base.determined)
    if not base.ok:
        return out
    tp = plan.trajectory(name)
    moot = moot_perturbations(plan, tp, base, lift) if skip_moot else {}
    for which in PERTURBATIONS:
        detail = ""
        if which in moot:
            out.perturbations.append(PerturbationResult(name=which, outcome="not_applied",
                                                        detail=moot[which]))
            continue
        if which == "tie_break":
            res = await run_trajectory(plan, name, backend, phi=phi, max_pages=max_pages,
                                       tie_break="largest")
            detail = "most_frequent ties to the largest value"
        else:
            got = _half_pages(plan, tp) if which == "page_size" else \
                _all_pages(plan, tp, lift)
            if got is None:
                out.perturbations.append(PerturbationResult(name=which, outcome="not_applied"))
                continue
            perturbed, detail = got
            res = await run_trajectory(perturbed, name, backend, phi=phi, max_pages=max_pages)
        if not res.ok:
            code = res.diagnostics[0].code if res.diagnostics else None
            out.perturbations.append(PerturbationResult(name=which, outcome="failed",
                                                        detail=detail, code=code))
            continue
        outcome: Literal["same", "changed"] = "same" if same_answer(res.answer, base.answer) \
            else "changed"
        out.perturbations.append(PerturbationResult(name=which, outcome=outcome, detail=detail,
                                                    answer=res.answer))
    return out
