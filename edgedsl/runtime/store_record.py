"""Recording: a backend wrapper that stores each successful response (see ``docs/store.md``).

:class:`RecordingBackend` given an open :class:`~edgedsl.runtime.store.Store` writes each
response through it at once; given a path, it buffers responses and opens the file only to flush
them, one transaction per flush, so that several processes can record into one store at once. A
response the store refuses for a reason of its own (:meth:`~edgedsl.runtime.store.Store.write`)
is reported and never costs the others their place; an environmental failure keeps the buffer.
"""

from __future__ import annotations

import sys
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

import duckdb

from ..plan.model import ToolSpec
from .backends import Backend, Response, ToolFailure
from .store import Item, Store, close_con, safe_call
from .store_file import (
    DUCKDB_CONFIG,
    Refused,
    StoreError,
    check_file,
    check_layout,
    check_path,
    describe_duckdb_error,
    unreadable,
)
from .store_lock import acquire, default_timeout, held_mode, retry

__all__ = [
    "FLUSH_EVERY",
    "FLUSH_RECORDS",
    "FLUSH_SECONDS",
    "RecordingBackend",
    "RecordingFailed",
    "check_record_target",
    "warn_refused",
]

#: A recorder given a path flushes after this many buffered responses …
FLUSH_EVERY = 64
#: … or this many buffered records …
FLUSH_RECORDS = 200_000
#: … or this many seconds after the first buffered response (checked at each response).
FLUSH_SECONDS = 5.0


def check_record_target(path: Path, timeout: float) -> None:
    """Raise :class:`~edgedsl.runtime.store_file.StoreError` (R511) unless ``path`` can be
    recorded into: missing (in an existing directory), a store whose tools and keys can be read,
    or an empty DuckDB database. Opens an existing file read-only (the lock shared) and writes
    nothing."""
    if not check_path(path, create=True) or held_mode(path) is not None:
        return  # missing, or open in this process already (as a store)
    release = acquire(path, "shared", timeout)
    try:
        check_file(path, create=True)
        con = retry(lambda: duckdb.connect(str(path), read_only=True, config=DUCKDB_CONFIG),
                    timeout, str(path))
    except duckdb.Error as exc:
        release()
        raise unreadable(path, exc) from None
    except BaseException:
        release()
        raise
    try:
        if check_layout(con, path, create=True):  # a store: its tools and keys can be read
            con.execute("SELECT count(*) FROM tools").fetchall()
            con.execute("SELECT count(DISTINCT key), sum(record_count) FROM responses").fetchall()
    except duckdb.Error as exc:
        raise unreadable(path, exc) from None
    finally:
        close_con(con, release)


def warn_refused(path: Path, refused: Sequence[Refused]) -> None:
    """The default report of refused responses: one line each on stderr."""
    for r in refused:
        sys.stderr.write(f"edgedsl: error[{r.code}]: {r.message(path)} (the other responses "
                         "are recorded)\n")


class RecordingFailed(StoreError):
    """Buffered responses could not be written for an environmental reason (code ``R510``)."""

    def __init__(self, n: int, path: Path, exc: BaseException) -> None:
        super().__init__(
            f"{n} recorded response(s) could not be written to {path}: {type(exc).__name__}: "
            f"{describe_duckdb_error(exc)}", code="R510",
            hint="free space, release the file or choose another path, then run again")


def _write_buffer(buffer: list[Item], target: Store | Path, timeout: float) -> list[Refused]:
    """Write and empty ``buffer``, returning the responses refused (the buffer is kept whole
    if the write fails for an environmental reason, which is raised)."""
    if not buffer:
        return []
    if isinstance(target, Store):
        result = target.write(buffer)
    else:
        with Store(target, timeout=timeout, load_index=False) as store:
            result = store.write(buffer)
    buffer.clear()
    return result.refused


def _flush_at_exit(buffer: list[Item], path: Path, timeout: float, refused: list[Refused],
                   report: Callable[[Path, Sequence[Refused]], None]) -> None:
    try:
        new = _write_buffer(buffer, path, timeout)
    except Exception as exc:  # at interpreter exit or garbage collection: say so, do not raise
        err = RecordingFailed(len(buffer), path, exc)
        sys.stderr.write(f"edgedsl: error[{err.code}]: {err.message}\n")
        return
    refused += new
    if new:
        report(path, new)


class RecordingBackend:
    """Wraps any backend and records each successful response that did not come from the store.

    Given an open :class:`Store`, it writes each response through it at once (``flush_every``
    1). Given a path — checked at once: a file that is not a store is refused (R511) and left
    untouched — it buffers responses and flushes them in one transaction every
    ``flush_every`` responses (or ``flush_records`` records, or ``flush_seconds`` after the
    first buffered one, checked at each response), opening the file only for the flush;
    :meth:`close` flushes the rest (so does garbage collection or interpreter exit, as a last
    resort).

    A response the store cannot write for a reason of its own is *refused* (see
    :meth:`Store.write`): it is added to :attr:`refused`, reported through ``report`` (default:
    a line on stderr, :func:`warn_refused`), and every other response is written; the call
    itself succeeded and is not failed. A flush that fails for an environmental reason (disk
    full, file locked) keeps the buffer for the next one and fails the call that triggered it
    (R510); at :meth:`close` it raises :class:`RecordingFailed` (R510)."""

    def __init__(self, inner: Backend, store: Store | str | Path, *,
                 flush_every: int | None = None, flush_records: int = FLUSH_RECORDS,
                 flush_seconds: float = FLUSH_SECONDS, timeout: float | None = None,
                 report: Callable[[Path, Sequence[Refused]], None] = warn_refused) -> None:
        self.inner = inner
        self.store: Store | None = store if isinstance(store, Store) else None
        self.path = store.path if isinstance(store, Store) else Path(store)
        self.flush_every = flush_every or (1 if self.store is not None else FLUSH_EVERY)
        self.flush_records = flush_records
        self.flush_seconds = flush_seconds
        self.timeout = default_timeout() if timeout is None else timeout
        self.name = f"record+{getattr(inner, 'name', 'backend')}"
        self.flushes = 0  # flushes that wrote something
        self.recorded = 0  # responses written
        #: responses the store refused (never written; see :meth:`Store.write`)
        self.refused: list[Refused] = []
        self.report = report
        self._buffer: list[Item] = []
        self._buffered_records = 0
        self._first = 0.0
        if self.store is None:
            check_record_target(self.path, self.timeout)
        self._finalizer = None if self.store is not None else weakref.finalize(
            self, _flush_at_exit, self._buffer, self.path, self.timeout, self.refused, report)

    def unsupported(self, tool: ToolSpec) -> str | None:
        """Whatever the inner backend says."""
        fn = getattr(self.inner, "unsupported", None)
        return fn(tool) if callable(fn) else None

    @property
    def pending(self) -> int:
        """Responses buffered, not yet written."""
        return len(self._buffer)

    def flush(self) -> None:
        """Write the buffered responses in one transaction (refusing, alone, those that cannot
        be written); raises if the write fails for an environmental reason, keeping the buffer
        for the next attempt."""
        n = len(self._buffer)
        if not n:
            return
        refused = _write_buffer(self._buffer, self.store if self.store is not None else
                                self.path, self.timeout)
        self._buffered_records = 0
        self.flushes += 1
        self.recorded += n - len(refused)
        if refused:
            self.refused += refused
            self.report(self.path, refused)

    def close(self) -> None:
        """Flush what is buffered (raising :class:`RecordingFailed` if that fails), then close
        the inner backend when it has a ``close``; a given :class:`Store` stays open (its owner
        closes it)."""
        n = len(self._buffer)
        try:
            self.flush()
        except Exception as exc:
            raise RecordingFailed(n, self.path, exc) from exc
        if self._finalizer is not None:
            self._finalizer.detach()
        fn = getattr(self.inner, "close", None)
        if callable(fn):
            fn()

    def __enter__(self) -> RecordingBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None
                   ) -> Response:
        """Call the inner backend and record its response."""
        resp = await self.inner.call(tool, args, page=page)
        if not resp.from_store:
            if not self._buffer:
                self._first = time.monotonic()
            self._buffer.append((tool, dict(args), page, resp))
            self._buffered_records += len(resp)  # a flat list stays columns
            if (len(self._buffer) >= self.flush_every
                    or self._buffered_records >= self.flush_records
                    or time.monotonic() - self._first >= self.flush_seconds):
                try:
                    self.flush()
                except Exception as exc:  # rolled back: nothing half-written is visible
                    call = safe_call(tool, args, page)
                    what = call if len(self._buffer) == 1 else \
                        f"{len(self._buffer)} responses (the last {call})"
                    raise ToolFailure(
                        "environmental", "R510",
                        f"recording {what} in {self.path} failed: "
                        f"{type(exc).__name__}: {describe_duckdb_error(exc)}") from exc
            resp.from_store = False
        return resp
