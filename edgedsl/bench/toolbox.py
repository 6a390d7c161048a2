"""The tool interface of an episode: what an agent calls, one tool call at a time.

A :class:`ToolBox` is made per episode from a task of a bundle, a backend and the task's
:class:`Budgets`. :meth:`ToolBox.schemas` lists the task's exposed tools as OpenAI function
schemas (:func:`~edgedsl.recipe.synth.tools_schema.tool_schema`, plus a ``page`` parameter on a
paged tool: :data:`PAGE_ARG`). :meth:`ToolBox.call` executes ONE call on the backend — the
runtime's own call path (``Backend.call`` with the tool's spec: the backend adds the paging wire
parameters and the key; a failure is classified by :func:`~edgedsl.runtime.backends.classify`)
— after validating the arguments against the catalog (:func:`validate_arguments`), and records it
(:class:`~edgedsl.bench.episode.CallRecord`).

A call that cannot be made returns a :class:`ToolResult` with a classified
:class:`~edgedsl.bench.episode.ToolError` (never raises for the agent's mistakes):
``malformed_call`` (arguments that are not a JSON object), ``unknown_tool`` (a tool the task does
not expose), ``invalid_arguments`` (a missing or unknown parameter, a value of the wrong type, a
code off its pattern, a bad page), ``call_budget`` / ``time_budget`` (the task's budgets),
``loop`` (the same call made more than ``Budgets.repeats`` times) and ``tool_failure`` (the
backend's classified failure). A budget or a loop also sets :attr:`ToolBox.stopped`, the end
reason the episode ends with; an agent stops calling once it is set.

:class:`ToolBoxBackend` turns a toolbox back into a :class:`~edgedsl.runtime.backends.Backend`,
so that a program (the oracle's gold program, a scripted baseline) runs through the same tool
interface as a model.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import orjson

from ..core.types import CodeType, EnumType, FieldType, ListType, type_from_json
from ..plan.model import ToolSpec
from ..recipe.synth.tools_schema import tool_name, tool_schema
from ..runtime.answers import jsonable
from ..runtime.backends import Backend, Response, ToolFailure, classify
from ..runtime.redact import scrub
from .episode import CallRecord, EndReason, ToolError, ToolErrorKind

if TYPE_CHECKING:
    from .bundle import Bundle, BundleTask

__all__ = [
    "PAGE_ARG",
    "Budgets",
    "RemotePage",
    "ToolBox",
    "ToolBoxBackend",
    "ToolResult",
    "is_write",
    "paged_schema",
    "validate_arguments",
]

PAGE_ARG = "page"
"""The argument a paged tool's schema adds for the page to read (1 first; default 1)."""


@dataclass(frozen=True)
class Budgets:
    """Per-task limits of an episode: ``calls`` tool calls at most, ``seconds`` of wall time,
    ``repeats`` identical calls (same tool, arguments and page) before it is a loop, and
    ``records_shown`` records of a page shown to the agent and kept in the episode."""

    calls: int = 50
    seconds: float = 120.0
    repeats: int = 3
    records_shown: int = 20

    def __post_init__(self) -> None:
        for name in ("calls", "repeats", "records_shown"):
            if getattr(self, name) < 1:
                raise ValueError(f"budget {name} must be at least 1, not {getattr(self, name)}")
        if not self.seconds > 0:
            raise ValueError(f"budget seconds must be positive, not {self.seconds}")


@dataclass
class ToolResult:
    """The outcome of one call: ``ok`` with the page's ``records`` (all of them), ``count``,
    the reported ``total`` and ``has_more``; or ``error``. ``response`` is the backend's
    :class:`~edgedsl.runtime.backends.Response` (None on an error), ``record`` the call as the
    episode keeps it."""

    ok: bool
    record: CallRecord
    records: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0
    total: int | None = None
    has_more: bool = False
    page: int | None = None
    error: ToolError | None = None
    response: Response | None = None

    def content(self, shown: int = 20) -> str:
        """The JSON text a tool message carries: ``{"records": first shown, "count", "truncated",
        "total"?, "page"?, "has_more"}``, or ``{"error": {"kind", "message", "code"?}}``."""
        if self.error is not None:
            return orjson.dumps({"error": self.error.model_dump(exclude_none=True)}).decode()
        head = self.records[:shown]
        out: dict[str, Any] = {"records": head, "count": self.count,
                               "truncated": len(head) < self.count}
        if self.total is not None:
            out["total"] = self.total
        if self.page is not None:
            out["page"] = self.page
            out["has_more"] = self.has_more
        return orjson.dumps(out).decode()


def is_write(spec: ToolSpec) -> bool:
    """True when ``spec`` changes state (an HTTP method other than GET)."""
    return spec.method is not None and spec.method.upper() not in ("GET", "HEAD")


def paged_schema(spec: ToolSpec) -> dict[str, Any]:
    """The OpenAI function schema of a tool (:func:`tool_schema`), with :data:`PAGE_ARG` added
    to a paged tool's parameters."""
    schema = tool_schema(spec)
    if spec.paging is None:
        return schema
    fn = dict(schema["function"])
    params = dict(fn["parameters"])
    params["properties"] = {**params["properties"], PAGE_ARG: {
        "type": "integer", "minimum": 1,
        "description": "페이지 번호 (1부터; 기본 1) — page to read, 1 first"}}
    fn["parameters"] = params
    return {"type": "function", "function": fn}


class RemotePage(Response):
    """A page a remote tool server answered (an MCP server's ``structuredContent``): the records
    it showed, and the page's ``count`` and ``has_more`` as the server reported them (it may
    show fewer records than the page held)."""

    __slots__ = ("count", "has_more")

    def __init__(self, records: list[dict[str, Any]], total: int | None, count: int,
                 has_more: bool) -> None:
        super().__init__(records=records, total=total)
        self.count = count
        self.has_more = has_more


class _Invalid(Exception):
    pass


def _value(t: FieldType, v: Any, where: str) -> Any:
    if isinstance(t, ListType):
        if not isinstance(v, list):
            raise _Invalid(f"`{where}` must be a list, not {type(v).__name__}")
        return [_value(t.item, x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(t, EnumType):
        if isinstance(v, int | float) and not isinstance(v, bool) and str(v) in t.members:
            return str(v)  # a numeric code written as a number (the wire sends text anyway)
        if v not in t.members:
            raise _Invalid(f"`{where}` must be one of {', '.join(map(repr, t.members))}, "
                           f"not {v!r:.60}")
        return v
    if isinstance(t, CodeType):
        if not isinstance(v, str) or not t.matches(v):
            raise _Invalid(f"`{where}` must be a {t.name} code matching {t.pattern!r}, "
                           f"not {v!r:.60}")
        return v
    kind = t.kind
    if kind == "json":
        return v
    if kind == "str":
        if not isinstance(v, str):
            raise _Invalid(f"`{where}` must be a string, not {type(v).__name__}")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise _Invalid(f"`{where}` must be true or false, not {v!r:.60}")
        return v
    if kind == "int":
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if not isinstance(v, int) or isinstance(v, bool):
            raise _Invalid(f"`{where}` must be an integer, not {v!r:.60}")
        return v
    if kind in ("float", "num"):
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise _Invalid(f"`{where}` must be a number, not {v!r:.60}")
        return v
    if kind == "date":
        try:
            if not isinstance(v, str) or len(v) != 10:
                raise ValueError
            return _dt.date.fromisoformat(v)
        except ValueError:
            raise _Invalid(f"`{where}` must be a date YYYY-MM-DD, not {v!r:.60}") from None
    raise _Invalid(f"`{where}` has a type this toolbox cannot check: {t}")


def validate_arguments(spec: ToolSpec, arguments: Mapping[str, Any]
                       ) -> tuple[dict[str, object], int | None]:
    """The arguments of a call of ``spec`` checked against its parameters and made typed for the
    backend (dates as ``datetime.date``), and the page asked for (None: a tool without paging;
    a paged tool's default is page 1). ValueError with a one-line message when a required
    parameter is missing, a parameter is unknown, or a value does not fit its type."""
    params = {p.name: p for p in spec.params}
    out: dict[str, object] = {}
    page: int | None = 1 if spec.paging is not None else None
    for name, v in arguments.items():
        if name == PAGE_ARG and spec.paging is not None and name not in params:
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"`{PAGE_ARG}` must be an integer ≥ 1, not {v!r:.40}")
            page = v
            continue
        p = params.get(name)
        if p is None:
            known = ", ".join(params) or "none"
            raise ValueError(f"`{spec.qualname}` has no parameter `{name}` (parameters: {known})")
        if v is None and p.optional:
            continue
        try:
            out[name] = _value(type_from_json(p.type), v, name)
        except _Invalid as exc:
            raise ValueError(str(exc)) from None
    missing = [p.name for p in spec.params if not p.optional and p.name not in out]
    if missing:
        raise ValueError(f"`{spec.qualname}` needs {', '.join(f'`{m}`' for m in missing)}")
    return out, page


def _canonical(name: str, arguments: Any) -> bytes:
    return orjson.dumps([name, arguments], option=orjson.OPT_SORT_KEYS)


class _Exposed:
    """The part of a task and a bundle a toolbox reads (``tools``, ``spec``), for
    :meth:`ToolBox.of_specs`."""

    def __init__(self, specs: Mapping[str, ToolSpec]) -> None:
        self.tools = list(specs)
        self._specs = dict(specs)

    def spec(self, qualname: str) -> ToolSpec:
        """The spec of ``qualname``."""
        return self._specs[qualname]


class ToolBox:
    """The tools of one episode of ``task`` on ``backend`` within ``budgets`` (module
    docstring). ``bundle`` supplies the exposed tools' specs. :attr:`calls` lists every call
    made, :attr:`stopped` the end reason a budget or a loop set (None while calls may go on)."""

    def __init__(self, task: BundleTask, backend: Backend, budgets: Budgets | None = None, *,
                 bundle: Bundle) -> None:
        self.task = task
        self.backend = backend
        self.budgets = budgets or Budgets()
        self.specs: dict[str, ToolSpec] = {q: bundle.spec(q) for q in task.tools}
        self.names: dict[str, str] = {tool_name(q): q for q in task.tools}
        self.calls: list[CallRecord] = []
        self.stopped: EndReason | None = None
        self.stop_detail = ""
        self._seen: dict[bytes, int] = {}
        self._t0 = time.perf_counter()
        self.remote: str | None = None

    @classmethod
    def of_specs(cls, specs: Mapping[str, ToolSpec], backend: Backend,
                 budgets: Budgets | None = None) -> ToolBox:
        """A toolbox over the tools ``specs`` (qualified name → spec, exposed in that order)
        without a bundle: the tools an MCP server serves (:mod:`edgedsl.bench.mcp_server`). Its
        :attr:`task` holds only ``tools``."""
        exposed = _Exposed(specs)
        return cls(cast("BundleTask", exposed), backend, budgets, bundle=cast("Bundle", exposed))

    @contextlib.contextmanager
    def forwarded(self, backend: Backend) -> Iterator[None]:
        """Meanwhile, calls are still checked, budgeted and recorded here but executed on
        ``backend`` (a remote tool server: an external MCP server); :attr:`remote` then names
        it for good, since the episode's own backend saw none of its calls (its state is not
        the episode's)."""
        own, self.backend = self.backend, backend
        self.remote = backend.name
        try:
            yield
        finally:
            self.backend = own

    def elapsed(self) -> float:
        """Seconds since the toolbox was made (the episode's clock)."""
        return time.perf_counter() - self._t0

    def schemas(self) -> list[dict[str, Any]]:
        """The exposed tools as OpenAI function schemas, in the task's exposed order (a paged
        tool with :data:`PAGE_ARG`)."""
        return [paged_schema(self.specs[q]) for q in self.task.tools]

    def _ms(self) -> float:
        return round(self.elapsed() * 1000.0, 3)

    def _fail(self, rec: CallRecord, kind: ToolErrorKind, message: str,
              stop: EndReason | None = None, failure: ToolFailure | None = None) -> ToolResult:
        rec.ok = False
        rec.error = ToolError(kind=kind, message=scrub(message),
                              code=failure.code if failure else None,
                              failure=failure.kind if failure else None)
        rec.duration_ms = round(self._ms() - rec.start_ms, 3)
        if stop is not None and self.stopped is None:
            self.stopped, self.stop_detail = stop, rec.error.message
        return ToolResult(ok=False, record=rec, error=rec.error, page=rec.page)

    async def call(self, name: str, arguments: Mapping[str, Any] | str | bytes | None
                   ) -> ToolResult:
        """Execute one call of function ``name`` (``platform__tool``, or ``platform.tool``)
        with ``arguments`` (a JSON object, as a mapping or as JSON text); never raises for the
        agent's mistakes or a tool's failure (module docstring)."""
        qual = self.names.get(name) or (name if name in self.specs else None)
        rec = CallRecord(index=len(self.calls), tool=qual or name, function=name,
                         start_ms=self._ms())
        self.calls.append(rec)
        if isinstance(arguments, str | bytes):
            try:
                arguments = orjson.loads(arguments) if arguments.strip() else {}
            except orjson.JSONDecodeError as exc:
                return self._fail(rec, "malformed_call", f"arguments are not JSON: {exc}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return self._fail(rec, "malformed_call",
                              f"arguments must be a JSON object, not {type(arguments).__name__}")
        # recorded with every live key hidden: a model may paste one into an argument
        rec.arguments = scrub({k: v for k, v in arguments.items() if k != PAGE_ARG})
        if len(self.calls) > self.budgets.calls:
            return self._fail(rec, "call_budget", f"the call budget of {self.budgets.calls} "
                              "calls is used up", stop="call_budget")
        left = self.budgets.seconds - self.elapsed()
        if left <= 0:
            return self._fail(rec, "time_budget", f"the time budget of {self.budgets.seconds:g}"
                              " s is used up", stop="time_budget")
        if qual is None:
            return self._fail(rec, "unknown_tool", f"no tool `{name}` is exposed to this task")
        spec = self.specs[qual]
        rec.write = is_write(spec)
        try:
            args, page = validate_arguments(spec, arguments)
        except ValueError as exc:
            return self._fail(rec, "invalid_arguments", str(exc))
        rec.page = page
        rec.arguments = scrub(jsonable(args))  # as validated: what ACTION matching compares
        key = _canonical(qual, [rec.arguments, page])
        seen = self._seen[key] = self._seen.get(key, 0) + 1
        if seen > self.budgets.repeats:
            return self._fail(rec, "loop", f"`{name}` called {seen} times with the same "
                              "arguments", stop="loop")
        try:
            resp = await asyncio.wait_for(self.backend.call(spec, dict(args), page=page),
                                          timeout=left)
        except TimeoutError:
            return self._fail(rec, "time_budget", f"the time budget of {self.budgets.seconds:g}"
                              " s ran out during the call", stop="time_budget")
        except Exception as exc:
            f = classify(spec, exc)
            return self._fail(rec, "tool_failure", f.message, failure=f)
        records = [jsonable(r) for r in resp.records]
        n = len(records)
        size = spec.paging.size_limit if spec.paging is not None and spec.paging.size else None
        total = resp.total if isinstance(resp.total, int) else None
        has_more = False
        if isinstance(resp, RemotePage):
            n, has_more = resp.count, resp.has_more
        elif page is not None:
            before = (page - 1) * size if size else 0
            has_more = n > 0 and (before + n < total if total is not None
                                  else size is not None and n >= size)
        rec.records = records[:self.budgets.records_shown]
        rec.count, rec.total, rec.has_more = n, total, has_more
        rec.duration_ms = round(self._ms() - rec.start_ms, 3)
        return ToolResult(ok=True, record=rec, records=records, count=n, total=total,
                          has_more=has_more, page=page, response=resp)


class ToolBoxBackend:
    """A :class:`~edgedsl.runtime.backends.Backend` whose every call goes through a toolbox, so
    that a compiled program runs on the same tool interface as a model. A failed call is raised
    as a :class:`~edgedsl.runtime.backends.ToolFailure` (the backend's own for a tool failure;
    structural ``R503`` for the toolbox's refusals)."""

    def __init__(self, toolbox: ToolBox) -> None:
        self.toolbox = toolbox
        self.name = toolbox.backend.name

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """One call of ``tool`` through the toolbox (arguments as JSON, the page as
        :data:`PAGE_ARG`)."""
        arguments: dict[str, Any] = jsonable(args)
        if page is not None:
            arguments[PAGE_ARG] = page
        res = await self.toolbox.call(tool_name(tool.qualname), arguments)
        if res.ok and res.response is not None:
            return res.response
        err = res.error
        assert err is not None
        if err.kind == "tool_failure" and err.failure in ("structural", "environmental"):
            raise ToolFailure(err.failure, err.code or "R503", err.message)
        raise ToolFailure("structural", "R503", f"{err.kind}: {err.message}")

