"""The real legal-district table (법정동코드), shipped in ``edgedsl/world/data`` with attribution.

Loaded once per process; only codes in force (no ``abolished_de``) are served by default.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .diskcache import disk_cached

__all__ = ["LegalDong", "legal_dongs", "sido_list", "sigungu_list"]


@dataclass(frozen=True, slots=True)
class LegalDong:
    """One row of the table: the 10-digit code and its names at every level."""

    code: str        # 10 digits: 시도 2 + 시군구 3 + 읍면동 3 + 리 2
    sido_cd: str     # 2
    sido_nm: str
    sgg_cd: str      # 5 (the first five digits of ``code``)
    sgg_nm: str
    umd_nm: str
    ri_nm: str
    created: str     # YYYYMMDD
    abolished: str   # YYYYMMDD or ""

    @property
    def level(self) -> str:
        """``sido`` / ``sgg`` / ``umd`` / ``ri``."""
        if self.code[2:] == "00000000":
            return "sido"
        if self.code[5:] == "00000":
            return "sgg"
        if self.code[8:] == "00":
            return "umd"
        return "ri"

    @property
    def full_name(self) -> str:
        """``서울특별시 종로구 청운동`` — the ``locatadd_nm`` spelling."""
        return " ".join(p for p in (self.sido_nm, self.sgg_nm, self.umd_nm, self.ri_nm) if p)


@cache
def _all() -> tuple[LegalDong, ...]:
    return tuple(LegalDong(*row) for row in _rows())


@disk_cached
def _rows() -> tuple[tuple[str, ...], ...]:
    """The table's rows as tuples of :class:`LegalDong`'s fields, kept on disk for the next
    process (:mod:`edgedsl.world.diskcache`; the 46,345 rows took 0.5 s of every process that
    touched an address to read from the CSV)."""
    ref = resources.files("edgedsl.world") / "data" / "kr_legal_dong_codes.csv"
    with ref.open(encoding="utf-8") as fh:
        return tuple(
            (r["bdong_cd"], r["sido_cd"], r["sido_nm"], r["sgg_cd"], r["sgg_nm"] or "",
             r["umd_nm"] or "", r["ri_nm"] or "", r["created_de"] or "", r["abolished_de"] or "")
            for r in csv.DictReader(fh)
        )


@cache
def legal_dongs(active_only: bool = True) -> tuple[LegalDong, ...]:
    """Every legal district (in force only, by default), in code order."""
    rows = _all()
    return tuple(r for r in rows if not r.abolished) if active_only else rows


@cache
def sido_list() -> tuple[LegalDong, ...]:
    """The 17 시도 in force."""
    return tuple(r for r in legal_dongs() if r.level == "sido")


@cache
def sigungu_list() -> tuple[LegalDong, ...]:
    """The 시군구-level codes in force (5-digit prefix + ``00000``), excluding 시도 rows."""
    return tuple(r for r in legal_dongs() if r.level == "sgg")
