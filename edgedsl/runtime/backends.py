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

import datetime as _dt
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from ..plan.model import ToolSpec
from . import interrupt
from .redact import excerpt

if TYPE_CHECKING:
    from .duck import Relation

__all__ = [
    "Backend",
    "ColumnSource",
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
        #: so shredding need not round-trip them (see :func:`edgedsl.runtime.columns.lazy_columns`)
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
        return self.at(range(min(n, len(self))))

    def spread(self, n: int) -> list[dict[str, Any]]:
        """``n`` records evenly spaced over the page, the first one included (all of them when
        it holds no more than ``n``), without building the others when it is held as columns."""
        k = len(self)
        return self.at(range(k) if k <= n else [i * k // n for i in range(n)])

    def at(self, idx: Iterable[int]) -> list[dict[str, Any]]:
        """The records at positions ``idx``, without building the others when the page is held
        as columns."""
        if self._records is None and self.columns is not None:
            return [self.columns.record(i) for i in idx]
        records = self.records
        return [records[i] for i in idx]

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


_REGISTRY: dict[str, Callable[..., Backend]] = {}


def register_backend(name: str, factory: Callable[..., Backend]) -> None:
    """Make ``make_backend(name, **options)`` call ``factory(**options)``."""
    _REGISTRY[name] = factory


# backends registered by a module imported on first use (httpx loads only when needed)
_LAZY = {"http": "edgedsl.runtime.http", "world": "edgedsl.runtime.http",
         "python": "edgedsl.runtime.python_backend"}


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
        # identity: a container that holds itself is the same object again (dicts and lists
        # cannot be hashed by value); `seen` holds the ancestors of `v`, alive during the walk
        if id(v) in seen:  # identity: see above
            return path, "a value that contains itself"
        if depth >= _MAX_DEPTH:
            return path, f"values nested more than {_MAX_DEPTH} levels deep"
        inner = seen | {id(v)}  # identity: see above
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


def _store_factory(path: str | Path, strict: bool = True, inner: Backend | None = None) -> Backend:
    from .store_replay import StoreBackend

    return StoreBackend(path, strict=strict, inner=inner)


register_backend("store", _store_factory)
