"""The world's largest generated datasets, kept on disk between processes.

Every dataset of the world is a pure function of the seed and the world's own code, so a
process that has generated one can leave it for the next. The Seoul 실거래가 and 전월세 tables
are the expensive ones: the 100 구-years of one seed cost 20.9 s to generate on the 2-core VM
and every synthesis process (each test, each worker, each ``edgedsl world serve``) generated
them again; loaded from here they cost 1.9 s (``benchmarks/bench_world.py`` prints both
sides).

* **What is kept**: the return value of a function decorated with :func:`disk_cached`, whose
  arguments are plain values (their ``repr`` is the key) and whose result is a tuple of rows
  made of ``str``, ``int``, ``float``, ``bool`` and ``None`` — what :mod:`marshal` writes exactly
  (dict key order included) and reads without running any code. A result it cannot write is
  simply not kept.
* **When it is stale**: never read. The directory is named by :func:`fingerprint`, a hash of
  every file of the ``edgedsl.world`` package (its code and its data tables) and of the Python
  version, so a changed generator or table starts a new directory; directories of other
  fingerprints untouched for :data:`KEEP_DAYS` days are removed when a new one is made.
* **Where**: ``$EDGEDSL_WORLD_CACHE`` (a directory; ``off`` turns the cache off), else
  ``$XDG_CACHE_HOME/edgedsl/world``, else ``~/.cache/edgedsl/world``. A file that cannot be
  read (torn, foreign) is generated again and rewritten; a directory that cannot be written
  only costs the time saved. Files are written atomically
  (:func:`edgedsl.core.jsonfile.write_atomic`), so processes writing the same entry at once
  each leave a whole file.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import shutil
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..core.jsonfile import write_atomic

__all__ = ["CACHE_ENV", "KEEP_DAYS", "cache_dir", "disk_cached", "fingerprint"]

CACHE_ENV = "EDGEDSL_WORLD_CACHE"
KEEP_DAYS = 7
"""Directories of other fingerprints are removed once untouched for this many days."""

F = TypeVar("F", bound=Callable[..., Any])
_PACKAGE = Path(__file__).resolve().parent


@functools.cache
def fingerprint() -> str:
    """A hash of every file of the world package (its code and data, ``__pycache__`` aside) and
    of the Python version: what a generated dataset depends on."""
    h = hashlib.sha256(f"{sys.version_info[:2]}|marshal {marshal.version}".encode())
    for path in sorted(_PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(_PACKAGE)).encode() + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()[:20]


def cache_dir() -> Path | None:
    """The directory of this fingerprint, or None when the cache is turned off."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named.lower() == "off":
        return None
    if named:
        root = Path(named)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(base) / "edgedsl" / "world"
    return root / fingerprint()


def disk_cached(fn: F) -> F:
    """``fn`` with its results kept on disk (see the module docstring); its arguments must be
    plain values whose ``repr`` names them."""

    @functools.wraps(fn)
    def cached(*args: Any) -> Any:
        where = cache_dir()
        if where is None:
            return fn(*args)
        key = hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}{args!r}".encode())
        path = where / f"{key.hexdigest()[:32]}.marshal.z"
        try:
            return marshal.loads(zlib.decompress(path.read_bytes()))
        except (OSError, ValueError, EOFError, TypeError, zlib.error):
            pass  # absent, torn or foreign: generated again below
        value = fn(*args)
        _write(path, value)
        return value

    return cached  # type: ignore[return-value]


def _write(path: Path, value: Any) -> None:
    """Leave ``value`` at ``path`` whole (a temporary file renamed), or nothing at all."""
    try:
        blob = zlib.compress(marshal.dumps(value), 1)
    except ValueError:  # a value marshal cannot write: not kept
        return
    try:
        fresh = not path.parent.is_dir()
        path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            _prune(path.parent)
        write_atomic(path, blob)
    except OSError:
        return


def _prune(current: Path) -> None:
    """Remove the sibling directories of other fingerprints untouched for :data:`KEEP_DAYS`."""
    cutoff = time.time() - KEEP_DAYS * 86_400
    for other in current.parent.iterdir():
        if other != current and other.is_dir():
            try:
                if other.stat().st_mtime < cutoff:
                    shutil.rmtree(other, ignore_errors=True)
            except OSError:
                continue
