"""The direct builder (no lark tree) agrees with the tree path, spans and comments included.

``parse_module`` runs the AST builder inside the LALR parser; ``build(parse(text))`` walks a
lark tree with ``propagate_positions``. Both must give the same AST with the same spans (spans
take no part in ``==``, so they are compared explicitly), the same diagnostics, and ``E011``
for the same pathological nesting.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source, Span
from edgedsl.syntax.build import build, parse_module
from edgedsl.syntax.parser import MAX_DEPTH, parse, rule_names
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]


def _spanned(value: Any) -> Any:
    """A structural view of an AST with every span spelt out (offsets and line/columns)."""
    if isinstance(value, Span):
        return ("span", value.file, value.start, value.end, value.line, value.col,
                value.end_line, value.end_col)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__name__,
                tuple((f.name, _spanned(getattr(value, f.name))) for f in fields))
    if isinstance(value, tuple | list):
        return tuple(_spanned(v) for v in value)
    return value


def _outcome(fn: Any, src: Source) -> Any:
    try:
        return ("ok", _spanned(fn(src)))
    except CompileError as err:
        return ("error", err.stage, tuple(
            (d.code, d.message, tuple(_spanned(lb.span) for lb in d.labels), d.hints)
            for d in err.diagnostics))


def _both(text: str) -> tuple[Any, Any]:
    src = Source("t.edge", text)
    return _outcome(parse_module, src), _outcome(lambda s: build(parse(s)), src)


def _texts() -> list[Path]:
    return sorted([
        *ROOT.glob("examples/**/*.edge"),
        *ROOT.glob("stdlib/**/*.edge"),
        *ROOT.glob("tests/**/*.edge"),
    ])


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_direct_builder_matches_tree_builder(path: Path) -> None:
    direct, tree = _both(path.read_bytes().decode("utf-8", errors="replace"))
    assert direct == tree


_PIECES = [
    "use a\n", "# c\n", 'trajectory t "q" {\n', "}\n", "x = p.t(a: 1, b: seq y.f) # t\n",
    "y = drv x | max f | where g >= -2\n", "if exists(x) {\n", "} else {\n",
    "answer (x.f + 1) * 2\n",
    'say "{{ answer }}"\n', "z = parallel (k: 1) { m = p.u(k: k)\n }\n", "(", ")", ",",
    'platform p "d" {\n', "tool t (a: int?, b: [str]) -> [R] paged(page: n)\n",
    "record R { f: enum[A, \"b\"], g: date }\n", "type C = code /^[0-9]+$/\n",
    "answer { a: count(x) }\n",
    'c = compare p.t() over a in [1, 2]\n', '"\\ud800"', "1e999", "2024-02-30",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=25))
def test_direct_builder_matches_on_random_texts(pieces: list[str]) -> None:
    direct, tree = _both("".join(pieces))
    assert direct == tree


@pytest.mark.parametrize("depth", [MAX_DEPTH // 4, MAX_DEPTH + 5, 3 * MAX_DEPTH])
def test_nesting_limit_is_the_same(depth: int) -> None:
    text = 'trajectory t "q" { if ' + "not " * depth + "exists(a) { } }"
    direct, tree = _both(text)
    assert direct[0] == tree[0]
    assert (direct[0] == "error") == (depth > MAX_DEPTH)
    if direct[0] == "error":
        assert direct[2][0][0] == tree[2][0][0] == "E011"


def test_every_builder_rule_is_a_grammar_rule() -> None:
    from edgedsl.syntax.build import _ToAst

    names = set(rule_names())
    assert "start" in names and "binop" in names
    assert all(callable(getattr(_ToAst, x, None)) for x in names)


def test_unknown_lark_falls_back_to_two_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """If lark's internals change, parse_module still works through the tree path."""
    import threading

    from edgedsl.syntax import build as b

    def broken(builder: object) -> object:
        raise RuntimeError("unsupported lark version: cannot install the direct builder")

    text = 'trajectory t "q" {\n  a = p.f(x: 1)  # c\n  answer a.y\n}\n'
    expected = b.parse_module(text)
    out: list[object] = []

    def in_fresh_thread() -> None:  # a fresh thread has no direct parser yet
        monkeypatch.setattr(b, "direct_parser", broken)
        out.append(b.parse_module(text))
        out.append(b._direct.unsupported)

    th = threading.Thread(target=in_fresh_thread)
    th.start()
    th.join()
    assert out == [expected, True]


# ---------------------------------------------------------------- comment attachment cost


def _commented_file(n: int) -> str:
    """``n`` small trajectories, each with a comment before it and one inside it."""
    parts = ["use fin\n"]
    for i in range(n):
        parts.append(
            f'# trajectory {i}\ntrajectory t{i} "q" {{\n  # the call\n'
            f'  a = fin.corp(corp_name: "x")\n  b = drv a | max f  # trailing\n'
            "  answer b.f\n}\n"
        )
    return "".join(parts)


@pytest.mark.parametrize("path", ["direct", "tree"])
@pytest.mark.slow
def test_comment_attachment_work_is_linear(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attaching comments looks at each comment a bounded number of times, however many
    statements the file has (it used to scan every comment for every statement: 4,000 small
    trajectories with two comments each took 9x as long to build as without)."""
    from edgedsl.syntax import build as b

    made: list[Any] = []

    class Counting(b.Comments):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(b, "Comments", Counting)
    for n in (200, 2000):
        made.clear()
        text = _commented_file(n)
        module = parse_module(text) if path == "direct" else build(parse(text))
        (attacher,) = made
        comments = 3 * n
        assert attacher.left == 0  # every comment attached
        assert module.items[1].comments == ("# trajectory 0",)
        # each comment is taken once, and a take that finds nothing looks at no comment
        assert attacher.examined <= 2 * comments, (n, attacher.examined)
