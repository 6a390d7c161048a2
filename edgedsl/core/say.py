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

jinja2 parses a template, generates Python from it and compiles that by recursion, one level of
Python's stack (and of the generated code's indentation) per level of the template. A template
nested deeper than :data:`MAX_TEMPLATE_DEPTH` is refused before jinja2 parses it, by both
:func:`parse_say` and :func:`render_say` (:class:`SayTooDeepError`; the checker's ``E310``).
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
from jinja2 import StrictUndefined, TemplateSyntaxError, pass_context
from jinja2.sandbox import SandboxedEnvironment

from .saytext import FILTERS, say_text

__all__ = [
    "MAX_TEMPLATE_DEPTH",
    "SAY_MAX_CHARS",
    "SAY_MAX_MEMORY",
    "SAY_SECONDS",
    "SayLimitError",
    "SayTooDeepError",
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

MAX_TEMPLATE_DEPTH = 32
"""How deeply a ``say`` template may nest: open blocks (``{% if %}``, ``{% with %}`` … count
one, ``{% for %}`` two) plus, inside one tag, brackets and operators (``(``, ``.``, ``|``,
``+``, ``not``, ``if`` … each counts one).
jinja2 takes up to ~25 frames of Python's stack per level, so a template at the limit compiles
with most of the stack left to its caller."""


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


_ENV = _SayEnvironment(undefined=StrictUndefined, autoescape=False, finalize=say_text)
_ENV.filters = {name: _guarded(name, fn) for name, fn in {**_ENV.filters, **FILTERS}.items()}


class SayTooDeepError(TemplateSyntaxError):
    """A ``say`` template nested deeper than :data:`MAX_TEMPLATE_DEPTH` (``lineno`` is the
    line of the template where it goes too deep)."""


_OPEN = frozenset({"lparen", "lbracket", "lbrace"})
_CLOSE = frozenset({"rparen", "rbracket", "rbrace"})
_SEPARATORS = frozenset({"comma", "colon", "assign", "semicolon"})
_OPERANDS = frozenset({"string", "integer", "float"})
_KEYWORD_OPS = frozenset({"not", "and", "or", "in", "is", "if"})  # `else` is part of `if`
_BLOCKS = frozenset({"if", "for", "macro", "call", "filter", "with", "block", "autoescape"})
_LOOP_LEVELS = 2
"""Levels a ``{% for %}`` counts: it compiles to a Python loop, and Python allows 20 loops
(and ``try``/``with``) nested in one function; ``{% include %}`` adds two more."""


class _Level:
    """One bracket level of a tag: the operators and the deepest bracket of the current item
    (between separators), and the deepest item before it."""

    __slots__ = ("best", "inner", "ops")

    def __init__(self) -> None:
        self.best = self.inner = self.ops = 0

    def item(self) -> int:
        """The deepest item so far, counting the current one."""
        return max(self.best, self.ops + self.inner)


def check_depth(text: str) -> None:
    """Raise :class:`SayTooDeepError` when the template ``text`` nests deeper than
    :data:`MAX_TEMPLATE_DEPTH`; ``TemplateSyntaxError`` when it does not lex.

    Read from jinja2's token stream, without recursion. Inside one tag an item (between commas)
    whose syntax tree is ``k`` operators over brackets at most ``d`` deep is at most ``k + d``
    deep, a bracket one more than its deepest item; a tag adds this to the number of blocks open
    around it (a block's own tag counts its block). This bounds the depth of jinja2's syntax
    tree from above."""
    blocks = 0  # the levels of the blocks open here: sum(opened)
    opened: list[int] = []
    levels: list[_Level] = []  # inside a tag: its open brackets, the tag itself first
    keyword = False  # the next name is the statement's (`if`, `for`, `endif` …)
    statement = ""  # the statement of this block tag
    assigns = False  # this tag assigns at its top level (`{% set x = … %}` opens no block)
    target = False  # in a `for` tag, before its `in`
    for token in _ENV.lexer.tokenize(text):
        kind = token.type
        if kind in ("variable_begin", "block_begin"):
            levels = [_Level()]
            keyword, statement, assigns, target = kind == "block_begin", "", False, False
        elif kind in ("variable_end", "block_end"):
            if blocks + levels[0].item() > MAX_TEMPLATE_DEPTH:
                _too_deep(token.lineno)
            if statement == "set" and assigns:
                blocks -= opened.pop()
            levels = []
        elif kind == "name" and keyword:
            keyword, statement = False, token.value
            target = statement == "for"
            if statement in _BLOCKS or statement == "set":  # a block's tag is inside it
                opened.append(_LOOP_LEVELS if statement == "for" else 1)
                blocks += opened[-1]
            elif statement.startswith("end") and opened:
                blocks -= opened.pop()
        elif kind in _OPEN:
            levels.append(_Level())
            if blocks + len(levels) - 1 > MAX_TEMPLATE_DEPTH:
                _too_deep(token.lineno)
        elif kind in _CLOSE:
            inner = levels.pop()
            top = levels[-1]
            top.inner = max(top.inner, 1 + inner.item())
        elif kind in _SEPARATORS or (target and kind == "name" and token.value == "in"):
            # `{% for x, y in xs %}`: the first `in` separates the names from the sequence
            target = target and kind == "name"
            top = levels[-1]
            top.best = top.item()
            top.ops = top.inner = 0
            assigns = assigns or (kind == "assign" and len(levels) == 1)
        elif levels and ((kind not in _OPERANDS and kind != "name")
                         or (kind == "name" and token.value in _KEYWORD_OPS)):
            top = levels[-1]
            top.ops += 1  # an operator; the tag is at least this deep already
            if blocks + len(levels) - 1 + top.ops > MAX_TEMPLATE_DEPTH:
                _too_deep(token.lineno)


def _too_deep(lineno: int) -> None:
    raise SayTooDeepError(
        f"nested more than {MAX_TEMPLATE_DEPTH} levels deep (blocks, brackets and operators)",
        lineno,
    )


def parse_say(text: str) -> jinja2.nodes.Template:
    """The template's jinja2 syntax tree (nothing of it runs); :class:`SayTooDeepError` when it
    nests too deeply, ``TemplateSyntaxError`` when it does not parse.
    :func:`jinja2.meta.find_undeclared_variables` reads the names it uses."""
    check_depth(text)
    return _ENV.parse(text)


@functools.lru_cache(maxsize=256)
def _template(text: str) -> Any:
    """A ``say`` template, compiled once per text (compiling costs ~5 ms; a compiled template
    renders from a context only, so runs share it). A template that does not compile raises
    its error on every call (errors are not cached); a template nested too deeply raises
    :class:`SayTooDeepError` before jinja2 parses it."""
    check_depth(text)
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
