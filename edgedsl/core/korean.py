"""Korean particles: the final sound of a word as it is read aloud (:func:`final_sound`), the
particle that fits it (:func:`josa`) and a list joined the Korean way (:func:`join_ko`).

Shared by ``say`` rendering (``core.saytext``) and the synthesized queries
(``recipe.synth.korean``, which re-exports these)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["NONE", "RIEUL", "final_sound", "join_ko", "josa"]

_PAIRS: dict[str, tuple[str, str]] = {}


for _a, _b in (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로", "로"),
               ("이나", "나"), ("이고", "고"), ("이면", "면"), ("이며", "며"), ("이랑", "랑"),
               ("이라", "라"), ("이다", "다"), ("아", "야")):
    _PAIRS[_a] = _PAIRS[_b] = (_a, _b)


NONE, RIEUL = 0, 8
"""Final consonant (jongseong) indices :func:`final_sound` returns: 0 none, 8 ㄹ (others 1–27)."""

_DIGIT = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8, "9": 0}
"""A digit read alone: 영 ㅇ, 일 ㄹ, 이, 삼 ㅁ, 사, 오, 육 ㄱ, 칠 ㄹ, 팔 ㄹ, 구."""

_LETTER = dict.fromkeys("ABCDEFGHIJKOPQSTUVWXYZ", 0) | {"L": 8, "M": 16, "N": 4, "R": 8}
"""A Latin letter read alone: 에이 … 엘 ㄹ, 엠 ㅁ, 엔 ㄴ, 알 ㄹ (every other letter ends in a
vowel: 비, 씨, 에프, 에이치, 엑스, 제트 …)."""

_WORDS = {"Kcal": 0, "kcal": 0, "km": 0, "m": 0, "cm": 0, "mm": 0, "kg": 0, "g": 0, "ppm": 16,
          "km/h": 0, "㎍/㎥": 0, "DART": 0, "NEIS": 0, "KOSPI": 0, "KOSDAQ": 0, "KONEX": 0}
"""Words read as a whole, not letter by letter (units, the services' names), exactly as
written (``m`` is 미터, ``M`` 엠): 킬로칼로리, 킬로미터, 미터, 피피엠, 다트, 나이스, 코스피 … —
all but ``ppm`` end in a vowel."""

_SYMBOL = {"%": 0, "㎡": 0, "㎥": 0, "℃": 0, "㎞": 0, "㎏": 0, "㎍": 0}
"""Symbols read as words: 퍼센트, 제곱미터, 세제곱미터, 도, 킬로미터, 킬로그램, 마이크로그램."""

_CLOSING = " \t\n'\"’”」』》〉>)]}"
_OPENING = {")": "(", "]": "[", "}": "{", "」": "「", "』": "『", "》": "《", "〉": "〈",
            ">": "<"}
_WORD_RE = re.compile(r"[A-Za-z/㎍㎥]+$")
_NUMBER_RE = re.compile(r"[0-9][0-9,]*(\.[0-9]+)?$")
# trailing zeros → the place word read last: 조, 억 ㄱ, 만 ㄴ, 천 ㄴ, 백 ㄱ, 십 ㅂ
_POWERS = ((12, NONE), (8, 1), (4, 4), (3, 4), (2, 1), (1, 17))


def _number_sound(run: str) -> int:
    """The final consonant of a number read in Korean: its last non-zero digit, or the place
    word of its trailing zeros (``10`` 십 ㅂ, ``100`` 백 ㄱ, ``1,000`` 천 ㄴ, ``20000`` 이만 ㄴ,
    ``3억`` ㄱ, ``1조`` none); ``0`` is 영 ㅇ, a decimal ends in its last digit."""
    whole, _, frac = run.replace(",", "").partition(".")
    if frac:
        return _DIGIT[frac[-1]]
    digits = whole.lstrip("0") or "0"
    zeros = len(digits) - len(digits.rstrip("0"))
    if digits == "0" or zeros == 0:
        return _DIGIT[digits[-1]]
    return next(sound for power, sound in _POWERS if zeros >= power)


def final_sound(word: Any) -> int:
    """The final consonant (jongseong index, 0 for none, 8 for ㄹ) of ``word`` as it is read
    aloud, which decides the particle after it.

    Closing brackets and quotes are skipped, and a parenthesis closing the word is skipped with
    what it holds (``학원교습소정보(서울특별시교육청)`` ends in 보); a Hangul syllable gives its
    own final consonant; a number is read in Korean (``1`` 일, ``3`` 삼, ``10`` 십, ``1,000``
    천, ``0`` 영); a Latin letter as its name (``A`` 에이, ``L`` 엘, ``M`` 엠, ``N`` 엔, ``R`` 알);
    units and service names as words (``Kcal``, ``km``, ``ppm``, ``DART``); ``%`` 퍼센트.
    Anything else (an emoji, a lone symbol) is skipped; a word with nothing readable counts as
    ending in a vowel."""
    w = str(word)
    while w:
        w = w.rstrip(_CLOSING)
        if not w:
            break
        if w[-1] in _OPENING.values():
            w = w[:-1]
            continue
        c = w[-1]
        if "가" <= c <= "힣":
            return (ord(c) - 0xAC00) % 28
        num = _NUMBER_RE.search(w)
        if num:
            return _number_sound(num.group(0))
        if (c.isascii() and c.isalpha()) or c == "㎥":
            token = _WORD_RE.search(w)
            text = token.group(0) if token else c
            if text in _WORDS:
                return _WORDS[text]
            if c.isascii() and c.isalpha():
                return _LETTER[c.upper()]
        if c in _SYMBOL:
            return _SYMBOL[c]
        w = w[:-1]
    return NONE


def _strip_parenthetical(text: str) -> str:
    """``text`` without a closing bracketed part (``X(…)`` → ``X``) when something precedes it;
    brackets nest (``기업개요(법인명 (주)세아메디칼)`` → ``기업개요``)."""
    t = text.rstrip()
    open_ = _OPENING.get(t[-1:]) if t else None
    if open_ is None:
        return text
    close, depth = t[-1], 0
    for i in range(len(t) - 1, -1, -1):
        depth += (t[i] == close) - (t[i] == open_)
        if depth == 0:
            head = t[:i].rstrip()
            return head or text
    return text


def josa(word: Any, particle: str) -> str:
    """``word`` followed by the Korean particle that fits its final sound (:func:`final_sound`):
    ``josa("회사", "을")`` is ``회사를``, ``josa("종가", "이")`` ``종가가``, ``josa("법률",
    "으로")`` ``법률로`` (ㄹ takes 로), ``josa("LOAD", "이")`` ``LOAD가``, ``josa("2019년 3월
    1일", "이")`` ``…1일이``, ``josa("학원정보(B10)", "을")`` ``학원정보(B10)를`` (the word
    before a closing parenthetical decides). Either form of a pair may be asked for; never
    both are written."""
    text = str(word)
    pair = _PAIRS.get(particle)
    if pair is None:
        return text + particle
    with_coda, without = pair
    coda = final_sound(_strip_parenthetical(text))
    if with_coda == "으로":
        return text + ("로" if coda in (NONE, RIEUL) else "으로")
    return text + (with_coda if coda else without)


def join_ko(items: Sequence[Any], conj: str = "와", sep: str = ", ") -> str:
    """A Korean list: ``A``, ``A와 B``, ``A, B와 C`` (``conj`` chooses 와/과 by sound)."""
    words = [str(i) for i in items if str(i)]
    if len(words) <= 1:
        return words[0] if words else ""
    return sep.join([*words[:-2], f"{josa(words[-2], conj)} {words[-1]}"])
