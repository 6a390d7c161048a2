"""Sub-part offsets (``nodes.PART``): the builder keeps where every name a diagnostic can point
at starts, taken from its token, so the checker never looks for a name inside a node's text;
and where an ``if``'s blocks start and end, for attaching comments (no side table).

- on every shipped ``.edge`` file and on generated programs, each sub-part offset points at exactly
  the text of the name it belongs to;
- the offsets stay out of equality and out of the JSON of ``edgedsl parse``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from edgedsl.cli.dump import to_jsonable
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.printer import format_module, format_string
from tests.ast_strategies import modules
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]


def _expected(node: Any, name: str) -> str | tuple[str, ...]:
    """The text a sub-part offset of ``node`` must point at."""
    if isinstance(node, n.UseDecl):
        return tuple(node.names)
    return {
        "name_at": lambda: node.name,
        "field_at": lambda: node.field,
        "platform_at": lambda: node.platform,
        "tool_at": lambda: node.tool,
        "pages_at": lambda: "pages",
        "paged_at": lambda: "paged",
        "source_at": lambda: ".".join(node.source),
        "param_at": lambda: node.param,
        "returns_at": lambda: node.returns,
        "key_at": lambda: node.key,
        "label_at": lambda: format_string(node.label),  # the label's string, quotes included
        "unit_at": lambda: format_string(node.unit),
    }[name]()


def _check(value: Any, src: Source, seen: set[str]) -> None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if not f.metadata.get(n.PART):
                _check(v, src, seen)
                continue
            seen.add(f"{type(value).__name__}.{f.name}")
            if f.name in ("source_end", "then_end", "else_end"):
                continue
            if f.name in ("then_at", "else_at"):  # a block's extent: `{` … `}`
                end = getattr(value, f.name.replace("_at", "_end"))
                if v >= 0:
                    assert (src.text[v], src.text[end - 1]) == ("{", "}")
                    assert value.span.start < v < end <= value.span.end
                else:  # no `else`, or `else if`
                    assert f.name == "else_at" and end == -1
                    assert value.orelse is None or isinstance(value.orelse[0], n.IfStmt)
                continue
            want = _expected(value, f.name)
            if isinstance(want, tuple):
                assert tuple(src.text[a:a + len(w)] for a, w in zip(v, want, strict=True)) == want
            elif f.name == "source_at":  # `g . b` is `g.b`
                assert "".join(src.text[v:value.source_end].split()) == want
            elif v >= 0:
                assert src.text[v:v + len(want)] == want, (type(value).__name__, f.name)
                assert v >= value.span.start and v + len(want) <= value.span.end
            else:  # only the optional keywords are absent
                assert f.name in ("pages_at", "paged_at", "label_at", "unit_at")
    elif isinstance(value, tuple | list):
        for v in value:
            _check(v, src, seen)


def _texts() -> list[Path]:
    return sorted([*ROOT.glob("examples/**/*.edge"), *ROOT.glob("stdlib/**/*.edge"),
                   *ROOT.glob("tests/**/*.edge")])


_SEEN: set[str] = set()
_PART_NAMES = {f.name for cls in vars(n).values() if isinstance(cls, type)
               and dataclasses.is_dataclass(cls)
               for f in dataclasses.fields(cls) if f.metadata.get(n.PART)}


def _keys(data: Any) -> set[str]:
    """Every key of the ``_node`` objects in the JSON of an AST."""
    if isinstance(data, dict):
        own = set(data) if "_node" in data else set()
        return own.union(*(_keys(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(_keys(v) for v in data))
    return set()


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_part_spans_of_shipped_files(path: Path) -> None:
    src = Source(str(path), path.read_bytes().decode("utf-8", errors="replace"))
    try:
        module = parse_module(src)
    except CompileError:  # files written to fail are checked elsewhere
        return
    _check(module, src, _SEEN)
    assert not _keys(to_jsonable(module)) & _PART_NAMES


def test_every_part_kind_is_exercised() -> None:
    """Each sub-part offset of the AST occurs in the shipped files (so the test above checks it)."""
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


@settings(max_examples=examples(100), deadline=None)
@given(modules.map(format_module))
def test_part_spans_of_generated_programs(text: str) -> None:
    src = Source("gen.edge", text)
    _check(parse_module(src), src, set())


def test_parts_are_not_structure() -> None:
    a = parse_module('trajectory t "q" { x = p.t(a: 1) answer x.f }')
    b = parse_module('trajectory t "q" {\n  x   =  p . t ( a : 1 )\n  answer x . f\n}')
    assert a == b
