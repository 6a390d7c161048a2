"""The python backend: tools that are Python callables (a ``TOOLS`` mapping, or a file defining
one), called in a worker thread under a per-call timeout, their results checked as the HTTP
backends' are. Registered as ``python`` on first use of :func:`~.backends.make_backend`."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..plan.model import ToolSpec
from . import interrupt
from .redact import Redactor, remember, scrub

if TYPE_CHECKING:
    pass
from .backends import (
    Response,
    ToolFailure,
    classify_raised,
    json_problem,
    load_python_tools,
    parse_result,
    register_backend,
)

__all__ = [
    "DEFAULT_PYTHON_TIMEOUT",
    "PythonBackend",
]


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


register_backend("python", _python_factory)


