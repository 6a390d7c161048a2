"""Inter-process locking of a store file: ``STORE.lock`` beside it, taken with ``fcntl.flock``.

DuckDB lets one process open a database file read-write, or any number of processes open it
read-only, and fails at once (no waiting) when that is not possible. The lock file turns this
into waiting: a writer takes it *exclusively* for as long as it holds the file open read-write
(a recorder only while it flushes), a reader (replay) takes it *shared* for as long as it holds
the file open read-only. A lock held by a process dies with it (the kernel releases ``flock``
locks), so a killed recorder never leaves the store locked. Where ``fcntl`` is missing (Windows)
the lock is a no-op and DuckDB's own lock, retried with backoff, is the only guard.

Inside one process the lock is taken once per file and counted: DuckDB shares one database
instance between the connections a process opens to a file, which must all be read-write or all
read-only. A read-write open while the process holds the file read-only is refused
(:class:`StoreLocked`), since DuckDB would refuse it too.

The lock file is never deleted (deleting it would let two processes lock two different files).
"""

from __future__ import annotations

import gc
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

try:  # pragma: no cover - platform dependent
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

import duckdb

from .store_file import StoreError

__all__ = [
    "DEFAULT_TIMEOUT",
    "StoreLocked",
    "acquire",
    "default_timeout",
    "held_mode",
    "lock_path",
    "retry",
]

#: Seconds a store open waits for the lock (``EDGEDSL_STORE_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 120.0

Mode = Literal["shared", "exclusive"]
T = TypeVar("T")


class StoreLocked(StoreError, RuntimeError):
    """The store file could not be locked or opened within the timeout (code ``R511``: an
    environmental failure, waiting longer may succeed)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, hint="wait for the other process to finish, or raise "
                         "EDGEDSL_STORE_TIMEOUT (seconds)")


def default_timeout() -> float:
    """``EDGEDSL_STORE_TIMEOUT`` (seconds) or :data:`DEFAULT_TIMEOUT`."""
    try:
        return float(os.environ.get("EDGEDSL_STORE_TIMEOUT", DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


def lock_path(path: str | Path) -> Path:
    """``STORE.lock`` beside the store file."""
    return Path(str(path) + ".lock")


@dataclass
class _Held:
    fd: int | None
    mode: Mode
    count: int


_HELD: dict[str, _Held] = {}
_GUARD = threading.Lock()


def _forget_after_fork() -> None:  # a forked child takes its own locks (a new descriptor)
    global _GUARD
    _HELD.clear()
    _GUARD = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _ident(path: str | Path) -> str:
    return str(Path(path).resolve())


def _backoff(attempt: int) -> float:
    return min(0.2, 0.002 * (2 ** min(attempt, 8))) * (0.5 + random.random())


def _flock(fd: int, mode: Mode, timeout: float, what: str) -> None:
    if fcntl is None:  # pragma: no cover
        return
    op = (fcntl.LOCK_SH if mode == "shared" else fcntl.LOCK_EX) | fcntl.LOCK_NB
    deadline = time.monotonic() + timeout
    attempt = 0
    while True:
        try:
            fcntl.flock(fd, op)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                who = "a writer, or readers replaying from it" if mode == "exclusive" \
                    else "a writer"
                raise StoreLocked(
                    f"{what} is locked by another process ({who}); gave up after {timeout:g} s "
                    "(EDGEDSL_STORE_TIMEOUT sets the wait)") from None
            time.sleep(_backoff(attempt))
            attempt += 1


def _open_lock(lp: Path, path: str | Path, mode: Mode) -> int:
    """The lock file's descriptor (created if missing). A reader of a store in a directory it
    cannot write (read-only media) locks the lock file read-only if it exists, else nothing: no
    writer can open that file either."""
    try:
        return os.open(lp, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if mode == "shared":
            try:
                return os.open(lp, os.O_RDONLY)
            except OSError:
                return -1
        raise StoreError(f"cannot create the lock file `{lp}` of the store `{path}`: "
                         f"{exc.strerror or exc}",
                         hint="record into a directory you can write") from None


def acquire(path: str | Path, mode: Mode, timeout: float) -> Callable[[], None]:
    """Take the lock of the store at ``path`` in ``mode``; returns the (idempotent) release.

    Inside a process, a second holder of a file already locked shares the lock; asking for
    ``exclusive`` while the process holds it ``shared`` raises :class:`StoreLocked`."""
    ident = _ident(path)
    if mode == "exclusive" and held_mode(path) == "shared":
        # a forgotten, unreachable read-only Store may still hold it: collect it first, outside
        # _GUARD, since its finalizer releases the lock and takes _GUARD itself
        gc.collect()
    with _GUARD:
        held = _HELD.get(ident)
        if held is not None and held.mode == "shared" and mode == "exclusive":
            raise StoreLocked(
                f"{path} is open read-only (replay) in this process; close that store "
                "before writing to it")
        if held is not None:
            held.count += 1
        else:
            fd = None
            if fcntl is not None:
                got = _open_lock(lock_path(path), path, mode)
                fd = None if got < 0 else got
            if fd is not None:
                try:
                    _flock(fd, mode, timeout, str(path))
                except BaseException:
                    os.close(fd)
                    raise
            held = _HELD[ident] = _Held(fd, mode, 1)
    done = False

    def release() -> None:
        nonlocal done
        with _GUARD:
            if done:
                return
            done = True
            h = _HELD.get(ident)
            if h is None:
                return
            h.count -= 1
            if h.count <= 0:
                del _HELD[ident]
                if h.fd is not None:
                    os.close(h.fd)  # closing the descriptor releases the flock

    return release


def held_mode(path: str | Path) -> Mode | None:
    """The mode in which this process holds the store's lock (None: not held)."""
    with _GUARD:
        h = _HELD.get(_ident(path))
        return None if h is None else h.mode


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, duckdb.IOException) and ("lock" in text or "conflicting" in text)


def retry(fn: Callable[[], T], timeout: float, what: str) -> T:
    """``fn()``, retried with backoff while DuckDB reports the file locked (by a process that
    does not take the lock file, or one still closing), up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    attempt = 0
    while True:
        try:
            return fn()
        except duckdb.Error as exc:
            if not _is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise StoreLocked(f"{what} is held open by another process: {exc}") from None
        time.sleep(_backoff(attempt))
        attempt += 1
