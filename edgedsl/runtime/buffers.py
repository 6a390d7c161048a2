"""In-memory buffers DuckDB reads as files: one JSON text of a whole response, read by
``read_json_objects`` in one native (parallel) pass.

DuckDB reads files only through a file system; a Python ``bytes`` object reaches its readers
through an fsspec file system registered on the connection (``register_filesystem``). This
module keeps its own in-memory file system (:class:`BufferFileSystem`, protocol
:data:`PROTOCOL`, a store of its own rather than fsspec's process-wide ``memory://`` one), puts
each buffer under a fresh name for the length of one statement (:func:`buffer`) and removes it
afterwards. Used by the SQL shredding path (:func:`edgedsl.runtime.columns.write_sql_shredded`).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from typing import Any, ClassVar

import duckdb
from fsspec.implementations.memory import MemoryFile, MemoryFileSystem

__all__ = ["PROTOCOL", "BufferFileSystem", "buffer"]

#: The URL scheme of the buffers (``edgedslbuf://<name>.json``).
PROTOCOL = "edgedslbuf"


class BufferFileSystem(MemoryFileSystem):
    """fsspec's in-memory file system under :data:`PROTOCOL`, with a store of its own."""

    protocol = (PROTOCOL,)
    store: ClassVar[dict[str, Any]] = {}
    pseudo_dirs: ClassVar[list[str]] = [""]

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        """A path without this file system's scheme (fsspec's own strips only ``memory://``)."""
        if isinstance(path, str):
            path = "memory://" + path.removeprefix(f"{PROTOCOL}://")
        return super()._strip_protocol(path)


_FS = BufferFileSystem()
_REGISTERING = threading.Lock()  # two threads' cursors of one database register it once


@contextlib.contextmanager
def buffer(con: duckdb.DuckDBPyConnection, data: bytes, suffix: str = ".json") -> Iterator[str]:
    """Within the block, ``data`` is a file DuckDB reads on ``con`` at the URL yielded (the file
    system is registered on the connection's database once); the file is gone afterwards."""
    if not con.filesystem_is_registered(PROTOCOL):
        with _REGISTERING:
            if not con.filesystem_is_registered(PROTOCOL):
                con.register_filesystem(_FS)
    name = f"/{uuid.uuid4().hex}{suffix}"
    BufferFileSystem.store[name] = MemoryFile(_FS, name, data)
    try:
        yield f"{PROTOCOL}://{name.lstrip('/')}"
    finally:
        BufferFileSystem.store.pop(name, None)
