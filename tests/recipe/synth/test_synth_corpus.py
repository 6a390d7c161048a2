"""Task records from runs on the world backend, and ``load_corpus`` over a directory.

The corpus is copies of three shipped chains (``examples/world/02``, ``03``, ``17``) and the
hand-written ``compare`` program, plus files that must become problems. Every number asserted
below was read off the run's trace (``edgedsl run FILE --trace``) and, for the hand-off
cardinality behind a ``drv``, recomputed by an independent trajectory on the same world.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import compile, parse
from edgedsl.recipe.synth.corpus import TASKS_FILE, Corpus, load_corpus
from edgedsl.recipe.synth.record import RESULT_HEAD, RecordFileError, TaskRecord, write_records
from edgedsl.recipe.synth.stats import corpus_stats
from edgedsl.recipe.synth.trace_record import keep_for, source_sha, task_record
from edgedsl.runtime.executor import run
from edgedsl.runtime.http import make_world_backend

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
WORLD = ROOT / "examples" / "world"
PROGRAMS = HERE / "programs"

BAD = 'use fsc\n\ntrajectory bad "q" {\n  x = fsc.no_such_tool()\n  answer count(x)\n}\n'
FAILS = """use fsc

trajectory fails "삼성전자 기업개요의 법인등록번호로 재무제표를?" {
  outline = fsc.corp_outline(corpNm: "삼성전자") pages 1
  fin = fsc.fs_summary(crno: seq outline.crno, bizYear: 2023)
  answer count(fin)
}
"""
CATALOG = 'type Code = code /^[0-9]{4}$/ "a local code type; no trajectory"\n'


@pytest.fixture(scope="module")
def backend() -> Any:
    return make_world_backend(seed=0)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    for prefix in ("02", "03", "17"):
        (src,) = WORLD.glob(f"{prefix}_*.edge")
        shutil.copy(src, d / src.name)
    shutil.copy(PROGRAMS / "cmp.edge", d / "cmp.edge")
    (d / "bad.edge").write_text(BAD, encoding="utf-8")
    (d / "fails.edge").write_text(FAILS, encoding="utf-8")
    (d / "local_types.edge").write_text(CATALOG, encoding="utf-8")
    (d / "notes.txt").write_text("not a program", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path, backend: Any) -> Corpus:
    return load_corpus(corpus_dir, backend=backend)


def rec(corpus: Corpus, name: str) -> TaskRecord:
    (r,) = [r for r in corpus.records if r.name == name]
    return r


def test_records_sorted_and_problems_reported(corpus: Corpus) -> None:
    assert [(r.file, r.name) for r in corpus.records] == [
        ("02_two_bridges.edge", "two_bridges"),
        ("03_rights_offering_sweep.edge", "rights_offering_sweep"),
        ("17_trading_day_fallback.edge", "trading_day_fallback"),
        ("cmp.edge", "cmp_only"),
    ]
    files = [f for f, _ in corpus.problems]
    assert files == ["bad.edge", "fails.edge"]  # the catalog-only file is not a problem
    bad, fails = (why for _, why in corpus.problems)
    assert "E111" in bad and "no_such_tool" in bad and "W0" not in bad  # errors only
    assert "fails" in fails and "R502" in fails
    assert {r.seed for r in corpus.records} == {0}


def test_parallel_group_is_one_turn(corpus: Corpus) -> None:
    r = rec(corpus, "two_bridges")
    assert (r.structure, r.features) == ("Mixed", ["drv", "sem"])
    assert r.tools == ["dart.company", "fsc.corp_outline", "fsc.fs_summary",
                       "dart.single_accounts"]
    assert [(c.step, c.tool, c.turn, c.records, c.total) for c in r.calls] == [
        ("company", "dart.company", 1, 1, None),
        ("outline", "fsc.corp_outline", 2, 1, 1),
        ("fin.fsc_summary", "fsc.fs_summary", 3, 2, 2),
        ("fin.dart_accounts", "dart.single_accounts", 3, 26, None),
    ]
    assert r.turns == 3
    assert r.calls[1].args == {"crno": "1101114299859"}
    assert r.calls[0].result[0]["corp_name"] == "SK하이닉스(주)"  # the head of the response
    assert len(r.calls[3].result) == RESULT_HEAD  # 26 records, 5 kept
    # each header junction gives the record of the branch using it
    assert [(j.tool, j.param, j.source_tool, j.field, j.kind, j.cardinality, j.passed)
            for j in r.junctions] == [
        ("fsc.corp_outline", "crno", "dart.company", "jurir_no", "seq", 1, 1),
        ("fsc.fs_summary", "crno", "fsc.corp_outline", "crno", "seq", 1, 1),
        ("dart.single_accounts", "corp_code", "fsc.corp_outline", "fssCorpUnqNo", "seq", 1, 1),
    ]
    assert r.answer["dart_rows"] == 26
    assert r.source_sha == source_sha((WORLD / "02_two_bridges.edge").read_text("utf-8"))
    assert r.query.startswith("SK하이닉스의 2023년")


def test_fan_pages_and_drv_cardinality(corpus: Corpus, backend: Any) -> None:
    r = rec(corpus, "rights_offering_sweep")
    # sweep: 2 pages (100 + 28) folded into one call; each fan is one turn of 3 calls
    assert [(c.step, c.turn, c.records, c.total) for c in r.calls] == [
        ("sweep", 1, 128, 128),
        ("decisions", 2, 1, None), ("decisions", 2, 1, None), ("decisions", 2, 1, None),
        ("prices", 3, 10, 10), ("prices", 3, 10, 10), ("prices", 3, 10, 10),
    ]
    assert [c.args["corp_code"] for c in r.calls[1:4]] == ["00356361", "01515323", "00508100"]
    assert len(r.calls[0].result) == RESULT_HEAD
    # the fan junctions read `hits`, a drv over `sweep`: kind drv, passed 3, cardinality the
    # distinct values in the 128 disclosures of the sweep
    assert [(j.kind, j.source_tool, j.field, j.passed) for j in r.junctions] == [
        ("drv", "dart.disclosures", "corp_code", 3), ("drv", "dart.disclosures", "stock_code", 3)]
    check = """use dart
trajectory sweep_values "q" {
  sweep = dart.disclosures(bgn_de: 2024-12-23, end_de: 2024-12-23) pages all
  answer { corps: sweep.corp_code, stocks: sweep.stock_code, n: count(sweep) }
}"""
    (got,) = [run(compile(check), "sweep_values", backend)]
    assert got.answer["n"] == 128
    assert [j.cardinality for j in r.junctions] == [len(got.answer["corps"]),
                                                    len(got.answer["stocks"])] == [119, 119]


def test_if_branch_and_compare_calls(corpus: Corpus) -> None:
    r = rec(corpus, "trading_day_fallback")
    assert [(c.step, c.turn, c.records) for c in r.calls] == [
        ("asked", 1, 0), ("if#1/then/week", 2, 3992)]
    assert r.calls[0].result == [] and r.junctions == []
    c = rec(corpus, "cmp_only")
    assert (c.structure, c.turns, c.answer) == ("Cmp", 1, 2)
    assert [(x.turn, x.args["likeSrtnCd"], x.records) for x in c.calls] == [
        (1, "005930", 1), (1, "000660", 1)]


def test_stats_of_the_corpus(corpus: Corpus) -> None:
    s = corpus_stats(corpus.records)
    assert (s.tasks, s.calls, s.junctions) == (4, 15, 5)  # calls 4 + 7 + 2 + 2
    assert (s.calls_mean, s.calls_median, s.calls_max) == (3.75, 3.0, 7)
    assert (s.steps_le3, s.steps_4_5, s.steps_ge6) == (0.5, 0.25, 0.25)
    assert s.turns_mean == 2.25  # 3, 3, 2, 1
    # parallel: the 2 branches of 02, the 3 + 3 fan calls of 03, the 2 arms of the compare
    assert s.parallel_share == pytest.approx(10 / 15)
    assert s.sequential_share == pytest.approx(5 / 15)
    assert s.structures["Mixed"] == 0.75 and s.structures["Cmp"] == 0.25
    assert s.one_to_many_share == 0.4  # 119, 119 among 1, 1, 1, 119, 119
    assert (s.cardinality_median, s.cardinality_p90, s.cardinality_max) == (1.0, 119, 119)
    assert s.parallel_task_share == 0.75


def test_task_record_of_a_drv_program(backend: Any) -> None:
    path = PROGRAMS / "drv.edge"
    plan = compile(path)
    (traj,) = parse(path).trajectories
    assert keep_for(plan, traj.name) == {"prices"}
    result = run(plan, traj.name, backend, keep=keep_for(plan, traj.name))
    r = task_record(traj, plan, result, file="drv.edge", query="다른 질문", seed=7,
                    text="x")
    (j,) = r.junctions
    # 998 KOSPI rows on 2024-12-27, one per stock: 998 distinct codes before `max fltRt`
    assert (j.kind, j.field, j.cardinality, j.passed) == ("drv", "srtnCd", 998, 1)
    assert (r.query, r.seed, r.source_sha) == ("다른 질문", 7, source_sha("x"))
    # without the kept relation the cardinality falls back to what passed
    bare = task_record(traj, plan, run(plan, traj.name, backend), file=str(path))
    assert (bare.junctions[0].cardinality, bare.junctions[0].passed) == (1, 1)
    assert bare.source_sha == source_sha(path.read_text("utf-8"))
    assert bare.calls[0].result == []  # no `results` given


class Refuses:
    """A backend that must not be called."""

    name = "refuses"

    async def call(self, tool: Any, args: Any, *, page: Any) -> Any:
        raise AssertionError(f"{tool.qualname} called")


def test_tasks_jsonl_is_read_and_other_files_are_run(corpus: Corpus, tmp_path: Path,
                                                     backend: Any) -> None:
    for name in ("02_two_bridges.edge", "03_rights_offering_sweep.edge"):
        (src,) = WORLD.glob(name)
        shutil.copy(src, tmp_path / name)
    kept = [r for r in corpus.records if r.file.startswith(("02", "03"))]
    ghost = kept[0].model_copy(update={"name": "ghost", "file": "gone.edge"})
    write_records(tmp_path / TASKS_FILE, [*kept, ghost])
    got = load_corpus(tmp_path, backend=Refuses())
    assert got.records == kept
    assert got.problems == [("gone.edge", "record `ghost`: the file does not exist")]
    # an .edge file no record names is run
    shutil.copy(PROGRAMS / "cmp.edge", tmp_path / "cmp.edge")
    more = load_corpus(tmp_path, backend=backend)
    assert [r.name for r in more.records] == ["two_bridges", "rights_offering_sweep", "cmp_only"]
    assert more.records[:2] == kept


def test_corrupt_tasks_jsonl_names_the_line(corpus: Corpus, tmp_path: Path) -> None:
    good = corpus.records[0].model_dump_json()
    (tmp_path / TASKS_FILE).write_text(f"{good}\n\n{{not json\n", encoding="utf-8")
    with pytest.raises(RecordFileError, match=r"tasks\.jsonl:3: not JSON"):
        load_corpus(tmp_path, backend=Refuses())
    (tmp_path / TASKS_FILE).write_text(good.replace('"version":1', '"version":9') + "\n",
                                       encoding="utf-8")
    with pytest.raises(RecordFileError, match=r"tasks\.jsonl:1: record version 9"):
        load_corpus(tmp_path, backend=Refuses())


def test_loading_is_deterministic(corpus_dir: Path, corpus: Corpus, backend: Any) -> None:
    again = load_corpus(corpus_dir, backend=backend)
    assert [r.model_dump() for r in again.records] == [r.model_dump() for r in corpus.records]
    assert again.problems == corpus.problems


# the answer depends on the world's seed: 서울관철초등학교 on seed 0, 서울북성초등학교 on seed 1
OLDEST = """\
use neis

{header}trajectory oldest "서울 학교 목록의 첫 쪽에서 가장 먼저 세워진 학교의 이름은?" {{
  schools = neis.schools(ATPT_OFCDC_SC_CODE: "B10") pages 1
  oldest = drv schools | min FOND_YMD
  answer oldest.SCHUL_NM
}}
"""


def test_a_file_without_a_record_runs_on_the_world_of_its_run_seed(tmp_path: Path) -> None:
    # as `edgedsl run FILE` does: the file's `run { seed }`, unless a seed is given, else 0
    (tmp_path / "a_bare.edge").write_text(OLDEST.format(header=""), encoding="utf-8")
    (tmp_path / "b_seed1.edge").write_text(OLDEST.format(header="run {\n  seed: 1\n}\n\n"),
                                           encoding="utf-8")
    got = {r.file: (r.seed, r.answer) for r in load_corpus(tmp_path).records}
    assert got["a_bare.edge"][0] == 0 and got["b_seed1.edge"][0] == 1
    assert got["a_bare.edge"][1] != got["b_seed1.edge"][1]  # the seed mattered
    forced = {r.file: (r.seed, r.answer) for r in load_corpus(tmp_path, seed=0).records}
    assert forced["b_seed1.edge"] == got["a_bare.edge"]  # a given seed wins
