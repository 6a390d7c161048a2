"""The real legal-district table (법정동코드), shipped in ``edgedsl/world/data`` with attribution,
brought up to date with the changes since its last one (:mod:`edgedsl.world.successions`).

Loaded once per process; the codes in force now are served by default, the table of another
day by ``on``. Rows keep the shipped table's order, a renumbered district in the place of the
one it replaced, so the world generated from the table walks its districts in the same order
before and after a renumbering.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from .diskcache import disk_cached
from .successions import SUCCESSIONS, Succession

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

    def in_force(self, day: str) -> bool:
        """Whether the code was in force on ``day`` (YYYYMMDD)."""
        return self.created <= day and not (self.abolished and self.abolished <= day)

    @property
    def full_name(self) -> str:
        """``서울특별시 종로구 청운동`` — the ``locatadd_nm`` spelling."""
        return " ".join(p for p in (self.sido_nm, self.sgg_nm, self.umd_nm, self.ri_nm) if p)


@cache
def _all() -> tuple[LegalDong, ...]:
    """The shipped rows with every succession applied, each successor after the row it
    replaces."""
    rows = [LegalDong(*row) for row in _rows()]
    for s in SUCCESSIONS:
        out: list[LegalDong] = []
        for d in rows:
            if d.code.startswith(s.old) and d.in_force(s.date):
                out += [replace(d, abolished=s.date), _successor(d, s)]
            else:
                out.append(d)
        rows = out
    return tuple(rows)


def _successor(d: LegalDong, s: Succession) -> LegalDong:
    """The row that replaces ``d`` under succession ``s``: the new code, the new 시도's name."""
    code = s.new + d.code[len(s.old):]
    return replace(d, code=code, sido_cd=code[:2], sido_nm=s.sido_nm, sgg_cd=code[:5],
                   created=s.date, abolished="")


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
def legal_dongs(on: str | None = None) -> tuple[LegalDong, ...]:
    """Every legal district in force now, or on day ``on`` (YYYYMMDD; the table is exact from
    :data:`~edgedsl.world.successions.SNAPSHOT` on), in the table's order."""
    rows = _all()
    if on is None:
        return tuple(r for r in rows if not r.abolished)
    return tuple(r for r in rows if r.in_force(on))


@cache
def sido_list(on: str | None = None) -> tuple[LegalDong, ...]:
    """The 17 시도 in force now (or on day ``on``)."""
    return tuple(r for r in legal_dongs(on) if r.level == "sido")


@cache
def sigungu_list(on: str | None = None) -> tuple[LegalDong, ...]:
    """The 시군구-level codes in force now (or on day ``on``): 5-digit prefix + ``00000``,
    excluding 시도 rows."""
    return tuple(r for r in legal_dongs(on) if r.level == "sgg")
