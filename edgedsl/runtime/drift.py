"""Drift: call every recorded call again through a backend and compare with what the store holds.

For each recorded response whose tool declaration the store keeps (``tools.spec``), the call is
made again with its recorded arguments and page (dates restored from their ISO text by the
parameter's type). The two record lists are compared per tool and *field path* — a record's keys,
nested objects flattened with dots (``stock.code``); a list is one value:

- **cardinality changed** — the number of records differs (per response);
- **schema changed** — field paths present in the new records of a tool and in none of its
  recorded ones (added), or the other way round (removed);
- **value changed** — for a path present on both sides, some record at the same position holds
  a different value (counted per response, and across the responses of the tool);
- **unchanged** — otherwise.

Records are compared position by position (the services' order is part of what is recorded), so
an inserted record shifts, and changes, the values after it. A call that fails now is counted as
*failed* with its message. Given trajectories, each is run once on the store (strict replay) and
once on the backend; those whose answers (or success) differ are listed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..core.sqlquote import quote_ident
from ..core.types import ListType, type_from_json
from ..plan.model import Plan, ToolSpec
from .backends import Backend, ToolFailure
from .executor import at_least_one
from .store import Store, describe_call
from .store_replay import StoreBackend

__all__ = [
    "DriftReport",
    "ToolDrift",
    "TrajectoryDrift",
    "drift",
    "field_paths",
    "flatten",
    "restore_args",
]

_MAX_EXAMPLES = 3


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}, "c": [1]}`` → ``{"a.b": 1, "c": [1]}`` (lists are values)."""
    out: dict[str, Any] = {}
    for k, v in record.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def field_paths(records: Iterable[Mapping[str, Any]]) -> set[str]:
    """Every field path of any of ``records``."""
    paths: set[str] = set()
    for r in records:
        paths.update(flatten(r))
    return paths


def _restore(value: Any, t: Any) -> Any:
    if isinstance(t, ListType) and isinstance(value, list):
        return [_restore(v, t.item) for v in value]
    if getattr(t, "kind", None) == "date" and isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value) if "T" in value else \
                dt.date.fromisoformat(value)
        except ValueError:
            return value
    return value


def restore_args(tool: ToolSpec, args: Mapping[str, Any]) -> dict[str, object]:
    """Recorded (canonical, JSON) arguments back in the form the executor passes: dates as
    :class:`datetime.date`, by the tool's parameter types."""
    types = {p.name: type_from_json(p.type) for p in tool.params}
    return {k: _restore(v, types[k]) if k in types else v for k, v in args.items()}


@dataclass
class ToolDrift:
    """The drift of one tool declaration."""

    tool: str
    decl_hash: str
    responses: int = 0
    refetched: int = 0
    failed: int = 0
    cardinality_changed: int = 0
    total_changed: int = 0
    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    value_changed: dict[str, int] = field(default_factory=dict)  # path → responses
    unchanged: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)  # the first few messages
    skipped: str | None = None  # why the tool could not be called again

    @property
    def drifted(self) -> bool:
        """True when anything changed (failures included)."""
        return bool(self.failed or self.cardinality_changed or self.added or self.removed
                    or self.value_changed or self.skipped)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (sorted paths)."""
        return {
            "tool": self.tool, "decl_hash": self.decl_hash, "responses": self.responses,
            "refetched": self.refetched, "failed": self.failed,
            "cardinality_changed": self.cardinality_changed,
            "total_changed": self.total_changed,
            "schema_changed": {"added": sorted(self.added), "removed": sorted(self.removed)},
            "value_changed": dict(sorted(self.value_changed.items())),
            "unchanged": sorted(self.unchanged), "failures": self.failures,
            "skipped": self.skipped,
        }


@dataclass
class TrajectoryDrift:
    """One trajectory run on the store and on the backend."""

    file: str
    trajectory: str
    store_ok: bool
    backend_ok: bool
    store_answer: Any
    backend_answer: Any

    @property
    def changed(self) -> bool:
        """True when the answers (or success) differ."""
        return self.store_ok != self.backend_ok or self.store_answer != self.backend_answer

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"file": self.file, "trajectory": self.trajectory, "changed": self.changed,
                "store": {"ok": self.store_ok, "answer": self.store_answer},
                "backend": {"ok": self.backend_ok, "answer": self.backend_answer}}


@dataclass
class DriftReport:
    """Per tool and field path, and per trajectory."""

    store: str
    backend: str
    tools: list[ToolDrift] = field(default_factory=list)
    trajectories: list[TrajectoryDrift] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        """True when some tool drifted or some trajectory's answer changed."""
        return any(t.drifted for t in self.tools) or any(t.changed for t in self.trajectories)

    @property
    def changed_trajectories(self) -> list[TrajectoryDrift]:
        """The trajectories whose answers change."""
        return [t for t in self.trajectories if t.changed]

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"store": self.store, "backend": self.backend, "drifted": self.drifted,
                "tools": [t.to_json() for t in self.tools],
                "trajectories": [t.to_json() for t in self.trajectories],
                "changed_trajectories": [f"{t.file}:{t.trajectory}"
                                         for t in self.changed_trajectories]}

    def text(self) -> str:
        """A readable report."""
        def j(v: Any) -> str:
            return orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()

        lines = [f"drift of {self.store} against the {self.backend} backend"]
        for t in self.tools:
            head = f"{t.tool} (declaration {t.decl_hash}): {t.responses} responses"
            if t.skipped:
                lines.append(f"{head} — skipped: {t.skipped}")
                continue
            lines.append(f"{head}, {t.refetched} re-fetched, {t.failed} failed"
                         + ("" if t.drifted else " — unchanged"))
            for msg in t.failures:
                lines.append(f"  failed: {msg}")
            if t.cardinality_changed:
                lines.append(f"  cardinality changed: {t.cardinality_changed} of "
                             f"{t.refetched} responses")
            if t.total_changed:
                lines.append(f"  reported total changed: {t.total_changed} of {t.refetched}")
            if t.added or t.removed:
                lines.append("  schema changed: " + ", ".join(
                    [f"+{p}" for p in sorted(t.added)] + [f"-{p}" for p in sorted(t.removed)]))
            for p, n in sorted(t.value_changed.items()):
                lines.append(f"  value changed: {p} ({n} of {t.refetched} responses)")
            if t.unchanged:
                lines.append("  unchanged: " + ", ".join(sorted(t.unchanged)))
        if self.trajectories:
            ch = self.changed_trajectories
            lines.append(f"trajectories whose answers change: {len(ch)} of "
                         f"{len(self.trajectories)}")
            for c in ch:
                lines.append(f"  {c.file}: {c.trajectory}")
                lines.append(f"    store:   {'ok' if c.store_ok else 'FAILED'} "
                             f"{j(c.store_answer)}")
                lines.append(f"    backend: {'ok' if c.backend_ok else 'FAILED'} "
                             f"{j(c.backend_answer)}")
        return "\n".join(lines)


# ---------------------------------------------------------------- comparing


def _compare(td: ToolDrift, old: list[dict[str, Any]], new: list[dict[str, Any]],
             old_total: int | None, new_total: int | None,
             paths: tuple[set[str], set[str]]) -> None:
    td.refetched += 1
    if len(old) != len(new):
        td.cardinality_changed += 1
    if old_total != new_total:
        td.total_changed += 1
    old_paths, new_paths = field_paths(old), field_paths(new)
    paths[0].update(old_paths)
    paths[1].update(new_paths)
    common = old_paths & new_paths
    changed: set[str] = set()
    for a, b in zip(old, new, strict=False):
        fa, fb = flatten(a), flatten(b)
        for p in common:
            if p not in changed and fa.get(p) != fb.get(p):
                changed.add(p)
    for p in changed:
        td.value_changed[p] = td.value_changed.get(p, 0) + 1


async def _refetch(backend: Backend, calls: Sequence[tuple[ToolSpec, dict[str, object],
                                                            int | None]],
                   concurrency: int) -> list[Any]:
    sem = asyncio.Semaphore(concurrency)

    async def one(tool: ToolSpec, args: dict[str, object], page: int | None) -> Any:
        async with sem:
            try:
                resp = await backend.call(tool, args, page=page)
                return resp.records, resp.total
            except ToolFailure as f:
                return f
            except Exception as exc:  # a backend bug: reported, not fatal to the report
                return ToolFailure("structural", "R503", f"{type(exc).__name__}: {exc}")

    try:
        return list(await asyncio.gather(*(one(*c) for c in calls)))
    finally:
        aclose = getattr(backend, "aclose", None)
        if callable(aclose):
            await aclose()


def _stored(store: Store, table: str, decl: str
            ) -> list[tuple[str, dict[str, Any], int | None, int | None, list[dict[str, Any]]]]:
    rows = store.con.execute(
        "SELECT key, args, page, total FROM responses WHERE decl_hash = ? ORDER BY key",
        [decl]).fetchall()
    recs: dict[str, list[dict[str, Any]]] = {}
    for key, raw in store.con.execute(
            f'SELECT "__key", "__raw" FROM {quote_ident(table)} ORDER BY "__key", "__row"'
    ).fetchall():
        recs.setdefault(key, []).append(orjson.loads(raw))
    return [(k, orjson.loads(a), p, t, recs.get(k, [])) for k, a, p, t in rows]


def drift(store: str | Path, backend: Backend, *, backend_name: str | None = None,
          plans: Sequence[tuple[str, Plan]] = (), concurrency: int = 8) -> DriftReport:
    """Re-fetch every stored call through ``backend`` and compare (module docstring).

    ``plans`` are ``(file name, plan)`` pairs whose trajectories are run on the store (strict
    replay) and on ``backend``. ``concurrency`` (≥ 1) bounds the calls in flight."""
    at_least_one(concurrency=concurrency)
    report = DriftReport(str(store), str(backend_name or getattr(backend, "name", "backend")))
    with Store(store, read_only=True) as st:
        specs = st.specs()
        tools = st.con.execute(
            "SELECT t.decl_hash, t.qualname, t.records_table, count(r.key) FROM tools t "
            "LEFT JOIN responses r ON r.decl_hash = t.decl_hash GROUP BY ALL "
            "ORDER BY t.qualname, t.decl_hash").fetchall()
        work: list[tuple[ToolDrift, ToolSpec, list[Any]]] = []
        for decl, qualname, table, n in tools:
            td = ToolDrift(qualname, decl, responses=int(n))
            report.tools.append(td)
            spec = specs.get(decl)
            if spec is None:
                td.skipped = ("the store keeps no declaration for it (recorded by an older "
                              "edgedsl); record it again to enable drift")
                continue
            if n:
                work.append((td, spec, _stored(st, table, decl)))
    calls = [(spec, restore_args(spec, a), p) for _, spec, rows in work for _, a, p, _, _ in rows]
    results = _sync(_refetch(backend, calls, concurrency)) if calls else []
    it = iter(results)
    for td, spec, rows in work:
        paths: tuple[set[str], set[str]] = (set(), set())  # over all responses: old, new
        for _key, args, page, total, old in rows:
            got = next(it)
            if isinstance(got, ToolFailure):
                td.failed += 1
                if len(td.failures) < _MAX_EXAMPLES:
                    td.failures.append(f"{describe_call(spec, args, page)}: {got.code} "
                                       f"{got.message}")
                continue
            new, new_total = got
            _compare(td, old, list(new), total, new_total, paths)
        td.added, td.removed = paths[1] - paths[0], paths[0] - paths[1]
        td.unchanged = (paths[0] & paths[1]) - set(td.value_changed)
    for name, plan in plans:
        report.trajectories.extend(_rerun(store, name, plan, backend))
    return report


def _rerun(store: str | Path, file: str, plan: Plan, backend: Backend) -> list[TrajectoryDrift]:
    from .executor import run_plan_sync

    with StoreBackend(store, strict=True) as replay:
        on_store = run_plan_sync(plan, replay)
    on_backend = run_plan_sync(plan, backend)
    return [TrajectoryDrift(file, a.trajectory, a.ok, b.ok, _jsonable(a.answer),
                            _jsonable(b.answer))
            for a, b in zip(on_store, on_backend, strict=True)]


def _jsonable(v: Any) -> Any:
    return orjson.loads(orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS))


def _sync(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:  # inside a running loop (a notebook): its own thread
        return pool.submit(asyncio.run, coro).result()
