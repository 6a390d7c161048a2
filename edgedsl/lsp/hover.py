"""What the editor shows over a name: Markdown made from the checker's typed results.

A tool: its doc, request, parameters and the fields of its record, each with its type, Korean
label and unit. A parameter or a field: its type, label and unit, and the code type's doc. A
binding: the type of the relation it holds and how many rows it can hold (its cardinality, from
the node that makes it: a tool returning one record or a list, a ``fan``, a ``compare``, a
``drv`` chain). A record, a code type, a platform, a ``use``d module, a reducer (its registry
entry) or a function.
"""

from __future__ import annotations

from ..check.context import CheckContext, Group, Rel
from ..core.catalog import Tool
from ..core.types import CodeType, FieldSpec, FieldType, RecordType
from ..reduce.registry import REDUCERS
from ..syntax import nodes as n
from ..syntax.printer import format_literal
from .symbols import (
    BindingT,
    CodeTypeT,
    FieldT,
    FunctionT,
    ModuleT,
    ParamT,
    PlatformT,
    RecordT,
    ReducerT,
    Target,
    ToolT,
)

__all__ = ["cardinality", "hover_markdown"]


def _cell(text: str | None) -> str:
    return "" if not text else text.replace("|", "\\|")


def _type(t: FieldType, optional: bool = False) -> str:
    return f"{t}{'?' if optional else ''}"


def _label(label: str | None, unit: str | None) -> str:
    parts = [f'"{label}"'] if label else []
    if unit:
        parts.append(f"({unit})")
    return " ".join(parts)


def _fields_table(record: RecordType) -> str:
    rows = [f"| `{f.name}` | `{_cell(_type(f.type, f.optional))}` | {_cell(f.label)} | "
            f"{_cell(f.unit)} |" for f in record.fields]
    return "\n".join(["| field | type | label | unit |", "|---|---|---|---|", *rows])


def _tool(tool: Tool) -> str:
    head = f"**tool `{tool.qualname}`**" + (f" — {tool.doc}" if tool.doc else "")
    returns = f"[{tool.record.name}]" if tool.many else tool.record.name
    facts = [f"returns `{returns}`" + (" (a list)" if tool.many else " (one record)")]
    if tool.has_http:
        facts.insert(0, f"`{tool.method} {tool.path}`")
    if tool.paging is not None:
        size = f", page size ≤ {tool.paging.size_limit}" if tool.paging.size_limit else ""
        facts.append(f"paged{size}: without `pages` only the first page is read")
    params = [f"| `{p.name}{'?' if p.optional else ''}` | `{_cell(str(p.type))}` | "
              f"{_cell(p.label)} | {_cell(p.unit)} |" for p in tool.params]
    table = "\n".join(["| parameter | type | label | unit |", "|---|---|---|---|", *params])
    return "\n\n".join([head, " · ".join(facts), table if params else "(no parameters)",
                        _fields_table(tool.record)])


def _code_doc(t: FieldType) -> str:
    return f"\n\n`{t}`: code `/{t.pattern}/`" + (f" — {t.doc}" if t.doc else "") \
        if isinstance(t, CodeType) else ""


def _field(record: str, spec: FieldSpec) -> str:
    label = _label(spec.label, spec.unit)
    return (f"**field `{spec.name}`**: `{_type(spec.type, spec.optional)}`"
            + (f" {label}" if label else "") + f"\n\nof record `{record}`" + _code_doc(spec.type))


def cardinality(node: n.NodeExpr, tool: Tool | None) -> str:
    """How many rows the relation a binding's ``node`` makes can hold, in words."""
    if isinstance(node, n.Compare):
        return (f"one call per compared value ({len(node.values.items)} values); each row "
                f"tagged with the value of `{node.param}` it came from")
    if isinstance(node, n.Parallel):
        return "a group of independent calls: " + ", ".join(
            f"`{b.name}`" for b in node.branches)
    if isinstance(node, n.Drv):
        steps = " | ".join(
            REDUCERS[s.op].spell(s.field, None if s.pivot is None else format_literal(s.pivot))
            if s.op in REDUCERS else s.op for s in node.steps)
        return (f"the rows of `{'.'.join(node.source)}` its reducers keep ({steps}): "
                "a sub-relation, one row or several when values tie")
    fan = next((a.value for a in node.args if isinstance(a.value, n.FanArg)), None)
    if fan is not None:
        bound = f"at most {fan.bound}" if fan.bound is not None else "up to φ"
        return (f"one call per value of `{'.'.join(fan.ref.parts)}` ({bound} calls); "
                "the records of all of them")
    if tool is None:
        return ""
    if not tool.many:
        return "at most one record (the tool returns one)"
    pages = {None: "the first page" if tool.paging is not None else "every record",
             "all": "every page"}.get(node.pages, f"the first {node.pages} pages")  # type: ignore[arg-type]
    return f"0 … n records: a list ({pages} of what `{tool.qualname}` returns)"


def _binding(b: BindingT) -> str:
    v = b.value
    if isinstance(v, Group):
        typ = "group { " + ", ".join(
            f"{k}: [{r.record}]" if r is not None else f"{k}: ?" for k, r in v.branches.items()
        ) + " }"
    elif isinstance(v, Rel):
        one = isinstance(b.binding.node, n.Call) and b.tool is not None and not b.tool.many
        typ = v.record if one else f"[{v.record}]"
    else:
        typ = "?"
    card = cardinality(b.binding.node, b.tool)
    text = f"**binding `{b.binding.name}`**: `{typ}`"
    if card:
        text += f"\n\n{card}"
    if isinstance(v, Rel):
        text += "\n\nfields: " + ", ".join(f"`{k}: {t}`" for k, t in v.fields.items())
    return text


def hover_markdown(target: Target, ctx: CheckContext) -> str:
    """The Markdown shown over a name that denotes ``target``."""
    cat = ctx.catalog
    if isinstance(target, ToolT):
        return _tool(target.tool)
    if isinstance(target, ParamT):
        p = target.param
        label = _label(p.label, p.unit)
        return (f"**parameter `{p.name}`**: `{_type(p.type, p.optional)}`"
                + (f" {label}" if label else "")
                + f"\n\nof `{target.tool.qualname}`" + ("; may be left out" if p.optional else "")
                + _code_doc(p.type))
    if isinstance(target, FieldT):
        return _field(target.record, target.spec)
    if isinstance(target, BindingT):
        return _binding(target)
    if isinstance(target, RecordT):
        rec = cat.records.get(target.name)
        return f"**record `{target.name}`**" + ("" if rec is None else "\n\n" + _fields_table(rec))
    if isinstance(target, CodeTypeT):
        ct = cat.code_types.get(target.name)
        return f"**code type `{target.name}`**" + ("" if ct is None else _code_doc(ct))
    if isinstance(target, PlatformT):
        pf = target.platform
        tools = ", ".join(f"`{t}`" for t in pf.tools)
        return (f"**platform `{pf.name}`**" + (f" — {pf.doc}" if pf.doc else "")
                + (f"\n\nmodule `{pf.module}`" if pf.module else "")
                + (f" · base `{pf.base}`" if pf.base else "") + f"\n\ntools: {tools}")
    if isinstance(target, ModuleT):
        return f"**module `{target.name}`**" + (f"\n\n{target.path}" if target.path else "")
    if isinstance(target, ReducerT):
        r = target.reducer
        return (f"**reducer `{r.spell('f', 'p' if r.needs_pivot else None)}`**: {r.doc}"
                f"\n\napplies to {r.needs}")
    assert isinstance(target, FunctionT)
    return f"**function `{target.name}`** of answers and conditions"
