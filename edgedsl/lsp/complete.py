"""Completion: what may be written at the cursor, from the grammar and the checker.

The text before the cursor is fed, token by token, to the grammar's own LALR parser (lark's
interactive parser over ``grammar/edge.lark``), stopping before the word being typed. The
parser then says which terminals it accepts next; the tokens fed say where the cursor is (after
``platform.``, inside a call's argument list, after ``drv x |`` …). Keywords come from the
accepted terminals, reducers from the reducer registry (only those the parser accepts there),
and platforms, tools, parameters, fields and bindings from the last analysis of the document
that checked (the text being typed rarely parses).
"""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lsprotocol import types as lsp

from ..check.context import CheckContext, Group, Rel
from ..check.names import FUNCS
from ..core.catalog import Tool
from ..core.source import NO_SPAN
from ..core.types import SCALAR_KINDS
from ..reduce.registry import REDUCERS
from ..syntax.parser import lark_parser
from .hover import hover_markdown
from .symbols import FieldT, ParamT, ToolT

__all__ = ["CursorState", "complete", "cursor_state"]

K = lsp.CompletionItemKind


@dataclass
class CursorState:
    """The parser at the cursor: the tokens fed, the terminals it accepts next, and the
    word being typed (``prefix``)."""

    tokens: list[Token]
    accepts: set[str]
    prefix: str


def _word(tok: Token) -> bool:
    text = str(tok)
    return bool(text) and text.replace("_", "a").isalnum()


def cursor_state(text: str) -> CursorState | None:
    """Feed ``text`` (everything before the cursor) to the grammar's parser; None when the
    text before the cursor has a syntax error of its own."""
    lark = lark_parser()
    ip = lark.parse_interactive(text)
    tokens: list[Token] = []
    prefix = ""
    try:
        for tok in ip.iter_parse():  # each token is yielded before it is fed
            if tok.end_pos == len(text) and _word(tok):
                prefix = str(tok)
                break
            tokens.append(tok)
    except UnexpectedToken as err:  # the word being typed fits nowhere yet, or a real error
        tok = err.token
        if not (isinstance(tok, Token) and tok.end_pos == len(text) and _word(tok)):
            return None
        prefix = str(tok)
    except UnexpectedInput:
        return None
    return CursorState(tokens, set(ip.accepts()), prefix)


# ---------------------------------------------------------------- context from the tokens


def _open_paren(tokens: list[Token]) -> int:
    """The index of the innermost ``(`` not yet closed, or -1."""
    depth = 0
    for i in range(len(tokens) - 1, -1, -1):
        t = tokens[i].type
        if t == "RPAR":
            depth += 1
        elif t == "LPAR":
            if depth == 0:
                return i
            depth -= 1
        elif t in ("LBRACE", "RBRACE") and depth == 0:
            return -1
    return -1


def _trajectory_tokens(tokens: list[Token]) -> tuple[str | None, list[Token]]:
    """The name of the trajectory the cursor is in, and its tokens so far."""
    for i in range(len(tokens) - 1, -1, -1):
        if tokens[i].type == "TRAJECTORY":
            name = str(tokens[i + 1]) if i + 1 < len(tokens) else None
            return name, tokens[i:]
    return None, []


class _Completer:
    """Completion items for one cursor state, with the catalog and bindings of ``ctx``."""

    def __init__(self, state: CursorState, ctx: CheckContext | None) -> None:
        self.s = state
        self.ctx = ctx
        self.items: dict[str, lsp.CompletionItem] = {}
        self.traj_name, self.traj_tokens = _trajectory_tokens(state.tokens)

    def add(self, label: str, kind: lsp.CompletionItemKind, detail: str = "",
            doc: str | None = None, insert: str | None = None) -> None:
        if label not in self.items:
            self.items[label] = lsp.CompletionItem(
                label=label, kind=kind, detail=detail or None, insert_text=insert,
                documentation=None if doc is None else lsp.MarkupContent(
                    kind=lsp.MarkupKind.Markdown, value=doc))

    # ---- what the checker knows

    def bindings(self) -> dict[str, Rel | Group | None]:
        """The bindings written so far in the cursor's trajectory (by the tokens ``NAME =``),
        with the relation the last analysis found each to hold."""
        toks = self.traj_tokens
        names = [str(toks[i]) for i in range(1, len(toks) - 1)
                 if toks[i].type == "NAME" and toks[i + 1].type == "EQUAL"
                 and toks[i - 1].type != "LPAR"]
        known: dict[str, Rel | Group | None] = {}
        if self.ctx is not None:
            for t in self.ctx.trajs:
                if t.ast.name == self.traj_name:
                    for at, b in t.bindings:
                        known[b.name] = t.values.get(at)
        out: dict[str, Rel | Group | None] = {}
        for name in names:
            out[name] = known.get(name) or self._called(name)
        return out

    def _called(self, name: str) -> Rel | None:
        """The relation of ``name = p.t(…)`` from the tool's record, when the last analysis
        does not know the binding yet."""
        toks = self.traj_tokens
        for i in range(len(toks) - 4):
            if (str(toks[i]) == name and toks[i + 1].type == "EQUAL"
                    and toks[i + 3].type == "DOT"):
                tool = self.tool(str(toks[i + 2]), str(toks[i + 4]))
                if tool is not None:
                    return Rel(name, tool.record.name, tool.record.field_types(), NO_SPAN)
        return None

    def tool(self, platform: str, name: str) -> Tool | None:
        return None if self.ctx is None else self.ctx.catalog.tool(f"{platform}.{name}")

    # ---- item groups

    def keywords(self) -> None:
        for word in _words(self.s.accepts):
            if word.replace("_", "a").isalnum() and word not in _STEP_WORDS:
                self.add(word, K.Keyword)

    def reducers(self, where_ops: bool) -> None:
        """The reducers the parser accepts here, from the registry: the words that start a
        step after ``|``, or the operators of a where-form after ``where f``."""
        words = _words(self.s.accepts)
        for r in REDUCERS.values():
            doc = f"{r.doc}; applies to {r.needs}"
            if where_ops and r.form == "where" and r.surface in words:
                self.add(r.surface, K.Operator, r.spell("f", "p"), doc)
            elif not where_ops and r.form != "where" and r.surface in words:
                self.add(r.surface, K.Function, r.spell("f", "k"), doc)
            elif not where_ops and r.form == "where" and "where" in words:
                self.add(r.spell("f", "p"), K.Function, "where-form", doc,
                         insert="where ")

    def platforms(self) -> None:
        if self.ctx is None:
            return
        for p in self.ctx.catalog.platforms.values():
            self.add(p.name, K.Module, p.doc)

    def tools(self, platform: str) -> None:
        if self.ctx is None or platform not in self.ctx.catalog.platforms:
            return
        for t in self.ctx.catalog.platforms[platform].tools.values():
            self.add(t.name, K.Function, t.doc, hover_markdown(ToolT(t), self.ctx))

    def params(self, tool: Tool) -> None:
        assert self.ctx is not None
        for p in tool.params:
            self.add(p.name, K.Property, f"{p.type}{'?' if p.optional else ''}"
                     + (f" {p.label}" if p.label else ""),
                     hover_markdown(ParamT(tool, p), self.ctx), insert=f"{p.name}: ")

    def fields(self, rel: Rel | None) -> None:
        if rel is None or self.ctx is None:
            return
        rtype = self.ctx.catalog.records.get(rel.record)
        for name, t in rel.fields.items():
            spec = None if rtype is None else rtype.field(name)
            label = f" {spec.label}" if spec is not None and spec.label else ""
            self.add(name, K.Field, f"{t}{label}",
                     None if spec is None else hover_markdown(FieldT(rel.record, spec), self.ctx))

    def binding_names(self) -> None:
        for name, v in self.bindings().items():
            detail = f"[{v.record}]" if isinstance(v, Rel) else "group" if v else ""
            self.add(name, K.Variable, detail)

    def types(self) -> None:
        for kind in SCALAR_KINDS:
            self.add(kind, K.TypeParameter, "scalar")
        if self.ctx is not None:
            for name in (*self.ctx.catalog.code_types, *self.ctx.catalog.records):
                self.add(name.rsplit(".", 1)[-1], K.Class, name)

    # ---- the cursor's place

    def drv_source(self) -> Rel | None:
        toks = self.s.tokens
        for i in range(len(toks) - 1, -1, -1):
            if toks[i].type == "DRV" and i + 1 < len(toks):
                v = self.bindings().get(str(toks[i + 1]))
                if isinstance(v, Group) and i + 3 < len(toks) and toks[i + 2].type == "DOT":
                    return v.branches.get(str(toks[i + 3]))
                return v if isinstance(v, Rel) else None
            if toks[i].type in ("EQUAL", "LBRACE", "RBRACE"):
                return None
        return None

    def run(self) -> list[lsp.CompletionItem]:
        toks, acc = self.s.tokens, self.s.accepts
        last = toks[-1].type if toks else ""
        if "NAME" in acc and last == "DOT" and len(toks) >= 2:
            self.after_dot(toks)
            return list(self.items.values())
        if _words(acc) & _STEP_WORDS:
            self.reducers(where_ops=False)
        if last == "NAME" and len(toks) >= 2 and str(toks[-2]) == "where":
            self.reducers(where_ops=True)
            return list(self.items.values())
        if "NAME" in acc:
            self.names(toks, last)
        self.keywords()
        return list(self.items.values())

    def after_dot(self, toks: list[Token]) -> None:
        before = str(toks[-2])
        if self.ctx is not None and before in self.ctx.catalog.platforms and not (
                len(toks) >= 3 and toks[-3].type == "DOT"):
            self.tools(before)
            return
        bound = self.bindings()
        if len(toks) >= 4 and toks[-3].type == "DOT":  # group.branch.
            group = bound.get(str(toks[-4]))
            if isinstance(group, Group):
                self.fields(group.branches.get(before))
            return
        v = bound.get(before)
        if isinstance(v, Group):
            for name in v.branches:
                self.add(name, K.Variable, "branch")
        else:
            self.fields(v)

    def names(self, toks: list[Token], last: str) -> None:
        word = str(toks[-1]) if toks else ""
        if word in _PLAIN_WORDS or word == "where" or (
                last == "NUMBER" and len(toks) >= 2 and str(toks[-2]) in _COUNT_WORDS):
            self.fields(self.drv_source())
            return
        if not self.traj_tokens:  # catalog declarations: a type after `name:`
            if last == "COLON":
                self.types()
            return
        paren = _open_paren(toks)
        if paren >= 3 and last in ("LPAR", "COMMA") and toks[paren - 2].type == "DOT":
            tool = self.tool(str(toks[paren - 3]), str(toks[paren - 1]))
            if tool is not None:
                self.params(tool)
                return
        if last in ("EQUAL",):
            self.platforms()
            return
        if last in ("SEQ", "FAN", "DRV") or (last == "RPAR" and paren < 0 and len(toks) >= 2
                                              and toks[-2].type == "NUMBER"):
            self.binding_names()
            return
        self.binding_names()
        for f in FUNCS:
            self.add(f, K.Function, "function of answers and conditions")


_PLAIN_WORDS = frozenset(r.surface for r in REDUCERS.values() if r.form == "plain")
_COUNT_WORDS = frozenset(r.surface for r in REDUCERS.values() if r.form == "count")
_STEP_WORDS = _PLAIN_WORDS | _COUNT_WORDS | {"where"}
"""The words that start a ``drv`` step (the registry's plain and count forms, and ``where``):
offered as reducers, with the registry's docs, rather than as bare keywords."""


def _words(terminals: set[str]) -> set[str]:
    """The texts of the keyword and operator terminals among ``terminals`` (the grammar's
    anonymous string terminals)."""
    lark = lark_parser()
    out = set()
    for t in terminals:
        if t.startswith("$"):  # $END
            continue
        pattern = lark.get_terminal(t).pattern
        if pattern.type == "str":
            out.add(str(pattern.value))
    return out


def complete(text_before: str, ctx: CheckContext | None) -> list[lsp.CompletionItem]:
    """The completion items at the end of ``text_before``, with the catalog and bindings of
    ``ctx`` (the last analysis that checked; None: keywords and reducers only)."""
    state = cursor_state(text_before)
    if state is None:
        return []
    return _Completer(state, ctx).run()
