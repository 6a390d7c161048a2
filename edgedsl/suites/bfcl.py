"""BFCL v4 multi-turn base (Berkeley, Apache-2.0) → edgedsl: each entry's gold calls, over all
its turns, as one trajectory on the simulators of :mod:`.bfcl_env`.

The suite's folder (``SRC``) holds ``BFCL_v4_multi_turn_base.json`` (each entry's turns,
``initial_config`` and classes), ``multi_turn_func_doc/*.json`` (every function's parameters
and answer, which become the catalogs: one platform per class) and
``derived/multi_turn_base_gold_execution.jsonl`` (every gold call parsed into positional and
keyword arguments, what it returned, and the public state after each turn). Entries 0–149
are ``train``; 150–199 are held out (``test``), read only when named. Each entry becomes
``entry_<N>.edge`` (with ``tools.py`` and ``scenarios.json`` for ``edgedsl run``): a binding
per gold call in order (``after: seq prev.step``, see :mod:`.stateful`; a turn's first call
carries the turn's request as a comment), an argument equal to an earlier answer's field
written as a reference (:mod:`.refs`). The check runs each
file on fresh simulators and compares the public state after every turn with the replay's.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..syntax import nodes as n
from .bfcl_env import (
    CLASSES,
    ELEMENTS,
    BfclEnv,
    as_record,
    bfcl_tools,
    element_field,
    simulator_class,
)
from .catalog import ToolSig, platform_decl
from .emit import formatted, program
from .model import SPLITS, FieldRef, GoldCall, GoldCase, SuiteError, check_split
from .outcome import Reproduced, Written, failure, program_files, run_file, write_files
from .refs import forward, in_gold_order
from .stateful import ORDER_PARAM, STEP_FIELD

__all__ = ["CLASSES", "SPLITS", "TRAIN", "call_arguments", "catalog_modules", "check",
           "in_split", "lifted", "load_cases", "load_docs", "write"]

TRAIN = range(0, 150)
"""Entries ``multi_turn_base_0`` … ``_149``; the others (150 … 199) are held out."""
_TYPES = {"string": "str", "integer": "int", "float": "num", "number": "num",
          "boolean": "bool"}
_RESERVED = {STEP_FIELD, "error", "value", ORDER_PARAM}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise SuiteError(f"{path}: missing (expected BFCL's multi-turn base data)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _number(entry_id: str) -> int:
    m = re.fullmatch(r"multi_turn_base_(\d+)", entry_id)
    if m is None:
        raise SuiteError(f"entry id {entry_id!r} is not multi_turn_base_N")
    return int(m.group(1))


def in_split(entry_id: str, split: str) -> bool:
    """Whether the entry belongs to ``split`` (``train``: 0–149, ``test``: the rest)."""
    check_split(split)
    return split == "all" or (_number(entry_id) in TRAIN) == (split == "train")


def _type(schema: dict[str, Any], optional: bool = False) -> n.TypeExpr:
    t = schema.get("type")
    if t in _TYPES:
        return n.NamedTypeExpr(name=_TYPES[t], optional=optional)
    if t == "array" and schema.get("items", {}).get("type") in _TYPES:
        return n.ListTypeExpr(item=_type(schema["items"]), optional=optional)
    return n.NamedTypeExpr(name="json", optional=optional)


def load_docs(src: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Every class's function documentation, by class and function name."""
    out = {}
    for cls, (stem, _) in CLASSES.items():
        docs = _jsonl(src / "multi_turn_func_doc" / f"{stem}.json")
        out[cls] = {d["name"]: d for d in docs}
    return out


def lifted(doc: dict[str, Any]) -> dict[str, str]:
    """The scalar fields of a function's documented answer, lifted into its record (those
    whose name is an edgedsl name; every field stays in ``value``), then for a documented list
    of texts (``ls``'s ``current_directory_content``, a ``watchlist``) its first
    :data:`~.bfcl_env.ELEMENTS` elements as ``<field>_1`` … (``bfcl_env.as_record``): a later
    call given one of them (``cd`` into a folder ``ls`` listed) references it."""
    props = (doc.get("response") or {}).get("properties") or {}
    out = {f: _TYPES[s["type"]] for f, s in props.items()
           if s.get("type") in _TYPES and f not in _RESERVED and _NAME.fullmatch(f)}
    for f, s in props.items():
        if s.get("type") == "array" and (s.get("items") or {}).get("type") == "string" \
                and _NAME.fullmatch(f):
            out.update({element_field(f, i): "str" for i in range(1, ELEMENTS + 1)
                        if element_field(f, i) not in props})
    return out


def catalog_modules(src: Path) -> dict[str, n.Module]:
    """One catalog module per class (its platform): a record and a tool per function."""
    out = {}
    for cls, docs in load_docs(src).items():
        platform = CLASSES[cls][1]
        records, tools = {}, {}
        for name, doc in docs.items():
            record = "".join(p.title() for p in name.split("_")) + "Out"
            fields = lifted(doc)
            records[record] = {**fields, "value": "json"}
            props = doc["parameters"].get("properties") or {}
            required = set(doc["parameters"].get("required") or [])
            params = tuple(n.ParamDecl(name=p, type=_type(s, p not in required))
                           for p, s in props.items())
            text = doc.get("description", name).split("Tool description:")[-1].strip()
            tools[name] = ToolSig(doc=text, params=params, record=record)
        comments = (f"# BFCL (Berkeley, Apache-2.0) {cls}의 카탈로그 (`edgedsl import bfcl`가 씀).",
                    "# 모든 기록의 step은 환경이 마친 호출 수, after는 앞 호출의 step (골드 순서).")
        out[platform] = n.Module(items=(platform_decl(
            platform, f"BFCL 시뮬레이터 {cls} (bfcl-eval의 클래스를 프로세스 안에서 부른다)",
            records, tools, comments),))
    return out


def call_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """A gold call's arguments by name, read from the call's text (``f(a, b=[1])``) with
    :func:`ast.literal_eval` on each argument — literals only, nothing runs. (The replay's
    parsed ``args``/``kwargs`` were written after the run: a list the simulator kept and later
    changed shows the change, so the text is the gold.) Positional arguments are named from the
    method's signature."""
    try:
        node = ast.parse(call["call"], mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call of a function name")
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (SyntaxError, ValueError) as exc:
        raise SuiteError(f"gold call {call['call']!r} is not a call with literal arguments "
                         f"({exc})") from None
    if node.func.id != call["function"]:
        raise SuiteError(f"gold call {call['call']!r} is not `{call['function']}`")
    if args:
        sig = inspect.signature(getattr(simulator_class(call["class"]), call["function"]))
        names = [p for p in sig.parameters if p != "self"]
        if len(args) > len(names):
            raise SuiteError(f"gold call {call['call']!r} has too many arguments")
        kwargs.update(zip(names, args, strict=False))
    return {k: v for k, v in kwargs.items() if v is not None}


def load_cases(src: Path, split: str = "train",
               only: Collection[str] | None = None) -> list[GoldCase]:
    """The gold cases of ``split`` (``only``: of these entry ids), with forwarded values as
    references; ``extra``: the classes, initial config, calls per turn and states after each
    turn from the replay, and the turns' requests."""
    entries = {e["id"]: e for e in _jsonl(src / "BFCL_v4_multi_turn_base.json")
               if in_split(e["id"], split)}
    if only is not None:
        unknown = set(only) - set(entries)
        if unknown:
            raise SuiteError(f"entries {sorted(unknown)} are not in the split {split!r}")
        entries = {k: v for k, v in entries.items() if k in set(only)}
    docs = load_docs(src)
    cases = []
    for gold in _jsonl(src / "derived" / "multi_turn_base_gold_execution.jsonl"):
        entry = entries.get(gold["id"])
        if entry is None:
            continue
        asks = [" ".join(" ".join(m["content"].split()) for m in turn
                         if m.get("role") == "user") for turn in entry["question"]]
        calls: list[GoldCall] = []
        records: list[dict[str, Any] | None] = []
        fields: list[tuple[str, ...]] = []
        per_turn: list[int] = []
        for t, turn in enumerate(gold["turns"]):
            per_turn.append(len(turn["calls"]))
            for k, c in enumerate(turn["calls"]):
                platform = CLASSES[c["class"]][1]
                note = (f"# turn {t + 1}: {asks[t]}",) if k == 0 and t < len(asks) else ()
                calls.append(GoldCall(label=f"t{t}_{k}", tool=f"{platform}.{c['function']}",
                                      args=call_arguments(c), comments=note))
                doc_fields = lifted(docs[c["class"]][c["function"]])
                records.append(None if c.get("error") else as_record(c["result"], doc_fields))
                fields.append(tuple(doc_fields))
        fw = forward(calls, records, fields, numbers=True)
        ordered = in_gold_order(fw.calls)
        last = FieldRef(ordered[-1].label, STEP_FIELD) if ordered else None
        cases.append(GoldCase(
            case_id=gold["id"], name=f"entry_{_number(gold['id'])}", query=asks[0] if asks
            else gold["id"], calls=tuple(ordered), answer=last, gold_answer=len(ordered),
            extra={"classes": entry["involved_classes"], "config": entry["initial_config"],
                   "per_turn": per_turn, "states": [t["state_after"] for t in gold["turns"]],
                   "nested": fw.nested, "nested_in_lists": fw.in_lists}))
    return cases


def _program(case: GoldCase) -> n.Module:
    """The entry's module: it uses the catalogs of the entry's classes."""
    uses = tuple(sorted({CLASSES[c][1] for c in case.extra["classes"]}))
    return program([case], "", uses=uses)


def write(src: Path, out: Path, split: str = "train") -> Written:
    """Write ``entry_<N>.edge`` per entry and one catalog per class into ``out``."""
    cases = [c for c in load_cases(src, split) if c.calls]
    out.mkdir(parents=True, exist_ok=True)
    files = {out / f"{p}.edge": formatted(m, f"{p}.edge")
             for p, m in catalog_modules(src).items()}
    programs, written, skipped = program_files(
        cases, out, lambda c: formatted(_program(c), f"{c.name}.edge"))
    scenarios = {"fields": lifted_fields(src),
                 "entries": {c.name: {"classes": c.extra["classes"], "config": c.extra["config"]}
                             for c in written}}
    files[out / "scenarios.json"] = json.dumps(scenarios, ensure_ascii=False)
    files[out / "tools.py"] = TOOLS_FILE
    write_files({**files, **programs})
    return Written.of("bfcl", out, [*files, *programs], written, skipped)


TOOLS_FILE = '''"""BFCL's simulators for one entry, for `EDGEDSL_BFCL_ENTRY=entry_N edgedsl run
--backend python --tools tools.py entry_N.edge` (written by `edgedsl import bfcl`; the entry's
classes and initial config are in scenarios.json beside this file; needs bfcl-eval, see
docs/bench.md)."""

import json
import os
from pathlib import Path

from edgedsl.suites.bfcl_env import BfclEnv, bfcl_tools

_DATA = json.loads(Path(__file__).with_name("scenarios.json").read_text(encoding="utf-8"))
_NAME = os.environ.get("EDGEDSL_BFCL_ENTRY", "")
if _NAME not in _DATA["entries"]:
    raise ValueError(f"set EDGEDSL_BFCL_ENTRY to the entry to run (entry_0 ...), not {_NAME!r}")
ENV = BfclEnv(_DATA["entries"][_NAME]["classes"], _DATA["entries"][_NAME]["config"])
TOOLS = bfcl_tools(ENV, _DATA["fields"])
'''
"""The ``tools.py`` an import writes: BFCL's simulators for the entry ``EDGEDSL_BFCL_ENTRY``
names (one entry per process: its simulators hold its state)."""


def lifted_fields(src: Path) -> dict[str, dict[str, dict[str, str]]]:
    """The lifted fields of every function's record, by class and function."""
    return {cls: {f: lifted(d) for f, d in ds.items()} for cls, ds in load_docs(src).items()}


def check(src: Path, out: Path, split: str = "train",
          only: Collection[str] | None = None) -> Reproduced:
    """Run each written entry on fresh simulators; per turn, the public state after the
    turn's last call against the replay's (a turn is state-exact when they are equal)."""
    fields = lifted_fields(src)
    rep = Reproduced(suite="bfcl", what="turns state-exact")
    for case in load_cases(src, split, only):
        env = BfclEnv(case.extra["classes"], case.extra["config"])
        snapshots = [env.state()]
        tools = bfcl_tools(env, fields)
        watched = {k: _snapshot_after(fn, env, snapshots) for k, fn in tools.items()}
        problem = None
        path = out / f"{case.name}.edge"
        if case.calls and not path.is_file():
            problem = f"{path.name} was not written"
        elif case.calls:
            [result] = run_file(path, watched)
            if not result.ok:
                problem = failure(result)
        done = 0
        for t, (count, gold) in enumerate(zip(case.extra["per_turn"], case.extra["states"],
                                              strict=True)):
            done += count
            turn_id = f"{case.case_id} turn {t}"
            if problem is not None:
                rep.add(turn_id, problem)
            elif done >= len(snapshots):
                rep.add(turn_id, "the turn's calls did not all run")
            elif snapshots[done] != gold:
                diff = sorted(k for k in {*snapshots[done], *gold}
                              if snapshots[done].get(k) != gold.get(k))
                rep.add(turn_id, f"state differs in {diff}")
            else:
                rep.add(turn_id, None)
    return rep


def _snapshot_after(fn: Any, env: BfclEnv, snapshots: list[dict[str, Any]]) -> Any:
    """``fn`` that appends the environment's public state after each call it makes."""

    def call(**kwargs: Any) -> Any:
        out = fn(**kwargs)
        snapshots.append(env.state())
        return out

    call.__name__ = getattr(fn, "__name__", "tool")
    return call
