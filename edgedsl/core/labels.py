"""Korean labels and units of record fields and tool parameters (``dealAmount: int "거래금액"
unit "만원"``): what the checker accepts (:func:`is_korean_label`, :func:`is_unit`, codes ``E122``
and ``E123``) and how a diagnostic names a labelled field (:func:`named`)."""

from __future__ import annotations

__all__ = ["COMMON_UNITS", "UNIT_MAX", "is_korean_label", "is_unit", "label_of", "named"]

UNIT_MAX = 12
"""The longest unit accepted, in characters (``원/㎡``, ``천원``, ``백만원`` are far shorter)."""

COMMON_UNITS = ("원", "천원", "만원", "백만원", "억원", "주", "%", "명", "건", "개", "회", "일",
                "초", "분", "년", "세", "Kcal", "㎡", "km", "m", "대", "석")
"""Units the stdlib uses; documentation only — a unit is free text (see :func:`is_unit`)."""


def _one_line(text: str) -> bool:
    return bool(text) and text == text.strip() and all(c.isprintable() for c in text)


def is_korean_label(text: str) -> bool:
    """True for one printable line, no space at either end, holding a Hangul syllable."""
    return _one_line(text) and any("가" <= c <= "힣" for c in text)


def is_unit(text: str) -> bool:
    """True for one printable line of at most :data:`UNIT_MAX` characters, no space at either
    end. Units are free text: the services state many (``원``, ``백만원``, ``주``, ``%``,
    ``Kcal``, ``㎡``, ``원/㎡`` …), and a closed set would refuse the next one."""
    return _one_line(text) and len(text) <= UNIT_MAX


def named(name: str, label: str | None) -> str:
    """A field or parameter as a diagnostic names it: ``` `rcept_dt` (접수일자)``` when it has
    a label, ``` `rcept_dt` ``` otherwise."""
    return f"`{name}` ({label})" if label else f"`{name}`"


def label_of(name: str, label: str | None) -> str | None:
    """The Korean label of a field or parameter: its declared ``label``, else its name when the
    name is already Korean text (the law service's ``공포일자``), else None."""
    if label:
        return label
    return name if is_korean_label(name) else None
