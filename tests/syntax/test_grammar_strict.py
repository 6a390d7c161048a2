"""The grammar passes lark's strict mode: no terminal collisions, no LALR conflicts.

Run time builds the parser without strict mode (its regex-collision analysis costs seconds with
Hangul names); this test keeps the guarantee.
"""

from __future__ import annotations

from lark import Lark

from edgedsl.core.resources import grammar_path


def test_grammar_is_strict() -> None:
    text = grammar_path().read_text(encoding="utf-8")
    parser = Lark(text, parser="lalr", lexer="contextual", strict=True,
                  propagate_positions=True, maybe_placeholders=True)
    assert parser.parse('use codes\n') is not None
