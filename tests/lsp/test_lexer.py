"""The Pygments lexer of ``.edge``: found through its entry point, every keyword of the grammar
(read from grammar/edge.lark here, independently of the lexer) shown as a keyword, every
reducer of the registry as one, and every shipped file that parses tokenized without an
Error token."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Error, Keyword, Name, Operator, _TokenType

from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source
from edgedsl.lsp.lexer import DECLARATION_WORDS, EdgeLexer, grammar_keywords
from edgedsl.reduce.registry import REDUCERS
from edgedsl.syntax.build import parse_module

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = (ROOT / "grammar" / "edge.lark").read_text(encoding="utf-8")


def written_keywords() -> set[str]:
    """The words the grammar writes in quotes (its keywords), read from the file's text."""
    rules = [line.split("//")[0] for line in GRAMMAR.splitlines()]
    return set(re.findall(r'"([A-Za-z_]+)"', "\n".join(rules))) | {"unit"}


def _token(text: str, word: str) -> _TokenType:
    toks = [(t, v) for t, v in EdgeLexer().get_tokens(text) if v == word]
    assert toks, (text, word)
    return toks[0][0]


def test_entry_point_registers_the_lexer() -> None:
    """Pygments finds the lexer by name, alias and file name (the entry point)."""
    assert isinstance(get_lexer_by_name("edge"), EdgeLexer)
    assert isinstance(get_lexer_by_name("edgedsl"), EdgeLexer)
    assert isinstance(get_lexer_for_filename("trades.edge"), EdgeLexer)


def test_every_grammar_keyword_is_a_keyword() -> None:
    """A keyword the grammar gains is shown as one (a name would fail here)."""
    kws = written_keywords()
    assert kws <= grammar_keywords(), kws - grammar_keywords()
    assert {"use", "trajectory", "drv", "where", "top", "starts_with"} <= kws
    for word in sorted(kws):
        tok = _token(f"x {word} y", word)
        assert tok in Keyword or tok in Operator, (word, tok)
    assert kws >= DECLARATION_WORDS, DECLARATION_WORDS - kws  # no stale entry


def test_reducers_are_operators() -> None:
    """Every reducer of the registry is shown as an operator in a `drv` chain."""
    for r in REDUCERS.values():
        step = r.spell("f", "3" if r.pivot == "count" else "1")
        tok = _token(f"x = drv y | {step}", r.surface)
        assert tok in Operator, (r.op, tok)


def test_names_stay_names() -> None:
    """A keyword inside a longer name, a field after a dot and an argument name are names."""
    assert _token("types = drv x | max y", "types") in Name
    assert _token("a = x.type", "type") in Name
    assert _token("a = p.t(type: 1)", "type") in Name


def _shipped() -> list[Path]:
    out = []
    for path in sorted(ROOT.glob("**/*.edge")):
        if ".venv" in path.parts or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            parse_module(Source(str(path), text))
        except (UnicodeDecodeError, CompileError):  # broken on purpose (tests/diagnostics)
            continue
        out.append(path)
    return out


SHIPPED = _shipped()


def test_shipped_files_are_many() -> None:
    """The files below cover examples/, stdlib/ and the tests' valid fixtures."""
    tops = {p.relative_to(ROOT).parts[0] for p in SHIPPED}
    assert {"examples", "stdlib", "tests", "edgedsl"} <= tops
    assert len(SHIPPED) > 250


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_error_tokens(path: Path) -> None:
    """Every shipped file that parses is tokenized without an Error token."""
    text = path.read_text(encoding="utf-8")
    bad = [v for t, v in EdgeLexer().get_tokens(text) if t in Error]
    assert not bad, bad[:5]
