"""A response the store cannot write never costs the others their place (issue 16, item 2).

Poisoned responses — a declaration with a field named like one of the store's own columns (in any
case), a total or page beyond its column, arguments or records JSON cannot hold, a value DuckDB
refuses — are recorded among healthy ones; every healthy one is stored and replays, each
poisoned one is refused with its call and reason (R512), never reported as R510 ("retrying later
may succeed"), and a failure of the disk is still R510 with nothing half-written.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from edgedsl.cli import main
from edgedsl.plan.model import ToolSpec, to_data, validated
from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend
from edgedsl.runtime import store_file as store_file_module
from edgedsl.runtime.backends import Response, ToolFailure
from edgedsl.runtime.store import ResponsesRefused, environmental
from tests.runtime.test_store_concurrency import assert_consistent
from tests.store_recorder import TOOL, items

SECRET = "SEKRET-77aa"


def spec(name: str, fields: dict[str, Any], decl: str) -> ToolSpec:
    """A tool of platform ``t`` (secret ``key``) with one ``n`` parameter."""
    return validated(ToolSpec, {
        "qualname": f"t.{name}", "platform": "t", "name": name, "declaration_hash": decl,
        "secret": "key", "params": [{"name": "n", "type": "int"}, {"name": "size", "type": "int"}],
        "fields": fields})


def healthy(n: int, size: int = 3) -> tuple[ToolSpec, dict[str, object], int | None, Response]:
    return TOOL, {"n": n, "size": size}, None, Response(records=items(n, size), total=size,
                                                        raw=b"[]")


#: name → one poisoned item (tool, args, page, response)
POISONED: dict[str, tuple[ToolSpec, dict[str, object], int | None, Response]] = {
    "field __key": (spec("keyed", {"__key": "str", "v": "int"}, "1111000011110000"),
                    {"n": 1}, None, Response(records=[{"__key": "k", "v": 1}], raw=b"[]")),
    "field __KEY": (spec("upper", {"__KEY": "str"}, "2222000022220000"),
                    {"n": 1}, None, Response(records=[{"__KEY": "k"}], raw=b"[]")),
    "field __Seq": (spec("seqd", {"__Seq": "int", "v": "int"}, "3333000033330000"),
                    {"n": 1}, None, Response(records=[{"__Seq": 5, "v": 2}], raw=b"[]")),
    "field __row": (spec("rowd", {"__row": "int"}, "4444000044440000"),
                    {"n": 1}, None, Response(records=[{"__row": 5}], raw=b"[]")),
    "total 2^64": (TOOL, {"n": 500, "size": 2}, None,
                   Response(records=items(500, 2), total=2 ** 64, raw=b"[]")),
    "total -2^64": (TOOL, {"n": 501, "size": 2}, None,
                    Response(records=items(501, 2), total=-(2 ** 64), raw=b"[]")),
    "page 2^40": (TOOL, {"n": 502, "size": 2}, 2 ** 40,
                  Response(records=items(502, 2), raw=b"[]")),
    "argument 2^70": (TOOL, {"n": 2 ** 70, "size": 2}, None,
                      Response(records=items(503, 2), raw=b"[]")),
    "lone surrogate": (TOOL, {"n": 504, "size": 1}, None, Response(
        records=[{"i": 1, "name": "\ud800", "day": "2024-01-01", "tags": []}], raw=b"[]")),
    "raw not bytes": (TOOL, {"n": 505, "size": 1}, None,
                      Response(records=items(505, 1), raw=12345)),  # type: ignore[arg-type]
}


def _mixed(poison: list[str]) -> list[Any]:
    """Healthy responses with the poisoned ones among them (one declaration shared)."""
    out: list[Any] = [healthy(n) for n in range(3)]
    for i, name in enumerate(poison):
        out.insert(1 + i, POISONED[name])
    return out + [healthy(n) for n in range(3, 6)]


def assert_healthy_replay(path: Path, ns: Iterable[int] = range(6)) -> None:
    """Every healthy response replays (records as recorded), the file is consistent."""
    with StoreBackend(path) as replay:
        for n in ns:
            hit = replay.store.get(TOOL, {"n": n, "size": 3}, None)
            assert hit is not None and hit.records == items(n, 3), n
    assert_consistent(path)


@pytest.mark.parametrize("duckdb_decides", [False, True], ids=["checked", "by-duckdb"])
@pytest.mark.parametrize("name", sorted(POISONED))
def test_one_poisoned_response_among_healthy_ones(tmp_path: Path, name: str,
                                                  duckdb_decides: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked in Python first, or (the check switched off) left to DuckDB to refuse: either
    way the poisoned response alone is refused, with its call and reason."""
    if duckdb_decides:
        monkeypatch.setattr("edgedsl.runtime.store.certain_problem", lambda *a: None)
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        result = store.write(_mixed([name]))
    (refused,) = result.refused
    tool = POISONED[name][0]
    assert refused.tool == tool.qualname and refused.call.startswith(f"{tool.qualname}(")
    assert refused.reason and "Current transaction is aborted" not in refused.reason
    assert (None in result.keys) == (name == "argument 2^70")
    assert_healthy_replay(path)
    with Store(path, read_only=True) as store:
        assert store.count() == 6


def test_every_kind_of_poison_in_one_batch(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        result = store.write(_mixed(sorted(POISONED)))
        assert sorted(r.tool for r in result.refused) == sorted(
            t.qualname for t, *_ in POISONED.values())
        reasons = [r.reason for r in result.refused]
        assert any("named like the store's own column `__key`" in r for r in reasons)
        assert any("total 18446744073709551616 does not fit" in r for r in reasons)
        assert store.count() == 6
    assert_healthy_replay(path)
    with Store(path) as store:  # the store takes new writes afterwards
        store.put(*healthy(9))
    assert_healthy_replay(path, [*range(6), 9])


def test_put_and_put_many_raise_after_writing_the_others(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        with pytest.raises(ResponsesRefused, match=r"t\.upper\(n=1\) cannot be recorded") as err:
            store.put_many([healthy(1), POISONED["field __KEY"], healthy(2)])
        assert len(err.value.refused) == 1 and store.count() == 2
        with pytest.raises(ResponsesRefused, match="does not fit a 64-bit integer"):
            store.put(*POISONED["total 2^64"])


def test_a_record_may_hold_undeclared_store_column_names(tmp_path: Path) -> None:
    """A python tool may return keys its declaration does not name: `__key`, `__seq`, `__KEY`
    are kept in the record as received (its JSON), never mistaken for the store's columns."""
    path = tmp_path / "s.duckdb"
    rec = [{"i": 1, "name": "a", "day": "2024-01-02", "tags": [], "__key": "x", "__SEQ": 99,
            "__row": 7, "__raw": "r"}]
    with Store(path) as store:
        store.put(TOOL, {"n": 1, "size": 1}, None, Response(records=rec, raw=b"[]"))
    with StoreBackend(path) as replay:
        hit = replay.store.get(TOOL, {"n": 1, "size": 1}, None)
        assert hit is not None and hit.records == rec
        assert hit.stored is not None
        cols = replay.store.columns(hit.stored, TOOL.field_types())
        assert cols is not None and cols["__row"] == [0] and cols["i"] == [1]


def test_environmental_failures_are_not_refusals() -> None:
    assert environmental(duckdb.IOException("disk full"))
    assert environmental(OSError(28, "No space left on device"))
    assert not environmental(duckdb.ConversionException("out of range"))
    assert not environmental(duckdb.BinderException("duplicate column"))
    assert not environmental(ValueError("records are not JSON-serialisable"))


# ------------------------------------------------------------------ the recorder


def _call(rec: RecordingBackend, tool: ToolSpec, args: dict[str, object],
          page: int | None = None) -> ToolFailure | None:
    async def go() -> ToolFailure | None:
        try:
            await rec.call(tool, args, page=page)
        except ToolFailure as f:
            return f
        return None

    return asyncio.run(go())


def _poison_tools() -> PythonBackend:
    def items_tool(n: int, size: int) -> list[dict[str, Any]]:
        return items(n, size)

    def upper(n: int, size: int, key: str | None = None) -> list[dict[str, Any]]:
        return [{"__KEY": f"{key}-{n}"}]  # echoes the secret: scrubbed by the backend

    return PythonBackend({"t.items": items_tool, "t.upper": upper}, secrets={"t": SECRET})


@pytest.mark.parametrize("flush_every", [1, 4, 100])
def test_the_recorder_keeps_every_healthy_response(tmp_path: Path, flush_every: int,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.duckdb"
    upper = validated(ToolSpec, {**to_data(POISONED["field __KEY"][0]), "params": [
        {"name": "n", "type": "int"}, {"name": "size", "type": "int"}]})
    rec = RecordingBackend(_poison_tools(), path, flush_every=flush_every, flush_seconds=1e9)
    for n in range(12):
        tool = upper if n % 5 == 3 else TOOL
        assert _call(rec, tool, {"n": n, "size": 3}) is None  # no call fails for it
    rec.close()
    err = capfd.readouterr().err
    lines = [x for x in err.splitlines() if "R512" in x]
    assert len(lines) == len(rec.refused) == 2  # n = 3, 8
    assert all("t.upper(n=" in x and "__KEY" in x for x in lines)
    assert SECRET not in err and "Current transaction is aborted" not in err
    assert rec.recorded == 10
    with StoreBackend(path) as replay:
        for n in range(12):
            hit = replay.store.get(TOOL, {"n": n, "size": 3}, None)
            assert (hit is None) == (n % 5 == 3), n
            if hit is not None:
                assert hit.records == items(n, 3)


def test_a_dropped_recorder_keeps_every_healthy_response(tmp_path: Path,
                                                         capfd: pytest.CaptureFixture[str]
                                                         ) -> None:
    """The last-resort flush (garbage collection, interpreter exit) refuses alone too."""
    path = tmp_path / "s.duckdb"
    rec = RecordingBackend(PythonBackend({"t.items": lambda n, size: items(n, size)}), path,
                           flush_every=100)
    for n in range(3):
        assert _call(rec, TOOL, {"n": n, "size": 3}) is None
    rec._buffer.insert(1, POISONED["total 2^64"])
    del rec
    gc.collect()
    assert "error[R512]" in capfd.readouterr().err
    assert_healthy_replay(path, range(3))


def test_a_failing_disk_is_r510_and_nothing_is_half_written(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    path = tmp_path / "s.duckdb"

    def full(self: Store, *args: object) -> None:
        raise duckdb.IOException("IO Error: No space left on device")

    monkeypatch.setattr(Store, "_insert_records", full)
    rec = RecordingBackend(PythonBackend({"t.items": lambda n, size: items(n, size)}), path,
                           flush_every=2)
    assert _call(rec, TOOL, {"n": 1, "size": 3}) is None
    failed = _call(rec, TOOL, {"n": 2, "size": 3})
    assert failed is not None and failed.code == "R510" and failed.kind == "environmental"
    assert "No space left on device" in failed.message and rec.pending == 2
    assert rec.refused == []
    with Store(path, read_only=True) as store:
        assert store.count() == 0
    monkeypatch.undo()
    rec.close()  # the buffer was kept: written now
    assert_healthy_replay(path, range(1, 3))


def test_a_failing_disk_at_close_raises_r510(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from edgedsl.runtime.store_record import RecordingFailed

    path = tmp_path / "s.duckdb"
    rec = RecordingBackend(PythonBackend({"t.items": lambda n, size: items(n, size)}), path)
    assert _call(rec, TOOL, {"n": 1, "size": 3}) is None

    def full(self: Store, *args: object) -> None:
        raise duckdb.IOException("IO Error: No space left on device")

    monkeypatch.setattr(Store, "_insert_records", full)
    with pytest.raises(RecordingFailed, match="1 recorded response") as err:
        rec.close()
    assert err.value.code == "R510"


# ------------------------------------------------------------------ the command line

TOOLS_PY = '''
def corp_code(corp_name):
    return [{"corp_code": "00126380", "corp_name": corp_name, "stock_code": "005930"}]

def disclosures(corp_code, bgn_de, end_de, **paging):
    return {"status": "000", "total_count": 1, "list": [
        {"corp_code": corp_code, "report_nm": "A", "rcept_dt": "20241210", "rcept_no": "1"}]}

def stock_price(likeSrtnCd, basDt, **paging):
    return {"totalCount": 1, "items": [{"srtnCd": likeSrtnCd, "basDt": "20241230",
            "clpr": "53,000", "__KEY": "poison"}]}

TOOLS = {"dart.corp_code": corp_code, "dart.disclosures": disclosures,
         "krx.stock_price": stock_price}
'''

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "samsung_filing.edge"


def test_run_record_reports_a_refused_response_and_keeps_the_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A plan (JSON, not checked again) whose tool declares `__KEY`: the run's answer is fine,
    the response is refused (R512, exit 1, not R510), the others replay."""
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS_PY, encoding="utf-8")
    plan_path = tmp_path / "plan.json"
    assert main(["compile", str(EXAMPLE), "-o", str(plan_path)]) == 0
    plan = orjson.loads(plan_path.read_bytes())
    plan["tools"]["krx.stock_price"]["fields"]["__KEY"] = "str"
    plan_path.write_bytes(orjson.dumps(plan))
    store = tmp_path / "s.duckdb"
    capsys.readouterr()
    code = main(["run", str(plan_path), "--tools", str(tools), "--record", str(store)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "[ok]" in out  # the run itself succeeded
    assert "error[R512]: not recorded in" in err and "krx.stock_price(" in err
    assert "R512: 1 response(s) not recorded" in err and "R510" not in err
    assert "Current transaction is aborted" not in err
    assert main(["store", "stats", str(store), "--json"]) == 0
    stats = orjson.loads(capsys.readouterr().out)
    assert stats["responses"] == 2 and {t["tool"] for t in stats["tools"]} == {
        "dart.corp_code", "dart.disclosures"}
    code = main(["run", str(plan_path), "--backend", "store", "--store", str(store), "--json"])
    res = orjson.loads(capsys.readouterr().out.splitlines()[0])
    assert code == 1 and res["diagnostics"][0]["code"] == "R505"  # only the refused call
    assert "krx.stock_price" in res["diagnostics"][0]["message"]


def test_r511_and_r512_are_explained() -> None:
    from edgedsl.core.codes import CODES

    assert CODES["R511"].title == "store file cannot be used"
    assert CODES["R512"].title == "response not recorded"
    assert store_file_module.Refused.code == "R512"
