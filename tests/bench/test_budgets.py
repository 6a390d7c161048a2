"""Per-task budgets: a task declares its own call and time budgets in the bundle (``bench make
--budgets``), the others take the run's; an episode over its budget ends with a classified
reason, and records the budgets it ran under."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from edgedsl.bench.agents.base import make_agent
from edgedsl.bench.bundle import (
    Bundle,
    BundleError,
    BundleTask,
    TaskBudget,
    bundle_hash,
    make_bundle,
    read_budgets,
)
from edgedsl.bench.episode import read_episodes
from edgedsl.bench.runner import run_bench, task_budgets
from edgedsl.bench.toolbox import Budgets
from edgedsl.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _with_budgets(bundle: Bundle, budgets: dict[str, TaskBudget]) -> Bundle:
    tasks = [t.model_copy(update={"budget": budgets.get(t.id)}) for t in bundle.tasks]
    return bundle.model_copy(update={"tasks": tasks}).sealed()


def test_a_task_over_its_own_budget_ends_with_the_reason(small_bundle: Bundle,
                                                           tmp_path: Path) -> None:
    many = max(small_bundle.tasks, key=lambda t: t.gold_calls)
    quick = next(t for t in small_bundle.tasks if t.id != many.id)
    assert many.gold_calls > 1
    bundle = _with_budgets(small_bundle, {many.id: TaskBudget(calls=1),
                                          quick.id: TaskBudget(seconds=1e-9)})
    run_bench(bundle, make_agent("oracle", bundle), out=tmp_path, budgets=Budgets(calls=40))
    eps = {e.task_id: e for e in read_episodes(tmp_path)}
    assert eps[many.id].end_reason == "call_budget"
    assert "call budget of 1 calls" in eps[many.id].detail
    assert eps[many.id].budgets == {"calls": 1, "seconds": 120.0}
    assert len(eps[many.id].calls) == 2 and not eps[many.id].calls[1].ok
    assert eps[quick.id].end_reason == "time_budget"
    assert eps[quick.id].budgets == {"calls": 40, "seconds": 1e-9}
    for t in bundle.tasks:  # the others ran under the run's budgets, and passed
        if t.id not in (many.id, quick.id):
            assert eps[t.id].end_reason == "answered"
            assert eps[t.id].budgets == {"calls": 40, "seconds": 120.0}


def test_task_budgets_replace_only_what_the_task_declares() -> None:
    run = Budgets(calls=9, seconds=30.0, repeats=2)
    t = BundleTask(id="a", query="q", program="", trajectory="a")
    assert task_budgets(t, run) is run
    t2 = t.model_copy(update={"budget": TaskBudget(seconds=5)})
    assert task_budgets(t2, run) == Budgets(calls=9, seconds=5.0, repeats=2)
    with pytest.raises(ValueError):
        TaskBudget(calls=0)
    with pytest.raises(ValueError):
        TaskBudget(seconds=0)


def test_a_bundle_without_budgets_keeps_its_hash(small_bundle: Bundle) -> None:
    data = small_bundle.model_dump(mode="json", exclude={"hash"})
    for t in data["tasks"]:
        assert t.pop("budget") is None
    old = hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()
    assert bundle_hash(small_bundle) == old == small_bundle.hash
    with_one = _with_budgets(small_bundle, {small_bundle.tasks[0].id: TaskBudget(calls=3)})
    assert with_one.hash != small_bundle.hash


def test_bench_make_reads_budgets_and_refuses_strays(tmp_path: Path) -> None:
    good = tmp_path / "budgets.json"
    good.write_bytes(orjson.dumps({"opinion_on_latest_notice": {"calls": 2, "seconds": 9}}))
    out = tmp_path / "b.json"
    assert main(["bench", "make", str(FIXTURES / "opinion.edge"), "--budgets", str(good),
                 "-q", "-o", str(out)]) == 0
    (task,) = orjson.loads(out.read_bytes())["tasks"]
    assert task["budget"] == {"calls": 2, "seconds": 9.0}
    with pytest.raises(BundleError, match="not in the files: nosuch"):
        make_bundle([FIXTURES / "opinion.edge"], budgets={"nosuch": TaskBudget(calls=1)})
    bad = tmp_path / "bad.json"
    bad.write_bytes(orjson.dumps({"t": {"calls": 0}}))
    with pytest.raises(BundleError, match="budgets"):
        read_budgets(bad)
    bad.write_bytes(b"[1]")
    with pytest.raises(BundleError, match=r"budgets .* must be a JSON object, not list"):
        read_budgets(bad)
