"""``edgedsl store stats | export | drift`` and ``run --record`` (flushed at the end of the run).

Drift on the world: trajectories are recorded on a small FAKE world (one platform, defined here,
served by the world's engine) and re-fetched against changed worlds — another seed (values
change), and an altered module (a field added and one removed, a record dropped) — so that each
category of drift is detected and the trajectories whose answers change are listed.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import orjson
import pytest

import edgedsl
from edgedsl.cli import main
from edgedsl.runtime import RecordingBackend, Store, run_plan_sync
from edgedsl.runtime.drift import drift, flatten, restore_args
from edgedsl.runtime.http import HttpOptions, make_world_backend
from edgedsl.world.decl import Dataset, Endpoint, Filter, Paging
from edgedsl.world.engine import World
from edgedsl.world.rand import comma, rng

# ------------------------------------------------------------------ a FAKE world, two variants


def fake_module(altered: bool = False) -> Any:
    """12 companies; ``altered``: ``sector`` added, ``hq`` removed, every 4th company gone."""

    def build(world: Any) -> list[dict[str, Any]]:
        r = rng(world.seed, "dr_corps")
        out = []
        for i in range(12):
            row: dict[str, Any] = {
                "corp_code": f"{i:08d}", "corp_name": f"회사{i}",
                "amount": comma(r.randint(1_000, 9_999_999)),
                "ceo": {"name": f"대표{i}", "since": f"20{10 + i}"},
            }
            if altered:
                if i % 4 == 3:
                    continue
                row["sector"] = "제조"
            else:
                row["hq"] = "서울"
            out.append(row)
        return out

    listed = ("corp_code", "corp_name", "amount", "sector" if altered else "hq")
    return types.SimpleNamespace(
        DATASETS=(Dataset("dr_corps", build=build, index=("corp_code",), doc="fake"),),
        ENDPOINTS=(
            Endpoint("dart", "list", "/api/list.json", "dart", "dr_corps",
                     filters=(Filter("corp_name", op="contains"),),
                     paging=Paging("page_no", "page_count", 10, 100, over_max="error"),
                     fields=listed),
            Endpoint("dart", "company", "/api/company.json", "dart", "dr_corps",
                     filters=(Filter("corp_code"),), required=("corp_code",), single=True),
        ))


PROGRAM = """
platform dart "FAKE DART" {
  base "https://opendart.fss.or.kr/api"
  envelope dart
  secret crtfc_key

  record Corp {
    corp_code: str
    corp_name: str
    amount: int
  }

  tool list "목록" GET "/list.json" (
    corp_name: str?,
  ) -> [Corp] at "list" paged (page: page_no, size: page_count <= 2, total: total_count)

  tool company "개황" GET "/company.json" (
    corp_code: str,
  ) -> Corp
}

trajectory how_many "이름에 회사1이 들어가는 회사는 몇 곳?" {
  corps = dart.list(corp_name: "회사1") pages all
  answer { n: count(corps) }
}

trajectory amount "회사3의 금액은?" {
  co = dart.company(corp_code: "00000003")
  answer { amount: co.amount }
}

trajectory name "회사5의 이름은?" {
  co = dart.company(corp_code: "00000005")
  answer { name: co.corp_name }
}
"""


def world_backend(seed: int = 0, altered: bool = False) -> Any:
    w = World(seed=seed, modules=[fake_module(altered)])
    return make_world_backend(world=w, options=HttpOptions(backoff=0.001, retries=0))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Path]:
    tmp = tmp_path_factory.mktemp("drift")
    path = tmp / "world.duckdb"
    edge = tmp / "fake.edge"
    edge.write_text(PROGRAM, encoding="utf-8")
    plan = edgedsl.compile(PROGRAM)
    with RecordingBackend(world_backend(), path) as rec:
        results = run_plan_sync(plan, rec)
    assert all(r.ok for r in results), [r.diagnostics for r in results]
    assert results[0].answer == {"n": 3}  # 회사1, 회사10, 회사11
    return path, plan, edge


def test_drift_against_the_same_world_is_clean(recorded: tuple[Path, Any, Path]) -> None:
    path, plan, _ = recorded
    report = drift(path, world_backend(), plans=[("fake.edge", plan)])
    assert not report.drifted, report.text()
    by = {t.tool: t for t in report.tools}
    assert by["dart.list"].responses == by["dart.list"].refetched == 2  # two pages
    assert {"corp_code", "amount", "hq"} <= by["dart.list"].unchanged
    assert "ceo.name" in by["dart.company"].unchanged  # nested objects: dotted paths
    assert report.changed_trajectories == []


def test_drift_with_another_seed_changes_values(recorded: tuple[Path, Any, Path]) -> None:
    path, plan, _ = recorded
    report = drift(path, world_backend(seed=1), plans=[("fake.edge", plan)])
    by = {t.tool: t for t in report.tools}
    co = by["dart.company"]
    assert co.value_changed == {"amount": 2}  # both recorded companies
    assert co.cardinality_changed == 0 and not co.added and not co.removed
    assert {"corp_code", "corp_name", "ceo.name", "ceo.since", "hq"} <= co.unchanged
    assert [t.trajectory for t in report.changed_trajectories] == ["amount"]
    assert report.drifted


def test_drift_against_an_altered_world(recorded: tuple[Path, Any, Path]) -> None:
    path, plan, _ = recorded
    report = drift(path, world_backend(altered=True), plans=[("fake.edge", plan)])
    by = {t.tool: t for t in report.tools}
    li, co = by["dart.list"], by["dart.company"]
    assert (li.added, li.removed) == ({"sector"}, {"hq"})  # schema changed
    assert (co.added, co.removed) == ({"sector"}, {"hq"})
    assert li.cardinality_changed == 1  # page 2 lost 회사11
    assert li.total_changed == 2  # both pages report the new total
    assert co.cardinality_changed == 1 and co.failed == 0  # 회사3 is gone: "no data", []
    assert co.value_changed == {}
    changed = {t.trajectory for t in report.changed_trajectories}
    assert changed == {"how_many", "amount"}
    text = report.text()
    assert "schema changed: +sector, -hq" in text and "how_many" in text


def test_drift_counts_calls_that_fail_now(recorded: tuple[Path, Any, Path]) -> None:
    from edgedsl.world.faults import FaultPlan, FaultRule

    path, _, _ = recorded
    w = World(modules=[fake_module()], faults=FaultPlan((FaultRule("5xx", tool="company"),)))
    report = drift(path, make_world_backend(world=w, options=HttpOptions(retries=0)))
    co = next(t for t in report.tools if t.tool == "dart.company")
    assert (co.failed, co.refetched) == (2, 0) and "R504" in co.failures[0]
    assert report.drifted


def test_restore_args_and_flatten() -> None:
    plan = edgedsl.compile(PROGRAM)
    tool = plan.tools["dart.list"]
    assert restore_args(tool, {"corp_name": "x"}) == {"corp_name": "x"}
    assert flatten({"a": {"b": 1, "c": {"d": [1]}}, "e": {}}) == {"a.b": 1, "a.c.d": [1],
                                                                  "e": {}}


# ------------------------------------------------------------------ the commands

TOOLS_A = '''
def corp_code(corp_name):
    return [{"corp_code": "00126380", "corp_name": corp_name, "stock_code": "005930"}]

def disclosures(corp_code, bgn_de, end_de, **paging):
    return {"status": "000", "total_count": 2, "list": [
        {"corp_code": corp_code, "report_nm": "A", "rcept_dt": "20241210", "rcept_no": "1"},
        {"corp_code": corp_code, "report_nm": "B", "rcept_dt": "20241220", "rcept_no": "2"}]}

def stock_price(likeSrtnCd, basDt, **paging):
    day = basDt.strftime("%%Y%%m%%d")  # a date, also when drift calls again
    return {"totalCount": 1, "items": [{"srtnCd": likeSrtnCd, "basDt": day, "clpr": "%s"}]}

TOOLS = {"dart.corp_code": corp_code, "dart.disclosures": disclosures,
         "krx.stock_price": stock_price}
'''


def _tools(tmp: Path, name: str, close: str) -> Path:
    p = tmp / name
    p.write_text(TOOLS_A % close, encoding="utf-8")
    return p


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "samsung_filing.edge"


@pytest.fixture
def cli_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    tools = _tools(tmp_path, "a.py", "53,000")
    store = tmp_path / "s.duckdb"
    assert main(["run", str(EXAMPLE), "--tools", str(tools), "--record", str(store)]) == 0
    capsys.readouterr()
    return store, tools


def test_run_record_flushes_at_the_end(cli_store: tuple[Path, Path]) -> None:
    store, _ = cli_store
    with Store(store, read_only=True) as st:
        assert st.count() == 3


def test_stats(cli_store: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = cli_store
    assert main(["store", "stats", str(store), "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert (data["responses"], data["records"]) == (3, 4)
    assert data["file_size"] == store.stat().st_size > 0
    assert data["platforms"] == {"dart": {"responses": 2, "records": 3, "tools": 2},
                                 "krx": {"responses": 1, "records": 1, "tools": 1}}
    tools = {t["tool"]: t for t in data["tools"]}
    assert tools["dart.disclosures"]["records"] == 2 and tools["dart.disclosures"]["spec"]
    assert len(tools["krx.stock_price"]["decl_hash"]) == 16
    assert data["first_recorded_at"] <= data["last_recorded_at"]
    assert main(["store", "stats", str(store)]) == 0
    out = capsys.readouterr().out
    assert "3 responses, 4 records" in out and "dart.disclosures [" in out


def test_export(cli_store: tuple[Path, Path], tmp_path: Path,
                capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = cli_store
    assert main(["store", "export", str(store)]) == 0
    lines = [orjson.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3
    assert set(lines[0]) >= {"key", "platform", "tool", "args", "page", "total", "recorded_at",
                             "records"}
    filings = next(x for x in lines if x["tool"] == "disclosures")
    assert [r["report_nm"] for r in filings["records"]] == ["A", "B"]
    assert filings["args"]["bgn_de"] == "2024-12-01" and filings["total"] == 2
    out = tmp_path / "krx.jsonl"
    assert main(["store", "export", str(store), "-o", str(out), "--tool",
                 "krx.stock_price"]) == 0
    (only,) = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert only["platform"] == "krx" and only["records"][0]["clpr"] == "53,000"


def test_drift_command(cli_store: tuple[Path, Path], tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    store, tools = cli_store
    same = ["store", "drift", str(store), "--backend", "python", "--tools", str(tools),
            "--trajectories", str(EXAMPLE)]
    assert main([*same, "--fail-on-drift"]) == 0
    assert "answers change: 0 of 1" in capsys.readouterr().out
    other = _tools(tmp_path, "b.py", "54,100")
    changed = ["store", "drift", str(store), "--backend", "python", "--tools", str(other),
               "--trajectories", str(EXAMPLE), "--json"]
    assert main(changed) == 0  # drift found is not a failure …
    data = orjson.loads(capsys.readouterr().out)
    assert data["drifted"] is True
    krx = next(t for t in data["tools"] if t["tool"] == "krx.stock_price")
    assert krx["value_changed"] == {"clpr": 1} and "srtnCd" in krx["unchanged"]
    assert data["changed_trajectories"] == [f"{EXAMPLE}:samsung_latest_filing"]
    assert main([*changed, "--fail-on-drift"]) == 1  # … unless asked


def test_store_commands_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "stats", str(tmp_path / "missing.duckdb")]) == 1  # bad input: R511
    assert "error[R511]: no store at" in capsys.readouterr().err
    assert not (tmp_path / "missing.duckdb").exists()
    assert main(["store"]) == 2
    (tmp_path / "junk.duckdb").write_bytes(b"not a database")
    assert main(["store", "stats", str(tmp_path / "junk.duckdb")]) == 1


@pytest.mark.parametrize("argv", [["--concurrency", "0"], ["--concurrency", "-2"],
                                  ["--phi", "0"]])
def test_drift_refuses_bounds_below_one(argv: list[str], cli_store: tuple[Path, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # --concurrency 0 used to wait forever on a semaphore of 0
    store, tools = cli_store
    assert main(["store", "drift", str(store), "--backend", "python", "--tools", str(tools),
                 *argv]) == 2
    assert argv[0] in capsys.readouterr().err
    from edgedsl.runtime.drift import drift
    from edgedsl.runtime.python_backend import PythonBackend

    with pytest.raises(ValueError, match="concurrency"):
        drift(store, PythonBackend({}), concurrency=0)
