"""Korean text for synthesized queries: particles (:func:`josa`), lists, dates, periods and
numbers in their Korean renderings (:func:`korean_forms`), and finding or masking a value in a
text (:func:`mentioned`, :func:`mask`), which the filters share."""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .templates import Glossary, load_glossary

__all__ = [
    "join_ko",
    "josa",
    "korean_date",
    "korean_forms",
    "mask",
    "mentioned",
    "pattern_of",
    "period_text",
    "tidy",
]

_PAIRS: dict[str, tuple[str, str]] = {}


for _a, _b in (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로", "로"),
               ("이나", "나"), ("이고", "고"), ("이면", "면"), ("이며", "며")):
    _PAIRS[_a] = _PAIRS[_b] = (_a, _b)


_UNKNOWN = {"으로": "(으)로", "이고": "(이)고", "이면": "(이)면", "이며": "(이)며",
            "이나": "(이)나"}


_DIGIT_CODA = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8, "9": 0}


_TENS_CODA = {1: 17, 2: 1, 3: 4}  # 십 ㅂ, 백 ㄱ, 천 ㄴ; 만 and beyond ㄴ


def _coda(word: str) -> int | None:
    """The final consonant index of ``word`` as read aloud (0: none, 8: ㄹ), None if unknown."""
    w = word.rstrip(" '\"’”」』")
    while w.endswith(")") and "(" in w:  # a particle attaches to the word before "(…)"
        w = w[:w.rindex("(")].rstrip()
    if not w:
        return None
    c = w[-1]
    if "가" <= c <= "힣":
        return (ord(c) - 0xAC00) % 28
    if c.isdigit():
        digits = re.search(r"[0-9]+$", w)
        run = digits.group(0) if digits else c
        zeros = len(run) - len(run.rstrip("0"))
        if zeros and run.strip("0"):
            return _TENS_CODA.get(zeros, 4)
        return _DIGIT_CODA[c]
    if c in "%":
        return 0
    return None


def josa(word: Any, particle: str) -> str:
    """``word`` followed by the Korean particle that fits it: ``josa("회사", "을")`` is
    ``회사를``, ``josa("종가", "이")`` ``종가가``, ``josa("법률", "으로")`` ``법률로``. When the
    word's final sound is unknown (Latin letters), both forms are written: ``을(를)``."""
    text = str(word)
    pair = _PAIRS.get(particle)
    if pair is None:
        return text + particle
    with_coda, without = pair
    coda = _coda(text)
    if coda is None:
        return text + _UNKNOWN.get(with_coda, f"{with_coda}({without})")
    if with_coda == "으로":
        return text + ("로" if coda in (0, 8) else "으로")
    return text + (with_coda if coda else without)


def join_ko(items: Sequence[Any], conj: str = "와", sep: str = ", ") -> str:
    """A Korean list: ``A``, ``A와 B``, ``A, B와 C`` (``conj`` chooses 와/과 by sound)."""
    words = [str(i) for i in items if str(i)]
    if len(words) <= 1:
        return words[0] if words else ""
    return sep.join([*words[:-2], f"{josa(words[-2], conj)} {words[-1]}"])


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
