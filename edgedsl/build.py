"""Stage `build`: lark tree → AST (``nodes.py``), then comments attached at statement level.

The transformer is the only place that knows rule names of ``grammar/edge.lark``; nothing of
lark leaks past it. Comments are assigned by position in a second step: a comment on the line a
statement ends is its ``trailing`` comment, comments before a statement are its leading
``comments``, comments after the last statement of a block are the block's ``end_comments``, and
comments inside a statement (between the arguments of a multi-line call, say) are hoisted to
that statement's leading comments.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import threading
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from . import nodes as n
from .diagnostics import CompileError, Diagnostic, Diagnostics, diag
from .parser import MAX_DEPTH, ParseResult, TooDeep, direct_parser, parse, too_deep
from .reduce.registry import BY_SURFACE
from .source import Source, Span, maker
from .types import CodePatternError, code_pattern

# Node constructors without ``type.__call__`` (:func:`~edgedsl.source.maker`): the builder
# makes every node of every compiled file.
_AnswerField = maker(n.AnswerField)
_AnswerStmt = maker(n.AnswerStmt)
_Arg = maker(n.Arg)
_BaseDecl = maker(n.BaseDecl)
_BinOp = maker(n.BinOp)
_Binding = maker(n.Binding)
_BoolLit = maker(n.BoolLit)
_Branch = maker(n.Branch)
_Call = maker(n.Call)
_Compare = maker(n.Compare)
_DateLit = maker(n.DateLit)
_DictLit = maker(n.DictLit)
_Drv = maker(n.Drv)
_EnumTypeExpr = maker(n.EnumTypeExpr)
_EnvelopeDecl = maker(n.EnvelopeDecl)
_FanArg = maker(n.FanArg)
_FieldDecl = maker(n.FieldDecl)
_FuncCall = maker(n.FuncCall)
_IfStmt = maker(n.IfStmt)
_ListLit = maker(n.ListLit)
_ListTypeExpr = maker(n.ListTypeExpr)
_Module = maker(n.Module)
_NameExpr = maker(n.NameExpr)
_NamedTypeExpr = maker(n.NamedTypeExpr)
_Neg = maker(n.Neg)
_NumberLit = maker(n.NumberLit)
_PagedOpt = maker(n.PagedOpt)
_Parallel = maker(n.Parallel)
_ParamDecl = maker(n.ParamDecl)
_PlatformDecl = maker(n.PlatformDecl)
_PredAnd = maker(n.PredAnd)
_PredCmp = maker(n.PredCmp)
_PredExists = maker(n.PredExists)
_PredNot = maker(n.PredNot)
_PredOr = maker(n.PredOr)
_QuotaDecl = maker(n.QuotaDecl)
_RecordDecl = maker(n.RecordDecl)
_Reducer = maker(n.Reducer)
_Ref = maker(n.Ref)
_SayStmt = maker(n.SayStmt)
_SecretDecl = maker(n.SecretDecl)
_SeqArg = maker(n.SeqArg)
_SharedArg = maker(n.SharedArg)
_StringLit = maker(n.StringLit)
_ToolDecl = maker(n.ToolDecl)
_Trajectory = maker(n.Trajectory)
_TypeDecl = maker(n.TypeDecl)
_UseDecl = maker(n.UseDecl)


@dataclasses.dataclass(frozen=True)
class _Block:
    stmts: tuple[Any, ...]
    span: Span


@dataclasses.dataclass(frozen=True)
class _Http:
    method: str
    path: str


@dataclasses.dataclass(frozen=True)
class _Returns:
    name: str
    many: bool


def _unquote(tok: Token) -> str:
    return str(orjson.loads(str(tok)))


def _number(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


def _items(children: Sequence[Any]) -> list[Any]:
    return [c for c in children if c is not None]


class _ToAst:
    """Builds AST nodes bottom-up with spans; collects build-time diagnostics.

    One method per named rule of the grammar (see :func:`edgedsl.parser.rule_names`), called
    with the rule's children once they are built; ``pos`` holds the rule's ``(start, end)``.
    The same builder runs inside the LALR parser (:func:`edgedsl.parser.direct_parser`, no tree)
    or over a lark tree (:meth:`walk`).
    """

    positioned_tokens = frozenset({"STRING", "NUMBER", "DATE", "REGEX", "COMMENT"})
    """Token types read with their positions; names and operators may come as plain text."""

    def __init__(self) -> None:
        self.reset(Source("<none>", ""), Diagnostics())

    def reset(self, source: Source, diags: Diagnostics) -> None:
        """Start building a new source."""
        self.src = source
        self.diags = diags
        self.pos: tuple[int | None, int | None] = (None, None)
        self.comments: list[Token] = []
        self.block_spans: dict[int, tuple[Span, Span | None]] = {}

    def comment(self, tok: Token) -> Token:
        """Lexer callback: collect a comment token."""
        self.comments.append(tok)
        return tok

    def walk(self, tree: Tree[Token], depth: int = 1) -> Any:
        """Build from a lark tree (positions from its metas); TooDeep past MAX_DEPTH levels."""
        if depth > MAX_DEPTH:
            raise TooDeep
        children = [
            self.walk(c, depth + 1) if isinstance(c, Tree) else c for c in tree.children
        ]
        meta = tree.meta
        self.pos = (None, None) if meta.empty else (meta.start_pos, meta.end_pos)
        return getattr(self, str(tree.data))(children)

    def _span(self) -> Span:
        start, end = self.pos
        if start is None or end is None:
            return self.src.span(0, 0)
        return self.src.span(start, end)

    def _tok_span(self, tok: Token) -> Span:
        start = tok.start_pos or 0
        return self.src.span(start, tok.end_pos if tok.end_pos is not None else start)

    def _unquote(self, tok: Token) -> str:
        """The text of a STRING token; E013 (and an empty string) for a lone surrogate escape."""
        try:
            return _unquote(tok)
        except orjson.JSONDecodeError:
            self.diags.add(diag("E013", "invalid escape in string", self._tok_span(tok),
                                "not a Unicode character",
                                hints=["a `\\uD800`–`\\uDFFF` escape must form a surrogate pair"]))
            return ""

    def _number(self, tok: Token) -> int | float:
        """The value of a NUMBER token; E014 (and 0) when it is too large to represent."""
        try:
            value = _number(str(tok))
        except ValueError:
            value = math.inf
        if isinstance(value, float) and not math.isfinite(value):
            self.diags.add(diag("E014", "number too large", self._tok_span(tok), "out of range",
                                hints=["a number must fit a 64-bit float (at most 4300 digits)"]))
            return 0
        return value

    # ------------------------------------------------------------ module and catalogs
    def start(self, children: list[Any]) -> n.Module:
        return _Module(items=tuple(children), span=self.src.span(0, len(self.src.text)))

    def use_decl(self, children: list[Token]) -> n.UseDecl:
        return _UseDecl(names=tuple(map(str, children)), span=self._span())

    def type_decl(self, children: list[Any]) -> n.TypeDecl:
        name, regex, doc = children
        pattern = str(regex)[1:-1]
        try:
            code_pattern(pattern)
        except CodePatternError as err:
            self.diags.add(
                diag("E101", f"invalid regular expression: {err}", self._tok_span(regex),
                     "this pattern", hints=[err.hint])
            )
        return _TypeDecl(
            name=str(name), pattern=pattern, doc=None if doc is None else self._unquote(doc),
            span=self._span(),
        )

    def record_decl(self, children: list[Any]) -> n.RecordDecl:
        name, *fields = children
        return _RecordDecl(name=str(name), fields=tuple(fields), span=self._span())

    def field_decl(self, children: list[Any]) -> n.FieldDecl:
        name, texpr = children
        return _FieldDecl(name=str(name), type=texpr, span=self._span())

    def type_expr(self, children: list[Any]) -> n.TypeExpr:
        base, optional = children
        if optional is not None:
            base = dataclasses.replace(base, optional=True, span=self._span())
        return base

    def named_type(self, children: list[Any]) -> n.NamedTypeExpr:
        name = ".".join(map(str, _items(children)))
        return _NamedTypeExpr(name=name, span=self._span())

    def enum_type(self, children: list[Any]) -> n.EnumTypeExpr:
        return _EnumTypeExpr(members=tuple(children), span=self._span())

    def enum_member(self, children: list[Token]) -> str:
        (tok,) = children
        return self._unquote(tok) if getattr(tok, "type", None) == "STRING" else str(tok)

    def list_type(self, children: list[Any]) -> n.ListTypeExpr:
        (item,) = children
        return _ListTypeExpr(item=item, span=self._span())

    def platform_decl(self, children: list[Any]) -> n.PlatformDecl:
        name, doc, *items = children
        return _PlatformDecl(
            name=str(name), doc=None if doc is None else self._unquote(doc), items=tuple(items),
            span=self._span(),
        )

    def base_decl(self, children: list[Token]) -> n.BaseDecl:
        return _BaseDecl(url=self._unquote(children[0]), span=self._span())

    def envelope_decl(self, children: list[Token]) -> n.EnvelopeDecl:
        return _EnvelopeDecl(name=str(children[0]), span=self._span())

    def secret_decl(self, children: list[Token]) -> n.SecretDecl:
        return _SecretDecl(name=str(children[0]), span=self._span())

    def quota_decl(self, children: list[Token]) -> n.QuotaDecl:
        amount, per = children
        value = self._number(amount)
        if not isinstance(value, int):
            self.diags.add(diag("E102", "a quota is a whole number of calls",
                                self._tok_span(amount), "not a whole number"))
            value = int(value)
        return _QuotaDecl(amount=value, per=str(per), span=self._span())

    def tool_decl(self, children: list[Any]) -> n.ToolDecl:
        name, doc, http, *rest = children
        params = tuple(p for p in rest[:-3] if p is not None)
        returns, at, paged = rest[-3:]
        return _ToolDecl(
            name=str(name),
            doc=None if doc is None else self._unquote(doc),
            method=None if http is None else http.method,
            path=None if http is None else http.path,
            params=params,
            returns=returns.name,
            many=returns.many,
            at=at,
            paged=paged,
            span=self._span(),
        )

    def http(self, children: list[Any]) -> _Http:
        method, path = children
        return _Http(method, self._unquote(path))

    def method(self, children: list[Token]) -> str:
        return str(children[0])

    def param_decl(self, children: list[Any]) -> n.ParamDecl:
        name, texpr = children
        return _ParamDecl(name=str(name), type=texpr, span=self._span())

    def returns_many(self, children: list[Token]) -> _Returns:
        return _Returns(str(children[0]), True)

    def returns_one(self, children: list[Token]) -> _Returns:
        return _Returns(str(children[0]), False)

    def at_path(self, children: list[Token]) -> str:
        return self._unquote(children[0])

    def paged(self, children: list[Any]) -> tuple[n.PagedOpt, ...]:
        return tuple(children)

    def paged_opt(self, children: list[Any]) -> n.PagedOpt:
        key, name, limit = children
        lim = None if limit is None else self._number(limit)
        if lim is not None and not isinstance(lim, int):
            self.diags.add(diag("E102", "a page-size limit is a whole number",
                                self._tok_span(limit), "not a whole number"))
            lim = int(lim)
        return _PagedOpt(key=str(key), name=str(name), limit=lim, span=self._span())

    # ------------------------------------------------------------ trajectories
    def trajectory(self, children: list[Any]) -> n.Trajectory:
        name, query, *body = children
        return _Trajectory(
            name=str(name), query=self._unquote(query), body=tuple(body), span=self._span()
        )

    def binding(self, children: list[Any]) -> n.Binding:
        name, node = children
        return _Binding(name=str(name), node=node, span=self._span())

    def call(self, children: list[Any]) -> n.Call:
        (platform, tool), *rest = children
        pages = rest.pop()
        return _Call(
            platform=platform, tool=tool, args=tuple(_items(rest)), pages=pages,
            span=self._span(),
        )

    def tool_ref(self, children: list[Token]) -> tuple[str, str]:
        return str(children[0]), str(children[1])

    def arg(self, children: list[Any]) -> n.Arg:
        name, value = children
        return _Arg(name=str(name), value=value, span=self._span())

    def shared(self, children: list[Any]) -> n.Arg:
        return self.arg(children)

    def seq_arg(self, children: list[Any]) -> n.SeqArg:
        return _SeqArg(ref=children[0], span=self._span())

    def fan_arg(self, children: list[Any]) -> n.FanArg:
        bound, ref = children
        return _FanArg(ref=ref, bound=bound, span=self._span())

    def fan_bound(self, children: list[Token]) -> int:
        (tok,) = children
        value = self._number(tok)
        if not isinstance(value, int):
            self.diags.add(diag("E009", "a fan bound is a whole number", self._tok_span(tok),
                                "not a whole number", hints=["write `fan(3) x.f`"]))
            return int(value)
        return value

    def shared_arg(self, children: list[Token]) -> n.SharedArg:
        return _SharedArg(name=str(children[0]), span=self._span())

    def pages_all(self, children: list[Any]) -> str:
        return "all"

    def pages_n(self, children: list[Token]) -> int:
        (tok,) = children
        value = self._number(tok)
        if not isinstance(value, int):
            self.diags.add(diag("E007", "`pages` takes `all` or a whole number",
                                self._tok_span(tok), "not a whole number"))
            return int(value)
        return value

    def ref(self, children: list[Token]) -> n.Ref:
        return _Ref(parts=tuple(map(str, children)), span=self._span())

    def rel_ref(self, children: list[Any]) -> tuple[str, ...]:
        return tuple(map(str, _items(children)))

    def drv(self, children: list[Any]) -> n.Drv:
        source, *steps = children
        return _Drv(source=source, steps=tuple(steps), span=self._span())

    def red_max(self, children: list[Token]) -> n.Reducer:
        return _Reducer(op="max", field=str(children[0]), span=self._span())

    def red_min(self, children: list[Token]) -> n.Reducer:
        return _Reducer(op="min", field=str(children[0]), span=self._span())

    def red_most_frequent(self, children: list[Token]) -> n.Reducer:
        return _Reducer(op="most_frequent", field=str(children[0]), span=self._span())

    def red_where(self, children: list[Any]) -> n.Reducer:
        fld, op, pivot = children
        return _Reducer(
            op=BY_SURFACE[op].op,
            field=str(fld), pivot=pivot, span=self._span(),
        )

    def where_op(self, children: list[Token]) -> str:
        return str(children[0])

    def parallel(self, children: list[Any]) -> n.Parallel:
        shared = tuple(c for c in children if isinstance(c, n.Arg))
        branches = tuple(c for c in children if isinstance(c, n.Branch))
        return _Parallel(shared=shared, branches=branches, span=self._span())

    def branch(self, children: list[Any]) -> n.Branch:
        name, call = children
        return _Branch(name=str(name), call=call, span=self._span())

    def compare(self, children: list[Any]) -> n.Compare:
        call, param, values = children
        return _Compare(call=call, param=str(param), values=values, span=self._span())

    def if_stmt(self, children: list[Any]) -> n.IfStmt:
        cond, then, orelse = children
        if isinstance(orelse, n.IfStmt):
            orelse_block: tuple[Any, ...] | None = (orelse,)
        elif isinstance(orelse, _Block):
            orelse_block = orelse.stmts
        else:
            orelse_block = None
        node = _IfStmt(cond=cond, then=then.stmts, orelse=orelse_block, span=self._span())
        # remember block spans for comment attachment (not part of the AST)
        else_span = orelse.span if isinstance(orelse, _Block) else None
        self.block_spans[id(node)] = (then.span, else_span)
        return node

    def block(self, children: list[Any]) -> _Block:
        return _Block(tuple(children), self._span())

    def answer_stmt(self, children: list[Any]) -> n.AnswerStmt:
        (value,) = children
        if isinstance(value, list):
            return _AnswerStmt(fields=tuple(value), span=self._span())
        return _AnswerStmt(expr=value, span=self._span())

    def answer_block(self, children: list[Any]) -> list[n.AnswerField]:
        return _items(children)

    def answer_field(self, children: list[Any]) -> n.AnswerField:
        name, expr = children
        return _AnswerField(name=str(name), expr=expr, span=self._span())

    def say_stmt(self, children: list[Token]) -> n.SayStmt:
        return _SayStmt(template=self._unquote(children[0]), span=self._span())

    # ------------------------------------------------------------ predicates and expressions
    def pred_or(self, children: list[Any]) -> n.Pred:
        if len(children) == 1:
            return children[0]
        return _PredOr(operands=tuple(children), span=self._span())

    def pred_and(self, children: list[Any]) -> n.Pred:
        if len(children) == 1:
            return children[0]
        return _PredAnd(operands=tuple(children), span=self._span())

    def pred_not(self, children: list[Any]) -> n.PredNot:
        return _PredNot(operand=children[0], span=self._span())

    def pred_cmp(self, children: list[Any]) -> n.PredCmp:
        left, op, right = children
        return _PredCmp(op=op, left=left, right=right, span=self._span())

    def cmp_op(self, children: list[Token]) -> str:
        return str(children[0])

    def pred_exists(self, children: list[Token]) -> n.PredExists:
        return _PredExists(name=str(children[0]), span=self._span())

    def binop(self, children: list[Any]) -> n.BinOp:
        left, op, right = children
        return _BinOp(op=op, left=left, right=right, span=self._span())

    def add_op(self, children: list[Token]) -> str:
        return str(children[0])

    def mul_op(self, children: list[Token]) -> str:
        return str(children[0])

    def neg(self, children: list[Any]) -> n.Expr:
        (operand,) = children
        if isinstance(operand, n.NumberLit):
            return _NumberLit(value=-operand.value, span=self._span())
        return _Neg(operand=operand, span=self._span())

    def name_expr(self, children: list[Token]) -> n.NameExpr:
        return _NameExpr(name=str(children[0]), span=self._span())

    def func_call(self, children: list[Any]) -> n.FuncCall:
        name, *args = children
        return _FuncCall(name=str(name), args=tuple(args), span=self._span())

    # ------------------------------------------------------------ literals
    def string_lit(self, children: list[Token]) -> n.StringLit:
        return _StringLit(value=self._unquote(children[0]), span=self._span())

    def number_lit(self, children: list[Token]) -> n.NumberLit:
        return _NumberLit(value=self._number(children[0]), span=self._span())

    def neg_number_lit(self, children: list[Token]) -> n.NumberLit:
        return _NumberLit(value=-self._number(children[0]), span=self._span())

    def date_lit(self, children: list[Token]) -> n.DateLit:
        (tok,) = children
        try:
            value = dt.date.fromisoformat(str(tok))
        except ValueError:
            self.diags.add(diag("E010", f"`{tok}` is not a calendar date", self._tok_span(tok),
                                "no such day", hints=["dates are written YYYY-MM-DD"]))
            value = dt.date(1970, 1, 1)
        return _DateLit(value=value, span=self._span())

    def true_lit(self, children: list[Any]) -> n.BoolLit:
        return _BoolLit(value=True, span=self._span())

    def false_lit(self, children: list[Any]) -> n.BoolLit:
        return _BoolLit(value=False, span=self._span())

    def list_lit(self, children: list[Any]) -> n.ListLit:
        return _ListLit(items=tuple(_items(children)), span=self._span())

    def dict_lit(self, children: list[Any]) -> n.DictLit:
        entries = tuple(_items(children))
        keys = [k for k, _ in entries]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            self.diags.add(diag("E012", f"key `{dup}` appears twice in an object literal",
                                self._span(), "duplicate key"))
        return _DictLit(entries=entries, span=self._span())

    def dict_entry(self, children: list[Any]) -> tuple[str, Any]:
        key, value = children
        return (self._unquote(key), value)



# ---------------------------------------------------------------- comments


class _Comments:
    """Assigns comment tokens to statement-level nodes (see module docstring).

    Comments are sorted by position; a take over ``[start, end)`` finds its first comment by
    bisection and steps over the comments already taken through ``nxt`` (the next comment that
    may still be free, with path compression), so attaching every comment of a file costs
    about one look per comment and per take, not one per comment and per statement.
    ``examined`` counts those looks (the tests bound it).
    """

    def __init__(self, tokens: list[Token], block_spans: dict[int, tuple[Span, Span | None]]):
        self.toks = sorted(tokens, key=lambda t: t.start_pos or 0)
        self.starts = [t.start_pos or 0 for t in self.toks]
        self.nxt = list(range(len(self.toks) + 1))  # nxt[i] <= the first free index >= i
        self.left = len(self.toks)
        self.block_spans = block_spans
        self.examined = 0

    def _free(self, i: int) -> int:
        """The first comment index >= ``i`` not taken yet (``len(toks)`` when none)."""
        nxt = self.nxt
        root = i
        while nxt[root] != root:
            root = nxt[root]
            self.examined += 1
        while nxt[i] != root:  # path compression
            nxt[i], i = root, nxt[i]
        return root

    def _take(self, start: int, end: int) -> list[Token]:
        out: list[Token] = []
        if not self.left or start >= end:
            return out
        starts = self.starts
        i = self._free(bisect_left(starts, start))
        while i < len(starts) and starts[i] < end:
            self.examined += 1
            out.append(self.toks[i])
            self.nxt[i] = i + 1
            i = self._free(i + 1)
        self.left -= len(out)
        return out

    def attach_module(self, mod: n.Module) -> n.Module:
        if not self.toks:
            return mod
        items, end = self._container(mod.items, 0, mod.span.end)
        return dataclasses.replace(mod, items=tuple(items), end_comments=end)

    def _container(
        self, children: Sequence[Any], start: int, end: int
    ) -> tuple[list[Any], tuple[str, ...]]:
        done = [self._node(c) for c in children]  # inner comments first
        out: list[Any] = []
        cursor = start
        for child in done:
            leading: list[str] = []
            for tok in self._take(cursor, child.span.start):
                if out and tok.line == out[-1].span.end_line and out[-1].trailing is None:
                    out[-1] = dataclasses.replace(out[-1], trailing=str(tok).rstrip())
                else:
                    leading.append(str(tok).rstrip())
            if leading:
                child = dataclasses.replace(child, comments=(*leading, *child.comments))
            out.append(child)
            cursor = child.span.end
        tail: list[str] = []
        for tok in self._take(cursor, end):
            if out and tok.line == out[-1].span.end_line and out[-1].trailing is None:
                out[-1] = dataclasses.replace(out[-1], trailing=str(tok).rstrip())
            else:
                tail.append(str(tok).rstrip())
        return out, tuple(tail)

    def _node(self, node: Any) -> Any:
        """Attach comments inside ``node`` (containers recurse; the rest is hoisted)."""
        span = node.span
        if isinstance(node, n.Trajectory):
            body, end = self._container(node.body, span.start, span.end)
            node = dataclasses.replace(node, body=tuple(body), end_comments=end)
        elif isinstance(node, n.PlatformDecl):
            items, end = self._container(node.items, span.start, span.end)
            node = dataclasses.replace(node, items=tuple(items), end_comments=end)
        elif isinstance(node, n.RecordDecl):
            fields, end = self._container(node.fields, span.start, span.end)
            node = dataclasses.replace(node, fields=tuple(fields), end_comments=end)
        elif isinstance(node, n.IfStmt):
            then_span, else_span = self.block_spans.get(id(node), (span, None))
            then, then_end = self._container(node.then, then_span.start, then_span.end)
            orelse: tuple[Any, ...] | None = node.orelse
            else_end: tuple[str, ...] = ()
            if node.orelse is not None:
                if else_span is None:  # `else if`: the nested if is its own statement
                    orelse = (self._node(node.orelse[0]),)
                else:
                    lst, else_end = self._container(node.orelse, else_span.start, else_span.end)
                    orelse = tuple(lst)
            node = dataclasses.replace(
                node, then=tuple(then), orelse=orelse, then_end_comments=then_end,
                else_end_comments=else_end,
            )
        elif isinstance(node, n.Binding) and isinstance(node.node, n.Parallel):
            par = node.node
            branches, end = self._container(par.branches, par.span.start, par.span.end)
            node = dataclasses.replace(
                node, node=dataclasses.replace(par, branches=tuple(branches), end_comments=end)
            )
        hoisted = tuple(str(t).rstrip() for t in self._take(span.start, span.end))
        if hoisted:
            node = dataclasses.replace(node, comments=(*node.comments, *hoisted))
        return node


# ---------------------------------------------------------------- public


def _finish(t: _ToAst, module: n.Module, comments: list[Token]) -> n.Module:
    module = _Comments(comments, t.block_spans).attach_module(module)
    t.diags.raise_if_errors("build")
    return module


def build(parsed: ParseResult) -> n.Module:
    """Turn a parse result into an AST; raise CompileError with ``E0xx`` diagnostics."""
    t = _ToAst()
    t.reset(parsed.source, Diagnostics())
    try:
        module = t.walk(parsed.tree)
    except TooDeep:  # a tree that did not come from `parse`, which refuses it with E011
        error = too_deep(parsed.source, parsed.tree)
        assert error is not None
        raise error from None
    return _finish(t, module, parsed.comments)


class _Direct(threading.local):
    """Per thread: one builder and the parser running it (built on first use)."""

    builder: _ToAst | None = None
    run: Callable[[str], Any] | None = None
    busy: bool = False
    unsupported: bool = False  # this lark cannot host the direct builder: two passes


_direct = _Direct()


def parse_module(source: Source | str, name: str = "<string>") -> n.Module:
    """``parse`` then ``build``: text → AST, in one pass (no lark tree is built)."""
    src = source if isinstance(source, Source) else Source(name, source)
    d = _direct
    if d.busy or d.unsupported:  # re-entered from a rule method, or an unknown lark: two passes
        return build(parse(src))
    if d.run is None:
        d.builder = _ToAst()
        try:
            d.run = direct_parser(d.builder)
        except RuntimeError:  # lark's internals changed: the (slower) tree path still works
            d.unsupported = True
            return build(parse(src))
    t = d.builder
    assert t is not None
    d.busy = True
    try:
        t.reset(src, Diagnostics())
        try:
            module = d.run(src.text)
        except (UnexpectedInput, TooDeep):
            # reported below by the tree path: lark's hand-written syntax messages, and E011
            # at the first construct too deep in reading order (the fused loop only knows the
            # last one it reduced)
            module = None
        if module is not None:
            return _finish(t, module, t.comments)
    finally:
        d.busy = False
    return build(parse(src))


def syntax_diagnostics(source: Source | str, name: str = "<string>") -> list[Diagnostic]:
    """The syntax diagnostics of a text (empty when it parses and builds)."""
    try:
        parse_module(source, name)
    except CompileError as err:
        return err.diagnostics
    return []


__all__ = ["Tree", "build", "parse_module", "syntax_diagnostics"]
