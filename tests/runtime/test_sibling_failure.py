"""Two independent calls run at once, the first fails, and a ``drv`` depends on the second.

The step that depends on the surviving call becomes ready after the failure has closed its
layer, so it never starts; the scheduler then had nothing running and asked ``asyncio.wait`` to
wait on an empty set (``internal error (ValueError): Set of Tasks/Futures is empty.``, exit 2).
The run must end with the first call's classified failure instead — by every route: the CLI
with ``--tools``, strict replay of a store, and ``edgedsl.testing.check_trajectory``.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

import edgedsl
from edgedsl import cli
from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.testing import check_trajectory

PROGRAM = """\
use assembly
use law

trajectory bill_and_act "q" {
  bills = assembly.bills(AGE: "22", BILL_NAME: "주택임대차보호법") pages all
  acts = law.law_search(query: "주택임대차보호법") pages all
  act = drv acts | where 법령구분명 == "법률"
  answer { bills: count(bills), act: act.법령명한글 }
}
"""

LAW = {
    "법령일련번호": "1", "현행연혁코드": "현행", "법령명한글": "주택임대차보호법",
    "법령ID": "001", "공포일자": "20230101", "공포번호": "1", "제개정구분명": "일부개정",
    "법령구분명": "법률", "시행일자": "20230101", "법령상세링크": "/x",
}


def _tools() -> dict[str, Any]:
    """``assembly.bills`` raises; ``law.law_search`` answers only after it has raised (so the
    ``drv`` over its answer becomes ready after the failure, deterministically)."""
    raised = threading.Event()

    def bills(**_: object) -> Any:
        raised.set()
        raise ValueError("bills is down")

    def law_search(**_: object) -> Any:
        raised.wait(10)
        time.sleep(0.05)
        return {"law": [LAW], "totalCnt": 1}

    return {"assembly.bills": bills, "law.law_search": law_search}


def test_the_executor_reports_the_first_calls_failure() -> None:
    plan = edgedsl.compile(PROGRAM)
    (res,) = run_plan_sync(plan, PythonBackend(_tools()))
    assert not res.ok
    assert [d.code for d in res.diagnostics] == ["R503"]
    assert "ValueError" in res.diagnostics[0].message
    steps = {st.id: st.status for st in res.trace.steps}
    assert steps["bills"] == "failed" and steps["acts"] == "ok" and "act" not in steps


TOOLS_FILE = """\
import threading, time

_raised = threading.Event()

def bills(**_):
    _raised.set()
    raise ValueError("bills is down")

def law_search(**_):
    _raised.wait(10)
    time.sleep(0.05)
    return {"law": [LAW], "totalCnt": 1}

TOOLS = {"assembly.bills": bills, "law.law_search": law_search}
""" + f"LAW = {LAW!r}\n"


def test_cli_run_with_tools_exits_with_the_classified_failure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog, tools = tmp_path / "p.edge", tmp_path / "tools.py"
    prog.write_text(PROGRAM, encoding="utf-8")
    tools.write_text(TOOLS_FILE, encoding="utf-8")
    code = cli.main(["run", str(prog), "--backend", "python", "--tools", str(tools)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "R503" in err and "ValueError" in err
    assert "internal error" not in err and "Set of Tasks" not in err


def test_strict_replay_of_a_store_reports_the_miss(tmp_path: Path) -> None:
    plan = edgedsl.compile(PROGRAM)
    path = tmp_path / "s.duckdb"
    with Store(path) as store:  # only law_search is recorded: bills failed
        (rec,) = run_plan_sync(plan, RecordingBackend(PythonBackend(_tools()), store))
        assert not rec.ok and store.count() == 1
    with StoreBackend(path, strict=True) as backend:
        (res,) = run_plan_sync(plan, backend)
    assert not res.ok
    assert [d.code for d in res.diagnostics] == ["R505"]
    assert {st.id: st.status for st in res.trace.steps} == {"bills": "failed", "acts": "ok"}


def test_check_trajectory_agrees_on_the_failure() -> None:
    got = check_trajectory(PROGRAM, _tools())
    assert got["bill_and_act"].code == "R503"
