"""Stage `build`, the expression half: the builder's helpers and its rule methods for
predicates, expressions and literals (the rest of the rules are in ``build.py``).

:class:`ExprBuilder` is the base class of the builder: it holds the source, the diagnostics
and the current rule's extent (``pos``), and turns tokens into spans and values.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from typing import Any

import orjson
from lark import Token

from ..core.diagnostics import Diagnostics, diag
from ..core.source import Source, Span, maker
from . import nodes as n

_BinOp = maker(n.BinOp)
_BoolLit = maker(n.BoolLit)
_DateLit = maker(n.DateLit)
_DictLit = maker(n.DictLit)
_FuncCall = maker(n.FuncCall)
_ListArg = maker(n.ListArg)
_ListLit = maker(n.ListLit)
_NameExpr = maker(n.NameExpr)
_Neg = maker(n.Neg)
_NumberLit = maker(n.NumberLit)
_PredAnd = maker(n.PredAnd)
_PredCmp = maker(n.PredCmp)
_PredExists = maker(n.PredExists)
_PredNot = maker(n.PredNot)
_PredOr = maker(n.PredOr)
_StringLit = maker(n.StringLit)


#: The parts of a DATE_SHIFT token (grammar/edge.lark): day, sign, amount, unit.
_SHIFT = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[ \t]*([+-])[ \t]*([0-9]+)[ \t]+(days?|months?)")


def _unquote(tok: Token) -> str:
    return str(orjson.loads(str(tok)))


def _number(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


def present(children: Sequence[Any]) -> list[Any]:
    """The children that are there (an absent ``[x]`` is None)."""
    return [c for c in children if c is not None]


class ExprBuilder:
    """The builder's state and helpers, and the rule methods of predicates and expressions."""

    src: Source
    diags: Diagnostics
    pos: tuple[int | None, int | None]
    loose: list[n.ListArg]
    """Lists holding references that no call argument has taken yet (E016 when the build
    ends: only a call's argument may hold one)."""

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

    def pred_exists(self, children: list[Any]) -> n.PredExists:
        name, at = children[0]
        return _PredExists(name=name, span=self._span(), name_at=at)

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

    def name_expr(self, children: list[Any]) -> n.NameExpr:
        return _NameExpr(name=children[0][0], span=self._span())

    def func_call(self, children: list[Any]) -> n.FuncCall:
        name, *args = children
        return _FuncCall(name=name[0], args=tuple(args), span=self._span(), name_at=name[1])

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

    def date_shift_lit(self, children: list[Token]) -> n.DateLit:
        (tok,) = children
        m = _SHIFT.fullmatch(str(tok))
        assert m is not None, "internal error: the DATE_SHIFT terminal and _SHIFT disagree"
        try:
            day = dt.date.fromisoformat(m[1])
        except ValueError:
            self.diags.add(diag("E010", f"`{m[1]}` is not a calendar date", self._tok_span(tok),
                                "no such day", hints=["dates are written YYYY-MM-DD"]))
            day = dt.date(1970, 1, 1)
        shift = n.DateShift(day=day, sign="+" if m[2] == "+" else "-", amount=int(m[3]),
                            unit="days" if m[4].startswith("day") else "months")
        value = shift.apply()
        if value is None:
            self.diags.add(diag("E010", f"`{tok}` is not a calendar date", self._tok_span(tok),
                                "beyond the calendar",
                                hints=["a moved day must stay within the years 1 … 9999"]))
            value = day
        return _DateLit(value=value, span=self._span(), shift=shift)

    def number_lit_of(self, tok: Token) -> n.NumberLit:
        """A NUMBER token as a literal node spanning the token."""
        return _NumberLit(value=self._number(tok), span=self._tok_span(tok))

    def true_lit(self, children: list[Any]) -> n.BoolLit:
        return _BoolLit(value=True, span=self._span())

    def false_lit(self, children: list[Any]) -> n.BoolLit:
        return _BoolLit(value=False, span=self._span())

    def list_lit(self, children: list[Any]) -> n.ListLit | n.ListArg:
        items = tuple(present(children))
        if not any(isinstance(it, n.SeqArg) for it in items):
            return _ListLit(items=items, span=self._span())
        arg = _ListArg(items=items, span=self._span())
        self.loose.append(arg)
        return arg

    def dict_lit(self, children: list[Any]) -> n.DictLit:
        entries = tuple(present(children))
        keys = [k for k, _ in entries]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            self.diags.add(diag("E012", f"key `{dup}` appears twice in an object literal",
                                self._span(), "duplicate key"))
        return _DictLit(entries=entries, span=self._span())

    def dict_entry(self, children: list[Any]) -> tuple[str, Any]:
        key, value = children
        return (self._unquote(key), value)
