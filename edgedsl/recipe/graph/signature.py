"""Tools as graph nodes: :class:`~edgedsl.recipe.graph.model.ToolNode` from a catalog, and signature
text.

:func:`tool_nodes` turns every tool of an :class:`~edgedsl.core.catalog.Catalog` (``std`` included)
into a :class:`ToolNode`:

* ``name`` is the qualified ``platform.tool``; ``doc`` the tool's description;
* ``params`` / ``fields`` are :class:`Port` s whose ``type`` is the type as the language spells it
  (``CorpCode``, ``str``, ``enum[Y, N]``, ``[StockCode]``) and whose ``code`` is the qualified
  name of the code type (``codes.CorpCode``), also for a list of codes;
* ``domain`` is the catalog module declaring the platform — the file stem of the platform's
  span (``dart``, ``fsc``, ``bus`` for both ``tago`` and ``seoulbus``) — or the platform name
  when the platform has no file (or a caller-supplied function says otherwise);
* ``writes`` is true for a tool whose HTTP method is not ``GET`` (it changes the world's state;
  in-process ``std`` tools have no method and do not write);
* ``defaults`` holds, for every required parameter of enum type, the enum members — default
  candidates for a path that starts at the tool (observed values are added later).

:func:`signature_text` is what the retriever embeds: the tool name (also split into words), its
description, the names and types of its parameters and fields, and the code types among them;
``side="out"`` / ``side="in"`` give the text of a tool as a source / as a target.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from ...core.catalog import Catalog, Platform, Tool
from ...core.types import CodeType, EnumType, FieldType, ListType
from .model import Port, Scalar, ToolNode

__all__ = ["default_domain", "name_words", "signature_text", "tool_node", "tool_nodes"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_A-Za-z]+")
"""One word of an identifier: an upper-case run before a capitalised word (``HTTPServer`` →
``HTTP``), a (capitalised) lower-case run, an upper-case run, digits, or a run of other letters
(Hangul and so on)."""


def name_words(name: str) -> list[str]:
    """The lower-cased words of an identifier: ``getRTMSDataSvcAptTrade`` → ``get rtms data svc
    apt trade``, ``SD_SCHUL_CODE`` → ``sd schul code``, ``법령ID`` → ``법령 id``."""
    return [w.lower() for w in _WORD.findall(name)]


def _code_name(t: FieldType) -> str | None:
    while isinstance(t, ListType):
        t = t.item
    return t.name if isinstance(t, CodeType) else None


def _port(name: str, t: FieldType, optional: bool, label: str | None = None) -> Port:
    return Port(name=name, type=str(t), code=_code_name(t), optional=optional, label=label)


def default_domain(platform: Platform) -> str:
    """The catalog module declaring ``platform`` (its file stem), else the platform name."""
    file = platform.span.file
    if not file or file.startswith("<"):
        return platform.name
    stem = Path(file).stem
    return stem or platform.name


def tool_node(tool: Tool, domain: str) -> ToolNode:
    """The graph node of one catalog tool (see the module docstring)."""
    defaults: dict[str, list[Scalar]] = {}
    for p in tool.params:
        if not p.optional and isinstance(p.type, EnumType):
            defaults[p.name] = list(p.type.members)
    method = (tool.method or "").upper()
    return ToolNode(
        name=tool.qualname,
        domain=domain,
        doc=tool.doc,
        params=[_port(p.name, p.type, p.optional, p.label) for p in tool.params],
        fields=[_port(f.name, f.type, f.optional, f.label) for f in tool.record.fields],
        writes=bool(method) and method != "GET",
        defaults=defaults,
    )


def tool_nodes(
    catalog: Catalog, *, domain_of: Callable[[Platform], str] | None = None
) -> list[ToolNode]:
    """Every tool of ``catalog`` as a :class:`ToolNode`, platform by platform in declaration
    order; ``domain_of`` overrides :func:`default_domain`."""
    pick = domain_of or default_domain
    nodes: list[ToolNode] = []
    for platform in catalog.platforms.values():
        domain = pick(platform)
        nodes.extend(tool_node(t, domain) for t in platform.tools.values())
    return nodes


def _ports_text(ports: list[Port]) -> str:
    return ", ".join(f"{p.name} {p.type}" for p in ports)


def signature_text(node: ToolNode, side: Literal["both", "out", "in"] = "both") -> str:
    """The text the retriever embeds for ``node``: its name (also split into words), its
    description, then its parameters (``in:``) and output fields (``out:``) with their types.

    ``side="out"`` leaves the parameters out (the text of a tool as a *source*: what it
    returns); ``side="in"`` leaves the fields out (as a *target*: what it takes).
    """
    platform, _, tool = node.name.partition(".")
    lines = [f"{node.name} ({' '.join(name_words(platform) + name_words(tool))})"]
    if node.doc:
        lines.append(node.doc)
    ports: list[Port] = []
    if node.params and side != "out":
        lines.append("in: " + _ports_text(node.params))
        ports += node.params
    if node.fields and side != "in":
        lines.append("out: " + _ports_text(node.fields))
        ports += node.fields
    codes = sorted({p.type for p in ports if p.code is not None})
    if codes:
        lines.append("codes: " + " ".join(codes))
    return "\n".join(lines)
