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
import threading
from collections.abc import Callable
from typing import Any

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from ..core.diagnostics import CompileError, Diagnostic, Diagnostics, diag
from ..core.source import Source, Span, maker
from ..core.types import CodePatternError, code_pattern
from ..reduce.registry import BY_SURFACE
from . import nodes as n
from .build_expr import ExprBuilder, present
from .comments import Comments
from .lalr import Located
from .parser import (
    MAX_DEPTH,
    ParseResult,
    SyntaxErrors,
    TooDeep,
    direct_parser,
    parse,
    too_deep,
)

# Node constructors without ``type.__call__`` (:func:`~edgedsl.core.source.maker`): the builder
# makes every node of every compiled file.
_AnswerField = maker(n.AnswerField)
_AnswerStmt = maker(n.AnswerStmt)
_Arg = maker(n.Arg)
_BaseDecl = maker(n.BaseDecl)
_Binding = maker(n.Binding)
_Branch = maker(n.Branch)
_Call = maker(n.Call)
_Compare = maker(n.Compare)
_Drv = maker(n.Drv)
_EnumTypeExpr = maker(n.EnumTypeExpr)
_EnvelopeDecl = maker(n.EnvelopeDecl)
_FanArg = maker(n.FanArg)
_FieldDecl = maker(n.FieldDecl)
_IfStmt = maker(n.IfStmt)
_ListTypeExpr = maker(n.ListTypeExpr)
_Module = maker(n.Module)
_NamedTypeExpr = maker(n.NamedTypeExpr)
_PagedOpt = maker(n.PagedOpt)
_Parallel = maker(n.Parallel)
_ParamDecl = maker(n.ParamDecl)
_PlatformDecl = maker(n.PlatformDecl)
_QuotaDecl = maker(n.QuotaDecl)
_RecordDecl = maker(n.RecordDecl)
_Reducer = maker(n.Reducer)
_Ref = maker(n.Ref)
_SayStmt = maker(n.SayStmt)
_SecretDecl = maker(n.SecretDecl)
_SeqArg = maker(n.SeqArg)
_SharedArg = maker(n.SharedArg)
_RunDecl = maker(n.RunDecl)
_RunSetting = maker(n.RunSetting)
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
class _Pages:
    value: int | str
    at: int  # where the word `pages` starts


@dataclasses.dataclass(frozen=True)
class _RelRef:
    parts: tuple[str, ...]
    start: int
    end: int


@dataclasses.dataclass(frozen=True)
class _Returns:
    name: str
    many: bool
    at: int


@dataclasses.dataclass(frozen=True)
class _Label:
    label: str | None
    unit: str | None
    label_at: int
    unit_at: int


_NO_LABEL = _Label(None, None, -1, -1)


@dataclasses.dataclass(frozen=True)
class _Paged:
    opts: tuple[n.PagedOpt, ...]
    at: int  # where the word `paged` starts


class _ToAst(ExprBuilder):
    """Builds AST nodes bottom-up with spans; collects build-time diagnostics.

    One method per named rule of the grammar (see :func:`edgedsl.syntax.parser.rule_names`), called
    with the rule's children once they are built; ``pos`` holds the rule's ``(start, end)``.
    The same builder runs inside the LALR parser (:func:`edgedsl.syntax.parser.direct_parser`, no
    tree) or over a lark tree (:meth:`walk`).
    """

    positioned_tokens = frozenset({"STRING", "NUMBER", "DATE", "DATE_SHIFT", "REGEX", "COMMENT"})
    """Token types read with their positions; operators and keywords may come as plain text."""

    located_tokens = frozenset({"NAME"})
    """Token types read with their start only (a name's offset is kept on its node, see
    ``nodes.PART``): :data:`~edgedsl.syntax.lalr.Located` pairs ``(text, start)``, from the
    fused loop and from :meth:`walk` alike."""

    def __init__(self) -> None:
        self.reset(Source("<none>", ""), Diagnostics())

    def reset(self, source: Source, diags: Diagnostics) -> None:
        """Start building a new source."""
        self.src = source
        self.diags = diags
        self.pos: tuple[int | None, int | None] = (None, None)
        self.comments: list[Token] = []
        self.loose = []

    def comment(self, tok: Token) -> Token:
        """Lexer callback: collect a comment token."""
        self.comments.append(tok)
        return tok

    def walk(self, tree: Tree[Token], depth: int = 1) -> Any:
        """Build from a lark tree (positions from its metas); TooDeep past MAX_DEPTH levels."""
        if depth > MAX_DEPTH:
            raise TooDeep
        located = self.located_tokens
        children = [
            self.walk(c, depth + 1) if isinstance(c, Tree)
            else (str(c), c.start_pos or 0) if isinstance(c, Token) and c.type in located
            else c
            for c in tree.children
        ]
        meta = tree.meta
        self.pos = (None, None) if meta.empty else (meta.start_pos, meta.end_pos)
        return getattr(self, str(tree.data))(children)

    # ------------------------------------------------------------ module and catalogs
    def start(self, children: list[Any]) -> n.Module:
        return _Module(items=tuple(children), span=self.src.span(0, len(self.src.text)))

    def use_decl(self, children: list[Any]) -> n.UseDecl:
        return _UseDecl(names=tuple(c[0] for c in children), span=self._span(),
                        name_at=tuple(c[1] for c in children))

    def run_decl(self, children: list[Any]) -> n.RunDecl:
        return _RunDecl(settings=tuple(children), span=self._span())

    def run_setting(self, children: list[Any]) -> n.RunSetting:
        name, value = children
        return _RunSetting(name=name[0], value=value, span=self._span(), name_at=name[1])

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
            name=name[0], pattern=pattern, doc=None if doc is None else self._unquote(doc),
            span=self._span(), name_at=name[1],
        )

    def record_decl(self, children: list[Any]) -> n.RecordDecl:
        name, *fields = children
        return _RecordDecl(name=name[0], fields=tuple(fields), span=self._span(),
                           name_at=name[1])

    def _member(self, make: Any, children: list[Any]) -> Any:
        """A record field or a tool parameter (``make``): name, type, label and unit."""
        name, texpr, lab = children
        lab = lab or _NO_LABEL
        return make(name=name[0], type=texpr, label=lab.label, unit=lab.unit, span=self._span(),
                    name_at=name[1], label_at=lab.label_at, unit_at=lab.unit_at)

    def field_decl(self, children: list[Any]) -> n.FieldDecl:
        return self._member(_FieldDecl, children)

    def label(self, children: list[Any]) -> _Label:
        text, unit = children
        return _Label(self._unquote(text), None if unit is None else self._unquote(unit),
                      text.start_pos, -1 if unit is None else unit.start_pos)

    def type_expr(self, children: list[Any]) -> n.TypeExpr:
        base, optional = children
        if optional is not None:
            base = dataclasses.replace(base, optional=True, span=self._span())
        return base

    def named_type(self, children: list[Any]) -> n.NamedTypeExpr:
        name = ".".join(c[0] for c in present(children))
        return _NamedTypeExpr(name=name, span=self._span())

    def enum_type(self, children: list[Any]) -> n.EnumTypeExpr:
        return _EnumTypeExpr(members=tuple(children), span=self._span())

    def enum_member(self, children: list[Any]) -> str:
        (tok,) = children
        if isinstance(tok, tuple):  # a NAME
            return tok[0]
        return self._unquote(tok) if tok.type == "STRING" else str(tok)

    def list_type(self, children: list[Any]) -> n.ListTypeExpr:
        (item,) = children
        return _ListTypeExpr(item=item, span=self._span())

    def platform_decl(self, children: list[Any]) -> n.PlatformDecl:
        name, doc, *items = children
        return _PlatformDecl(
            name=name[0], doc=None if doc is None else self._unquote(doc), items=tuple(items),
            span=self._span(), name_at=name[1],
        )

    def base_decl(self, children: list[Token]) -> n.BaseDecl:
        return _BaseDecl(url=self._unquote(children[0]), span=self._span())

    def envelope_decl(self, children: list[Any]) -> n.EnvelopeDecl:
        return _EnvelopeDecl(name=children[0][0], span=self._span())

    def secret_decl(self, children: list[Any]) -> n.SecretDecl:
        return _SecretDecl(name=children[0][0], span=self._span())

    def quota_decl(self, children: list[Token]) -> n.QuotaDecl:
        amount, per = children
        value = self._number(amount)
        if not isinstance(value, int):
            self.diags.add(diag("E102", "a quota is a whole number of calls",
                                self._tok_span(amount), "not a whole number"))
            value = int(value)
        return _QuotaDecl(amount=value, per=per[0], span=self._span())

    def tool_decl(self, children: list[Any]) -> n.ToolDecl:
        name, doc, http, *rest = children
        params = tuple(p for p in rest[:-3] if p is not None)
        returns, at, paged = rest[-3:]
        return _ToolDecl(
            name=name[0],
            doc=None if doc is None else self._unquote(doc),
            method=None if http is None else http.method,
            path=None if http is None else http.path,
            params=params,
            returns=returns.name,
            many=returns.many,
            at=at,
            paged=None if paged is None else paged.opts,
            span=self._span(),
            name_at=name[1],
            returns_at=returns.at,
            paged_at=-1 if paged is None else paged.at,
        )

    def http(self, children: list[Any]) -> _Http:
        method, path = children
        return _Http(method, self._unquote(path))

    def method(self, children: list[Token]) -> str:
        return str(children[0])

    def param_decl(self, children: list[Any]) -> n.ParamDecl:
        return self._member(_ParamDecl, children)

    def returns_many(self, children: list[Any]) -> _Returns:
        name, at = children[0]
        return _Returns(name, True, at)

    def returns_one(self, children: list[Any]) -> _Returns:
        name, at = children[0]
        return _Returns(name, False, at)

    def at_path(self, children: list[Token]) -> str:
        return self._unquote(children[0])

    def paged(self, children: list[Any]) -> _Paged:
        return _Paged(tuple(children), self.pos[0] or 0)

    def paged_opt(self, children: list[Any]) -> n.PagedOpt:
        key, name, limit = children
        lim = None if limit is None else self._number(limit)
        if lim is not None and not isinstance(lim, int):
            self.diags.add(diag("E102", "a page-size limit is a whole number",
                                self._tok_span(limit), "not a whole number"))
            lim = int(lim)
        return _PagedOpt(key=key[0], name=name[0], limit=lim, span=self._span(), key_at=key[1])

    # ------------------------------------------------------------ trajectories
    def trajectory(self, children: list[Any]) -> n.Trajectory:
        name, query, *body = children
        return _Trajectory(
            name=name[0], query=self._unquote(query), body=tuple(body), span=self._span(),
            name_at=name[1],
        )

    def binding(self, children: list[Any]) -> n.Binding:
        name, node = children
        return _Binding(name=name[0], node=node, span=self._span(), name_at=name[1])

    def call(self, children: list[Any]) -> n.Call:
        (platform, tool), *rest = children
        pages = rest.pop()
        return _Call(
            platform=platform[0], tool=tool[0], args=tuple(present(rest)),
            pages=None if pages is None else pages.value,
            span=self._span(), platform_at=platform[1],
            tool_at=tool[1],
            pages_at=-1 if pages is None else pages.at,
        )

    def tool_ref(self, children: list[Any]) -> tuple[Located, Located]:
        return children[0], children[1]

    def arg(self, children: list[Any]) -> n.Arg:
        value = children[1]
        if self.loose and self.loose[-1] is value:  # a call's argument: where such a list
            self.loose.pop()  # belongs (built just before its argument, so the last one)
        return self.shared(children)

    def shared(self, children: list[Any]) -> n.Arg:
        name, value = children
        return _Arg(name=name[0], value=value, span=self._span(), name_at=name[1])

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

    def shared_arg(self, children: list[Any]) -> n.SharedArg:
        return _SharedArg(name=children[0][0], span=self._span())

    def pages_all(self, children: list[Any]) -> _Pages:
        return _Pages("all", self.pos[0] or 0)

    def pages_n(self, children: list[Token]) -> _Pages:
        (tok,) = children
        value = self._number(tok)
        if not isinstance(value, int):
            self.diags.add(diag("E007", "`pages` takes `all` or a whole number",
                                self._tok_span(tok), "not a whole number"))
            value = int(value)
        return _Pages(value, self.pos[0] or 0)

    def ref(self, children: list[Any]) -> n.Ref:
        return _Ref(parts=tuple(c[0] for c in children), span=self._span(),
                    field_at=children[-1][1])

    def rel_ref(self, children: list[Any]) -> _RelRef:
        return _RelRef(tuple(c[0] for c in present(children)), self.pos[0] or 0,
                       self.pos[1] or 0)

    def drv(self, children: list[Any]) -> n.Drv:
        source, *steps = children
        return _Drv(source=source.parts, steps=tuple(steps), span=self._span(),
                    source_at=source.start, source_end=source.end)

    def red_plain(self, children: list[Any]) -> n.Reducer:
        word, (name, at) = children
        return _Reducer(op=BY_SURFACE[word].op, field=name, span=self._span(), field_at=at)

    def red_count(self, children: list[Any]) -> n.Reducer:
        word, k, (name, at) = children
        return _Reducer(op=BY_SURFACE[word].op, field=name, pivot=self.number_lit_of(k),
                        span=self._span(), field_at=at)

    def red_where(self, children: list[Any]) -> n.Reducer:
        fld, op, pivot = children
        return _Reducer(
            op=BY_SURFACE[op].op,
            field=fld[0], pivot=pivot, span=self._span(), field_at=fld[1],
        )

    def plain_word(self, children: list[Token]) -> str:
        return str(children[0])

    def count_word(self, children: list[Token]) -> str:
        return str(children[0])

    def where_op(self, children: list[Token]) -> str:
        return str(children[0])

    def parallel(self, children: list[Any]) -> n.Parallel:
        shared = tuple(c for c in children if isinstance(c, n.Arg))
        branches = tuple(c for c in children if isinstance(c, n.Branch))
        return _Parallel(shared=shared, branches=branches, span=self._span())

    def branch(self, children: list[Any]) -> n.Branch:
        name, call = children
        return _Branch(name=name[0], call=call, span=self._span(), name_at=name[1])

    def compare(self, children: list[Any]) -> n.Compare:
        call, param, values = children
        return _Compare(call=call, param=param[0], values=values, span=self._span(),
                        param_at=param[1])

    def if_stmt(self, children: list[Any]) -> n.IfStmt:
        cond, then, orelse = children
        if isinstance(orelse, n.IfStmt):
            orelse_block: tuple[Any, ...] | None = (orelse,)
        elif isinstance(orelse, _Block):
            orelse_block = orelse.stmts
        else:
            orelse_block = None
        else_at, else_end = (
            (orelse.span.start, orelse.span.end) if isinstance(orelse, _Block) else (-1, -1)
        )
        return _IfStmt(cond=cond, then=then.stmts, orelse=orelse_block, span=self._span(),
                       then_at=then.span.start, then_end=then.span.end,
                       else_at=else_at, else_end=else_end)

    def block(self, children: list[Any]) -> _Block:
        return _Block(tuple(children), self._span())

    def answer_stmt(self, children: list[Any]) -> n.AnswerStmt:
        (value,) = children
        if isinstance(value, list):
            return _AnswerStmt(fields=tuple(value), span=self._span())
        return _AnswerStmt(expr=value, span=self._span())

    def answer_block(self, children: list[Any]) -> list[n.AnswerField]:
        return present(children)

    def answer_field(self, children: list[Any]) -> n.AnswerField:
        name, expr = children
        return _AnswerField(name=name[0], expr=expr, span=self._span(), name_at=name[1])

    def say_stmt(self, children: list[Token]) -> n.SayStmt:
        return _SayStmt(template=self._unquote(children[0]), span=self._span())

# ---------------------------------------------------------------- public


def _finish(t: _ToAst, module: n.Module, comments: list[Token]) -> n.Module:
    for lst in t.loose:  # references in a list that is no call's argument
        t.diags.add(diag(
            "E016", "a list holding references can only be a call's argument", lst.span,
            "not a call's argument",
            hints=["a reference hands one value to a call: `tool(ids: [seq a.f, seq b.g])`; "
                   "here, write the values themselves"]))
    module = Comments(comments).attach_module(module)
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


def _two_pass(src: Source) -> n.Module:
    """``build(parse(src))``; on syntax errors, the AST of what parsed soundly is built onto
    the :class:`SyntaxErrors` raised (its build errors, such as ``E010``, join its
    diagnostics)."""
    try:
        return build(parse(src))
    except SyntaxErrors as err:
        if err.sound is not None:
            try:
                err.module = build(err.sound)
            except CompileError as built:
                err.diagnostics = sorted(
                    [*err.diagnostics, *built.diagnostics],
                    key=lambda d: d.span.start if d.span is not None else 0)
        raise


def parse_module(source: Source | str, name: str = "<string>") -> n.Module:
    """``parse`` then ``build``: text → AST, in one pass (no lark tree is built)."""
    src = source if isinstance(source, Source) else Source(name, source)
    d = _direct
    if d.busy or d.unsupported:  # re-entered from a rule method, or an unknown lark: two passes
        return _two_pass(src)
    if d.run is None:
        d.builder = _ToAst()
        try:
            d.run = direct_parser(d.builder)
        except RuntimeError:  # lark's internals changed: the (slower) tree path still works
            d.unsupported = True
            return _two_pass(src)
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
    return _two_pass(src)


def syntax_diagnostics(source: Source | str, name: str = "<string>") -> list[Diagnostic]:
    """The syntax diagnostics of a text (empty when it parses and builds)."""
    try:
        parse_module(source, name)
    except CompileError as err:
        return err.diagnostics
    return []


__all__ = ["Tree", "build", "parse_module", "syntax_diagnostics"]
