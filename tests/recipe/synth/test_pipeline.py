"""``synth run`` end to end on a light G* over the world: quotas, files, records, filters,
reproducibility (also across worker processes), and the re-solve of every file written."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest

from edgedsl import api
from edgedsl.recipe.synth.pipeline import STARVED_AFTER, SynthConfig, _Schedule, quotas, synthesize
from edgedsl.recipe.synth.record import STRUCTURES, read_records
from edgedsl.recipe.synth.resolve import answer_key
from edgedsl.runtime.backends import make_backend
from tests.synth_world import light_catalog, light_graph

MIX = {"Seq": 2, "Drv": 2, "Sem": 2, "Cmp": 1, "Cond": 1, "Mixed": 2}


def _run(out: Path, workers: int = 1, n: int = 10, **knobs: object):  # type: ignore[no-untyped-def]
    mk = partial(make_backend, "world", seed=0)
    cfg = SynthConfig(n=n, seed=3, mix=MIX, batch=8, **knobs)  # type: ignore[arg-type]
    return asyncio.run(synthesize(light_graph(), light_catalog(), mk(), out, cfg, fresh=mk,
                                  workers=workers, backend_factory=mk))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("synth")
    return out, _run(out)


@pytest.mark.slow
def test_a_run_writes_n_files_and_records_that_agree(run_dir) -> None:  # type: ignore[no-untyped-def]
    out, rep = run_dir
    recs = list(read_records(out / "tasks.jsonl"))
    files = sorted(p.name for p in out.glob("*.edge"))
    assert rep.written == 10 == len(recs) == len(files)
    assert sorted(r.file for r in recs) == files
    assert rep.structures == {k: v for k, v in quotas(10, MIX).items() if v}
    assert sum(rep.structures.values()) == 10
    assert rep.attempts == sum(rep.skipped.values()) + sum(rep.filters.checked.get("rules", 0)
                                                           for _ in [0])
    for r in recs:
        text = (out / r.file).read_text(encoding="utf-8")
        assert api.format(api.parse(text)) == text  # written through the formatter
        assert "# synthesized by `edgedsl synth run` (attempt " in text
        # the world the answer was computed on (seed 0), not the run's seed 3: the file reads it
        assert api.compile(text).run.seed == 0
        assert r.query and r.query in text
        assert r.calls and r.tools


@pytest.mark.slow
def test_every_written_file_reruns_to_its_answer_on_a_fresh_world(run_dir) -> None:  # type: ignore[no-untyped-def]
    out, _ = run_dir
    fresh = make_backend("world", seed=0)
    for r in read_records(out / "tasks.jsonl"):
        (res,) = api.run(api.compile(out / r.file), fresh)
        assert res.ok and answer_key(res.answer) == answer_key(r.answer), r.file


@pytest.mark.slow
def test_the_report_is_written_and_counts_filters(run_dir) -> None:  # type: ignore[no-untyped-def]
    import orjson

    out, rep = run_dir
    saved = orjson.loads((out / "report.json").read_bytes())
    assert saved["written"] == rep.written and saved["quotas"] == rep.quotas
    f = rep.filters
    assert f.checked.get("static", 0) == f.checked["rules"] - f.dropped.get("rules", 0)
    # what passes resolve is checked by the corpus stage, which drops duplicates
    assert f.checked.get("resolve", 0) == f.checked.get("corpus", 0) + f.dropped.get("resolve", 0)
    assert f.checked.get("corpus", 0) == rep.written + f.dropped.get("corpus", 0)


@pytest.mark.slow
def test_runs_are_reproducible_across_worker_processes(run_dir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out, rep = run_dir
    rep2 = _run(tmp_path, workers=2)
    assert rep2.written == rep.written
    for p in sorted(out.glob("*.edge")):
        assert (tmp_path / p.name).read_text(encoding="utf-8") == p.read_text(encoding="utf-8")
    assert [r.model_dump() for r in read_records(tmp_path / "tasks.jsonl")] == \
        [r.model_dump() for r in read_records(out / "tasks.jsonl")]


def test_quotas_split_by_largest_remainder() -> None:
    q = quotas(1781, {"Mixed": 0.367, "Drv": 0.197, "Sem": 0.170, "Seq": 0.121, "Cmp": 0.090,
                      "Cond": 0.028, "Fan": 0.027})
    assert sum(q.values()) == 1781 and list(q) == list(STRUCTURES)
    assert q["Mixed"] == 654 and q["Fan"] == 48
    with pytest.raises(ValueError, match="unknown structure"):
        quotas(3, {"Chain": 1.0})
    with pytest.raises(ValueError, match="positive"):
        quotas(3, {"Seq": 0.0})


def test_a_starved_type_gives_its_quota_to_the_others() -> None:
    s = _Schedule({"Seq": 10, "Fan": 4, "Drv": 0, "Sem": 6, "Cmp": 0, "Cond": 0, "Mixed": 0})
    s.aimed["Fan"] = STARVED_AFTER
    s.starve()
    assert s.left["Fan"] == 0 and s.moved == {"Fan": 4}
    assert s.left["Seq"] + s.left["Sem"] == 20
    # a type with a success is never starved
    s2 = _Schedule({"Seq": 1, "Fan": 4, "Drv": 0, "Sem": 0, "Cmp": 0, "Cond": 0, "Mixed": 0})
    s2.aimed["Fan"], s2.got["Fan"] = 500, 1
    s2.starve()
    assert s2.left["Fan"] == 4


def test_the_schedule_aims_more_attempts_at_low_yield_types() -> None:
    s = _Schedule({"Seq": 10, "Fan": 10, "Drv": 0, "Sem": 0, "Cmp": 0, "Cond": 0, "Mixed": 0})
    s.aimed.update({"Seq": 20, "Fan": 20})
    s.got.update({"Seq": 18, "Fan": 2})
    t = s.targets(0, 20)
    assert t.count("Fan") > 3 * t.count("Seq")


@pytest.mark.slow
def test_a_chat_model_paraphrases_and_checks_through_the_run(tmp_path: Path) -> None:
    """With ``llm``, every candidate is paraphrased and judged by the model (a fake endpoint on
    127.0.0.1): a paraphrase that drops the literals falls back to the template query, and a
    ``{"ok": false}`` verdict rejects the candidate at the static stage."""
    from edgedsl.recipe.llm import LLMClient, LLMConfig
    from tests.recipe.graph.fake_llm import FakeLLM, ok, serve

    app = FakeLLM()
    mk = partial(make_backend, "world", seed=0)
    with serve(app) as url:
        client = LLMClient(LLMConfig(base_url=url, model="fake", attempts=1, retries=0),
                           environ={}, seed=0)
        app.handler = lambda seen: ok({"query": "무엇이든", "ok": True, "reason": "fine"})
        rep = asyncio.run(synthesize(light_graph(), light_catalog(), mk(), tmp_path / "yes",
                                     SynthConfig(n=2, seed=3, mix={"Seq": 1}, batch=4),
                                     fresh=mk, llm=client))
        assert rep.written == 2 and len(app.requests) >= 4  # a paraphrase and a check each
        from edgedsl.recipe.synth.literals import literal_uses
        from edgedsl.recipe.synth.paraphrase import constraint_problems
        from edgedsl.recipe.synth.query import query_context

        for r in read_records(tmp_path / "yes" / "tasks.jsonl"):
            (traj,) = api.parse(tmp_path / "yes" / r.file).trajectories
            ctx = query_context(traj, api.compile(tmp_path / "yes" / r.file), r.answer)
            if literal_uses(traj) or constraint_problems("무엇이든", ctx):
                assert r.query != "무엇이든"  # the reply drops them: the template query stands
            else:  # nothing to keep: the paraphrase is taken
                assert r.query == "무엇이든"
        app.reset()
        app.handler = lambda seen: ok({"query": "무엇이든", "ok": False, "reason": "vague"})
        rep = asyncio.run(synthesize(light_graph(), light_catalog(), mk(), tmp_path / "no",
                                     SynthConfig(n=2, seed=3, mix={"Seq": 1}, batch=4,
                                                 max_attempts=16), fresh=mk, llm=client))
        assert rep.written == 0
        assert rep.filters.rejections["static"]["model_rejected"] >= 1


@pytest.mark.slow
def test_the_tail_knob_moves_the_call_mix_toward_sequential_calls(tmp_path: Path) -> None:
    """Chains grown after groups and comparison winners: more calls per task, a larger
    sequential share, the same quotas filled."""
    from edgedsl.recipe.synth.stats import corpus_stats

    mk = partial(make_backend, "world", seed=0)
    got = {}
    for label, tail in (("none", {0: 1.0}), ("two", {2: 1.0})):
        cfg = SynthConfig(n=6, seed=3, mix={"Sem": 1, "Cmp": 1}, batch=8, tail=tail)
        rep = asyncio.run(synthesize(light_graph(), light_catalog(), mk(), tmp_path / label,
                                     cfg, fresh=mk, backend_factory=mk))
        assert rep.written == 6 and rep.structures == {"Sem": 3, "Cmp": 3}
        got[label] = corpus_stats(list(read_records(tmp_path / label / "tasks.jsonl")))
    none, two = got["none"], got["two"]
    assert none.calls_mean is not None and two.calls_mean is not None
    assert none.sequential_share is not None and two.sequential_share is not None
    assert two.calls_mean > none.calls_mean
    assert two.sequential_share > none.sequential_share


def test_a_platform_below_the_floor_gets_aimed_attempts() -> None:
    """A platform with fewer trajectories than FLOOR of those written is behind by the
    difference and gets that many over its yield of attempts of the next batch, the furthest
    behind first, in turn, at most AIMED of the batch; nobody is aimed at before anything is
    written or once every platform is at the floor; a platform whose aimed attempts wrote
    tasks calling it gets fewer."""
    from edgedsl.recipe.synth.pipeline import AIMED, FLOOR

    s = _Schedule({"Seq": 10, "Fan": 0, "Drv": 0, "Sem": 0, "Cmp": 0, "Cond": 0, "Mixed": 0})
    mods = ["a", "b", "c"]
    assert s.aims(8, 0, mods) == [None] * 8
    written = 100
    s.platforms.update({"a": 50, "b": int(FLOOR * written) - 1, "c": 0})
    # behind: b by 1, c by 4; no aimed attempt yet: yield (0 + 1) / (0 + 2)
    got = s.aims(32, written, mods)
    assert got[:10] == ["c", "b", "c", "b", "c", "c", "c", "c", "c", "c"]
    assert got[10:] == [None] * 22
    assert s.aims(8, written, mods) == ["c", "b", "c", "b"] + [None] * 4  # AIMED of the batch
    assert int(AIMED * 8) == 4
    s.aimed_at.update({"c": 8})
    s.hit_at.update({"c": 8})  # every aimed attempt wrote a task calling c: yield 0.9
    assert s.aims(32, written, mods).count("c") == 5
    s.platforms.update({"b": 1, "c": 50})
    assert s.aims(8, written, mods) == [None] * 8


def test_an_aimed_attempt_draws_its_first_root_on_its_platform() -> None:
    """``chains.AIM`` (set per attempt by the worker) makes a draft's first platform draw."""
    import asyncio
    import random
    from collections import Counter

    from edgedsl.check import load_catalog
    from edgedsl.recipe.graph.evidence import default_graph_path
    from edgedsl.recipe.graph.model import load_graph
    from edgedsl.recipe.synth.chains import AIM, start
    from edgedsl.recipe.synth.engine import Engine
    from edgedsl.runtime.http import make_world_backend

    graph = load_graph(default_graph_path())
    catalog = load_catalog(graph.catalog.modules, [])
    eng = Engine(graph, catalog, make_world_backend(seed=1))
    first: list[str] = []

    async def never(tool: str, rng: random.Random, *,
                    few: bool = False) -> None:  # record the draw, run nothing
        first.append(catalog.platforms[tool.partition(".")[0]].module)

    eng.root = never  # type: ignore[method-assign,assignment]
    firsts: Counter[str] = Counter()

    async def one(seed: int, aim: str | None) -> None:
        AIM.set(aim)
        first.clear()
        await start(eng, random.Random(seed), attempts=1)
        firsts[first[0]] += 1

    async def main() -> None:
        for seed in range(20):
            await asyncio.gather(one(seed, "nec"), one(seed + 100, None))
    asyncio.run(main())
    assert firsts["nec"] >= 20 and sum(firsts.values()) == 40
    assert len(firsts) > 2  # the attempts not aimed drew as usual
