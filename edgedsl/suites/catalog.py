"""A suite's catalog built as an AST from its tools' Python signatures (no text pasted).

A stateful suite (:mod:`.stateful`) declares each tool with the parameters of the operation
that implements it, the ordering parameter ``after``, and one record per kind of answer.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..syntax import nodes as n
from .model import SuiteError
from .stateful import ORDER_PARAM, STEP_FIELD

__all__ = ["ToolSig", "platform_decl", "signature_params", "type_expr"]

_SCALARS = {str: "str", int: "int", float: "num", bool: "bool"}


def type_expr(annotation: Any, where: str, optional: bool = False) -> n.TypeExpr:
    """An edgedsl type for a Python annotation (``str``, ``int``, ``float``, ``bool``,
    ``list[...]`` of those; ``dict`` and ``Any`` as ``json``)."""
    origin = getattr(annotation, "__origin__", None)
    if annotation in _SCALARS:
        return n.NamedTypeExpr(name=_SCALARS[annotation], optional=optional)
    if origin is list:
        (item,) = annotation.__args__
        return n.ListTypeExpr(item=type_expr(item, where), optional=optional)
    if annotation is Any or annotation is dict or origin is dict:
        return n.NamedTypeExpr(name="json", optional=optional)
    raise SuiteError(f"{where}: no edgedsl type for the annotation {annotation!r}")


def signature_params(fn: Callable[..., Any], where: str) -> tuple[n.ParamDecl, ...]:
    """The parameters of a Python operation (from its annotations; one with a default is
    optional)."""
    hints = inspect.get_annotations(fn, eval_str=True)
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        if name == "self":
            continue
        optional = p.default is not inspect.Parameter.empty
        out.append(n.ParamDecl(name=name, type=type_expr(hints[name], f"{where}.{name}",
                                                         optional)))
    return tuple(out)


def _record(name: str, fields: Mapping[str, str]) -> n.RecordDecl:
    decls = [n.FieldDecl(name=f, type=n.NamedTypeExpr(name=t, optional=True))
             for f, t in fields.items()]
    decls.append(n.FieldDecl(name=STEP_FIELD, type=n.NamedTypeExpr(name="int")))
    decls.append(n.FieldDecl(name="error", type=n.NamedTypeExpr(name="str", optional=True)))
    return n.RecordDecl(name=name, fields=tuple(decls))


@dataclass(frozen=True, slots=True)
class ToolSig:
    """One tool of a stateful suite: its doc line, parameters (``after`` is added) and the
    record it answers with (one per call)."""

    doc: str
    params: tuple[n.ParamDecl, ...]
    record: str


def platform_decl(name: str, doc: str, records: Mapping[str, Mapping[str, str]],
                  tools: Mapping[str, ToolSig],
                  comments: tuple[str, ...] = ()) -> n.PlatformDecl:
    """``platform name "doc" { records…  tools… }``: ``records`` maps a record name to its
    fields and their types (``step`` and ``error`` added to each)."""
    items: list[n.PlatformItem] = [_record(r, f) for r, f in records.items()]
    after = n.ParamDecl(name=ORDER_PARAM, type=n.NamedTypeExpr(name="int", optional=True))
    for tool, sig in tools.items():
        if sig.record not in records:
            raise SuiteError(f"{name}.{tool}: no record `{sig.record}`")
        items.append(n.ToolDecl(name=tool, doc=" ".join(sig.doc.split()),
                                params=(*sig.params, after), returns=sig.record, many=False))
    return n.PlatformDecl(name=name, doc=doc, items=tuple(items), comments=comments)
