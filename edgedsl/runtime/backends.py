"""Backends: where calls go.

A backend answers one call of one tool, one page at a time::

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None) -> Response

``args`` holds the trajectory's arguments only (dates as ``datetime.date``); the backend adds the
platform's paging wire parameters and injects secrets at the last moment. A backend that injects
a secret also scrubs its value from everything it returns (records, raw body, error messages),
so nothing downstream — trace, store, diagnostics — can see it.

Failures are classified once, where they happen, as :class:`ToolFailure` with ``kind``
``structural`` (not retried, counted against an edge) or ``environmental`` (retried, never
counted). Backends are made by name through a registry (:func:`register_backend`,
:func:`make_backend`) so that the ``world`` and ``http`` backends plug in the same way as
``python`` and ``store``.

Python tools (:class:`PythonBackend`) are plain callables taking keyword arguments. They return
a list of records, or one record (a dict); when the tool declares ``at "path"``, a returned dict
is an *envelope*: the records are at that dotted path and the total at the paging ``total``
field (looked up at the top level, then beside the records). Sync callables run in a worker
thread, async ones on the loop. An exception maps to a failure by this rule: ``ToolFailure``
passes through; ``TimeoutError``, ``ConnectionError`` and any other ``OSError`` are
*environmental* (R504); every other exception (``ValueError``, ``TypeError``, ``KeyError`` …) is
*structural* (R503).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime as _dt
import importlib
import importlib.util
import inspect
import re
import sys
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import orjson

from ..plan.model import ToolSpec
from . import interrupt
from .redact import Redactor, excerpt, remember, scrub

if TYPE_CHECKING:
    from .duck import Relation

__all__ = [
    "Backend",
    "ColumnSource",
    "PythonBackend",
    "Response",
    "StoredRows",
    "ToolFailure",
    "backend_names",
    "load_python_tools",
    "make_backend",
    "register_backend",
]

FailureKind = Literal["structural", "environmental"]


class ToolFailure(Exception):
    """A classified failure of one call: ``kind``, diagnostic ``code`` and a message."""

    def __init__(self, kind: FailureKind, code: str, message: str) -> None:
        self.kind = kind
        self.code = code
        self.message = message
        super().__init__(f"{kind} failure {code}: {message}")


@dataclass(frozen=True, slots=True)
class StoredRows:
    """A handle on a recorded response's shredded rows inside a store's DuckDB file.

    ``owner`` is the store; the executor copies the rows with one SQL statement when its run
    connection belongs to that store (no re-shredding), and falls back to the records otherwise.
    """

    owner: object
    table: str
    key: str
    count: int

    def relation(self) -> Relation:
        """The rows as a :class:`~edgedsl.runtime.duck.Relation` over the store connection."""
        return self.owner.relation_of(self)  # type: ignore[attr-defined]


class Response:
    """One page of one call: records (loaded lazily for stored responses), the reported total,
    the raw body, whether it came from the store, and (for a store hit) the stored rows."""

    __slots__ = ("_loader", "_raw", "_raw_loader", "_records", "columns", "from_store", "native",
                 "stored", "total")

    def __init__(
        self,
        records: list[dict[str, Any]] | None = None,
        total: int | None = None,
        raw: bytes | None = None,
        from_store: bool | None = None,
        stored: StoredRows | None = None,
        loader: Callable[[], list[dict[str, Any]]] | None = None,
        raw_loader: Callable[[], bytes | None] | None = None,
        native: bool = False,
        columns: ColumnSource | None = None,
    ) -> None:
        self._records = records
        #: the records held as columns (a fresh flat XML list: see
        #: :class:`~edgedsl.runtime.normalize.FlatTable`); then ``records`` defaults to the
        #: records they make, built only when something asks for them
        self.columns = columns
        if records is None and loader is None and columns is not None:
            loader = columns.records
        #: True when the records are exactly values a JSON decoder made (str, int, float, bool,
        #: None, lists and str-keyed dicts of them): their JSON text reads back as themselves,
        #: so shredding need not round-trip them (see :func:`edgedsl.runtime.duck.lazy_columns`)
        self.native = native
        self._loader = loader
        self.total = total
        self._raw = raw
        self._raw_loader = raw_loader
        self.from_store = from_store
        self.stored = stored

    @property
    def raw(self) -> bytes | None:
        """The raw body (loaded on first use for a stored response)."""
        if self._raw is None and self._raw_loader is not None:
            self._raw = self._raw_loader()
            self._raw_loader = None
        return self._raw

    @raw.setter
    def raw(self, value: bytes | None) -> None:
        self._raw, self._raw_loader = value, None

    @property
    def records(self) -> list[dict[str, Any]]:
        """The records of this page, in service order."""
        if self._records is None:
            self._records = self._loader() if self._loader is not None else []
        return self._records

    def head(self, n: int) -> list[dict[str, Any]]:
        """The first ``n`` records, without building the others when the page is held as
        columns."""
        if self._records is None and self.columns is not None:
            return [self.columns.record(i) for i in range(min(n, len(self.columns)))]
        return self.records[:n]

    def __len__(self) -> int:
        if self._records is None and self.stored is not None:
            return self.stored.count
        if self._records is None and self.columns is not None:
            return len(self.columns)
        return len(self.records)

    def __repr__(self) -> str:
        return f"Response({len(self)} records, total={self.total}, from_store={self.from_store})"


class ColumnSource(Protocol):
    """Records held as columns: ``names`` (every field some record has, in record key order),
    ``column(name)`` (that field of every record, None where absent), ``record(i)``,
    ``records()`` (every record, made once) and ``len()``."""

    names: tuple[str, ...]

    def __len__(self) -> int: ...

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every record."""
        ...

    def record(self, i: int) -> dict[str, Any]:
        """Record ``i``."""
        ...

    def records(self) -> list[dict[str, Any]]:
        """Every record, in order."""
        ...


@runtime_checkable
class Backend(Protocol):
    """Answers calls. ``name`` labels traces; ``unsupported(tool)`` (optional) returns a reason
    why a tool cannot run here, e.g. no HTTP part on the ``http`` backend."""

    name: str

    async def call(
        self, tool: ToolSpec, args: dict[str, object], *, page: int | None
    ) -> Response: ...


def unsupported_reason(backend: object, tool: ToolSpec) -> str | None:
    """Why ``backend`` cannot run ``tool`` (None when it can or does not say)."""
    fn = getattr(backend, "unsupported", None)
    return fn(tool) if callable(fn) else None


def requires_http(tool: ToolSpec, backend: str) -> str | None:
    """The reason string for HTTP-based backends (``http``, ``world``) given a tool."""
    if tool.has_http:
        return None
    return (f"tool `{tool.qualname}` declares no HTTP method and path, so the `{backend}` "
            "backend cannot call it; run it on the `python` or `store` backend")


# ---------------------------------------------------------------- registry

_REGISTRY: dict[str, Callable[..., Backend]] = {}


def register_backend(name: str, factory: Callable[..., Backend]) -> None:
    """Make ``make_backend(name, **options)`` call ``factory(**options)``."""
    _REGISTRY[name] = factory


# backends registered by a module imported on first use (httpx loads only when needed)
_LAZY = {"http": "edgedsl.runtime.http", "world": "edgedsl.runtime.http"}


def make_backend(name: str, **options: Any) -> Backend:
    """A backend by registered name (ValueError naming the known ones otherwise)."""
    if name not in _REGISTRY and name in _LAZY:
        importlib.import_module(_LAZY[name])
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown backend {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return factory(**options)


def backend_names() -> list[str]:
    """The registered backend names, sorted."""
    return sorted(set(_REGISTRY) | set(_LAZY))


# ---------------------------------------------------------------- python tools


def import_file(path: str | Path) -> ModuleType:
    """Import the ``.py`` file at ``path`` as a module (its own name, registered in
    ``sys.modules`` so that dataclasses and pickling work); ValueError when it cannot."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"python tools file {str(p)!r} does not exist")
    mod_name = f"edgedsl_tools_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {str(p)!r} as a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    try:
        spec.loader.exec_module(mod)
    except Exception as exc:
        sys.modules.pop(mod_name, None)
        raise ValueError(f"importing {str(p)!r} failed: {type(exc).__name__}: {exc}") from exc
    return mod


def load_python_tools(path: str | Path) -> dict[str, Callable[..., Any]]:
    """Import the ``.py`` file at ``path`` and return its ``TOOLS`` dict
    (``{"platform.tool": callable}``); ValueError when it is missing or malformed."""
    p = Path(path)
    mod = import_file(p)
    tools = getattr(mod, "TOOLS", None)
    if tools is None:
        raise ValueError(f"{str(p)!r} defines no TOOLS; add TOOLS = {{'platform.tool': fn}}")
    if not isinstance(tools, dict):
        raise ValueError(f"TOOLS in {str(p)!r} must be a dict, not {type(tools).__name__}")
    bad = [k for k, v in tools.items() if not isinstance(k, str) or not callable(v)]
    if bad:
        raise ValueError(f"TOOLS in {str(p)!r} maps {bad[:3]!r} to non-callables or non-str keys")
    return dict(tools)


def dig(obj: Any, path: str) -> Any:
    """The value at dotted ``path`` in nested dicts (a numeric part indexes a list); None if
    any step is missing."""
    for part in path.split("."):
        if isinstance(obj, list) and part.isdigit():
            i = int(part)
            obj = obj[i] if i < len(obj) else None
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            return None
    return obj


MAX_TOTAL = (1 << 63) - 1
"""The largest reported total edgedsl accepts (a DuckDB ``BIGINT``): a service reporting more
records than that, or fewer than none, is not reporting a count."""

_COUNT_TEXT = re.compile(r"[+-]?[0-9]+")


def as_count(v: Any) -> int | None:
    """A reported total as an int (``12``, ``"1,234"``, ``12.0``); None when it is not a number
    (absent, empty, a word). ValueError for a number that is not a count: negative, fractional
    or above :data:`MAX_TOTAL`."""
    n: int | None = None
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        n = v
    elif isinstance(v, str):
        text = v.strip().replace(",", "")
        if not _COUNT_TEXT.fullmatch(text):
            return None
        n = int(text)
    elif isinstance(v, float):
        if not v.is_integer():
            raise ValueError(f"a reported total of {v!r} is not a whole number")
        n = int(v)
    if n is None:
        return None
    if not 0 <= n <= MAX_TOTAL:
        shown = f"{n}" if len(str(n)) <= 24 else f"{str(n)[:12]}… ({len(str(n))} digits)"
        raise ValueError(f"a reported total of {shown} is not a count (0 … 2^63 - 1)")
    return n


def reported_total(tool: ToolSpec, v: Any) -> int | None:
    """:func:`as_count` of the total a tool's answer reports at its paging ``total`` field; a
    number that is not a count is a structural failure of the tool (R503)."""
    try:
        return as_count(v)
    except ValueError as err:
        field = tool.paging.total if tool.paging is not None else "total"
        raise ToolFailure("structural", "R503",
                          f"`{tool.qualname}`: {err} (at `{field}`)") from None


def parse_result(tool: ToolSpec, out: Any) -> tuple[list[dict[str, Any]], int | None]:
    """Records and reported total of a python tool's return value (see the module docstring)."""
    total = None
    if isinstance(out, dict) and tool.at:
        if tool.paging and tool.paging.total:
            total = reported_total(tool, dig(out, tool.paging.total))
            parent = tool.at.rpartition(".")[0]
            if total is None and parent:
                total = reported_total(tool, dig(dig(out, parent), tool.paging.total))
        out = dig(out, tool.at)
        if out is None:
            out = []
    if isinstance(out, dict):
        out = [out]
    if not isinstance(out, list | tuple):
        raise ToolFailure("structural", "R503",
                          f"`{tool.qualname}` returned {type(out).__name__}, expected records")
    i = first_non_record(out)
    if i is not None:
        raise ToolFailure("structural", "R503", f"`{tool.qualname}` returned a non-record item "
                                                f"at [{i}]: {excerpt(out[i])}")
    return list(out), total


def first_non_record(items: Sequence[Any]) -> int | None:
    """The index of the first item that is not a record (a dict), or None — also when that
    item is itself None."""
    if not set(map(type, items)) - {dict}:  # in C: decoders make plain dicts
        return None
    return next((i for i, r in enumerate(items) if not isinstance(r, dict)), None)


def json_problem(value: Any) -> tuple[str, str] | None:
    """Where and why ``value`` is not JSON data (``("[3].amount", "an integer above 64
    bits")``; the path is ``""`` for ``value`` itself), or None when it is: dicts with text
    keys, lists and tuples, text without lone surrogates, integers of at most 64 bits, floats,
    booleans, None, dates and times. Walks without recursion, so a deep or circular value is
    reported, not followed."""
    stack: list[tuple[Any, str, int, frozenset[int]]] = [(value, "", 0, frozenset())]
    while stack:
        v, path, depth, seen = stack.pop()
        if v is None or isinstance(v, bool | float | _dt.date | _dt.time):
            continue
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return path, "a text with a lone surrogate (not UTF-8)"
            continue
        if isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 64):
                return path, "an integer above 64 bits"
            continue
        if not isinstance(v, dict | list | tuple):
            return path, f"a value of type {type(v).__name__}, which is not JSON data"
        if id(v) in seen:
            return path, "a value that contains itself"
        if depth >= _MAX_DEPTH:
            return path, f"values nested more than {_MAX_DEPTH} levels deep"
        inner = seen | {id(v)}
        if isinstance(v, dict):
            for k in v:
                if not isinstance(k, str):
                    return f"{path}[{excerpt(k)}]", f"a key of type {type(k).__name__} " \
                        "(keys must be text)"
            items: Iterable[tuple[str, Any]] = ((f"{path}.{k}" if path else k, x)
                                                for k, x in v.items())
        else:
            items = ((f"{path}[{i}]", x) for i, x in enumerate(v))
        stack.extend((x, p, depth + 1, inner) for p, x in reversed(list(items)))
    return None


_MAX_DEPTH = 200
"""How deeply a tool's answer may nest (orjson, which writes raw bodies, stops at 254)."""


def classify(tool: ToolSpec, exc: BaseException) -> ToolFailure:
    """Map an exception raised by a tool callable to a ToolFailure (module docstring rule)."""
    if isinstance(exc, ToolFailure):
        return exc
    kind: FailureKind = "environmental" if isinstance(exc, OSError) else "structural"
    detail = str(exc)
    return ToolFailure(kind, "R504" if kind == "environmental" else "R503",
                       f"`{tool.qualname}` raised {type(exc).__name__}"
                       + (f": {detail}" if detail else ""))


def classify_raised(tool: ToolSpec, exc: BaseException) -> ToolFailure:
    """:func:`classify` for anything a tool's own code raised, ``BaseException`` included: a
    tool that raises ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` or a
    ``CancelledError`` of its own has failed (structural, R503); it does not end the run or the
    process. A cancellation of the run itself, and Ctrl-C (see :mod:`edgedsl.runtime.interrupt`),
    are not the tool's and propagate."""
    if isinstance(exc, KeyboardInterrupt) and interrupt.requested():
        raise exc
    return classify(tool, exc)


DEFAULT_PYTHON_TIMEOUT = 60.0
"""Seconds a python tool may take for one call before the call fails (R504)."""


class PythonBackend:
    """Calls in-process Python callables ``tools["platform.tool"](**kwargs)``.

    ``secrets`` maps a platform name to its key; it is passed as the platform's secret parameter
    and scrubbed from whatever the callable returns or raises. ``timeout`` bounds one call
    (seconds; an environmental failure, R504, when it passes): a sync callable runs in a daemon
    thread that is abandoned, not joined, when it does not return in time (it cannot hold the
    process open); an async one is cancelled. An async callable that blocks the event loop
    itself (``time.sleep`` inside ``async def``) cannot be interrupted — write blocking tools as
    plain functions.
    """

    name = "python"

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]],
        *,
        secrets: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_PYTHON_TIMEOUT,
    ) -> None:
        from .builtins import BUILTINS

        if not timeout > 0:
            raise ValueError(f"the python backend's timeout must be positive, not {timeout!r}")
        self.tools = {**BUILTINS, **tools}  # the std platform, unless TOOLS override a name
        self.secrets = dict(secrets or {})
        self.timeout = timeout

    def unsupported(self, tool: ToolSpec) -> str | None:
        """A reason when no callable is registered for ``tool``."""
        if tool.qualname in self.tools:
            return None
        return f"no python callable for `{tool.qualname}`; add it to TOOLS"

    async def call(
        self, tool: ToolSpec, args: dict[str, object], *, page: int | None
    ) -> Response:
        """Run the tool's callable with the arguments (+ paging wire params, + secret)."""
        fn = self.tools.get(tool.qualname)
        if fn is None:
            raise ToolFailure("structural", "R503", self.unsupported(tool) or "")
        kwargs = dict(args)
        if page is not None and tool.paging is not None:
            if tool.paging.page:
                kwargs[tool.paging.page] = page
            if tool.paging.size and tool.paging.size_limit:
                kwargs[tool.paging.size] = tool.paging.size_limit
        secret = self.secrets.get(tool.platform)
        hidden = Redactor([secret] if secret else [])
        if secret and tool.secret:
            remember(secret)
            kwargs[tool.secret] = secret
        try:
            if inspect.iscoroutinefunction(fn):
                out = await _within(fn(**kwargs), self.timeout)
            else:
                out = await _in_thread(fn, kwargs, self.timeout)
        except _CallTimeout:
            raise ToolFailure("environmental", "R504", f"`{tool.qualname}`: no answer within "
                                                       f"{self.timeout:g} s") from None
        if isinstance(out, _Raised):
            f = classify_raised(tool, out.exc)
            raise ToolFailure(f.kind, f.code, hidden.text(f.message)) from None
        if hidden:
            out = hidden.value(out)
        try:  # JSON data only: what orjson cannot write is looked into for its path
            raw = orjson.dumps(out)
        except (TypeError, orjson.JSONEncodeError):
            raw = None
        if raw is None:
            problem = json_problem(out)
            if problem is not None:
                path = hidden.text(scrub(problem[0]))  # masked before it is cut
                path = path if len(path) <= 80 else f"{path[:38]}…{path[-38:]}"
                where = f"at `{path}`" if path else "as its answer"
                raise ToolFailure("structural", "R503", hidden.text(
                    f"`{tool.qualname}` returned {problem[1]} {where}"))
        records, total = parse_result(tool, out)
        return Response(records=records, total=total, raw=raw, from_store=None)


class _CallTimeout(Exception):
    """A python tool did not answer within the backend's timeout."""


_CANCEL_GRACE = 1.0
"""Seconds a timed-out async tool is given to unwind after it is cancelled; one that swallows
the cancellation is then left behind."""


async def _within(coro: Coroutine[Any, Any, Any], timeout: float) -> Any:
    """Await ``coro`` for at most ``timeout`` seconds (:class:`_CallTimeout` after); what it
    raises comes back as a :class:`_Raised` value. Unlike ``asyncio.wait_for``, a coroutine that
    ignores its cancellation cannot hold the caller."""

    async def guarded() -> Any:
        try:
            return await coro
        except BaseException as exc:  # SystemExit too: a task would re-raise it out of the loop
            task = asyncio.current_task()
            cancelled = isinstance(exc, asyncio.CancelledError) and task is not None \
                and task.cancelling()
            if cancelled or (isinstance(exc, KeyboardInterrupt) and interrupt.requested()):
                raise
            return _Raised(exc)

    task = asyncio.ensure_future(guarded())
    # a task cancelled before its first step never awaits the tool's coroutine: close it
    task.add_done_callback(lambda t: coro.close() if t.cancelled() else None)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:  # the run itself is cancelled: take the tool with it
        task.cancel()
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=_CANCEL_GRACE)
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: a late failure is not reported as never retrieved
        raise _CallTimeout
    return task.result()


async def _in_thread(fn: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> Any:
    """``fn(**kwargs)`` in a daemon thread of its own, awaited for at most ``timeout`` seconds
    (:class:`_CallTimeout` after); what it raises comes back as a :class:`_Raised` value. The
    thread is not joined: a tool that never returns is left
    running and cannot keep the process from exiting, as a pool's worker would."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()
    ctx = contextvars.copy_context()

    def settle(value: Any) -> None:
        if not fut.done():
            fut.set_result(value)

    def target() -> None:
        try:
            value = ctx.run(fn, **kwargs)
        except BaseException as exc:  # delivered to the awaiting coroutine, classified there
            value = _Raised(exc)
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(settle, value)

    threading.Thread(target=target, daemon=True, name="edgedsl-python-tool").start()
    done, _ = await asyncio.wait({fut}, timeout=timeout)
    if not done:
        fut.cancel()
        raise _CallTimeout
    return fut.result()


class _Raised:
    """What a tool raised, carried back as a value (a future or a coroutine cannot pass on
    ``StopIteration``, and a task re-raises ``SystemExit`` out of the event loop)."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _python_factory(
    tools: Mapping[str, Callable[..., Any]] | None = None,
    path: str | Path | None = None,
    secrets: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_PYTHON_TIMEOUT,
) -> PythonBackend:
    if tools is None:
        if path is None:
            raise ValueError("the python backend needs `tools` or `path` (a file with TOOLS)")
        tools = load_python_tools(path)
    return PythonBackend(tools, secrets=secrets, timeout=timeout)


def _store_factory(path: str | Path, strict: bool = True, inner: Backend | None = None) -> Backend:
    from .store import StoreBackend

    return StoreBackend(path, strict=strict, inner=inner)


register_backend("python", _python_factory)
register_backend("store", _store_factory)
