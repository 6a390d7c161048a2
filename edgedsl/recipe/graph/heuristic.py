"""The default feasibility prior: a deterministic heuristic over types, names and similarity.

:class:`HeuristicScorer` implements the :class:`~edgedsl.recipe.graph.candidate.Scorer` protocol
with no model. For a candidate ``source → target`` with bindings ``B`` it computes, re-deriving each
binding's kind and name agreement from the two nodes' ports (so that bindings revised by
someone else are judged the same way; a binding naming an unknown port or breaking the type
rule of :func:`~edgedsl.recipe.graph.bindings.port_fit` counts as nothing):

* ``C`` — type agreement: the best binding kind, ``code`` 1.0 (same nominal code type),
  ``same`` 0.5, ``widen`` 0.35, ``code_to_str`` 0.6 (a code into a plain ``str`` of the same
  name); 0 without a valid binding;
* ``N`` — name agreement: the mean :func:`~edgedsl.recipe.graph.bindings.name_agreement` of the
valid
  bindings;
* ``S`` — the retriever's similarity, clipped to [0, 1];
* ``F`` — 1 when a binding fills a required parameter of the target, 0.5 when bindings fill
  only optional ones, 0 without a valid binding;
* ``M`` — the share of the target's required parameters that no binding fills and that have no
  default candidate (``missing``); ``D`` — the share that no binding fills but that have
  default candidates (catalog enums);

and the score ::

    score = clip(0.45·C + 0.20·N + 0.20·S + 0.15·F − 0.35·M − 0.05·D, 0, 1)

Code-type agreement weighs most, then names, then description/signature similarity. The
score never decreases when the similarity rises or when a missing parameter gets a default
candidate; without a valid binding it is at most 0.20 (similarity alone), and a same-code
binding with equal names that leaves nothing missing scores at least 0.75.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .bindings import name_agreement, port_fit
from .candidate import Candidate, Prior
from .model import Scalar

__all__ = ["KIND_WEIGHT", "WEIGHTS", "HeuristicScorer", "ScoreParts", "score_parts"]

KIND_WEIGHT: dict[str, float] = {"code": 1.0, "code_to_str": 0.6, "same": 0.5, "widen": 0.35}
"""``C`` of a binding by its kind."""

WEIGHTS: dict[str, float] = {"C": 0.45, "N": 0.20, "S": 0.20, "F": 0.15, "M": -0.35, "D": -0.05}
"""The coefficients of the score (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """The terms of a heuristic score, each in [0, 1], and the clipped score."""

    C: float
    N: float
    S: float
    F: float
    M: float
    D: float
    score: float


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def score_parts(candidate: Candidate) -> tuple[ScoreParts, dict[str, list[Scalar]]]:
    """The terms and score of ``candidate``, and the default candidates of the target's
    required parameters that no valid binding fills (from the target node's defaults)."""
    src, dst = candidate.source, candidate.target
    fields = {f.name: f for f in src.fields}
    params = {p.name: p for p in dst.params}
    kinds: list[float] = []
    names: list[float] = []
    bound: set[str] = set()
    fills_required = False
    for b in candidate.bindings:
        f, p = fields.get(b.field), params.get(b.param)
        if f is None or p is None:
            continue
        kind = port_fit(f, p)
        if kind is None:
            continue
        kinds.append(KIND_WEIGHT[kind])
        names.append(name_agreement(f.name, p.name))
        bound.add(p.name)
        fills_required = fills_required or not p.optional
    required = dst.required
    defaults, missing_names = dst.unbound(bound)
    missing = len(missing_names)
    c = max(kinds, default=0.0)
    n = sum(names) / len(names) if names else 0.0
    s = _clip(candidate.similarity)
    f_ = (1.0 if fills_required else 0.5) if kinds else 0.0
    m = missing / len(required) if required else 0.0
    d = len(defaults) / len(required) if required else 0.0
    w = WEIGHTS
    raw = w["C"] * c + w["N"] * n + w["S"] * s + w["F"] * f_ + w["M"] * m + w["D"] * d
    return ScoreParts(c, n, s, f_, m, d, round(_clip(raw), 6)), defaults


class HeuristicScorer:
    """The deterministic default scorer (formula in the module docstring); ``name`` is
    ``"heuristic"``. Bindings pass through unchanged; defaults come from the target's enums."""

    name = "heuristic"

    def score(self, candidate: Candidate) -> Prior:
        """The prior of one candidate."""
        parts, defaults = score_parts(candidate)
        return Prior(score=parts.score, bindings=candidate.bindings, defaults=defaults,
                     scorer=self.name)

    async def score_many(self, candidates: Sequence[Candidate]) -> list[Prior]:
        """One :class:`Prior` per candidate, in order."""
        return [self.score(c) for c in candidates]
