"""τ²-bench retail (Sierra Research, MIT) → edgedsl: each task's gold actions as a trajectory.

The suite's folder (``SRC``) holds ``retail/tasks.json`` (each task's gold ``actions``),
``retail/split_tasks.json`` (``train`` / ``test``; the test tasks are held out: only an
explicit ``--split test`` reads them), ``retail/db.json`` and ``derived/retail_gold_replay.jsonl``
(what every gold action returned, and the records the gold changes). Each task becomes one file
``task_<id>.edge``: one binding per gold action, in order (``after: seq prev.step``, see
:mod:`.stateful`), an argument equal to a key field of an earlier answer written as a
reference (:mod:`.refs`); the answer is the last call's ``step``, the calls the environment
completed. The check replays each written file on a fresh :class:`~.tau2_retail.RetailEnv`
and compares its database with the gold's, record by record.
"""

from __future__ import annotations

import inspect
import json
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..syntax import nodes as n
from .catalog import ToolSig, platform_decl, signature_params
from .emit import formatted, program
from .model import SPLITS, FieldRef, GoldCall, GoldCase, SuiteError, check_split
from .outcome import Reproduced, Written, failure, program_files, run_file, write_files
from .refs import forward, in_gold_order
from .stateful import STEP_FIELD
from .tau2_retail import KEYS, OUTPUTS, PLATFORM, RetailEnv, as_record, retail_tools

__all__ = ["SPLITS", "catalog_module", "check", "load_cases", "normalised", "write"]

_FIELD_TYPES = {"result": "str", "value": "json"}

TOOLS_FILE = '''"""The tau2 retail tools over db.json beside this file, for `edgedsl run
--backend python --tools tools.py task_N.edge` (written by `edgedsl import tau2`; the tools live in
edgedsl.suites.tau2_retail). One environment per process: run one task per command."""

import json
from pathlib import Path

from edgedsl.suites.tau2_retail import RetailEnv, retail_tools

ENV = RetailEnv(json.loads(Path(__file__).with_name("db.json").read_text(encoding="utf-8")))
TOOLS = retail_tools(ENV)
'''
"""The ``tools.py`` an import writes: it names the shipped tools over the copied database."""


def _json(path: Path) -> Any:
    if not path.is_file():
        raise SuiteError(f"{path}: missing (expected τ²'s retail data, see SRC/README.md)")
    return json.loads(path.read_text(encoding="utf-8"))


def task_ids(src: Path, split: str) -> list[str]:
    """The task ids of ``split`` (``train``, ``test`` or ``all``) in the suite's order."""
    check_split(split)
    splits = _json(src / "retail" / "split_tasks.json")
    if split == "all":
        return [*splits["train"], *splits["test"]]
    return list(splits[split])


def _replay(src: Path, ids: set[str]) -> dict[str, dict[str, Any]]:
    """The replay lines of the tasks ``ids`` (the others are not parsed)."""
    path = src / "derived" / "retail_gold_replay.jsonl"
    if not path.is_file():
        raise SuiteError(f"{path}: missing (the replay of the gold actions)")
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {r["task_id"]: r for r in rows if r["task_id"] in ids}


def _record(step: dict[str, Any]) -> dict[str, Any] | None:
    if step.get("error"):
        return None
    return as_record(OUTPUTS[step["name"]], step["output"])


def load_cases(src: Path, split: str = "train",
               only: Collection[str] | None = None) -> list[GoldCase]:
    """The gold cases of ``split`` (``only``: those of these ids): each task's actions,
    forwarded values as references (found in the replay's outputs), ordered by ``after``.
    ``extra`` holds the replay's changed records (``changed``) and how many values stayed
    literal (``nested``)."""
    ids = task_ids(src, split)
    if only is not None:
        unknown = set(only) - set(ids)
        if unknown:
            raise SuiteError(f"tasks {sorted(unknown)} are not in the split {split!r}")
        ids = [i for i in ids if i in set(only)]
    tasks = {t["id"]: t for t in _json(src / "retail" / "tasks.json") if t["id"] in set(ids)}
    replay = _replay(src, set(ids))
    cases = []
    for tid in ids:
        task, rep = tasks[tid], replay.get(tid)
        if rep is None:
            raise SuiteError(f"task {tid}: no replay line")
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        steps = rep["steps"]
        if [a["name"] for a in actions] != [s["name"] for s in steps]:
            raise SuiteError(f"task {tid}: the replay's actions are not the task's")
        calls = []
        for i, a in enumerate(actions):
            if a["name"] not in OUTPUTS:
                raise SuiteError(f"task {tid}: unknown retail tool `{a['name']}`")
            calls.append(GoldCall(label=f"a{i}", tool=a["name"], args=dict(a["arguments"])))
        records = [_record(s) for s in steps]
        fields = [KEYS[OUTPUTS[c.tool]] for c in calls]
        fw = forward(calls, records, fields)
        ordered = in_gold_order(fw.calls)
        query = task["user_scenario"]["instructions"]["reason_for_call"]
        last = FieldRef(ordered[-1].label, STEP_FIELD) if ordered else None
        cases.append(GoldCase(case_id=tid, name=f"task_{tid}", query=query,
                              calls=tuple(ordered), answer=last, gold_answer=len(ordered),
                              extra={"changed": rep["changed_records"], "nested": fw.nested,
                   "nested_in_lists": fw.in_lists}))
    return cases


def catalog_module() -> n.Module:
    """The ``tau2_retail`` catalog: one record per kind of answer, one tool per operation."""
    env = RetailEnv({"products": {}, "users": {}, "orders": {}})
    records = {kind: {f: _FIELD_TYPES.get(f, "str")
                      for f in (keys if kind == "Text" else (*keys, "value"))}
               for kind, keys in KEYS.items()}
    tools = {name: ToolSig(doc=(inspect.getdoc(getattr(env, name)) or name).split("\n\n")[0],
                           params=signature_params(getattr(env, name), f"{PLATFORM}.{name}"),
                           record=kind)
             for name, kind in OUTPUTS.items()}
    doc = "τ²-bench 소매(retail) 도구: 프로세스 안의 JSON 데이터베이스 위에서 부른다"
    comments = ("# τ²-bench (Sierra Research, MIT) retail 도구의 카탈로그 "
                "(`edgedsl import tau2`가 씀).",
                "# 모든 기록의 step은 환경이 마친 호출 수, after는 앞 호출의 step (골드 순서).")
    return n.Module(items=(platform_decl(PLATFORM, doc, records, tools, comments),))


def write(src: Path, out: Path, split: str = "train") -> Written:
    """Write ``task_<id>.edge`` per task with gold actions, the catalog ``tau2_retail.edge``,
    ``tools.py`` and a copy of ``db.json`` into ``out``."""
    cases = [c for c in load_cases(src, split) if c.calls]
    out.mkdir(parents=True, exist_ok=True)
    files = {out / f"{PLATFORM}.edge": formatted(catalog_module(), f"{PLATFORM}.edge"),
             out / "tools.py": TOOLS_FILE}
    programs, written, skipped = program_files(
        cases, out, lambda c: formatted(program([c], PLATFORM), f"{c.name}.edge"))
    write_files({**files, **programs})
    shutil.copyfile(src / "retail" / "db.json", out / "db.json")
    return Written.of("tau2", out, [*files, *programs, out / "db.json"], written, skipped)


def normalised(value: Any) -> Any:
    """A record with its null fields left out (the replay writes every optional field of the
    upstream data model, null when unset; the JSON database leaves them out)."""
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def changed_records(start: dict[str, Any], end: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every record of ``end`` that differs from ``start``, by table (normalised)."""
    out: dict[str, dict[str, Any]] = {}
    for table, recs in end.items():
        for key, rec in recs.items():
            if normalised(rec) != normalised(start[table].get(key)):
                out.setdefault(table, {})[key] = normalised(rec)
    return out


def check(src: Path, out: Path, split: str = "train",
          only: Collection[str] | None = None) -> Reproduced:
    """Run each written task (``only``: of these ids) on a fresh database; database-exact when
    the records it changes are exactly the gold's changed records, with the same content."""
    db = _json(src / "retail" / "db.json")
    rep = Reproduced(suite="tau2", what="tasks database-exact")
    for case in load_cases(src, split, only):
        gold = {t: {k: normalised(v) for k, v in recs.items()}
                for t, recs in case.extra["changed"].items() if recs}
        env = RetailEnv(db)
        if case.calls:
            path = out / f"{case.name}.edge"
            if not path.is_file():
                rep.add(case.case_id, f"{path.name} was not written")
                continue
            [result] = run_file(path, retail_tools(env))
            if not result.ok:
                rep.add(case.case_id, failure(result))
                continue
            if result.answer != case.gold_answer:
                rep.add(case.case_id, f"{result.answer} of {case.gold_answer} calls made")
                continue
        got = changed_records(db, env.db)
        if got == gold:
            rep.add(case.case_id, None)
        else:
            diff = sorted({(t, k) for t in {*got, *gold} for k in {*got.get(t, {}),
                           *gold.get(t, {})} if got.get(t, {}).get(k) != gold.get(t, {}).get(k)})
            rep.add(case.case_id, f"records differ: {diff[:5]}")
    return rep
