"""The legal-district changes since the shipped code table's last change (2022-09-01).

The table (``data/kr_legal_dong_codes.csv``) is the 행정안전부 table as of 2022-09-01. Three
changes since then renumbered whole 시도 or 시군구 (issue 21 §5):

| in force from | change | codes |
|---|---|---|
| 2023-06-11 | 강원도 → 강원특별자치도 (강원특별자치도 설치 등에 관한 특별법) | 42… → 51… |
| 2023-07-01 | 경상북도 군위군 → 대구광역시 군위군 (군위군 편입 법률) | 47720… → 27720… |
| 2024-01-18 | 전라북도 → 전북특별자치도 (전북특별자치도 설치 등에 관한 특별법) | 45… → 52… |

Each district keeps the rest of its code and its own names; the 시도 name is the new one. The
world's table applies them (:mod:`edgedsl.world.regions`): the retired rows get the change date
as ``abolished_de``, their successors it as ``created_de``. The world's data is made under the
codes in force now, and services keyed by a 5-digit 시군구 code (국토교통부 실거래가's
``LAWD_CD``) answer a month under the code in force that month (:func:`lawd_now`): a 2024 month
under 51110 (춘천시, 강원특별자치도) and not under the retired 42110, a 2022 month under 42110
and not under 51110.

Later changes (인천's 제물포구·영종구·검단구 of 2026-07-01, 화성시's and 부천시's 일반구) are
not applied: their new codes are not in any table this project ships.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SNAPSHOT", "SUCCESSIONS", "Succession", "lawd_now"]

SNAPSHOT = "20220901"
"""The date of the shipped table's newest change: the table the successions start from."""


@dataclass(frozen=True, slots=True)
class Succession:
    """Codes starting ``old`` replaced by codes starting ``new`` (the rest kept) on ``date``,
    their 시도 named ``sido_nm`` from then on."""

    old: str
    new: str
    date: str  # YYYYMMDD, the day the change took effect
    sido_nm: str
    what: str

    @property
    def month(self) -> tuple[int, int]:
        """The first month served under the new code."""
        return int(self.date[:4]), int(self.date[4:6])


SUCCESSIONS: tuple[Succession, ...] = (
    Succession("42", "51", "20230611", "강원특별자치도", "강원특별자치도 출범"),
    Succession("47720", "27720", "20230701", "대구광역시", "군위군 대구광역시 편입"),
    Succession("45", "52", "20240118", "전북특별자치도", "전북특별자치도 출범"),
)


def lawd_now(code: str, year: int, month: int) -> str | None:
    """The code in force now of the 시군구 that 5-digit ``code`` named in ``year``-``month``,
    or None when ``code`` named none then: a retired code after its change, a new code before
    it."""
    for s in SUCCESSIONS:
        if code.startswith(s.new):
            return code if (year, month) >= s.month else None
        if code.startswith(s.old):
            return None if (year, month) >= s.month else s.new + code[len(s.old):]
    return code
