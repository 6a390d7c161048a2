"""In-memory buffers DuckDB reads as files: one JSON text of a whole response, read by
``read_json_objects`` in one native pass.

DuckDB reads files only through a file system; a Python ``bytes`` object reaches its readers
through an fsspec file system registered on the connection (``register_filesystem``). This
module keeps its own in-memory file system (fsspec's ``MemoryFileSystem`` under the protocol
:data:`PROTOCOL`, with a store of its own rather than fsspec's process-wide ``memory://`` one),
puts each buffer under a fresh name for the length of one statement (:func:`buffer`) and removes
it afterwards. A buffer's file holds the caller's ``bytes`` themselves, never a whole copy (its
size is read without the buffer view fsspec's ``MemoryFile`` takes, which would copy them; only
the chunks DuckDB reads are copied). fsspec is imported on the first buffer (a run that shreds
nothing large never imports it). Used by the SQL shredding path
(:func:`edgedsl.runtime.sqlshred.write_sql_shredded`).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import duckdb

__all__ = ["PROTOCOL", "buffer", "held"]

#: The URL scheme of the buffers (``edgedslbuf://<name>.json``).
PROTOCOL = "edgedslbuf"
_REGISTERING = threading.Lock()  # two threads' cursors of one database register it once


@functools.cache
def _file_system() -> Any:
    """The one buffer file system of the process (fsspec imported here, on first use)."""
    from fsspec.implementations.memory import MemoryFileSystem

    class BufferFileSystem(MemoryFileSystem):  # type: ignore[misc,unused-ignore]
        """fsspec's in-memory file system under :data:`PROTOCOL`, with a store of its own."""

        protocol = (PROTOCOL,)
        store: dict[str, Any] = {}  # noqa: RUF012 - fsspec's own class attributes
        pseudo_dirs: list[str] = [""]  # noqa: RUF012

        @classmethod
        def _strip_protocol(cls, path: Any) -> Any:
            """A path without this scheme (fsspec's own strips only ``memory://``)."""
            if isinstance(path, str):
                path = "memory://" + path.removeprefix(f"{PROTOCOL}://")
            return super()._strip_protocol(path)

    return BufferFileSystem()


@functools.cache
def _file_class() -> Any:
    """fsspec's in-memory file, its size read without copying its bytes (imported on first use)."""
    from fsspec.implementations.memory import MemoryFile

    class BufferFile(MemoryFile):  # type: ignore[misc,unused-ignore]
        """A buffer's file: fsspec's ``MemoryFile``, whose ``size`` takes a buffer view, and a
        view makes ``BytesIO`` copy the bytes it shares (the whole response, each statement);
        here the size is the length of the bytes themselves (``getvalue`` returns them)."""

        @property
        def size(self) -> int:
            """The number of bytes held, read without a copy."""
            return len(self.getvalue())

    return BufferFile


def held() -> int:
    """The number of buffers held now (0 outside every :func:`buffer` block)."""
    return len(_file_system().store)


@contextlib.contextmanager
def buffer(con: duckdb.DuckDBPyConnection, data: bytes, suffix: str = ".json") -> Iterator[str]:
    """Within the block, ``data`` is a file DuckDB reads on ``con`` at the URL yielded (the file
    system is registered on the connection's database once); the file is gone afterwards."""
    fs = _file_system()
    if not con.filesystem_is_registered(PROTOCOL):
        with _REGISTERING:
            if not con.filesystem_is_registered(PROTOCOL):
                con.register_filesystem(fs)
    name = f"/{uuid.uuid4().hex}{suffix}"
    fs.store[name] = _file_class()(fs, name, data)
    try:
        yield f"{PROTOCOL}://{name.lstrip('/')}"
    finally:
        fs.store.pop(name, None)
