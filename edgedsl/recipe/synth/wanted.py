"""What a person wants to be told: the answer fields of a synthesized task ranked from the
catalog (issue 18 §3, "answers ask for what a person wants — names, amounts, dates, counts —
not codes, unless the code is the point").

A field's :data:`Want` is read from its catalog declaration, never from rendered text: its type
(a code type, an ``enum``, a ``bool``, a number, a date, a string), its unit and its Korean
label (``corp_name: str "회사명"``, ``dealAmount: int "거래금액" unit "만원"``), and from the
records of the relation the answer reads (a number that every record holds alike is a
constant of the service — ``기준지수`` 100.0 of every index, the ``기준일자`` of every item —
not a fact about the entity).

* ``name`` (rank 0): a string labelled as a name or title (``…명``, ``이름``, ``제목``,
  ``대표자``, ``메뉴``);
* ``amount`` (1): a number with a unit (원, 만원, 주, %, 명, ㎡ …);
* ``date`` (2): a date;
* ``number`` (3): a number without a unit;
* ``text`` (4): any other string (an address — also when it is typed ``codes.Address`` to hand
  a place on, :data:`~.entities.TEXT_CODES` —, a committee, a course);
* ``category`` (6): an ``enum``, a ``bool``, a string labelled ``…구분``, ``…여부``,
  ``…유형``, ``…종류`` (also ``…구분명``);
* ``code`` (7): a code type (``codes.CorpCode``), a string or number labelled ``…코드``,
  ``…ID``, ``…번호``, ``…순번``, ``…본번``/``…부번`` (an address's numbers), a link, a coordinate;
* ``constant`` (8): a number or a date every record of a relation of several holds alike
  (the index's base 100.0, the data's reference date 기준일자), and a record-keeping field —
  when and by whom the service wrote the record (자료 수정일, 최종 수정자; :func:`record_keeping`).

:data:`WANTED` are the first five: an answer asks for them; the others only when nothing else
is left (and a count is not possible). :func:`answer_key` makes an answer key from the field's
catalog label (``생일_구분``, ``회사명``) instead of the API name (``BTH_GBN_NM``).

**What a question narrows by** (issue 18 §2–§3) follows from the same declarations
(:func:`narrow_ops`, per record :func:`column_ops`):

===========  ====================================================  ======================
role         declared as                                           reducers
===========  ====================================================  ======================
measure      a number with a ``unit`` (원, 주, %, 명, ㎡, Kcal, 대,  ``max min >= <=``
             개 …) whose label does not name a code
when         a ``date`` that is not record-keeping (a label        ``max min after``
             ending :data:`RECORD_KEEPING`: 자료 수정일, 생성일)
category     an ``enum``, a ``bool``, a string labelled …구분,     ``== most_frequent``
             …여부, …유형, …종류
entity       a code type carrying an entity                        ``most_frequent``
             (:data:`~.entities.ENTITY_CODES`: how often a member,
             a company, a school appears)
name         a field naming an entity (:data:`~.entities.ENTITY_NAMES`)  ``== most_frequent``
===========  ====================================================  ======================

Other text (a location, an address) is narrowed only by a value the query states (``==``:
소재지 서울특별시), never by its most frequent value. Anything else — a number without a unit
(a floor, an order, a coordinate, a year), a generic code — is narrowed by nothing: "주소가
가장 많이 나온", "경도가 128.3176701 이상", "층이 가장 큰" are not questions. A measure of
``stdlib/`` without a unit is a missing declaration: it gets its unit there (교통량 대, 점유율 %,
공약 수 개), not a side list.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from ...core.labels import label_of as catalog_label
from ...core.types import (
    CodeType,
    EnumType,
    FieldSpec,
    FieldType,
    ListType,
    ScalarType,
    is_date,
    is_numeric,
)
from .entities import ENTITY_NAMES, entity_of, reads_as_text
from .junction import value_key

__all__ = ["RECORD_KEEPING", "WANTED", "WANT_RANK", "Want", "answer_key", "category_label",
           "code_label", "column_ops", "field_want", "is_constant", "label_ends", "narrow_ops",
           "record_keeping", "secondary"]

Want = Literal["name", "amount", "date", "number", "text", "category", "code", "constant"]

WANT_RANK: dict[Want, int] = {"name": 0, "amount": 1, "date": 2, "number": 3, "text": 4,
                              "category": 6, "code": 7, "constant": 8}
"""The order in which an answer takes fields (smaller first)."""

WANTED: frozenset[Want] = frozenset({"name", "amount", "date", "number", "text"})
"""The wants a person asks for; ``category``, ``code`` and ``constant`` fields are answered
only when nothing else is left."""

_NAME_ENDS = ("명", "이름", "성명", "제목", "명칭", "상호", "대표자", "메뉴", "당선인", "후보자")
_CATEGORY_ENDS = ("구분", "여부", "유형", "종류", "코드명", "구분명", "종류명", "유형명")
_CODE_ENDS = ("코드", "ID", "번호", "순번", "순서", "PK", "링크", "URL", "좌표", "좌표(TM)",
              "경도", "위도", "본번", "부번")
# (본번/부번: the numbers of a lot or a building in an address — part of an address, not a
# fact a person asks for: "아파트 매매 실거래가의 도로명 건물 부번" was answered)
_NAMEY_FIELDS = ("nm", "name", "title", "ttl")  # a field without a label (never in stdlib/)
_SECONDARY = ("영문", "영어", "한자", "약칭")


def _label_ends(label: str | None, ends: Sequence[str]) -> bool:
    words = (label or "").split()
    last = words[-1] if words else ""
    return any(last.endswith(e) for e in ends)


def field_want(name: str, ftype: FieldType | None, label: str | None = None,
               unit: str | None = None, *, constant: bool = False) -> Want:
    """The :data:`Want` of field ``name`` from its catalog type, label and unit; ``constant``
    when every record of a relation of several holds the same value (:func:`is_constant`). A
    field named in Korean (the law service's ``생성일자``) is its own label, as in
    :func:`narrow_ops`."""
    label = catalog_label(name, label)
    if isinstance(ftype, CodeType) and not reads_as_text(ftype.name):
        return "code"
    if isinstance(ftype, EnumType) or (isinstance(ftype, ScalarType) and ftype.kind == "bool"):
        return "category"
    if isinstance(ftype, ListType) or ftype is None:
        return "code"
    if is_numeric(ftype):
        if _label_ends(label, _CODE_ENDS):
            return "code"
        if constant:
            return "constant"
        return "amount" if unit else "number"
    if record_keeping(label):  # when and by whom the service wrote the record (a date or a name)
        return "constant"
    if is_date(ftype):
        return "constant" if constant else "date"
    if _label_ends(label, _CODE_ENDS):
        return "code"
    if _label_ends(label, _CATEGORY_ENDS):
        return "category"
    if _label_ends(label, _NAME_ENDS) or (label is None and any(
            k in name.lower() for k in _NAMEY_FIELDS)):
        return "name"
    return "text"


def code_label(label: str | None) -> bool:
    """True when a label names a code (``…코드``, ``…ID``, ``…번호``, ``…순번``, a coordinate)."""
    return _label_ends(label, _CODE_ENDS)


def category_label(label: str | None) -> bool:
    """True when a label names a category (``…구분``, ``…여부``, ``…유형``, ``…종류``)."""
    return _label_ends(label, _CATEGORY_ENDS)


def label_ends(label: str | None, ends: Sequence[str]) -> bool:
    """True when the last word of ``label`` ends with one of ``ends``."""
    return _label_ends(label, ends)


def secondary(label: str | None) -> bool:
    """True for a secondary form of a field (``영문 이름``, ``한자 이름``, ``영문 법인명``,
    ``약칭``): ranked after the primary one (``의원 이름``, ``법인명``) of the same want."""
    return (label or "").startswith(_SECONDARY)


def is_constant(values: Sequence[Any], rows: int) -> bool:
    """True when a relation of several records (``rows`` ≥ 2) holds one value in every record
    (``values``: the field of each record, coerced; a missing value is None). Values are
    compared as junction typing counts them (:func:`~.junction.value_key`: an insider
    report's "0.00" and "-0.00" are one value)."""
    return rows >= 2 and None not in values and len(set(map(value_key, values))) == 1


def answer_key(label: str) -> str:
    """An answer key from a Korean label: an identifier of the language (Hangul, Latin letters,
    digits, ``_``), words joined by ``_`` (``생일 구분`` → ``생일_구분``,
    ``미세먼지(PM10)`` → ``미세먼지_PM10``, ``도공·민자 구분`` → ``도공_민자_구분``)."""
    out: list[str] = []
    for c in unicodedata.normalize("NFC", label.strip()):
        ok = ("가" <= c <= "힣") or (c.isascii() and (c.isalnum() or c == "_"))
        out.append(c if ok else "_")
    key = "_".join(p for p in "".join(out).split("_") if p)
    if not key:
        return "value"
    return f"f_{key}" if key[0].isdigit() else key


# ----------------------------------------------------------------------------- narrowing

MEASURE_OPS = frozenset({"max", "min", "ge", "le"})
WHEN_OPS = frozenset({"max", "min", "after"})
CATEGORY_OPS = frozenset({"eq", "most_frequent"})
STATED_OPS = frozenset({"eq"})  # other text: only a value the query states (소재지 서울특별시)

RECORD_KEEPING = ("수정일", "생성일", "생성일자", "수정", "수정일시", "수정자")
"""Label endings (read without spaces) of fields that say when and by whom the service wrote
its record (NEIS' 자료 수정일, the region's 생성일, an expressway station's 최종 수정 일시 and
최종 수정자), not something about the thing itself: narrowing by them is not a question, and an
answer asks for them only when nothing else is left (:func:`record_keeping`)."""


def record_keeping(label: str | None) -> bool:
    """True when ``label`` names a record-keeping field (:data:`RECORD_KEEPING`)."""
    flat = "".join((label or "").split())
    return bool(flat) and flat.endswith(RECORD_KEEPING)


def narrow_ops(platform: str, name: str, ftype: FieldType | None, label: str | None,
               unit: str | None) -> frozenset[str]:
    """The reducers a field may be narrowed with, from its catalog declaration (module doc);
    empty for a field no question narrows by. A field named in Korean (the law service's
    ``생성일자``) is its own label."""
    label = catalog_label(name, label)
    if f"{platform}.{name}" in ENTITY_NAMES:
        return CATEGORY_OPS
    if isinstance(ftype, CodeType) and not reads_as_text(ftype.name):
        return frozenset({"most_frequent"}) if entity_of(ftype.name) else frozenset()
    if isinstance(ftype, EnumType) or (isinstance(ftype, ScalarType) and ftype.kind == "bool"):
        return CATEGORY_OPS
    if ftype is None:
        return frozenset()
    if is_numeric(ftype):
        return MEASURE_OPS if unit and not code_label(label) else frozenset()
    if is_date(ftype):
        return frozenset() if record_keeping(label) else WHEN_OPS
    if code_label(label):
        return frozenset()
    return CATEGORY_OPS if category_label(label) else STATED_OPS


def column_ops(platform: str, fields: Iterable[FieldSpec]) -> dict[str, frozenset[str]]:
    """Field name → :func:`narrow_ops` of every field of a record of ``platform``."""
    return {f.name: narrow_ops(platform, f.name, f.type, f.label, f.unit) for f in fields}
