"""In-memory buffers DuckDB reads as files (:mod:`edgedsl.runtime.buffers`)."""

from __future__ import annotations

import threading

import duckdb
import orjson

from edgedsl.runtime.buffers import PROTOCOL, _file_system, buffer, held


def test_a_buffer_is_read_as_a_file_while_the_block_runs_and_is_gone_after() -> None:
    con = duckdb.connect()
    records = [{"b": 1, "a": "가"}, {"a": [1, {"x": None}]}, {}]
    with buffer(con, orjson.dumps(records)) as url:
        assert url.startswith(f"{PROTOCOL}://")
        got = con.execute("SELECT ordinality, json FROM read_json_objects(?, format='array') "
                          "WITH ORDINALITY", [url]).fetchall()
        assert [(i, orjson.loads(t)) for i, t in got] == [(1, records[0]), (2, records[1]),
                                                          (3, records[2])]
    assert held() == 0  # removed
    from fsspec.implementations.memory import MemoryFileSystem
    assert not any(k.endswith(url.split("/")[-1]) for k in MemoryFileSystem.store)  # its own store
    # a cursor shares its database's file systems: registered once
    cur = con.cursor()
    assert cur.filesystem_is_registered(PROTOCOL)
    with buffer(cur, b"[]") as url:
        assert cur.execute("SELECT count(*) FROM read_json_objects(?, format='array')",
                           [url]).fetchone() == (0,)


def test_cursors_in_threads_register_the_file_system_once() -> None:
    con = duckdb.connect()
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            cur = con.cursor()
            with buffer(cur, orjson.dumps([{"i": i}])) as url:
                (text,) = cur.execute("SELECT json FROM read_json_objects(?)", [url]).fetchone() \
                    or ("",)
                assert orjson.loads(text) == {"i": i}
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_read_buffer_still_shares_the_callers_bytes() -> None:
    """Reading a buffer copies none of it whole: its size is read without a buffer view (a
    view makes ``BytesIO`` copy the bytes it shares — 22 MB for a large response)."""
    con = duckdb.connect()
    data = orjson.dumps([{"a": i} for i in range(1000)])
    with buffer(con, data) as url:
        assert con.execute("SELECT count(*) FROM read_json_objects(?, format='array')",
                           [url]).fetchone() == (1000,)
        (file,) = _file_system().store.values()
        assert file.size == len(data)
        assert file.getvalue() is data  # still the caller's object, never copied
