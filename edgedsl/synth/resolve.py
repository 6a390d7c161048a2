"""The execution-grounded filters: decorative chains and the independent re-solve.

**Decorative chain.** A call is decorative when removing it would leave the answer unchanged:
it is not read by the answer, and the values it hands on are exactly the values it was handed
(``nec.gusigun(sgId: seq e.sgId)`` feeding ``nec.jobs(sgId: seq gusigun.sgId)``: ``jobs`` could
read ``e.sgId`` directly). :func:`decorative_steps` finds them in a run's trace: for every call
step with incoming junctions, the set of values its outgoing junctions (direct, or through a
``drv`` of it) passed is compared with the set its incoming junctions passed.

**Re-solve.** :func:`resolve` parses and compiles the emitted text afresh (nothing of the
synthesis run is reused) and runs it on another backend (a fresh world); the answer must equal
the synthesized one. It returns the rejection reason, or None.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from .. import nodes as n
from ..diagnostics import CompileError
from ..runtime.backends import Backend
from ..runtime.result import RunResult
from ..source import Source
from .filters import Rejection

__all__ = ["answer_key", "decorative_steps", "resolve"]


def answer_key(answer: Any) -> bytes:
    """A canonical form of an answer, for comparing two runs' answers."""
    return orjson.dumps(answer, option=orjson.OPT_SORT_KEYS, default=str)


def _value_set(values: Sequence[Any]) -> frozenset[bytes]:
    return frozenset(answer_key(v) for v in values)


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

    received: dict[str, set[bytes]] = {}
    passed: dict[str, set[bytes]] = {}
    readers: dict[str, int] = {}
    for st in result.trace.steps:
        for j in st.junctions:
            src = origin(j.source)
            passed.setdefault(src, set()).update(_value_set(j.values))
            readers[src] = readers.get(src, 0) + 1
            received.setdefault(st.id, set()).update(_value_set(j.values))
    used = {origin(a) for a in answered} | answered
    out = []
    for st in result.trace.steps:
        if st.kind != "call" or st.id in used or st.id not in received or st.id not in passed:
            continue
        if received[st.id] and received[st.id] == passed[st.id]:
            out.append(st.id)
    return out


async def resolve(text: str, name: str, expected: Any, backend: Backend, *,
                  search_paths: Sequence[Path] = (), phi: int = 5) -> Rejection | None:
    """Recompile ``text`` and run trajectory ``name`` on ``backend``; the rejection reason —
    ``resolve_failed`` (it does not compile or does not run) or ``resolve_mismatch`` (another
    answer) — or None when the answer is reproduced."""
    from ..api import compile as compile_source
    from ..runtime.executor import run_trajectory

    try:
        plan = compile_source(Source(f"{name}.edge", text), search_paths=search_paths)
    except CompileError:
        return "resolve_failed"
    result = await run_trajectory(plan, name, backend, phi=phi)
    if not result.ok:
        return "resolve_failed"
    if answer_key(result.answer) != answer_key(expected):
        return "resolve_mismatch"
    return None
