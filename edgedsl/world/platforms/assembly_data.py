"""Tables and generators behind 열린국회정보: committees, laws, plenary days and the bill skeletons.

Member bills are too many to hold as rows (20대 21,594 / 21대 23,655 / 22대 15,676), so each
assembly keeps a compact skeleton (:class:`Bill`, one small tuple per bill, built once per seed
and age) and the endpoints materialise only the rows a request can see.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
from datetime import date, timedelta
from functools import cache
from typing import NamedTuple

from ..rand import rng

__all__ = [
    "AGES",
    "COMMITTEES",
    "LAWS",
    "PASSED_LAWS",
    "RESULTS",
    "TODAY",
    "Bill",
    "Plenary",
    "bill_id",
    "bills",
    "iso",
    "plenaries",
]

TODAY = date(2026, 2, 13)
"""The world's today (the 22nd assembly is sitting)."""

AGES: dict[int, tuple[date, date, int, int]] = {
    20: (date(2016, 5, 30), date(2020, 5, 29), 21594, 342),
    21: (date(2020, 5, 30), date(2024, 5, 29), 23655, 379),
    22: (date(2024, 5, 30), TODAY, 15676, 415),
}
"""대수 → (term start, term end or today, member bills, first session number)."""

COMMITTEES: tuple[tuple[str, str], ...] = (
    ("국회운영위원회", "9700005"), ("법제사법위원회", "9700006"), ("정무위원회", "9700008"),
    ("기획재정위원회", "9700300"), ("교육위원회", "9700513"),
    ("과학기술정보방송통신위원회", "9700479"), ("외교통일위원회", "9700019"),
    ("국방위원회", "9700020"), ("행정안전위원회", "9700480"), ("문화체육관광위원회", "9700514"),
    ("농림축산식품해양수산위원회", "9700408"), ("산업통상자원중소벤처기업위원회", "9700481"),
    ("보건복지위원회", "9700341"), ("환경노동위원회", "9700038"), ("국토교통위원회", "9700407"),
    ("정보위원회", "9700022"), ("여성가족위원회", "9700342"),
)
"""(위원회명, COMMITTEE_ID) of the standing committees."""

_C = {name: i for i, (name, _) in enumerate(COMMITTEES)}

PASSED_LAWS: tuple[tuple[str, str], ...] = (
    ("도로교통법", "행정안전위원회"), ("산업안전보건법", "환경노동위원회"),
    ("개인정보 보호법", "정무위원회"), ("화학물질관리법", "환경노동위원회"),
    ("주택법", "국토교통위원회"), ("국민건강보험법", "보건복지위원회"),
    ("근로기준법", "환경노동위원회"), ("조세특례제한법", "기획재정위원회"),
    ("소득세법", "기획재정위원회"), ("지방세법", "행정안전위원회"),
    ("공직선거법", "행정안전위원회"), ("형법", "법제사법위원회"), ("민법", "법제사법위원회"),
    ("형사소송법", "법제사법위원회"), ("의료법", "보건복지위원회"), ("약사법", "보건복지위원회"),
    ("아동복지법", "보건복지위원회"), ("국민연금법", "보건복지위원회"),
    ("초·중등교육법", "교육위원회"), ("고등교육법", "교육위원회"),
    ("건축법", "국토교통위원회"), ("자동차관리법", "국토교통위원회"),
    ("주택임대차보호법", "법제사법위원회"), ("고용보험법", "환경노동위원회"),
    ("전기통신사업법", "과학기술정보방송통신위원회"), ("저작권법", "문화체육관광위원회"),
    ("병역법", "국방위원회"), ("농지법", "농림축산식품해양수산위원회"),
    ("지방자치법", "행정안전위원회"), ("국가공무원법", "행정안전위원회"),
)
"""Laws the passed member bills amend (common, long-lived statutes the law.go.kr world knows)."""

LAWS: tuple[tuple[str, str], ...] = (
    *PASSED_LAWS,
    ("정보통신망 이용촉진 및 정보보호 등에 관한 법률", "과학기술정보방송통신위원회"),
    ("방송법", "과학기술정보방송통신위원회"), ("관광진흥법", "문화체육관광위원회"),
    ("국민체육진흥법", "문화체육관광위원회"), ("수산업법", "농림축산식품해양수산위원회"),
    ("축산법", "농림축산식품해양수산위원회"), ("군인사법", "국방위원회"),
    ("전기사업법", "산업통상자원중소벤처기업위원회"),
    ("중소기업기본법", "산업통상자원중소벤처기업위원회"),
    ("소상공인기본법", "산업통상자원중소벤처기업위원회"), ("은행법", "정무위원회"),
    ("자본시장과 금융투자업에 관한 법률", "정무위원회"),
    ("독점규제 및 공정거래에 관한 법률", "정무위원회"), ("국가보훈기본법", "정무위원회"),
    ("재난 및 안전관리 기본법", "행정안전위원회"), ("정부조직법", "행정안전위원회"),
    ("부동산 거래신고 등에 관한 법률", "국토교통위원회"),
    ("도시 및 주거환경정비법", "국토교통위원회"), ("대기환경보전법", "환경노동위원회"),
    ("최저임금법", "환경노동위원회"), ("양성평등기본법", "여성가족위원회"),
    ("청소년 보호법", "여성가족위원회"), ("남북교류협력에 관한 법률", "외교통일위원회"),
    ("재외동포의 출입국과 법적 지위에 관한 법률", "외교통일위원회"),
    ("국회법", "국회운영위원회"), ("국가정보원법", "정보위원회"),
    ("상법", "법제사법위원회"), ("법인세법", "기획재정위원회"), ("부가가치세법", "기획재정위원회"),
    ("유아교육법", "교육위원회"), ("학교폭력예방 및 대책에 관한 법률", "교육위원회"),
    ("장애인복지법", "보건복지위원회"), ("노인복지법", "보건복지위원회"),
    ("감염병의 예방 및 관리에 관한 법률", "보건복지위원회"),
)
"""Every law a member bill may amend: (법령명, 소관위원회)."""

_NEW_LAWS = (
    ("인공지능 산업 육성 및 신뢰 기반 조성 등에 관한 법률안", "과학기술정보방송통신위원회"),
    ("기후위기 대응을 위한 탄소중립 이행 특별법안", "환경노동위원회"),
    ("지역균형발전 특별법안", "행정안전위원회"), ("청년기본소득법안", "보건복지위원회"),
    ("반도체산업 경쟁력 강화 특별법안", "산업통상자원중소벤처기업위원회"),
    ("전세사기피해자 지원 및 주거안정에 관한 특별법안", "국토교통위원회"),
    ("고준위 방사성폐기물 관리 특별법안", "산업통상자원중소벤처기업위원회"),
    ("간호법안", "보건복지위원회"), ("가상자산 이용자 보호 등에 관한 법률안", "정무위원회"),
)

RESULTS = ("원안가결", "수정가결", "대안반영폐기", "철회", "부결", "임기만료폐기")
"""``PROC_RESULT`` values of member bills (None while pending)."""


def iso(d: date | None) -> str | None:
    """``2024-05-30`` (the 열린국회 date spelling), None for no date."""
    return d.isoformat() if d is not None else None


# ------------------------------------------------------------------ plenary days


class Plenary(NamedTuple):
    """One plenary meeting (``nekcaiymatialqlxr``)."""

    day: date
    session: int
    cha: int
    regular: bool


@cache
def plenaries(seed: int, age: int) -> tuple[Plenary, ...]:
    """The plenary meetings of assembly ``age`` up to its end (or today), in date order."""
    start, end, _, first = AGES[age]
    r = rng(seed, f"assembly_plenary_{age}")
    out: list[Plenary] = []
    session, cha = first - 1, 0
    y, m = start.year, start.month
    while date(y, m, 1) <= end:
        regular = m in (9, 10, 11, 12)
        if not regular or m == 9:
            session, cha = session + 1, 0
        n = 4 if regular else 3
        days = sorted({date(y, m, r.randint(2, 27)) for _ in range(n)})
        for d in days:
            while d.weekday() >= 5:
                d += timedelta(days=1)
            if start <= d <= end and (not out or d > out[-1].day):
                cha += 1
                out.append(Plenary(d, session, cha, regular))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return tuple(out)


def next_plenary(seed: int, age: int, d: date) -> Plenary | None:
    """The first plenary meeting on or after ``d`` (None after the term)."""
    ps = plenaries(seed, age)
    i = bisect.bisect_left(_plenary_days(seed, age), d)
    return ps[i] if i < len(ps) else None


@cache
def _plenary_days(seed: int, age: int) -> list[date]:
    return [p.day for p in plenaries(seed, age)]


# ------------------------------------------------------------------ bills


class Bill(NamedTuple):
    """The skeleton of one member bill; the rows are derived from it."""

    age: int
    no: int
    law: int           # index into LAWS, or -1 - index into _NEW_LAWS for a new law
    kind: int          # 0 일부개정, 1 전부개정, 2 제정
    lead: int          # index into the assembly's member list
    n_co: int          # co-proposers
    propose: date
    result: str | None
    proc: date | None  # PROC_DT
    stage: int         # pending: 0 회부, 1 소관위 상정, 2 소관위 의결, 3 법사위, 4 부의
    cmt_present: date | None
    cmt_proc: date | None
    law_present: date | None

    @property
    def name(self) -> str:
        """``BILL_NAME``."""
        if self.law < 0:
            return _NEW_LAWS[-1 - self.law][0]
        law = LAWS[self.law][0]
        return f"{law} {'전부' if self.kind == 1 else '일부'}개정법률안"

    @property
    def law_name(self) -> str:
        """The statute the bill makes or amends (``PROM_LAW_NM`` once promulgated)."""
        if self.law < 0:
            return _NEW_LAWS[-1 - self.law][0].removesuffix("안")
        return LAWS[self.law][0]

    @property
    def committee(self) -> tuple[str, str]:
        """(소관위원회, COMMITTEE_ID)."""
        name = _NEW_LAWS[-1 - self.law][1] if self.law < 0 else LAWS[self.law][1]
        return COMMITTEES[_C[name]]


_LETTER = bytes(65 + b % 26 for b in range(256))  # a byte → its letter, A + b mod 26
_DIGIT = bytes(48 + b % 10 for b in range(256))   # a byte → its digit, b mod 10


def bill_id(seed: int, age: int, no: int) -> str:
    """The opaque ``BILL_ID``: ``PRC_`` + 30 alternating letters and digits, read from a hash
    of the bill (even bytes give letters, odd bytes digits; two byte translations instead of a
    join per character: 60,000 ids in 0.22 s, was 0.57 s, same ids — a property test pins
    them to the per-character reading)."""
    h = hashlib.blake2b(f"{seed}/{age}/{no}".encode(), digest_size=30).digest()
    out = bytearray(30)
    out[0::2] = h[0::2].translate(_LETTER)
    out[1::2] = h[1::2].translate(_DIGIT)
    return "PRC_" + out.decode("ascii")


_LAW_IDX = tuple(range(len(LAWS)))
_LAW_CUM = tuple(itertools.accumulate(6 if i < len(PASSED_LAWS) else 2 for i in _LAW_IDX))


@cache
def bills(seed: int, age: int, n_members: int) -> tuple[Bill, ...]:
    """Every member bill of assembly ``age`` in BILL_NO order (deterministic per seed)."""
    start, end, count, _ = AGES[age]
    r = rng(seed, f"assembly_bills_{age}")
    span = (end - start).days
    # early months are busy (bills re-filed after the election), so skew towards the start
    offsets = sorted(int(span * (r.random() ** 1.15)) for _ in range(count))
    members = range(n_members)
    activity = list(itertools.accumulate(min(12.0, r.paretovariate(1.6)) for _ in members))
    last_plenary = plenaries(seed, age)[-1].day
    out: list[Bill] = []
    no = age * 100000
    for off in offsets:
        no += 1 + (r.random() < 0.12) * r.randint(1, 3)
        propose = start + timedelta(days=off)
        u = r.random()
        kind = 0 if u < 0.9 else 1 if u < 0.92 else 2
        lead = r.choices(members, cum_weights=activity)[0]
        n_co = 9 + int(r.expovariate(1 / 5)) if r.random() > 0.01 else r.randint(100, 180)
        result, proc, stage = _result(r, age, propose, end)
        law = r.randrange(len(PASSED_LAWS)) if result in ("원안가결", "수정가결") else \
            r.choices(_LAW_IDX, cum_weights=_LAW_CUM)[0]
        if kind == 2 and result not in ("원안가결", "수정가결"):
            law = -1 - r.randrange(len(_NEW_LAWS))
        cmt_present = cmt_proc = law_present = None
        if result in ("원안가결", "수정가결", "부결"):
            target = propose + timedelta(days=r.randint(40, 420))
            plen = next_plenary(seed, age, target) if target <= last_plenary else None
            if plen is None:
                result, proc = ("임기만료폐기", end) if age < 22 else (None, None)
                stage = 2 if age == 22 else 0
            else:
                proc = plen.day
                law_present = proc - timedelta(days=r.randint(1, 12))
                cmt_proc = law_present - timedelta(days=r.randint(2, 40))
                cmt_present = cmt_proc - timedelta(days=r.randint(0, 60))
        elif result == "대안반영폐기" and proc is not None:
            cmt_proc = proc
            cmt_present = proc - timedelta(days=r.randint(0, 30))
        if result is None and stage >= 1:
            cmt_present = min(TODAY, propose + timedelta(days=r.randint(20, 200)))
            if stage >= 2:
                cmt_proc = min(TODAY, cmt_present + timedelta(days=r.randint(0, 40)))
            if stage >= 3:
                law_present = min(TODAY, (cmt_proc or cmt_present) + timedelta(days=5))
        if cmt_present is not None and cmt_present < propose:
            cmt_present = propose + timedelta(days=7)
        out.append(Bill(age, no, law, kind, lead, n_co, propose, result, proc, stage,
                        cmt_present, cmt_proc, law_present))
    return tuple(out)


def _result(r: random.Random, age: int, propose: date,
            end: date) -> tuple[str | None, date | None, int]:
    """(PROC_RESULT, PROC_DT, pending stage) of one bill, before the plenary calendar."""
    u = r.random()
    if age < 22:
        if u < 0.04:
            return "원안가결", None, 0
        if u < 0.08:
            return "수정가결", None, 0
        if u < 0.081:
            return "부결", None, 0
        if u < 0.105:
            return "철회", min(end, propose + timedelta(days=r.randint(2, 90))), 0
        if u < 0.36:
            return "대안반영폐기", min(end, propose + timedelta(days=r.randint(60, 700))), 0
        return "임기만료폐기", end, 0
    age_days = (TODAY - propose).days
    p_done = min(0.5, age_days / 500 * 0.5)
    if u < p_done:
        v = r.random()
        if v < 0.12:
            return "원안가결", None, 0
        if v < 0.24:
            return "수정가결", None, 0
        if v < 0.25:
            return "부결", None, 0
        if v < 0.35:
            return "철회", min(TODAY, propose + timedelta(days=r.randint(2, 60))), 0
        return "대안반영폐기", min(TODAY, propose + timedelta(days=r.randint(40, 400))), 0
    v = r.random()
    stage = 0 if v < 0.5 else 1 if v < 0.9 else 2 if v < 0.96 else 3 if v < 0.992 else 4
    return None, None, min(stage, age_days // 45)  # a young bill has not gone far yet
