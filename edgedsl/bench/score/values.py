"""Reading an agent's values the way a person writes them: numbers with Korean units and number
words, dates in common formats, company names with or without their legal form, yes and no.

* :func:`parse_number` — ``1,234``, ``-3.5``, ``12.5%``, ``3억 2천만 원``, ``1.2억``,
  ``5만``, ``삼십오``, ``이천이십사`` (units ``조`` 10¹², ``억`` 10⁸, ``만`` 10⁴, ``천`` ``백``
  ``십``; ``원``, ``%``, ``주``, ``건``, ``명``, ``개`` and spaces ignored);
* :func:`parse_date` — ``2024-12-23``, ``20241223``, ``2024.12.23``, ``2024/12/23``,
  ``2024년 12월 23일`` (with or without spaces, a trailing ``.``);
* :func:`name_key` — a name compared without its legal form (``(주)``, ``㈜``, ``주식회사``,
  ``(유)``, ``유한회사``), spaces, punctuation and case;
* :func:`parse_bool` — ``true``/``false``, ``예``/``아니오``, ``yes``/``no``, ``O``/``X``.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from functools import lru_cache

__all__ = ["name_key", "parse_bool", "parse_date", "parse_number"]

_DIGITS = {"영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7,
           "팔": 8, "구": 9}
_SMALL = {"십": 10, "백": 100, "천": 1000}
_BIG = {"만": 10**4, "억": 10**8, "조": 10**12}
_IGNORED = re.compile(r"[\s,원주건명개위]|정도|약")
_ARABIC = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _small_group(text: str) -> float | None:
    """A number below 10⁴ written with digits and ``십``/``백``/``천`` (``2천5백``, ``삼십오``,
    ``1.5천``); None when it is not one."""
    total, cur, i = 0.0, None, 0
    while i < len(text):
        m = _ARABIC.match(text, i)
        if m:
            if cur is not None:
                return None
            cur, i = float(m.group()), m.end()
            continue
        ch = text[i]
        if ch in _DIGITS:
            if cur is not None:
                return None
            cur = float(_DIGITS[ch])
        elif ch in _SMALL:
            total += (1.0 if cur is None else cur) * _SMALL[ch]
            cur = None
        else:
            return None
        i += 1
    return total + (cur or 0.0)


@lru_cache(maxsize=4096)
def parse_number(text: str) -> float | None:
    """The number ``text`` writes (module docstring), None when it writes none. A percentage
    reads as its number (``12.5%`` → 12.5)."""
    s = unicodedata.normalize("NFKC", text).strip()
    if not s:
        return None
    sign = 1.0
    if s[0] in "-−–":
        sign, s = -1.0, s[1:]
    elif s[0] == "+":
        s = s[1:]
    s = s.rstrip("%").strip()
    s = _IGNORED.sub("", s)
    if not s:
        return None
    try:
        return sign * float(s)
    except ValueError:
        pass
    total, rest = 0.0, s
    for unit in ("조", "억", "만"):
        if unit in rest:
            head, rest = rest.split(unit, 1)
            v = _small_group(head) if head else 1.0
            if v is None:
                return None
            total += v * _BIG[unit]
    if rest:
        v = _small_group(rest)
        if v is None:
            return None
        total += v
    return sign * total


_DATE_FORMS = (
    re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$"),
    re.compile(r"^(\d{4})(\d{2})(\d{2})$"),
    re.compile(r"^(\d{4})\s*[./]\s*(\d{1,2})\s*[./]\s*(\d{1,2})\.?$"),
    re.compile(r"^(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일?$"),
)


@lru_cache(maxsize=4096)
def parse_date(text: str) -> dt.date | None:
    """The date ``text`` writes in a common format (module docstring), None otherwise."""
    s = unicodedata.normalize("NFKC", text).strip()
    for pat in _DATE_FORMS:
        m = pat.match(s)
        if m:
            try:
                return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            except ValueError:
                return None
    return None


_LEGAL = re.compile(r"\(주\)|㈜|주식회사|\(유\)|유한회사|\(사\)|사단법인|\(재\)|재단법인|"
                    r"\(株\)|co\.?,?\s*ltd\.?|inc\.?|corp\.?")
_PUNCT = re.compile(r"[\s\W_]+")


@lru_cache(maxsize=8192)
def name_key(text: str) -> str:
    """``text`` as a name is compared: NFKC, lower case, legal forms, spaces and punctuation
    removed (``SK하이닉스(주)`` and ``주식회사 SK 하이닉스`` → ``sk하이닉스``)."""
    s = unicodedata.normalize("NFKC", text).lower()
    s = _LEGAL.sub("", s)
    return _PUNCT.sub("", s)


_TRUE = frozenset({"true", "yes", "y", "예", "네", "참", "o", "있음", "맞음", "그렇다"})
_FALSE = frozenset({"false", "no", "n", "아니오", "아니요", "거짓", "x", "없음", "아님",
                    "아니다"})


def parse_bool(text: str) -> bool | None:
    """The truth value ``text`` writes (module docstring), None otherwise."""
    s = unicodedata.normalize("NFKC", text).strip().lower().rstrip(".")
    return True if s in _TRUE else False if s in _FALSE else None
