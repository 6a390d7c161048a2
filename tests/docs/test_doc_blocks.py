"""Docs that run (issue 20, section 6): every ```` ```edge ```` block of README.md and docs/*.md
compiles against the standard library, or says it is a fragment and parses as the kind it
declares (docs/language.md, "Code blocks in these docs run")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from edgedsl import api
from edgedsl.core.diagnostics import CompileError
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.nodes import Module

from .blocks import Block, blocks, doc_blocks


def _statements(code: str) -> Module:
    """Statements of a trajectory body: parsed inside one."""
    return parse_module(f'trajectory fragment "q" {{\n{code}\n}}\n', "<fragment>")


def _declarations(code: str) -> Module:
    """Catalog declarations: parsed as a file, not checked."""
    return parse_module(code, "<fragment>")


FRAGMENT_KINDS: dict[str, Callable[[str], Module]] = {
    "statements": _statements,
    "declarations": _declarations,
}
"""The kinds a ```` ```edge fragment KIND ```` block may declare; ``statements`` when none."""


def kind_of(block: Block) -> str | None:
    """None for a whole program, else the fragment kind the block declares. ValueError when its
    info string is neither ``edge`` nor ``edge fragment [KIND]`` with a known kind."""
    if not block.words:
        return None
    if block.words[0] != "fragment" or len(block.words) > 2:
        raise ValueError(f"{block.id}: unknown marker `{' '.join(block.words)}`")
    kind = block.words[1] if len(block.words) == 2 else "statements"
    if kind not in FRAGMENT_KINDS:
        raise ValueError(f"{block.id}: unknown fragment kind `{kind}`")
    return kind


def check_block(block: Block) -> None:
    """Compile a whole program (CompileError when it does not) or parse a fragment as its kind."""
    kind = kind_of(block)
    if kind is None:
        api.compile(block.code, block.id)
    else:
        FRAGMENT_KINDS[kind](block.code)


EDGE = doc_blocks("edge")


@pytest.mark.parametrize("block", EDGE, ids=[b.id for b in EDGE])
def test_every_edge_block_compiles_or_parses_as_its_fragment_kind(block: Block) -> None:
    check_block(block)


def test_most_blocks_are_whole_programs() -> None:
    whole = [b for b in EDGE if kind_of(b) is None]
    assert len(EDGE) >= 15 and len(whole) >= 8, [b.id for b in whole]


def _one(md: str) -> Block:
    [block] = blocks(md, "t.md")
    return block


def test_a_whole_block_that_does_not_compile_fails() -> None:
    bad = _one('```edge\nuse dart\n\ntrajectory t "q" {\n  x = dart.no_such_tool()\n}\n```\n')
    with pytest.raises(CompileError) as err:
        check_block(bad)
    assert "E111" in [d.code for d in err.value.diagnostics]


def test_a_fragment_is_parsed_but_not_checked() -> None:
    check_block(_one("```edge fragment\nx = nowhere.tool(a: 1)\nanswer count(x)\n```\n"))
    check_block(_one("```edge fragment declarations\nrecord R {\n  a: Elsewhere\n}\n```\n"))


def test_a_fragment_that_does_not_parse_fails() -> None:
    with pytest.raises(CompileError):
        check_block(_one("```edge fragment\nx = = nowhere.tool()\n```\n"))
    with pytest.raises(CompileError):  # statements are no declarations
        check_block(_one("```edge fragment declarations\nx = nowhere.tool()\n```\n"))


@pytest.mark.parametrize("info", ["edge fragmnet", "edge fragment expressions",
                                  "edge fragment statements extra"])
def test_an_unknown_marker_fails(info: str) -> None:
    with pytest.raises(ValueError):
        check_block(_one(f"```{info}\nanswer 1\n```\n"))


def test_blocks_are_found_with_their_lines_and_words() -> None:
    md = "text\n\n```edge fragment\na = p.t()\n```\n\n```sh\nls\n```\n"
    assert blocks(md, "t.md") == [Block("t.md", 3, "edge", ("fragment",), "a = p.t()\n"),
                                  Block("t.md", 7, "sh", (), "ls\n")]
