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
  ``build.py``) inside the LALR parser, so no tree is built at all. Positions are propagated
  exactly as ``propagate_positions`` does for trees: a rule spans from its first to its last
  token, anonymous tokens such as ``)`` included, and a rule inlined by ``?`` spans its
  container. Before each rule method runs, ``builder.pos`` holds ``(start, end)`` of the rule
  (``(None, None)`` for an empty rule). Nesting deeper than :data:`MAX_DEPTH` raises
  :class:`TooDeep`. Syntax errors are reported by re-parsing with :func:`parse`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput
from lark.grammar import Rule, Terminal
from lark.parsers.lalr_analysis import Shift

from ..core.diagnostics import CompileError, Diagnostic, diag
from ..core.resources import grammar_path
from ..core.source import Source

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


MAX_DEPTH = 128
"""How deeply rules may nest (counted as levels of the lark tree) before ``E011``.

Every pass after the parser (build, check, lowering, plan, format, AST equality) recurses over
the tree and takes at most 3 frames per level, so a program at the limit needs under 400 of
Python's 1,000 frames, whatever calls the compiler. Real programs nest about 10 levels."""


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


def direct_parser(builder: Any, *, fused: bool = True) -> Callable[[str], Any]:
    """A function parsing text straight into what ``builder``'s rule methods return.

    ``builder`` needs a method per name of :func:`rule_names` (taking the rule's children, as
    a lark tree would hold them) and a ``comment(token)`` method receiving every comment token.
    The returned function raises lark's ``UnexpectedInput`` on a syntax error and
    :class:`TooDeep` on pathological nesting. A builder with a ``positioned_tokens`` set
    receives the other kept tokens (names, operators) as plain strings from the fused loop.

    By default the lexer and the LALR loop are :func:`_fused` into one loop over lark's own
    tables (lark's contextual lexer and parser, exactly, without their per-token overhead);
    ``fused=False``, or a lark whose tables cannot be read, installs the builder as lark's
    reduction callbacks instead.
    """
    missing = [x for x in rule_names() if not callable(getattr(builder, x, None))]
    if missing:
        raise TypeError(f"builder lacks rule methods: {', '.join(missing)}")
    lark = _new_lark(
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": builder.comment},
    )
    for rule in lark.rules:
        if rule.options.template_source is not None:  # pragma: no cover - no templates
            raise RuntimeError("grammar templates are not supported by the direct builder")
    if fused:
        try:
            return _fused(lark, builder)
        except _Unsupported:  # pragma: no cover - lark changed: its own loop still works
            pass
    callbacks = lark._callbacks  # the dict the LALR parser calls on each reduction
    if lark.parser.parser.parser.callbacks is not callbacks:  # pragma: no cover - lark changed
        raise RuntimeError("unsupported lark version: cannot install the direct builder")
    for rule in lark.rules:
        method = getattr(builder, str(rule.alias or rule.origin.name)) if _builds(rule) else None
        callbacks[rule] = _reduction(rule, method, builder)

    def run(text: str) -> Any:
        result = lark.parse(text)
        return result.value if result.__class__ is _Pos else result

    return run


class NoParse(UnexpectedInput):
    """A syntax error found by a fused parser (:func:`_fused`); only its position is known.

    Callers re-parse with :func:`parse` for the diagnostic (lark's own exception, message and
    ``match_examples``)."""

    def __init__(self, pos: int) -> None:
        super().__init__(f"syntax error at offset {pos}")
        self.pos_in_stream = pos  # type: ignore[assignment]


class _max2:  # a marker read in the loop: the two children of a rule that are rules
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: int) -> None:
        self.a = a
        self.b = b


_DEPTH_BITS = 16
_DEPTH_MASK = (1 << _DEPTH_BITS) - 1


class _Unsupported(Exception):
    """lark's tables are not laid out as :func:`_fused` expects."""


def _transparent(rules: list[Rule]) -> frozenset[str]:
    """``_rule``s whose every alternative is one rule that is not inlined itself (``_stmt:
    binding | if_stmt | …``): each stands for exactly one value, so the fused loop passes it
    through like ``?a: b`` instead of wrapping it in a list for its parent to splice."""
    alts: dict[str, list[Rule]] = {}
    for r in rules:
        alts.setdefault(str(r.origin.name), []).append(r)
    return frozenset(
        name for name, rs in alts.items()
        if name.startswith("_") and not name.startswith("__") and all(
            len(r.expansion) == 1 and not r.expansion[0].is_term and not r.alias
            and not r.expansion[0].name.startswith("_") and not r.options.empty_indices
            for r in rs))


def _selector(rule: Rule, transparent: frozenset[str] = frozenset()) -> tuple[
        Callable[[list[Any]], list[Any]] | None, bool, bool]:
    """How one rule turns its ``len(expansion)`` stack values into its children (lark's filter:
    anonymous tokens dropped, ``[x]`` placeholders, ``_rule`` lists spliced in, a
    ``transparent`` rule's one value taken as it is): a function (``None`` when the values are
    the children as they are), whether the rule is ``?rule`` passing one child through, and
    whether it is exactly ``?a: b`` (nothing to do at all)."""
    expansion = rule.expansion
    keep_all = rule.options.keep_all_tokens
    expand1 = bool(rule.options.expand1 and not rule.alias)
    empty = rule.options.empty_indices
    if empty:
        runs = [len(ones) for ones in "".join(str(int(b)) for b in empty).split("0")]
    else:
        runs = [0] * (len(expansion) + 1)
    parts: list[str] = []
    plain = True
    for i, sym in enumerate(expansion):
        if runs[i]:
            parts += ["None"] * runs[i]
            plain = False
        if keep_all or not (isinstance(sym, Terminal) and sym.filter_out):
            if not sym.is_term and sym.name.startswith("_") and sym.name not in transparent:
                parts.append(f"*c[{i}]")
                plain = False
            else:
                parts.append(f"c[{i}]")
        else:
            plain = False
    if runs[len(expansion)]:
        parts += ["None"] * runs[len(expansion)]
        plain = False
    if (expand1 and len(parts) != 1) or (parts and parts[0] == "None" and expand1):
        raise RuntimeError(f"`?{rule.origin.name}` alternatives without an alias take one child")
    if expand1 and parts[0].startswith("*"):
        raise RuntimeError(f"`?{rule.origin.name}` alternatives without an alias take one child")
    passthrough = expand1 and len(expansion) == 1 and plain
    if plain:
        return None, expand1, passthrough
    if parts and all(p.startswith("c[") for p in parts):  # a selection: done in C
        index = [int(p[2:-1]) for p in parts]
        if index == list(range(index[0], index[-1] + 1)):
            return itemgetter(slice(index[0], index[-1] + 1)), expand1, passthrough  # a list
        return itemgetter(*index), expand1, passthrough  # a tuple: children are read only
    code = "lambda c: [" + ", ".join(parts) + "]"
    return eval(code, {"__builtins__": {}}), expand1, passthrough  # indices only


def _fused(lark: Lark, builder: Any, trace: list[Token] | None = None) -> Callable[[str], Any]:
    """lark's contextual lexer and LALR parser, as one loop over lark's own tables.

    Per parser state, the token is matched with the same compiled alternation lark's lexer for
    that state uses (same terminals, same order, keywords found through the same "unless"
    sets), preceded by the ignored whitespace; positions, line and column are counted as lark
    counts them. The parser acts on lark's parse table; reductions filter children, propagate
    positions and call the builder exactly as :func:`_reduction` does. Tokens that no rule
    keeps are never made into :class:`lark.Token` objects; a ``_rule`` that stands for one
    value (:func:`_transparent`) passes it through instead of a one-item list, and the stacks
    grow but never shrink (``benchmarks/bench_compile_instructions.py`` counts what each of
    these saves). Any syntax error raises
    :class:`NoParse`. With ``trace``, every token (comments included) is appended to it
    (tests compare it with lark's own token stream).
    """
    try:
        table = lark.parser.parser.parser.parse_table
        clexer = lark.parser.lexer
        lexers = clexer.lexers
        start_state = table.start_states["start"]
        end_state = table.end_states["start"]
        conf = lark.lexer_conf
    except (AttributeError, KeyError) as err:  # pragma: no cover - lark changed
        raise _Unsupported from err
    if conf.g_regex_flags or conf.use_bytes or conf.re_module is not re or lark.options.postlex:
        raise _Unsupported  # pragma: no cover - not how our Lark is configured
    ignore = frozenset(conf.ignore)
    ws_term = lark.get_terminal("WS") if "WS" in ignore else None
    if ws_term is None or ignore != {"WS", "COMMENT"}:
        raise _Unsupported  # pragma: no cover - the grammar changed
    ws_class = ws_term.pattern.to_regexp()
    m = re.fullmatch(r"\(\?:(\[[^\]]*\])\)\+", ws_class)
    if m is None:
        raise _Unsupported  # pragma: no cover - the grammar changed
    ws_class = m.group(1)
    comment_cb = conf.callbacks.get("COMMENT")
    if comment_cb is None or set(conf.callbacks) != {"COMMENT"}:
        raise _Unsupported  # pragma: no cover - the grammar changed

    # ---- rules: (size, origin, select, method or None, expand1, depth_at); size -1: `?a: b`
    rule_index: dict[Rule, int] = {}
    rules: list[tuple[int, str, Any, Any, bool, Any]] = []
    kept: set[str] = set()
    transparent = _transparent(lark.rules)
    for rule in lark.rules:
        select, expand1, passthrough = _selector(rule, transparent)
        method = getattr(builder, str(rule.alias or rule.origin.name)) if _builds(rule) else None
        size = -1 if passthrough or str(rule.origin.name) in transparent else len(rule.expansion)
        rule_index[rule] = len(rules)
        # where the children that are rules sit on the stack (tokens have depth 0)
        inner = tuple(i - len(rule.expansion) for i, sym in enumerate(rule.expansion)
                      if not sym.is_term)
        depth_at: Any = None if not inner else inner[0] if len(inner) == 1 else inner
        if len(inner) == 2:
            depth_at = _max2(*inner)
        rules.append((size, str(rule.origin.name), select, method, expand1, depth_at))
        for sym in rule.expansion:
            if isinstance(sym, Terminal) and (rule.options.keep_all_tokens or not sym.filter_out):
                kept.add(sym.name)
    if trace is not None:
        kept = {t.name for t in lark.terminals}
    # kept tokens the builder reads as text only are passed as plain strings (no Token made)
    positioned = getattr(builder, "positioned_tokens", None)
    plain = frozenset() if positioned is None or trace is not None else kept - set(positioned)

    # ---- states: actions (shift to s >= 0, reduce rule r as ~r), lexer of the state
    actions: dict[int, dict[str, int]] = {}
    for state, acts in table.states.items():
        row: dict[str, int] = {}
        for sym, (action, arg) in acts.items():
            if action is Shift:
                row[str(sym)] = arg
            else:
                row[str(sym)] = ~rule_index[arg]
        actions[state] = row

    newline_types: set[str] = set()
    compiled: dict[int, tuple[Any, dict[str, dict[str, str]]]] = {}
    state_lex: dict[int, tuple[Any, dict[str, dict[str, str]]]] = {}
    for state, blexer in lexers.items():
        key = id(blexer)
        if key not in compiled:
            try:
                scanner = blexer.scanner
                mres = scanner._mres
                callbacks = blexer.callback
                newline_types |= blexer.newline_types
            except AttributeError as err:  # pragma: no cover - lark changed
                raise _Unsupported from err
            if len(mres) != 1 or set(blexer.ignore_types) != ignore:
                raise _Unsupported  # pragma: no cover
            unless: dict[str, dict[str, str]] = {}
            for typ, cb in callbacks.items():
                if typ == "COMMENT" and cb is comment_cb:
                    continue
                keywords = getattr(cb, "scanner", None)
                if keywords is None or cb.__class__.__name__ != "UnlessCallback":
                    raise _Unsupported  # pragma: no cover
                words: dict[str, str] = {}
                for term in keywords.terminals:
                    if term.pattern.type != "str" or term.pattern.flags:
                        raise _Unsupported  # pragma: no cover
                    words.setdefault(term.pattern.value, term.name)
                unless[typ] = words
            alts = [f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in scanner.terminals]
            if "|".join(alts) != mres[0].pattern:
                raise _Unsupported  # pragma: no cover - lark builds its scanner differently
            # whitespace is skipped by the prefix; the rest is tried in lark's order
            # each terminal's group is an empty marker at the end of its alternative, so the
            # alternative starts with its first character or class, which ``re`` checks before
            # entering it (a leading group would be entered, and left, for every alternative)
            alts = [f"{t.pattern.to_regexp()}(?P<{t.name}>)" for t in scanner.terminals
                    if t.name != "WS"]
            pattern = re.compile(f"({ws_class}*)(?:{'|'.join(alts)})")
            compiled[key] = (pattern.match, unless)
        state_lex[state] = compiled[key]
    ws_match = re.compile(f"{ws_class}*").match
    if set(actions) != set(state_lex):  # pragma: no cover
        raise _Unsupported
    # lines are counted as lark counts them, in the text between tokens that carry positions;
    # that is exact when only terminals lark checks for newlines can hold one
    for term in lark.terminals:
        if term.name not in newline_types and term.pattern.type == "re":
            rx = re.sub(r"\\[.+\-*?()\[\]{}|^$/]", "", term.pattern.to_regexp())
            if "\\" in rx or "." in rx or "[^" in rx or "\n" in rx:
                raise _Unsupported  # pragma: no cover - the grammar changed
    # non-nullable symbols make a rule's extent run from its first child to the last token
    nullable = {str(r.origin.name) for r in lark.rules if not r.expansion}
    if nullable - {"start"} or any(str(sym.name) in nullable for r in lark.rules
                                   for sym in r.expansion):
        raise _Unsupported  # pragma: no cover - the grammar changed
    # what a lexed token needs beyond its type: 1 a comment, 2 keywords hidden in it, 3 a Token
    special: dict[str, int] = {t: 3 for t in kept}
    for _match, unless in compiled.values():
        for typ in unless:
            special[typ] = 2
    special["COMMENT"] = 1
    if any(row.get("$END", -1) >= 0 for row in actions.values()):
        raise _Unsupported  # pragma: no cover - lark never shifts the end of input
    # per state (states are 0…n-1): (match, unless, actions), and the actions alone
    if set(actions) != set(range(len(actions))):  # pragma: no cover - lark numbers states
        raise _Unsupported
    info = [(*state_lex[s], actions[s]) for s in range(len(actions))]
    acts_of = [actions[s] for s in range(len(actions))]
    # per rule: (size, goto: state below → state after, select, method, expand1, depth_at)
    gotos: dict[str, list[int]] = {origin: [-1] * len(actions) for _, origin, *_ in rules}
    for state, row in actions.items():
        for symbol, target in row.items():
            if symbol in gotos:
                gotos[symbol][state] = target
    rules_t = tuple((size, gotos[origin], *rest) for size, origin, *rest in rules)
    if MAX_DEPTH >= _DEPTH_MASK:  # pragma: no cover - depths are packed below starts
        raise _Unsupported
    new_str = str.__new__
    max_depth = MAX_DEPTH
    bits = _DEPTH_BITS
    mask = _DEPTH_MASK

    def run(text: str) -> Any:
        pos = 0  # where lexing goes on
        cpos = 0  # where line counting stopped
        line = 1
        lstart = 0  # offset where the current line starts
        last_end = 0  # end of the last token shifted: the end of every rule reduced next
        # the stacks are preallocated and never shrink (a list shrinking below half its size
        # is reallocated; popping a stack and pushing it again did so all the time): ``n``
        # values, ``st[n]`` the current state; doubled when a shift would fill them (only a
        # shift, and the empty file's one reduction, push more than they pop)
        cap = 64
        n = 0
        st = [start_state] * (cap + 1)  # states
        vals: list[Any] = [None] * cap  # values: rule results, kept tokens, None
        sp = [0] * cap  # start << _DEPTH_BITS | nesting depth, per value
        match, unless, acts = info[start_state]
        get_special = special.get
        while True:
            # ---- the next token, in the lexer of the current state
            while True:
                m = match(text, pos)
                if m is None:
                    rest = ws_match(text, pos)
                    pos = rest.end() if rest is not None else pos
                    if pos < len(text):
                        raise NoParse(pos)
                    typ = "$END"
                    tok = None
                    break
                typ = m.lastgroup
                s = m.end(1)  # after the whitespace
                e = m.end()
                k = get_special(typ)
                pos = e
                if k is None:
                    tok = None
                    break
                value: Any = text[s:e]
                if k == 2 and typ in unless:
                    typ = unless[typ].get(value, typ)
                    if typ not in kept:
                        tok = None
                        break
                if typ in plain:
                    tok = value
                    break
                if text.find("\n", cpos, s) >= 0:
                    line += text.count("\n", cpos, s)
                    lstart = text.rfind("\n", cpos, s) + 1
                cpos = s
                col = s - lstart + 1
                tok = new_str(Token, value)  # Token(typ, value, s, line, col, …) without
                tok.type = typ  # its argument checks, three times faster
                tok.value = value
                tok.start_pos = s
                tok.line = line
                tok.column = col
                if "\n" in value:  # pragma: no cover - no token of ours spans lines
                    line += value.count("\n")
                    lstart = s + value.rindex("\n") + 1
                    cpos = e
                tok.end_line = line
                tok.end_column = e - lstart + 1
                tok.end_pos = e
                if k == 1:
                    comment_cb(tok)
                    if trace is not None:
                        trace.append(tok)
                    continue
                if trace is not None:
                    trace.append(tok)
                break
            # ---- reduce as the token asks, then shift it
            while True:
                try:
                    a = acts[typ]
                except KeyError:
                    raise NoParse(pos) from None
                if a >= 0:
                    if n + 2 >= cap:
                        vals += [None] * cap
                        sp += [0] * cap
                        st += [0] * cap
                        cap *= 2
                    vals[n] = tok
                    sp[n] = s << bits
                    n += 1
                    st[n] = a
                    last_end = e
                    match, unless, acts = info[a]
                    break
                size, goto, select, method, expand1, depth_at = rules_t[~a]
                if size < 0:  # `?a: b`: the child itself, extent and depth unchanged
                    st[n] = a = goto[st[n - 1]]
                    if typ == "$END" and a == end_state:  # pragma: no cover - `start` is a rule
                        return vals[n - 1]
                    acts = acts_of[a]
                    continue
                if size == 1:
                    n -= 1
                    children = [vals[n]]
                    packed = sp[n]
                    start = packed >> bits
                    depth = packed & mask
                    if select is not None:
                        children = select(children)
                elif size:
                    children = vals[n - size:n]
                    start = sp[n - size] >> bits
                    if depth_at is None:
                        depth = 0
                    elif depth_at.__class__ is int:
                        depth = sp[n + depth_at] & mask
                    elif depth_at.__class__ is _max2:
                        depth = sp[n + depth_at.a] & mask
                        other = sp[n + depth_at.b] & mask
                        if other > depth:
                            depth = other
                    else:
                        depth = max([sp[n + i] & mask for i in depth_at])
                    n -= size
                    if select is not None:
                        children = select(children)
                else:  # the empty file: `start` with no item
                    children = []
                    depth = 0
                    builder.pos = (None, None)
                    value = method(children)
                    a = goto[st[n]]
                    if typ == "$END" and a == end_state:
                        return value
                    raise NoParse(pos)  # pragma: no cover - only `start` is empty
                if method is not None:
                    builder.pos = (start, last_end)
                    value = method(children)
                    depth += 1
                    if depth > max_depth:
                        raise TooDeep
                elif expand1:
                    value = children[0]
                else:
                    value = children  # `_rule`: spliced into its parent
                a = goto[st[n]]
                vals[n] = value
                sp[n] = start << bits | depth
                n += 1
                st[n] = a
                if a == end_state and typ == "$END":
                    return value
                acts = acts_of[a]

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


def parse(source: Source | str, name: str = "<string>") -> ParseResult:
    """Parse text into a lark tree; raise CompileError with one ``E0xx`` diagnostic on failure
    (``E011`` when it nests deeper than :data:`MAX_DEPTH`: every pass over the tree, lark's
    printing included, recurses)."""
    src = source if isinstance(source, Source) else Source(name, source)
    _local.comments = []
    try:
        tree = _lark().parse(src.text)
    except UnexpectedInput as err:
        raise CompileError("parse", [_error_to_diagnostic(err, src)]) from None
    finally:
        comments = _local.comments
        _local.comments = None
    error = too_deep(src, tree)
    if error is not None:
        raise error
    return ParseResult(tree, comments, src)
