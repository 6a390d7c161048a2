"""중앙선거관리위원회 on data.go.kr (``apis.data.go.kr/9760000``): elections, districts, candidates.

Family A (``data_go_kr``): ``serviceKey``, ``resultType=json``, ``pageNo`` / ``numOfRows`` (at
most 100), success code ``INFO-00``. The election code list covers every election since 1992
(대선, 총선, 지방선거 and 재·보궐, one row per election type); districts, candidates, winners and
pledges exist for the elections since 2014 (older ones answer "no data", as the real service
mostly does), and for the coming 2026 지방선거 only the preliminary candidates registered so far.

The politics universe built here (:func:`universe`) is shared with :mod:`.assembly`: the 지역구
and 비례대표 winners of the 총선 2016 / 2020 / 2024 are the members of the 20th / 21st / 22nd
National Assembly, with the same names, and their 열린국회 ``ORIG_NM`` is the normalised NEC
district ("서울 강남갑" for 서울특별시 + 강남구갑).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..rand import hash_unit, rng
from .nec_data import (
    EDU_CODES,
    ELECTIONS,
    GENERAL,
    JOB_CODES,
    assembly_party,
    dongs_of,
    election_parties,
    general_districts,
    gusigun_names,
    hanja_of,
    person_name,
    sd_name_at,
    sido_list,
    sido_units,
)

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "Person", "Universe", "universe"]

PLATFORM = "nec"
BASE = "/9760000"
PAGING = Paging(page="pageNo", size="numOfRows", default_size=10, max_size=100)
"""NEC paging: ``pageNo`` / ``numOfRows`` (default 10, at most 100: larger sizes are clamped)."""

TODAY = "20260213"
"""The world's today: the 2026 지방선거 has only its first preliminary candidates."""

_LEFT = {"20140604": "새정치민주연합", "20160413": "더불어민주당"}
_RIGHT = {"20140604": "새누리당", "20160413": "새누리당", "20170509": "자유한국당",
          "20180613": "자유한국당", "20200415": "미래통합당"}
_BASE_LEFT = {"11": 0.55, "26": 0.25, "27": 0.05, "28": 0.55, "29": 0.97, "30": 0.6,
              "31": 0.3, "36": 0.75, "41": 0.6, "42": 0.35, "43": 0.5, "44": 0.5, "45": 0.95,
              "46": 0.95, "47": 0.05, "48": 0.25, "50": 0.7}
_SHIFT = {"20140604": 0.0, "20160413": 0.05, "20180613": 0.25, "20200415": 0.15,
          "20220601": -0.25, "20240410": 0.1}
_PRESIDENT_WINNER = {"20170509": "L", "20220309": "R", "20250603": "L"}
_PR_SEATS = {"20160413": {"새누리당": 17, "더불어민주당": 13, "국민의당": 13, "정의당": 4},
             "20200415": {"미래한국당": 19, "더불어시민당": 17, "정의당": 5, "국민의당": 3,
                          "열린민주당": 3},
             "20240410": {"국민의미래": 18, "더불어민주연합": 14, "조국혁신당": 12, "개혁신당": 2}}
_MINORS = {"20160413": ("정의당", "민주당", "기독자유당", "녹색당"),
           "20200415": ("정의당", "민생당", "국가혁명배당금당", "민중당"),
           "20240410": ("개혁신당", "새로운미래", "진보당", "녹색정의당", "자유통일당")}
_ROLES = ("정책위원", "대변인", "시도당 위원장", "자문위원")
_UNIS = ("서울대학교", "연세대학교", "고려대학교", "성균관대학교", "한양대학교", "부산대학교",
         "경북대학교", "전남대학교", "충남대학교", "이화여자대학교", "중앙대학교", "경희대학교",
         "한국외국어대학교", "동국대학교", "건국대학교", "국민대학교", "영남대학교", "조선대학교")
_MAJORS = ("법학과", "정치외교학과", "행정학과", "경제학과", "경영학과", "사회학과",
           "신문방송학과", "국어국문학과", "사학과", "기계공학과", "의학과", "교육학과")


@dataclass(slots=True)
class Person:
    """One politician of the world (a candidate in one or more elections)."""

    pid: int
    name: str
    gender: str
    birth: str
    sido: str
    unit: str
    addr: str
    edu: tuple[str, str]
    job: tuple[str, str]
    side: str
    mona: str = ""
    terms: dict[int, tuple[str, str, str, str]] = field(default_factory=dict)
    """assembly age → (NEC party, sdName, sggName, "지역구" / "비례대표")"""


@dataclass(slots=True)
class Universe:
    """Everything NEC serves for one seed, plus the members of each assembly (20, 21, 22)."""

    people: list[Person]
    districts: list[Row]
    candidates: list[Row]
    winners: list[Row]
    prelims: list[Row]
    by_huboid: dict[str, Row]
    members: dict[int, list[Person]]


class _Gen:
    """The stateful generator behind :func:`universe` (one stream, chronological order)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.r = rng(seed, "nec_universe")
        self.people: list[Person] = []
        self.districts: list[Row] = []
        self.candidates: list[Row] = []
        self.prelims: list[Row] = []
        self.next_hubo = 100110000
        self.dist_count: dict[tuple[str, str], int] = {}
        self.monas: set[str] = set()
        self.sido_cd = {d.sido_nm: d.sido_cd for d in sido_list()}

    # ---------------------------------------------------------------- people

    def person(self, sido: str, unit: str, side: str, sg_id: str, job: str = "") -> Person:
        """A new politician living in ``unit`` of ``sido``."""
        r = self.r
        female = r.random() < (0.2 if sg_id >= "20200101" else 0.12)
        name = person_name(r, female)
        year = int(sg_id[:4]) - r.randint(34, 72)
        birth = f"{year}{r.randint(1, 12):02d}{r.randint(1, 28):02d}"
        dong = r.choice(dongs_of(sido, unit))
        addr = f"{sido} {unit} {dong}" if unit != sido else f"{sido} {dong}"
        uni, major = r.choice(_UNIS), r.choice(_MAJORS)
        level = r.choices(((EDU_CODES[5], "졸업"), (EDU_CODES[2], "대학원 졸업"),
                           (EDU_CODES[0], "대학원 박사 졸업"), (EDU_CODES[11], "")),
                          (60, 25, 10, 5))[0]
        school = f"{r.choice(('서울', '부산', '대구', '광주'))}고등학교 졸업"
        edu_text = f"{uni} {major} {level[1]}" if level[1] else school
        jid, jname = next((c for c in JOB_CODES if c[1] == job), None) or r.choice(JOB_CODES[2:16])
        p = Person(len(self.people), name, "여" if female else "남", birth, sido, unit, addr,
                   (level[0][0], edu_text), (jid, jname), side)
        self.people.append(p)
        return p

    def mona(self, p: Person) -> str:
        """The 열린국회 member code of ``p`` (assigned once, unique)."""
        if not p.mona:
            n = 0
            while True:
                h = int(hash_unit(self.seed, "mona", p.pid, n) * 36**8)
                code = ""
                for _ in range(8):
                    h, d = divmod(h, 36)
                    code += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[d]
                if code not in self.monas:
                    break
                n += 1
            self.monas.add(code)
            p.mona = code
        return p.mona

    # ---------------------------------------------------------------- rows

    def district(self, sg: str, t: str, sgg: str, sd: str, wiw: str, seats: int) -> Row:
        """Record one district row (``getCommonSggCodeList``)."""
        n = self.dist_count[(sg, t)] = self.dist_count.get((sg, t), 0) + 1
        row = {"num": str(n), "sgId": sg, "sgTypecode": t, "sggName": sgg, "sdName": sd,
               "wiwName": wiw, "sggJungsu": str(seats), "sOrder": str(n)}
        self.districts.append(row)
        return row

    def candidate(self, dist: Row, p: Person, party: str, giho: str, win: bool,
                  votes: tuple[int, float] | None, career: str) -> Row:
        """Record one registered candidate; winners carry their votes."""
        sg = dist["sgId"]
        self.next_hubo += 1
        age = int(sg[:4]) - int(p.birth[:4]) - (1 if sg[4:] < p.birth[4:] else 0)
        row: Row = {
            "num": "", "sgId": sg, "sgTypecode": dist["sgTypecode"],
            "huboid": str(self.next_hubo), "sggName": dist["sggName"],
            "sdName": dist["sdName"], "wiwName": dist["wiwName"], "giho": giho,
            "gihoSangse": "", "jdName": party, "name": p.name, "hanjaName": hanja_of(p.name),
            "gender": p.gender, "birthday": p.birth, "age": str(age), "addr": p.addr,
            "jobId": p.job[0], "job": p.job[1], "eduId": p.edu[0], "edu": p.edu[1],
            "career1": career, "career2": f"(전){party or '시민사회'} {self.r.choice(_ROLES)}",
            "status": "등록" if win or self.r.random() > 0.03 else "사퇴",
            "_pid": p.pid, "_win": win, "_votes": votes,
        }
        self.candidates.append(row)
        return row

    # ---------------------------------------------------------------- elections

    def winner_side(self, sg: str, sido: str, key: str) -> str:
        """``L`` / ``R`` / ``3`` (third party) / ``I`` (무소속) for one district."""
        u = hash_unit(self.seed, "win", sg, key)
        cd = self.sido_cd.get(sido, "11")
        if sg == "20160413" and cd in ("29", "45", "46"):
            return "3" if u < 0.7 else "L"
        if u < 0.025:
            return "I"
        if u < 0.035 and sg in _MINORS:
            return "3"
        p = min(0.97, max(0.03, _BASE_LEFT.get(cd, 0.5) + _SHIFT.get(sg, 0.0)))
        return "L" if hash_unit(self.seed, "lr", sg, key) < p else "R"

    def party_of(self, sg: str, side: str, key: str) -> str:
        """The party name of ``side`` in election ``sg``."""
        if side == "L":
            return _LEFT.get(sg, "더불어민주당")
        if side == "R":
            return _RIGHT.get(sg, "국민의힘")
        if side == "3":
            if sg == "20160413":
                return "국민의당"
            minors = _MINORS.get(sg, ("정의당", "진보당"))
            return minors[int(hash_unit(self.seed, "minor", sg, key) * len(minors))]
        return "무소속"

    def run_district(self, dist: Row, sido: str, unit: str, n_range: tuple[int, int],
                     incumbent: tuple[Person, str] | None, partisan: bool = True,
                     votes_base: int = 200000) -> Row:
        """Candidates of one single-seat district; returns the winner's row."""
        r, sg, key = self.r, dist["sgId"], f"{dist['sdName']}/{dist['sggName']}"
        parties = election_parties(sg)
        side = self.winner_side(sg, sido, key)
        wparty = self.party_of(sg, side, key) if partisan else ""
        runner = "R" if side in ("L", "I") else "L"
        if side == "3" and sg != "20160413":
            runner = "R"
        field: list[tuple[Person, str, bool]] = []
        if incumbent is not None and incumbent[1] == wparty:
            field.append((incumbent[0], wparty, True))
        else:
            field.append((self.person(sido, unit, side, sg), wparty, True))
            if incumbent is not None:
                field.append((incumbent[0], incumbent[1], False))
        if partisan and not any(pt == self.party_of(sg, runner, key) for _, pt, _ in field):
            field.append((self.person(sido, unit, runner, sg), self.party_of(sg, runner, key),
                          False))
        n = r.randint(*n_range)
        minors = [p for p in parties[2:-1] if p not in (pt for _, pt, _ in field)]
        while len(field) < n:
            party = (r.choice(minors) if minors and r.random() < 0.6 else "무소속") \
                if partisan else ""
            if party and party != "무소속" and party in (pt for _, pt, _ in field):
                continue
            field.append((self.person(sido, unit, "I", sg), party, False))
        order = {p: i + 1 for i, p in enumerate(parties[:-1])}
        top = max((order.get(pt, 0) for _, pt, _ in field), default=0)
        field.sort(key=lambda f: (order.get(f[1], 10**3) if f[1] else 0, f[0].pid))
        electorate = int(votes_base * r.uniform(0.7, 1.3))
        share = r.uniform(38.0, 72.0) if len(field) > 1 else 100.0
        win_row: Row | None = None
        independents = 0
        for p, party, win in field:
            if not partisan:
                giho = ""
            elif party in order:
                giho = str(order[party])
            else:
                independents += 1
                giho = str(top + independents)
            votes = (int(electorate * 0.62 * share / 100), round(share, 2)) if win else None
            job_now = "(현)국회의원" if incumbent and p is incumbent[0] else \
                f"(전){r.choice(('구의회 의원', '시의회 의원', '변호사', '대학교 교수', '보좌관'))}"
            row = self.candidate(dist, p, party, giho, win, votes, job_now)
            if win:
                win_row = row
        assert win_row is not None
        return win_row

    def general(self, sg: str,
                prev: dict[str, tuple[Person, str]]) -> dict[str, tuple[Person, str]]:
        """One 총선: 지역구 (incumbents of ``prev`` may run again) and 비례대표."""
        age = GENERAL[sg]
        now: dict[str, tuple[Person, str]] = {}
        for sido, sgg, units, _ in general_districts(sg):
            sd = sd_name_at(sido, sg)
            dist = self.district(sg, "2", sgg, sd, units[0], 1)
            inc = prev.get(f"{sido}/{sgg}")
            if inc is not None and self.r.random() < 0.75:
                party = assembly_party(age - 1, inc[1])
                inc = (inc[0], party if party in election_parties(sg) else "무소속")
            else:
                inc = None
            row = self.run_district(dist, sido, units[0], (2, 5), inc)
            p = self.people[row["_pid"]]
            p.terms[age] = (row["jdName"], sd, sgg, "지역구")
            now[f"{sido}/{sgg}"] = (p, row["jdName"])
        seats = _PR_SEATS[sg]
        dist = self.district(sg, "7", "비례대표", "전국", "", sum(seats.values()))
        parties = election_parties(sg)
        order = {p: i + 1 for i, p in enumerate(parties[:-1])}
        for party, n_win in sorted(seats.items(), key=lambda kv: order.get(kv[0], 99)):
            side = "R" if party in ("새누리당", "미래한국당", "국민의미래") else "L"
            for rank in range(1, n_win + self.r.randint(2, 6) + 1):
                sido = self.r.choice(list(sido_units()))
                p = self.person(sido, self.r.choice(sido_units()[sido]), side, sg)
                win = rank <= n_win
                row = self.candidate(dist, p, party, str(rank), win, None, "(현)정당인")
                row["gihoSangse"] = str(order.get(party, ""))
                if win:
                    p.terms[age] = (party, "전국", "비례대표", "비례대표")
        return now

    def local(self, sg: str, t: str) -> None:
        """시도지사 (3), 구시군장 (4) or 교육감 (11) of one 지방선거, or its prelims only."""
        for sido, units in sido_units().items():
            sd = sd_name_at(sido, sg)
            if t in ("3", "11"):
                dist = self.district(sg, t, sd, sd, "", 1)
                places = [(dist, units[0])]
            elif sido in ("세종특별자치시", "제주특별자치도"):
                continue
            else:
                places = [(self.district(sg, t, u, sd, u, 1), u) for u in units]
            for dist, unit in places:
                if sg > TODAY:
                    self.prelims_only(dist, sido, unit, t)
                    continue
                base = 3_000_000 if t != "4" else 250_000
                self.run_district(dist, sido, unit, (2, 4), None, partisan=t != "11",
                                  votes_base=base)

    def president(self, sg: str) -> None:
        """One 대통령선거 (a single nationwide district)."""
        dist = self.district(sg, "1", "대한민국", "전국", "", 1)
        side = _PRESIDENT_WINNER[sg]
        parties = election_parties(sg)
        order = {p: i + 1 for i, p in enumerate(parties[:-1])}
        field = [(self.party_of(sg, side, "p"), True),
                 (self.party_of(sg, "R" if side == "L" else "L", "p"), False)]
        field += [(p, False) for p in parties[2:2 + self.r.randint(3, 10)]]
        share = round(self.r.uniform(41.0, 50.0), 2)
        for party, win in sorted(field, key=lambda f: order.get(f[0], 99)):
            sido = self.r.choice(list(sido_units()))
            p = self.person(sido, self.r.choice(sido_units()[sido]), "I", sg)
            self.candidate(dist, p, party, str(order.get(party, "")), win,
                           (int(34_000_000 * share / 100), share) if win else None,
                           "(전)국회의원" if win else "(현)정당인")

    def prelims_only(self, dist: Row, sido: str, unit: str, t: str) -> None:
        """Preliminary candidates of an election still to come (registered so far)."""
        if t == "4":
            return
        parties = election_parties(dist["sgId"])
        for k in range(self.r.randint(1, 4)):
            p = self.person(sido, unit, "I", dist["sgId"])
            party = "" if t == "11" else parties[k % 3] if k < 3 else "무소속"
            self.next_hubo += 1
            self.prelims.append(self.prelim(dist, p, party, str(self.next_hubo), "등록"))

    def prelim(self, dist: Row, p: Person, party: str, huboid: str, status: str) -> Row:
        """One 예비후보 row."""
        sg = dist["sgId"]
        back = self.r.randint(8, 120) if sg <= TODAY else self.r.randint(0, 10)
        day = int(sg[6:]) if sg <= TODAY else 13
        regdate = _days_before(sg if sg <= TODAY else TODAY, back if sg <= TODAY else 10 - day % 10)
        age = int(sg[:4]) - int(p.birth[:4])
        return {"num": "", "sgId": sg, "sgTypecode": dist["sgTypecode"], "huboid": huboid,
                "sggName": dist["sggName"], "sdName": dist["sdName"],
                "wiwName": dist["wiwName"], "jdName": party, "name": p.name,
                "hanjaName": hanja_of(p.name), "gender": p.gender, "birthday": p.birth,
                "age": str(age), "addr": p.addr, "jobId": p.job[0], "job": p.job[1],
                "eduId": p.edu[0], "edu": p.edu[1], "career1": "(현)정당인",
                "career2": "", "regdate": regdate, "status": status, "_pid": p.pid}

    def by_election(self, sg: str, t: str) -> None:
        """A 재·보궐 (국회의원 or 구시군장): a few districts of the current map."""
        if t == "2":
            gmap = general_districts("20240410" if sg > "20240410" else
                                     "20200415" if sg > "20200415" else "20160413")
            picks = sorted({int(hash_unit(self.seed, "by", sg, i) * len(gmap)) for i in range(3)})
            for i in picks[: 1 + int(hash_unit(self.seed, "byn", sg) * 3)]:
                sido, sgg, units, _ = gmap[i]
                dist = self.district(sg, "2", sgg, sd_name_at(sido, sg), units[0], 1)
                self.run_district(dist, sido, units[0], (2, 4), None)
        elif t == "4":
            flat = [(s, u) for s, us in sido_units().items() for u in us
                    if s not in ("세종특별자치시", "제주특별자치도")]
            i = int(hash_unit(self.seed, "by4", sg) * len(flat))
            sido, unit = flat[i]
            dist = self.district(sg, "4", unit, sd_name_at(sido, sg), unit, 1)
            self.run_district(dist, sido, unit, (2, 4), None, votes_base=250_000)


def _days_before(sg: str, n: int) -> str:
    from datetime import date, timedelta
    d = date(int(sg[:4]), int(sg[4:6]), int(sg[6:])) - timedelta(days=n)
    return d.strftime("%Y%m%d")


@cache
def universe(seed: int) -> Universe:
    """The politics universe of the world with this seed (built once per process)."""
    g = _Gen(seed)
    prev: dict[str, tuple[Person, str]] = {}
    by_days = sorted({sg for sg, t, _ in ELECTIONS if sg >= "20170101"} - set(GENERAL)
                     - {"20170509", "20180613", "20220309", "20220601", "20250603", "20260603"})
    plan: list[tuple[str, str]] = [("20140604", "3"), ("20140604", "4"), ("20140604", "11"),
                                   ("20160413", "G"), ("20170509", "1"),
                                   ("20180613", "3"), ("20180613", "4"), ("20180613", "11"),
                                   ("20200415", "G"), ("20220309", "1"),
                                   ("20220601", "3"), ("20220601", "4"), ("20220601", "11"),
                                   ("20240410", "G"), ("20250603", "1"),
                                   ("20260603", "3"), ("20260603", "11"), ("20260603", "4")]
    plan += [(sg, t) for sg in by_days for s2, t, _ in ELECTIONS if s2 == sg and t in ("2", "4")]
    plan.sort()
    for sg, t in plan:
        if t == "G":
            prev = g.general(sg, prev)
        elif t == "1":
            g.president(sg)
        elif sg in ("20140604", "20180613", "20220601", "20260603"):
            g.local(sg, t)
        else:
            g.by_election(sg, t)
    # preliminary candidates: every registered candidate, plus some who dropped out
    for row in g.candidates:
        if row["sgTypecode"] in ("7", "1"):
            continue
        p = g.people[row["_pid"]]
        dist = {"sgId": row["sgId"], "sgTypecode": row["sgTypecode"], "sggName": row["sggName"],
                "sdName": row["sdName"], "wiwName": row["wiwName"]}
        g.prelims.append(g.prelim(dist, p, row["jdName"], row["huboid"], "등록"))
        if g.r.random() < 0.35:
            extra = g.person(p.sido, p.unit, "I", row["sgId"])
            g.next_hubo += 1
            g.prelims.append(g.prelim(dist, extra, row["jdName"] if g.r.random() < 0.5 else
                                      "무소속", str(g.next_hubo), "사퇴"))
    winners = []
    for row in g.candidates:
        if row["_win"]:
            w = {k: v for k, v in row.items() if k not in ("status", "_votes")}
            votes = row["_votes"]
            w["dugsu"] = str(votes[0]) if votes else ""
            w["dugyul"] = f"{votes[1]:.2f}" if votes else ""
            winners.append(w)
    for rows in (g.candidates, winners, g.prelims):
        _number(rows)
    members: dict[int, list[Person]] = {age: [] for age in GENERAL.values()}
    for p in g.people:
        for age in p.terms:
            members[age].append(p)
            g.mona(p)
    return Universe(g.people, g.districts, g.candidates, winners, g.prelims,
                    {r["huboid"]: r for r in g.candidates}, members)


def _number(rows: list[Row]) -> None:
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        k = (r["sgId"], r["sgTypecode"])
        counts[k] = counts.get(k, 0) + 1
        r["num"] = str(counts[k])


# ------------------------------------------------------------------ codes and pledges

_REALMS = ("경제", "일자리", "교통", "주거", "복지", "교육", "환경", "문화", "안전", "행정",
           "보건", "청년", "지역발전")
_PLEDGE = {
    "경제": ("{p} 첨단산업단지 조성", "{p} 지역화폐 발행 확대", "소상공인 금융지원 강화"),
    "일자리": ("{p} 청년 일자리 1만 개 창출", "공공일자리 확충", "중장년 재취업 지원센터 설립"),
    "교통": ("{p} 광역철도 조기 착공", "{p} 순환도로 개통", "버스 준공영제 확대"),
    "주거": ("{p} 공공임대주택 공급 확대", "노후 주거지 정비사업 추진",
             "청년·신혼부부 주거비 지원"),
    "복지": ("어르신 기초생활 지원 확대", "{p} 공공 산후조리원 설치", "장애인 이동권 보장"),
    "교육": ("{p} 미래교육지구 지정", "무상 교육 범위 확대", "방과후 돌봄 확대"),
    "환경": ("{p} 탄소중립 도시 조성", "미세먼지 저감 대책 추진", "{p} 하천 생태공원 조성"),
    "문화": ("{p} 복합문화센터 건립", "생활체육시설 확충", "지역 축제 육성"),
    "안전": ("{p} 스마트 안전도시 구축", "재난 대응체계 강화", "어린이 보호구역 확대"),
    "행정": ("주민참여예산 확대", "{p} 행정복지센터 신축", "민원 원스톱 처리"),
    "보건": ("{p} 공공의료원 설립", "응급의료 체계 강화", "감염병 대응 역량 강화"),
    "청년": ("청년 기본소득 도입", "{p} 청년창업 지원센터 설립", "청년 월세 지원"),
    "지역발전": ("{p} 균형발전 특별구역 지정", "{p} 원도심 재생", "관광 인프라 확충"),
}


def pledge_rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
    """``getCnddtElecPrmsInfoInqire``: one row with up to ten pledges of candidate ``cnddtId``.

    Only for 대선 (1), 시도지사 (3), 구시군장 (4) and 교육감 (11) since 2017; losers' pledges
    vanish after the election (kept only for the latest 대선). The pledge text field is
    ``prmmCont{i}`` (documented as ``prmsCont{i}``: the typo is the service's).
    """
    cand = universe(world.seed).by_huboid.get(params.get("cnddtId", "").strip())
    if cand is None or cand["sgId"] != params.get("sgId", "").strip() \
            or cand["sgTypecode"] != params.get("sgTypecode", "").strip():
        return []
    if cand["sgTypecode"] not in ("1", "3", "4", "11") or cand["sgId"] < "20170101":
        return []
    if not cand["_win"] and cand["sgId"] != "20250603":
        return []
    r = random.Random(f"{world.seed}/pledge/{cand['huboid']}")
    place = cand["wiwName"] or cand["sdName"].replace("전국", "대한민국")
    n = r.randint(5, 10)
    realms = r.sample(_REALMS, n)
    row: Row = {"num": "1", "sgId": cand["sgId"], "sgTypecode": cand["sgTypecode"],
                "cnddtId": cand["huboid"], "sggName": cand["sggName"],
                "sidoName": cand["sdName"], "wiwName": cand["wiwName"],
                "partyName": cand["jdName"], "krName": cand["name"],
                "cnName": cand["hanjaName"], "prmsCnt": str(n)}
    for i in range(1, 11):
        if i <= n:
            realm = realms[i - 1]
            title = r.choice(_PLEDGE[realm]).format(p=place)
            how = r.choice(("조례 제정", "국비 확보", "민자 유치", "예산 편성"))
            body = (f"○ 목표\n - {title}\n○ 이행방법\n - {how}"
                    f" 및 관계기관 협의\n○ 이행기간\n - 임기 내 {r.randint(1, 4)}년차 완료\n"
                    f"○ 재원조달방안\n - 약 {r.randint(5, 900) * 10}억 원")
            row |= {f"prmsOrd{i}": str(i), f"prmsRealmName{i}": realm,
                    f"prmsTitle{i}": title, f"prmmCont{i}": body}
        else:
            row |= {f"prmsOrd{i}": "", f"prmsRealmName{i}": "", f"prmsTitle{i}": "",
                    f"prmmCont{i}": ""}
    return [row]


_SG_IDS = frozenset(sg for sg, _, _ in ELECTIONS)


def _per_election(make: Any) -> Any:
    """A rows function answering only for a known ``sgId``."""
    def rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
        sg = params.get("sgId", "").strip()
        if sg not in _SG_IDS:
            return []
        out = make(sg)
        for i, r in enumerate(out, start=1):
            r["num"] = str(i)
        return out
    return rows


def _gusigun(sg: str) -> list[Row]:
    return [{"num": "", "sgId": sg, "sdName": sd_name_at(sido, sg), "wiwName": w,
             "wOrder": str(i)} for sido, ws in gusigun_names().items()
            for i, w in enumerate(ws, start=1)]


def build_elections(world: World) -> list[Row]:
    """``getCommonSgCodeList``: every (election, type), oldest first."""
    return [{"num": str(i), "sgId": sg, "sgTypecode": t, "sgName": name, "sgVotedate": sg}
            for i, (sg, t, name) in enumerate(ELECTIONS, start=1)]


DATASETS: tuple[Dataset, ...] = (
    Dataset("nec_elections", build=build_elections, doc="선거코드: every election × type"),
    Dataset("nec_districts", build=lambda w: universe(w.seed).districts, index=("sgId",),
            doc="선거구코드: 254 총선 지역구 (2024), 226 구시군장, 17 시도지사 …"),
    Dataset("nec_gusigun", rows=_per_election(_gusigun), doc="구시군코드 per election"),
    Dataset("nec_parties", rows=_per_election(lambda sg: [
        {"num": "", "sgId": sg, "jdName": p, "pOrder": str(i)}
        for i, p in enumerate(election_parties(sg), start=1)]), doc="정당코드 per election"),
    Dataset("nec_jobs", rows=_per_election(lambda sg: [
        {"num": "", "sgId": sg, "jobId": i, "jobName": n} for i, n in JOB_CODES]),
            doc="직업코드 per election"),
    Dataset("nec_edus", rows=_per_election(lambda sg: [
        {"num": "", "sgId": sg, "eduId": i, "eduName": n} for i, n in EDU_CODES]),
            doc="학력코드 per election"),
    Dataset("nec_candidates", build=lambda w: universe(w.seed).candidates, index=("sgId",),
            doc="후보자: 2–5 per district, elections since 2014"),
    Dataset("nec_prelims", build=lambda w: universe(w.seed).prelims, index=("sgId",),
            doc="예비후보자: the candidates plus those who dropped out"),
    Dataset("nec_winners", build=lambda w: universe(w.seed).winners, index=("sgId",),
            doc="당선인: one per single-seat district, the list winners of 비례대표"),
    Dataset("nec_pledges", rows=pledge_rows, doc="선거공약 of one candidate (cnddtId)"),
)

_ELECTION = (Filter("sgId"), Filter("sgTypecode"))
_PLACE = (Filter("sggName"), Filter("sdName"))


def _ep(tool: str, service: str, op: str, dataset: str, required: tuple[str, ...],
        filters: tuple[Filter, ...] = (), doc: str = "") -> Endpoint:
    return Endpoint(platform=PLATFORM, tool=tool, path=f"{BASE}/{service}/{op}",
                    dialect="data_go_kr", dataset=dataset, service="items", filters=filters,
                    required=required, paging=PAGING, doc=doc)


_CODE = "CommonCodeService"
ENDPOINTS: tuple[Endpoint, ...] = (
    _ep("elections", _CODE, "getCommonSgCodeList", "nec_elections", ()),
    _ep("districts", _CODE, "getCommonSggCodeList", "nec_districts", ("sgId", "sgTypecode"),
        _ELECTION),
    _ep("gusigun", _CODE, "getCommonGusigunCodeList", "nec_gusigun", ("sgId",),
        (Filter("sdName"),)),
    _ep("parties", _CODE, "getCommonPartyCodeList", "nec_parties", ("sgId",)),
    _ep("jobs", _CODE, "getCommonJobCodeList", "nec_jobs", ("sgId",)),
    _ep("educations", _CODE, "getCommonEduBckgrdCodeList", "nec_edus", ("sgId",)),
    _ep("candidates", "PofelcddInfoInqireService", "getPofelcddRegistSttusInfoInqire",
        "nec_candidates", ("sgId", "sgTypecode"), _ELECTION + _PLACE),
    _ep("preliminary_candidates", "PofelcddInfoInqireService",
        "getPoelpcddRegistSttusInfoInqire", "nec_prelims", ("sgId", "sgTypecode"),
        _ELECTION + _PLACE),
    _ep("winners", "WinnerInfoInqireService2", "getWinnerInfoInqire", "nec_winners",
        ("sgId", "sgTypecode"), _ELECTION + _PLACE),
    _ep("pledges", "ElecPrmsInfoInqireService", "getCnddtElecPrmsInfoInqire", "nec_pledges",
        ("sgId", "sgTypecode", "cnddtId")),
)
