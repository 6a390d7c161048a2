"""Deterministic randomness and wire-format helpers shared by the world's dataset generators.

Every generator draws from its own :func:`rng` stream (seed × dataset name), so adding a dataset
never changes another one, and the same seed always yields the same world.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta

__all__ = [
    "comma",
    "daterange",
    "hash_unit",
    "korean_name",
    "rng",
    "won",
    "ymd",
]

_SURNAMES = ("김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신",
             "권", "황", "안", "송", "류", "홍")
_GIVEN = ("민준", "서연", "지훈", "하은", "도윤", "수아", "예준", "지우", "시우", "서윤", "주원",
          "지민", "현우", "채원", "준서", "다은", "건우", "은서", "우진", "민서", "성민", "영희",
          "철수", "정호", "미경", "상훈", "경희", "동현", "수진", "재원")


def rng(seed: int, name: str) -> random.Random:
    """A ``random.Random`` for one named stream of the world with this seed."""
    digest = hashlib.sha256(f"{seed}\x1f{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def hash_unit(seed: int, *parts: object) -> float:
    """A deterministic number in [0, 1) for ``parts`` (stateless: no stream to advance)."""
    key = "\x1f".join(map(str, (seed, *parts))).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") / 2**64


def korean_name(r: random.Random) -> str:
    """A plausible Korean full name (surname + given name)."""
    return r.choice(_SURNAMES) + r.choice(_GIVEN)


def comma(n: int | float) -> str:
    """``1234567`` → ``"1,234,567"`` (DART amounts, 실거래가 dealAmount)."""
    return f"{n:,}" if isinstance(n, int) else f"{n:,.2f}"


def won(n: int) -> str:
    """``1999`` → ``"1,999원"`` (한국도로공사 fuel prices)."""
    return f"{n:,}원"


def ymd(d: date) -> str:
    """``date(2024, 3, 12)`` → ``"20240312"``."""
    return f"{d.year:04d}{d.month:02d}{d.day:02d}"  # strftime's text, 2.1× faster


def daterange(start: date, end: date) -> list[date]:
    """Every day from ``start`` to ``end`` inclusive."""
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]
