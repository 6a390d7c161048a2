"""Opening a store file safely (issue 16, item 9).

Replay (``--backend store``, ``store stats | export | drift``) never creates a file, never lets
DuckDB load or download an extension, and reports a bad store file — missing, a directory, empty,
text, random bytes, SQLite, truncated DuckDB, a DuckDB database that is not a store — as one
``R511`` diagnostic with exit code 1 from every command, never exit 2 or a traceback. ``--record``
refuses a foreign file the same way and leaves it untouched.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from edgedsl.cli import main
from edgedsl.runtime import PythonBackend, RecordingBackend, Store, StoreBackend
from edgedsl.runtime.backends import Response
from edgedsl.runtime.store_file import DUCKDB_CONFIG, StoreError
from edgedsl.runtime.store_lock import lock_path
from tests.runtime.test_store_concurrency import assert_consistent
from tests.store_recorder import TOOL, items

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "samsung_filing.edge")
TOOLS = str(ROOT / "examples" / "tools.py")


def _store(path: Path) -> Path:
    with Store(path) as st:
        for n in range(40):
            st.put(TOOL, {"n": n, "size": 50}, None, Response(records=items(n, 50), raw=b"[]"))
    return path


def _sqlite(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE responses (key TEXT)")
    con.commit()
    con.close()
    return path


def _duckdb_with(sql: str) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        con = duckdb.connect(str(path))
        if sql:
            con.execute(sql)
        con.close()
        return path

    return make


def _truncated(keep: Callable[[int], int]) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        data = _store(path.with_name("whole.duckdb")).read_bytes()
        path.write_bytes(data[:keep(len(data))])
        return path

    return make


def _write(data: bytes) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return make


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


#: name → (maker of the bad file, a phrase of its message)
BAD: dict[str, tuple[Callable[[Path], Path], str]] = {
    "directory": (_directory, "is a directory"),
    "empty file": (_write(b""), "empty file (0 bytes)"),
    "text file": (_write("응답 목록\nnot a database\n".encode()), "not a DuckDB database file"),
    "random bytes": (_write(bytes(range(256)) * 40), "not a DuckDB database file"),
    "sqlite": (_sqlite, "is a SQLite database"),
    "truncated half": (_truncated(lambda n: n // 2), "cannot be read"),
    "truncated header": (_truncated(lambda n: 100), "cannot be read"),
    "foreign duckdb": (_duckdb_with("CREATE TABLE t (x INT); INSERT INTO t VALUES (1)"),
                       "is a DuckDB database but not an edgedsl store: it holds other tables (t)"),
    "partial store": (_duckdb_with("CREATE TABLE tools (decl_hash VARCHAR, qualname VARCHAR, "
                                   "fields VARCHAR, records_table VARCHAR)"),
                      "the `responses` table is missing"),
}
#: replay only: a recorder may create these
REPLAY_ONLY: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (lambda p: p, "no such file (replay never creates one)"),
    "empty duckdb": (_duckdb_with(""), "not an edgedsl store: it holds no tables"),
}


def _state(path: Path) -> tuple[object, ...]:
    """What the path holds: nothing, a directory, or a file's digest (and the lock file)."""
    if not path.exists():
        return ("missing", lock_path(path).exists())
    if path.is_dir():
        return ("dir", sorted(os.listdir(path)))
    return (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)


@pytest.mark.parametrize("name", sorted(BAD | REPLAY_ONLY))
def test_replay_refuses_a_bad_store_cleanly(tmp_path: Path, name: str) -> None:
    make, phrase = (BAD | REPLAY_ONLY)[name]
    path = make(tmp_path / "s.duckdb")
    before = _state(path)
    with pytest.raises(StoreError) as err:
        StoreBackend(path)
    assert err.value.code == "R511" and phrase in err.value.message, err.value.message
    assert str(path) in err.value.message and err.value.hint
    with pytest.raises(StoreError):
        Store(path, read_only=True)
    assert _state(path) == before  # nothing created, nothing written
    assert not path.with_name("s.duckdb.wal").exists()


@pytest.mark.parametrize("name", sorted(BAD | REPLAY_ONLY))
def test_every_command_gives_r511_and_exit_1(tmp_path: Path, name: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    make, phrase = (BAD | REPLAY_ONLY)[name]
    path = str(make(tmp_path / "s.duckdb"))
    before = _state(Path(path))
    commands = [
        ["run", EXAMPLE, "--backend", "store", "--store", path],
        ["run", EXAMPLE, "--store", path, "--no-strict"],
        ["store", "stats", path],
        ["store", "stats", path, "--json"],
        ["store", "export", path],
        ["store", "drift", path, "--backend", "python", "--tools", TOOLS],
        ["synth", "run", "-n", "1", "--output", str(tmp_path / "out"), "--store", path],
    ]
    for argv in commands:
        code = main(argv)
        out, err = capsys.readouterr()
        shown = out + err
        assert code == 1, (argv, shown)
        assert "R511" in shown and phrase in shown, (argv, shown)
        assert "internal error" not in shown and "Traceback" not in shown
    assert _state(Path(path)) == before


@pytest.mark.parametrize("name", sorted(BAD))
def test_record_refuses_a_foreign_file_and_leaves_it(tmp_path: Path, name: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    make, phrase = BAD[name]
    path = make(tmp_path / "s.duckdb")
    before = _state(path)
    with pytest.raises(StoreError) as err:
        RecordingBackend(PythonBackend({}), path)
    assert err.value.code == "R511" and phrase in err.value.message
    code = main(["run", EXAMPLE, "--tools", TOOLS, "--record", str(path)])
    out, err_text = capsys.readouterr()
    assert code == 1 and "R511" in err_text and phrase in err_text
    assert "== " not in out  # refused before running anything
    assert _state(path) == before


def test_record_creates_a_missing_store_or_fills_an_empty_duckdb_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = _duckdb_with("")(tmp_path / "empty.duckdb")
    for path in (tmp_path / "new.duckdb", empty):
        assert main(["run", EXAMPLE, "--tools", TOOLS, "--record", str(path)]) == 0
        with Store(path, read_only=True) as st:
            assert st.count() == 3
    capsys.readouterr()
    assert main(["run", EXAMPLE, "--tools", TOOLS, "--record",
                 str(tmp_path / "no" / "dir" / "s.duckdb")]) == 1
    assert "the directory" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_replay_opens_read_only_and_changes_nothing(tmp_path: Path) -> None:
    path = _store(tmp_path / "s.duckdb")
    before = _state(path)
    with StoreBackend(path) as replay:
        assert replay.store.get(TOOL, {"n": 3, "size": 50}, None) is not None
        assert replay.store.read_only
    assert main(["store", "stats", str(path)]) == 0
    assert _state(path) == before
    assert_consistent(path)


def test_no_connection_may_load_or_install_an_extension(tmp_path: Path) -> None:
    assert DUCKDB_CONFIG == {"autoload_known_extensions": False,
                             "autoinstall_known_extensions": False}
    path = _store(tmp_path / "s.duckdb")
    for read_only in (True, False):
        with Store(path, read_only=read_only) as st:
            got = dict(st.con.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN "
                "('autoload_known_extensions', 'autoinstall_known_extensions')").fetchall())
            assert got == {"autoload_known_extensions": "false",
                           "autoinstall_known_extensions": "false"}


def test_a_sqlite_file_reaching_duckdb_downloads_nothing(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """With the header check switched off, DuckDB itself meets the SQLite file: it wants its
    sqlite extension, and with autoloading off it fails at once instead of downloading it."""
    path = _sqlite(tmp_path / "s.duckdb")
    before = _state(path)
    monkeypatch.setattr("edgedsl.runtime.store.check_file", lambda p, create: True)
    for read_only in (True, False):
        with pytest.raises(StoreError) as err:
            Store(path, read_only=read_only)
        assert err.value.code == "R511" and "cannot be read" in err.value.message
        assert "download" not in err.value.message.lower(), err.value.message
    assert _state(path) == before


NO_NETWORK = """
import sys
from edgedsl.runtime.store import Store
from edgedsl.runtime.store_file import StoreError
import edgedsl.runtime.store as store
store.check_file = lambda p, create: True   # let DuckDB see the SQLite file
try:
    Store(sys.argv[1], read_only=True)
except StoreError as exc:
    print(exc.code, exc.message)
"""


def test_no_network_attempt_through_a_proxy(tmp_path: Path) -> None:
    """A listening socket stands for the network (as proxy for every scheme): opening a SQLite
    file in a fresh process connects to nothing."""
    import socket

    path = _sqlite(tmp_path / "s.duckdb")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.5)
    proxy = f"http://127.0.0.1:{server.getsockname()[1]}"
    env = {**os.environ, **{k: proxy for k in ("http_proxy", "https_proxy", "HTTP_PROXY",
                                               "HTTPS_PROXY", "ALL_PROXY", "all_proxy")}}
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    try:
        out = subprocess.run([sys.executable, "-c", NO_NETWORK, str(path)], env=env,
                             capture_output=True, text=True, timeout=60, check=True).stdout
        assert out.startswith("R511 ") and "download" not in out.lower(), out
        with pytest.raises(TimeoutError):
            server.accept()  # nobody came
    finally:
        server.close()


HOLDER = """
import sys
from edgedsl.runtime import Store
s = Store(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
s.close()
"""


def test_a_store_held_by_another_process_is_r511_exit_1(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    path = _store(tmp_path / "s.duckdb")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        monkeypatch.setenv("EDGEDSL_STORE_TIMEOUT", "0.3")
        for argv in (["store", "stats", str(path)],
                     ["run", EXAMPLE, "--backend", "store", "--store", str(path)]):
            assert main(argv) == 1
            err = capsys.readouterr().err
            assert "R511" in err and "locked by another process" in err
            assert "EDGEDSL_STORE_TIMEOUT" in err
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=120)


@pytest.mark.parametrize("lock_exists", [True, False])
def test_a_store_in_a_directory_without_write_access(tmp_path: Path, lock_exists: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock file cannot be created or opened for writing (read-only media; simulated: the
    tests may run as root): replay locks it read-only or goes on without it, a writer is
    refused with R511."""
    from edgedsl.runtime import store_lock

    path = _store(tmp_path / "s.duckdb")
    if not lock_exists:
        lock_path(path).unlink()
    real_open = os.open

    def no_create(file: str | os.PathLike[str], flags: int, *args: int) -> int:
        if str(file).endswith(".lock") and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied")
        return real_open(file, flags, *args)

    monkeypatch.setattr(store_lock.os, "open", no_create)
    with StoreBackend(path) as replay:
        assert replay.store.get(TOOL, {"n": 1, "size": 50}, None) is not None
    with pytest.raises(StoreError, match="cannot create the lock file") as err:
        Store(path)
    assert err.value.code == "R511"
    assert lock_path(path).exists() == lock_exists
