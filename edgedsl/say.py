"""The ``say`` template: one sandboxed jinja2 environment, which the checker parses templates
with and the runtime renders them with, within limits of time, size and memory.

A trajectory's ``say "…"`` is a jinja2 template over its answer (LANGUAGE.md §6). The sandbox
keeps it from reaching Python (no attributes beginning with ``_``, no unsafe callables) and
jinja2 caps one ``range`` at 100,000 items; but a template is still a program, and two nested
loops, a string multiplied by a large number or a power of a power run for as long as they
like. jinja2 also computes constant parts of a template when it compiles it (``{{ 10 ** 10 **
10 }}``, ``{{ "x"|center(10 ** 9) }}``): this environment computes none — its operators are
intercepted and its filters take the context, which jinja2 never folds — so parsing a template
(:func:`parse_say`, the checker) runs nothing of it. :func:`render_say` bounds a rendering:

* **time** — :data:`SAY_SECONDS` of running template code, checked by a trace function on the
  rendering thread (jinja2 compiles a template to Python, so every loop iteration is seen);
* **size** — :data:`SAY_MAX_CHARS` characters of output, counted as the template streams it;
  ``*``, ``**``, ``+`` and ``%``, and the filters that widen a text (``center``, ``indent``,
  ``replace``, ``format``), check the size of their result before computing it;
* **memory** — :data:`SAY_MAX_MEMORY` bytes of resident memory gained while rendering (read
  from ``/proc/self/statm`` where there is one), so a template that doubles a text in a loop
  stops when it has grown, not when the machine runs out.

Exceeding a limit raises :class:`SayLimitError`; the executor reports it as R508 like any other
failure of the template.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

import jinja2.nodes
from jinja2 import StrictUndefined, pass_context
from jinja2.sandbox import SandboxedEnvironment

__all__ = [
    "SAY_MAX_CHARS",
    "SAY_MAX_MEMORY",
    "SAY_SECONDS",
    "SayLimitError",
    "parse_say",
    "render_say",
]

SAY_SECONDS = 2.0
"""Seconds of template code one rendering may run."""

SAY_MAX_CHARS = 100_000
"""Characters one rendering may produce (and the longest text or list an operator may make)."""

SAY_MAX_MEMORY = 256 << 20
"""Bytes of resident memory one rendering may add."""

_MAX_POWER_BITS = 100_000
"""The largest integer (in bits) ``**`` may compute."""

_CHECK_EVERY = 256
"""Trace events between two looks at the clock and the memory."""


class SayLimitError(Exception):
    """A ``say`` rendering went past one of its limits (module docstring)."""


class _SayEnvironment(SandboxedEnvironment):
    """The sandbox, with ``*``, ``**``, ``+`` and ``%`` refusing results beyond the size limit
    (and, being intercepted, never computed when a template is compiled)."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """Compute ``left operator right`` when its result stays within the limits."""
        if operator == "**" and isinstance(left, int) and isinstance(right, int) \
                and abs(left) > 1 and right > 0 \
                and left.bit_length() * right > _MAX_POWER_BITS:
            raise SayLimitError(f"`{_short(left)} ** {_short(right)}` would be an integer of "
                                f"more than {_MAX_POWER_BITS:,} bits")
        if operator == "*":
            seq, n = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(seq, str | list | tuple) and isinstance(n, int) \
                    and len(seq) * n > SAY_MAX_CHARS:
                raise SayLimitError(f"repeating {_sized(seq)} {n:,} times would make more "
                                    f"than {SAY_MAX_CHARS:,}")
        if operator == "+" and isinstance(left, str | list | tuple) \
                and isinstance(right, str | list | tuple) \
                and len(left) + len(right) > SAY_MAX_CHARS:
            raise SayLimitError(f"joining {_sized(left)} and {_sized(right)} would make more "
                                f"than {SAY_MAX_CHARS:,}")
        if operator == "%" and isinstance(left, str):
            _check_format(left)
        return super().call_binop(context, operator, left, right)


_WIDE_FORMAT = re.compile(r"%[-+ #0]*(?:[0-9]{7,}|[0-9]*\.[0-9]{7,})|\{[^{}]*[0-9]{7,}[^{}]*\}")


def _check_format(template: str) -> None:
    """Refuse a ``%`` or ``format`` template asking for a field wider than the limit."""
    if _WIDE_FORMAT.search(template):
        raise SayLimitError(f"a format field wider than {SAY_MAX_CHARS:,} characters")


def _check_filter(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a filter call whose result would be wider than the limit, before it runs (one C
    call, which the time limit cannot interrupt)."""
    if name in ("center", "indent"):
        widths = [a for a in (*args, *kwargs.values()) if isinstance(a, int)
                  and not isinstance(a, bool)]
        lines = str(value).count("\n") + 1 if name == "indent" else 1
        if any(w * lines > SAY_MAX_CHARS for w in widths):
            raise SayLimitError(f"`{name}` wider than {SAY_MAX_CHARS:,} characters")
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        hits = len(str(value)) + 1 if old == "" else str(value).count(old)
        if hits * len(new) > SAY_MAX_CHARS:
            raise SayLimitError(f"`replace` would make more than {SAY_MAX_CHARS:,} characters")
    elif name == "format":
        _check_format(str(value))


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a filter that takes the context: jinja2 never computes such a filter when it
    compiles a template, and every call is checked by :func:`_check_filter` first. The
    filter's own wish for the context, evaluation context or environment (jinja2's
    ``jinja_pass_arg`` mark) is kept."""
    wants = getattr(getattr(fn, "jinja_pass_arg", None), "name", None)

    @pass_context
    def guarded(context: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        _check_filter(name, value, args, kwargs)
        if wants == "context":
            return fn(context, value, *args, **kwargs)
        if wants == "eval_context":
            return fn(context.eval_ctx, value, *args, **kwargs)
        if wants == "environment":
            return fn(context.environment, value, *args, **kwargs)
        return fn(value, *args, **kwargs)

    return guarded


def _sized(v: str | list[Any] | tuple[Any, ...]) -> str:
    unit = "character" if isinstance(v, str) else "item"
    return f"a {'text' if isinstance(v, str) else 'list'} of {len(v):,} {unit}" \
        + ("" if len(v) == 1 else "s")


def _short(n: int) -> str:
    text = str(n) if n.bit_length() < 200 else f"<{n.bit_length()}-bit integer>"
    return text if len(text) <= 24 else text[:21] + "..."


_ENV = _SayEnvironment(undefined=StrictUndefined, autoescape=False)
_ENV.filters = {name: _guarded(name, fn) for name, fn in _ENV.filters.items()}


def parse_say(text: str) -> jinja2.nodes.Template:
    """The template's jinja2 syntax tree (nothing of it runs); ``TemplateSyntaxError`` when it
    does not parse. :func:`jinja2.meta.find_undeclared_variables` reads the names it uses."""
    return _ENV.parse(text)


@functools.lru_cache(maxsize=256)
def _template(text: str) -> Any:
    """A ``say`` template, compiled once per text (compiling costs ~5 ms; a compiled template
    renders from a context only, so runs share it). A template that does not compile raises
    its error on every call (errors are not cached)."""
    return _ENV.from_string(text)


def _resident() -> int | None:
    """This process's resident memory in bytes (None where ``/proc`` does not tell)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class _Budget:
    """The trace function that holds a rendering to its time and memory."""

    __slots__ = ("deadline", "events", "memory_cap", "seconds")

    def __init__(self, seconds: float, memory: int) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        start = _resident()
        self.memory_cap = None if start is None else start + memory
        self.events = 0

    def check(self) -> None:
        """Raise :class:`SayLimitError` when the rendering is past its time or memory."""
        if time.monotonic() > self.deadline:
            raise SayLimitError(f"rendering ran past {self.seconds:g} s")
        if self.memory_cap is not None:
            now = _resident()
            if now is not None and now > self.memory_cap:
                raise SayLimitError(f"rendering took more than {SAY_MAX_MEMORY >> 20} MiB")

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        self.events += 1
        if self.events % _CHECK_EVERY == 0:
            self.check()
        return self


def render_say(text: str, context: Mapping[str, Any], *, seconds: float = SAY_SECONDS,
               max_chars: int = SAY_MAX_CHARS, memory: int = SAY_MAX_MEMORY) -> str:
    """Render the ``say`` template ``text`` over ``context`` within the limits (module
    docstring); :class:`SayLimitError` when it goes past one, the template's own error when it
    fails."""
    template = _template(text)
    budget = _Budget(seconds, memory)
    out: list[str] = []
    size = 0
    previous = sys.gettrace()
    sys.settrace(budget)
    try:
        for chunk in template.generate(dict(context)):
            size += len(chunk)
            if size > max_chars:
                raise SayLimitError(f"the reply would be longer than {max_chars:,} characters")
            out.append(chunk)
            budget.events += 1
            if budget.events % _CHECK_EVERY == 0:
                budget.check()
    finally:
        sys.settrace(previous)
    return "".join(out)
