"""Stage `parse`: text → lark tree (LALR, strict, positions on every node).

A thin module: it owns the one :class:`lark.Lark` instance, collects comments through a lexer
callback, and turns lark's exceptions into coded diagnostics (``E0xx``), with hand-written
messages for common mistakes recognised by ``match_examples``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from .diagnostics import CompileError, Diagnostic, diag
from .resources import grammar_path
from .source import Source

_local = threading.local()


def _collect_comment(tok: Token) -> Token:
    sink = getattr(_local, "comments", None)
    if sink is not None:
        sink.append(tok)
    return tok


@cache
def _lark() -> Lark:
    return Lark(
        grammar_path().read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": _collect_comment},
    )


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


def parse(source: Source | str, name: str = "<string>") -> ParseResult:
    """Parse text into a lark tree; raise CompileError with one ``E0xx`` diagnostic on failure."""
    src = source if isinstance(source, Source) else Source(name, source)
    _local.comments = []
    try:
        tree = _lark().parse(src.text)
    except UnexpectedInput as err:
        raise CompileError("parse", [_error_to_diagnostic(err, src)]) from None
    finally:
        comments = _local.comments
        _local.comments = None
    return ParseResult(tree, comments, src)
