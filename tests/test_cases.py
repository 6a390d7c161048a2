"""Stage snapshots: every example checked at every stage (PRQL style).

For each ``examples/*.edge`` file with trajectories, ``tests/cases/<name>/`` holds the artefact
of each stage: ``ast.json`` (build), ``fmt.edge`` (format), ``plan.json`` (plan), ``reduce.sql``
(the final SQL of every reduction, predicate and answer, rendered from the plan's queries) and
``trace.json`` (run on the python backend, with timings removed). ``--update-goldens`` rewrites
them (``tests/goldens.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.api import check, parse
from edgedsl.cli.dump import to_jsonable
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import encode_value, plan_to_json
from edgedsl.reduce.answer import predicate_from_json, value_from_json_data
from edgedsl.reduce.query import ReduceQuery
from edgedsl.reduce.render import render, render_answer, render_predicate
from edgedsl.runtime.backends import load_python_tools
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax.printer import format_module
from tests.goldens import check_golden

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CASES = Path(__file__).resolve().parent / "cases"

FILES = sorted(p for p in EXAMPLES.glob("*.edge") if "trajectory " in p.read_text(encoding="utf-8"))
_TIMING = {"start_ms", "duration_ms"}


def _strip_timing(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _strip_timing(v) for k, v in data.items() if k not in _TIMING}
    if isinstance(data, list):
        return [_strip_timing(v) for v in data]
    return data


def _dump(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"


def _golden(path: Path, text: str) -> None:
    check_golden(path, text)


def _sql_listing(plan_json: dict[str, Any]) -> str:
    out: list[str] = []
    for t in plan_json["trajectories"]:
        for sid, step in sorted(t["steps"].items()):
            if step.get("query"):  # a drv: its query, rendered as a window over memory
                params = [f["value"] for f in step["query"]["filters"] if f["kind"] == "compare"]
                sql = render(ReduceQuery.from_json(step["query"]), "window")
                out.append(
                    f"-- {t['name']} / {sid} (drv)\n{sql}\n-- params: "
                    f"{orjson.dumps(params).decode()}\n"
                )
            pred = step.get("predicate")
            if pred:  # an `if`: its predicate's query, rendered
                text, pparams = render_predicate(predicate_from_json(pred["query"]))
                out.append(
                    f"-- {t['name']} / {sid} (if)\n{text}\n-- params: "
                    f"{orjson.dumps(encode_value(pparams)).decode()}\n"
                )
        for f in (t.get("answer") or {}).get("fields", []):
            text, aparams = render_answer(value_from_json_data(f["query"]))
            out.append(
                f"-- {t['name']} / answer {f.get('name') or ''}\n{text}\n-- params: "
                f"{orjson.dumps(encode_value(aparams)).decode()}\n"
            )
    return "\n".join(out)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_stage_snapshots(path: Path) -> None:
    rel = path.relative_to(ROOT)
    cwd = os.getcwd()
    os.chdir(ROOT)  # spans carry the relative path, so snapshots do not depend on the checkout
    try:
        module = parse(rel)
        program = check(rel).program
        plan = compile_program(program)
        tools = load_python_tools(EXAMPLES / "tools.py")
        results = run_plan_sync(plan, PythonBackend(tools))
    finally:
        os.chdir(cwd)
    case = CASES / path.stem
    check_golden(case / "ast.json", _dump(to_jsonable(module)))
    check_golden(case / "fmt.edge", format_module(module))
    plan_json = orjson.loads(plan_to_json(plan))
    check_golden(case / "plan.json", _dump(plan_json))
    check_golden(case / "reduce.sql", _sql_listing(plan_json))
    traces = [_strip_timing(r.trace.model_dump(mode="json")) for r in results if r.trace]
    check_golden(case / "trace.json", _dump(traces))
    assert all(r.ok for r in results), [r.diagnostics for r in results if not r.ok]
