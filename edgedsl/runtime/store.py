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

A write runs in one transaction (response row and records together), so a crash mid-write leaves
nothing visible. Secret values never reach the store: backends that inject them scrub responses.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import orjson

from ..plan import ToolSpec
from ..sqlquote import quote_ident
from .backends import Backend, Response, StoredRows, ToolFailure
from .duck import Relation, shred

__all__ = ["RecordingBackend", "Store", "StoreBackend", "canonical_args", "store_key"]

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
        row = self.con.execute(
            "SELECT total, raw, record_count FROM responses WHERE key = ? LIMIT 1", [key]
        ).fetchone()
        if row is None:
            return None
        total, raw, count = row
        table = self._tables.get(tool.declaration_hash)
        stored = None if table is None else StoredRows(self, table, key, int(count))
        return Response(total=total, raw=None if raw is None else bytes(raw), from_store=True,
                        stored=stored, loader=lambda: self._records(table, key))

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
