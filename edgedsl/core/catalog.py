"""The catalog model: platforms, tools, record types and code types, resolved and typed.

A :class:`Catalog` is what the checker builds from the catalog declarations of a module and of
every module it ``use``s (``stdlib/*.edge``). It holds semantic types from ``types.py``, never
AST nodes; every element keeps the span of its declaration for diagnostics.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from .source import NO_SPAN, Span
from .types import CodeType, FieldType, RecordType, type_to_json


@dataclass(frozen=True, slots=True)
class Param:
    """One tool parameter: name, type, and whether it may be left out (``?``); its Korean
    ``label`` and ``unit`` when declared (documentation: not part of equality)."""

    name: str
    type: FieldType
    optional: bool = False
    span: Span = field(default=NO_SPAN, compare=False)
    label: str | None = field(default=None, compare=False)
    unit: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Paging:
    """A tool's paging convention: wire names of the page-number and page-size parameters,
    the largest page size, and the response field holding the total number of records."""

    page: str | None = None
    size: str | None = None
    size_limit: int | None = None
    total: str | None = None
    extra: tuple[tuple[str, str, int | None], ...] = ()


_EMPTY_RECORD = RecordType("Record", ())


@dataclass(frozen=True, slots=True)
class Tool:
    """One callable endpoint of a platform, with its typed signature and response shape."""

    platform: str
    name: str
    doc: str = ""
    method: str | None = None
    path: str | None = None
    params: tuple[Param, ...] = ()
    record: RecordType = _EMPTY_RECORD
    many: bool = True
    at: str | None = None
    paging: Paging | None = None
    span: Span = field(default=NO_SPAN, compare=False)

    @property
    def qualname(self) -> str:
        """``platform.tool``."""
        return f"{self.platform}.{self.name}"

    @property
    def has_http(self) -> bool:
        """True when the tool declares a method and path (callable over HTTP)."""
        return self.method is not None and self.path is not None

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``, or None."""
        for p in self.params:
            if p.name == name:
                return p
        return None

    def declaration_json(self) -> dict[str, object]:
        """A canonical JSON form of the declaration (the store keys on its hash)."""
        return {
            "platform": self.platform,
            "name": self.name,
            "method": self.method,
            "path": self.path,
            "params": [[p.name, type_to_json(p.type), p.optional] for p in self.params],
            "record": {
                "name": self.record.name,
                "fields": [[f.name, type_to_json(f.type), f.optional] for f in self.record.fields],
            },
            "many": self.many,
            "at": self.at,
            "paging": None
            if self.paging is None
            else [self.paging.page, self.paging.size, self.paging.size_limit, self.paging.total],
        }

    def declaration_hash(self) -> str:
        """SHA-256 (hex, 16 chars) of the canonical declaration."""
        blob = orjson.dumps(self.declaration_json(), option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Platform:
    """One API provider: settings and its tools by name."""

    name: str
    doc: str = ""
    base: str | None = None
    envelope: str | None = None
    secret: str | None = None
    quota: tuple[int, str] | None = None
    tools: dict[str, Tool] = field(default_factory=dict, compare=False)
    span: Span = field(default=NO_SPAN, compare=False)
    #: the module declaring the platform (what a file writes in its ``use``: platform ``tago``
    #: lives in module ``bus``); empty when unknown
    module: str = field(default="", compare=False)


@dataclass
class Catalog:
    """Every platform, code type and record type visible to a module."""

    platforms: dict[str, Platform] = field(default_factory=dict)
    code_types: dict[str, CodeType] = field(default_factory=dict)
    records: dict[str, RecordType] = field(default_factory=dict)
    #: values derived from this catalog's tools, kept with it (by tool qualname; see
    #: ``plan.ToolSpec.input_of``): a catalog is shared by the compiles that use its modules
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def tool(self, qualname: str) -> Tool | None:
        """The tool ``platform.tool``, or None."""
        platform, _, name = qualname.partition(".")
        p = self.platforms.get(platform)
        return None if p is None else p.tools.get(name)

    def tools(self) -> list[Tool]:
        """All tools, platform by platform, in declaration order."""
        return [t for p in self.platforms.values() for t in p.tools.values()]
