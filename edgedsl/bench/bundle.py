"""Task bundles: a versioned, content-hashed set of tasks with gold programs.

A :class:`Bundle` holds per task (:class:`BundleTask`) its id, the Korean query, the gold
program (the ``.edge`` source text and the trajectory's name), its platforms and structure, the
tools exposed to an agent (the gold tools plus distractors, as OpenAI function schemas) and the
catalog those tools come from (:attr:`Bundle.catalog`: one :class:`~edgedsl.plan.model.ToolSpec`
per exposed tool, as JSON), and optionally the path of a store snapshot for exact replay.

**Content hash.** :attr:`Bundle.hash` is the SHA-256 of the canonical JSON (sorted keys, orjson)
of everything but the hash itself; :func:`load_bundle` recomputes it and refuses a bundle whose
hash does not match. Every episode records the hash.

:func:`make_bundle` (``edgedsl bench make DIR… -o BUNDLE``) reads ``.edge`` files, runs each gold
program on the chosen backend and refuses a task whose gold answer is not determined — a broken
tie, a partial read (the runtime's determinacy facts), a failed run — with the reason per task
(:class:`Refusal`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from .. import api
from ..core.catalog import Catalog
from ..core.jsonfile import read_json_object, schema_problems, write_atomic
from ..core.source import Source
from ..plan.model import CallStep, CompareStep, ToolSpec, TrajectoryPlan, to_data, validated
from ..recipe.synth.tools_schema import rank_key
from .toolbox import paged_schema

__all__ = [
    "BUNDLE_VERSION",
    "Bundle",
    "BundleError",
    "BundleTask",
    "Refusal",
    "TaskBudget",
    "bundle_hash",
    "edge_files",
    "exposed_tools",
    "full_catalog",
    "load_bundle",
    "make_bundle",
    "read_budgets",
    "save_bundle",
]

BUNDLE_VERSION = 1
"""The version of the bundle format."""


class BundleError(Exception):
    """A bundle that cannot be made or read (one line, shown as ``error: …``)."""


class TaskBudget(BaseModel):
    """A task's own budgets, replacing the run's: at most ``calls`` tool calls and ``seconds``
    of wall time per episode (None: the run's, ``--max-calls`` / ``--time-budget``)."""

    model_config = ConfigDict(extra="forbid")
    calls: int | None = Field(default=None, ge=1)
    seconds: float | None = Field(default=None, gt=0)


class BundleTask(BaseModel):
    """One task: ``id`` (unique in the bundle), ``query``, the gold program (``program`` the
    ``.edge`` text, ``trajectory`` the name of its trajectory, ``file`` where it came from),
    ``platforms`` and ``structure`` (``Seq``, ``Drv``, … as synthesis names them), ``gold_tools``
    (the tools the gold calls), ``tools`` (the exposed tools' qualified names, in exposed order)
    and ``schemas`` (their OpenAI function schemas, same order), ``writes`` (the gold calls a
    tool that changes state), ``gold_calls`` (how many calls the gold made when the bundle was
    made), ``answer`` (the gold answer then: informational; scoring recomputes it),
    ``world_seed`` (the file's own ``run { seed }``, which its world uses instead of the
    bundle's seed; None: the bundle's) and ``budget`` (the task's own budgets, None: the
    run's)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    query: str
    program: str
    trajectory: str
    file: str = ""
    platforms: list[str] = Field(default_factory=list)
    structure: str = "Seq"
    gold_tools: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    schemas: list[dict[str, Any]] = Field(default_factory=list)
    writes: bool = False
    gold_calls: int = 0
    answer: Any = None
    world_seed: int | None = None
    budget: TaskBudget | None = None


class Refusal(BaseModel):
    """A task left out of a bundle: its file, trajectory and why (``reason`` one of
    ``undetermined``, ``failed``, ``no_query``, ``does_not_compile``, ``duplicate``; ``detail``
    one line)."""

    model_config = ConfigDict(extra="forbid")
    file: str
    trajectory: str = ""
    reason: str
    detail: str = ""


class Bundle(BaseModel):
    """A versioned, content-hashed task bundle (module docstring). ``backend`` and ``seed`` are
    what the gold programs were checked on; ``tools_per_task`` the target number of exposed
    tools (a mean: tasks get ⌊K⌋ or ⌈K⌉); ``catalog`` the spec of every exposed tool as JSON,
    by qualified name; ``snapshot`` a store file for exact replay (None: none); ``refused`` the
    tasks left out and why."""

    model_config = ConfigDict(extra="forbid")
    version: int = BUNDLE_VERSION
    hash: str = ""
    backend: str = "world"
    seed: int = 0
    tools_per_task: float = 7.5
    catalog: dict[str, dict[str, Any]] = Field(default_factory=dict)
    tasks: list[BundleTask] = Field(default_factory=list)
    snapshot: str | None = None
    refused: list[Refusal] = Field(default_factory=list)
    _specs: dict[str, ToolSpec] = PrivateAttr(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        """Equal content (the cache of validated tool specs aside)."""
        return isinstance(other, Bundle) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def task(self, task_id: str) -> BundleTask:
        """The task ``task_id`` (KeyError naming it otherwise)."""
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"no task {task_id!r} in the bundle")

    def spec(self, qualname: str) -> ToolSpec:
        """The :class:`~edgedsl.plan.model.ToolSpec` of exposed tool ``qualname`` (KeyError
        when the bundle's catalog has no such tool)."""
        hit = self._specs.get(qualname)
        if hit is None:
            hit = self._specs[qualname] = validated(ToolSpec, self.catalog[qualname])
        return hit

    def sealed(self) -> Bundle:
        """This bundle with :attr:`hash` set to its content hash."""
        return self.model_copy(update={"hash": bundle_hash(self)})


def bundle_hash(bundle: Bundle) -> str:
    """The content hash of ``bundle``: hex SHA-256 of the canonical JSON of everything but
    ``hash`` (keys sorted, orjson; a task's ``budget`` only when it has one, so that bundles
    made before budgets existed keep their hash)."""
    data = bundle.model_dump(mode="json", exclude={"hash"})
    for t in data["tasks"]:  # a task without its own budget hashes as before budgets existed
        if t.get("budget") is None:
            t.pop("budget", None)
    blob = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


def save_bundle(bundle: Bundle, path: str | Path) -> Bundle:
    """Write ``bundle`` (sealed: its hash set) to ``path`` as indented JSON, atomically; returns
    the sealed bundle."""
    sealed = bundle.sealed()
    write_atomic(Path(path), orjson.dumps(sealed.model_dump(mode="json"),
                                          option=orjson.OPT_INDENT_2) + b"\n")
    return sealed


def load_bundle(path: str | Path) -> Bundle:
    """Read a bundle and check its version and content hash (:class:`BundleError` when it
    cannot be read, is not a bundle, is of another version or its hash does not match)."""
    p = Path(path)
    raw = read_json_object(p, "bundle", BundleError)
    if raw.get("version") != BUNDLE_VERSION:
        raise BundleError(f"bundle {str(p)!r} has version {raw.get('version')!r}; this edgedsl "
                          f"reads version {BUNDLE_VERSION}: remake it with `edgedsl bench make`")
    try:
        bundle = Bundle.model_validate(raw)
    except ValidationError as exc:
        raise BundleError(f"bundle {str(p)!r} is off the schema: "
                          f"{schema_problems(exc)}") from None
    want = bundle_hash(bundle)
    if bundle.hash != want:
        raise BundleError(f"bundle {str(p)!r}: its hash {bundle.hash[:12]!r} does not match its "
                          f"content ({want[:12]}); it was changed after it was made")
    return bundle


# ---------------------------------------------------------------- making a bundle


def edge_files(paths: Sequence[str | Path]) -> list[Path]:
    """The ``.edge`` files of ``paths``: a file as given, a directory's ``.edge`` files at any
    depth, sorted (:class:`BundleError` for a path that does not exist)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.rglob("*.edge")))
        elif p.is_file():
            out.append(p)
        else:
            raise BundleError(f"no such file or directory: {str(p)!r}")
    return list(dict.fromkeys(out))


def full_catalog() -> Catalog:
    """The catalog of every platform of the standard library (where distractors come from)."""
    from ..check import load_catalog
    from ..core.resources import stdlib_modules

    return load_catalog(stdlib_modules())


def _count(task: str, seed: int, k: float) -> int:
    """⌊k⌋ or ⌈k⌉ exposed tools for ``task``, so that the mean over tasks is ``k``."""
    lo = math.floor(k)
    u = int.from_bytes(rank_key(seed, task, "\x00count")[:8], "big") / 2.0**64
    return lo + (1 if u < k - lo else 0)


def exposed_tools(task: str, used: Sequence[str], catalog: Catalog, *, seed: int,
                  k: float) -> list[str]:
    """The tools exposed to ``task``: the ``used`` ones plus distractors up to ⌊k⌋ or ⌈k⌉ in
    all, half (rounded up) from the used tools' platforms and the rest from other platforms
    (either pool filling in when the other runs short), each pool ranked by
    :func:`~edgedsl.recipe.synth.tools_schema.rank_key`; the list ordered by the same key, so
    the gold tools are not always first."""
    chosen = set(used)
    mine = dict.fromkeys(q.partition(".")[0] for q in used)
    key = lambda q: rank_key(seed, task, q)  # noqa: E731
    same: list[str] = []
    other: list[str] = []
    for pname, plat in catalog.platforms.items():
        for t in plat.tools.values():
            if t.qualname not in chosen:
                (same if pname in mine else other).append(t.qualname)
    same.sort(key=key)
    other.sort(key=key)
    need = max(0, _count(task, seed, k) - len(used))
    n_same = min(len(same), (need + 1) // 2)
    n_other = min(len(other), need - n_same)
    n_same = min(len(same), need - n_other)
    return sorted([*used, *same[:n_same], *other[:n_other]], key=key)


def _tool(catalog: Catalog, qualname: str) -> Any:
    tool = catalog.tool(qualname)
    if tool is None:
        raise BundleError(f"tool `{qualname}` is not in the catalog")
    return tool


def _used_tools(tp: TrajectoryPlan) -> list[str]:
    return list(dict.fromkeys(s.request.tool for s in tp.steps.values()
                              if isinstance(s, CallStep | CompareStep)))


def make_bundle(paths: Sequence[str | Path], *, backend: str = "world", seed: int = 0,
                tools_per_task: float = 7.5, backend_options: Mapping[str, Any] | None = None,
                snapshot: str | None = None, progress: Callable[[str], None] | None = None,
                budgets: Mapping[str, TaskBudget] | None = None) -> Bundle:
    """A bundle of every trajectory of the ``.edge`` files under ``paths`` (module docstring):
    each gold program is compiled and run on a fresh ``backend`` (``world`` of ``seed``, or the
    file's own ``run { seed }``); a task whose gold run fails or whose answer is not determined
    is refused with its reason, as are a trajectory without a query, a file that does not
    compile and a second task of the same name. With ``snapshot`` (a store file) every gold
    run's responses are recorded there, so that ``--backend store`` replays them exactly.
    ``budgets`` gives tasks their own budgets, by task id (:class:`BundleError` for an id that
    names no trajectory of the files). The result is not sealed (:func:`save_bundle` seals
    it)."""
    from ..core.diagnostics import CompileError
    from ..plan.compile import compile_program
    from ..recipe.synth.analyze import structure_of
    from ..runtime.executor import run_sync
    from .gold import fresh_backend, run_gold, undetermined_reason

    if not tools_per_task >= 1:
        raise BundleError(f"tools per task must be at least 1, not {tools_per_task}")
    files = edge_files(paths)
    if not files:
        raise BundleError("no .edge files under " + ", ".join(map(str, paths)))
    catalog = full_catalog()
    bundle = Bundle(backend=backend, seed=seed, tools_per_task=tools_per_task,
                    snapshot=snapshot)
    seen: set[str] = set()
    for path in files:
        shown = str(path)
        try:
            text = path.read_text(encoding="utf-8")
            checked = api.check(Source(shown, text))
            plan = compile_program(checked.program)
            module = api.parse(Source(shown, text))
        except (CompileError, OSError, UnicodeDecodeError) as exc:
            first = next((d for d in getattr(exc, "diagnostics", []) if d.severity == "error"),
                         None)
            bundle.refused.append(Refusal(file=shown, reason="does_not_compile", detail=(
                f"{first.code}: {first.message}" if first else str(exc))))
            continue
        asts = {t.name: t for t in module.trajectories}
        for tp in plan.trajectories:
            refuse = lambda reason, detail, tp=tp, shown=shown: bundle.refused.append(  # noqa: E731
                Refusal(file=shown, trajectory=tp.name, reason=reason, detail=detail))
            if tp.name in seen:
                refuse("duplicate", f"a task named `{tp.name}` is already in the bundle")
                continue
            if not tp.query.strip():
                refuse("no_query", "the trajectory has no query")
                continue
            world_seed = plan.run.seed if plan.run.seed is not None else seed
            be = fresh_backend(backend, seed=world_seed, options=backend_options)
            if snapshot is not None:  # the gold run's responses, for exact replay
                from ..runtime.store_record import RecordingBackend

                be = RecordingBackend(be, Path(snapshot))
            try:
                result, gold = run_sync(run_gold(text, tp.name, be))
            finally:
                close = getattr(be, "close", None)
                if snapshot is not None and callable(close):
                    close()
            reason = undetermined_reason(result)
            if reason is not None:
                refuse("failed" if not result.ok else "undetermined", reason)
                continue
            seen.add(tp.name)
            used = _used_tools(tp)
            exposed = exposed_tools(tp.name, used, catalog, seed=seed, k=tools_per_task)
            specs = {q: plan.tools[q] if q in plan.tools else ToolSpec.of(
                _tool(catalog, q), catalog) for q in exposed}
            for q, spec in specs.items():
                bundle.catalog.setdefault(q, to_data(spec))
            bundle.tasks.append(BundleTask(
                id=tp.name, query=tp.query, program=text, trajectory=tp.name, file=shown,
                platforms=list(dict.fromkeys(q.partition(".")[0] for q in used)),
                structure=structure_of(asts[tp.name]), gold_tools=used, tools=exposed,
                schemas=[paged_schema(specs[q]) for q in exposed],
                writes=any(c.write for c in gold.calls), gold_calls=len(gold.calls),
                answer=gold.answer, world_seed=plan.run.seed,
                budget=(budgets or {}).get(tp.name)))
            if progress is not None:
                progress(tp.name)
    named = {t.id for t in bundle.tasks} | {r.trajectory for r in bundle.refused}
    stray = sorted(set(budgets or {}) - named)
    if stray:
        raise BundleError(f"budgets for tasks that are not in the files: {', '.join(stray)}")
    return bundle


def read_budgets(path: str | Path) -> dict[str, TaskBudget]:
    """The per-task budgets of a JSON file ``{"TASK": {"calls": N, "seconds": S}, …}`` (either
    key may be left out); :class:`BundleError` when it cannot be read or is off that shape."""
    p = Path(path)
    raw = read_json_object(p, "budgets", BundleError)
    try:
        return {str(k): TaskBudget.model_validate(v) for k, v in raw.items()}
    except ValidationError as exc:
        raise BundleError(f"budgets {str(p)!r}: {schema_problems(exc)}") from None
