"""Sub-part spans (``nodes.PART``): the builder keeps the span of every name a diagnostic can
point at, taken from its token, so the checker never looks for a name inside a node's text.

- on every shipped ``.edge`` file and on generated programs, each sub-part span covers exactly
  the text of the name it belongs to;
- the spans stay out of equality and out of the JSON of ``edgedsl parse``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from ast_strategies import modules
from hypothesis import given, settings

from edgedsl.diagnostics import CompileError
from edgedsl.dump import to_jsonable
from edgedsl.source import NO_SPAN, Source, Span
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.printer import format_module

ROOT = Path(__file__).resolve().parent.parent


def _expected(node: Any, name: str) -> str | tuple[str, ...]:
    """The text a sub-part span of ``node`` must cover."""
    if name == "name_spans":
        return tuple(node.names)
    return {
        "name_span": lambda: node.name,
        "field_span": lambda: node.parts[-1] if isinstance(node, n.Ref) else node.field,
        "platform_span": lambda: node.platform,
        "tool_span": lambda: node.tool,
        "pages_span": lambda: "pages",
        "paged_span": lambda: "paged",
        "source_span": lambda: ".".join(node.source),
        "param_span": lambda: node.param,
        "returns_span": lambda: node.returns,
        "key_span": lambda: node.key,
    }[name]()


def _text(src: Source, span: Span) -> str:
    return "".join(src.text[span.start:span.end].split())  # `g . b` is `g.b`


def _check(value: Any, src: Source, seen: set[str]) -> None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.metadata.get(n.PART):
                seen.add(f"{type(value).__name__}.{f.name}")
                want = _expected(value, f.name)
                if isinstance(want, tuple):
                    assert tuple(_text(src, s) for s in v) == want
                elif v != NO_SPAN:
                    assert _text(src, v) == want, (type(value).__name__, f.name)
                else:  # only the optional keywords are absent
                    assert f.name in ("pages_span", "paged_span")
            else:
                _check(v, src, seen)
    elif isinstance(value, tuple | list):
        for v in value:
            _check(v, src, seen)


def _texts() -> list[Path]:
    return sorted([*ROOT.glob("examples/**/*.edge"), *ROOT.glob("stdlib/**/*.edge"),
                   *ROOT.glob("tests/**/*.edge")])


_SEEN: set[str] = set()


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_part_spans_of_shipped_files(path: Path) -> None:
    src = Source(str(path), path.read_bytes().decode("utf-8", errors="replace"))
    try:
        module = parse_module(src)
    except CompileError:  # files written to fail are checked elsewhere
        return
    _check(module, src, _SEEN)
    data = repr(to_jsonable(module))
    assert "_span" not in data and "name_spans" not in data


def test_every_part_kind_is_exercised() -> None:
    """Each sub-part span of the AST occurs in the shipped files (so the test above checks it)."""
    for path in _texts():
        src = Source(str(path), path.read_bytes().decode("utf-8", errors="replace"))
        try:
            _check(parse_module(src), src, _SEEN)
        except CompileError:
            continue
    kinds = {f"{cls.__name__}.{f.name}" for cls in vars(n).values()
             if isinstance(cls, type) and dataclasses.is_dataclass(cls)
             for f in dataclasses.fields(cls) if f.metadata.get(n.PART)}
    assert kinds <= _SEEN, sorted(kinds - _SEEN)


@settings(max_examples=100, deadline=None)
@given(modules.map(format_module))
def test_part_spans_of_generated_programs(text: str) -> None:
    src = Source("gen.edge", text)
    _check(parse_module(src), src, set())


def test_parts_are_not_structure() -> None:
    a = parse_module('trajectory t "q" { x = p.t(a: 1) answer x.f }')
    b = parse_module('trajectory t "q" {\n  x   =  p . t ( a : 1 )\n  answer x . f\n}')
    assert a == b
