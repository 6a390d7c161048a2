"""The fused lexer + LALR loop (``edgedsl.syntax.lalr``) is lark's contextual lexer and parser.

``parse_module`` does not drive lark per token: it runs one loop over lark's parse table and
terminal definitions. These tests hold that loop to lark's own loop, through lark's documented
API only, on every shipped ``.edge`` file, on generated programs and on broken text:

- the token stream (type, text, offsets, line and column of both ends) equals the tokens of
  lark's tree built with ``keep_all_tokens`` (every token its parser shifted), comments (with
  their positions, from a lexer callback) included;
- a recording builder sees the same rule calls, children and extents from the fused loop as
  from a walk over lark's tree (``propagate_positions``);
- the fused loop fails exactly when lark does, and ``E011`` (nesting) the same way.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from edgedsl.syntax import lalr
from edgedsl.syntax.lalr import fused_parser
from edgedsl.syntax.parser import MAX_DEPTH, TooDeep, _new_lark, direct_parser, rule_names
from edgedsl.syntax.printer import format_module
from tests.ast_strategies import modules
from tests.profiles import examples
from tests.syntax.test_fuzz import generated_mutants, shipped_mutants, token_soup

ROOT = Path(__file__).resolve().parents[2]


def _tok(t: Token) -> tuple[Any, ...]:
    return (t.type, str(t), t.value, t.start_pos, t.line, t.column, t.end_line, t.end_column,
            t.end_pos)


class _Recorder:
    """A builder that records every rule call as (rule, extent, children)."""

    def __init__(self) -> None:
        self.pos: tuple[int | None, int | None] = (None, None)
        self.comments: list[tuple[Any, ...]] = []
        for name in rule_names():
            setattr(self, name, self._method(name))

    def _method(self, name: str) -> Any:
        def method(children: list[Any]) -> Any:
            kids = tuple(_tok(c) if isinstance(c, Token) else c for c in children)
            return (name, self.pos, kids)

        return method

    def comment(self, tok: Token) -> Token:
        self.comments.append(_tok(tok))
        return tok

    def walk(self, tree: Tree[Token], depth: int = 1) -> Any:
        """The calls a walk over lark's tree makes (as ``build._ToAst.walk`` does)."""
        if depth > MAX_DEPTH:
            raise TooDeep
        children = [self.walk(c, depth + 1) if isinstance(c, Tree) else c
                    for c in tree.children]
        meta = tree.meta
        self.pos = (None, None) if meta.empty else (meta.start_pos, meta.end_pos)
        return getattr(self, str(tree.data))(children)


def _leaves(tree: Tree[Token]) -> list[Token]:
    out: list[Token] = []
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            stack.extend(reversed(node.children))
        elif isinstance(node, Token):
            out.append(node)
    return out


class _Streams:
    """lark's token stream (the leaves of its tree with every token kept) and the fused
    loop's, on one text."""

    def __init__(self) -> None:
        self.lark_comments: list[tuple[Any, ...]] = []
        self.lark = _new_lark(maybe_placeholders=True, keep_all_tokens=True,
                              lexer_callbacks={"COMMENT": self._lark_comment})
        self.trace: list[Token] = []
        self.recorder = _Recorder()
        self.fused = fused_parser(_new_lark(maybe_placeholders=True), self.recorder,
                                  trace=self.trace)

    def _lark_comment(self, tok: Token) -> Token:
        self.lark_comments.append(_tok(tok))
        return tok

    def run(self, text: str) -> tuple[Any, Any]:
        """(lark's outcome, the fused loop's outcome): ok + tokens, or the failure."""
        self.lark_comments.clear()
        self.trace.clear()
        self.recorder.comments.clear()
        try:
            tree = self.lark.parse(text)
            tokens = tuple(_tok(t) for t in _leaves(tree))
            theirs: Any = ("ok", tokens, tuple(self.lark_comments))
        except UnexpectedInput:
            theirs = ("error",)
        try:
            self.fused(text)
            tokens = tuple(_tok(t) for t in self.trace if t.type != "COMMENT")
            comments = tuple(_tok(t) for t in self.trace if t.type == "COMMENT")
            assert comments == tuple(self.recorder.comments)
            ours: Any = ("ok", tokens, comments)
        except UnexpectedInput:
            ours = ("error",)
        except TooDeep:  # the recorder nests as deep as the text
            ours = ("too deep",)
        return theirs, ours


_STREAMS: list[_Streams] = []


def _streams() -> _Streams:
    if not _STREAMS:
        _STREAMS.append(_Streams())
    return _STREAMS[0]


def _agree(text: str) -> None:
    theirs, ours = _streams().run(text)
    if ours == ("too deep",):
        return
    assert ours == theirs


_DRIVERS: list[tuple[_Recorder, Any, Any]] = []


def _builders_agree(text: str) -> None:
    """The recording builder sees the same calls driven by the fused loop and by a walk over
    lark's tree (comments from the same lexer callback)."""
    if not _DRIVERS:
        rec = _Recorder()
        tree_lark = _new_lark(propagate_positions=True, maybe_placeholders=True,
                              lexer_callbacks={"COMMENT": rec.comment})
        _DRIVERS.append((rec, direct_parser(rec), lambda s: rec.walk(tree_lark.parse(s))))
    rec, *runs = _DRIVERS[0]
    out = []
    for run in runs:
        rec.comments.clear()
        try:
            out.append(("ok", run(text), tuple(rec.comments)))
        except UnexpectedInput:
            out.append(("error",))
        except TooDeep:
            out.append(("too deep",))
    assert out[0] == out[1]


def _texts() -> list[Path]:
    return sorted([
        *ROOT.glob("examples/**/*.edge"),
        *ROOT.glob("stdlib/**/*.edge"),
        *ROOT.glob("tests/**/*.edge"),
        *ROOT.glob("benchmarks/**/*.edge"),
    ])


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_token_stream_of_every_shipped_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    _agree(text)
    _builders_agree(text)


def test_benchmark_corpus() -> None:
    import random
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_compile
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    rng = random.Random(3)
    for i in range(20):
        text = bench_compile.trajectory(i, rng)
        _agree(text)
        _builders_agree(text)
    _agree(bench_compile.CATALOG)


@pytest.mark.parametrize(
    "text",
    [
        "", "   \n\t ", "use a", "use a\n", "use a # c", "# only a comment", "use a,b\n#c\n#d",
        'trajectory t "q" { a = drv b | maximum f }',  # `max` then the name `imum`
        'trajectory t "q" { a = drv b | max max }',
        "record R { f: enum[a, \"b\", 3]?, g: [x.Y] }",
        "type T = code /^[0-9]{6}$/ \"d\"\nrecord R {f: T}",
        'trajectory t "q" { answer 1 / 2 / a.b }',
        'trajectory t "q" { answer (1) }', 'trajectory t "q" { answer -(-1) }',
        'platform p { tool t GET "/x" (a: int?,) -> [R] at "data" paged(page: p, size: s <= 9) }',
        'trajectory t "q" { if not (a.b >= 2 and exists(c)) or x != 1 { say "s" } else if '
        'exists(d) { answer 1 } else { answer { a: 1, } } }',
        'trajectory t "q" { g = parallel (k: 1, j: seq a.b) { m = p.u(k: k) n = p.v() } }',
        'trajectory t "q" { c = compare p.t(x: fan(3) a.b) over y in [1, -2, "s", 2024-01-01] }',
        'trajectory t "q" { a = p.t(x: {"a": [1, {"b": true}], "c": false}) pages 3 }',
        "use a\r\nuse b\r\n", "\ufeffuse a", "use 가", "use a\x00", "@", "use a\n\n\n@",
        'trajectory t "q" { answer 1' + "0" * 500 + " }",
        'trajectory t "q" { answer ' + " + ".join(["a"] * 300) + " }",
        'trajectory t "q" { answer ' + "-" * 300 + "a }",
        'trajectory t "q" { if ' + "not " * (MAX_DEPTH + 5) + "exists(a) { } }",
    ],
)
def test_token_stream_of_edge_cases(text: str) -> None:
    _agree(text)
    _builders_agree(text)


@settings(max_examples=examples(200), deadline=None)
@given(modules.map(format_module))
@pytest.mark.slow
def test_token_stream_of_generated_programs(text: str) -> None:
    _agree(text)


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(token_soup, shipped_mutants, generated_mutants, st.text(max_size=80)))
@pytest.mark.slow
def test_token_stream_of_broken_text(text: str) -> None:
    _agree(text)


@settings(max_examples=examples(100), deadline=None)
@given(st.one_of(modules.map(format_module), token_soup, shipped_mutants))
def test_builder_calls_agree(text: str) -> None:
    _builders_agree(text)


def test_parse_module_runs_the_fused_loop() -> None:
    """The shipped grammar and lark are laid out as the fused loop expects (no silent fallback
    to building from lark's tree)."""
    assert direct_parser(_Recorder()).__module__ == lalr.__name__
    from edgedsl.syntax.build import _direct, parse_module

    parse_module("use a")
    assert _direct.run is not None and _direct.run.__module__ == lalr.__name__
    assert not _direct.unsupported


def test_lalr_reads_no_private_lark_names_and_evaluates_no_code() -> None:
    """The loop reads lark's documented objects only (no ``_name`` of another object) and makes
    its functions without ``eval``/``exec``."""
    tree = ast.parse(Path(lalr.__file__).read_text(encoding="utf-8"))
    private = sorted({
        node.attr for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_")
        and not node.attr.startswith("__") and not (
            isinstance(node.value, ast.Name) and node.value.id == "self")})
    assert private == []
    calls = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not calls & {"eval", "exec", "compile"}
