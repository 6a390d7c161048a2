"""``edgedsl store stats | export | drift``: looking into a store file (see ``docs/store.md``).

Exit codes as everywhere: 0 ok (drift found is still 0 unless ``--fail-on-drift``), 1 failure
(a store that cannot be used is ``R511``: missing, foreign, damaged, locked), 2 usage.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from .args import positive_int
from .common import EXIT_ERRORS, EXIT_OK, compile_file, usage_error

__all__ = ["add_store_parser", "export_responses", "store_stats"]



def _existing(path: str) -> Path:
    """A store path that exists (R511 otherwise: replay never creates one)."""
    from ..runtime.store_file import check_path

    p = Path(path)
    check_path(p, create=False)
    return p


def _guarded(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Report a store that cannot be opened (R511, by the command line) or read as a failure
    (exit 1), not a bug."""

    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        import duckdb

        from ..runtime.store_file import unreadable

        try:
            return fn(args)
        except duckdb.Error as err:  # opened, then a query failed: a damaged file
            raise unreadable(Path(args.store), err) from None
        except ValueError as err:
            sys.stderr.write(f"edgedsl: error: {err}\n")
            return EXIT_ERRORS

    return run


def _iso(v: Any) -> Any:
    return v.isoformat(sep=" ") if hasattr(v, "isoformat") else v


# ---------------------------------------------------------------- stats


def store_stats(path: str | Path) -> dict[str, Any]:
    """Responses, records, per platform and tool (with declaration hashes), first and last
    ``recorded_at``, file size (and the write-ahead log's, if any)."""
    from ..core.sqlquote import quote_ident
    from ..runtime.store import Store

    p = Path(path)
    with Store(p, read_only=True) as st:
        con = st.con
        n, first, last = con.execute(
            "SELECT count(*), min(recorded_at), max(recorded_at) FROM responses").fetchone() \
            or (0, None, None)
        specs = st.specs()
        tables = dict(con.execute("SELECT decl_hash, records_table FROM tools").fetchall())
        rows = con.execute(
            "SELECT platform, tool, decl_hash, count(*), sum(record_count), min(recorded_at), "
            "max(recorded_at) FROM responses GROUP BY ALL ORDER BY platform, tool, decl_hash"
        ).fetchall()
        tools = []
        records = 0
        for plat, tool, decl, cnt, recs, t0, t1 in rows:
            table = tables.get(decl)
            stored = 0 if table is None else int(con.execute(
                f"SELECT count(*) FROM {quote_ident(table)}").fetchone()[0])  # type: ignore[index]
            records += stored
            tools.append({"tool": f"{plat}.{tool}", "platform": plat, "decl_hash": decl,
                          "responses": int(cnt), "records": stored,
                          "record_count": int(recs or 0), "spec": decl in specs,
                          "first_recorded_at": _iso(t0), "last_recorded_at": _iso(t1)})
    platforms: dict[str, dict[str, int]] = {}
    for t in tools:
        agg = platforms.setdefault(t["platform"], {"responses": 0, "records": 0, "tools": 0})
        agg["responses"] += t["responses"]
        agg["records"] += t["records"]
        agg["tools"] += 1
    wal = Path(str(p) + ".wal")
    return {
        "path": str(p), "file_size": p.stat().st_size,
        "wal_size": wal.stat().st_size if wal.exists() else 0,
        "responses": int(n), "records": records,
        "first_recorded_at": _iso(first), "last_recorded_at": _iso(last),
        "platforms": platforms, "tools": tools,
    }


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def cmd_store_stats(args: argparse.Namespace) -> int:
    """``edgedsl store stats STORE [--json]``."""
    data = store_stats(_existing(args.store))
    if args.json:
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
        return EXIT_OK
    out = [f"{data['path']}: {_size(data['file_size'])}"
           + (f" (+ {_size(data['wal_size'])} write-ahead log)" if data["wal_size"] else ""),
           f"{data['responses']} responses, {data['records']} records",
           f"recorded {data['first_recorded_at']} … {data['last_recorded_at']}"
           if data["responses"] else "nothing recorded"]
    for plat, agg in sorted(data["platforms"].items()):
        out.append(f"{plat}: {agg['responses']} responses, {agg['records']} records, "
                   f"{agg['tools']} tool declaration(s)")
        for t in data["tools"]:
            if t["platform"] == plat:
                out.append(f"  {t['tool']} [{t['decl_hash']}]: {t['responses']} responses, "
                           f"{t['records']} records"
                           + ("" if t["spec"] else " (no declaration kept)"))
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


# ---------------------------------------------------------------- export


def export_responses(path: str | Path, tool: str | None = None) -> Iterator[dict[str, Any]]:
    """One object per recorded response: key, platform, tool, decl_hash, args, page, total,
    recorded_at, records (in service order), ordered by tool, time and key."""
    from ..core.sqlquote import quote_ident
    from ..runtime.store import Store

    with Store(path, read_only=True) as st:
        tables = st.con.execute(
            "SELECT DISTINCT r.decl_hash, t.records_table FROM responses r LEFT JOIN tools t "
            "ON t.decl_hash = r.decl_hash ORDER BY r.decl_hash").fetchall()
        for decl, table in tables:
            filt, params = "r.decl_hash = ?", [decl]
            if tool is not None:
                filt += " AND r.platform || '.' || r.tool = ?"
                params.append(tool)
            recs = "NULL" if table is None else (
                f'(SELECT list("__raw" ORDER BY "__row") FROM {quote_ident(table)} x '
                'WHERE x."__key" = r.key)')
            cur = st.cursor()
            cur.execute(
                f"SELECT r.key, r.platform, r.tool, r.decl_hash, r.args, r.page, r.total, "
                f"r.recorded_at, {recs} FROM responses r WHERE {filt} "
                "ORDER BY r.platform, r.tool, r.recorded_at, r.key", params)
            while True:
                batch = cur.fetchmany(256)
                if not batch:
                    break
                for key, plat, name, d, a, page, total, at, raws in batch:
                    yield {"key": key, "platform": plat, "tool": name, "qualname":
                           f"{plat}.{name}", "decl_hash": d, "args": orjson.loads(a),
                           "page": page, "total": total, "recorded_at": _iso(at),
                           "records": [orjson.loads(x) for x in raws or []]}
            cur.close()


def cmd_store_export(args: argparse.Namespace) -> int:
    """``edgedsl store export STORE [-o FILE] [--tool QUALNAME]``: JSON Lines."""
    path = _existing(args.store)
    out: IO[bytes] = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    n = 0
    try:
        for obj in export_responses(path, args.tool):
            out.write(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n")
            n += 1
    finally:
        if args.output:
            out.close()
        else:
            out.flush()
    if args.output:
        sys.stderr.write(f"wrote {n} response(s) to {args.output}\n")
    return EXIT_OK


# ---------------------------------------------------------------- drift


def _drift_backend(args: argparse.Namespace) -> Any:
    from ..runtime import backends
    from ..runtime.python_backend import PythonBackend

    name = args.backend
    if name == "world":
        from ..runtime.http import make_world_backend

        return make_world_backend(seed=args.seed)
    if name == "python":
        if not args.tools:
            raise usage_error("the python backend needs `--tools PATH.py` defining TOOLS = {...}")
        try:
            return PythonBackend(backends.load_python_tools(Path(args.tools)))
        except (OSError, ImportError, ValueError, TypeError, SyntaxError) as err:
            raise usage_error(f"cannot load tools from {args.tools}: {err}") from None
    if name not in backends.backend_names() or name == "store":
        raise usage_error(f"drift re-fetches through world, http or python, not `{name}`")
    return backends.make_backend(name)


def cmd_store_drift(args: argparse.Namespace) -> int:
    """``edgedsl store drift STORE [--backend world|http|python] [--trajectories FILE…]``."""
    from ..runtime.drift import drift

    path = _existing(args.store)
    plans = []
    for f in args.trajectories or []:

        ns = argparse.Namespace(file=f, lib=args.lib, phi=args.phi, json=args.json)
        compiled = compile_file(ns)
        if compiled is None:
            return EXIT_ERRORS
        plans.append((f, compiled[0]))
    backend = _drift_backend(args)
    report = drift(path, backend, backend_name=args.backend, plans=plans,
                   concurrency=args.concurrency)
    if args.json:
        sys.stdout.write(orjson.dumps(report.to_json(), option=orjson.OPT_INDENT_2
                                      | orjson.OPT_NON_STR_KEYS).decode() + "\n")
    else:
        sys.stdout.write(report.text() + "\n")
    return EXIT_ERRORS if args.fail_on_drift and report.drifted else EXIT_OK


# ---------------------------------------------------------------- parser


def add_store_parser(sub: Any) -> None:
    """Register ``store stats | export | drift`` on the top-level subparsers."""
    sp = sub.add_parser("store", help="inspect a store: stats, export, drift")
    ssub = sp.add_subparsers(dest="store_command", required=True, metavar="COMMAND")

    p = ssub.add_parser("stats", help="responses, records, per tool, dates, file size")
    p.add_argument("store", metavar="STORE")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=_guarded(cmd_store_stats))

    p = ssub.add_parser("export", help="every recorded response as JSON Lines")
    p.add_argument("store", metavar="STORE")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    p.add_argument("--tool", metavar="QUALNAME", help="only this tool, e.g. dart.company")
    p.set_defaults(func=_guarded(cmd_store_export))

    p = ssub.add_parser("drift", help="re-fetch every stored call and report what changed")
    p.add_argument("store", metavar="STORE")
    p.add_argument("--backend", default="world", metavar="NAME",
                   help="world | http | python (default world)")
    p.add_argument("--seed", type=int, default=0, help="world backend: the world's seed")
    p.add_argument("--tools", metavar="PATH.py", help="python backend: file defining TOOLS")
    p.add_argument("--trajectories", nargs="+", metavar="FILE.edge",
                   help="also run these on the store and on the backend; list changed answers")
    p.add_argument("--concurrency", type=positive_int, default=8,
                   help="calls in flight (default 8)")
    p.add_argument("--fail-on-drift", action="store_true", help="exit 1 when anything drifted")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument("--lib", action="append", metavar="DIR",
                   help="extra directory searched by `use` (trajectory files)")
    p.add_argument("--phi", type=positive_int, default=5, help="fan-out budget φ (default 5)")
    p.set_defaults(func=_guarded(cmd_store_drift))
