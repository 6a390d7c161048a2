"""Source files and spans.

A :class:`Source` is one text with a name (usually its path); a :class:`Span` is a half-open
byte range in one source together with 1-based line and column numbers of both ends. Spans are
carried by every AST node, IR node, plan step and diagnostic, and never take part in equality.

Every reader of a source file (the commands, ``fmt``, a ``use``d module, the diagnostic
renderer) decodes it with :func:`decode_source`: UTF-8, a byte-order mark at its start dropped
(so spans count from the first character after it), anything else not UTF-8 an error.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

_C = TypeVar("_C", bound=type)


def _unfrozen_twin(cls: type) -> type:
    """A class with the memory layout of ``cls`` (same base, same slots) but ``object``'s own
    ``__init__``, ``__setattr__`` and ``__delattr__``: an instance of it takes plain attribute
    stores, and then becomes a ``cls`` by ``__class__`` assignment, which CPython allows
    between classes of the same layout. Never seen outside :func:`maker`'s functions."""
    return type(cls.__name__, cls.__bases__, {
        "__slots__": cls.__dict__["__slots__"],
        "__init__": object.__init__,
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.<unfrozen>",
    })


def fast_frozen_init(cls: _C) -> _C:
    """Give a frozen, slotted dataclass a faster ``__init__`` with the same signature, and a
    faster constructor function (:func:`maker`).

    The ``__init__`` that ``dataclasses`` writes for a frozen class stores each field with
    ``object.__setattr__``; this one stores it through the field's slot descriptor, which is
    several times faster (AST, IR and span objects are made by the thousand per compile).
    The constructor function goes further: it makes an instance of an unfrozen twin of the
    class (:func:`_unfrozen_twin`), stores each field as a plain attribute, and turns the object
    into the class by assigning ``__class__``. Under callgrind a five-field node costs 2.5 k
    instructions that way against 5.1 k through the slot descriptors (each a method-wrapper call
    with its argument tuple, ~650 instructions a field) and 11 k through ``type.__call__`` and
    the ``__init__`` of ``dataclasses``.
    Parameters, defaults (factories called as ``dataclasses`` calls them), keyword-only markers
    and the resulting object are the same; classes with ``__post_init__`` or with init-only or
    ``init=False`` fields are left as they are.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        return cls
    if hasattr(cls, "__post_init__"):
        return cls
    all_fields = cls.__dict__["__dataclass_fields__"]
    fields = dataclasses.fields(cls)
    if len(fields) != len(all_fields) or any(not f.init for f in fields):
        return cls
    # the marker of a factory default, as dataclasses' own __init__ has it (shown as <factory>)
    env: dict[str, Any] = {"_MISSING": getattr(dataclasses, "_HAS_DEFAULT_FACTORY",
                                               dataclasses.MISSING)}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    stores: list[str] = []
    for i, f in enumerate(fields):
        # the slot of an inherited field is its base class's
        slot = next(k.__dict__[f.name] for k in cls.__mro__ if f.name in k.__dict__)
        env[f"_set{i}"] = slot.__set__
        param = f.name
        value = f.name
        if f.default is not dataclasses.MISSING:
            env[f"_default{i}"] = f.default
            param += f"=_default{i}"
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_factory{i}"] = f.default_factory
            param += "=_MISSING"
            value = f"_factory{i}() if {f.name} is _MISSING else {f.name}"
        (keyword if f.kw_only else positional).append(param)
        body.append(f"    _set{i}(self, {value})")
        stores.append(f"    self.{f.name} = {value}")
    sig = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    code = f"def __init__({sig}) -> None:\n" + ("\n".join(body) or "    pass") + "\n"
    twin: type | None = _unfrozen_twin(cls)
    try:  # the layouts agree (no __dict__, no __weakref__ on one side only)
        probe = twin()  # type: ignore[misc]
        probe.__class__ = cls
    except TypeError:  # pragma: no cover - every slotted dataclass of ours is compatible
        twin = None
    env["_twin"], env["_new"], env["_cls"] = twin, object.__new__, cls
    make = f"def _make({sig.removeprefix('self').removeprefix(', ')}):\n"
    if twin is None:
        make += "    self = _new(_cls)\n" + "".join(f"{line}\n" for line in body)
    else:
        make += ("    self = _twin()\n" + "".join(f"{line}\n" for line in stores)
                 + "    self.__class__ = _cls\n")
    make += "    return self\n"
    exec(code, env)  # field names and indices only
    exec(make, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    original = cls.__dict__["__init__"]
    init.__doc__ = original.__doc__
    init.__annotations__ = dict(original.__annotations__)
    cls.__init__ = init  # type: ignore[misc]
    make_fn = env["_make"]
    make_fn.__qualname__ = f"{cls.__qualname__}._make"
    make_fn.__module__ = cls.__module__
    make_fn.__annotations__ = {**init.__annotations__, "return": cls.__name__}
    _MAKERS[cls] = make_fn
    return cls


_MAKERS: dict[type, Any] = {}
_T = TypeVar("_T")


def maker(cls: type[_T]) -> type[_T]:
    """A constructor of ``cls`` (a class given :func:`fast_frozen_init`) that is a plain
    function: the same parameters and object, without ``type.__call__``, which turns keyword
    arguments into a dict and back on the way to ``__init__`` (a third of the cost of making a
    small node). Typed as the class so calls are checked against its fields; use it to make
    instances only (not in ``isinstance``). The class itself when it has no fast ``__init__``."""
    return _MAKERS.get(cls, cls)


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a named source: offsets ``start``..``end`` and their line/column (1-based)."""

    file: str
    start: int
    end: int
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "file": self.file,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
        }


fast_frozen_init(Span)


_SpanSlots: Any = type("_SpanSlots", (), {"__slots__": Span.__slots__})
"""The slots of a :class:`Span` without its frozen ``__setattr__``: :meth:`Source.span` fills one
in with plain attribute stores and then makes it a ``Span`` (``__class__`` assignment between
classes of the same layout), several times faster than storing each field through its
descriptor. Spans are made for every AST node."""

NO_SPAN = Span("<none>", 0, 0, 0, 0, 0, 0)

UTF8_BOM = b"\xef\xbb\xbf"


def decode_source(data: bytes, errors: str = "strict") -> str:
    """The text of a source file's bytes: UTF-8 without the byte-order mark it may start with
    (one; a second is text). UnicodeDecodeError when it is not UTF-8 (``errors="strict"``),
    whose ``object`` is the bytes after the mark and ``start`` the offset of the first bad
    byte in them."""
    return data.decode("utf-8-sig", errors)


def universal_newlines(text: str) -> str:
    """``text`` with ``\\r\\n`` and ``\\r`` read as ``\\n``, as Python's text files do."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@dataclass(frozen=True)
class Source:
    """A named text being compiled, with a line index for span lookups."""

    name: str
    text: str
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        text = self.text
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        object.__setattr__(self, "_line_starts", starts)

    @classmethod
    def from_path(cls, path: str | Path) -> Source:
        """Read a UTF-8 file (:func:`decode_source`; ``\\r\\n`` and ``\\r`` read as
        ``\\n``) into a Source named after its path; UnicodeDecodeError when it is not UTF-8."""
        p = Path(path)
        return cls(str(p), universal_newlines(decode_source(p.read_bytes())))

    @classmethod
    def for_display(cls, path: str | Path) -> Source:
        """:meth:`from_path` for quoting a file's lines in a diagnostic: bytes that are not
        UTF-8 read as U+FFFD."""
        p = Path(path)
        return cls(str(p), universal_newlines(decode_source(p.read_bytes(), errors="replace")))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        offset = max(0, min(offset, len(self.text)))
        i = bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def span(self, start: int, end: int) -> Span:
        """A Span over ``start``..``end`` of this source."""
        starts = self._line_starts
        if 0 <= start <= end <= len(self.text):  # the usual case: nothing to clamp
            a, b = start, end
            i = bisect_right(starts, a) - 1
            j = i if b == a else bisect_right(starts, b, i) - 1
        else:
            size = len(self.text)
            a = 0 if start < 0 else size if start > size else start
            b = 0 if end < 0 else size if end > size else end
            i = bisect_right(starts, a) - 1
            j = i if b == a else bisect_right(starts, b, i if b > a else 0) - 1
        # Span(self.name, start, end, i + 1, …) without the call of its __init__ (see _SpanSlots)
        span = _SpanSlots()
        span.file = self.name
        span.start = start
        span.end = end
        span.line = i + 1
        span.col = a - starts[i] + 1
        span.end_line = j + 1
        span.end_col = b - starts[j] + 1
        span.__class__ = Span
        return span

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def line_count(self) -> int:
        """Number of lines in the text."""
        return len(self._line_starts)
