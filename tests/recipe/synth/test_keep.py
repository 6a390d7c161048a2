"""``keep=``: a run returns the records of the relations it was asked to keep (for synthesis)."""

from __future__ import annotations

from edgedsl.plan.compile import compile_program
from edgedsl.recipe.synth.trace_record import keep_for
from edgedsl.runtime import PythonBackend
from edgedsl.runtime.executor import run, run_plan_sync
from tests.plan_fixtures import FILINGS, TOOLS, latest_filing, program


def _plan():  # type: ignore[no-untyped-def]
    return compile_program(program(latest_filing()))


def test_keep_returns_the_records_of_the_named_relations() -> None:
    res = run(_plan(), "latest_filing", PythonBackend(TOOLS), keep=["filings", "latest", "nope"])
    assert res.ok, res.diagnostics
    assert set(res.relations) == {"filings", "latest"}  # an unknown name is left out
    # every page of `pages all` (3 pages of 3, 3 and 1 records), raw as the service sent them
    assert res.relations["filings"] == FILINGS["C1"]
    # `drv filings | max rcept_dt`: both records of 2024-12-23, in input order
    assert [r["report_nm"] for r in res.relations["latest"]] == ["분기보고서", "정정신고"]
    assert res.relations["latest"] == FILINGS["C1"][5:]


def test_keep_is_opt_in_and_never_serialised() -> None:
    plan = _plan()
    plain = run(plan, "latest_filing", PythonBackend(TOOLS))
    assert plain.relations == {}
    kept = run(plan, "latest_filing", PythonBackend(TOOLS), keep=["corp"])
    assert kept.relations == {"corp": [{"corp_code": "C1", "corp_name": "Solo",
                                        "stock_code": "000001"}]}
    assert kept.to_json() == plain.to_json()
    assert b"relations" not in kept.to_json_bytes(with_trace=True)


def test_keep_through_run_plan_and_on_a_failed_run() -> None:
    plan = _plan()
    (res,) = run_plan_sync(plan, PythonBackend(TOOLS), keep=("corp",))
    assert res.relations["corp"][0]["corp_code"] == "C1"
    # the corp "group" has 3 codes: the seq junction into filings fails (R502); `corp` was
    # computed before the failure and is still returned
    bad = compile_program(program(latest_filing()))
    tp = bad.trajectory("latest_filing")
    corp_step = tp.steps["corp"]
    corp_step.request.literals["corp_name"] = "group"  # type: ignore[union-attr]
    failed = run(bad, "latest_filing", PythonBackend(TOOLS), keep=["corp", "filings"])
    assert not failed.ok and failed.diagnostics[0].code == "R502"
    assert [r["corp_code"] for r in failed.relations["corp"]] == ["C1", "C2", "C3"]
    assert "filings" not in failed.relations


def test_keep_for_names_the_upstream_calls_of_drv_junctions() -> None:
    # latest_filing: corp → filings (seq, not through a drv) → latest (drv, feeds no junction);
    # the source of every drv is kept too (the rules of meaningful programs re-evaluate it)
    assert keep_for(_plan(), "latest_filing") == {"filings"}
