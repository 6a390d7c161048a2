"""The AST of catalog syntax: type expressions and declarations (``type``, ``record``,
``platform``, ``tool``). Re-exported by :mod:`edgedsl.syntax.nodes`, the one module passes import.

Also the two field kinds every node uses: ``span`` (:func:`span_field`) and the spans of
sub-parts (:func:`part_field`, marked :data:`PART`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from ..core.source import NO_SPAN, Span, fast_frozen_init


def span_field() -> Span:
    """A node's ``span``: excluded from equality (structure only) and from ``repr``."""
    return field(default=NO_SPAN, compare=False, repr=False)


PART = "part"
"""The metadata key of a sub-part's offset (where a name inside a node starts, ``name_at``,
``field_at`` …; -1 when the AST was not parsed): kept for diagnostics only, so it is left out of
equality, ``repr`` and the JSON of ``edgedsl parse``. The checker makes the span of the name
from it (``CheckContext.part``)."""


def part_field() -> int:
    """The offset of a sub-part (``name_at``, ``field_at`` …), marked :data:`PART`."""
    return field(default=-1, compare=False, repr=False, metadata={PART: True})


_span = span_field
_part = part_field


# ---------------------------------------------------------------- types (catalog syntax)


@dataclass(frozen=True, slots=True, kw_only=True)
class NamedTypeExpr:
    """A type by name: ``str``, ``date``, ``CorpCode`` or ``codes.StockCode``; ``?`` if optional."""

    name: str
    optional: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class EnumTypeExpr:
    """``enum[A, B, "기타"]``; members are kept as strings."""

    members: tuple[str, ...]
    optional: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class ListTypeExpr:
    """``[T]``."""

    item: TypeExpr
    optional: bool = False
    span: Span = _span()


TypeExpr: TypeAlias = NamedTypeExpr | EnumTypeExpr | ListTypeExpr

# ---------------------------------------------------------------- catalog declarations


@dataclass(frozen=True, slots=True, kw_only=True)
class UseDecl:
    """``use dart, krx``: import catalog modules."""

    names: tuple[str, ...]
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: tuple[int, ...] = field(default=(), compare=False, repr=False,
                                     metadata={PART: True})


@dataclass(frozen=True, slots=True, kw_only=True)
class TypeDecl:
    """``type CorpCode = code /^[0-9]{8}$/ "doc"``: a nominal code type."""

    name: str
    pattern: str
    doc: str | None = None
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldDecl:
    """One field of a record declaration, ``rcept_dt: date "접수일자"``: its name, type and,
    when declared, its Korean ``label`` and ``unit``
    (``dealAmount: int "거래금액" unit "만원"``)."""

    name: str
    type: TypeExpr
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    label: str | None = None
    unit: str | None = None
    span: Span = _span()
    name_at: int = _part()
    label_at: int = _part()
    unit_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordDecl:
    """``record Disclosure { … }``."""

    name: str
    fields: tuple[FieldDecl, ...]
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    end_comments: tuple[str, ...] = ()
    span: Span = _span()
    name_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamDecl:
    """One parameter of a tool, ``corp_code: CorpCode? "고유번호"``: its name, type and, when
    declared, its Korean ``label`` and ``unit``."""

    name: str
    type: TypeExpr
    label: str | None = None
    unit: str | None = None
    span: Span = _span()
    name_at: int = _part()
    label_at: int = _part()
    unit_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class PagedOpt:
    """One paging option, ``size: page_count <= 100``: role, wire name and optional limit."""

    key: str
    name: str
    limit: int | None = None
    span: Span = _span()
    key_at: int = _part()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDecl:
    """``tool NAME "doc" [METHOD "path"] (params) -> [Record] [at "path"] [paged(…)]``."""

    name: str
    doc: str | None = None
    method: str | None = None
    path: str | None = None
    params: tuple[ParamDecl, ...] = ()
    returns: str
    many: bool = True
    at: str | None = None
    paged: tuple[PagedOpt, ...] | None = None
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()
    name_at: int = _part()
    returns_at: int = _part()
    paged_at: int = _part()
    """Where the word ``paged`` starts (-1 when the tool is not paged)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseDecl:
    """``base "https://…"``: the platform's base URL."""

    url: str
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvelopeDecl:
    """``envelope dart``: the platform's response convention."""

    name: str
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class SecretDecl:
    """``secret crtfc_key``: a parameter supplied at run time and never recorded."""

    name: str
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True, kw_only=True)
class QuotaDecl:
    """``quota 20000 per day``."""

    amount: int
    per: str
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    span: Span = _span()


PlatformItem: TypeAlias = (
    BaseDecl | EnvelopeDecl | SecretDecl | QuotaDecl | TypeDecl | RecordDecl | ToolDecl
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlatformDecl:
    """``platform dart "doc" { … }``: one provider's settings, types, records and tools."""

    name: str
    doc: str | None = None
    items: tuple[PlatformItem, ...] = ()
    comments: tuple[str, ...] = ()
    trailing: str | None = None
    end_comments: tuple[str, ...] = ()
    span: Span = _span()
    name_at: int = _part()


for _cls in list(globals().values()):  # faster constructors, same signatures (see source.py)
    if isinstance(_cls, type) and _cls.__module__ == __name__:
        fast_frozen_init(_cls)
del _cls
