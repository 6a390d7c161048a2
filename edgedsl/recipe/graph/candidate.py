"""What a feasibility scorer sees and says: :class:`Candidate` in, :class:`Prior` out.

The retriever proposes candidates (a source tool, a target tool, the field bindings that type
check, the similarity of their signatures); a :class:`Scorer` gives each a feasibility prior in
[0, 1] and may revise the bindings and propose default values for the target's unbound
required parameters. Two scorers implement the protocol: the deterministic heuristic
(:mod:`edgedsl.recipe.graph.heuristic`, the default) and a chat model behind any OpenAI-compatible
endpoint (:mod:`edgedsl.recipe.graph.model_prior`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .model import Binding, Scalar, ToolNode

__all__ = ["Candidate", "Prior", "Scorer"]


@dataclass(frozen=True)
class Candidate:
    """A proposed edge ``source → target`` before scoring."""

    source: ToolNode
    target: ToolNode
    bindings: tuple[Binding, ...]
    similarity: float
    same_domain: bool


@dataclass(frozen=True)
class Prior:
    """A scorer's verdict on a candidate: feasibility, bindings, defaults, and who said so."""

    score: float
    bindings: tuple[Binding, ...]
    defaults: dict[str, list[Scalar]] = field(default_factory=dict)
    scorer: str = "heuristic"


class Scorer(Protocol):
    """Scores candidates; ``name`` is recorded on every edge it scores."""

    name: str

    async def score_many(self, candidates: Sequence[Candidate]) -> list[Prior]:
        """One :class:`Prior` per candidate, in order."""
        ...
