"""시군구 codes that replaced others after the shipped code table's last change (2022-09-01).

The table (``data/kr_legal_dong_codes.csv``) is the 행정안전부 table as of 2022-09-01. Three
changes since then renumbered whole 시군구, and services keyed by the 5-digit 시군구 code
(국토교통부 실거래가's ``LAWD_CD``) answer each period under the code valid then — a 2024 month
under 51110 (춘천시, 강원특별자치도), not under the retired 42110 (issue 21 §5):

| in force from | change | codes |
|---|---|---|
| 2023-06-11 | 강원도 → 강원특별자치도 (강원특별자치도 설치 등에 관한 특별법) | 42xxx → 51xxx |
| 2023-07-01 | 경상북도 군위군 → 대구광역시 군위군 (군위군 편입 법률) | 47720 → 27720 |
| 2024-01-18 | 전라북도 → 전북특별자치도 (전북특별자치도 설치 등에 관한 특별법) | 45xxx → 52xxx |

The district keeps its last three digits. A month is served under the new code from the month
the change took effect; the world's data of a renumbered district is generated under the
table's (old) code, so the district's history continues across the change.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SUCCESSIONS", "Succession", "lawd_in_force"]


@dataclass(frozen=True, slots=True)
class Succession:
    """Codes starting ``old`` replaced by codes starting ``new`` (the rest kept) on ``date``."""

    old: str
    new: str
    date: str  # YYYYMMDD, the day the change took effect
    what: str

    @property
    def month(self) -> tuple[int, int]:
        """The first month served under the new code."""
        return int(self.date[:4]), int(self.date[4:6])


SUCCESSIONS: tuple[Succession, ...] = (
    Succession("42", "51", "20230611", "강원특별자치도 출범"),
    Succession("47720", "27720", "20230701", "군위군 대구광역시 편입"),
    Succession("45", "52", "20240118", "전북특별자치도 출범"),
)


def lawd_in_force(code: str, year: int, month: int) -> str | None:
    """The table's code of the 시군구 that 5-digit ``code`` names in ``year``-``month``, or None
    when ``code`` names none then: a retired code after its change, a new code before it."""
    for s in SUCCESSIONS:
        if code.startswith(s.new):
            return s.old + code[len(s.new):] if (year, month) >= s.month else None
        if code.startswith(s.old):
            return None if (year, month) >= s.month else code
    return code
