"""A store file's safety: what is checked when it is opened, and what a write refuses.

A store is a DuckDB file holding the ``responses`` and ``tools`` tables (see
:mod:`edgedsl.runtime.store`). Whatever path a user gives, opening it

- never creates a file for replay (:class:`~edgedsl.runtime.store.StoreBackend`, ``edgedsl store
  stats | export | drift``): a missing path is an error, not an empty store;
- never lets DuckDB load or install an extension: every connection is made with
  :data:`DUCKDB_CONFIG` (DuckDB recognises a SQLite file and would otherwise download the
  ``sqlite_scanner`` extension to read it), and the file's header is checked first, so a foreign
  file never reaches DuckDB at all;
- never writes into a file that is not a store: a recorder refuses a foreign file, or a DuckDB
  database holding other tables, before it writes anything.

Each problem is one :class:`StoreError` with code ``R511``, a message naming the file and what is
wrong with it, and a hint; the command line reports it like any diagnostic (exit code 1).

Writing, a response that cannot be stored for a reason of its own (a field named like one of the
store's columns, a total beyond 64 bits, a value DuckDB refuses) is *refused* — a
:class:`Refused` (code ``R512``) naming its call and the reason — and never costs the others
their place in the store (:meth:`~edgedsl.runtime.store.Store.write`). :func:`environmental`
tells such problems of the data from failures of the disk, the file, the lock or memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import duckdb

from ..core.diagnostics import Diagnostic, diag
from ..core.sqlquote import ident_key

if TYPE_CHECKING:
    from ..plan.model import ToolSpec
    from .backends import Response

__all__ = [
    "DUCKDB_CONFIG",
    "REQUIRED_COLUMNS",
    "STORE_COLUMNS",
    "Refused",
    "ResponsesRefused",
    "StoreError",
    "WriteResult",
    "certain_problem",
    "check_file",
    "check_layout",
    "check_path",
    "describe_duckdb_error",
    "environmental",
    "unreadable",
]

#: Configuration of every connection to a store file: no extension is ever loaded or installed
#: automatically (a SQLite file would make DuckDB download one from the network).
DUCKDB_CONFIG: dict[str, Any] = {
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
}

#: Columns a file's tables must have to be read as a store (later columns are added by writes).
REQUIRED_COLUMNS = {
    "responses": ("key", "platform", "tool", "decl_hash", "args", "page", "total", "raw",
                  "record_count", "recorded_at"),
    "tools": ("decl_hash", "qualname", "fields", "records_table"),
}

_DUCKDB_MAGIC = b"DUCK"  # bytes 8..11 of a DuckDB database file
_SQLITE_MAGIC = b"SQLite format 3\x00"
_RECORD_HINT = "record a store with `edgedsl run FILE --record STORE`"


class StoreError(Exception):
    """A store file that cannot be used: missing, not a DuckDB store, unreadable, or (the
    subclass :class:`~edgedsl.runtime.store_lock.StoreLocked`) held by another process.

    ``code`` is the diagnostic code (``R511``), ``hint`` what to do about it."""

    def __init__(self, message: str, *, hint: str = "", code: str = "R511") -> None:
        self.code = code
        self.message = message
        self.hint = hint
        super().__init__(message)

    def diagnostic(self) -> Diagnostic:
        """The error as a diagnostic (no span: it is about a whole file)."""
        return diag(self.code, self.message, hints=[self.hint] if self.hint else [])


def _header(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(16)
    except OSError as exc:
        raise StoreError(f"cannot read the store `{path}`: {exc.strerror or exc}",
                         hint="check the path and its permissions") from None


def check_path(path: Path, *, create: bool) -> bool:
    """The checks of :func:`check_file` that read nothing: True when ``path`` exists (a regular
    file); a missing path is an error unless ``create`` (then its directory must exist)."""
    if not path.exists():
        if not create:
            raise StoreError(f"no store at `{path}`: no such file (replay never creates one)",
                             hint=_RECORD_HINT + ", or check the path")
        parent = path.parent
        if not parent.is_dir():
            raise StoreError(f"cannot create the store `{path}`: the directory `{parent}` does "
                             "not exist", hint="create the directory or choose another path")
        return False
    if path.is_dir():
        raise StoreError(f"`{path}` is a directory, not a store file",
                         hint="give the path of the store's .duckdb file")
    if not path.is_file():
        raise StoreError(f"`{path}` is not a regular file", hint="give a store's .duckdb file")
    return True


def check_file(path: Path, *, create: bool) -> bool:
    """Check ``path`` before DuckDB opens it; True when it exists.

    ``create`` (a recorder): a missing file is fine when its directory exists. Otherwise
    (replay) a missing file is a :class:`StoreError`. An existing path must be a regular file
    with a DuckDB header: a directory, an empty file, a SQLite database or any other file is
    refused here, before DuckDB reads a byte of it. Read the header under the store's lock: a
    writer creating the file holds it until the header is written."""
    if not check_path(path, create=create):
        return False
    head = _header(path)
    refuse = "; it is left untouched" if create else ""
    if not head:
        raise StoreError(f"`{path}` is an empty file (0 bytes), not a store{refuse}",
                         hint="remove it, or give another path" if create else _RECORD_HINT)
    if head.startswith(_SQLITE_MAGIC):
        raise StoreError(f"`{path}` is a SQLite database, not a store (a store is a DuckDB "
                         f"file){refuse}", hint="give the path of a store recorded with --record")
    if head[8:12] != _DUCKDB_MAGIC:
        raise StoreError(f"`{path}` is not a DuckDB database file, so not a store{refuse}",
                         hint="give the path of a store recorded with --record")
    return True


def describe_duckdb_error(exc: BaseException) -> str:
    """The first line of a DuckDB error (without the SQL excerpt that may follow)."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first if len(first) <= 300 else first[:297] + "..."


def unreadable(path: Path, exc: BaseException) -> StoreError:
    """A DuckDB file that DuckDB could not open or read."""
    return StoreError(f"the store `{path}` cannot be read (a truncated or damaged DuckDB file?): "
                      f"{describe_duckdb_error(exc)}",
                      hint="restore the file, or record the store again")


def _tables(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """Table and view → column names, in the file's main schema."""
    out: dict[str, set[str]] = {}
    for table, column in con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_catalog = current_database() AND table_schema = 'main'").fetchall():
        out.setdefault(table, set()).add(column)
    return out


def check_layout(con: duckdb.DuckDBPyConnection, path: Path, *, create: bool) -> bool:
    """Check that the open file is a store; True when it is one, False when it is an empty
    DuckDB database that ``create`` allows to become one. Raises :class:`StoreError` for a
    DuckDB database that holds other tables, or a store whose tables lack required columns."""
    try:
        tables = _tables(con)
    except duckdb.Error as exc:
        raise unreadable(path, exc) from None
    ours = [t for t in REQUIRED_COLUMNS if t in tables]
    if not ours:
        if create and not tables:
            return False
        names = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        what = f"it holds other tables ({names})" if tables else "it holds no tables"
        refuse = "; it is left untouched" if create else ""
        raise StoreError(f"`{path}` is a DuckDB database but not an edgedsl store: {what}"
                         f"{refuse}", hint="give the path of a store recorded with --record")
    for table, needed in REQUIRED_COLUMNS.items():
        missing = [c for c in needed if c not in tables.get(table, set())]
        if missing:
            raise StoreError(
                f"`{path}` is not a complete edgedsl store: the `{table}` table "
                + ("is missing" if table not in tables else f"lacks {', '.join(missing)}"),
                hint="restore the file, or record the store again")
    return True


# ---------------------------------------------------------------- writes


@dataclass(frozen=True, slots=True)
class Refused:
    """A response the store could not write, for a reason of its own (see :meth:`Store.write`):
    the tool's qualname, the call (arguments and page; the secret parameter left out) and why.
    Retrying does not help: the response would be refused again."""

    tool: str
    call: str
    reason: str

    code: ClassVar[str] = "R512"

    def message(self, path: str | Path) -> str:
        """One line for the user: ``not recorded in PATH: CALL: REASON``."""
        return f"not recorded in {path}: {self.call}: {self.reason}"


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What :meth:`Store.write` did: the key of each item in order (None for one whose
    arguments cannot make a key) and the responses refused; every other one is written."""

    keys: list[str | None]
    refused: list[Refused]


class ResponsesRefused(ValueError):
    """Some responses could not be written (:meth:`Store.put_many`); the others were."""

    def __init__(self, refused: list[Refused]) -> None:
        self.refused = refused
        first = refused[0]
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        super().__init__(f"{first.call} cannot be recorded: {first.reason}{more}")


#: Columns of a records table besides the declared fields (``__row``, ``__arm``, ``__raw``
#: come from :func:`~edgedsl.runtime.shred.shred`); a field may not be named like one, in any case.
STORE_COLUMNS = ("__key", "__row", "__arm", "__raw", "__seq")
_STORE_COLUMN_KEYS = {ident_key(c): c for c in STORE_COLUMNS}
_INT32 = 2 ** 31
_INT64 = 2 ** 63


def environmental(exc: BaseException) -> bool:
    """True for a failure of the disk, the file, the lock or memory — the write may succeed
    later, and says nothing about the responses written — False for a problem of the data."""
    return isinstance(exc, (OSError, MemoryError, StoreError, duckdb.OperationalError,
                            duckdb.FatalException, duckdb.InterruptException,
                            duckdb.InternalException))


def certain_problem(tool: ToolSpec, args: Mapping[str, object], page: int | None,
                    response: Response) -> str | None:
    """Why a response certainly cannot be written, found without DuckDB (None: try it)."""
    for field in tool.fields:
        own = _STORE_COLUMN_KEYS.get(ident_key(field))
        if own is not None:
            return (f"its declaration has a field `{field}`, named like the store's own column "
                    f"`{own}` (column names ignore case)")
    total = response.total
    if isinstance(total, int) and not -_INT64 <= total < _INT64:
        return f"its reported total {total} does not fit a 64-bit integer"
    if isinstance(page, int) and not -_INT32 <= page < _INT32:
        return f"its page number {page} does not fit a 32-bit integer"
    return None
