"""ACTION: the agent's calls against the gold program's calls, as a partial order.

Each gold call (:class:`~edgedsl.bench.episode.GoldCall`) is a tool, its arguments (as JSON,
keys sorted) and its page, placed in the gold dataflow by ``step`` and ``after`` (the steps that
come before it). The agent's successful calls are taken in the order it made them; a call
matches an unmatched gold call with the same tool, arguments and page whose preceding steps each
already have a matched call (so any topological order of the gold is accepted: independent
calls in either order, the calls of one fan or compare step as a multiset). A call with a gold
twin whose predecessors are not matched yet is ``out_of_order``; a successful call with no gold
twin is an ``extra`` call (read-only extra calls are allowed but counted, an extra write is
not allowed); a failed call is counted in ``errors``.

Scores: ``recall`` = matched / gold calls (1 with no gold call); ``efficiency`` = gold calls /
max(gold calls, every call the agent made); ``score`` = recall × efficiency; ``ok`` when every
gold call matched and the agent made no extra write.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

import orjson
from pydantic import BaseModel, ConfigDict

from ..episode import GoldCall

__all__ = ["ActionScore", "AgentCall", "call_key", "score_action"]


class AgentCall(Protocol):
    """What ACTION reads of an agent's call (a ``CallRecord`` or scoring's ``CallFacts``)."""

    @property
    def tool(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def page(self) -> int | None: ...
    @property
    def ok(self) -> bool: ...
    @property
    def write(self) -> bool: ...


class ActionScore(BaseModel):
    """The ACTION axis of one episode (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    ok: bool
    score: float
    recall: float
    efficiency: float
    gold: int
    matched: int
    extra: int = 0
    extra_writes: int = 0
    out_of_order: int = 0
    errors: int = 0


def call_key(tool: str, arguments: dict[str, Any], page: int | None) -> bytes:
    """What identifies a call for matching: tool, arguments (keys sorted) and page."""
    return orjson.dumps([tool, arguments, page], option=orjson.OPT_SORT_KEYS)


def score_action(calls: Sequence[AgentCall], gold: Sequence[GoldCall]) -> ActionScore:
    """The ACTION axis of an episode's ``calls`` against the ``gold`` calls (module
    docstring)."""
    by_key: dict[bytes, list[int]] = defaultdict(list)
    for i, g in enumerate(gold):
        by_key[call_key(g.tool, g.arguments, g.page)].append(i)
    has_calls = {g.step for g in gold}
    done_steps: set[str] = set()
    used = [False] * len(gold)
    matched = extra = writes = late = errors = 0
    for c in calls:
        if not c.ok:
            errors += 1
            continue
        cands = [i for i in by_key.get(call_key(c.tool, c.arguments, c.page), ()) if not used[i]]
        ready = next((i for i in cands if all(s in done_steps for s in gold[i].after
                                              if s in has_calls)), None)
        if ready is not None:
            used[ready] = True
            done_steps.add(gold[ready].step)
            matched += 1
        elif cands:
            late += 1
        else:
            extra += 1
            writes += c.write
    n = len(gold)
    recall = matched / n if n else 1.0
    efficiency = n / max(n, len(calls)) if n else (1.0 if not calls else 0.0)
    return ActionScore(ok=matched == n and writes == 0, score=recall * efficiency,
                       recall=recall, efficiency=efficiency, gold=n, matched=matched,
                       extra=extra, extra_writes=writes, out_of_order=late, errors=errors)
