"""Every syntax error of a file, not only the first: LALR error recovery at statement and
declaration boundaries, and an unclosed delimiter reported where it opens.

lark's LALR parser calls an ``on_error`` handler with the exception, whose interactive parser
(``InteractiveParser``) holds the parser's stacks at the error. The handler here records the
diagnostic (``to_diagnostic``: lark's message with ``match_examples``, unchanged), then
recovers in *panic mode* at a boundary, read from lark's parse table rather than from the text:

- a **boundary state** is a state of the parse table where a list of items begins or goes on:
  one with a goto on a rule of :data:`BOUNDARY_RULES` (a statement, a top-level item, a
  platform item, a record field, a ``parallel`` branch, a ``run`` setting);
- a **restart** is the first token of a line (or the end of the file) that a boundary state
  on the stack accepts, followed by :data:`LOOKAHEAD` more tokens the parser accepts (a
  closing ``}`` needs none) — so a line inside a multi-line call (``beginBasDt: 2024-11-01,``)
  or answer block is no restart of a statement, and no error is reported for the rest of a
  broken statement. Below the top level, the braces between the start of the construct
  popped and the restart must balance: a block inside a broken statement is skipped whole;
- the candidates, in order: the start of the error's own line, when the construct being
  parsed began on an earlier line (an open call swallowed the line's first tokens:
  ``corp = …`` read as an argument name), every later line start, the end of the file; the
  handler pops the stacks to the topmost boundary state that takes the first candidate that
  is a restart, and moves lark's lexer there (as lark's own ``on_error`` loop does to skip a
  character).

When the restart is not after the error (the error token starts its line, or the line was
swallowed), the construct that was popped was left open: if it holds a bracket opened on an
earlier line (``(``, ``[``, ``{``), the error is ``E015`` at that bracket, with the restart as
a secondary label; the same holds at the end of the file. At most :data:`MAX_ERRORS` errors are
reported. Recovery costs one parse: without an error, the tree is lark's own.

What parsed *soundly* is kept for the checker (:class:`Recovered`): every top-level item that
no error touched, when every error lies inside a trajectory (a trajectory with an error is left
out whole, so no name of its broken statement is reported unbound); nothing when an error lies
outside one (a broken declaration would make every use of it an error).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.lexer import LineCounter

from ..core.diagnostics import Diagnostic, diag
from ..core.source import Source
from .lalr import parse_table

__all__ = ["BOUNDARY_RULES", "LOOKAHEAD", "MAX_ERRORS", "Recovered", "recover"]

MAX_ERRORS = 20
"""The most syntax errors reported for one file."""

LOOKAHEAD = 1
"""How many tokens after a restart's first one the parser must accept for it to be taken: one
is enough to tell a statement (`name =`, `answer x`) from a line inside a broken one
(`name:` of a multi-line call or answer block, `)`), and more would miss a restart whose
own statement is broken a token later (`corp = , drv …`)."""

BOUNDARY_RULES = frozenset({"_item", "_stmt", "_platform_item", "field_decl", "branch",
                            "run_setting"})
"""Rules of the grammar that form lists: a state expecting one of them is a boundary."""

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())


@dataclass
class Recovered:
    """What a recovering parse found: every syntax diagnostic in file order, and the tree of
    what parsed soundly (None when nothing is sound to check, see the module docstring)."""

    diagnostics: list[Diagnostic]
    sound: Tree[Token] | None
    """The whole tree when there is no error."""
    broken: set[int] = field(default_factory=set)
    """Start offsets of the trajectories an error touched."""


@dataclass
class _Run:
    """One recovering parse: the source, where restarts may be, what has been found so far."""

    source: Source
    starts: list[int]
    braces: list[tuple[int, int]]  # (offset, +1 for `{` / -1 for `}`), outside strings etc.
    boundaries: frozenset[int]
    top: frozenset[int]  # the boundary states of the file's top level
    trajectory_kw: str
    to_diagnostic: Callable[[UnexpectedInput, Source], Diagnostic]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    broken: set[int] = field(default_factory=set)
    outside: bool = False  # an error outside every trajectory
    gave_up: bool = False

    def brace_depth(self, start: int, end: int) -> int:
        """``{`` minus ``}`` between offsets ``start`` and ``end``."""
        lo = bisect_left(self.braces, (start, -2))
        hi = bisect_left(self.braces, (end, -2))
        return sum(d for _, d in self.braces[lo:hi])


def _line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line that holds something besides blanks and
    a comment: where a statement or a declaration may begin."""
    out = []
    at = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" \t\r\f")
        if stripped and not stripped.startswith("#"):
            out.append(at + len(line) - len(stripped))
        at += len(line) + 1
    return out


def _braces(lark: Lark, text: str) -> list[tuple[int, int]]:
    """Where ``{`` and ``}`` stand in ``text``, those inside comments, strings and code
    patterns left out (their terminals read from the grammar)."""
    skipped = "|".join(f"(?:{lark.get_terminal(name).pattern.to_regexp()})"
                       for name in ("COMMENT", "STRING", "REGEX"))
    scan = re.compile(f"{skipped}|(?P<open>{{)|(?P<close>}})")
    return [(m.start(), 1 if m.group("open") else -1) for m in scan.finditer(text)
            if m.lastgroup is not None]


def _boundaries(lark: Lark, rules: frozenset[str]) -> frozenset[int]:
    """The states of ``lark``'s parse table with a goto on one of ``rules``."""
    return frozenset(s for s, row in parse_table(lark).states.items()
                     if not rules.isdisjoint(row))


def _first_terminal(lark: Lark, rule: str) -> str:
    """The terminal every alternative of ``rule`` begins with (``trajectory`` → TRAJECTORY)."""
    firsts = {r.expansion[0].name for r in lark.rules if r.origin.name == rule}
    assert len(firsts) == 1, firsts
    return str(next(iter(firsts)))


def _viable(ip: Any, at: int, depth: int, text: str) -> bool:
    """Whether the parser popped to stack ``depth`` (states kept: ``depth + 1``) accepts the
    token at offset ``at`` and, unless it is a ``}``, :data:`LOOKAHEAD` more (or the end)."""
    probe = ip.copy(deepcopy_values=False)
    state = probe.parser_state
    del state.state_stack[depth + 1:]
    del state.value_stack[depth:]
    _move(probe, at, text)
    try:
        tokens = probe.lexer_thread.lex(state)
        for i in range(LOOKAHEAD + 1):
            tok = next(tokens, None)
            if tok is None:
                probe.feed_eof()
                return True
            probe.feed_token(tok)
            if i == 0 and str(tok) == "}":
                return True
    except UnexpectedInput:
        return False
    return True


def _move(ip: Any, at: int, text: str) -> None:
    """Move the lexer of ``ip`` to offset ``at`` (forward, or back to the start of the line
    it failed on), counting lines as lark does."""
    lexer_state = ip.lexer_thread.state
    line_ctr = lexer_state.line_ctr
    if at < line_ctr.char_pos:
        line_ctr = LineCounter(line_ctr.newline_char)
        lexer_state.line_ctr = line_ctr
        line_ctr.feed(text[:at])
    else:
        line_ctr.feed(text[line_ctr.char_pos:at])


def _error_at(err: UnexpectedInput, text: str) -> int:
    if isinstance(err, UnexpectedToken) and err.token.type == "$END":
        return len(text)
    pos = getattr(err, "pos_in_stream", None)
    return len(text) if pos is None or pos < 0 else pos


def _start(value: Any, default: int) -> int:
    """Where a stack value (a token or a tree) starts."""
    if isinstance(value, Token):
        return value.start_pos if value.start_pos is not None else default
    if isinstance(value, Tree) and not value.meta.empty:
        return int(value.meta.start_pos)
    return default


def _opener(values: list[Any], at: int, line: int) -> Token | None:
    """The innermost bracket among popped stack values before offset ``at`` (tokens not yet
    reduced into a rule, so still open) when it opened on a line before ``line``."""
    closed = 0
    for v in reversed(values):
        if not isinstance(v, Token) or _start(v, at) >= at:
            continue
        if str(v) in _CLOSERS:
            closed += 1
        elif str(v) in _OPENERS:
            if closed:
                closed -= 1
                continue
            return v if (v.line or 0) < line else None
    return None


def _unclosed(opener: Token, at: int, source: Source) -> Diagnostic:
    shown = str(opener)
    close = _OPENERS[shown]
    start = opener.start_pos or 0
    if at >= len(source.text.rstrip()):  # the end of the file: right after its last token
        at = len(source.text.rstrip())
    there = source.span(at, min(at + 1, len(source.text)))
    return diag("E015", f"unclosed `{shown}`", source.span(start, start + 1), "opened here",
                hints=[f"close it with `{close}`"],
                secondary=[(there, f"`{close}` expected before this")])


def _inside_trajectory(values: list[Any], keyword: str) -> int | None:
    """The start offset of the trajectory being parsed (its keyword still on the stack)."""
    for v in values:
        if isinstance(v, Token) and v.type == keyword:
            return v.start_pos or 0
    return None


def _restart(run: _Run, ip: Any, pos: int, is_token: bool) -> tuple[int, int]:
    """Where parsing goes on after an error at ``pos``: ``(offset, stack depth)``. Candidates,
    in order: the start of the error's own line (when the statement or declaration being
    parsed, the one above the topmost boundary, began on an earlier line: it swallowed the
    line's first tokens; or at the top level, when the line starts a new item whose keyword
    an open trajectory read as a name), every later line start, the end of the file; depths
    from the top of the stack down. A restart below the top level needs the braces since the
    popped construct began balanced (no restart inside a block of the broken statement)."""
    text = run.source.text
    stack = ip.parser_state.state_stack
    values = ip.parser_state.value_stack
    depths = [i for i in range(len(stack) - 1, -1, -1) if stack[i] in run.boundaries]
    i = bisect_right(run.starts, pos)
    own = run.starts[i - 1] if i else None
    later = run.starts[i:] if not is_token else [s for s in run.starts if s >= pos]
    candidates = ([own] if own is not None and own < pos else []) + later + [len(text)]
    top = [d for d in depths[1:] if stack[d] in run.top] if stack[depths[0]] not in run.top else []
    for at in candidates:
        for depth in depths if at >= pos else depths[:1] + top:
            begun = _start(values[depth], pos) if depth < len(values) else pos
            if at <= pos and begun >= at:
                continue  # nothing popped before the restart: no progress
            if stack[depth] not in run.top and run.brace_depth(begun, at) != 0:
                continue
            if _viable(ip, at, depth, text):
                return at, depth
    return len(text), 0  # pragma: no cover - the start state accepts the end of the file


def _handle(run: _Run, err: UnexpectedInput) -> bool:
    """The ``on_error`` handler: record the error, pop and move to a restart (True), or give
    up (False) after :data:`MAX_ERRORS`."""
    text = run.source.text
    ip = err.interactive_parser
    state = ip.parser_state
    pos = _error_at(err, text)
    diagnostic = run.to_diagnostic(err, run.source)  # before the stacks change
    inside = _inside_trajectory(state.value_stack, run.trajectory_kw)
    if inside is None:
        run.outside = True
    else:
        run.broken.add(inside)
    at, depth = _restart(run, ip, pos, isinstance(err, UnexpectedToken))
    opener = None
    if at <= pos:  # the restart is where the error is: the construct popped was left open
        opener = _opener(state.value_stack[depth:], at, run.source.span(at, at).line)
    run.diagnostics.append(diagnostic if opener is None else _unclosed(opener, at, run.source))
    if len(run.diagnostics) >= MAX_ERRORS:
        run.gave_up = True
        return False
    del state.state_stack[depth + 1:]
    del state.value_stack[depth:]
    _move(ip, at, text)
    return True


def recover(lark: Lark, source: Source,
            to_diagnostic: Callable[[UnexpectedInput, Source], Diagnostic]) -> Recovered:
    """Parse ``source`` with error recovery (module docstring): one pass, which costs no more
    than lark's own parse when there is no error. ``lark`` must be the LALR parser with
    positions that :func:`edgedsl.syntax.parser.parse` uses; ``to_diagnostic`` turns one lark
    error into a diagnostic."""
    run = _Run(source, _line_starts(source.text), _braces(lark, source.text),
               _boundaries(lark, BOUNDARY_RULES), _boundaries(lark, frozenset({"_item"})),
               _first_terminal(lark, "trajectory"), to_diagnostic)
    try:
        tree = lark.parse(source.text, on_error=lambda e: _handle(run, e))
    except UnexpectedInput:  # given up
        tree = None
    diagnostics = sorted(run.diagnostics, key=lambda d: d.span.start if d.span else 0)
    if not diagnostics:
        return Recovered([], tree)
    if tree is None or run.outside or run.gave_up:
        return Recovered(diagnostics, None, run.broken)
    kept = [c for c in tree.children
            if not (isinstance(c, Tree) and c.data == "trajectory"
                    and not c.meta.empty and c.meta.start_pos in run.broken)]
    return Recovered(diagnostics, Tree(tree.data, kept, tree.meta), run.broken)
