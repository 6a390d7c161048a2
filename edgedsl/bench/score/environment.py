"""ENVIRONMENT: the world's state after the episode against its state after the gold.

Each episode and each gold run start from a fresh world (its write state empty), so the two
states are comparable as they are. They match when equal; otherwise the score lists a
per-record diff (:func:`state_diff`: one line per path that differs — a record only on one
side, a field with another value). A task whose gold calls no write tool compares trivially —
both states empty unless the agent wrote something it should not have — and says so
(``trivial``). A backend with no observable state (``store``, ``http``) has nothing to compare:
``ok`` with ``trivial`` and a note.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..episode import GoldRun

__all__ = ["EnvironmentScore", "score_environment", "state_diff"]

_MAX_DIFF = 20


class EnvironmentScore(BaseModel):
    """The ENVIRONMENT axis of one episode: ``ok``, ``trivial`` when there was nothing to
    change, a ``note`` saying why, and the ``diff`` lines on a mismatch."""

    model_config = ConfigDict(extra="forbid")
    ok: bool
    trivial: bool = False
    note: str = ""
    diff: list[str] = Field(default_factory=list)


def _walk(a: Any, b: Any, path: str, out: list[str]) -> None:
    if len(out) >= _MAX_DIFF or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            p = f"{path}.{k}" if path else str(k)
            if k not in a:
                out.append(f"{p}: only after the gold: {b[k]!r:.80}")
            elif k not in b:
                out.append(f"{p}: only after the episode: {a[k]!r:.80}")
            else:
                _walk(a[k], b[k], p, out)
            if len(out) >= _MAX_DIFF:
                return
        return
    if isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            p = f"{path}[{i}]"
            if i >= len(a):
                out.append(f"{p}: record only after the gold: {b[i]!r:.80}")
            elif i >= len(b):
                out.append(f"{p}: record only after the episode: {a[i]!r:.80}")
            else:
                _walk(a[i], b[i], p, out)
            if len(out) >= _MAX_DIFF:
                return
        return
    out.append(f"{path or 'state'}: episode {a!r:.60}, gold {b!r:.60}")


def state_diff(episode: Any, gold: Any) -> list[str]:
    """The paths where the state after the episode differs from the state after the gold, one
    line each (at most 20): records only on one side, fields with other values."""
    out: list[str] = []
    _walk(episode, gold, "", out)
    return out


class _Ended(Protocol):
    @property
    def state(self) -> dict[str, Any] | None: ...
    @property
    def gold(self) -> GoldRun | None: ...


def score_environment(ep: _Ended) -> EnvironmentScore:
    """The ENVIRONMENT axis of ``ep`` against its gold run (module docstring)."""
    gold = ep.gold
    if gold is None or (ep.state is None and gold.state is None):
        return EnvironmentScore(ok=True, trivial=True,
                                note="the backend has no observable state")
    writes = any(c.write for c in gold.calls)
    diff = state_diff(ep.state or {}, gold.state or {})
    if not diff:
        note = ("the gold calls no write tool and the episode changed nothing" if not writes
                else "the state after the episode is the state after the gold")
        return EnvironmentScore(ok=True, trivial=not writes, note=note)
    return EnvironmentScore(ok=False, trivial=False, diff=diff,
                            note=f"{len(diff)} difference(s) from the state after the gold")
