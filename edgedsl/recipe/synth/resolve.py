"""The execution-grounded filters: decorative chains and the perturbation check.

**Decorative chain.** A call is decorative when removing it would leave the answer unchanged:
the answer does not read it, every junction reads it directly (no ``drv`` chooses among its
records), and every value it hands on is a value it was handed — by a junction or as a literal
argument (``nec.gusigun(sgId: seq e.sgId)`` feeding ``nec.jobs(sgId: seq gusigun.sgId)``:
``jobs`` could read ``e.sgId`` directly). A call read through a ``drv`` is not decorative even
when it hands on one of its inputs: which one depends on its records (a fan over three codes
narrowed to the code with the largest value). :func:`decorative_steps` finds them in a run's
trace, comparing values as text; :func:`hands_on_only_inputs` is the value rule, which
synthesis applies before it extends a draft.

**Perturbation check** (config ``resolve``, issue 18 §1). :func:`resolve` parses and compiles
the emitted text afresh (nothing of the synthesis run is reused), runs it on another backend (a
fresh world) — the answer must equal the synthesized one — and then runs the perturbation check
of :func:`edgedsl.runtime.perturb.check_determinacy` on that run: the opposite ``most_frequent``
tie-break, half the page size, ``pages all`` in place of every page limit (the generator
wrote them; no question states one, so every limit is implicit here; a perturbation the run's
facts show moot is skipped: no broken tie, whole reads). Each
perturbation that changes or breaks the answer is a rejection (``perturbed_tie_break``,
``perturbed_page_size``, ``perturbed_pages_all``). Re-running the same program on the same data
alone (the re-solve this replaces) could never fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ...core.diagnostics import CompileError
from ...core.source import Source
from ...runtime.backends import Backend
from ...runtime.result import RunResult
from ...syntax import nodes as n
from .rejections import Rejection

__all__ = ["PERTURBED", "answer_key", "decorative_steps", "hands_on_only_inputs", "resolve",
           "value_texts"]


def answer_key(answer: Any) -> bytes:
    """A canonical form of an answer, for comparing two runs' answers."""
    return orjson.dumps(answer, option=orjson.OPT_SORT_KEYS, default=str)


def value_texts(values: Iterable[Any]) -> frozenset[str]:
    """Values compared as text (a date as ISO text, a number as its digits)."""
    return frozenset(str(v) for v in values if v is not None)


def hands_on_only_inputs(passed: Iterable[str], received: Iterable[str]) -> bool:
    """The decorative-call rule: every value handed on (``passed``, as text) is one the call
    was handed (``received``)."""
    got = frozenset(passed)
    return bool(got) and got <= frozenset(received)


def _names(expr: n.Expr | None, out: set[str]) -> None:
    if expr is None:
        return
    if isinstance(expr, n.Ref):
        out.add(expr.parts[0])
    elif isinstance(expr, n.NameExpr):
        out.add(expr.name.partition(".")[0])
    elif isinstance(expr, n.BinOp):
        _names(expr.left, out)
        _names(expr.right, out)
    elif isinstance(expr, n.Neg):
        _names(expr.operand, out)
    elif isinstance(expr, n.FuncCall):
        for a in expr.args:
            _names(a, out)


def _walk(body: Sequence[n.Stmt], drv_source: dict[str, str], answered: set[str]) -> None:
    for s in body:
        if isinstance(s, n.Binding) and isinstance(s.node, n.Drv):
            drv_source[s.name] = s.node.source[0]
        elif isinstance(s, n.IfStmt):
            _walk(s.then, drv_source, answered)
            _walk(s.orelse or (), drv_source, answered)
        elif isinstance(s, n.AnswerStmt):
            _names(s.expr, answered)
            for f in s.fields or ():
                _names(f.expr, answered)


def decorative_steps(traj: n.Trajectory, result: RunResult) -> list[str]:
    """Call steps of ``traj`` whose removal leaves the answer unchanged (see the module doc)."""
    if result.trace is None:
        return []
    drv_source: dict[str, str] = {}
    answered: set[str] = set()
    _walk(traj.body, drv_source, answered)

    def origin(name: str) -> str:
        seen = set()
        while name in drv_source and name not in seen:
            seen.add(name)
            name = drv_source[name]
        return name

    received: dict[str, set[str]] = {}
    passed: dict[str, set[str]] = {}
    narrowed: set[str] = set()  # calls some junction reads through a drv
    for st in result.trace.steps:
        for j in st.junctions:
            src = origin(j.source)
            passed.setdefault(src, set()).update(value_texts(j.values))
            if src != j.source:
                narrowed.add(src)
        for c in st.calls:
            received.setdefault(st.id, set()).update(value_texts(
                v for v in c.args.values() if not isinstance(v, list | dict)))
    used = {origin(a) for a in answered} | answered
    out = []
    for st in result.trace.steps:
        if st.kind != "call" or st.id in used or st.id in narrowed or st.id not in passed:
            continue
        if hands_on_only_inputs(passed[st.id], received.get(st.id, ())):
            out.append(st.id)
    return out


async def resolve(text: str, name: str, expected: Any, backend: Backend, *,
                  search_paths: Sequence[Path] = (), phi: int = 5) -> list[Rejection]:
    """Recompile ``text``, run trajectory ``name`` on ``backend`` and check its determinacy;
    the rejection reasons — ``resolve_failed`` (it does not compile or does not run),
    ``resolve_mismatch`` (another answer), ``perturbed_*`` (a perturbation changed or broke the
    answer) — or an empty list."""
    from ...api import compile as compile_source
    from ...runtime.executor import run_trajectory
    from ...runtime.perturb import check_determinacy

    try:
        plan = compile_source(Source(f"{name}.edge", text), search_paths=search_paths)
    except CompileError:
        return ["resolve_failed"]
    result = await run_trajectory(plan, name, backend, phi=phi)
    if not result.ok:
        return ["resolve_failed"]
    if answer_key(result.answer) != answer_key(expected):
        return ["resolve_mismatch"]
    # every page limit of a synthesized program is the generator's, not the question's
    # (a perturbation the run's facts show moot is not run: runtime.perturb.moot_perturbations)
    check = await check_determinacy(plan, name, backend, phi=phi, baseline=result, lift="every",
                                    skip_moot=True)
    return [PERTURBED[p] for p in check.changed_by]


PERTURBED: dict[str, Rejection] = {"tie_break": "perturbed_tie_break",
                                   "page_size": "perturbed_page_size",
                                   "pages_all": "perturbed_pages_all"}
"""The rejection of each perturbation of :mod:`edgedsl.runtime.perturb` that changed the
answer."""
