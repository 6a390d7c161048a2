"""The knobs of a synthesis run (:class:`SynthConfig`) and their defaults: the recipe's structure
mix, chain lengths, tails and restarts. Read by the pipeline and, from JSON, by each worker."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .entities import ENTITY_WEIGHT
from .memo import READ_PAGES
from .structures import COMBOS

__all__ = ["DEFAULT_LENGTHS", "DEFAULT_MIX", "DEFAULT_NARROW_FANS", "DEFAULT_RESTARTS",
           "DEFAULT_SINGLE", "DEFAULT_TAIL", "DEFAULT_WIDTH", "SynthConfig"]

DEFAULT_MIX: dict[str, float] = {"Mixed": 0.367, "Drv": 0.197, "Sem": 0.170, "Seq": 0.121,
                                 "Cmp": 0.090, "Cond": 0.028, "Fan": 0.027}
"""The recipe's structure mix (REFERENCE.md, EDGE phase B), the default quota shares."""

DEFAULT_LENGTHS: dict[int, float] = {2: 0.20, 3: 0.35, 4: 0.30, 5: 0.15}
"""Edges per chain (before fan-outs), drawn with these weights (chains on G* often end
earlier: no out-edge of the last tool works)."""

DEFAULT_WIDTH = 2
"""The most values a narrowing keeps, arms a comparison has and branches a group has (at most
φ). It was 3; with 2, comparisons are of two, and a fan a narrowing leaves is of two: fewer
parallel calls, the sequential share of the recipe (docs/synth.md)."""

DEFAULT_TAIL: dict[int, float] = {1: 0.3, 2: 0.5, 3: 0.2}
"""Edges a chain grows after a ``parallel`` group or a comparison's winner, drawn with these
weights (0: the task ends with the group or the winner)."""

DEFAULT_RESTARTS = 2
"""How many times a chain aimed at Seq, Fan or Drv that ended short of its drawn length is grown
again from another root (the longest is kept)."""

DEFAULT_SINGLE = 0.9
"""The chance that a narrowing is drawn among those handing on one value (the next call
sequential) rather than among all that work (several values: a fan of parallel calls)."""

DEFAULT_NARROW_FANS = 0.0
"""The chance that a hand-off of 2 … φ values (a fan by the recipe's typing) is narrowed to one
value by a ``drv`` instead. Off: the recipe's typing. It was 0.6 while drafts read one page
and no narrowing could be a tie (more fans stayed fans); since drafts read every call whole a
hand-off of 2 … φ values is rare, and over the same 160 attempts of ``synth run -n 200 --seed 1``
0, 0.3 and 0.6 gave 4.24, 4.24 and 4.20 calls per task and 64.4%, 64.0% and 64.1% sequential
calls (docs/synth.md, "The mix, chain lengths and the schedule")."""


class SynthConfig(BaseModel):
    """The knobs of a synthesis run."""

    model_config = ConfigDict(extra="forbid")
    n: int = Field(default=100, ge=1)
    seed: int = 0
    phi: int = Field(default=5, ge=2)
    width: int = Field(default=DEFAULT_WIDTH, ge=2)
    mix: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_MIX))
    lengths: dict[int, float] = Field(default_factory=lambda: dict(DEFAULT_LENGTHS))
    tail: dict[int, float] = Field(default_factory=lambda: dict(DEFAULT_TAIL))
    single: float = Field(default=DEFAULT_SINGLE, ge=0.0, le=1.0)
    narrow_fans: float = Field(default=DEFAULT_NARROW_FANS, ge=0.0, le=1.0)
    restarts: int = Field(default=DEFAULT_RESTARTS, ge=0)
    combos: dict[str, float] = Field(default_factory=lambda: dict(COMBOS))
    entity_weight: float = Field(default=ENTITY_WEIGHT, ge=0.0)
    read_pages: int = Field(default=READ_PAGES, ge=1, le=50)
    tries: int = Field(default=3, ge=1)
    batch: int = Field(default=32, ge=1)
    max_attempts: int | None = None
    resolve: bool = True
    templates: str | None = None

    @field_validator("tail")
    @classmethod
    def _tail_ok(cls, v: dict[int, float]) -> dict[int, float]:
        if any(k < 0 for k in v) or any(w < 0 for w in v.values()):
            raise ValueError("tail: edges and weights must not be negative")
        return v

    @field_validator("combos")
    @classmethod
    def _combos_ok(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(COMBOS))
        if unknown:
            raise ValueError(f"combos: unknown composition {unknown[0]!r} "
                             f"(known: {', '.join(COMBOS)})")
        if any(w < 0 for w in v.values()) or not any(w > 0 for w in v.values()):
            raise ValueError("combos: weights must not be negative, and one must be positive")
        return v

    def budget(self) -> int:
        """The most attempts the run makes (default: 25 per requested trajectory)."""
        return self.max_attempts if self.max_attempts is not None else 25 * self.n
