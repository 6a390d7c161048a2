"""Stage `parse`: text → lark tree (LALR, positions on every node).

The grammar is checked in lark's *strict* mode (no terminal collisions, no shift/reduce
conflicts) by the test suite (``tests/syntax/test_grammar_strict.py``), not at every start: with
Hangul syllables in names, lark's regex-collision analysis costs seconds per construction.

A thin module: it owns the :class:`lark.Lark` instances, collects comments through a lexer
callback, and turns lark's exceptions into coded diagnostics (``E0xx``), with hand-written
messages for common mistakes recognised by ``match_examples``.

Two ways to run the one grammar:

- :func:`parse` builds a lark tree with positions on every node (``edgedsl parse --tree``, and
  the reference path of ``build``);
- :func:`direct_parser` runs a *builder* (an object with one method per named rule, see
  ``build.py``) inside the fused lexer + LALR loop of :mod:`.lalr`, so no tree is built at all.
  Nesting deeper than :data:`MAX_DEPTH` raises :class:`TooDeep`. Syntax errors are reported by
  re-parsing with :func:`parse`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from ..core.diagnostics import CompileError, Diagnostic, diag
from ..core.resources import grammar_path
from ..core.source import Source
from .lalr import MAX_DEPTH, NoParse, TooDeep, builds, fused_parser
from .recover import recover

__all__ = ["MAX_DEPTH", "NoParse", "ParseResult", "SyntaxErrors", "TooDeep", "direct_parser",
           "lark_parser", "parse", "rule_names", "too_deep"]

_local = threading.local()


def _collect_comment(tok: Token) -> Token:
    sink = getattr(_local, "comments", None)
    if sink is not None:
        sink.append(tok)
    return tok


@cache
def _grammar() -> str:
    return grammar_path().read_text(encoding="utf-8")


@cache
def _lark() -> Lark:
    return _new_lark(
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": _collect_comment},
    )


def lark_parser() -> Lark:
    """The grammar's :class:`lark.Lark` instance (LALR, contextual lexer, positions kept): the
    one the stage parse uses, for tools that read the grammar's terminals or drive its parser
    (the language server's completion, the highlighter's keywords)."""
    return _lark()


STRICT = False
"""Lark's strict mode at run time (the tests build the grammar strictly once)."""

_BUILD_LOCK = threading.Lock()


def _new_lark(**options: Any) -> Lark:
    """A Lark over our grammar, without the regex-collision analysis at run time.

    lark runs interegular's collision analysis on every construction when it is installed, even
    outside strict mode (only to log); with Hangul syllables in names it costs seconds. The
    grammar's strictness is a property of the file, checked once by the tests, so run time
    switches the analysis off (lark 1.3's module flag; if it moves, the analysis simply runs).
    """
    import lark.lexer as lark_lexer

    with _BUILD_LOCK:
        saved = getattr(lark_lexer, "has_interegular", None)
        if saved is not None and not STRICT:
            lark_lexer.has_interegular = False
        try:
            return Lark(_grammar(), parser="lalr", lexer="contextual", strict=STRICT, **options)
        finally:
            if saved is not None:
                lark_lexer.has_interegular = saved


def rule_names() -> list[str]:
    """The names a builder must implement: every rule or alias that is not inlined (``_rule``,
    or a ``?rule`` alternative without an alias, which always passes its one child through)."""
    return sorted({str(r.alias or r.origin.name) for r in _lark().rules if builds(r)})


def direct_parser(builder: Any) -> Callable[[str], Any]:
    """A function parsing text straight into what ``builder``'s rule methods return.

    ``builder`` needs a method per name of :func:`rule_names` (taking the rule's children, as
    a lark tree would hold them), a ``pos`` attribute and a ``comment(token)`` method receiving
    every comment token. The returned function (:func:`edgedsl.syntax.lalr.fused_parser`: lark's
    contextual lexer and LALR parser as one loop over lark's tables) raises lark's
    ``UnexpectedInput`` on a syntax error and :class:`TooDeep` on pathological nesting; this
    function raises :class:`RuntimeError` when the grammar or lark is not laid out as the loop
    expects (callers then build from lark's tree).
    """
    missing = [x for x in rule_names() if not callable(getattr(builder, x, None))]
    if missing:
        raise TypeError(f"builder lacks rule methods: {', '.join(missing)}")
    return fused_parser(_lark(), builder)


@dataclass(frozen=True)
class ParseResult:
    """A lark tree and the comment tokens found while lexing it."""

    tree: Tree[Token]
    comments: list[Token]
    source: Source


# Hand-written messages for common mistakes (lark's match_examples picks the closest state).
_EXAMPLES: dict[str, list[str]] = {
    "E004": [
        'trajectory t "q" { a = p.t(x: 1 y: 2) }',
        'trajectory t "q" { a = p.t(x: 1, y: 2 z: 3) }',
    ],
    "E005": [
        'trajectory t "q" { a = p.t(x: b.c) }',
        'trajectory t "q" { a = p.t(x: 1, y: b.c) }',
    ],
    "E006": [
        'trajectory t "q" { a = drv b max f }',
        'trajectory t "q" { a = drv b | max f min g }',
    ],
    "E007": [
        'trajectory t "q" { a = p.t() pages }',
        'trajectory t "q" { a = p.t() pages some }',
    ],
    "E008": [
        "trajectory t { }",
        "trajectory t { a = p.t() }",
    ],
}

_MESSAGES: dict[str, tuple[str, str]] = {
    "E004": ("missing `,` between arguments", "separate arguments with commas: `f(a: 1, b: 2)`"),
    "E005": (
        "a field reference needs a junction kind",
        "write `seq x.f` for one value or `fan x.f` for one call per value",
    ),
    "E006": (
        "reducers in a `drv` chain are separated by `|`",
        "write `drv x | max f | where g >= 10`",
    ),
    "E007": ("`pages` takes `all` or a number", "write `pages all` or `pages 3`"),
    "E008": ("a trajectory needs a query string", 'write `trajectory name "질문" { … }`'),
}

_TOKEN_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "DATE": "a date",
    "REGEX": "a /regex/",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "EQUAL": "`=`",
    "DOT": "`.`",
    "VBAR": "`|`",
    "QMARK": "`?`",
    "OPTIONAL": "`?`",
    "MORETHAN": "`>`",
    "LESSTHAN": "`<`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "$END": "end of file",
}


def _describe_expected(expected: set[str]) -> str:
    lark = _lark()
    words: list[str] = []
    for name in sorted(expected):
        if name in _TOKEN_WORDS:
            words.append(_TOKEN_WORDS[name])
            continue
        try:
            pattern = lark.get_terminal(name).pattern
        except KeyError:
            words.append(name)
            continue
        if pattern.type == "str":
            words.append(f"`{pattern.value}`")
        else:
            words.append(name.lower())
    words = sorted(set(words))
    if len(words) > 8:
        words = [*words[:8], "…"]
    return ", ".join(words)


def _error_to_diagnostic(err: UnexpectedInput, source: Source) -> Diagnostic:
    pos = getattr(err, "pos_in_stream", None) or 0
    token = getattr(err, "token", None)
    end = pos + max(1, len(str(token))) if isinstance(token, Token) else pos + 1
    if isinstance(err, UnexpectedEOF):
        pos = len(source.text)
        end = pos
    span = source.span(pos, min(end, len(source.text)))
    try:
        label = err.match_examples(_lark().parse, _EXAMPLES, use_accepts=True)
    except LarkError:
        label = None
    expected = getattr(err, "expected", None) or getattr(err, "allowed", None) or set()
    hints = [f"expected {_describe_expected(set(expected))}"] if expected else []
    if label is not None:
        message, hint = _MESSAGES[label]
        return diag(label, message, span, "here", hints=[hint, *hints])
    if isinstance(err, UnexpectedCharacters):
        ch = source.text[pos : pos + 1]
        return diag("E001", f"unexpected character `{ch}`", span, "not valid here", hints=hints)
    if isinstance(err, UnexpectedEOF) or (isinstance(token, Token) and token.type == "$END"):
        return diag("E003", "unexpected end of file", span, "the file ends here", hints=hints)
    shown = str(token).replace("\n", "\\n")
    return diag("E002", f"unexpected `{shown}`", span, "not expected here", hints=hints)


def too_deep(source: Source, tree: Tree[Token]) -> CompileError | None:
    """``E011`` at the first construct of ``tree`` (in reading order) that lies more than
    :data:`MAX_DEPTH` levels deep, found without recursion; None when there is none."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            start, end = (0, 0) if node.meta.empty else (node.meta.start_pos, node.meta.end_pos)
            return CompileError(
                "parse",
                [diag("E011", "expression nested too deeply", source.span(start, end),
                      f"more than {MAX_DEPTH} levels deep",
                      hints=["split the expression into several bindings"])],
            )
        stack.extend((c, depth + 1) for c in reversed(node.children) if isinstance(c, Tree))
    return None


class SyntaxErrors(CompileError):
    """A CompileError of stage ``parse`` holding every syntax error of a file
    (:mod:`edgedsl.syntax.recover`), and what parsed soundly: ``sound``, a parse result of the
    items no error touched (None when a declaration is broken), for the checker to run on.
    ``module`` is its AST once :func:`edgedsl.syntax.build.parse_module` has built it."""

    def __init__(self, diagnostics: list[Diagnostic], sound: ParseResult | None) -> None:
        super().__init__("parse", diagnostics)
        self.sound = sound
        self.module: Any = None


def parse(source: Source | str, name: str = "<string>") -> ParseResult:
    """Parse text into a lark tree; on failure raise :class:`SyntaxErrors` with every syntax
    error of the file (``E0xx``, recovering at statement and declaration boundaries:
    :func:`edgedsl.syntax.recover.recover`); ``E011`` when it nests deeper than
    :data:`MAX_DEPTH` (every pass over the tree, lark's printing included, recurses)."""
    src = source if isinstance(source, Source) else Source(name, source)
    _local.comments = []
    try:
        found = recover(_lark(), src, _error_to_diagnostic)
    finally:
        comments = _local.comments
        _local.comments = None
    if found.diagnostics:
        sound = None
        if found.sound is not None and too_deep(src, found.sound) is None:
            sound = ParseResult(found.sound, [], src)
        raise SyntaxErrors(found.diagnostics, sound)
    assert found.sound is not None
    tree = found.sound
    error = too_deep(src, tree)
    if error is not None:
        raise error
    return ParseResult(tree, comments, src)
