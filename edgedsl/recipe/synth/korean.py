"""Korean text for synthesized queries: particles (:func:`josa`), lists, dates, periods and
numbers in their Korean renderings (:func:`korean_forms`), and finding or masking a value in a
text (:func:`mentioned`, :func:`mask`), which the filters share."""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from ...core.korean import final_sound, join_ko, josa
from .templates import Glossary, load_glossary

__all__ = [
    "FALLBACKS",
    "fallbacks_in",
    "final_sound",
    "identifiers_in",
    "join_ko",
    "josa",
    "korean_date",
    "korean_forms",
    "mask",
    "mentioned",
    "pattern_of",
    "period_text",
    "tidy",
    "with_unit",
]

def korean_date(d: dt.date) -> str:
    """``2024년 11월 1일``."""
    return f"{d.year}년 {d.month}월 {d.day}일"


def _last_day(d: dt.date) -> bool:
    return d.day == calendar.monthrange(d.year, d.month)[1]


def period_text(a: str | dt.date, b: str | dt.date) -> str:
    """Two dates as one period: a day, a whole month (``2024년 12월``), a whole year, or
    ``A부터 B까지``."""
    x = a if isinstance(a, dt.date) else dt.date.fromisoformat(a)
    y = b if isinstance(b, dt.date) else dt.date.fromisoformat(b)
    x, y = min(x, y), max(x, y)
    if x == y:
        return korean_date(x)
    if x.day == 1 and _last_day(y) and (x.year, x.month) == (y.year, y.month):
        return f"{x.year}년 {x.month}월"
    if (x.month, x.day, y.month, y.day) == (1, 1, 12, 31) and x.year == y.year:
        return f"{x.year}년"
    return f"{korean_date(x)}부터 {korean_date(y)}까지"


def _date_forms(d: dt.date) -> list[str]:
    forms = [korean_date(d), d.isoformat(), d.strftime("%Y%m%d"), d.strftime("%Y.%m.%d")]
    if d.day == 1 or _last_day(d):  # a period written as its month (see period_text)
        forms.append(f"{d.year}년 {d.month}월")
    if (d.month, d.day) in ((1, 1), (12, 31)):
        forms.append(f"{d.year}년")
    return forms


def _korean_units(v: int) -> str | None:
    """``12조``, ``1억 5,000만`` when ``v`` is a whole number of 만 (None otherwise)."""
    if abs(v) < 10_000 or v % 10_000:
        return None
    sign, rest, parts = "-" if v < 0 else "", abs(v), []
    for unit, word in ((10**12, "조"), (10**8, "억"), (10**4, "만")):
        q, rest = divmod(rest, unit)
        if q:
            parts.append(f"{q:,}{word}")
    return sign + " ".join(parts)


def _num_text(v: int | float) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def _number_forms(v: int | float) -> list[str]:
    if isinstance(v, float) and not v.is_integer():
        return [repr(v)] + ([f"{v:,}"] if abs(v) >= 1000 else [])
    i = int(v)
    units = _korean_units(i)
    forms = [units] if units else []
    return [*forms, f"{i:,}", str(i)] if abs(i) >= 1000 else [*forms, str(i)]


def _dedupe(forms: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(f for f in forms if f))


def korean_forms(value: Any, name: str | None = None,
                 glossary: Glossary | None = None) -> list[str]:
    """Every way a query may write a literal value, the preferred one first.

    Dates: ``2024년 12월 1일``, ``2024-12-01``, ``20241201``, ``2024.12.01`` (and ``2024년 12월``
    for the first or last day of a month, ``2024년`` for 1 January or 31 December). Numbers: the
    glossary's meaning or format for ``name``, ``12조`` for whole 만, thousands separators, the
    digits. Strings: the glossary's meaning for ``name``, its format, a ``YYYYMMDD`` / ``YYYYMM``
    string as a Korean date / month, the text itself. Booleans ``예`` / ``아니오``; objects and
    lists none (lists are checked item by item)."""
    gl = glossary or load_glossary(None)
    if isinstance(value, bool):
        return ["예" if value else "아니오"]
    if isinstance(value, dt.date):
        return _date_forms(value)
    if not isinstance(value, int | float | str):
        return []
    text = _num_text(value) if not isinstance(value, str) else value
    forms: list[str] = []
    if name is not None:
        alias = gl.values.get(name, {}).get(text)
        if alias:
            forms.append(alias)
        fmt = gl.formats.get(name)
        if fmt:
            forms.append(fmt.replace("{v}", text))
    if isinstance(value, str):
        if re.fullmatch(r"(19|20)\d{6}", value):
            with contextlib.suppress(ValueError):
                forms += _date_forms(dt.date(int(value[:4]), int(value[4:6]), int(value[6:])))
        elif re.fullmatch(r"(19|20)\d{2}(0[1-9]|1[0-2])", value):
            forms.append(f"{int(value[:4])}년 {int(value[4:])}월")
        forms.append(value)
    else:
        forms += _number_forms(value)
    return _dedupe(forms)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip().casefold()


@lru_cache(maxsize=4096)
def pattern_of(form: str) -> re.Pattern[str]:
    """A form as a pattern: spaces optional, no digit or Latin letter glued to either end, and
    a month or year form not followed by a number (``2024년 12월`` is not in ``…12월 10일``)."""
    norm = _norm(form)
    body = r"\s*".join(re.escape(t) for t in norm.split(" "))
    pre = post = ""
    if norm[:1].isascii() and norm[:1].isalnum():
        pre = r"(?<![a-z0-9])" + (r"(?<![0-9][.,])" if norm[0].isdigit() else "")
    if norm[-1:].isascii() and norm[-1:].isalnum():
        post = r"(?![a-z0-9])" + (r"(?![.,][0-9])" if norm[-1].isdigit() else "")
    if norm.endswith(("년", "월")):
        post = r"(?!\s*[0-9])"
    return re.compile(pre + body + post)


def mentioned(text: str, forms: Sequence[str]) -> bool:
    """True when ``text`` contains one of ``forms`` (case and spacing ignored, no digit or
    Latin letter glued to its ends). Nothing to look for counts as mentioned."""
    if not forms:
        return True
    norm = _norm(text)
    return any(pattern_of(f).search(norm) for f in forms if f.strip())


def mask(text: str, forms: Sequence[str]) -> str:
    """``text`` (normalised) with every occurrence of ``forms`` blanked out."""
    out = _norm(text)
    for f in sorted({f for f in forms if f.strip()}, key=len, reverse=True):
        out = pattern_of(f).sub(" \x00 ", out)
    return out


def tidy(text: str) -> str:
    """Whitespace collapsed, no space before ``, . ? ! )`` or after ``(``."""
    out = re.sub(r"\s+", " ", text).strip()
    out = re.sub(r"\s+([,.?!)])", r"\1", out)
    out = re.sub(r"\(\s+", "(", out)
    return re.sub(r",(?=[^\s\d])", ", ", out)


def with_unit(text: str, unit: str) -> str:
    """A number's text with its unit as Korean writes it: glued when the unit is Hangul or a
    sign (``82,500만원``, ``12%``, ``30㎡``), after a space when it is Latin (``652.3 Kcal``)."""
    return f"{text} {unit}" if unit[:1].isascii() and unit[:1].isalpha() else text + unit


FALLBACKS = ("이(가)", "가(이)", "을(를)", "를(을)", "은(는)", "는(은)", "와(과)", "과(와)",
             "아(야)", "야(아)", "(으)로", "(이)나", "(이)고", "(이)면", "(이)며", "(이)랑")
"""Both forms of a particle written at once: what a query must never contain."""

_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_])")


def fallbacks_in(text: str) -> list[str]:
    """The particle fallbacks (:data:`FALLBACKS`) in ``text``, in order of appearance."""
    return sorted((f for f in FALLBACKS if f in text), key=text.index)


def identifiers_in(text: str, names: Iterable[str] = ()) -> list[str]:
    """ASCII identifiers in ``text`` that read as an API's field or parameter name: one of
    ``names`` (the catalog's), or any with an underscore or a lower-to-upper case change
    (``REG_YMD``, ``corpEnsnNm``). Words such as ``DART``, ``KOSPI``, ``Kcal`` are not."""
    known = set(names)
    return [w for w in _IDENT.findall(text)
            if w in known or "_" in w or re.search(r"[a-z][A-Z]", w)]
