"""What a synthesized query may name: the literal values a trajectory uses
(:func:`literal_uses`, every argument, ``parallel`` header value, ``compare`` arm, ``drv`` pivot
and ``if`` threshold) and the Korean labels of tools and fields."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...core.labels import label_of as catalog_label
from ...syntax import nodes as n
from .templates import Glossary

__all__ = [
    "LiteralUse",
    "items_of",
    "label_of",
    "literal_uses",
    "of_title",
    "pred_name",
    "python_value",
    "shared_param",
    "tool_title",
]


def _code_label(doc: str) -> str | None:
    """The noun of a code type's doc: ``DART 고유번호 corp_code (8자리)`` → ``DART 고유번호``."""
    text = doc.split(" (")[0].split(" = ")[0]
    words = [w for w in text.split() if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_/]*", w)
             or (w.isupper() and "_" not in w and len(w) <= 5)]
    return " ".join(words) or None


def label_of(name: str, type_: Any, glossary: Glossary, declared: str | None = None) -> str:
    """The Korean label of a field or parameter: a glossary's (a user's ``glossary.json``
    overrides by name), the catalog's (``declared``: ``rcept_dt: date "접수일자"``; a name that
    is itself Korean text is its own label), a code type's doc, and only then the name."""
    if name in glossary.labels:
        return glossary.labels[name]
    catalog = catalog_label(name, declared)
    if catalog is not None:
        return catalog
    if isinstance(type_, dict) and type_.get("code") and type_.get("doc"):
        return _code_label(str(type_["doc"])) or name
    return name


def tool_title(doc: str, name: str) -> str:
    """A tool's short Korean name, a noun for what it returns: its doc up to ``: `` without
    parentheses and without a closing 검색 / 조회 / 제공, which name the act rather than the
    records (``공시검색: …`` → ``공시``, ``도로명주소 검색`` → ``도로명주소``: a query says
    "공시를 조회하고", "공시의 회사명", not "공시검색을 조회하고"); the tool's name when that is
    empty or longer than 40 characters."""
    head = re.sub(r"\s*\([^()]*\)", "", doc.split(": ")[0]).strip()
    head = re.sub(r"(?<=\S)\s*(검색|조회|제공)$", "", head)
    return head if head and len(head) <= 40 else name


def of_title(title: str, label: str, glue: str = "의 ") -> str:
    """``title의 label`` (or ``title`` + ``glue`` + ``label``), the label alone when the title
    is it: a conversion titled by what it gives (``시군구 코드``) is not read "시군구 코드의
    시군구 코드" in a query or named ``시군구_코드_시군구_코드`` in an answer."""
    return label if title == label else f"{title}{glue}{label}"


@dataclass(frozen=True, slots=True)
class LiteralUse:
    """One literal value a trajectory uses: its role (``arg`` of a call, ``shared`` value of a
    ``parallel`` header, ``arm`` of a ``compare``, ``pivot`` of a reducer, ``predicate``
    operand of an ``if``), the step, the tool (None for pivots and predicates), the parameter
    or field name, and the value (``datetime.date`` for dates; a list literal gives one use per
    item)."""

    role: Literal["arg", "shared", "arm", "pivot", "predicate"]
    step: str
    tool: str | None
    name: str
    value: Any


def python_value(lit: n.Literal_ | n.Expr) -> Any:
    """The Python value of a literal node (``datetime.date`` for a date)."""
    if isinstance(lit, n.StringLit | n.NumberLit | n.DateLit | n.BoolLit):
        return lit.value
    if isinstance(lit, n.ListLit):
        return [python_value(i) for i in lit.items]
    if isinstance(lit, n.DictLit):
        return {k: python_value(v) for k, v in lit.entries}
    return None


def items_of(v: n.ArgValue | n.Expr) -> list[n.Literal_]:
    """The literals of an argument value: a list's items, a single literal, or none."""
    if isinstance(v, n.ListLit):
        return list(v.items)
    if isinstance(v, n.StringLit | n.NumberLit | n.DateLit | n.BoolLit | n.DictLit):
        return [v]
    return []


def pred_name(e: n.Expr) -> str:
    """The name a predicate literal is compared with: the field, or ``count``."""
    if isinstance(e, n.Ref):
        return e.field
    if isinstance(e, n.FuncCall):
        return e.name
    return ""


def _pred_literals(p: n.Pred, out: list[LiteralUse]) -> None:
    if isinstance(p, n.PredCmp):
        for this, other in ((p.left, p.right), (p.right, p.left)):
            out += [LiteralUse("predicate", "if", None, pred_name(other), python_value(i))
                    for i in items_of(this)]
    elif isinstance(p, n.PredNot):
        _pred_literals(p.operand, out)
    elif isinstance(p, n.PredAnd | n.PredOr):
        for q in p.operands:
            _pred_literals(q, out)


def literal_uses(traj: n.Trajectory) -> list[LiteralUse]:
    """Every literal value ``traj`` uses, in source order (see :class:`LiteralUse`)."""
    return body_literal_uses(traj.body)


def body_calls(body: Sequence[n.Stmt]) -> list[n.Call]:
    """Every call of the statements ``body``, in source order: calls, ``compare`` calls, the
    branches of a ``parallel`` group, both arms of an ``if``."""
    out: list[n.Call] = []
    for s in body:
        if isinstance(s, n.IfStmt):
            out += body_calls(s.then) + body_calls(s.orelse or ())
        elif isinstance(s, n.Binding):
            out += _calls_of(s.node)
    return out


def body_call_args(body: Sequence[n.Stmt]) -> list[tuple[str, n.Arg]]:
    """Every argument of every call of ``body`` (a draft's body; :func:`body_calls`) with the
    call's tool (``platform.tool``); a ``parallel`` group's header values stay ``shared``
    references."""
    return [(c.qualname, a) for c in body_calls(body) for a in c.args]


def _calls_of(node: n.NodeExpr) -> list[n.Call]:
    """The calls a bound node makes (none for a ``drv``)."""
    if isinstance(node, n.Call):
        return [node]
    if isinstance(node, n.Compare):
        return [node.call]
    if isinstance(node, n.Parallel):
        return [b.call for b in node.branches]
    return []


def body_literal_uses(body: Sequence[n.Stmt]) -> list[LiteralUse]:
    """Every literal value the statements ``body`` use, in source order (a draft's body: see
    :func:`literal_uses`)."""
    out: list[LiteralUse] = []

    def call(step: str, c: n.Call) -> None:
        for a in c.args:
            out.extend(LiteralUse("arg", step, c.qualname, a.name, python_value(i))
                       for i in items_of(a.value))

    def walk(body: Sequence[n.Stmt]) -> None:
        for s in body:
            if isinstance(s, n.IfStmt):
                _pred_literals(s.cond, out)
                walk(s.then)
                walk(s.orelse or ())
            if not isinstance(s, n.Binding):
                continue
            node = s.node
            if isinstance(node, n.Call):
                call(s.name, node)
            elif isinstance(node, n.Compare):
                call(s.name, node.call)
                out.extend(LiteralUse("arm", s.name, node.call.qualname, node.param,
                                      python_value(i)) for i in node.values.items)
            elif isinstance(node, n.Drv):
                out.extend(LiteralUse("pivot", s.name, None, r.field, python_value(r.pivot))
                           for r in node.steps if r.pivot is not None)
            elif isinstance(node, n.Parallel):
                for a in node.shared:
                    tool, param = shared_param(node, a.name)
                    out.extend(LiteralUse("shared", s.name, tool, param, python_value(i))
                               for i in items_of(a.value))
                for b in node.branches:
                    call(f"{s.name}.{b.name}", b.call)

    walk(body)
    return out


def shared_param(p: n.Parallel, shared: str) -> tuple[str | None, str]:
    """The tool and parameter that take the header value ``shared``: the first branch that
    passes it (the first branch's tool and the header's name itself when none does) — what a
    shared literal is labelled and formatted by (``bizyear`` feeds ``bizYear``, written
    ``2025년``; ``stdrestcd`` feeds only the second branch's ``stdRestCd``, 휴게소 표준코드)."""
    for b in p.branches:
        for a in b.call.args:
            if isinstance(a.value, n.SharedArg) and a.value.name == shared:
                return b.call.qualname, a.name
    return (p.branches[0].call.qualname if p.branches else None), shared
