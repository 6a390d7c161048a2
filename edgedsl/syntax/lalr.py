"""The fused lexer + LALR loop: text straight into a builder's values, no tree, no Token per name.

One function, :func:`fused_parser`, makes a parse function out of a :class:`lark.Lark` (LALR,
contextual lexer) and a *builder* (an object with one method per named rule, see
``build.py``). It reads from lark only what lark documents: the grammar's terminal definitions
(``Lark.terminals``, ``Lark.ignore_tokens``), its rules (``Lark.rules``) and the LALR parse table
(as an interactive parser exposes it, ``Lark.parse_interactive().parser_state``). From them it
derives what lark's contextual lexer derives (per parser state, the terminals the state accepts
plus the ignored ones, in lark's order, with keywords found inside names as lark's "unless"
rule finds them) and runs lexer and parser as one loop.

Positions are propagated exactly as ``propagate_positions`` does for trees: a rule spans from
its first to its last token, anonymous tokens such as ``)`` included, and a rule inlined by
``?`` spans its container. Before each rule method runs, ``builder.pos`` holds ``(start, end)``
of the rule (``(None, None)`` for an empty rule). Children are filtered as lark filters a tree's
children (anonymous tokens dropped, ``[x]`` placeholders, ``_rule`` children spliced in, ``?rule``
single child passed through); a ``_rule`` standing for exactly one rule (:func:`transparent`) is
passed through as its value. Nesting deeper than :data:`MAX_DEPTH` raises :class:`TooDeep`; any
syntax error raises :class:`NoParse` (callers re-parse with lark for the diagnostic).

lark's own loop is the oracle (``tests/syntax/test_parser_fused.py``): the same token stream as
lark's contextual lexer, the same builder calls as a walk over lark's tree, the same failures.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from lark.grammar import Rule, Terminal
from lark.lexer import PatternRE, PatternStr, TerminalDef
from lark.parsers.lalr_analysis import Shift

MAX_DEPTH = 128
"""How deeply rules may nest (counted as levels of the lark tree) before ``E011``.

Every pass after the parser (build, check, lowering, plan, format, AST equality) recurses over
the tree and takes at most 3 frames per level, so a program at the limit needs under 400 of
Python's 1,000 frames, whatever calls the compiler. Real programs nest about 10 levels."""


class TooDeep(Exception):
    """Raised by a fused parser when the input nests deeper than :data:`MAX_DEPTH`."""


class NoParse(UnexpectedInput):
    """A syntax error found by a fused parser; only its position is known.

    Callers re-parse with lark for the diagnostic (lark's own exception, message and
    ``match_examples``)."""

    def __init__(self, pos: int) -> None:
        super().__init__(f"syntax error at offset {pos}")
        self.pos_in_stream = pos  # type: ignore[assignment]


Located = tuple[str, int]
"""A token's text and the offset where it starts: what a builder reads of a name whose position
it keeps but whose line it does not need. A plain tuple: a ``str`` subclass carrying
``start_pos`` (as :class:`lark.Token` does) needs an instance dict, and made, read and copied
back into a plain ``str`` it cost ~2,100 more instructions per name than the pair."""


class Unsupported(RuntimeError):
    """The grammar or lark's configuration is not what the fused loop implements."""


class _max2:  # a marker read in the loop: the two children of a rule that are rules
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: int) -> None:
        self.a = a
        self.b = b


_DEPTH_BITS = 16
_DEPTH_MASK = (1 << _DEPTH_BITS) - 1


def builds(rule: Rule) -> bool:
    """Whether a rule's reduction calls a builder method (not inlined by ``_`` or ``?``)."""
    return bool(rule.alias) or not (rule.options.expand1 or rule.origin.name.startswith("_"))


def transparent(rules: Iterable[Rule]) -> frozenset[str]:
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


def _splicer(steps: tuple[tuple[int, bool], ...]) -> Callable[[list[Any]], list[Any]]:
    """Children from stack values by ``steps``: ``(i, False)`` takes value ``i``, ``(i, True)``
    splices the list value ``i`` in, ``(-1, _)`` is a ``[x]`` placeholder (None)."""

    def select(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for i, splice in steps:
            if i < 0:
                out.append(None)
            elif splice:
                out += values[i]
            else:
                out.append(values[i])
        return out

    return select


def _no_children(values: list[Any]) -> list[Any]:
    """The children of a rule whose every token is anonymous: none."""
    return []


def _selector(rule: Rule, through: frozenset[str] = frozenset()) -> tuple[
        Callable[[list[Any]], Any] | None, bool, bool]:
    """How one rule turns its ``len(expansion)`` stack values into its children (lark's filter:
    anonymous tokens dropped, ``[x]`` placeholders, ``_rule`` lists spliced in, a
    ``through`` rule's one value taken as it is): a function (``None`` when the values are
    the children as they are), whether the rule is ``?rule`` passing one child through, and
    whether it is exactly ``?a: b`` (nothing to do at all)."""
    expansion = rule.expansion
    keep_all = rule.options.keep_all_tokens
    expand1 = bool(rule.options.expand1 and not rule.alias)
    empty = rule.options.empty_indices
    if empty:  # how many placeholders go before each symbol (and after the last one)
        runs = [len(ones) for ones in "".join(str(int(b)) for b in empty).split("0")]
    else:
        runs = [0] * (len(expansion) + 1)
    steps: list[tuple[int, bool]] = []
    for i, sym in enumerate(expansion):
        steps += [(-1, False)] * runs[i]
        if keep_all or not (isinstance(sym, Terminal) and sym.filter_out):
            steps.append((i, not sym.is_term and sym.name.startswith("_")
                          and sym.name not in through))
    steps += [(-1, False)] * runs[len(expansion)]
    if expand1 and (len(steps) != 1 or steps[0][0] < 0 or steps[0][1]):
        raise Unsupported(f"`?{rule.origin.name}` alternatives without an alias take one child")
    index = [i for i, _ in steps]
    plain = index == list(range(len(expansion))) and not any(s for _, s in steps)
    passthrough = expand1 and len(expansion) == 1 and plain
    if plain:
        return None, expand1, passthrough
    if not steps:  # every token anonymous: `true_lit: "true"`
        return _no_children, expand1, passthrough
    if all(i >= 0 and not s for i, s in steps):  # a selection: done in C
        if index == list(range(index[0], index[-1] + 1)):
            return itemgetter(slice(index[0], index[-1] + 1)), expand1, passthrough  # a list
        return itemgetter(*index), expand1, passthrough  # a tuple: children are read only
    return _splicer(tuple(steps)), expand1, passthrough


def _may_hold_newline(regexp: str) -> bool:
    """lark's test of whether a terminal may match a newline (then it counts lines in it)."""
    return ("\n" in regexp or "\\n" in regexp or "\\s" in regexp or "[^" in regexp
            or ("(?s" in regexp and "." in regexp))


def _alone(regexp: str) -> str:
    """``regexp`` made safe to follow with a marker group: in a non-capturing group when it
    may hold an alternation (``a|b(?P<M>)`` would mark ``b`` only); as it is otherwise, which
    keeps ``re``'s first-character check in front of the alternative."""
    return f"(?:{regexp})" if "|" in regexp else regexp


def _lark_order(terminals: Iterable[TerminalDef]) -> list[TerminalDef]:
    """Terminals in the order lark's lexer tries them (priority, then longest possible match)."""
    return sorted(terminals, key=lambda t: (-t.priority, -t.pattern.max_width,
                                            -len(t.pattern.value), t.name))


def _unless(terminals: list[TerminalDef]) -> tuple[list[TerminalDef], dict[str, dict[str, str]]]:
    """lark's "unless" rule: a string terminal (a keyword) that a regexp terminal of the same
    priority matches as a whole is found through that terminal (the matched text is looked up
    among its keywords) instead of being tried on its own. Returns the terminals still tried,
    and per regexp terminal its keywords (text → terminal name, the first in lark's order)."""
    embedded: set[str] = set()
    unless: dict[str, dict[str, str]] = {}
    strs = [t for t in terminals if isinstance(t.pattern, PatternStr)]
    for retok in terminals:
        if not isinstance(retok.pattern, PatternRE):
            continue
        words: dict[str, str] = {}
        for strtok in strs:
            if strtok.priority != retok.priority:
                continue
            s = strtok.pattern.value
            m = re.match(retok.pattern.to_regexp(), s)
            if m is None or m.group(0) != s:
                continue
            if strtok.pattern.flags:
                raise Unsupported("a keyword with flags")  # pragma: no cover - none of ours
            words.setdefault(s, strtok.name)
            embedded.add(strtok.name)  # no flags: a subset of the regexp's, as lark asks
        if words:
            unless[retok.name] = words
    return [t for t in terminals if t.name not in embedded], unless


def parse_table(lark: Lark) -> Any:
    """lark's LALR parse table (``states``: state → symbol → (Shift, state) or (Reduce,
    rule); ``start_states``, ``end_states``), as its interactive parser holds it."""
    try:
        return lark.parse_interactive("").parser_state.parse_conf.parse_table
    except AttributeError as err:  # pragma: no cover - lark changed
        raise Unsupported("lark's interactive parser holds no parse table") from err


def fused_parser(lark: Lark, builder: Any, *, trace: list[Token] | None = None) -> Callable[
        [str], Any]:
    """A function parsing text straight into what ``builder``'s rule methods return.

    ``builder`` needs a method per rule that :func:`builds` (taking the rule's children, as a
    lark tree would hold them), a ``pos`` attribute and a ``comment(token)`` method receiving
    every comment token. A builder with a ``positioned_tokens`` set receives the other kept
    tokens (names, operators) as plain strings, except those in its ``located_tokens`` set,
    which come as :data:`Located` pairs ``(text, start)`` (no line counting).
    Tokens that no rule keeps are never made into :class:`lark.Token` objects, and the stacks
    grow but never shrink (``benchmarks/bench_compile_instructions.py`` counts what each of
    these saves). With ``trace``, every token (comments included) is appended to it as a
    :class:`lark.Token`.
    Raises :class:`Unsupported` when the grammar or lark's configuration is not one it
    implements.
    """
    opts = lark.options
    if (opts.parser != "lalr" or opts.lexer != "contextual" or opts.postlex is not None
            or opts.g_regex_flags or opts.use_bytes or opts.regex):
        raise Unsupported("a LALR parser with lark's contextual lexer and the re module")
    table = parse_table(lark)
    start_state = table.start_states["start"]
    end_state = table.end_states["start"]
    terminals = {t.name: t for t in lark.terminals}
    ignore = frozenset(lark.ignore_tokens)
    if ignore != {"WS", "COMMENT"}:
        raise Unsupported("whitespace and comments are the ignored terminals")
    ws = re.fullmatch(r"\(\?:(\[[^\]]*\])\)\+", terminals["WS"].pattern.to_regexp())
    if ws is None:
        raise Unsupported("whitespace is one character class, repeated")
    ws_class = ws.group(1)
    comment_cb = builder.comment

    # ---- rules: (size, origin, select, method or None, expand1, depth_at); size -1: `?a: b`
    rule_index: dict[Rule, int] = {}
    rules: list[tuple[int, str, Any, Any, bool, Any]] = []
    kept: set[str] = set()
    through = transparent(lark.rules)
    for rule in lark.rules:
        if rule.options.template_source is not None:  # pragma: no cover - no templates
            raise Unsupported("grammar templates")
        select, expand1, passthrough = _selector(rule, through)
        method = getattr(builder, str(rule.alias or rule.origin.name)) if builds(rule) else None
        size = -1 if passthrough or str(rule.origin.name) in through else len(rule.expansion)
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
        kept = set(terminals)
    # kept tokens the builder reads as text only are passed as plain strings (no Token made)
    positioned = getattr(builder, "positioned_tokens", None)
    plain = frozenset() if positioned is None or trace is not None else kept - set(positioned)
    located = plain & frozenset(getattr(builder, "located_tokens", ()))
    plain -= located

    # ---- states: actions (shift to s >= 0, reduce rule r as ~r), lexer of the state
    actions: dict[int, dict[str, int]] = {}
    for state, acts in table.states.items():
        row: dict[str, int] = {}
        for sym, (action, arg) in acts.items():
            row[str(sym)] = arg if action is Shift else ~rule_index[arg]
        actions[state] = row
    compiled: dict[frozenset[str], tuple[Any, dict[str, dict[str, str]]]] = {}
    state_lex: dict[int, tuple[Any, dict[str, dict[str, str]]]] = {}
    for state, row in actions.items():
        key = frozenset(row)
        if key not in compiled:  # lark's contextual lexer: what the state accepts, and ignores
            accepted = _lark_order(terminals[x] for x in key | ignore if x in terminals)
            tried, unless = _unless(accepted)
            # whitespace is skipped by the prefix; the rest is tried in lark's order. Each
            # terminal's group is an empty marker at the end of its alternative, so the
            # alternative starts with its first character or class, which ``re`` checks before
            # entering it (a leading group would be entered, and left, for every alternative)
            alts = [f"{_alone(t.pattern.to_regexp())}(?P<{t.name}>)" for t in tried
                    if t.name != "WS"]
            pattern = re.compile(f"({ws_class}*)(?:{'|'.join(alts)})")
            compiled[key] = (pattern.match, unless)
        state_lex[state] = compiled[key]
    ws_match = re.compile(f"{ws_class}*").match
    # lines are counted as lark counts them, in the text between tokens that carry positions;
    # that is exact when only terminals lark checks for newlines can hold one
    for term in terminals.values():
        regexp = term.pattern.to_regexp()
        if not _may_hold_newline(regexp) and isinstance(term.pattern, PatternRE):
            rx = re.sub(r"\\[.+\-*?()\[\]{}|^$/]", "", regexp)
            if "\\" in rx or "." in rx or "[^" in rx or "\n" in rx:
                raise Unsupported("a terminal may hold a newline unseen")  # pragma: no cover
    # non-nullable symbols make a rule's extent run from its first child to the last token
    nullable = {str(r.origin.name) for r in lark.rules if not r.expansion}
    if nullable - {"start"} or any(str(sym.name) in nullable for r in lark.rules
                                   for sym in r.expansion):
        raise Unsupported("only `start` may be empty")  # pragma: no cover
    # what a lexed token needs beyond its type: 1 a comment, 2 keywords hidden in it, 3 a Token
    special: dict[str, int] = {t: 3 for t in kept}
    for _match, unless in compiled.values():
        for typ in unless:
            special[typ] = 2
    special["COMMENT"] = 1
    if any(row.get("$END", -1) >= 0 for row in actions.values()):
        raise Unsupported("lark shifts the end of input")  # pragma: no cover
    # per state (states are 0…n-1): (match, unless, actions), and the actions alone
    if set(actions) != set(range(len(actions))):  # pragma: no cover - lark numbers states
        raise Unsupported("states are not numbered 0…n-1")
    info = [(*state_lex[s], actions[s]) for s in range(len(actions))]
    acts_of = [actions[s] for s in range(len(actions))]
    # per rule: (size, goto: state below → state after, select, method, expand1, depth_at)
    gotos: dict[str, list[int]] = {origin: [-1] * len(actions) for _, origin, *_ in rules}
    for state, row in actions.items():
        for symbol, target in row.items():
            if symbol in gotos:
                gotos[symbol][state] = target
    rules_t = tuple((size, gotos[origin], *rest) for size, origin, *rest in rules)
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
                if typ in located:
                    tok = (value, s)
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
    return run
