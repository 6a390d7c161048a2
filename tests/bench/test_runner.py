"""Runs on the world: the oracle scores 1.0 on every axis, each scripted baseline is caught
where its mistake matters and not penalised where it does not, ENVIRONMENT catches a wrong
write, the agent's failures end only its episode, re-scoring equals the run's scores, and an
interrupted run resumes."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from edgedsl.bench.agents.base import AgentOutcome, TaskView, make_agent
from edgedsl.bench.bundle import Bundle, make_bundle, save_bundle
from edgedsl.bench.episode import read_episodes
from edgedsl.bench.runner import RunError, run_bench, run_episode
from edgedsl.bench.score import score_episode
from edgedsl.bench.score.summary import SCORES_FILE, SUMMARY_FILE, score_results
from edgedsl.bench.toolbox import Budgets, ToolBox
from edgedsl.runtime.executor import run_sync

from .conftest import ROOT


def _scores(bundle: Bundle, agent: str, out: Path) -> dict[str, object]:
    run_bench(bundle, make_agent(agent, bundle), out=out)
    return {s.task_id: s for s in (score_episode(e) for e in read_episodes(out))}


def test_the_oracle_scores_one_on_every_axis_and_rescoring_agrees(small_bundle: Bundle,
                                                                  tmp_path: Path) -> None:
    summary = run_bench(small_bundle, make_agent("oracle", small_bundle), out=tmp_path, k=2)
    assert summary.episodes == 2 * len(small_bundle.tasks)
    for est in (summary.pass_at_1, summary.pass_at_k, summary.response, summary.environment,
                summary.action):
        assert est is not None and (est.value, est.lo, est.hi) == (1.0, 1.0, 1.0)
    assert summary.end_reasons == {"answered": summary.episodes}
    eps = list(read_episodes(tmp_path))
    assert {e.bundle_hash for e in eps} == {small_bundle.hash}
    assert all(e.gold is not None and e.gold.ok for e in eps)
    # the write task changed the world, the same way as the gold
    ep = next(e for e in eps if e.task_id == "opinion_on_latest_notice")
    assert ep.state is not None and ep.state["assembly"]["opinions"][0]["WRTR_NM"] == "홍길동"
    assert not score_episode(ep).environment.trivial
    # re-scoring from the recorded episodes alone gives the run's scores
    run_scores = (tmp_path / SCORES_FILE).read_bytes()
    run_summary = (tmp_path / SUMMARY_FILE).read_bytes()
    _, again = score_results(tmp_path)
    assert (tmp_path / SCORES_FILE).read_bytes() == run_scores
    assert (tmp_path / SUMMARY_FILE).read_bytes() == run_summary
    assert again == summary


def test_first_page_is_caught_where_a_second_page_matters(small_bundle: Bundle,
                                                           tmp_path: Path) -> None:
    by = _scores(small_bundle, "first-page", tmp_path)
    sweep = by["rights_offering_sweep"]
    assert not sweep.passed and "filings: got 100, want 128" in sweep.response.mismatches
    assert sweep.action.recall < 1.0
    for task in ("two_bridges", "school_lunch", "opinion_on_latest_notice"):  # one page each
        assert by[task].passed and by[task].action.score == 1.0, task


def test_first_record_is_caught_where_the_reduction_matters(small_bundle: Bundle,
                                                             tmp_path: Path) -> None:
    by = _scores(small_bundle, "first-record", tmp_path)
    bridges = by["two_bridges"]
    assert not bridges.passed and bridges.response.score < 1.0
    # the notice it keeps is the first one listed: the mistake does not matter there
    assert by["opinion_on_latest_notice"].passed
    assert by["opinion_on_latest_notice"].action.score == 1.0


class _WrongWriter:
    """Submits the opinion under another name (the gold's bill, the wrong author)."""

    name = "wrong-writer"

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        notices = await toolbox.call("assembly__lawmaking_notices", {"AGE": "22"})
        bill = next(r for r in notices.records if r["BILL_NAME"].startswith("화학물질관리법"))
        res = await toolbox.call("assembly__submit_opinion", {
            "BILL_ID": bill["BILL_ID"], "WRTR_NM": "김철수", "SBJCT": "찬성",
            "CN": "찬성합니다", "AGRE_DSAGRE": "찬성"})
        return AgentOutcome(answer={"opinion_id": res.records[0]["OPN_ID"]}, answered=True,
                            end_reason="answered")


class _Crasher:
    name = "crasher"

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        raise RuntimeError("the agent broke")


class _Looper:
    name = "looper"

    async def run(self, task: TaskView, toolbox: ToolBox, rng: random.Random) -> AgentOutcome:
        while toolbox.stopped is None:
            await toolbox.call("dart__company", {"corp_code": "00164779"})
        return AgentOutcome(answer=None, answered=False, end_reason="no_answer")


def test_environment_catches_a_wrong_write(small_bundle: Bundle) -> None:
    task = small_bundle.task("opinion_on_latest_notice")
    ep = run_sync(run_episode(small_bundle, task, _WrongWriter()))
    s = score_episode(ep)
    assert not s.environment.ok and not s.passed
    assert any("WRTR_NM: episode '김철수', gold '홍길동'" in d for d in s.environment.diff)
    # a write on a task whose gold writes nothing is caught too
    bridges = small_bundle.task("two_bridges")
    assert "assembly.submit_opinion" not in bridges.tools


def test_agent_failures_end_their_episode_with_a_reason(small_bundle: Bundle) -> None:
    task = small_bundle.task("two_bridges")
    ep = run_sync(run_episode(small_bundle, task, _Crasher(), gold=False))
    assert ep.end_reason == "agent_error" and "the agent broke" in ep.detail
    ep = run_sync(run_episode(small_bundle, task, _Looper(), gold=False,
                              budgets=Budgets(repeats=3)))
    assert ep.end_reason == "loop" and len(ep.calls) == 4
    ep = run_sync(run_episode(small_bundle, task, _Looper(), gold=False,
                              budgets=Budgets(calls=2, repeats=10)))
    assert ep.end_reason == "call_budget"


def test_an_interrupted_run_resumes_and_keeps_what_finished(small_bundle: Bundle,
                                                            tmp_path: Path) -> None:
    oracle = make_agent("oracle", small_bundle)
    run_bench(small_bundle, oracle, out=tmp_path, tasks=["two_bridges"])
    first = (tmp_path / "episodes.jsonl").read_bytes()
    with (tmp_path / "episodes.jsonl").open("ab") as fh:  # a write cut short
        fh.write(b'{"version": 1, "bundle_hash": "')
    seen: list[str] = []
    summary = run_bench(small_bundle, oracle, out=tmp_path,
                        progress=lambda ep, i, n: seen.append(ep.task_id))
    assert "two_bridges" not in seen and len(seen) == len(small_bundle.tasks) - 1
    assert summary.tasks == len(small_bundle.tasks)
    assert (tmp_path / "episodes.jsonl").read_bytes().startswith(first)
    with pytest.raises(RunError, match="holds another run"):
        run_bench(small_bundle, oracle, out=tmp_path, k=2)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x").write_text("x")
    with pytest.raises(RunError, match="not empty"):
        run_bench(small_bundle, oracle, out=tmp_path / "other")
    meta = orjson.loads((tmp_path / "meta.json").read_bytes())
    assert meta["agent"] == "oracle" and meta["bundle_hash"] == small_bundle.hash


@pytest.mark.slow
def test_the_oracle_scores_one_on_every_world_example(tmp_path: Path) -> None:
    bundle = save_bundle(make_bundle([ROOT / "examples" / "world"]), tmp_path / "b.json")
    assert not bundle.refused and len(bundle.tasks) >= 17
    summary = run_bench(bundle, make_agent("oracle", bundle), out=tmp_path / "r")
    for est in (summary.pass_at_1, summary.response, summary.environment, summary.action):
        assert est.value == 1.0


@pytest.mark.slow
def test_the_oracle_scores_one_on_every_task_of_the_shipped_bundle(tmp_path: Path) -> None:
    """Issue 19 §2: the oracle scores 1.0 on every axis on every task of examples/bench (the
    shipped bundle: ≥ 145 tasks, none refused as undetermined)."""
    bundle = save_bundle(make_bundle([ROOT / "examples" / "bench"]), tmp_path / "b.json")
    assert not bundle.refused and len(bundle.tasks) >= 145
    summary = run_bench(bundle, make_agent("oracle", bundle), out=tmp_path / "r")
    for est in (summary.pass_at_1, summary.response, summary.environment, summary.action):
        assert est.value == 1.0



def test_a_read_that_initialises_write_state_changes_no_environment() -> None:
    from edgedsl.bench.bundle import full_catalog
    from edgedsl.bench.gold import fresh_backend, world_state
    from edgedsl.plan.model import ToolSpec

    catalog = full_catalog()
    tool = catalog.tool("assembly.opinions")
    assert tool is not None
    backend = fresh_backend("world")
    resp = run_sync(backend.call(ToolSpec.of(tool, catalog),
                                 {"BILL_ID": "PRC_G1D6P2K8W9O7P6X2Y1L9A9X5E0K3P8"}, page=1))
    assert len(resp) == 0
    assert backend.world.state  # type: ignore[attr-defined]  # the read made it
    assert world_state(backend) == {}
