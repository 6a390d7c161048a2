"""Gold cases → ASTs → formatted ``.edge`` text (never text pasted together).

:func:`trajectory` builds one :class:`~edgedsl.syntax.nodes.Trajectory` per
:class:`~.model.GoldCase` — a binding per gold call, a forwarded value as ``seq label.field``
(in a list argument, each forwarded item: ``[seq a.item_1, seq a.item_3]``), the answer as a
field reference — and :func:`program` a module that ``use``\\ s the suite's
catalog; :func:`formatted` prints a module with the project's printer and checks that the text
parses back to the same AST.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.source import Source
from ..syntax import nodes as n
from ..syntax.build import parse_module
from ..syntax.printer import format_module
from .model import FieldRef, GoldCase, SuiteError

__all__ = ["formatted", "literal", "program", "query_text", "trajectory"]


def literal(value: Any, where: str = "a value") -> n.Literal_:
    """A JSON value as an edgedsl literal (``null`` has no literal: SuiteError)."""
    if isinstance(value, bool):
        return n.BoolLit(value=value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise SuiteError(f"{where}: {value!r} has no literal")
        return n.NumberLit(value=value)
    if isinstance(value, str):
        return n.StringLit(value=value)
    if isinstance(value, list):
        return n.ListLit(items=tuple(literal(v, where) for v in value))
    if isinstance(value, dict):
        return n.DictLit(entries=tuple((str(k), literal(v, where)) for k, v in value.items()))
    raise SuiteError(f"{where}: {type(value).__name__} {value!r} has no literal")


def query_text(text: str) -> str:
    """A suite's query on one line, as a trajectory header holds it (newlines to spaces,
    double quotes to single ones)."""
    return " ".join(text.split("\n")).replace('"', "'")


def _ref(r: FieldRef) -> n.Ref:
    return n.Ref(parts=(r.label, r.field))


def _arg_value(value: Any, where: str) -> n.ArgValue:
    """A gold argument: a reference, a literal, or a list holding references among its
    literals (a list argument's items forwarded one by one)."""
    if isinstance(value, FieldRef):
        return n.SeqArg(ref=_ref(value))
    if isinstance(value, list) and any(isinstance(v, FieldRef) for v in value):
        return n.ListArg(items=tuple(n.SeqArg(ref=_ref(v)) if isinstance(v, FieldRef)
                                     else literal(v, where) for v in value))
    return literal(value, where)


def trajectory(case: GoldCase, platform: str) -> n.Trajectory:
    """The trajectory of one gold case: its calls as bindings, in order, on ``platform``
    (unless a call's tool names its own)."""
    body: list[n.Stmt] = []
    for call in case.calls:
        args = []
        for name, value in call.args.items():
            where = f"{case.case_id} {call.label}.{name}"
            args.append(n.Arg(name=name, value=_arg_value(value, where)))
        plat, _, tool = call.tool.rpartition(".")
        node = n.Call(platform=plat or platform, tool=tool, args=tuple(args))
        body.append(n.Binding(name=call.label, node=node, comments=call.comments))
    if case.answer is not None:
        body.append(n.AnswerStmt(expr=_ref(case.answer)))
    return n.Trajectory(name=case.name, query=query_text(case.query), body=tuple(body))


def program(cases: list[GoldCase], platform: str, comments: tuple[str, ...] = (),
            uses: tuple[str, ...] = ()) -> n.Module:
    """A module that uses ``platform``'s catalog (or the catalogs ``uses``; a call's tool
    then names its platform) and holds one trajectory per case."""
    use = n.UseDecl(names=uses or (platform,), comments=comments)
    return n.Module(items=(use, *(trajectory(c, platform) for c in cases)))


def formatted(module: n.Module, name: str = "<import>") -> str:
    """The module printed by the project's printer; the text must parse back to the module."""
    text = format_module(module)
    if parse_module(Source(name, text)) != module:
        raise SuiteError(f"{name}: the printed program does not parse back to its AST")
    return text
