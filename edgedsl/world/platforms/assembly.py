"""열린국회정보 (``open.assembly.go.kr/portal/openapi``): bills, proposers, votes, members.

Family B (``hub``): ``KEY``, ``Type=json``, ``pIndex`` / ``pSize`` (at most 1,000 → ``ERROR-336``),
sample mode (5 rows) without a key. Service codes are the real opaque strings. Members of the
20th–22nd assemblies are the 총선 winners of the NEC world (:func:`.nec.universe`): same names,
``ORIG_NM`` the normalised NEC district, ``MONA_CD`` = proposer ``NASS_CD`` = ``NAAS_CD``.

Three world-only write tools simulate 국민참여입법센터 opinions on bills in 입법예고 (the real
Open API has no write operation): an opinion is registered, listed and withdrawn; they live in
``world.state["assembly"]``. Like 국민참여입법센터's form, an opinion's fields have a length
(:data:`OPINION_MAX_LEN`); a key registers at most ``Limits.items_per_key`` opinions (a withdrawn
one is kept, marked ``DEL_YN``, and still counts).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..rand import hash_unit, rng
from .assembly_data import (
    AGES,
    COMMITTEES,
    TODAY,
    Bill,
    bill_id,
    bills,
    iso,
    plenaries,
)
from .nec import Person, universe
from .nec_data import (
    assembly_party,
    district_name_short,
    hanja_of,
    person_name,
    roman_of,
)

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "Member", "bill_row", "members"]

PLATFORM = "assembly"
BASE = "/portal/openapi"
PAGING = Paging(page="pIndex", size="pSize", default_size=100, max_size=1000, over_max="error")
"""hub paging: ``pIndex``/``pSize`` (default 100); more than 1,000 rows is ``ERROR-336``."""

_LINK = "https://likms.assembly.go.kr/bill/billDetail.do?billId="
_SPLIT_22 = ("진보당", "기본소득당", "사회민주당")  # 더불어민주연합 members who went back


@dataclass(frozen=True, slots=True)
class Member:
    """One member of one assembly, as 열린국회 shows them."""

    person: Person
    name: str
    mona: str
    poly: str
    orig: str
    elect: str
    committee: str


@cache
def _members(seed: int, age: int) -> tuple[Member, ...]:
    u = universe(seed)
    out: list[Member] = []
    split = 0
    for p in sorted(u.members[age], key=lambda p: p.pid):
        party, sd, sgg, elect = p.terms[age]
        poly = assembly_party(age, party)
        if age == 22 and party == "더불어민주연합" and split < len(_SPLIT_22):
            poly, split = _SPLIT_22[split], split + 1
        orig = "비례대표" if elect == "비례대표" else district_name_short(sd, sgg)
        cmit = COMMITTEES[int(hash_unit(seed, "cmit", age, p.pid) * 16)][0]
        out.append(Member(p, p.name, p.mona, poly, orig, elect, cmit))
    return tuple(out)


def members(world: World, age: int) -> tuple[Member, ...]:
    """The 300 members of assembly ``age`` (20, 21 or 22) in the world of ``world``."""
    return _members(world.seed, age)


def _age(params: Mapping[str, str], key: str = "AGE") -> int | None:
    raw = params.get(key, "").strip()
    return int(raw) if raw.isdigit() and int(raw) in AGES else None


def _bills(seed: int, age: int) -> tuple[Bill, ...]:
    return bills(seed, age, len(_members(seed, age)))


@cache
def _by_id(seed: int) -> dict[str, Bill]:
    return {_ids(seed, age)[b.no]: b for age in AGES for b in _bills(seed, age)}


@cache
def _pools(seed: int, age: int) -> dict[str, tuple[list[Member], list[Member]]]:
    """party → (its members, everyone else) in assembly ``age``, shuffled once and doubled
    (so that a window of consecutive members is one slice)."""
    ms = _members(seed, age)
    r = rng(seed, f"assembly_pools_{age}")
    out = {}
    for poly in sorted({m.poly for m in ms}):
        same = [m for m in ms if m.poly == poly]
        other = [m for m in ms if m.poly != poly]
        r.shuffle(same)
        r.shuffle(other)
        out[poly] = (same + same, other + other)
    return out


@cache
def _ids(seed: int, age: int) -> dict[int, str]:
    return {b.no: bill_id(seed, age, b.no) for b in _bills(seed, age)}


def _co_proposers(seed: int, b: Bill) -> list[Member]:
    """The co-proposers of ``b``: mostly of the lead proposer's party (a deterministic window
    of the party's shuffled members), the rest from the other parties."""
    lead = _members(seed, b.age)[b.lead]
    same2, other2 = _pools(seed, b.age)[lead.poly]
    n_party, n_other = len(same2) // 2, len(other2) // 2
    h = (b.no * 2654435761 + seed * 40503) & 0xFFFFFFFF
    n_same = min(n_party - 1, b.n_co * (70 + h % 31) // 100)
    start = (h >> 8) % n_party
    picked = [m for m in same2[start:start + n_same + 1] if m is not lead][:n_same]
    rest = min(n_other, b.n_co - len(picked))
    start = (h >> 16) % max(1, n_other)
    return picked + other2[start:start + rest]


def _referred(b: Bill) -> date | None:
    """회부일: a few days after the proposal (None while not yet referred)."""
    d = b.propose + timedelta(days=1 + b.no % 5)
    return d if d <= TODAY else None


def bill_row(seed: int, b: Bill) -> Row:
    """The ``nzmimeepazxkubdpn`` row of bill ``b``."""
    lead = _members(seed, b.age)[b.lead]
    bid = _ids(seed, b.age)[b.no]
    cmt, cmt_id = b.committee
    co = _co_proposers(seed, b)
    passed = b.result in ("원안가결", "수정가결", "부결")
    return {
        "BILL_ID": bid, "BILL_NO": str(b.no), "BILL_NAME": b.name, "COMMITTEE": cmt,
        "PROPOSE_DT": iso(b.propose), "PROC_RESULT": b.result, "AGE": str(b.age),
        "DETAIL_LINK": _LINK + bid, "PROPOSER": f"{lead.name}의원 등 {b.n_co + 1}인",
        "MEMBER_LIST": f"https://likms.assembly.go.kr/bill/coactorListPopup.do?billId={bid}",
        "LAW_PROC_DT": iso(b.law_present) if passed else None,
        "LAW_PRESENT_DT": iso(b.law_present) if passed else None,
        "LAW_SUBMIT_DT": iso(b.cmt_proc + timedelta(days=1)) if passed and b.cmt_proc else None,
        "CMT_PROC_RESULT_CD": ("대안반영폐기" if b.result == "대안반영폐기" else
                               "원안가결" if b.cmt_proc else None),
        "CMT_PROC_DT": iso(b.cmt_proc), "CMT_PRESENT_DT": iso(b.cmt_present),
        "COMMITTEE_DT": iso(_referred(b)),
        "PROC_DT": iso(b.proc), "COMMITTEE_ID": cmt_id, "PUBL_PROPOSER": ",".join(
            m.name for m in co), "LAW_PROC_RESULT_CD": "수정가결" if passed and b.no % 3 == 0
        else "원안가결" if passed else None,
        "RST_PROPOSER": lead.name, "RST_MONA_CD": lead.mona,
        "PUBL_MONA_CD": ",".join(m.mona for m in co),
    }


@lru_cache(maxsize=1)
def _all_bill_rows(seed: int, age: int) -> tuple[Row, ...]:
    """Every row of one assembly, newest first (one assembly cached: ~50 MB, ~1 s to build)."""
    return tuple(bill_row(seed, b) for b in reversed(_bills(seed, age)))


def bill_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """Candidate rows of ``nzmimeepazxkubdpn`` (newest first).

    A selective request (bill id or number, name or proposer) materialises only its matches;
    a broad one reads the cached rows of the whole assembly (so that paging is cheap).
    """
    age = _age(params)
    if age is None:
        return ()
    no = params.get("BILL_NO", "").strip()
    bid = params.get("BILL_ID", "").strip()
    name = params.get("BILL_NAME", "").strip()
    ppsr = params.get("PROPOSER", "").strip()
    if not (no or bid or name or ppsr):
        return _all_bill_rows(world.seed, age)
    ms = _members(world.seed, age)
    ids = _ids(world.seed, age)
    return [bill_row(world.seed, b) for b in reversed(_bills(world.seed, age))
            if not ((no and str(b.no) != no) or (name and name not in b.name)
                    or (bid and ids[b.no] != bid)
                    or (ppsr and ppsr not in f"{ms[b.lead].name}의원 등 {b.n_co + 1}인"))]


def _bill_from(world: World, params: Mapping[str, str]) -> Bill | None:
    b = _by_id(world.seed).get(params.get("BILL_ID", "").strip())
    age = params.get("AGE", "").strip()
    return None if b is None or (age and age != str(b.age)) else b


def allbill_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``ALLBILL``: the integrated record of the bill ``BILL_NO`` (any assembly)."""
    no = params.get("BILL_NO", "").strip()
    age = int(no[:2]) if len(no) == 7 and no.isdigit() and int(no[:2]) in AGES else None
    if age is None:
        return []
    hit = [b for b in _bills(world.seed, age) if str(b.no) == no]
    if not hit:
        return []
    b = hit[0]
    row = bill_row(world.seed, b)
    passed = b.result in ("원안가결", "수정가결")
    plen = next((p for p in plenaries(world.seed, b.age) if p.day == b.proc), None)
    prom = b.proc + timedelta(days=14 + b.no % 12) if passed and b.proc else None
    return [{
        "BILL_ID": row["BILL_ID"], "BILL_NO": row["BILL_NO"], "BILL_NM": b.name,
        "BILL_KND": "법률안", "PPSR_KIND": "의원", "PPSR": row["PROPOSER"],
        "PPSL_DT": row["PROPOSE_DT"], "PPSL_SESS": f"제{plen.session if plen else ''}회",
        "JRCMIT_NM": row["COMMITTEE"], "JRCMIT_CMMT_DT": row["COMMITTEE_DT"],
        "JRCMIT_PRSNT_DT": row["CMT_PRESENT_DT"], "JRCMIT_PROC_DT": row["CMT_PROC_DT"],
        "JRCMIT_PROC_RSLT": row["CMT_PROC_RESULT_CD"], "LAW_CMMT_DT": row["LAW_SUBMIT_DT"],
        "LAW_PRSNT_DT": row["LAW_PRESENT_DT"], "LAW_PROC_DT": row["LAW_PROC_DT"],
        "LAW_PROC_RSLT": row["LAW_PROC_RESULT_CD"],
        "RGS_PRSNT_DT": iso(b.proc) if plen else None, "RGS_RSLN_DT": iso(b.proc) if plen
        else None, "RGS_CONF_NM": f"제{plen.session}회 제{plen.cha}차 본회의" if plen else None,
        "RGS_CONF_RSLT": b.result if plen else None,
        "GVRN_TRSF_DT": iso(b.proc + timedelta(days=3)) if passed and b.proc else None,
        "PROM_LAW_NM": b.law_name if passed else None, "PROM_DT": iso(prom),
        "PROM_NO": str(19000 + b.no % 3000) if passed else None,
        "PROC_RESULT_CD": b.result, "LINK_URL": row["DETAIL_LINK"],
    }]


def proposer_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``BILLINFOPPSR``: the lead and co-proposers of ``BILL_ID`` (capped at 100 rows)."""
    b = _bill_from(world, {"BILL_ID": params.get("BILL_ID", "")})
    if b is None:
        return []
    bid = bill_id(world.seed, b.age, b.no)
    lead = _members(world.seed, b.age)[b.lead]
    rows = [{"BILL_ID": bid, "PPSR_NM": m.name, "PPSR_POLY_NM": m.poly,
             "REP_DIV": "대표발의" if i == 0 else "공동발의", "PPSR_KIND": "의원",
             "NASS_CD": m.mona, "PPSR_ROLE": "대표발의자" if i == 0 else "공동발의자"}
            for i, m in enumerate([lead, *_co_proposers(world.seed, b)])]
    return rows[:100]


def _voted(seed: int, age: int) -> Iterator[Bill]:
    for b in reversed(_bills(seed, age)):
        if b.result in ("원안가결", "수정가결", "부결"):
            yield b


def _tally(seed: int, b: Bill) -> tuple[int, int, int, int, int]:
    """(MEMBER_TCNT, VOTE_TCNT, YES_TCNT, NO_TCNT, BLANK_TCNT) of a voted bill."""
    r = random.Random(f"{seed}/tally/{b.age}/{b.no}")
    total = len(_members(seed, b.age))
    vote = total - r.randint(15, 70)
    blank = r.randint(0, 12)
    if b.result == "부결":
        no = r.randint(vote // 2 + 1, vote - blank - 20)
    else:
        no = r.randint(60, 105) if r.random() < 0.12 else r.randint(0, 8)
    return total, vote, vote - no - blank, no, blank


def _vote_base(seed: int, b: Bill) -> Row:
    row = bill_row(seed, b)
    return {"BILL_ID": row["BILL_ID"], "BILL_NO": row["BILL_NO"], "BILL_NAME": b.name,
            "AGE": str(b.age), "CURR_COMMITTEE": row["COMMITTEE"],
            "CURR_COMMITTEE_ID": row["COMMITTEE_ID"], "LINK_URL": row["DETAIL_LINK"]}


def plenary_bill_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``nwbpacrgavhjryiph`` (본회의 처리안건_법률안): voted member bills with tallies."""
    age = _age(params)
    if age is None:
        return
    for b in _voted(world.seed, age):
        row = bill_row(world.seed, b)
        _, vote, yes, no, blank = _tally(world.seed, b)
        yield {"AGE": str(age), "BILL_NO": row["BILL_NO"], "BILL_NM": b.name,
               "BILL_KIND": "법률안", "PROPOSER": row["PROPOSER"],
               "COMMITTEE_NM": row["COMMITTEE"], "PROC_RESULT_CD": b.result,
               "VOTE_TCNT": str(vote), "YES_TCNT": str(yes), "NO_TCNT": str(no),
               "BLANK_TCNT": str(blank), "PROPOSE_DT": row["PROPOSE_DT"],
               "COMMITTEE_SUBMIT_DT": row["COMMITTEE_DT"],
               "COMMITTEE_PRESENT_DT": row["CMT_PRESENT_DT"],
               "COMMITTEE_PROC_DT": row["CMT_PROC_DT"], "LAW_SUBMIT_DT": row["LAW_SUBMIT_DT"],
               "LAW_PRESENT_DT": row["LAW_PRESENT_DT"], "LAW_PROC_DT": row["LAW_PROC_DT"],
               "RGS_PRESENT_DT": row["PROC_DT"], "RGS_PROC_DT": row["PROC_DT"],
               "CURR_TRANS_DT": iso(b.proc + timedelta(days=3)) if b.proc and
               b.result != "부결" else None,
               "ANNOUNCE_DT": iso(b.proc + timedelta(days=14 + b.no % 12)) if b.proc and
               b.result != "부결" else None,
               "BILL_ID": row["BILL_ID"], "LINK_URL": row["DETAIL_LINK"],
               "CURR_COMMITTEE_ID": row["COMMITTEE_ID"]}


def vote_summary_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``ncocpgfiaoituanbr`` (의안별 표결현황): one row per voted bill; counts are numbers."""
    age = _age(params)
    if age is None:
        return
    no = params.get("BILL_NO", "").strip()
    name = params.get("BILL_NAME", "").strip()
    for b in _voted(world.seed, age):
        if (no and str(b.no) != no) or (name and name not in b.name):
            continue
        total, vote, yes, nay, blank = _tally(world.seed, b)
        yield {**_vote_base(world.seed, b), "PROC_DT": iso(b.proc), "PROC_RESULT_CD": b.result,
               "BILL_KIND_CD": "법률안", "MEMBER_TCNT": total, "VOTE_TCNT": vote,
               "YES_TCNT": yes, "NO_TCNT": nay, "BLANK_TCNT": blank}


def vote_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``nojepdqqaweusdfbi``: every member's vote on ``BILL_ID`` (찬성/반대/기권/불참)."""
    b = _bill_from(world, params)
    if b is None or b.result not in ("원안가결", "수정가결", "부결") or b.proc is None:
        return []
    seed = world.seed
    ms = _members(seed, b.age)
    total, vote, _yes, nay, blank = _tally(seed, b)
    lead = ms[b.lead]
    key = f"{b.age}/{b.no}"
    absent = set(sorted(range(len(ms)), key=lambda i: hash_unit(seed, "abs", key, i))
                 [: total - vote])
    present = [i for i in range(len(ms)) if i not in absent]
    present.sort(key=lambda i: -(hash_unit(seed, "vote", key, i)
                                 + (1.0 if ms[i].poly != lead.poly else 0.0)))
    mod = {i: "불참" for i in absent}
    for k, i in enumerate(present):
        mod[i] = "반대" if k < nay else "기권" if k < nay + blank else "찬성"
    base = _vote_base(seed, b)
    plen = next((p for p in plenaries(seed, b.age) if p.day == b.proc), None)
    r = random.Random(f"{seed}/votetime/{key}")
    stamp = f"{b.proc:%Y%m%d} {r.randint(14, 17):02d}{r.randint(0, 59):02d}{r.randint(0, 59):02d}"
    rows = []
    for n, i in enumerate(sorted(range(len(ms)), key=lambda i: (ms[i].name, ms[i].mona)), 1):
        m = ms[i]
        rows.append({"HG_NM": m.name, "HJ_NM": hanja_of(m.name), "POLY_NM": m.poly,
                     "ORIG_NM": m.orig, "MEMBER_NO": str(n), "POLY_CD": "",
                     "ORIG_CD": "", "VOTE_DATE": stamp, "BILL_NO": base["BILL_NO"],
                     "BILL_NAME": b.name, "BILL_ID": base["BILL_ID"], "LAW_TITLE": b.law_name,
                     "CURR_COMMITTEE": base["CURR_COMMITTEE"], "RESULT_VOTE_MOD": mod[i],
                     "DEPT_CD": "", "CURR_COMMITTEE_ID": base["CURR_COMMITTEE_ID"],
                     "DISP_ORDER": n, "BILL_URL": base["LINK_URL"],
                     "BILL_NAME_URL": base["LINK_URL"],
                     "SESSION_CD": plen.session if plen else None,
                     "CURRENTS_CD": plen.cha if plen else None, "AGE": b.age,
                     "MONA_CD": m.mona})
    return rows


# ------------------------------------------------------------------ members

_OLD_PARTIES = {19: ("민주통합당", "새누리당"), 18: ("통합민주당", "한나라당"),
                17: ("열린우리당", "한나라당"), 16: ("새천년민주당", "한나라당"),
                15: ("새정치국민회의", "신한국당"), 14: ("민주당", "민주자유당"),
                13: ("평화민주당", "민주정의당"), 12: ("신한민주당", "민주정의당"),
                11: ("민주한국당", "민주정의당"), 10: ("신민당", "민주공화당"),
                9: ("신민당", "민주공화당"), 8: ("신민당", "민주공화당"),
                7: ("신민당", "민주공화당"), 6: ("신민당", "민주공화당"),
                5: ("민정당", "민주공화당"), 4: ("민주당", "자유당"), 3: ("민주당", "자유당"),
                2: ("민주국민당", "자유당"), 1: ("한국민주당", "대한독립촉성국민회")}
_RIGHT = frozenset(("새누리당", "미래통합당", "미래한국당", "국민의힘", "국민의미래", "자유한국당"))
_HISTORIC_TOTAL = 3286


@dataclass(frozen=True, slots=True)
class _Term:
    age: int
    party: str
    orig: str
    elect: str
    committee: str


def _reelect(n: int) -> str:
    return "초선" if n == 1 else "재선" if n == 2 else f"{n}선"


@cache
def _careers(seed: int) -> dict[int, list[_Term]]:
    """pid → every term of a 20th–22nd assembly member (earlier terms invented by hash)."""
    out: dict[int, list[_Term]] = {}
    for age in (20, 21, 22):
        for m in _members(seed, age):
            p = m.person
            terms = out.setdefault(p.pid, [])
            if not terms:
                u = hash_unit(seed, "prior", p.pid)
                cuts = (0.4, 0.65, 0.8, 0.9, 0.96) if age == 20 else (0.88, 0.96, 1.0)
                k = sum(1 for c in cuts if u >= c)
                side = 1 if p.terms[age][0] in _RIGHT else 0
                for a in range(20 - k, 20):
                    if m.elect == "지역구":
                        terms.append(_Term(a, _OLD_PARTIES[a][side], m.orig, "지역구", ""))
            terms.append(_Term(age, p.terms[age][0], m.orig, m.elect, m.committee))
    return out


def current_member_rows(world: World) -> list[Row]:
    """``nwvrqwxyaytdsfvhu``: the 300 members of the 22nd assembly."""
    careers = _careers(world.seed)
    rows = []
    for m in _members(world.seed, 22):
        p, terms = m.person, careers[m.person.pid]
        r = random.Random(f"{world.seed}/member/{p.pid}")
        others = r.sample([c for c, _ in COMMITTEES if c != m.committee], 2)
        rows.append({
            "HG_NM": m.name, "HJ_NM": hanja_of(m.name), "ENG_NM": roman_of(m.name),
            "BTH_GBN_NM": "음" if r.random() < 0.08 else "양",
            "BTH_DATE": f"{p.birth[:4]}-{p.birth[4:6]}-{p.birth[6:]}",
            "JOB_RES_NM": r.choice(("위원", "위원", "위원", "간사")), "POLY_NM": m.poly,
            "ORIG_NM": m.orig, "ELECT_GBN_NM": m.elect, "CMIT_NM": m.committee,
            "CMITS": ", ".join([m.committee, *others[:1]]),
            "REELE_GBN_NM": _reelect(len(terms)),
            "UNITS": ", ".join(f"제{t.age}대" for t in terms),
            "SEX_GBN_NM": p.gender, "TEL_NO": f"02-784-{1000 + p.pid % 9000:04d}",
            "E_MAIL": roman_of(m.name).replace(" ", "").lower() + "@assembly.go.kr",
            "HOMEPAGE": "", "STAFF": person_name(r), "SECRETARY": person_name(r),
            "SECRETARY2": ", ".join(person_name(r) for _ in range(3)), "MONA_CD": m.mona,
            "MEM_TITLE": f"{terms[-1].party} 소속 제22대 국회의원",
            "ASSEM_ADDR": f"의원회관 {r.randint(3, 10)}{r.randint(1, 50):02d}호",
        })
    return rows


def _all_member_row(code: str, name: str, gender: str, birth: str, terms: list[_Term],
                    current: str) -> Row:
    return {
        "NAAS_CD": code, "NAAS_NM": name, "NAAS_CH_NM": hanja_of(name),
        "NAAS_EN_NM": roman_of(name), "BIRDY_DIV_CD": "양", "BIRDY_DT": birth,
        "DTY_NM": None, "PLPT_NM": "/".join(t.party for t in terms),
        "ELECD_NM": "/".join(t.orig for t in terms),
        "ELECD_DIV_NM": "/".join(t.elect for t in terms), "CMIT_NM": current or None,
        "BLNG_CMIT_NM": ", ".join(dict.fromkeys(t.committee for t in terms if t.committee))
        or None, "RLCT_DIV_NM": _reelect(len(terms)),
        "GTELT_ERACO": ", ".join(f"제{t.age}대" for t in terms), "NTR_DIV": gender,
        "NAAS_TEL_NO": None, "NAAS_EMAIL_ADDR": None, "NAAS_HP_URL": None, "AIDE_NM": None,
        "CHF_SCRT_NM": None, "SCRT_NM": None, "BRF_HST": None, "OFFM_RNUM_NO": None,
        "NAAS_PIC": f"https://www.assembly.go.kr/static/portal/img/HninfoImg/{code}.jpg",
    }


def all_member_rows(world: World) -> list[Row]:
    """``ALLNAMEMBER``: every member of every assembly (~3,300), term fields slash-joined."""
    seed = world.seed
    careers = _careers(seed)
    people = universe(seed).people
    current = {m.person.pid: m.committee for m in _members(seed, 22)}
    rows = []
    for pid, terms in careers.items():
        p = people[pid]
        rows.append(_all_member_row(p.mona, p.name, p.gender,
                                    f"{p.birth[:4]}-{p.birth[4:6]}-{p.birth[6:]}", terms,
                                    current.get(pid, "")))
    r = rng(seed, "assembly_historic")
    used = {row["NAAS_CD"] for row in rows}
    sidos = ("서울", "부산", "대구", "인천", "광주", "대전", "경기", "강원", "충북", "충남",
             "전북", "전남", "경북", "경남", "제주")
    while len(rows) < _HISTORIC_TOTAL:
        code = "".join(r.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(8))
        if code in used:
            continue
        used.add(code)
        name = person_name(r, r.random() < 0.05)
        n = r.choices((1, 2, 3, 4, 5), (60, 22, 10, 5, 3))[0]
        start = r.randint(1, 20 - n)
        side = r.randint(0, 1)
        orig = f"{r.choice(sidos)} {r.choice(('중', '동', '서', '남', '북', '갑', '을'))}구"
        terms = [_Term(a, _OLD_PARTIES[a][side], orig if r.random() < 0.85 else
                       ("전국구" if a <= 16 else "비례대표"), "지역구", "") for a in
                 range(start, start + n)]
        terms = [t if t.orig not in ("전국구", "비례대표") else
                 _Term(t.age, t.party, t.orig, t.orig, "") for t in terms]
        year = 1948 + (start - 1) * 4 - r.randint(30, 60)
        rows.append(_all_member_row(code, name, "여" if name[2] in "희숙연아" else "남",
                                    f"{year}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
                                    terms, ""))
    return rows


# ------------------------------------------------------------------ pending bills, agenda


def _pending(seed: int) -> Iterator[Bill]:
    for b in reversed(_bills(seed, 22)):
        if b.result is None:
            yield b


def _law_proc(b: Bill) -> date | None:
    if b.stage < 4 or b.law_present is None:
        return None
    return min(TODAY, b.law_present + timedelta(days=b.no % 5))


def pending_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``nwbqublzajtcqpdae`` (계류의안): 22nd-assembly member bills still pending."""
    if params.get("AGE", "").strip() not in ("", "22"):
        return
    for b in _pending(world.seed):
        row = bill_row(world.seed, b)
        yield {"BILL_ID": row["BILL_ID"], "BILL_NO": row["BILL_NO"], "BILL_NAME": b.name,
               "PROPOSER": row["PROPOSER"], "PROPOSER_KIND": "의원",
               "PROPOSE_DT": row["PROPOSE_DT"], "CURR_COMMITTEE": row["COMMITTEE"],
               "CURR_COMMITTEE_ID": row["COMMITTEE_ID"], "COMMITTEE_DT": row["COMMITTEE_DT"],
               "CMT_PRESENT_DT": row["CMT_PRESENT_DT"], "CMT_PROC_DT": row["CMT_PROC_DT"],
               "LAW_PRESENT_DT": iso(b.law_present), "LAW_PROC_DT": iso(_law_proc(b)),
               "LINK_URL": row["DETAIL_LINK"], "AGE": "22"}


def agenda_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``nayjnliqaexiioauy`` (본회의부의안건): pending bills already through 법사위."""
    if params.get("AGE", "").strip() not in ("", "22"):
        return
    for b in _pending(world.seed):
        if b.stage < 4:
            continue
        row = bill_row(world.seed, b)
        yield {"BILL_ID": row["BILL_ID"], "BILL_NO": row["BILL_NO"], "AGE": "22",
               "BILL_NAME": b.name, "CURR_COMMITTEE_ID": row["COMMITTEE_ID"],
               "CURR_COMMITTEE": row["COMMITTEE"], "PROC_DT": None,
               "COMMITTEE_RESULT": "수정가결" if b.no % 2 else "원안가결",
               "LINK_URL": row["DETAIL_LINK"], "COMMITTEE_PROC_DT": row["CMT_PROC_DT"],
               "CMT_PRESENT_DT": row["CMT_PRESENT_DT"],
               "LAW_SUBMIT_DT": iso(b.cmt_proc + timedelta(days=1)) if b.cmt_proc else None,
               "LAW_PRESENT_DT": iso(b.law_present), "LAW_PROC_DT": iso(_law_proc(b)),
               "LAW_PROC_RESULT_CD": "원안가결", "COMMITTEE_DT": row["COMMITTEE_DT"]}


def _notice_end(b: Bill) -> date:
    return b.propose + timedelta(days=13)


def notice_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``nknalejkafmvgzmpt`` (진행중 입법예고): bills whose notice period has not ended."""
    if params.get("AGE", "").strip() not in ("", "22"):
        return
    for b in _pending(world.seed):
        if _notice_end(b) < TODAY:
            break
        row = bill_row(world.seed, b)
        yield {"BILL_ID": row["BILL_ID"], "BILL_NO": row["BILL_NO"], "BILL_NAME": b.name,
               "AGE": "22", "PROPOSER_KIND_CD": "의원", "CURR_COMMITTEE": row["COMMITTEE"],
               "NOTI_ED_DT": iso(_notice_end(b)),
               "LINK_URL": f"https://pal.assembly.go.kr/napal/lgsltpa/lgsltpaOngoing/view.do?lgsltPaId={row['BILL_ID']}",
               "PROPOSER": row["PROPOSER"], "CURR_COMMITTEE_ID": row["COMMITTEE_ID"]}


def schedule_rows(world: World) -> list[Row]:
    """``nekcaiymatialqlxr`` (본회의 일정) of the 20th–22nd assemblies (typo MEETTING_ kept)."""
    rows = []
    for age in AGES:
        for p in plenaries(world.seed, age):
            kind = "정기회" if p.regular else "임시회"
            rows.append({"MEETINGSESSION": f"제{p.session}회", "CHA": f"제{p.cha}차",
                         "TITLE": f"제{p.session}회 국회({kind}) 제{p.cha}차 본회의",
                         "MEETTING_DATE": iso(p.day), "MEETTING_TIME": "14:00",
                         "LINK_URL": "https://www.assembly.go.kr/portal/cnts/cntsCont/"
                                     f"dataA.do?cntsDivCd=PLNM&unitCd=1000{age}",
                         "UNIT_CD": f"1000{age}", "UNIT_NM": f"제{age}대"})
    return rows


# ------------------------------------------------------------------ opinions (world-only writes)


def _opinion_state(world: World) -> dict[str, object]:
    st = world.state.setdefault("assembly", {"opinions": [], "next_id": 1})
    assert isinstance(st, dict)
    return st


def _opinions(world: World) -> list[Row]:
    ops = _opinion_state(world)["opinions"]
    assert isinstance(ops, list)
    return ops


def submit_opinion(world: World, params: Mapping[str, str]) -> Row:
    """Register an opinion on a bill in 입법예고; answers the stored record with its ``OPN_ID``."""
    from ..engine import WorldError

    b = _bill_from(world, {"BILL_ID": params.get("BILL_ID", "")})
    if b is None or b.age != 22 or b.result is not None or _notice_end(b) < TODAY:
        raise WorldError("no_data", "the bill is not in 입법예고")
    agree = params.get("AGRE_DSAGRE", "").strip()
    if agree not in ("찬성", "반대"):
        raise WorldError("bad_param", f"AGRE_DSAGRE={agree!r}")
    st = _opinion_state(world)
    n = st["next_id"]
    assert isinstance(n, int)
    st["next_id"] = n + 1
    rec: Row = {"OPN_ID": f"OPN{n:07d}", "BILL_ID": bill_id(world.seed, 22, b.no),
                "BILL_NO": str(b.no), "BILL_NAME": b.name,
                "WRTR_NM": params.get("WRTR_NM", "").strip(),
                "SBJCT": params.get("SBJCT", "").strip(), "CN": params.get("CN", "").strip(),
                "AGRE_DSAGRE": agree, "REG_DT": iso(TODAY), "DEL_YN": "N"}
    _opinions(world).append(rec)
    return dict(rec)


def withdraw_opinion(world: World, params: Mapping[str, str]) -> Row:
    """Withdraw (soft-delete) one's own opinion ``OPN_ID``; answers the updated record."""
    from ..engine import WorldError

    oid, who = params.get("OPN_ID", "").strip(), params.get("WRTR_NM", "").strip()
    for rec in _opinions(world):
        if rec["OPN_ID"] == oid and rec["WRTR_NM"] == who and rec["DEL_YN"] == "N":
            rec["DEL_YN"] = "Y"
            return dict(rec)
    raise WorldError("no_data", f"no opinion {oid!r} by {who!r}")


def opinion_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """The opinions (not withdrawn) registered on ``BILL_ID``, oldest first."""
    bid = params.get("BILL_ID", "").strip()
    return [dict(r) for r in _opinions(world) if r["BILL_ID"] == bid and r["DEL_YN"] == "N"]


# ------------------------------------------------------------------ declarations

DATASETS: tuple[Dataset, ...] = (
    Dataset("assembly_bills", rows=bill_rows,
            doc="국회의원 발의법률안: 21,594 / 23,655 / 15,676 bills of the 20th–22nd"),
    Dataset("assembly_allbill", rows=allbill_rows, doc="의안정보 통합 of one BILL_NO"),
    Dataset("assembly_proposers", rows=proposer_rows, doc="의안 제안자 (≤ 100 per bill)"),
    Dataset("assembly_plenary_bills", rows=plenary_bill_rows,
            doc="본회의 처리안건_법률안 with tallies"),
    Dataset("assembly_vote_summary", rows=vote_summary_rows, doc="의안별 표결현황"),
    Dataset("assembly_votes", rows=vote_rows, doc="의원별 본회의 표결 (~300 per voted bill)"),
    Dataset("assembly_members", build=current_member_rows, index=("HG_NM", "MONA_CD"),
            doc="국회의원 인적사항: 300 members of the 22nd assembly"),
    Dataset("assembly_all_members", build=all_member_rows, index=("NAAS_CD",),
            doc="역대 국회의원: ~3,300 members, per-term fields slash-joined"),
    Dataset("assembly_pending", rows=pending_rows, doc="계류의안 of the 22nd assembly"),
    Dataset("assembly_agenda", rows=agenda_rows, doc="본회의부의안건"),
    Dataset("assembly_schedule", build=schedule_rows, index=("UNIT_CD",), doc="본회의 일정"),
    Dataset("assembly_notices", rows=notice_rows, doc="진행중 입법예고"),
    Dataset("assembly_opinions", rows=opinion_rows, stateful=True,
            doc="입법예고 의견 (world state)"),
)


def _ep(tool: str, service: str, dataset: str, filters: tuple[Filter, ...] = (),
        required: tuple[str, ...] = (), params: tuple[str, ...] = (),
        sort: tuple[tuple[str, bool], ...] = ()) -> Endpoint:
    return Endpoint(platform=PLATFORM, tool=tool, path=f"{BASE}/{service}", dialect="hub",
                    dataset=dataset, service=service, filters=filters, required=required,
                    params=params, paging=PAGING, sort=sort)


OPINION_MAX_LEN = {"BILL_ID": 40, "OPN_ID": 20, "WRTR_NM": 50, "SBJCT": 200, "CN": 4000,
                   "AGRE_DSAGRE": 2}
"""The longest value (characters) of each opinion field the service takes (the world's
choice, in the range of the 입법예고 opinion forms: a name, a one-line subject, a 4,000-character
text); a longer one is refused (``ERROR-340``), never cut."""


def _write(tool: str, service: str, fn: object, required: tuple[str, ...], *,
           grows: bool = True) -> Endpoint:
    assert callable(fn)
    return Endpoint(platform=PLATFORM, tool=tool, path=f"{BASE}/{service}", dialect="hub",
                    service=service, required=required, method="POST", write=fn,
                    max_len=OPINION_MAX_LEN, grows=grows)


_F = Filter
ENDPOINTS: tuple[Endpoint, ...] = (
    _ep("bills", "nzmimeepazxkubdpn", "assembly_bills",
        (_F("AGE"), _F("BILL_ID"), _F("BILL_NO"), _F("BILL_NAME", op="contains"),
         _F("COMMITTEE"), _F("PROC_RESULT"), _F("PROPOSER", op="contains")), ("AGE",)),
    _ep("bill_info", "ALLBILL", "assembly_allbill", (_F("BILL_NO"),), ("BILL_NO",)),
    _ep("proposers", "BILLINFOPPSR", "assembly_proposers", (_F("BILL_ID"),), ("BILL_ID",)),
    _ep("plenary_bills", "nwbpacrgavhjryiph", "assembly_plenary_bills",
        (_F("AGE"), _F("BILL_NO"), _F("COMMITTEE_NM")), ("AGE",)),
    _ep("vote_results", "ncocpgfiaoituanbr", "assembly_vote_summary",
        (_F("AGE"), _F("BILL_NO"), _F("BILL_NAME", op="contains")), ("AGE",)),
    _ep("votes", "nojepdqqaweusdfbi", "assembly_votes",
        (_F("BILL_ID"), _F("HG_NM"), _F("POLY_NM"), _F("RESULT_VOTE_MOD")),
        ("BILL_ID", "AGE")),
    _ep("members", "nwvrqwxyaytdsfvhu", "assembly_members",
        (_F("HG_NM"), _F("POLY_NM"), _F("ORIG_NM"), _F("MONA_CD"),
         _F("CMIT_NM", op="contains")), params=("UNIT_CD",)),
    _ep("all_members", "ALLNAMEMBER", "assembly_all_members",
        (_F("NAAS_CD"), _F("NAAS_NM"), _F("PLPT_NM", op="contains"),
         _F("BLNG_CMIT_NM", op="contains")), sort=(("NAAS_NM", False),)),
    _ep("pending_bills", "nwbqublzajtcqpdae", "assembly_pending",
        (_F("AGE"), _F("BILL_NAME", op="contains"), _F("COMMITTEE", "CURR_COMMITTEE"),
         _F("PROPOSER", op="contains"))),
    _ep("plenary_agenda", "nayjnliqaexiioauy", "assembly_agenda", (_F("AGE"),),
        params=("SESS_NO",)),
    _ep("plenary_schedule", "nekcaiymatialqlxr", "assembly_schedule",
        (_F("UNIT_CD"), _F("MEETINGSESSION"), _F("CHA"), _F("MEETTING_DATE")), ("UNIT_CD",)),
    _ep("lawmaking_notices", "nknalejkafmvgzmpt", "assembly_notices",
        (_F("AGE"), _F("BILL_NAME", op="contains"))),
    _ep("opinions", "lgsltpaOpnList", "assembly_opinions",
        (_F("BILL_ID"), _F("AGRE_DSAGRE")), ("BILL_ID",)),
    _write("submit_opinion", "lgsltpaOpnRegist", submit_opinion,
           ("BILL_ID", "WRTR_NM", "SBJCT", "CN", "AGRE_DSAGRE")),
    _write("withdraw_opinion", "lgsltpaOpnDelete", withdraw_opinion, ("OPN_ID", "WRTR_NM"),
           grows=False),
)
