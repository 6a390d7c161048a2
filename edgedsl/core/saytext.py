"""How a ``say`` reply writes values, and the filters a template may apply to them.

Every ``{{ … }}`` of a ``say`` template passes through :func:`say_text` (the jinja2
environment's ``finalize``), so a value reads as Korean text, not as Python's:

* a number is grouped in threes (``73600`` → ``73,600``; ``158953.0`` → ``158,953``;
  ``-0.37`` stays ``-0.37``); ``{{ v | plain }}`` writes it ungrouped (a year, a number that
  names something);
* a list is its items, each written this way, joined by ``, `` (``가, 나, 다``);
  ``and_list`` / ``or_list`` join them as a sentence does (``가, 나와 다``, ``가, 나 또는 다``);
* a missing value (``null``) or an empty list is :data:`MISSING` (``(없음)``), never ``None``;
* ``true`` / ``false`` are ``예`` / ``아니요``; an object is ``key: value`` pairs.

Filters (:data:`FILTERS`): ``num(d)`` (grouped, rounded to ``d`` places, at most 20,
half away from zero), ``plain``, ``won`` (``73,600원``), ``man`` / ``eok`` / ``jo``
(``7.4만``, ``1.2억``, ``3.1조``: the amount in that unit, at most one decimal unless
asked), ``amount(unit)`` (the whole amount in 조/억/만 groups: ``12억 3,456만 7,890원``),
``date(style)`` (``2024년 12월 27일``; styles ``long``, ``short``, ``month``, ``dot``,
``weekday``), ``josa(particle)`` (``삼성전자가``) and ``and_list`` / ``or_list``. A
filter given a missing value writes :data:`MISSING`; one given something it cannot
read (``date`` of ``"어제"``) fails the run (``R508``) saying what it needs. """

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .korean import join_ko, josa

__all__ = ["DATE_STYLES", "FILTERS", "MISSING", "SayValueError", "say_text"]

MISSING = "(없음)"
"""What a reply writes for a missing value (``null``) or an empty list."""

_WEEKDAYS = "월화수목금토일"
DATE_STYLES: Mapping[str, Callable[[dt.date], str]] = {
    "long": lambda d: f"{d.year}년 {d.month}월 {d.day}일",
    "short": lambda d: f"{d.month}월 {d.day}일",
    "month": lambda d: f"{d.year}년 {d.month}월",
    "dot": lambda d: f"{d.year}. {d.month}. {d.day}.",
    "weekday": lambda d: f"{d.year}년 {d.month}월 {d.day}일({_WEEKDAYS[d.weekday()]})",
}
"""The styles of the ``date`` filter (2024-12-27: ``2024년 12월 27일``, ``12월 27일``,
``2024년 12월``, ``2024. 12. 27.``, ``2024년 12월 27일(금)``)."""

_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?")
_DATE_TEXT = re.compile(r"([0-9]{4})-?([0-9]{2})-?([0-9]{2})(?:[T ].*)?")


class SayValueError(ValueError):
    """A ``say`` filter was given a value it cannot read (the executor reports ``R508``)."""


def _float_text(v: float) -> str:
    if not math.isfinite(v):
        return str(v)
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:,}"


def say_text(value: Any) -> str:
    """``value`` as a ``say`` reply writes it (module docstring)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "예" if value else "아니요"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, decimal.Decimal):
        return _float_text(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ", ".join(say_text(v) for v in value) if value else MISSING
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {say_text(v)}" for k, v in value.items()) if value else MISSING
    return str(value)


def _number(value: Any, filter_name: str) -> int | float:
    """``value`` as a number: a number, or a text that writes one (``"82,500"``)."""
    if isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool):
        return value if isinstance(value, int | float) else float(value)
    if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value.strip()):
        text = value.strip().replace(",", "")
        return float(text) if "." in text else int(text)
    raise SayValueError(f"`{filter_name}` needs a number, not {value!r:.60}")


_MAX_DIGITS = 20
"""The most decimal places a filter writes."""


def _rounded(v: int | float, digits: Any) -> decimal.Decimal:
    """``v`` rounded to ``digits`` places (0 to :data:`_MAX_DIGITS`), half away from zero
    (as ``round`` in answers)."""
    places = max(0, min(int(digits), _MAX_DIGITS))
    exact = decimal.Decimal(repr(v) if isinstance(v, float) else v)
    if not exact.is_finite():
        raise SayValueError(f"cannot round {v!r}")
    with decimal.localcontext() as ctx:
        ctx.prec = max(28, exact.adjusted() + places + 2)
        return exact.quantize(decimal.Decimal(1).scaleb(-places),
                              rounding=decimal.ROUND_HALF_UP)


def _num(value: Any, digits: int | None = None, name: str = "num") -> str:
    if value is None:
        return MISSING
    v = _number(value, name)
    if digits is None:
        return say_text(v)
    return f"{_rounded(v, digits):,f}"


def _plain(value: Any) -> str:
    if value is None:
        return MISSING
    v = _number(value, "plain")
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def _won(value: Any, digits: int | None = None) -> str:
    return _num(value, digits, "won") + ("" if value is None else "원")


def _scaled(unit: int, word: str, name: str) -> Callable[..., str]:
    def scaled(value: Any, digits: int = 1) -> str:
        if value is None:
            return MISSING
        text = f"{_rounded(_number(value, name) / unit, digits):,f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return ("0" if text in ("-0", "") else text) + word

    scaled.__doc__ = f"The amount in {word} (``{name}``)."
    return scaled


_GROUPS = ((10**12, "조"), (10**8, "억"), (10**4, "만"))


def _amount(value: Any, unit: str = "") -> str:
    if value is None:
        return MISSING
    n = int(_rounded(_number(value, "amount"), 0))
    rest, parts = abs(n), []
    for size, word in _GROUPS:
        q, rest = divmod(rest, size)
        if q:
            parts.append(f"{q:,}{word}")
    if rest or not parts:
        parts.append(f"{rest:,}")
    return ("-" if n < 0 else "") + " ".join(parts) + str(unit)


def _as_date(value: Any) -> dt.date:
    if isinstance(value, dt.date):
        return value
    m = _DATE_TEXT.fullmatch(value.strip()) if isinstance(value, str) else None
    if m:
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            pass
    raise SayValueError(f"`date` needs a date (YYYY-MM-DD or YYYYMMDD), not {value!r:.60}")


def _date(value: Any, style: str = "long") -> str:
    if value is None:
        return MISSING
    form = DATE_STYLES.get(style)
    if form is None:
        raise SayValueError(f"`date` has no style {style!r:.40}; styles: "
                            + ", ".join(DATE_STYLES))
    return form(_as_date(value))


def _items(value: Any) -> list[str]:
    items = value if isinstance(value, list | tuple) else [value]
    return [say_text(v) for v in items if v is not None]


def _and_list(value: Any) -> str:
    return join_ko(_items(value)) if value is not None and _items(value) else MISSING


def _or_list(value: Any) -> str:
    words = _items(value) if value is not None else []
    if not words:
        return MISSING
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " 또는 " + words[-1]


def _josa(value: Any, particle: str) -> str:
    return josa(say_text(value), str(particle))


FILTERS: Mapping[str, Callable[..., str]] = {
    "num": _num,
    "plain": _plain,
    "won": _won,
    "man": _scaled(10**4, "만", "man"),
    "eok": _scaled(10**8, "억", "eok"),
    "jo": _scaled(10**12, "조", "jo"),
    "amount": _amount,
    "date": _date,
    "josa": _josa,
    "and_list": _and_list,
    "or_list": _or_list,
}
"""The filters ``say`` adds to jinja2's own (module docstring); each is guarded like those."""
