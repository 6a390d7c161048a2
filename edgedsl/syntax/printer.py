"""Stage `format`: AST → text, in one canonical layout.

``parse(format(ast)) == ast`` and formatting is idempotent. The layout:

* 2-space indentation, one statement per line, a blank line between top-level items;
* inside a platform, items one per line, a blank line between items except inside a run of
  settings (``base``/``envelope``/``secret``/``quota``) or a run of ``type`` declarations;
* record fields one per line (no commas), answer blocks one field per line (trailing comma);
* calls, tool parameter lists, ``paged (…)`` options and ``parallel (…)`` headers stay on one
  line up to 100 columns, else one item per line with a trailing comma;
* a trajectory header longer than 100 columns puts its query on its own line;
* minimal parentheses in expressions and predicates (precedence and left associativity);
* strings JSON-escaped with non-ASCII text kept; floats by ``repr``; enum members bare when
  they are a name or a number, else quoted;
* comments: leading comments on their own lines before their node, a trailing comment after the
  node's last line (two spaces before ``#``), a block's end comments before its closing brace.

Widths count East Asian wide characters (Korean) as two columns.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from ..reduce.registry import REDUCERS
from . import nodes as n

WIDTH = 100
"""The column limit of one-line layouts."""

_IND = "  "
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_RE = re.compile(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_SETTINGS = (n.BaseDecl, n.EnvelopeDecl, n.SecretDecl, n.QuotaDecl)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# ---------------------------------------------------------------- literals and types


def format_string(value: str) -> str:
    """A string literal: JSON escapes, non-ASCII characters (Korean) kept as they are."""
    return json.dumps(value, ensure_ascii=False)


def format_number(value: int | float) -> str:
    """A number that reparses to the same int or float (negative numbers with a leading ``-``)."""
    return repr(value) if isinstance(value, float) else str(value)


def _day(d: _dt.date) -> str:
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def format_literal(lit: n.Literal_) -> str:
    """A literal on one line: string, number, date, bool, list or object."""
    if isinstance(lit, n.StringLit):
        return format_string(lit.value)
    if isinstance(lit, n.NumberLit):
        return format_number(lit.value)
    if isinstance(lit, n.DateLit):
        if lit.shift is not None:
            sh = lit.shift
            unit = sh.unit[:-1] if sh.amount == 1 else sh.unit
            return f"{_day(sh.day)} {sh.sign} {sh.amount} {unit}"
        return _day(lit.value)
    if isinstance(lit, n.BoolLit):
        return "true" if lit.value else "false"
    if isinstance(lit, n.ListLit):
        return "[" + ", ".join(format_literal(i) for i in lit.items) + "]"
    if isinstance(lit, n.DictLit):
        inner = ", ".join(f"{format_string(k)}: {format_literal(v)}" for k, v in lit.entries)
        return "{" + inner + "}"
    raise TypeError(f"internal error: not a literal: {lit!r}")


def _enum_member(member: str) -> str:
    if _NAME_RE.fullmatch(member) or _NUMBER_RE.fullmatch(member):
        return member
    return format_string(member)


def format_type(texpr: n.TypeExpr) -> str:
    """A type expression: ``str?``, ``enum[A, "기타"]``, ``[T]``."""
    if isinstance(texpr, n.NamedTypeExpr):
        text = texpr.name
    elif isinstance(texpr, n.EnumTypeExpr):
        text = "enum[" + ", ".join(_enum_member(m) for m in texpr.members) + "]"
    elif isinstance(texpr, n.ListTypeExpr):
        text = "[" + format_type(texpr.item) + "]"
    else:
        raise TypeError(f"internal error: not a type expression: {texpr!r}")
    return text + "?" if texpr.optional else text


# ---------------------------------------------------------------- expressions and predicates

_BINOP_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def _expr_prec(e: n.Expr) -> int:
    if isinstance(e, n.BinOp):
        return _BINOP_PREC[e.op]
    if isinstance(e, n.Neg) or (isinstance(e, n.NumberLit) and e.value < 0):
        return 3
    return 4


def format_expr(e: n.Expr) -> str:
    """An expression with the fewest parentheses that keep its structure."""
    if isinstance(e, n.BinOp):
        p = _BINOP_PREC[e.op]
        left, right = format_expr(e.left), format_expr(e.right)
        if _expr_prec(e.left) < p:
            left = f"({left})"
        if _expr_prec(e.right) <= p:
            right = f"({right})"
        return f"{left} {e.op} {right}"
    if isinstance(e, n.Neg):
        inner = format_expr(e.operand)
        return f"-({inner})" if _expr_prec(e.operand) < 3 else f"-{inner}"
    if isinstance(e, n.Ref):
        return ".".join(e.parts)
    if isinstance(e, n.NameExpr):
        return e.name
    if isinstance(e, n.FuncCall):
        return f"{e.name}(" + ", ".join(format_expr(a) for a in e.args) + ")"
    return format_literal(e)


def _pred_prec(p: n.Pred) -> int:
    return {n.PredOr: 1, n.PredAnd: 2, n.PredNot: 3}.get(type(p), 4)


def format_pred(p: n.Pred) -> str:
    """A predicate with the fewest parentheses (``not`` > ``and`` > ``or``)."""

    def sub(q: n.Pred, need: int) -> str:
        text = format_pred(q)
        return f"({text})" if _pred_prec(q) < need else text

    if isinstance(p, n.PredOr):
        return " or ".join(sub(q, 2) for q in p.operands)
    if isinstance(p, n.PredAnd):
        return " and ".join(sub(q, 3) for q in p.operands)
    if isinstance(p, n.PredNot):
        return "not " + sub(p.operand, 3)
    if isinstance(p, n.PredExists):
        return f"exists({p.name})"
    if isinstance(p, n.PredCmp):
        return f"{format_expr(p.left)} {p.op} {format_expr(p.right)}"
    raise TypeError(f"internal error: not a predicate: {p!r}")


# ---------------------------------------------------------------- nodes on one line


def format_arg_value(v: n.ArgValue) -> str:
    """An argument value: a literal, ``seq x.f``, ``fan(k) x.f``, a shared name or a list of
    literals and references (``[seq a.f, "x"]``)."""
    if isinstance(v, n.SeqArg):
        return "seq " + format_expr(v.ref)
    if isinstance(v, n.ListArg):
        return "[" + ", ".join(format_arg_value(i) for i in v.items) + "]"
    if isinstance(v, n.FanArg):
        bound = "" if v.bound is None else f"({v.bound})"
        return f"fan{bound} " + format_expr(v.ref)
    if isinstance(v, n.SharedArg):
        return v.name
    return format_literal(v)


def _arg(a: n.Arg) -> str:
    return f"{a.name}: {format_arg_value(a.value)}"


def format_reducer(r: n.Reducer) -> str:
    """One step of a ``drv`` chain."""
    red = REDUCERS[r.op]
    if red.needs_pivot:
        assert r.pivot is not None, "internal error: this reducer needs a pivot"
        return red.spell(r.field, format_literal(r.pivot))
    return red.spell(r.field, None)


def format_drv(d: n.Drv) -> str:
    """``drv x | max f | where g >= 3`` (always one line)."""
    return "drv " + " | ".join([".".join(d.source), *(format_reducer(r) for r in d.steps)])


def _pages(call: n.Call) -> str:
    return "" if call.pages is None else f" pages {call.pages}"


# ---------------------------------------------------------------- layout


def _broken(head: str, items: Sequence[str], tail: str, indent: str, reserve: int = 0) -> list[str]:
    """``head`` + items one line each (trailing comma) + ``tail``, or one line when it fits.

    ``reserve`` columns are kept free for text the caller appends to the last line.
    """
    one = f"{indent}{head}{', '.join(items)}{tail}"
    if not items or _width(one) + reserve <= WIDTH:
        return [one]
    inner = indent + _IND
    return [indent + head, *(f"{inner}{item}," for item in items), indent + tail.lstrip(" ")]


def _call(call: n.Call, indent: str, prefix: str, suffix: str = "") -> list[str]:
    head = f"{prefix}{call.platform}.{call.tool}("
    return _broken(head, [_arg(a) for a in call.args], ")" + _pages(call) + suffix, indent)


def _braced(head_lines: list[str], body: list[str], indent: str) -> list[str]:
    """Append `` {`` + body + ``}`` to ``head_lines`` (or `` {}`` when the body is empty)."""
    lines = list(head_lines)
    if not body:
        lines[-1] += " {}"
        return lines
    lines[-1] += " {"
    return [*lines, *body, indent + "}"]


class _Printer:
    """Renders statement-level nodes to lines; one instance per module."""

    def stmt(self, node: Any, depth: int, render: Callable[[Any, str], list[str]]) -> list[str]:
        """Leading comments, the rendered node, and its trailing comment on its last line."""
        indent = _IND * depth
        lines = [indent + c for c in node.comments]
        body = render(node, indent)
        if node.trailing is not None:
            body[-1] += "  " + node.trailing
        return [*lines, *body]

    def body(self, stmts: Sequence[n.Stmt], end: Sequence[str], depth: int) -> list[str]:
        """The statements of a block and its end comments."""
        out: list[str] = []
        for s in stmts:
            out += self.stmt(s, depth, self.statement)
        return out + [_IND * depth + c for c in end]

    # ------------------------------------------------------------ statements
    def statement(self, s: n.Stmt, indent: str) -> list[str]:
        """One statement of a trajectory or block."""
        if isinstance(s, n.Binding):
            return self.binding(s, indent)
        if isinstance(s, n.IfStmt):
            return self.if_stmt(s, indent)
        if isinstance(s, n.AnswerStmt):
            if s.fields is None:
                assert s.expr is not None, "internal error: an answer needs an expression"
                return [f"{indent}answer {format_expr(s.expr)}"]
            fields = [f"{indent}{_IND}{f.name}: {format_expr(f.expr)}," for f in s.fields]
            return _braced([indent + "answer"], fields, indent)
        if isinstance(s, n.SayStmt):
            return [f"{indent}say {format_string(s.template)}"]
        raise TypeError(f"internal error: not a statement: {s!r}")

    def binding(self, b: n.Binding, indent: str) -> list[str]:
        """``name = call | drv | parallel | compare``."""
        node, prefix = b.node, f"{b.name} = "
        if isinstance(node, n.Call):
            return _call(node, indent, prefix)
        if isinstance(node, n.Drv):
            return [indent + prefix + format_drv(node)]
        if isinstance(node, n.Compare):
            over = f" over {node.param} in {format_literal(node.values)}"
            return _call(node.call, indent, prefix + "compare ", over)
        if isinstance(node, n.Parallel):
            shared = [_arg(a) for a in node.shared]
            head = _broken(prefix + "parallel (", shared, ")", indent, reserve=2)
            depth = len(indent) // len(_IND) + 1
            body: list[str] = []
            for br in node.branches:
                body += self.stmt(br, depth, self.branch)
            body += [_IND * depth + c for c in node.end_comments]
            return _braced(head, body, indent)
        raise TypeError(f"internal error: not a node: {node!r}")

    def branch(self, br: n.Branch, indent: str) -> list[str]:
        """``name = call`` inside a parallel group."""
        return _call(br.call, indent, f"{br.name} = ")

    def if_stmt(self, s: n.IfStmt, indent: str) -> list[str]:
        """``if p { … } else if q { … } else { … }``."""
        depth = len(indent) // len(_IND) + 1
        lines = _braced(
            [f"{indent}if {format_pred(s.cond)}"],
            self.body(s.then, s.then_end_comments, depth),
            indent,
        )
        if s.orelse is None:
            return lines
        if _is_else_if(s):
            inner = self.if_stmt(s.orelse[0], indent)  # type: ignore[arg-type]
            lines[-1] += " else " + inner[0][len(indent) :]
            return [*lines, *inner[1:]]
        rest = _braced(
            [lines.pop()[len(indent) :] + " else"],
            self.body(s.orelse, s.else_end_comments, depth),
            indent,
        )
        rest[0] = indent + rest[0]
        return [*lines, *rest]

    # ------------------------------------------------------------ catalogs
    def item(self, item: n.Item | n.PlatformItem, indent: str) -> list[str]:
        """One top-level item or platform item."""
        depth = len(indent) // len(_IND) + 1
        if isinstance(item, n.UseDecl):
            return [indent + "use " + ", ".join(item.names)]
        if isinstance(item, n.TypeDecl):
            doc = "" if item.doc is None else " " + format_string(item.doc)
            return [f"{indent}type {item.name} = code /{item.pattern}/{doc}"]
        if isinstance(item, n.RecordDecl):
            body: list[str] = []
            for f in item.fields:
                body += self.stmt(f, depth, lambda f, i: [f"{i}{_member(f)}"])
            body += [_IND * depth + c for c in item.end_comments]
            return _braced([f"{indent}record {item.name}"], body, indent)
        if isinstance(item, n.PlatformDecl):
            doc = "" if item.doc is None else " " + format_string(item.doc)
            return _braced(
                [f"{indent}platform {item.name}{doc}"], self.platform_body(item, depth), indent
            )
        if isinstance(item, n.Trajectory):
            return self.trajectory(item, indent)
        if isinstance(item, n.RunDecl):
            lines: list[str] = []
            for st in item.settings:
                lines += self.stmt(st, depth, lambda s, i: [f"{i}{s.name}: "
                                                            f"{format_literal(s.value)}"])
            lines += [_IND * depth + c for c in item.end_comments]
            return _braced([f"{indent}run"], lines, indent)
        if isinstance(item, n.ToolDecl):
            return _tool(item, indent)
        if isinstance(item, n.BaseDecl):
            return [f"{indent}base {format_string(item.url)}"]
        if isinstance(item, n.EnvelopeDecl):
            return [f"{indent}envelope {item.name}"]
        if isinstance(item, n.SecretDecl):
            return [f"{indent}secret {item.name}"]
        if isinstance(item, n.QuotaDecl):
            return [f"{indent}quota {item.amount} per {item.per}"]
        raise TypeError(f"internal error: not an item: {item!r}")

    def platform_body(self, p: n.PlatformDecl, depth: int) -> list[str]:
        """Platform items, blank lines between groups; then the end comments."""
        out: list[str] = []
        prev: n.PlatformItem | None = None
        for it in p.items:
            if prev is not None and not _same_group(prev, it):
                out.append("")
            out += self.stmt(it, depth, self.item)
            prev = it
        return out + [_IND * depth + c for c in p.end_comments]

    def trajectory(self, t: n.Trajectory, indent: str) -> list[str]:
        """``trajectory name "query" { … }``; the query on its own line when too long."""
        depth = len(indent) // len(_IND) + 1
        body = self.body(t.body, t.end_comments, depth)
        head = f"{indent}trajectory {t.name} {format_string(t.query)}"
        if _width(head) + 2 <= WIDTH:
            return _braced([head], body, indent)
        lines = [f"{indent}trajectory {t.name}", f"{indent}{_IND}{format_string(t.query)}"]
        if not body:
            return [*lines, indent + "{}"]
        return [*lines, indent + "{", *body, indent + "}"]


def _is_else_if(s: n.IfStmt) -> bool:
    if s.orelse is None or len(s.orelse) != 1 or s.else_end_comments:
        return False
    inner = s.orelse[0]
    return isinstance(inner, n.IfStmt) and not inner.comments and inner.trailing is None


def _same_group(a: n.PlatformItem, b: n.PlatformItem) -> bool:
    if isinstance(a, _SETTINGS) and isinstance(b, _SETTINGS):
        return True
    return isinstance(a, n.TypeDecl) and isinstance(b, n.TypeDecl)


def _member(m: n.FieldDecl | n.ParamDecl) -> str:
    """A record field or tool parameter: ``name: type``, then its label and unit if declared
    (a unit is written only after a label, as the grammar has it)."""
    text = f"{m.name}: {format_type(m.type)}"
    if m.label is not None:
        text += " " + format_string(m.label)
        if m.unit is not None:
            text += " unit " + format_string(m.unit)
    return text


def _tool(t: n.ToolDecl, indent: str) -> list[str]:
    head = f"tool {t.name}"
    if t.doc is not None:
        head += " " + format_string(t.doc)
    if t.method is not None:
        head += f" {t.method} {format_string(t.path or '')}"
    tail = " -> " + (f"[{t.returns}]" if t.many else t.returns)
    if t.at is not None:
        tail += " at " + format_string(t.at)
    params = [_member(p) for p in t.params]
    opts = [
        f"{o.key}: {o.name}" + ("" if o.limit is None else f" <= {o.limit}")
        for o in (t.paged or ())
    ]
    paged = "" if t.paged is None else " paged (" + ", ".join(opts) + ")"
    one = f"{indent}{head} (" + ", ".join(params) + ")" + tail + paged
    if _width(one) <= WIDTH:
        return [one]
    lines = (
        _broken(head + " (", params, ")" + tail, indent) if params else [f"{indent}{head} (){tail}"]
    )
    if t.paged is not None:
        last = lines.pop()
        lines += _broken(last[len(indent) :] + " paged (", opts, ")", indent)
    return lines


def format_module(module: n.Module) -> str:
    """The canonical text of a module (ends with a newline unless the module is empty)."""
    printer = _Printer()
    out: list[str] = []
    for i, item in enumerate(module.items):
        if i:
            out.append("")
        out += printer.stmt(item, 0, printer.item)
    if module.end_comments and out:
        out.append("")
    out += list(module.end_comments)
    return "".join(line.rstrip(" ") + "\n" for line in out)


def format_text(text: str, name: str = "<string>") -> str:
    """Parse, build and format a text; raises CompileError (``E0xx``) when it does not parse."""
    from .build import parse_module

    return format_module(parse_module(text, name))


__all__ = [
    "WIDTH",
    "format_arg_value",
    "format_drv",
    "format_expr",
    "format_literal",
    "format_module",
    "format_number",
    "format_pred",
    "format_reducer",
    "format_string",
    "format_text",
    "format_type",
]
