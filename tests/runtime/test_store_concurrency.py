"""The store under several processes: two recorders at once, a recorder killed mid-write, a
reader holding the file, buffered recording, and files recorded before tool specs were kept.

Recorders run ``tests/store_recorder.py`` as separate processes (DuckDB locks per process). No
assertion depends on time: waits are for lines a process prints, timeouts only guard a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend
from edgedsl.runtime.backends import import_file
from edgedsl.runtime.store import StoreLocked, store_key

HERE = Path(__file__).parents[1]
SCRIPT = HERE / "store_recorder.py"
REC = import_file(SCRIPT)
TOOL, items = REC.TOOL, REC.items
GUARD = 600  # seconds: only against a hang


def recorder(path: Path, start: int, stop: int, size: int, flush_every: int, *extra: str,
             wait: bool = False, kill: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "EDGEDSL_TEST_WAIT": "1" if wait else "", "EDGEDSL_TEST_KILL": kill}
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), str(path), str(start), str(stop), str(size),
         str(flush_every), *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env)


def assert_consistent(path: Path) -> int:
    """Every response has exactly ``record_count`` records, no record is orphaned, no key is
    recorded twice; returns the number of responses."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        table = f"records_{TOOL.declaration_hash}"
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables")
                  .fetchall()}
        n = con.execute("SELECT count(*) FROM responses").fetchone()[0]
        assert con.execute("SELECT count(DISTINCT key) FROM responses").fetchone()[0] == n
        if table not in tables:
            assert n == 0
            return 0
        bad = con.execute(f"""
            SELECT r.key, r.record_count, count(x."__key") FROM responses r
            LEFT JOIN "{table}" x ON x."__key" = r.key GROUP BY ALL
            HAVING r.record_count != count(x."__key")""").fetchall()
        assert bad == []
        orphans = con.execute(f"""
            SELECT count(*) FROM "{table}" x
            WHERE x."__key" NOT IN (SELECT key FROM responses)""").fetchone()[0]
        assert orphans == 0
        dup_rows = con.execute(f"""
            SELECT count(*) FROM (SELECT "__key", "__row" FROM "{table}" GROUP BY ALL
            HAVING count(*) > 1)""").fetchone()[0]
        assert dup_rows == 0
        return int(n)
    finally:
        con.close()


def assert_stats(path: Path, responses: int) -> None:
    """``edgedsl store stats --json`` succeeds and counts ``responses``."""
    from edgedsl.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["store", "stats", str(path), "--json"]) == 0
    assert json.loads(out.getvalue())["responses"] == responses


def assert_replays(path: Path, ns: range, size: int, absent: range = range(0)) -> None:
    """Each call of ``ns`` replays its records exactly; none of ``absent`` is recorded."""
    with StoreBackend(path) as replay:
        for n in ns:
            hit = replay.store.get(TOOL, {"n": n, "size": size}, None)
            assert hit is not None and hit.records == items(n, size), n
        for n in absent:
            assert replay.store.get(TOOL, {"n": n, "size": size}, None) is None, n


@pytest.mark.slow
def test_two_processes_record_at_once(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    size = 40
    procs = [recorder(path, 0, 60, size, 3, wait=True),  # keys 30..59 recorded by both
             recorder(path, 30, 90, size, 3, wait=True)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:  # start both together
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        out, err = p.communicate(timeout=GUARD)
        assert p.returncode == 0, err
        assert out.strip().splitlines()[-1] == "done 60"
    assert assert_consistent(path) == 90
    assert_stats(path, 90)
    with Store(path, read_only=True) as store:
        for n in range(90):
            hit = store.get(TOOL, {"n": n, "size": size}, None)
            assert hit is not None and len(hit) == size, n
            assert hit.records == items(n, size)
        assert set(store.specs()) == {TOOL.declaration_hash}


@pytest.mark.parametrize("rounds", [3])
@pytest.mark.slow
def test_a_killed_recorder_leaves_a_consistent_store(tmp_path: Path, rounds: int) -> None:
    path = tmp_path / "s.duckdb"
    rnd = random.Random(7)
    for r in range(rounds):
        # large responses: most of a recorder's time is spent writing them
        p = recorder(path, 1000 * r, 1000 * r + 40, 1500, 2, "forever")
        assert p.stdout is not None
        for _ in range(2 + r):
            line = p.stdout.readline()
            assert line.startswith("flushed"), (line, p.stderr.read() if p.stderr else "")
        time.sleep(rnd.random() * 0.3)  # somewhere in the next flush (or between flushes)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=GUARD)
        assert p.returncode == -signal.SIGKILL
        n = assert_consistent(path)
        assert n >= 2 * (2 + r)  # every flush reported before the kill is there
        assert_replays(path, range(1000 * r, 1000 * r + 2 * (2 + r)), 1500)
        assert_stats(path, n)
    # a new recorder appends (the killed process's locks died with it)
    before = assert_consistent(path)
    with RecordingBackend(PythonBackend({"t.items": items}), path, flush_every=2,
                          timeout=60) as rec:
        async def go() -> None:
            for n in range(5):
                await rec.call(TOOL, {"n": 9_000 + n, "size": 3}, page=None)

        asyncio.run(go())
    assert assert_consistent(path) == before + 5
    with Store(path, read_only=True) as store:
        assert store.get(TOOL, {"n": 9_004, "size": 3}, None) is not None


@pytest.mark.parametrize(("point", "k", "visible"), [
    ("begin", 1, 0),     # the first flush: the tables exist, nothing else
    ("begin", 3, 2),     # a transaction begun, nothing written
    ("records", 3, 2),   # responses and records written, not committed
    ("commit", 3, 3),    # committed, only in the write-ahead log
])
@pytest.mark.slow
def test_a_recorder_killed_at_a_point_of_a_flush(tmp_path: Path, point: str, k: int,
                                                 visible: int) -> None:
    """SIGKILL at a chosen point of the k-th flush (of 4 responses): the store opens, every
    flushed response replays, nothing of an uncommitted flush is visible, stats succeed, and
    a new recorder appends."""
    path = tmp_path / "s.duckdb"
    every, size = 4, 30
    p = recorder(path, 0, 40, size, every, kill=f"{point}:{k}")
    out, err = p.communicate(timeout=GUARD)
    assert p.returncode == -signal.SIGKILL, err
    assert [x for x in out.splitlines() if x.startswith("flushed")] == [
        f"flushed {every * i}" for i in range(1, k)]
    assert assert_consistent(path) == every * visible
    assert_replays(path, range(every * visible), size, absent=range(every * visible, 40))
    assert_stats(path, every * visible)
    with RecordingBackend(PythonBackend({"t.items": items}), path, timeout=60) as rec:
        async def go() -> None:
            await rec.call(TOOL, {"n": 1_000, "size": 3}, page=None)

        asyncio.run(go())
    assert assert_consistent(path) == every * visible + 1


READER = """
import sys
from edgedsl.runtime import StoreBackend
b = StoreBackend(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
b.close()
print("closed", flush=True)
"""


@pytest.mark.slow
def test_a_reader_holds_writers_off_until_it_closes(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        store.put(TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 2)))
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "open"
        # another reader is welcome
        with StoreBackend(path) as replay:
            assert replay.store.get(TOOL, {"n": 1, "size": 2}, None) is not None
        # a writer waits, then says why it gave up
        with pytest.raises(StoreLocked, match="locked by another process"):
            Store(path, timeout=0.3)
        rec = RecordingBackend(PythonBackend({"t.items": items}), path, flush_every=1,
                               timeout=0.3)
        failed = _call_result(rec, 2)
        assert failed is not None and failed.code == "R510" and "locked" in failed.message
        assert rec.pending == 1  # kept for the next flush
        assert reader.stdin is not None
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "closed"
        rec.close()  # now it gets the lock
        assert rec.pending == 0
    finally:
        reader.kill()
        reader.wait(timeout=GUARD)
    with Store(path, read_only=True) as store:
        assert store.get(TOOL, {"n": 2, "size": 2}, None) is not None


def _resp(records: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    from edgedsl.runtime.backends import Response

    return Response(records=records, raw=b"[]")


def _call_result(rec: RecordingBackend, n: int):  # type: ignore[no-untyped-def]
    from edgedsl.runtime.backends import ToolFailure

    async def go() -> ToolFailure | None:
        try:
            await rec.call(TOOL, {"n": n, "size": 2}, page=None)
        except ToolFailure as f:
            return f
        return None

    return asyncio.run(go())


def test_recording_into_a_path_is_buffered_and_flushed_at_close(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    rec = RecordingBackend(PythonBackend({"t.items": items}), path, flush_every=3)
    for n in range(4):
        assert _call_result(rec, n) is None
    assert (rec.flushes, rec.pending) == (1, 1)  # one batch of 3 written, one response waiting
    assert assert_consistent(path) == 3
    rec.close()
    assert (rec.flushes, rec.pending, rec.recorded) == (2, 0, 4)
    assert assert_consistent(path) == 4


@pytest.mark.slow
def test_a_dropped_recorder_still_writes_its_buffer(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    rec = RecordingBackend(PythonBackend({"t.items": items}), path, flush_every=100)
    assert _call_result(rec, 1) is None
    del rec  # garbage: the finalizer flushes (as interpreter exit would)
    import gc

    gc.collect()
    assert assert_consistent(path) == 1


def test_same_key_twice_in_one_batch_keeps_the_last(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        keys = store.put_many([(TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 2))),
                               (TOOL, {"n": 2, "size": 2}, None, _resp(items(2, 2))),
                               (TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 3)))])
        assert keys[0] == keys[2] == store_key(TOOL, {"n": 1, "size": 2}, None)
        hit = store.get(TOOL, {"n": 1, "size": 2}, None)
        assert hit is not None and hit.records == items(1, 3)
    assert assert_consistent(path) == 2


def test_a_file_recorded_before_specs_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))  # the schema of the first stores: no `spec` column
    con.execute("""
        CREATE TABLE responses (key VARCHAR, platform VARCHAR, tool VARCHAR, decl_hash VARCHAR,
          args VARCHAR, page INTEGER, total BIGINT, raw BLOB, record_count BIGINT,
          recorded_at TIMESTAMP);
        CREATE TABLE tools (decl_hash VARCHAR, qualname VARCHAR, fields VARCHAR,
          records_table VARCHAR);""")
    con.close()
    with Store(path, read_only=True) as store:  # read-only: readable, nothing changed
        assert store.specs() == {} and store.count() == 0
    with Store(path) as store:
        store.put(TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 2)))
        assert store.specs() == {TOOL.declaration_hash: TOOL}
    con = duckdb.connect(str(path), read_only=True)
    cols = [r[0] for r in con.execute("DESCRIBE tools").fetchall()]
    con.close()
    assert cols[-1] == "spec"


def test_responses_recorded_before_seq_are_found_by_key(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        store.put(TOOL, {"n": 1, "size": 3}, None, _resp(items(1, 3)))
        table = store.table_name(TOOL)
        store.con.execute("ALTER TABLE responses DROP COLUMN seq")  # as the first stores were
        store.con.execute(f'ALTER TABLE "{table}" DROP COLUMN "__seq"')
    with Store(path, read_only=True) as store:  # old layout, read-only: by key
        hit = store.get(TOOL, {"n": 1, "size": 3}, None)
        assert hit is not None and hit.records == items(1, 3)
        assert hit.stored is not None
        assert store.columns(hit.stored, TOOL.field_types())["i"] == [100_000, 100_001, 100_002]
    with Store(path) as store:  # a write migrates; old rows keep working by key
        store.put(TOOL, {"n": 2, "size": 2}, None, _resp(items(2, 2)))
    with Store(path, read_only=True) as store:
        for n, size in ((1, 3), (2, 2)):
            hit = store.get(TOOL, {"n": n, "size": size}, None)
            assert hit is not None and hit.stored is not None
            assert hit.records == items(n, size)
            assert store.columns(hit.stored, TOOL.field_types())["name"] == [
                r["name"] for r in items(n, size)]
    assert assert_consistent(path) == 2


def test_read_only_and_read_write_in_one_process(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as rw:  # a read-only open while the process has it read-write shares it
        rw.put(TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 2)))
        with StoreBackend(path) as replay:
            assert replay.store.get(TOOL, {"n": 1, "size": 2}, None) is not None
    with StoreBackend(path) as replay, pytest.raises(StoreLocked, match="read-only"):
        Store(path)  # DuckDB itself refuses a read-write open beside a read-only one
    with Store(path) as rw:  # closed: fine again
        assert rw.count() == 1


def test_an_unreachable_read_only_store_is_collected_without_a_deadlock(tmp_path: Path) -> None:
    """A read-write open while a forgotten read-only store (only the cycle collector can free it)
    still holds the file: the collector runs its finalizer, which releases the lock. It used to
    run under the lock table's own (non-reentrant) lock, so the finalizer waited on it forever."""
    import gc
    import threading

    path = tmp_path / "s.duckdb"
    with Store(path) as rw:
        rw.put(TOOL, {"n": 1, "size": 2}, None, _resp(items(1, 2)))

    class Holder:
        pass

    gc.disable()
    try:
        holder = Holder()
        holder.me = holder  # type: ignore[attr-defined]  # a cycle: refcounting never frees it
        holder.replay = StoreBackend(path)  # type: ignore[attr-defined]
        del holder
        outcome: list[object] = []

        def write() -> None:
            try:
                with Store(path) as rw:
                    outcome.append(rw.count())
            except BaseException as exc:
                outcome.append(exc)

        t = threading.Thread(target=write, daemon=True)
        t.start()
        t.join(30)
        assert not t.is_alive(), "the read-write open deadlocked collecting the read-only store"
    finally:
        gc.enable()
    assert outcome == [1]
