"""Pass `catalog`: the catalog declarations of every loaded module → :class:`Catalog`.

Names are qualified: a code type or record declared at the top level of module ``codes`` is
``codes.StockCode``; inside ``platform dart`` it is ``dart.CorpCode``. An unqualified type name
is looked up in the enclosing platform, then in the module's top level, then in the top level of
the modules it ``use``s (ambiguity among those is an error); ``codes.StockCode`` names one
directly. A tool's ``-> [Record]`` is looked up the same way (platform, module, used modules).

Paging options: ``page`` (required: wire name of the page-number parameter), ``size`` (wire name
of the page-size parameter, optionally ``<= N``) and ``total`` (response field with the total
record count; without it ``pages all`` reads until a short page). A paged tool returns a list.

A record field becomes a DuckDB column named after it (``runtime/duck.py``), beside the
runtime's own columns (``__row``, ``__arm``, ``__raw``, the store's ``__key`` and ``__seq`` …).
So a field name beginning with ``__`` is reserved (``E120``), and two fields of one record
whose names DuckDB would confuse — equal up to ASCII case — are ``E121``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TypeVar

from ..core.catalog import Catalog, Paging, Param, Platform, Tool
from ..core.diagnostics import Diagnostic, diag, suggestion_hint
from ..core.labels import is_korean_label, is_unit
from ..core.source import Span
from ..core.sqlquote import ident_key
from ..core.types import (
    BOOL,
    DATE,
    FLOAT,
    INT,
    JSON,
    NUM,
    SCALAR_KINDS,
    STR,
    CodeType,
    EnumType,
    FieldSpec,
    FieldType,
    ListType,
    RecordType,
    ScalarType,
)
from ..syntax import nodes as n
from ..syntax.printer import format_string
from .context import UNKNOWN, CheckContext, ModuleInfo

PAGING_KEYS = ("page", "size", "total")
_SCALARS: dict[str, ScalarType] = {t.kind: t for t in (BOOL, DATE, FLOAT, INT, JSON, NUM, STR)}

_Member = TypeVar("_Member", n.FieldDecl, n.ParamDecl)

RESERVED_PREFIX = "__"
"""Record field names beginning with this are reserved for the runtime's own columns."""


class _Builder:
    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.cat = Catalog()
        # (module, platform or None) -> simple name -> qualified name
        self.type_scope: dict[tuple[str, str | None], dict[str, str]] = {}
        self.record_scope: dict[tuple[str, str | None], dict[str, str]] = {}
        self.spans: dict[str, Span] = {}
        self.platform_decls: list[tuple[ModuleInfo, n.PlatformDecl]] = []

    # ------------------------------------------------------------ helpers
    def dup(self, what: str, name: str, span: Span, first: Span | None) -> None:
        secondary = [(first, "first declared here")] if first is not None else []
        self.ctx.diags.add(
            diag(
                "E105",
                f"{what} `{name}` is declared twice",
                span,
                "declared again here",
                secondary=secondary,
            )
        )

    def unique(self, what: str, decls: Iterable[_Member]) -> Iterator[_Member]:
        """``decls`` without the repeated names, each repetition reported (``E105``)."""
        first: dict[str, Span] = {}
        for d in decls:
            span = self.ctx.named(d)
            if d.name in first:
                self.dup(what, d.name, span, first[d.name])
                continue
            first[d.name] = span
            yield d

    # ------------------------------------------------------------ pass 1: code types, platforms
    def declare_types(self, mod: ModuleInfo) -> None:
        top = self.type_scope.setdefault((mod.name, None), {})
        for item in _items_of(mod):
            if isinstance(item, n.TypeDecl):
                self.declare_type(mod.name, item, top)
            elif isinstance(item, n.PlatformDecl):
                if item.name in self.ctx.platform_module:
                    first = self.spans.get(f"platform:{item.name}")
                    self.dup("platform", item.name, self.ctx.named(item), first)
                    continue
                self.ctx.platform_module[item.name] = mod.name
                self.spans[f"platform:{item.name}"] = self.ctx.named(item)
                self.platform_decls.append((mod, item))
                scope = self.type_scope.setdefault((mod.name, item.name), {})
                for sub in item.items:
                    if isinstance(sub, n.TypeDecl):
                        self.declare_type(item.name, sub, scope)

    def declare_type(self, qual: str, decl: n.TypeDecl, scope: dict[str, str]) -> None:
        span = self.ctx.named(decl)
        if decl.name in SCALAR_KINDS:
            self.ctx.diags.add(
                diag(
                    "E105",
                    f"type `{decl.name}` shadows the built-in type",
                    span,
                    "a built-in type name",
                    hints=["choose another name"],
                )
            )
            return
        qname = f"{qual}.{decl.name}"
        if decl.name in scope or qname in self.cat.code_types:
            self.dup("type", decl.name, span, self.spans.get(f"type:{qname}"))
            return
        scope[decl.name] = qname
        self.spans[f"type:{qname}"] = span
        self.cat.code_types[qname] = CodeType(qname, decl.pattern, decl.doc or "")

    def declare_record_names(self, mod: ModuleInfo) -> None:
        top = self.record_scope.setdefault((mod.name, None), {})
        for item in _items_of(mod):
            if isinstance(item, n.RecordDecl):
                self.declare_record_name(mod.name, item, top)
        for m, p in self.platform_decls:
            if m is mod:
                scope = self.record_scope.setdefault((mod.name, p.name), {})
                for sub in p.items:
                    if isinstance(sub, n.RecordDecl):
                        self.declare_record_name(p.name, sub, scope)

    def declare_record_name(self, qual: str, decl: n.RecordDecl, scope: dict[str, str]) -> None:
        span = self.ctx.named(decl)
        qname = f"{qual}.{decl.name}"
        if decl.name in scope or f"record:{qname}" in self.spans:
            self.dup("record", decl.name, span, self.spans.get(f"record:{qname}"))
            return
        scope[decl.name] = qname
        self.spans[f"record:{qname}"] = span

    # ------------------------------------------------------------ type expressions
    def lookup(self, kind: str, name: str, mod: ModuleInfo, platform: str | None) -> list[str]:
        scopes = self.type_scope if kind == "type" else self.record_scope
        table = self.cat.code_types if kind == "type" else None
        if "." in name:
            if table is not None:
                return [name] if name in table else []
            return [name] if f"record:{name}" in self.spans else []
        for key in ((mod.name, platform), (mod.name, None)):
            hit = scopes.get(key, {}).get(name)
            if hit is not None:
                return [hit]
        return [h for u in mod.uses if (h := scopes.get((u, None), {}).get(name)) is not None]

    def visible(self, kind: str, mod: ModuleInfo, platform: str | None) -> list[str]:
        scopes = self.type_scope if kind == "type" else self.record_scope
        keys = [(mod.name, platform), (mod.name, None), *((u, None) for u in mod.uses)]
        return [nm for k in keys for nm in scopes.get(k, {})]

    def resolve(self, texpr: n.TypeExpr, mod: ModuleInfo, platform: str | None) -> FieldType:
        if isinstance(texpr, n.EnumTypeExpr):
            seen: set[str] = set()
            for m in texpr.members:
                if m in seen:
                    self.ctx.diags.add(
                        diag(
                            "E105", f"enum member `{m}` is listed twice", texpr.span, "in this enum"
                        )
                    )
                seen.add(m)
            return EnumType(texpr.members)
        if isinstance(texpr, n.ListTypeExpr):
            item = self.resolve(texpr.item, mod, platform)
            return UNKNOWN if item is UNKNOWN else ListType(item)  # type: ignore[return-value]
        name = texpr.name
        if name in SCALAR_KINDS:  # one shared object per kind: equal types are then identical
            return _SCALARS[name]
        hits = self.lookup("type", name, mod, platform)
        if len(hits) == 1:
            return self.cat.code_types[hits[0]]
        span = texpr.span
        if len(hits) > 1:
            self.ctx.diags.add(
                diag(
                    "E106",
                    f"type `{name}` is ambiguous",
                    span,
                    "declared in several used modules",
                    hints=[f"write one of {', '.join(f'`{h}`' for h in hits)}"],
                )
            )
            return UNKNOWN  # type: ignore[return-value]
        if self.lookup("record", name, mod, platform):
            self.ctx.diags.add(
                diag(
                    "E106",
                    f"`{name}` is a record, not a field type",
                    span,
                    "a record type",
                    hints=["a field holding nested data is `json`"],
                )
            )
            return UNKNOWN  # type: ignore[return-value]
        if not self.ctx.catalog_incomplete:
            pool = [*SCALAR_KINDS, *self.visible("type", mod, platform)]
            self.ctx.diags.add(
                diag(
                    "E106",
                    f"unknown type `{name}`",
                    span,
                    "not declared",
                    hints=suggestion_hint(name, pool),
                )
            )
        return UNKNOWN  # type: ignore[return-value]

    # ------------------------------------------------------------ pass 2: records
    def build_records(self, mod: ModuleInfo) -> None:
        for item in _items_of(mod):
            if isinstance(item, n.RecordDecl):
                self.build_record(mod, None, item)
        for m, p in self.platform_decls:
            if m is mod:
                for sub in p.items:
                    if isinstance(sub, n.RecordDecl):
                        self.build_record(mod, p.name, sub)

    def build_record(self, mod: ModuleInfo, platform: str | None, decl: n.RecordDecl) -> None:
        qname = f"{platform or mod.name}.{decl.name}"
        if qname in self.cat.records:
            return  # duplicate, already reported
        unique = list(self.unique("field", decl.fields))
        self.column_names(unique)
        fields = tuple(
            FieldSpec(f.name, self.resolve(f.type, mod, platform), f.type.optional,
                      *self.label(f))
            for f in unique
        )
        self.cat.records[qname] = RecordType(qname, fields)

    def column_names(self, fields: list[n.FieldDecl]) -> None:
        """Report field names that cannot be columns: reserved (``E120``) or equal to an
        earlier field's up to ASCII case (``E121``)."""
        first: dict[str, n.FieldDecl] = {}
        for f in fields:
            span = self.ctx.named(f)
            if f.name.startswith(RESERVED_PREFIX):
                self.ctx.diags.add(diag(
                    "E120",
                    f"field name `{f.name}` is reserved",
                    span,
                    f"names beginning with `{RESERVED_PREFIX}` are the runtime's",
                    hints=["rename the field: the runtime's columns are `__row`, `__arm`, "
                           "`__raw`, `__key`, `__seq` …"],
                ))
                continue
            other = first.setdefault(ident_key(f.name), f)
            if other is not f:
                self.ctx.diags.add(diag(
                    "E121",
                    f"fields `{other.name}` and `{f.name}` differ only in case",
                    span,
                    "the same column as the first",
                    secondary=[(self.ctx.named(other), "first declared here")],
                    hints=["the records are held in DuckDB, whose column names ignore ASCII "
                           "case; declare one of them"],
                ))

    def label(self, m: n.FieldDecl | n.ParamDecl) -> tuple[str | None, str | None]:
        """The label and unit of a field or parameter, each checked: a label is one line
        holding a Hangul syllable (``E122``), a unit one line of at most 12 characters with no
        space at either end (``E123``); a bad one is reported and left out."""
        label = self._checked(m, m.label, m.label_at, is_korean_label, "E122",
                              "is not Korean text", "this label",
                              "write the Korean name the service gives it, e.g. "
                              '`dealAmount: int "거래금액"`', "label")
        unit = self._checked(m, m.unit, m.unit_at, is_unit, "E123", "cannot be a unit",
                             "this unit", "one line of at most 12 characters, as the service "
                             "states it: `원`, `만원`, `주`, `%`, `Kcal`", "unit")
        return label, unit

    def _checked(self, m: n.FieldDecl | n.ParamDecl, text: str | None, at: int,
                 ok: Callable[[str], bool], code: str, what: str, label: str, hint: str,
                 part: str) -> str | None:
        """``text`` (the label or unit ``part`` of ``m``, at offset ``at``) when absent or
        ``ok``; otherwise None, with ``code`` reported at it."""
        if text is None or ok(text):
            return text
        self.ctx.diags.add(diag(
            code, f"the {part} of `{m.name}` {what}",
            self.ctx.part(m.span, at, format_string(text)), label, hints=[hint],
        ))
        return None

    # ------------------------------------------------------------ pass 3: platforms and tools
    def build_platform(self, mod: ModuleInfo, decl: n.PlatformDecl) -> None:
        base: str | None = None
        names: dict[str, str] = {}  # envelope, secret
        quota: tuple[int, str] | None = None
        setting_spans: dict[str, Span] = {}
        tools: dict[str, Tool] = {}
        tool_spans: dict[str, Span] = {}
        for item in decl.items:
            key = {
                n.BaseDecl: "base",
                n.EnvelopeDecl: "envelope",
                n.SecretDecl: "secret",
                n.QuotaDecl: "quota",
            }.get(type(item))
            if key is not None:
                if key in setting_spans:
                    self.ctx.diags.add(
                        diag(
                            "E109",
                            f"platform `{decl.name}` sets `{key}` twice",
                            item.span,
                            "set again here",
                            secondary=[(setting_spans[key], "first set here")],
                            hints=[f"a platform has one `{key}`"],
                        )
                    )
                    continue
                setting_spans[key] = item.span
                if isinstance(item, n.BaseDecl):
                    base = item.url
                elif isinstance(item, n.EnvelopeDecl | n.SecretDecl):
                    names[key] = item.name
                elif isinstance(item, n.QuotaDecl):
                    quota = (item.amount, item.per)
            elif isinstance(item, n.ToolDecl):
                span = self.ctx.named(item)
                if item.name in tools:
                    self.dup("tool", item.name, span, tool_spans[item.name])
                    continue
                tool = self.build_tool(mod, decl.name, item)
                if tool is not None:
                    tools[item.name] = tool
                    tool_spans[item.name] = span
        self.cat.platforms[decl.name] = Platform(
            name=decl.name,
            doc=decl.doc or "",
            base=base,
            envelope=names.get("envelope"),
            secret=names.get("secret"),
            quota=quota,
            tools=tools,
            span=decl.span,
            module=mod.name,
        )

    def build_tool(self, mod: ModuleInfo, platform: str, decl: n.ToolDecl) -> Tool | None:
        params = [
            Param(p.name, self.resolve(p.type, mod, platform), p.type.optional, p.span,
                  *self.label(p))
            for p in self.unique("parameter", decl.params)
        ]
        ret_span = self.ctx.part(decl.span, decl.returns_at, decl.returns)
        hits = self.lookup("record", decl.returns, mod, platform)
        record = RecordType(f"{platform}.{decl.returns}", ())
        if len(hits) == 1 and hits[0] in self.cat.records:
            record = self.cat.records[hits[0]]
        elif len(hits) > 1:
            self.ctx.diags.add(
                diag(
                    "E107",
                    f"record `{decl.returns}` is ambiguous",
                    ret_span,
                    "declared in several used modules",
                )
            )
        elif not hits and not self.ctx.catalog_incomplete:
            self.ctx.diags.add(
                diag(
                    "E107",
                    f"unknown record `{decl.returns}`",
                    ret_span,
                    "no such record",
                    hints=suggestion_hint(decl.returns, self.visible("record", mod, platform)),
                )
            )
        return Tool(
            platform=platform,
            name=decl.name,
            doc=decl.doc or "",
            method=decl.method,
            path=decl.path,
            params=tuple(params),
            record=record,
            many=decl.many,
            at=decl.at,
            paging=self.paging(decl),
            span=decl.span,
        )

    def paging(self, decl: n.ToolDecl) -> Paging | None:
        if decl.paged is None:
            return None
        seen: dict[str, n.PagedOpt] = {}
        for opt in decl.paged:
            if opt.key not in PAGING_KEYS:
                self.ctx.diags.add(
                    diag(
                        "E108",
                        f"unknown paging option `{opt.key}`",
                        self.ctx.part(opt.span, opt.key_at, opt.key),
                        "not a paging option",
                        hints=[
                            *suggestion_hint(opt.key, PAGING_KEYS),
                            "paging options are `page`, `size` and `total`",
                        ],
                    )
                )
            elif opt.key in seen:
                self.ctx.diags.add(
                    diag(
                        "E108",
                        f"paging option `{opt.key}` is given twice",
                        opt.span,
                        "given again",
                        secondary=[(seen[opt.key].span, "first given here")],
                    )
                )
            else:
                if opt.limit is not None and opt.key != "size":
                    self.ctx.diags.add(
                        diag(
                            "E108",
                            f"only `size` takes a `<=` limit, not `{opt.key}`",
                            opt.span,
                            "limit not allowed here",
                        )
                    )
                if opt.limit is not None and opt.limit < 1:
                    self.ctx.diags.add(
                        diag(
                            "E108",
                            "a page-size limit is at least 1",
                            opt.span,
                            "must be at least 1",
                        )
                    )
                seen[opt.key] = opt
        if "page" not in seen:
            self.ctx.diags.add(
                diag(
                    "E108",
                    f"paged tool `{decl.name}` does not name its page parameter",
                    self.ctx.part(decl.span, decl.paged_at, "paged"),
                    "no `page:` option",
                    hints=[
                        "write `paged(page: pageNo, size: numOfRows <= 100, total: totalCount)`"
                    ],
                )
            )
        if not decl.many:
            self.ctx.diags.add(
                diag(
                    "E108",
                    f"paged tool `{decl.name}` must return a list",
                    decl.span,
                    "returns one record",
                    hints=[f"write `-> [{decl.returns}]`"],
                )
            )
        size = seen.get("size")
        return Paging(
            page=seen["page"].name if "page" in seen else None,
            size=size.name if size else None,
            size_limit=size.limit if size else None,
            total=seen["total"].name if "total" in seen else None,
        )


_Key = tuple[bool, tuple[tuple[str, str, str, tuple[str, ...]], ...]]
_Entry = tuple[Catalog, dict[str, str], list[Diagnostic]]


@lru_cache(maxsize=64)
def _memo(key: _Key) -> list[_Entry]:
    """The memo of one set of used modules: empty until its catalog is built, then holding it
    (``functools.lru_cache`` bounds the memos and evicts the least recently used)."""
    return []


def _declares(mod: ModuleInfo) -> bool:
    return any(not isinstance(i, n.UseDecl | n.Trajectory) for i in _items_of(mod))


def _items_of(mod: ModuleInfo) -> Iterable[n.Item]:
    return mod.ast.items if mod.ast is not None else ()


def _memo_key(ctx: CheckContext) -> _Key | None:
    """The key of the catalog of ``ctx``'s used modules, when the compiled module declares
    nothing itself (the usual case: a file of trajectories over the standard catalogs): each
    module by name, file name, text and uses (the same text parses to the same AST; a memoised
    text's hash is computed once)."""
    main = ctx.main
    if main is None or _declares(main):
        return None
    used = [m for m in ctx.modules.values() if not m.main]
    if main.name in {m.name for m in used}:
        return None
    return (ctx.catalog_incomplete,
            tuple((m.name, m.source.name, m.source.text, tuple(m.uses)) for m in used))


def _build(ctx: CheckContext) -> None:
    b = _Builder(ctx)
    mods = list(ctx.modules.values())
    for mod in mods:
        b.declare_types(mod)
    for mod in mods:
        b.declare_record_names(mod)
    for mod in mods:
        b.build_records(mod)
    for mod, decl in b.platform_decls:
        b.build_platform(mod, decl)
    ctx.catalog = b.cat


def build_catalog(ctx: CheckContext) -> None:
    """Pass: turn the catalog declarations of every loaded module into ``ctx.catalog``.

    The result for a given set of used modules (memoised ASTs, see ``modules._read_module``) is
    memoised too, diagnostics included: the :class:`Catalog` is shared and never mutated."""
    key = _memo_key(ctx)
    memo = _memo(key) if key is not None else None
    if memo:
        ctx.catalog, platform_module, diags = memo[0]
        ctx.platform_module.update(platform_module)
        ctx.diags.extend(diags)
    else:
        before = len(ctx.diags)
        _build(ctx)
        if memo is not None:
            memo.append((ctx.catalog, dict(ctx.platform_module), ctx.diags.items[before:]))
    main = ctx.main
    if main is not None:
        direct = {main.name, *main.uses}
        for pname, mname in ctx.platform_module.items():
            if mname in direct and pname in ctx.catalog.platforms:
                ctx.visible_platforms[pname] = mname
