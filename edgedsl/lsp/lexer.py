"""The Pygments lexer of ``.edge`` files, registered as the ``edge`` lexer by the entry point
``[project.entry-points."pygments.lexers"]`` (``pygmentize -l edge``, Sphinx, mkdocs).

Generated from the grammar, the one source of truth: its keywords are the grammar's anonymous
word terminals (:func:`grammar_keywords`, read from the grammar's own
:class:`lark.Lark` instance), its names, numbers, dates, strings, regular expressions and
comments the grammar's own terminal patterns, and its reducer words the reducer registry's
spellings. What the lexer adds is only how each word is shown: declaration words,
constants, reducers, HTTP methods, functions; a keyword the grammar gains is a keyword here
without an edit (``tests/lsp/test_lexer.py`` checks every one).
"""

from __future__ import annotations

from functools import cache

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from ..check.names import FUNCS
from ..reduce.registry import REDUCERS
from ..syntax.parser import lark_parser

__all__ = ["DECLARATION_WORDS", "EdgeLexer", "grammar_keywords", "grammar_pattern"]

DECLARATION_WORDS = frozenset({
    "use", "type", "record", "platform", "tool", "trajectory", "run", "base", "envelope",
    "secret", "quota", "per", "paged", "at", "code", "enum", "unit",
})
"""Keywords shown as declarations (the catalog's and the file's structure); every other
keyword of the grammar is shown as a keyword."""

CONSTANT_WORDS = frozenset({"true", "false"})


@cache
def grammar_keywords() -> frozenset[str]:
    """Every keyword of the grammar: its anonymous terminals that are words (``use``,
    ``trajectory``, ``drv``, ``max`` …), and ``unit``, the one keyword the grammar writes as a
    pattern (``_UNIT``: a keyword only before a string)."""
    out = set()
    for term in lark_parser().terminals:
        if term.pattern.type == "str" and str(term.pattern.value).replace("_", "a").isalnum():
            out.add(str(term.pattern.value))
    out.add("unit")
    return frozenset(out)


@cache
def grammar_pattern(name: str) -> str:
    """The regular expression of the grammar's terminal ``name`` (``NAME``, ``STRING`` …)."""
    return str(lark_parser().get_terminal(name).pattern.to_regexp())


def _word_edges() -> tuple[str, str]:
    """Look-arounds making a keyword a whole name (not the start of ``types`` or ``seq_no``):
    no name character of the grammar's ``NAME`` on either side."""
    name_char = "[A-Za-z0-9_가-힣]"
    return f"(?<!{name_char})", f"(?!{name_char})"


def _tokens() -> dict[str, list[tuple[object, ...]]]:
    before, after = _word_edges()
    kws = grammar_keywords()
    reducer_words = {r.surface for r in REDUCERS.values()} & kws
    methods = {k for k in kws if k.isupper()}
    declarations = DECLARATION_WORDS & kws
    others = kws - reducer_words - methods - declarations - CONSTANT_WORDS - {"where"}
    name = grammar_pattern("NAME")
    return {"root": [
        (r"\s+", Whitespace),
        (grammar_pattern("COMMENT"), Comment.Single),
        (grammar_pattern("STRING"), String.Double),
        (r"(code)(\s+)(" + grammar_pattern("REGEX") + ")",
         bygroups(Keyword.Declaration, Whitespace, String.Regex)),
        (grammar_pattern("DATE_SHIFT"), Literal.Date),
        (grammar_pattern("DATE"), Literal.Date),
        (grammar_pattern("NUMBER"), Number),
        (r"(\.)(\s*)(" + name + ")", bygroups(Punctuation, Whitespace, Name.Attribute)),
        (r"(" + name + r")(\s*)(:)", bygroups(Name.Property, Whitespace, Punctuation)),
        (words(sorted(FUNCS), prefix=before, suffix=r"(?=\s*\()"), Name.Builtin),
        (words(sorted(declarations), prefix=before, suffix=after), Keyword.Declaration),
        (words(sorted(CONSTANT_WORDS & kws), prefix=before, suffix=after), Keyword.Constant),
        (words(sorted(methods), prefix=before, suffix=after), Keyword.Pseudo),
        (words(sorted(reducer_words | {"where"}), prefix=before, suffix=after), Operator.Word),
        (words(sorted(others), prefix=before, suffix=after), Keyword),
        (name, Name),
        (r"->|[=!<>]=|[<>|=+\-*/?]", Operator),
        (r"[{}()\[\],:.]", Punctuation),
    ]}


class EdgeLexer(RegexLexer):
    """Pygments lexer of the edgedsl language (``.edge``)."""

    name = "edgedsl"
    aliases = ["edge", "edgedsl"]  # noqa: RUF012 - Pygments reads these class attributes
    filenames = ["*.edge"]  # noqa: RUF012
    mimetypes = ["text/x-edgedsl"]  # noqa: RUF012
    tokens = _tokens()
