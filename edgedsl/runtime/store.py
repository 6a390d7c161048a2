"""The store: recorded responses in one DuckDB file, content-addressed and already shredded.

The key of a response is the SHA-256 of the canonical JSON of ``{platform, tool, args, page,
decl}``: ``args`` sorted by name, normalised (dates as ISO text, integral floats as ints, tuples as
lists, ``None`` left out) and with the platform's secret parameter removed; ``decl`` is the tool's
declaration hash, so changing a declaration never replays a response recorded under the old one.

Tables
    ``responses`` — one row per recorded page: key, platform, tool, decl_hash, args (JSON), page,
    total, raw body, record_count, recorded_at, and ``seq``: a number given to each write, in
    write order (NULL in files recorded before it was kept).
    ``tools`` — one row per declaration hash: qualname, record field types (JSON), records table,
    and the tool's whole :class:`~edgedsl.plan.model.ToolSpec` as JSON (``spec``; NULL in files
    recorded before it was kept, added by ``ALTER TABLE`` on the first write), so that ``edgedsl
    store drift`` can call the tool again without its source.
    ``records_<decl hash>`` — the records of every response of that declaration, shredded by
    :func:`edgedsl.runtime.shred.shred` into typed columns, plus ``__key`` and ``__seq`` (the
    response's ``seq``: rows are appended in ``seq`` order, so DuckDB's per-row-group min/max of
    ``__seq`` finds a response's rows without scanning the table, which a filter on the random
    ``__key`` cannot). A reduction over a
    stored hand-off is therefore a column scan: the executor copies the rows of a key into its
    run table with one ``INSERT … SELECT`` (see :class:`~edgedsl.runtime.backends.StoredRows`).

A :class:`Store` loads its key index (key → total, record count) once, so a hit costs no query;
it keeps the shredded columns of small responses in memory once read (bounded by
:data:`CACHE_MAX_CELLS`, least recently used first out), so replaying them costs no query either.
Writes through *another* ``Store`` object on the same file are seen by this one only for keys it
has not looked up yet.

A write runs in one transaction (response rows and records together; :meth:`Store.write`
writes a whole batch in one), so a crash mid-write leaves nothing visible. A response that
cannot be written for a reason of its own is refused alone, the others written
(:meth:`Store.write`; :class:`~edgedsl.runtime.store_file.Refused`, code R512). Opening a path
that is not a store is an error (:class:`~edgedsl.runtime.store_file.StoreError`, R511): replay
never creates a file, and no DuckDB extension is ever loaded (:mod:`.store_file`). Secret values
never reach the store: backends that inject them scrub responses.

Several processes. DuckDB lets one process open the file read-write, or many read-only; the lock
file ``STORE.lock`` (:mod:`edgedsl.runtime.store_lock`) makes them wait for each other instead of
failing. A read-write :class:`Store` holds it exclusively while open; a read-only one (the
``store`` backend's replay) holds it shared. The recorder
(:class:`~edgedsl.runtime.store_record.RecordingBackend`) given a *path* buffers responses and
opens the file only to flush them, one transaction per flush, so several processes can record
into one store at once.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import re
import reprlib
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import orjson

from ..core.sqlquote import quote_ident
from ..core.types import FieldType
from ..plan.model import ToolSpec, validated_json
from .backends import Response, StoredRows
from .columns import StoredColumns
from .duck import Relation
from .redact import scrub
from .shred import shred
from .store_file import (
    DUCKDB_CONFIG,
    STORE_COLUMNS,
    Refused,
    ResponsesRefused,
    StoreError,
    WriteResult,
    certain_problem,
    check_file,
    check_layout,
    check_path,
    describe_duckdb_error,
    environmental,
    unreadable,
)
from .store_lock import StoreLocked, acquire, default_timeout, held_mode, retry

__all__ = [
    "CACHE_MAX_CELLS",
    "CACHE_MAX_ROWS",
    "STORE_COLUMNS",
    "Refused",
    "ResponsesRefused",
    "Store",
    "StoreError",
    "StoreLocked",
    "WriteResult",
    "canonical_args",
    "close_con",
    "describe_call",
    "environmental",
    "safe_call",
    "store_key",
]

#: Responses of at most this many records have their columns cached in memory once read.
CACHE_MAX_ROWS = 20_000
#: Bound on the cells (rows × columns) all cached responses of one Store hold together.
CACHE_MAX_CELLS = 2_000_000
_KEY_RE = re.compile(r"^[0-9a-f]{64}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
  key VARCHAR, platform VARCHAR, tool VARCHAR, decl_hash VARCHAR, args VARCHAR, page INTEGER,
  total BIGINT, raw BLOB, record_count BIGINT, recorded_at TIMESTAMP, seq BIGINT);
ALTER TABLE responses ADD COLUMN IF NOT EXISTS seq BIGINT;
CREATE SEQUENCE IF NOT EXISTS response_seq;
CREATE TABLE IF NOT EXISTS tools (
  decl_hash VARCHAR, qualname VARCHAR, fields VARCHAR, records_table VARCHAR, spec VARCHAR);
ALTER TABLE tools ADD COLUMN IF NOT EXISTS spec VARCHAR;
"""

#: One buffered call: tool, arguments, page, response.
Item = tuple[ToolSpec, Mapping[str, object], int | None, Response]


def _norm(v: Any) -> Any:
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list | tuple):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _norm(x) for k, x in sorted(v.items())}
    return v


def canonical_args(tool: ToolSpec, args: Mapping[str, object]) -> dict[str, Any]:
    """Arguments sorted by name, normalised, without ``None`` values and the secret parameter."""
    return {k: _norm(v) for k, v in sorted(args.items()) if v is not None and k != tool.secret}


def store_key(tool: ToolSpec, args: Mapping[str, object], page: int | None) -> str:
    """The content address of one call (one page) of ``tool``."""
    blob = orjson.dumps(
        {"platform": tool.platform, "tool": tool.name, "args": canonical_args(tool, args),
         "page": page, "decl": tool.declaration_hash},
        option=orjson.OPT_SORT_KEYS,
    )
    return hashlib.sha256(blob).hexdigest()


def describe_call(tool: ToolSpec, args: Mapping[str, object], page: int | None) -> str:
    """``dart.disclosures(corp_code="00126380", page=2)`` (secret parameter left out, a live
    key in another argument masked)."""
    parts = [f"{k}={orjson.dumps(v).decode()}" for k, v in canonical_args(tool, args).items()]
    if page is not None:
        parts.append(f"page={page}")
    return scrub(f"{tool.qualname}({', '.join(parts)})")


def recorded_args(tool: ToolSpec, args: Mapping[str, object]) -> str:
    """The arguments as the store records them: :func:`canonical_args` as JSON, a live key
    that an argument holds masked (:func:`edgedsl.runtime.redact.scrub`; the store key is
    made from the arguments as sent)."""
    return scrub(orjson.dumps(canonical_args(tool, args)).decode())


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]


def close_con(con: duckdb.DuckDBPyConnection, release: Callable[[], None]) -> None:
    """Close ``con``, then release its lock (also when closing fails)."""
    try:
        con.close()
    finally:
        release()


def safe_call(tool: ToolSpec, args: Mapping[str, object], page: int | None) -> str:
    """:func:`describe_call`, or (arguments JSON cannot hold) the arguments' ``repr``."""
    try:
        return describe_call(tool, args, page)
    except (TypeError, ValueError, OverflowError):  # arguments JSON cannot hold
        parts = [f"{k}={reprlib.repr(v)}" for k, v in canonical_args(tool, args).items()]
        if page is not None:
            parts.append(f"page={page}")
        return scrub(f"{tool.qualname}({', '.join(parts)})")


def _refusal(item: Item, reason: str) -> Refused:
    tool, args, page, _ = item
    return Refused(tool.qualname, safe_call(tool, args, page), scrub(reason))


class Store:
    """A store file. Use from one thread (the event loop's); runs read through :meth:`cursor`.

    ``read_only`` opens it for replay (DuckDB read-only, the lock file shared; a missing file is
    an error, never created); otherwise it is open read-write (a missing file is created) and
    holds the lock file exclusively until :meth:`close`. Waiting for the lock gives up after
    ``timeout`` seconds (:class:`~edgedsl.runtime.store_lock.StoreLocked`). A path that is not a
    store — missing for replay, a directory, an empty, SQLite or other foreign file, a damaged
    DuckDB file, a DuckDB database holding other tables — raises
    :class:`~edgedsl.runtime.store_file.StoreError` (R511) and is left untouched (see
    :mod:`edgedsl.runtime.store_file`). ``load_index`` False skips reading the key index at open
    (a writer that only appends)."""

    def __init__(self, path: str | Path, *, read_only: bool = False,
                 timeout: float | None = None, load_index: bool = True) -> None:
        self.path = Path(path)
        self.timeout = default_timeout() if timeout is None else timeout
        if read_only and held_mode(self.path) == "exclusive":
            read_only = False  # open read-write in this process: DuckDB shares that instance
        check_path(self.path, create=not read_only)  # before the lock file is made beside it
        self.read_only = read_only
        release = acquire(self.path, "shared" if read_only else "exclusive", self.timeout)
        try:  # under the lock: a writer creating the file has written its header
            check_file(self.path, create=not read_only)
            self.con = retry(lambda: duckdb.connect(str(self.path), read_only=read_only,
                                                    config=DUCKDB_CONFIG),
                             self.timeout, str(self.path))
        except duckdb.Error as exc:
            release()
            raise unreadable(self.path, exc) from None
        except BaseException:
            release()
            raise
        self._finalizer = weakref.finalize(self, close_con, self.con, release)
        self._seqs: dict[str, int] = {}  # key → seq (responses written with one)
        self._seq_tables: set[str] = set()  # records tables known to have "__seq"
        self._index: dict[str, tuple[int | None, int]] = {}
        try:
            self._load(load_index)
        except duckdb.Error as exc:
            self._finalizer()
            raise unreadable(self.path, exc) from None
        except BaseException:
            self._finalizer()
            raise
        self._cache: OrderedDict[tuple[str, str], dict[str, list[Any]]] = OrderedDict()
        self._cached_cells = 0

    def _load(self, load_index: bool) -> None:
        """Check the layout (a writer creates the tables of a new store) and read the tools and,
        with ``load_index``, the key index."""
        check_layout(self.con, self.path, create=not self.read_only)
        if not self.read_only:
            self.con.execute(_SCHEMA)
        columns: dict[str, set[str]] = {}
        for table, column in self.con.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE "
                "table_catalog = current_database() AND table_schema = 'main' "
                "AND table_name IN ('tools', 'responses')").fetchall():
            columns.setdefault(table, set()).add(column)
        spec = "spec" if "spec" in columns["tools"] else "NULL"
        rows = self.con.execute(
            f"SELECT decl_hash, records_table, {spec} IS NOT NULL FROM tools").fetchall()
        self._tables: dict[str, str] = {d: t for d, t, _ in rows}
        self._specs: set[str] = {d for d, _, has in rows if has}
        self._has_spec_column = spec == "spec"
        self._seq_col = "seq" if "seq" in columns["responses"] else "NULL"
        if load_index:
            for k, t, n, q in self.con.execute(
                    f"SELECT key, total, record_count, {self._seq_col} FROM responses").fetchall():
                self._index[k] = (t, int(n or 0))
                if q is not None:
                    self._seqs[k] = q

    def close(self) -> None:
        """Close the connection (checkpointing the file) and release the lock; idempotent."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return not self._finalizer.alive

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new connection to the same database: temp tables of a run stay private to it."""
        return self.con.cursor()

    @staticmethod
    def table_name(tool: ToolSpec) -> str:
        """The records table of a tool declaration."""
        return f"records_{tool.declaration_hash}"

    def get(self, tool: ToolSpec, args: Mapping[str, object], page: int | None) -> Response | None:
        """The recorded response of a call, or None."""
        key = store_key(tool, args, page)
        hit = self._index.get(key)
        if hit is None:  # perhaps written through another Store object on the same file
            row = self.con.execute(
                f"SELECT total, record_count, {self._seq_col} FROM responses WHERE key = ? "
                "LIMIT 1", [key]).fetchone()
            if row is None:
                return None
            hit = self._index[key] = (row[0], int(row[1] or 0))
            if row[2] is not None:
                self._seqs[key] = row[2]
            if tool.declaration_hash not in self._tables:
                t = self.con.execute("SELECT records_table FROM tools WHERE decl_hash = ?",
                                     [tool.declaration_hash]).fetchone()
                if t is not None:
                    self._tables[tool.declaration_hash] = t[0]
        total, count = hit
        table = self._tables.get(tool.declaration_hash)
        stored = None if table is None else StoredRows(self, table, key, count)
        return Response(total=total, from_store=True, stored=stored,
                        loader=lambda: self._records(table, key),
                        raw_loader=lambda: self._raw(key))

    def _raw(self, key: str) -> bytes | None:
        row = self.con.execute("SELECT raw FROM responses WHERE key = ? LIMIT 1", [key]).fetchone()
        return None if row is None or row[0] is None else bytes(row[0])

    def columns(self, stored: StoredRows, types: Mapping[str, FieldType]
                ) -> dict[str, list[Any]] | None:
        """The stored columns of one response (``__row``, ``__arm``, fields, ``__raw`` as lists,
        as :class:`~edgedsl.runtime.duck.Relation` takes them), from memory after the first read;
        None for a response too large to cache (use SQL over its table instead)."""
        if stored.count > CACHE_MAX_ROWS:
            return None
        ck = (stored.table, stored.key)
        got = self._cache.get(ck)
        if got is not None and all(f in got for f in types):
            self._cache.move_to_end(ck)
            return got
        names = ["__row", "__arm", *types, "__raw"]
        rows = self._rows_of(stored.table, stored.key, names, stored.count)
        cols = StoredColumns({n: [r[i] for r in rows] for i, n in enumerate(names)})
        cols["__row"] = list(range(len(rows)))
        if got is not None:
            self._cached_cells -= len(got) * stored.count
        self._cache[ck] = cols
        self._cached_cells += len(cols) * len(rows)
        while self._cached_cells > CACHE_MAX_CELLS and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._cached_cells -= len(old) * len(old["__row"])
        return cols

    def view_sql(self, stored: StoredRows, types: Mapping[str, FieldType]) -> str:
        """``SELECT`` text of one response's rows in the relation layout (no copy), for a view.

        The key is a SHA-256 hex digest (checked), written as a literal: views take no params."""
        if not _KEY_RE.match(stored.key):
            raise ValueError(f"not a store key: {stored.key!r}")
        cols = ", ".join(['"__row"', '"__arm"', *(quote_ident(f) for f in types), '"__raw"'])
        seq = self._seqs.get(stored.key)
        where = f"\"__key\" = '{stored.key}'" if seq is None else \
            f"\"__seq\" = {int(seq)} AND \"__key\" = '{stored.key}'"
        return f"SELECT {cols} FROM {quote_ident(stored.table)} WHERE {where}"

    def _rows_of(self, table: str, key: str, names: Sequence[str],
                 count: int | None = None) -> list[tuple[Any, ...]]:
        """The rows of one response (``names`` columns, the first ``__row``; in service order):
        found by ``__seq`` (one row group read, the others skipped by their min/max) when the
        response has one, else by ``__key`` (a scan of the column)."""
        cols = ", ".join(quote_ident(n) for n in names)
        seq = self._seqs.get(key)
        if seq is not None:  # a seq is never reused: it names this response's rows alone
            rows = self.con.execute(
                f'SELECT {cols} FROM {quote_ident(table)} WHERE "__seq" = ?', [seq]).fetchall()
            if count is None or len(rows) == count:
                rows.sort(key=_first)  # already in order as written: a linear check
                return rows
        return self.con.execute(  # no seq, or rewritten through another Store object
            f'SELECT {cols} FROM {quote_ident(table)} WHERE "__key" = ? ORDER BY "__row"', [key]
        ).fetchall()

    def _records(self, table: str | None, key: str) -> list[dict[str, Any]]:
        if table is None:
            return []
        return [orjson.loads(r[1]) for r in self._rows_of(table, key, ["__row", "__raw"])]

    def relation_of(self, stored: StoredRows) -> Relation:
        """A Relation (temp table on the store connection) holding the rows of one response."""
        fields = self.con.execute(
            "SELECT fields FROM tools WHERE records_table = ?", [stored.table]
        ).fetchone()
        from ..core.types import type_from_json

        types = {k: type_from_json(v) for k, v in orjson.loads(fields[0]).items()} if fields else {}
        name = f"__stored_{stored.key[:16]}"
        cols = ", ".join(['"__row"', '"__arm"', *(quote_ident(f) for f in types), '"__raw"'])
        self.con.execute(
            f"CREATE OR REPLACE TEMP TABLE {quote_ident(name)} AS SELECT {cols} FROM "
            f'{quote_ident(stored.table)} WHERE "__key" = ? ORDER BY "__row"', [stored.key])
        return Relation(self.con, name, types, stored.count)

    def put(self, tool: ToolSpec, args: Mapping[str, object], page: int | None,
            response: Response) -> str:
        """Record one response (replacing an earlier one with the same key); returns the key.
        Raises :class:`ResponsesRefused` when it cannot be written."""
        return self.put_many([(tool, args, page, response)])[0]

    def put_many(self, items: Sequence[Item]) -> list[str]:
        """Record several responses (see :meth:`write`); returns their keys. Raises
        :class:`ResponsesRefused` after writing the others when some cannot be written."""
        result = self.write(items)
        if result.refused:
            raise ResponsesRefused(result.refused)
        return [k for k in result.keys if k is not None]

    def write(self, items: Sequence[Item]) -> WriteResult:
        """Record several responses: every one that can be written is, whatever the others hold.

        A later item replaces an earlier one with the same key, as a recorded response replaces
        an older one. The batch is written in one transaction (the records of each declaration
        shredded together, one statement). A response that cannot be written — its declaration
        names a field like one of the store's own columns, its total or page does not fit its
        column, its arguments or records cannot be serialised, DuckDB refuses a value — is
        *refused* (:class:`Refused`, in the result) and the others are written: the failed
        transaction is rolled back and written again one declaration at a time, then one
        response at a time within a declaration that fails. A failure of the disk, the file,
        the lock or memory (:func:`environmental`) is raised instead, nothing of the failed
        transaction visible (earlier transactions of the fallback stay written)."""
        if self.read_only:
            raise ValueError(f"{self.path} is open read-only")
        refused: list[Refused] = []
        keys: list[str | None] = []
        latest: dict[str, Item] = {}
        for item in items:
            try:
                key = store_key(item[0], item[1], item[2])
            except (TypeError, ValueError, OverflowError) as exc:
                refused.append(_refusal(item, f"its arguments cannot be written as JSON: {exc}"))
                keys.append(None)
                continue
            keys.append(key)
            latest[key] = item
        for key, item in list(latest.items()):
            problem = certain_problem(*item)
            if problem is not None:
                refused.append(_refusal(item, problem))
                del latest[key]
        groups: dict[str, list[tuple[str, Item]]] = {}
        for key, item in latest.items():
            groups.setdefault(item[0].declaration_hash, []).append((key, item))
        try:
            self._commit(list(groups.values()))
        except Exception as exc:
            if environmental(exc):
                raise
            for group in groups.values():
                refused += self._isolate(group)
        return WriteResult(keys, refused)

    def _isolate(self, group: list[tuple[str, Item]]) -> list[Refused]:
        """Write one declaration's responses after a failed batch: together, or else each in
        its own transaction; returns the responses refused (environmental failures raise)."""
        if len(group) > 1:
            try:
                self._commit([group])
                return []
            except Exception as exc:
                if environmental(exc):
                    raise
        refused: list[Refused] = []
        for one in group:
            try:
                self._commit([[one]])
            except Exception as exc:
                if environmental(exc):
                    raise
                refused.append(_refusal(one[1], f"{type(exc).__name__}: "
                                                f"{describe_duckdb_error(exc)}"))
        return refused

    def _commit(self, groups: Sequence[list[tuple[str, Item]]]) -> None:
        """Write ``groups`` (one declaration each) in one transaction: all of them or none."""
        if not groups:
            return
        now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
        seqs: dict[str, int] = {}
        self.con.execute("BEGIN TRANSACTION")
        try:
            # a persistent sequence: a number is never given twice, even after deletes
            fresh = iter(sorted(r[0] for r in self.con.execute(
                "SELECT nextval('response_seq') FROM range(?::BIGINT)",
                [sum(len(g) for g in groups)]).fetchall()))
            for group in groups:
                for key, _ in group:
                    seqs[key] = next(fresh)
                self._write_group(group, now, seqs)
            self.con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):  # a failed COMMIT has rolled back already
                self.con.execute("ROLLBACK")
            raise
        for group in groups:  # what the transaction made, known only once committed
            tool = group[0][1][0]
            self._tables[tool.declaration_hash] = self.table_name(tool)
            self._specs.add(tool.declaration_hash)
            self._seq_tables.add(self.table_name(tool))
            for key, (_, _, _, response) in group:
                self._index[key] = (response.total, len(response.records))
        self._seqs.update(seqs)
        if self._cache:
            for ck in [ck for ck in self._cache if ck[1] in seqs]:
                old = self._cache.pop(ck)
                self._cached_cells -= len(old) * len(old["__row"])

    def _write_group(self, group: list[tuple[str, Item]], now: _dt.datetime,
                     seqs: Mapping[str, int]) -> None:
        """Write the responses of one declaration (inside the caller's transaction, which
        drops the shredded temp table too if this fails)."""
        tool = group[0][1][0]
        table = self.table_name(tool)
        q = quote_ident(table)
        keys = [k for k, _ in group]
        counts = [len(it[3].records) for _, it in group]
        records = [r for _, it in group for r in it[3].records]
        rel = shred(self.con, records, tool.field_types(), temp=True)
        if tool.declaration_hash not in self._tables:
            self.con.execute(
                f"CREATE TABLE IF NOT EXISTS {q} AS SELECT CAST(NULL AS VARCHAR) AS \"__key\", "
                f"*, CAST(NULL AS BIGINT) AS \"__seq\" FROM {rel.sql_name} LIMIT 0")
            self.con.execute("DELETE FROM tools WHERE decl_hash = ?", [tool.declaration_hash])
            self.con.execute(
                "INSERT INTO tools (decl_hash, qualname, fields, records_table, spec) "
                "VALUES (?, ?, ?, ?, ?)",
                [tool.declaration_hash, tool.qualname, orjson.dumps(tool.fields).decode(),
                 table, orjson.dumps(tool).decode()])
        elif tool.declaration_hash not in self._specs:  # a file recorded before specs
            self.con.execute("UPDATE tools SET spec = ? WHERE decl_hash = ?",
                             [orjson.dumps(tool).decode(), tool.declaration_hash])
        if table not in self._seq_tables:  # tables written before seq was kept gain it
            self.con.execute(f'ALTER TABLE {q} ADD COLUMN IF NOT EXISTS "__seq" BIGINT')
        self.con.execute("DELETE FROM responses WHERE key IN (SELECT unnest(?::VARCHAR[]))",
                         [keys])
        self.con.execute(f'DELETE FROM {q} WHERE "__key" IN (SELECT unnest(?::VARCHAR[]))',
                         [keys])
        its = [it for _, it in group]
        self.con.execute(
            "INSERT INTO responses (key, platform, tool, decl_hash, args, page, total, raw, "
            "record_count, recorded_at, seq) SELECT unnest(?::VARCHAR[]), ?, ?, ?, "
            "unnest(?::VARCHAR[]), unnest(?::INTEGER[]), unnest(?::BIGINT[]), "
            "unnest(?::BLOB[]), unnest(?::BIGINT[]), ?, unnest(?::BIGINT[])",
            [keys, tool.platform, tool.name, tool.declaration_hash,
             [recorded_args(tool, it[1]) for it in its],
             [it[2] for it in its], [it[3].total for it in its],
             [it[3].raw for it in its], counts, now, [seqs[k] for k in keys]])
        row_keys = [k for k, n in zip(keys, counts, strict=True) for _ in range(n)]
        self._insert_records(q, row_keys, rel, [i for n in counts for i in range(n)], seqs)
        rel.drop()

    def _insert_records(self, table_sql: str, keys: Sequence[str], rel: Relation,
                        rows: Sequence[int], seqs: Mapping[str, int]) -> None:
        """Copy the shredded rows of ``rel`` into the records table: row ``i`` of ``rel`` under
        ``keys[i]`` as its response's row ``rows[i]``, in ``seq`` order."""
        if not keys:
            return
        names = ["__arm", *rel.types, "__raw"]
        cols = ", ".join(quote_ident(n) for n in names)
        picked = ", ".join(f"s.{quote_ident(n)}" for n in names)
        self.con.execute(
            f'INSERT INTO {table_sql} ("__key", "__row", {cols}, "__seq") '
            f"SELECT m.k, m.r, {picked}, m.q FROM {rel.sql_name} s JOIN "
            "(SELECT unnest(?::VARCHAR[]) AS k, unnest(?::BIGINT[]) AS r, "
            'unnest(?::BIGINT[]) AS q, unnest(range(?::BIGINT)) AS g) m ON s."__row" = m.g '
            "ORDER BY m.g",
            [list(keys), list(rows), [seqs[k] for k in keys], len(keys)])

    def specs(self) -> dict[str, ToolSpec]:
        """Declaration hash → the recorded tool's spec (declarations recorded with one)."""
        if not self._has_spec_column:
            return {}
        rows = self.con.execute(
            "SELECT decl_hash, spec FROM tools WHERE spec IS NOT NULL").fetchall()
        return {d: validated_json(ToolSpec, j) for d, j in rows}

    def count(self) -> int:
        """Number of recorded responses."""
        return int(self.con.execute("SELECT count(*) FROM responses").fetchone()[0])  # type: ignore[index]
