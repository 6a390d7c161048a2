"""The store: recorded responses in one DuckDB file, content-addressed and already shredded.

The key of a response is the SHA-256 of the canonical JSON of ``{platform, tool, args, page,
decl}``: ``args`` sorted by name, normalised (dates as ISO text, integral floats as ints, tuples as
lists, ``None`` left out) and with the platform's secret parameter removed; ``decl`` is the tool's
declaration hash, so changing a declaration never replays a response recorded under the old one.

Tables
    ``responses`` — one row per recorded page: key, platform, tool, decl_hash, args (JSON), page,
    total, raw body, record_count, recorded_at.
    ``tools`` — one row per declaration hash: qualname, record field types (JSON), records table.
    ``records_<decl hash>`` — the records of every response of that declaration, shredded by
    :func:`edgedsl.runtime.duck.shred` into typed columns, plus ``__key``. A reduction over a
    stored hand-off is therefore a column scan: the executor copies the rows of a key into its
    run table with one ``INSERT … SELECT`` (see :class:`~edgedsl.runtime.backends.StoredRows`).

A :class:`Store` loads its key index (key → total, record count) once, so a hit costs no query;
it keeps the shredded columns of small responses in memory once read (bounded by
:data:`CACHE_MAX_CELLS`, least recently used first out), so replaying them costs no query either.
Writes through *another* ``Store`` object on the same file are seen by this one only for keys it
has not looked up yet.

A write runs in one transaction (response row and records together), so a crash mid-write leaves
nothing visible. Secret values never reach the store: backends that inject them scrub responses.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import orjson

from ..plan import ToolSpec
from ..sqlquote import quote_ident
from ..types import FieldType
from .backends import Backend, Response, StoredRows, ToolFailure
from .duck import Relation, shred

__all__ = [
    "CACHE_MAX_CELLS",
    "CACHE_MAX_ROWS",
    "RecordingBackend",
    "Store",
    "StoreBackend",
    "canonical_args",
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
  total BIGINT, raw BLOB, record_count BIGINT, recorded_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS tools (
  decl_hash VARCHAR, qualname VARCHAR, fields VARCHAR, records_table VARCHAR);
"""


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
    """``dart.disclosures(corp_code="00126380", page=2)`` (secret parameter left out)."""
    parts = [f"{k}={orjson.dumps(v).decode()}" for k, v in canonical_args(tool, args).items()]
    if page is not None:
        parts.append(f"page={page}")
    return f"{tool.qualname}({', '.join(parts)})"


class Store:
    """A store file. Use from one thread (the event loop's); runs read through :meth:`cursor`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.con = duckdb.connect(str(self.path))
        self.con.execute(_SCHEMA)
        rows = self.con.execute("SELECT decl_hash, records_table FROM tools").fetchall()
        self._tables: dict[str, str] = dict(rows)
        self._index: dict[str, tuple[int | None, int]] = {
            k: (t, int(n or 0)) for k, t, n in
            self.con.execute("SELECT key, total, record_count FROM responses").fetchall()}
        self._cache: OrderedDict[tuple[str, str], dict[str, list[Any]]] = OrderedDict()
        self._cached_cells = 0

    def close(self) -> None:
        """Close the connection (checkpointing the file)."""
        self.con.close()

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
                "SELECT total, record_count FROM responses WHERE key = ? LIMIT 1", [key]
            ).fetchone()
            if row is None:
                return None
            hit = self._index[key] = (row[0], int(row[1] or 0))
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
        rows = self.con.execute(
            f"SELECT {', '.join(quote_ident(n) for n in names)} FROM {quote_ident(stored.table)} "
            f'WHERE "__key" = ? ORDER BY "__row"', [stored.key]).fetchall()
        cols = {n: [r[i] for r in rows] for i, n in enumerate(names)}
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
        return (f"SELECT {cols} FROM {quote_ident(stored.table)} "
                f"WHERE \"__key\" = '{stored.key}'")

    def _records(self, table: str | None, key: str) -> list[dict[str, Any]]:
        if table is None:
            return []
        rows = self.con.execute(
            f'SELECT "__raw" FROM {quote_ident(table)} WHERE "__key" = ? ORDER BY "__row"', [key]
        ).fetchall()
        return [orjson.loads(r[0]) for r in rows]

    def relation_of(self, stored: StoredRows) -> Relation:
        """A Relation (temp table on the store connection) holding the rows of one response."""
        fields = self.con.execute(
            "SELECT fields FROM tools WHERE records_table = ?", [stored.table]
        ).fetchone()
        from ..types import type_from_json

        types = {k: type_from_json(v) for k, v in orjson.loads(fields[0]).items()} if fields else {}
        name = f"__stored_{stored.key[:16]}"
        cols = ", ".join(['"__row"', '"__arm"', *(quote_ident(f) for f in types), '"__raw"'])
        self.con.execute(
            f"CREATE OR REPLACE TEMP TABLE {quote_ident(name)} AS SELECT {cols} FROM "
            f'{quote_ident(stored.table)} WHERE "__key" = ? ORDER BY "__row"', [stored.key])
        return Relation(self.con, name, types, stored.count)

    def put(self, tool: ToolSpec, args: Mapping[str, object], page: int | None,
            response: Response) -> str:
        """Record one response (replacing an earlier one with the same key); returns the key."""
        key = store_key(tool, args, page)
        records = response.records
        rel = shred(self.con, records, tool.field_types(), temp=True)
        table = self.table_name(tool)
        try:
            self.con.execute("BEGIN TRANSACTION")
            try:
                self._write(tool, args, page, response, key, rel, table, len(records))
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
        finally:
            rel.drop()
        self._tables[tool.declaration_hash] = table
        self._index[key] = (response.total, len(records))
        for ck in [ck for ck in self._cache if ck[1] == key]:
            old = self._cache.pop(ck)
            self._cached_cells -= len(old) * len(old["__row"])
        return key

    def _write(self, tool: ToolSpec, args: Mapping[str, object], page: int | None,
               response: Response, key: str, rel: Relation, table: str, count: int) -> None:
        q = quote_ident(table)
        if tool.declaration_hash not in self._tables:
            self.con.execute(
                f"CREATE TABLE IF NOT EXISTS {q} AS SELECT CAST(NULL AS VARCHAR) AS \"__key\", * "
                f"FROM {rel.sql_name} LIMIT 0")
            self.con.execute("DELETE FROM tools WHERE decl_hash = ?", [tool.declaration_hash])
            self.con.execute(
                "INSERT INTO tools VALUES (?, ?, ?, ?)",
                [tool.declaration_hash, tool.qualname, orjson.dumps(tool.fields).decode(), table])
        self.con.execute("DELETE FROM responses WHERE key = ?", [key])
        self.con.execute(f'DELETE FROM {q} WHERE "__key" = ?', [key])
        self.con.execute(
            "INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [key, tool.platform, tool.name, tool.declaration_hash,
             orjson.dumps(canonical_args(tool, args)).decode(), page, response.total,
             response.raw, count, _dt.datetime.now(_dt.UTC).replace(tzinfo=None)])
        self._insert_records(q, key, rel)

    def _insert_records(self, table_sql: str, key: str, rel: Relation) -> None:
        self.con.execute(f"INSERT INTO {table_sql} SELECT ?, * FROM {rel.sql_name}", [key])

    def count(self) -> int:
        """Number of recorded responses."""
        return int(self.con.execute("SELECT count(*) FROM responses").fetchone()[0])  # type: ignore[index]


def _open(store: Store | str | Path) -> Store:
    return store if isinstance(store, Store) else Store(store)


class StoreBackend:
    """Replays recorded responses. A miss fails (R505) in strict mode; otherwise it falls
    through to ``inner`` when given."""

    name = "store"

    def __init__(self, store: Store | str | Path, *, strict: bool = True,
                 inner: Backend | None = None) -> None:
        self.store = _open(store)
        self.strict = strict
        self.inner = inner

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None
                   ) -> Response:
        """The recorded response, or the inner backend's (non-strict), or R505."""
        hit = self.store.get(tool, args, page)
        if hit is not None:
            return hit
        if self.strict or self.inner is None:
            raise ToolFailure(
                "structural", "R505",
                f"no recorded response for {describe_call(tool, args, page)}; "
                f"record it with --record {self.store.path}")
        resp = await self.inner.call(tool, args, page=page)
        resp.from_store = False
        return resp


class RecordingBackend:
    """Wraps any backend and records each successful response that did not come from the store."""

    def __init__(self, inner: Backend, store: Store | str | Path) -> None:
        self.inner = inner
        self.store = _open(store)
        self.name = f"record+{getattr(inner, 'name', 'backend')}"

    def unsupported(self, tool: ToolSpec) -> str | None:
        """Whatever the inner backend says."""
        fn = getattr(self.inner, "unsupported", None)
        return fn(tool) if callable(fn) else None

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None
                   ) -> Response:
        """Call the inner backend and record its response."""
        resp = await self.inner.call(tool, args, page=page)
        if not resp.from_store:
            try:
                self.store.put(tool, args, page, resp)
            except Exception as exc:  # the write was rolled back: nothing half-written is visible
                raise ToolFailure(
                    "environmental", "R510",
                    f"recording {describe_call(tool, args, page)} in {self.store.path} failed: "
                    f"{type(exc).__name__}: {exc}") from exc
            resp.from_store = False
        return resp
