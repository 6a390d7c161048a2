"""The fault matrix with ``--record``: every fault the world injects, on the last call of the
company-snapshot chain, is classified where it happens (environmental, R504) and never recorded;
the healthy calls before it are recorded and replay; a latency fault records everything."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson
import pytest

from edgedsl import cli
from edgedsl.world.faults import FAULT_KINDS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "world" / "01_company_snapshot.edge"

FAILING = {
    "timeout": "no answer within 0.3 s",
    "5xx": "HTTP 503",
    "429": "HTTP 429",
    "quota": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
    "gateway": "APPLICATION_ERROR",
    "truncated": "a truncated or invalid JSON answer",
}


def test_the_matrix_covers_every_fault_kind() -> None:
    assert set(FAILING) | {"latency"} == set(FAULT_KINDS)


def _recorded(store: Path) -> list[str]:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return sorted(f"{p}.{t}" for p, t in con.execute(
            "SELECT platform, tool FROM responses").fetchall())
    finally:
        con.close()


def _run(tmp_path: Path, kind: str, *extra: str) -> tuple[int, Path, Path]:
    faults = tmp_path / "faults.json"
    faults.write_bytes(orjson.dumps({"rules": [
        {"platform": "fsc", "kind": kind, "timeout": 1.0, "latency": 0.05}]}))
    store, trace = tmp_path / "rec.duckdb", tmp_path / "trace.json"
    code = cli.main(["run", str(EXAMPLE), "--faults", str(faults), "--record", str(store),
                     "--trace", str(trace), *extra])
    return code, store, trace


@pytest.mark.parametrize("kind", sorted(FAILING))
def test_a_fault_is_classified_and_never_recorded(kind: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, store, trace = _run(tmp_path, kind, "--timeout", "0.3")
    err = capsys.readouterr().err
    assert code == 1
    assert "error[R504]" in err and FAILING[kind] in err
    failure = [c["failure"] for s in orjson.loads(trace.read_bytes())["steps"]
               for c in s["calls"] if c.get("failure")]
    assert [f["kind"] for f in failure] == ["environmental"]
    assert _recorded(store) == ["dart.company", "dart.corp_codes"]  # the healthy calls only


def test_latency_records_the_whole_chain_and_it_replays(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, store, _ = _run(tmp_path, "latency")
    assert code == 0, capsys.readouterr().err
    assert _recorded(store) == ["dart.company", "dart.corp_codes", "fsc.stock_prices"]
    capsys.readouterr()
    assert cli.main(["run", str(EXAMPLE), "--backend", "store", "--store", str(store),
                     "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["ok"] is True
