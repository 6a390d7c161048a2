"""Load a corpus: the task records of a directory of ``.edge`` trajectories.

``DIR/tasks.jsonl`` (written by ``synth run``) is read when present; its records whose ``file``
exists are kept (a relative ``file`` is relative to ``DIR``). Every ``DIR/*.edge`` file no
record names is compiled and each of its trajectories run on one backend (``world`` by
default, deterministic from its seed: the file's ``run { seed }`` unless a ``seed`` is given,
else 0 — as ``edgedsl run FILE`` does, so a synthesized file runs on the world it was written
on); each run becomes a record through
:func:`~edgedsl.recipe.synth.trace_record.task_record`, with the first result records of every call.
A file that does not compile, a run that fails and a record whose file is missing are
*problems* — ``(file, reason)`` pairs returned beside the records — never a traceback. A
corrupt ``tasks.jsonl`` raises :class:`~edgedsl.recipe.synth.record.RecordFileError` naming the
line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...core.diagnostics import CompileError
from ...plan.model import ToolSpec
from ...runtime.backends import Backend, Response, make_backend
from .record import RESULT_HEAD, TaskRecord, read_records
from .trace_record import keep_for, task_record

__all__ = ["TASKS_FILE", "Corpus", "HeadRecorder", "load_corpus"]

TASKS_FILE = "tasks.jsonl"
"""The record file of a synthesized directory."""


@dataclass
class Corpus:
    """The records of a directory and the problems met loading it (both sorted)."""

    records: list[TaskRecord] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def _jsonable(v: object) -> Any:
    """orjson ``default``: decimals as ints or floats, anything else as text."""
    import decimal

    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return str(v)


def _key(tool: str, args: Mapping[str, Any], page: int | None) -> tuple[str, bytes, int | None]:
    return tool, orjson.dumps(dict(args), option=orjson.OPT_SORT_KEYS, default=_jsonable), page


class HeadRecorder:
    """A backend wrapper keeping the first :data:`RESULT_HEAD` records of every page it answers,
    for :func:`task_record`'s ``results`` (``recorder.results``). Other attributes (``name``,
    ``store``, ``unsupported``) are the wrapped backend's."""

    def __init__(self, backend: Backend) -> None:
        """Wrap ``backend``."""
        self.backend = backend
        self.name = backend.name
        self.heads: dict[tuple[str, bytes, int | None], list[dict[str, Any]]] = {}

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.backend, attr)

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """Answer with the wrapped backend, keeping the head of the response."""
        resp = await self.backend.call(tool, args, page=page)
        self.heads[_key(tool.qualname, args, page)] = resp.head(RESULT_HEAD)
        return resp

    def results(self, tool: str, args: dict[str, Any], page: int | None
                ) -> list[dict[str, Any]] | None:
        """The head kept for one call page (None when it was not answered here)."""
        return self.heads.get(_key(tool, args, page))


def _resolve(directory: Path, file: str) -> Path:
    p = Path(file)
    return p if p.is_absolute() else directory / p


def _reason(exc: BaseException) -> str:
    """A one-line reason: the first three errors of a CompileError, else the exception."""
    if isinstance(exc, CompileError):
        errors = [d for d in exc.diagnostics if d.severity == "error"] or exc.diagnostics
        return "; ".join(f"{d.code} {d.message}" for d in errors[:3]) or str(exc)
    return f"{type(exc).__name__}: {exc}"


def _run_file(path: Path, rel: str, backend_for: Callable[[int | None], HeadRecorder],
              search_paths: Sequence[Path], phi: int, corpus: Corpus) -> None:
    from ...api import compile, parse, read_source
    from ...runtime.executor import run

    try:
        source = read_source(path)
        module = parse(source)
        if not module.trajectories:
            return
        plan = compile(source, search_paths=list(search_paths), phi=phi)
    except (CompileError, OSError, UnicodeDecodeError, ValueError) as exc:
        corpus.problems.append((rel, _reason(exc)))
        return
    backend = backend_for(plan.run.seed)
    world = getattr(backend.backend, "world", None)  # the seed a record names is the world's
    seed = getattr(world, "seed", None) if world is not None else None
    for traj in module.trajectories:
        result = run(plan, traj.name, backend, phi=phi, keep=keep_for(plan, traj.name))
        if not result.ok:
            why = "; ".join(f"{d.code} {d.message}" for d in result.diagnostics[:3])
            corpus.problems.append((rel, f"trajectory `{traj.name}` failed: {why}"))
            continue
        corpus.records.append(task_record(
            traj, plan, result, file=rel, results=backend.results, seed=seed,
            text=source.text))


def load_corpus(
    directory: str | Path,
    *,
    backend: str | Backend = "world",
    seed: int | None = None,
    search_paths: Sequence[str | Path] = (),
    phi: int = 5,
) -> Corpus:
    """The task records of ``directory`` (module docstring): ``tasks.jsonl`` records, then runs
    of the ``.edge`` files they do not cover. ``backend`` is a name (``world`` gets ``seed``,
    or when it is None each file's ``run { seed }``, else 0: one world per seed) or a backend;
    records are sorted by (file, name), problems by (file, reason)."""
    directory = Path(directory)
    corpus = Corpus()
    covered: set[Path] = set()
    tasks = directory / TASKS_FILE
    if tasks.is_file():
        for rec in read_records(tasks):
            path = _resolve(directory, rec.file)
            if path.is_file():
                corpus.records.append(rec)
                covered.add(path.resolve())
            else:
                corpus.problems.append((rec.file, f"record `{rec.name}`: the file does not exist"))
    todo = [p for p in sorted(directory.glob("*.edge")) if p.resolve() not in covered]
    if todo:
        paths = [Path(p) for p in search_paths]
        made: dict[int | None, HeadRecorder] = {}

        def backend_for(stated: int | None) -> HeadRecorder:
            """The backend a file runs on: one world per seed (``seed``, else the file's)."""
            key = (seed if seed is not None else stated or 0) if backend == "world" else None
            if key not in made:
                made[key] = HeadRecorder(
                    backend if not isinstance(backend, str) else
                    make_backend(backend, seed=key) if backend == "world" else
                    make_backend(backend))
            return made[key]

        for path in todo:
            _run_file(path, path.name, backend_for, paths, phi, corpus)
    corpus.records.sort(key=lambda r: (r.file, r.name))
    corpus.problems.sort()
    return corpus
