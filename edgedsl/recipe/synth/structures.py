"""Structure generators: chains, Semantic-parallel, Comparison, Conditional and Mixed.

Each generator grows a :class:`~edgedsl.recipe.synth.engine.Draft` with the engine's moves and
returns a :class:`Built` — the trajectory's statements, its answer, and the G* edges it used — or
None when the sampled tools do not support the structure (the caller draws again):

* **chain** — a root call and 1 … L edges of G*; every junction typed from the records seen
  (``seq``, ``fan``, or narrowed by a ``drv`` node). A chain is Seq, Fan or Drv by what its
  junctions turned out to be (Mixed when it has both fans and narrowings). A chain that ends
  short of L is grown again from other roots (``Engine.restarts``), the longest kept.
* **sem** — a chain prefix, then 2 … 3 out-edges of its last tool that read the same upstream
  values, run as one ``parallel`` group whose header holds the shared values (one ``seq`` each:
  the records are narrowed to one value per shared field first); aimed at a pure Sem, the
  longest prefix whose values need no narrowing is kept, and when none is, records that
  would need narrowing give the group literal shared values taken from one record instead
  (another record, up to ``Engine.tries``, when a branch returns nothing for it)
  (the group then starts the program). The group may be followed by a chain of
  ``Engine.tail_edges`` edges read from one of its branches (``seq group.branch.f``).
* **cmp** — one tool called with 2 … φ values of one parameter (its default candidates),
  ``compare … over p in [...]``, then a ``drv`` keeping the winning arm on a numeric or date
  field (``max`` or ``min``); then possibly a chain from the winner (``seq`` junctions only).
* **cond** — a chain prefix whose last relation ``x`` is narrowed in two different ways in the
  two branches of ``if count(x) > c`` (``c`` from the observed count, so that either branch may
  run), the same name bound in both; then the next call reads that name. Both branches are run
  (the program and the program with the predicate negated) and both must succeed.
* **mixed** — two of the above composed (:data:`COMBOS`): a comparison whose winner starts a
  chain, a chain ending in a parallel group (possibly continued), a chain with a fan ending in
  a group, a conditional inside a longer chain, a chain with both a narrowing and a fan.

Answers (:func:`answer_of`) read the last relation: up to two fields holding a single value
(names and numbers first), its record count when it holds several records, or a branch field per
parallel branch, or the winning arm and value of a comparison; a group or a comparison
continued by a chain answers the other branches (the winning arm) and the chain's last
relation.
"""

from __future__ import annotations

import random

from .branches import cmp, compare_head, cond, conditional, parallel_tail, sem
from .chains import Built, answer_of, chain, grow, start
from .engine import Draft, Engine

__all__ = [
    "COMBOS",
    "GENERATORS",
    "Built",
    "answer_of",
]


COMBOS: dict[str, float] = {"cmp+chain": 1.0, "chain+sem": 1.0, "chain+cond": 2.0,
                            "fan+sem": 0.1, "drv+fan": 0.5}


"""The compositions a Mixed draft tries, with their default weights (``--combos``; three, in a
random order drawn with the weights). The most sequential, ``chain+cond``, is drawn most often;
those with the most parallel calls — ``fan+sem`` (a fan of 2 … φ calls, then a group) and
``drv+fan`` — least (measured in ``docs/synth.md``)."""


async def mixed(eng: Engine, rng: random.Random, length: int,
                target: str | None = None) -> Built | None:
    """Two structures composed (see the module doc): the combinations are tried in a random
    order until one works."""
    # a weighted random order (each combination keyed by u ** (1 / weight))
    weights = {c: w for c, w in (eng.combos or COMBOS).items() if w > 0}
    combos = sorted(weights, key=lambda c: -rng.random() ** (1 / weights[c]))
    for combo in combos[:3]:
        got = await _combo(eng, rng, length, combo)
        if got is not None:
            return got
    return None


async def _combo(eng: Engine, rng: random.Random, length: int, combo: str) -> Built | None:
    if combo == "cmp+chain":
        head = await compare_head(eng, rng)
        if head is None:
            return None
        d = await grow(eng, head[0], max(1, length), rng)
        if not d.edges:
            return None
        return Built(d.body, answer_of(eng, d, rng), d.edges, d, combo)
    s0 = await start(eng, rng)
    if s0 is None:
        return None
    d = s0
    if combo == "drv+fan":  # grown again from other roots while short (Engine.restarts)
        best: Draft | None = None
        for k in range(1 + eng.restarts):
            s = s0 if k == 0 else await start(eng, rng)
            if s is None:
                continue
            d = await grow(eng, s, max(2, length), rng, need="drv")
            if not any(j.kind == "fan" for j in d.junctions):
                d = await grow(eng, d, 1, rng, need="fan", prefer="fan")
            if d.edges and (best is None or len(d.edges) > len(best.edges)):
                best = d
            if best is not None and len(best.edges) >= max(2, length):
                break
        if best is None:
            return None
        return Built(best.body, answer_of(eng, best, rng), best.edges, best, combo)
    if combo == "chain+cond":
        d = await grow(eng, d, max(1, length - 2), rng)
        c = await conditional(eng, d, rng)
        if c is None:
            return None
        c = await grow(eng, c, eng.tail_edges(rng), rng)
        return Built(c.body, answer_of(eng, c, rng), c.edges, c, combo)
    d = await grow(eng, d, max(1, length - 1), rng, prefer="fan" if combo == "fan+sem" else "any")
    return await parallel_tail(eng, d, rng, after=eng.tail_edges(rng))


GENERATORS = {"chain": chain, "sem": sem, "cmp": cmp, "cond": cond, "mixed": mixed}


"""Generator by name: ``(engine, rng, length, target) -> Built | None``; ``target`` (a
structure type or None) narrows the junction kinds the generator accepts."""
