"""Stage `parse`: text → lark tree (LALR, positions on every node).

The grammar is checked in lark's *strict* mode (no terminal collisions, no shift/reduce
conflicts) by the test suite (``tests/test_grammar_strict.py``), not at every start: with Hangul
syllables in names, strict mode's regex-collision analysis costs seconds per construction.

A thin module: it owns the :class:`lark.Lark` instances, collects comments through a lexer
callback, and turns lark's exceptions into coded diagnostics (``E0xx``), with hand-written
messages for common mistakes recognised by ``match_examples``.

Two ways to run the one grammar:

- :func:`parse` builds a lark tree with positions on every node (``edgedsl parse --tree``, and
  the reference path of ``build``);
- :func:`direct_parser` runs a *builder* (an object with one method per named rule, see
  ``build.py``) inside the LALR parser, so no tree is built at all. Positions are propagated
  exactly as ``propagate_positions`` does for trees: a rule spans from its first to its last
  token, anonymous tokens such as ``)`` included, and a rule inlined by ``?`` spans its
  container. Before each rule method runs, ``builder.pos`` holds ``(start, end)`` of the rule
  (``(None, None)`` for an empty rule). Nesting deeper than :data:`MAX_DEPTH` raises
  :class:`TooDeep`. Syntax errors are reported by re-parsing with :func:`parse`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput
from lark.grammar import Rule, Terminal

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
def _grammar() -> str:
    return grammar_path().read_text(encoding="utf-8")


@cache
def _lark() -> Lark:
    return _new_lark(
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": _collect_comment},
    )


STRICT = False
"""Lark's strict mode at run time (the tests build the grammar strictly once)."""


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


_BUILD_LOCK = threading.Lock()

MAX_DEPTH = 400
"""How deeply rules may nest (counted as levels of the lark tree) before ``E011``."""


class TooDeep(Exception):
    """Raised by a direct parser when the input nests deeper than :data:`MAX_DEPTH`."""


class _Pos:
    """A value on the LALR value stack with the extent of its rule and its nesting depth."""

    __slots__ = ("depth", "end", "start", "value")

    def __init__(self, value: Any, start: int | None, end: int | None, depth: int) -> None:
        self.value = value
        self.start = start
        self.end = end
        self.depth = depth


def _builds(rule: Rule) -> bool:
    """Whether a rule's reduction calls a builder method (not inlined by ``_`` or ``?``)."""
    return bool(rule.alias) or not (rule.options.expand1 or rule.origin.name.startswith("_"))


def rule_names() -> list[str]:
    """The names a builder must implement: every rule or alias that is not inlined (``_rule``,
    or a ``?rule`` alternative without an alias, which always passes its one child through)."""
    return sorted({str(r.alias or r.origin.name) for r in _lark().rules if _builds(r)})


def _reduction(rule: Rule, method: Callable[[list[Any]], Any] | None, builder: Any) -> Callable[
    [list[Any]], Any
]:
    """The LALR callback of one rule: lark's child filtering (anonymous tokens dropped, ``[x]``
    placeholders, ``_rule`` children spliced in, ``?rule`` single child passed through), then
    ``method``; the value is wrapped in a :class:`_Pos` (an inlined ``_rule`` gives a list)."""
    expansion = rule.expansion
    keep_all = rule.options.keep_all_tokens
    expand1 = rule.options.expand1 and not rule.alias
    empty = rule.options.empty_indices
    if empty:  # how many placeholders go before each symbol (and after the last one)
        runs = [len(ones) for ones in "".join(str(int(b)) for b in empty).split("0")]
    else:
        runs = [0] * (len(expansion) + 1)
    include: list[tuple[int, bool, int]] = []
    nones = 0
    for i, sym in enumerate(expansion):
        nones += runs[i]
        if keep_all or not (isinstance(sym, Terminal) and sym.filter_out):
            include.append((i, not sym.is_term and sym.name.startswith("_"), nones))
            nones = 0
    trailing = nones + runs[len(expansion)]
    if expand1 and (len(include) != 1 or include[0][1] or include[0][2] or trailing):
        raise RuntimeError(f"`?{rule.origin.name}` alternatives without an alias take one child")
    if expand1 and len(expansion) == 1 and include == [(0, False, 0)] and not trailing:
        return itemgetter(0)  # `?a: b`: the child itself, extent and depth unchanged
    splice = [x for x in include if x[1] or x[2]]  # anything but plain appends?
    plain = [i for i, _, _ in include]

    def callback(children: list[Any]) -> Any:
        start = end = None
        depth = 0
        for c in children:
            if c.__class__ is _Pos:
                if c.start is not None:
                    if start is None:
                        start = c.start
                    end = c.end
                if c.depth > depth:
                    depth = c.depth
            else:  # a token
                if start is None:
                    start = c.start_pos
                end = c.end_pos
        values = [c.value if c.__class__ is _Pos else c for c in children]
        if splice:
            filtered: list[Any] = []
            for i, to_splice, add_none in include:
                if add_none:
                    filtered += [None] * add_none
                if to_splice:
                    filtered += values[i]
                else:
                    filtered.append(values[i])
        else:
            filtered = [values[i] for i in plain]
        if trailing:
            filtered += [None] * trailing
        if method is None:
            if expand1 and len(filtered) == 1:
                return _Pos(filtered[0], start, end, depth)
            return _Pos(filtered, start, end, depth)  # `_rule`: spliced into its parent
        builder.pos = (start, end)
        value = method(filtered)
        depth += 1
        if depth > MAX_DEPTH:
            raise TooDeep
        return _Pos(value, start, end, depth)

    return callback


def direct_parser(builder: Any) -> Callable[[str], Any]:
    """A function parsing text straight into what ``builder``'s rule methods return.

    ``builder`` needs a method per name of :func:`rule_names` (taking the rule's children, as
    a lark tree would hold them) and a ``comment(token)`` method receiving every comment token.
    The returned function raises lark's ``UnexpectedInput`` on a syntax error and
    :class:`TooDeep` on pathological nesting.
    """
    missing = [x for x in rule_names() if not callable(getattr(builder, x, None))]
    if missing:
        raise TypeError(f"builder lacks rule methods: {', '.join(missing)}")
    lark = _new_lark(
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": builder.comment},
    )
    callbacks = lark._callbacks  # the dict the LALR parser calls on each reduction
    if lark.parser.parser.parser.callbacks is not callbacks:  # pragma: no cover - lark changed
        raise RuntimeError("unsupported lark version: cannot install the direct builder")
    for rule in lark.rules:
        if rule.options.template_source is not None:  # pragma: no cover - no templates
            raise RuntimeError("grammar templates are not supported by the direct builder")
        method = getattr(builder, str(rule.alias or rule.origin.name)) if _builds(rule) else None
        callbacks[rule] = _reduction(rule, method, builder)

    def run(text: str) -> Any:
        result = lark.parse(text)
        return result.value if result.__class__ is _Pos else result

    return run


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
