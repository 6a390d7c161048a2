"""What one synthesis attempt comes to, computed where it runs (this process or a worker).

An attempt is a pure function of the run's seed, its number and its target structure type
(the world is deterministic and the memoising backend only remembers deterministic answers),
so attempts can run in any process and any order: :func:`run_attempts` takes a list of
``(attempt, target)`` and returns one :class:`Outcome` each. For each attempt:

1. the structure generator for the target grows a draft on G*
(:mod:`edgedsl.recipe.synth.structures`); 2. the finished program is run with its answer — the
**answer is the program's result** — and
   classified (:func:`~edgedsl.recipe.synth.analyze.structure_of`); a type already full when the
   batch was scheduled stops here (``surplus``);
3. the query is rendered (:mod:`edgedsl.recipe.synth.query`; optionally paraphrased by a chat model)
   and the trajectory emitted (AST → formatter, with provenance comments);
4. the filter stages run in order, stopping at the first that rejects: ``rules``
   (:func:`~edgedsl.recipe.synth.filters.rule_filter`), ``static``
   (:func:`~edgedsl.recipe.synth.filters.astatic_check`), ``resolve`` (the decorative-chain check of
   :func:`~edgedsl.recipe.synth.resolve.decorative_steps`, the rules of meaningful programs of
   :mod:`~edgedsl.recipe.synth.meaning` and the run's determinacy (``undetermined``), then the
   perturbation check of :func:`~edgedsl.recipe.synth.resolve.resolve` on a fresh world); the
   ``duplicate`` rule is the caller's (it needs the programs accepted before);
5. an accepted attempt carries its file text and its task record.

Files are written by the caller (:func:`edgedsl.recipe.synth.pipeline.synthesize`), in attempt
order.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.catalog import Catalog
from ...core.runsettings import RunSettings
from ...runtime.backends import Backend
from ...syntax import nodes as n
from ..graph.model import GraphEdge, ToolGraph
from .analyze import structure_of
from .engine import Engine, Executed, emit_module
from .record import EdgeUse
from .rejections import Rejection, Stage
from .structures import GENERATORS, Built

__all__ = ["GENERATOR_OF", "Item", "Outcome", "WorkerState", "backend_world_seed", "provenance",
           "run_attempts", "run_settings", "task_name"]

DEFAULT_PHI = 5
"""The φ ``edgedsl run`` and the checker use when a file states none."""

GENERATOR_OF: dict[str, str] = {"Seq": "chain", "Fan": "chain", "Drv": "chain", "Sem": "sem",
                                "Cmp": "cmp", "Cond": "cond", "Mixed": "mixed"}
"""The generator an attempt targeting a structure type runs."""


def task_name(attempt: int) -> str:
    """The trajectory (and file) name of the attempt numbered ``attempt``."""
    return f"t{attempt:05d}"


def provenance(attempt: int, structure: str,
               edges: Sequence[GraphEdge]) -> tuple[str, ...]:
    """The provenance comments of a synthesized trajectory: the attempt, and the G* edges used
    with their posteriors (the world's seed is the file's ``run { seed: … }``, which the
    language reads: :func:`run_settings`)."""
    lines = [f"# synthesized by `edgedsl synth run` (attempt {attempt}): {structure}"]
    if edges:
        lines.append("# G* edges used (posterior mean, Beta(α, β), trials):")
        for e in edges:
            lines.append(f"#   {e.source} → {e.target}: {e.mean:.3f}, "
                         f"Beta({e.alpha:.2f}, {e.beta:.2f}), {e.trials} trials")
    return tuple(lines)


def run_settings(world_seed: int | None, phi: int) -> RunSettings:
    """The ``run`` block of a synthesized file: the seed of the world its answer was computed
    on (None: not a world backend, nothing to state), and φ when it is not the default 5 (an
    unbounded ``fan`` is checked and run with it)."""
    return RunSettings(seed=world_seed, phi=None if phi == DEFAULT_PHI else phi)


def backend_world_seed(backend: object) -> int | None:
    """The seed of the world behind ``backend`` (the world backend's ``world.seed``); None for
    any other backend."""
    seed = getattr(getattr(backend, "world", None), "seed", None)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


@dataclass(frozen=True)
class Outcome:
    """What attempt ``attempt`` came to: ``skipped`` (``no_structure``, ``surplus``) or the
    structure, the filter stages run with their rejection reasons (the last non-empty one
    rejected it), and for an accepted attempt the file text, the task record (JSON) and the
    duplicate rule's key (:func:`~edgedsl.recipe.synth.meaning.body_key`)."""

    attempt: int
    structure: str | None = None
    skipped: str | None = None
    stages: tuple[tuple[Stage, tuple[Rejection, ...]], ...] = ()
    text: str | None = None
    record: dict[str, Any] | None = None
    key: str | None = None

    @property
    def accepted(self) -> bool:
        """True when every filter stage passed."""
        return self.text is not None


@dataclass
class WorkerState:
    """An engine over G*, the re-solve backend, the optional chat client, the knobs, and the
    seed of the world the runs are made on (written into each file's ``run { seed }``)."""

    engine: Engine
    seed: int
    phi: int
    lengths: dict[int, float]
    verifier: Backend | None = None
    llm: Any = None
    templates: Path | None = None
    counters: dict[str, int] = field(default_factory=dict)
    world_seed: int | None = None

    @classmethod
    def make(cls, graph: ToolGraph, catalog: Catalog, backend: Backend, config: Any, *,
             verifier: Backend | None = None, llm: Any = None) -> WorkerState:
        """The state of one process for a run with ``config``
        (a :class:`~edgedsl.recipe.synth.config.SynthConfig`)."""
        eng = Engine(graph, catalog, backend, phi=config.phi, tries=config.tries,
                     width=min(config.width, config.phi), single=config.single,
                     narrow_fans=config.narrow_fans, tail=dict(config.tail),
                     restarts=config.restarts, combos=dict(config.combos),
                     entity_weight=config.entity_weight, read_pages=config.read_pages)
        return cls(eng, config.seed, config.phi, dict(config.lengths), verifier, llm,
                   Path(config.templates) if config.templates else None,
                   world_seed=backend_world_seed(backend))


async def _attempt(st: WorkerState, i: int,
                   target: str) -> tuple[Built, Executed, str] | None:
    rng = random.Random(f"{st.seed}:{i}")
    length = rng.choices(list(st.lengths), weights=list(st.lengths.values()))[0]
    if target == "Fan":  # a fan needs an upstream of 2 … φ values: rarely the first call's
        length = max(3, length)
    built = await GENERATORS[GENERATOR_OF[target]](st.engine, rng, length, target)
    if built is None:
        return None
    name = task_name(i)
    ex = await st.engine.execute(built.body, built.answer, name=name, keep=True)
    if ex is None or not ex.result.ok or ex.result.answer is None:
        return None
    return built, ex, structure_of(n.Trajectory(name=name, query="",
                                                body=(*built.body, built.answer)))


async def _accept(st: WorkerState, i: int, built: Built, ex: Executed,
                  structure: str) -> Outcome:
    from .filters import astatic_check, rule_filter
    from .meaning import body_key, meaning_rejections, program_facts
    from .paraphrase import paraphrase
    from .query import query_context, render_query
    from .resolve import decorative_steps, resolve
    from .trace_record import task_record

    eng, name, answer = st.engine, task_name(i), ex.result.answer
    bare = n.Trajectory(name=name, query="", body=(*built.body, built.answer))
    seed = random.Random(f"{st.seed}:{i}:query").randrange(2**31)
    query = render_query(bare, ex.plan, answer, rng_seed=seed, templates=st.templates)
    if st.llm is not None:
        query = await paraphrase(query, query_context(bare, ex.plan, answer), st.llm,
                                 answer=answer)
    traj = n.Trajectory(name=name, query=query, body=bare.body,
                        comments=provenance(i, structure, built.edges))
    text = emit_module(traj, run_settings(st.world_seed, st.phi), catalog=eng.catalog)
    stages: list[tuple[Stage, tuple[Rejection, ...]]] = []

    def stop(stage: Stage, reasons: Sequence[Rejection]) -> bool:
        stages.append((stage, tuple(reasons)))
        return bool(reasons)

    if stop("rules", rule_filter(text, traj, answer, query, phi=st.phi)):
        return Outcome(i, structure, stages=tuple(stages))
    if stop("static", await astatic_check(traj, ex.plan, query, client=st.llm)):
        return Outcome(i, structure, stages=tuple(stages))
    late: list[Rejection] = ["decorative"] if decorative_steps(traj, ex.result) else []
    late += meaning_rejections(program_facts(traj, ex.plan, ex.result))
    if ex.result.determined is False:
        late.append("undetermined")
    if not late and st.verifier is not None:
        late += await resolve(text, name, answer, st.verifier, search_paths=eng.search_paths,
                              phi=st.phi)
    if stop("resolve", late):
        return Outcome(i, structure, stages=tuple(stages))
    edges = [EdgeUse(source=e.source, target=e.target, alpha=e.alpha, beta=e.beta)
             for e in built.edges]
    record = task_record(traj, ex.plan, ex.result, file=f"{name}.edge", query=query,
                         results=eng.memo.records, edges=edges, seed=st.seed, text=text)
    return Outcome(i, structure, stages=tuple(stages), text=text,
                   record=record.model_dump(mode="json"), key=body_key(traj))


async def _one(st: WorkerState, i: int, target: str, open_types: frozenset[str],
               aim: str | None = None) -> Outcome:
    from .chains import AIM

    AIM.set(aim)  # this attempt's own task: the others of the batch do not see it
    got = await _attempt(st, i, target)
    if got is None:
        return Outcome(i, skipped="no_structure")
    built, ex, structure = got
    if structure not in open_types:
        return Outcome(i, structure, skipped="surplus")
    return await _accept(st, i, built, ex, structure)


Item = tuple[int, str, str | None]
"""One attempt to run: its number, its target structure type and the platform it is aimed at
(None: drawn as usual; :data:`~edgedsl.recipe.synth.chains.AIM`)."""


async def run_attempts(st: WorkerState, items: Sequence[Item],
                       open_types: frozenset[str]) -> list[Outcome]:
    """The outcomes of ``items`` (``(attempt, target, aim)``), run concurrently, in item order;
    ``open_types`` are the structure types whose quota was not full when they were scheduled.
    The engine's memo is trimmed first, while no attempt runs (:meth:`MemoBackend.trim`)."""
    st.engine.memo.trim()
    return list(await asyncio.gather(*(_one(st, i, t, open_types, a) for i, t, a in items)))


# ---------------------------------------------------------------- worker processes

_STATE: WorkerState | None = None
_LOOP: asyncio.AbstractEventLoop | None = None  # one loop per worker: backends keep clients


def init_worker(graph_json: str, config_json: str,
                make_backend: Callable[[], Backend],
                make_verifier: Callable[[], Backend] | None,
                llm_config: Any) -> None:
    """Process-pool initializer: this worker's state (its own engine, world and verifier)."""
    global _STATE, _LOOP
    from ...check import load_catalog
    from ..graph.model import load_graph
    from ..llm import LLMClient
    from .config import SynthConfig

    _LOOP = asyncio.new_event_loop()
    graph = load_graph(graph_json.encode())
    config = SynthConfig.model_validate_json(config_json)
    catalog = load_catalog(graph.catalog.modules,
                           [Path(p) for p in graph.catalog.search_paths])
    _STATE = WorkerState.make(graph, catalog, make_backend(), config,
                              verifier=make_verifier() if make_verifier else None,
                              llm=LLMClient(llm_config) if llm_config is not None else None)


def work(items: list[Item], open_types: frozenset[str]) -> tuple[list[Outcome], int, int]:
    """Run ``items`` in this worker; the outcomes and this worker's memo counters so far."""
    assert _STATE is not None and _LOOP is not None, "init_worker was not called"
    out = _LOOP.run_until_complete(run_attempts(_STATE, items, open_types))
    memo = _STATE.engine.memo
    return out, memo.calls, memo.hits
