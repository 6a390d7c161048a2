"""Static tables of the politics world: names, parties, elections, codes, and the district maps.

Shared by :mod:`.nec` (중앙선거관리위원회) and :mod:`.assembly` (열린국회정보): the 총선 winners
of 2016, 2020 and 2024 *are* the members of the 20th, 21st and 22nd National Assembly, so both
platforms draw from one politics universe (built in :mod:`.nec`). Districts are built on the real
시도 / 시군구 names of :mod:`edgedsl.world.regions` as of the shipped table's date
(:data:`~edgedsl.world.successions.SNAPSHOT`, 2022-09-01), the 시도 renamed on each election day
by :func:`sd_name_at`; seat counts per 시도 follow the real ones. Not modelled: 군위군's move to
대구광역시 (2023-07-01) in the 2024 총선's district map, where it stays with 경상북도.
"""

from __future__ import annotations

import random
from functools import cache

from ..rand import hash_unit
from ..regions import LegalDong
from ..regions import legal_dongs as _legal_dongs
from ..regions import sido_list as _sido_list
from ..regions import sigungu_list as _sigungu_list
from ..successions import SNAPSHOT

__all__ = [
    "EDU_CODES",
    "ELECTIONS",
    "GENERAL",
    "JOB_CODES",
    "SG_TYPES",
    "SIDO_SHORT",
    "assembly_party",
    "district_name_short",
    "dongs_of",
    "election_parties",
    "general_districts",
    "gusigun_names",
    "hanja_of",
    "person_name",
    "roman_of",
    "sd_name_at",
    "sido_list",
    "sido_units",
]

# ------------------------------------------------------------------ names

# surname: (hanja, romanisation, weight)
_SURNAMES: dict[str, tuple[str, str, int]] = {
    "김": ("金", "KIM", 210), "이": ("李", "LEE", 150), "박": ("朴", "PARK", 85),
    "최": ("崔", "CHOI", 47), "정": ("鄭", "JUNG", 44), "강": ("姜", "KANG", 23),
    "조": ("趙", "CHO", 21), "윤": ("尹", "YOON", 21), "장": ("張", "JANG", 20),
    "임": ("林", "LIM", 17), "한": ("韓", "HAN", 15), "오": ("吳", "OH", 15),
    "서": ("徐", "SEO", 15), "신": ("申", "SHIN", 14), "권": ("權", "KWON", 14),
    "황": ("黃", "HWANG", 14), "안": ("安", "AHN", 13), "송": ("宋", "SONG", 13),
    "전": ("全", "JEON", 11), "홍": ("洪", "HONG", 11), "유": ("柳", "YOO", 10),
    "고": ("高", "KO", 9), "문": ("文", "MOON", 9), "양": ("梁", "YANG", 8),
    "손": ("孫", "SON", 8), "배": ("裵", "BAE", 8), "백": ("白", "BAEK", 7),
    "허": ("許", "HEO", 6), "노": ("盧", "NOH", 6), "남": ("南", "NAM", 5),
    "심": ("沈", "SIM", 5), "하": ("河", "HA", 4), "곽": ("郭", "KWAK", 4),
    "성": ("成", "SUNG", 4), "차": ("車", "CHA", 4), "주": ("朱", "JOO", 4),
    "우": ("禹", "WOO", 4), "구": ("具", "KOO", 4), "민": ("閔", "MIN", 3),
    "진": ("陳", "JIN", 3), "나": ("羅", "NA", 3), "원": ("元", "WON", 2),
    "천": ("千", "CHUN", 2), "방": ("方", "BANG", 2), "설": ("薛", "SUL", 1),
    "추": ("秋", "CHOO", 1), "도": ("都", "DO", 1), "용": ("龍", "YONG", 1),
}
# given-name syllables: (hanja, romanisation)
_GIVEN_1: dict[str, tuple[str, str]] = {
    "민": ("敏", "Min"), "서": ("瑞", "Seo"), "지": ("志", "Ji"), "현": ("賢", "Hyun"),
    "수": ("秀", "Su"), "영": ("英", "Young"), "정": ("正", "Jeong"), "성": ("成", "Sung"),
    "재": ("在", "Jae"), "동": ("東", "Dong"), "준": ("俊", "Jun"), "승": ("承", "Seung"),
    "상": ("相", "Sang"), "종": ("鍾", "Jong"), "광": ("光", "Kwang"), "경": ("京", "Kyung"),
    "태": ("泰", "Tae"), "용": ("容", "Yong"), "진": ("鎭", "Jin"), "혜": ("惠", "Hye"),
    "은": ("恩", "Eun"), "미": ("美", "Mi"), "병": ("炳", "Byung"), "기": ("基", "Ki"),
    "석": ("錫", "Seok"), "창": ("昌", "Chang"), "형": ("亨", "Hyung"), "원": ("元", "Won"),
    "주": ("周", "Ju"), "우": ("宇", "Woo"), "선": ("善", "Sun"), "해": ("海", "Hae"),
    "명": ("明", "Myung"), "한": ("漢", "Han"), "인": ("仁", "In"), "호": ("浩", "Ho"),
    "대": ("大", "Dae"), "희": ("熙", "Hee"), "윤": ("允", "Yun"), "규": ("奎", "Kyu"),
}
_GIVEN_2: dict[str, tuple[str, str]] = {
    "호": ("鎬", "ho"), "수": ("洙", "su"), "민": ("珉", "min"), "희": ("姬", "hee"),
    "영": ("榮", "young"), "철": ("哲", "cheol"), "석": ("碩", "seok"), "진": ("眞", "jin"),
    "훈": ("勳", "hoon"), "우": ("祐", "woo"), "식": ("植", "sik"), "준": ("埈", "jun"),
    "환": ("煥", "hwan"), "규": ("圭", "gyu"), "숙": ("淑", "sook"), "연": ("娟", "yeon"),
    "아": ("娥", "a"), "경": ("卿", "kyung"), "기": ("起", "gi"), "범": ("範", "beom"),
    "일": ("一", "il"), "섭": ("燮", "seop"), "태": ("台", "tae"), "욱": ("旭", "wook"),
    "근": ("根", "geun"), "용": ("鎔", "yong"), "원": ("源", "won"), "순": ("順", "soon"),
    "혁": ("赫", "hyuk"), "현": ("鉉", "hyun"), "윤": ("潤", "yoon"), "옥": ("玉", "ok"),
    "정": ("貞", "jeong"), "택": ("澤", "taek"), "만": ("萬", "man"), "덕": ("德", "deok"),
    "모": ("模", "mo"), "균": ("均", "gyun"), "웅": ("雄", "woong"), "란": ("蘭", "ran"),
}
_FEMININE_2 = frozenset("희숙연아경순옥정란윤민영진현")
_SURNAME_KEYS = tuple(_SURNAMES)
_SURNAME_WEIGHTS = tuple(v[2] for v in _SURNAMES.values())
_G1 = tuple(_GIVEN_1)
_G2 = tuple(_GIVEN_2)


def person_name(r: random.Random, female: bool = False) -> str:
    """A Korean full name (surname + two syllables), drawn with real surname frequencies."""
    sur = r.choices(_SURNAME_KEYS, _SURNAME_WEIGHTS)[0]
    g2 = r.choice(_G2)
    if female and g2 not in _FEMININE_2 and r.random() < 0.7:
        g2 = r.choice(sorted(_FEMININE_2))
    return sur + r.choice(_G1) + g2


def hanja_of(name: str) -> str:
    """The hanja spelling of a name made by :func:`person_name` (``HJ_NM``, ``hanjaName``)."""
    return _SURNAMES[name[0]][0] + _GIVEN_1[name[1]][0] + _GIVEN_2[name[2]][0]


def roman_of(name: str) -> str:
    """``"KIM Min Ho"``: the ``ENG_NM`` spelling of a name made by :func:`person_name`."""
    return f"{_SURNAMES[name[0]][1]} {_GIVEN_1[name[1]][1]} {_GIVEN_2[name[2]][1].capitalize()}"


# ------------------------------------------------------------------ regions


def legal_dongs() -> tuple[LegalDong, ...]:
    """The legal districts the district maps are made of (the table of :data:`SNAPSHOT`)."""
    return _legal_dongs(SNAPSHOT)


def sido_list() -> tuple[LegalDong, ...]:
    """The 시도 of :func:`legal_dongs`."""
    return _sido_list(SNAPSHOT)


def sigungu_list() -> tuple[LegalDong, ...]:
    """The 시군구 of :func:`legal_dongs`."""
    return _sigungu_list(SNAPSHOT)

SIDO_SHORT: dict[str, str] = {
    "서울특별시": "서울", "부산광역시": "부산", "대구광역시": "대구", "인천광역시": "인천",
    "광주광역시": "광주", "대전광역시": "대전", "울산광역시": "울산", "세종특별자치시": "세종",
    "경기도": "경기", "강원도": "강원", "강원특별자치도": "강원", "충청북도": "충북",
    "충청남도": "충남", "전라북도": "전북", "전북특별자치도": "전북", "전라남도": "전남",
    "경상북도": "경북", "경상남도": "경남", "제주특별자치도": "제주",
}
"""시도 full name → the short form of 열린국회 ``ORIG_NM`` ("서울 강남갑")."""


def sd_name_at(sido_nm: str, sg_id: str) -> str:
    """The 시도 name NEC uses on election day ``sg_id`` (강원/전북 became 특별자치도)."""
    if sido_nm == "강원도" and sg_id >= "20230611":
        return "강원특별자치도"
    if sido_nm == "전라북도" and sg_id >= "20240118":
        return "전북특별자치도"
    return sido_nm


@cache
def sido_units() -> dict[str, tuple[str, ...]]:
    """시도 name → its 기초자치단체 (시·군·자치구) in code order; 세종 is its own unit.

    A 시 with 일반구 (수원시 장안구 …) is one unit; 출장소 rows are skipped. 226 units outside
    세종 and 제주's two 행정시 (the 2022 count of 구·시·군의 장 districts).
    """
    names = {d.sido_nm for d in sido_list()}
    out: dict[str, list[str]] = {n: [] for n in names}
    for d in sigungu_list():
        if d.sido_nm not in names or not d.sgg_nm:
            continue
        unit = d.sgg_nm.split()[0]
        if unit[-1] in "시군구" and unit not in out[d.sido_nm]:
            out[d.sido_nm].append(unit)
    out["세종특별자치시"] = ["세종특별자치시"]
    order = [d.sido_nm for d in sido_list()]
    return {k: tuple(out[k]) for k in order}


@cache
def gusigun_names() -> dict[str, tuple[str, ...]]:
    """시도 → the NEC 구·시·군 names (일반구 joined to their 시: ``수원시장안구``)."""
    names = {d.sido_nm for d in sido_list()}
    out: dict[str, list[str]] = {n: [] for n in names}
    parents = {d.sgg_nm.split()[0] for d in sigungu_list() if " " in d.sgg_nm}
    for d in sigungu_list():
        if d.sido_nm not in names or not d.sgg_nm:
            continue
        parts = d.sgg_nm.split()
        if parts[-1][-1] not in "시군구" or (len(parts) == 1 and parts[0] in parents):
            continue
        name = "".join(parts)
        if name not in out[d.sido_nm]:
            out[d.sido_nm].append(name)
    out["세종특별자치시"] = ["세종특별자치시"]
    return {d.sido_nm: tuple(out[d.sido_nm]) for d in sido_list()}


@cache
def _dong_index() -> dict[tuple[str, str], tuple[str, ...]]:
    out: dict[tuple[str, str], list[str]] = {}
    for d in legal_dongs():
        if d.code[8:] != "00" or d.code[5:8] == "000":
            continue  # only 읍면동 rows
        unit = d.sgg_nm.split()[0] if d.sgg_nm else d.sido_nm
        out.setdefault((d.sido_nm, unit), []).append(d.umd_nm)
    return {k: tuple(v) for k, v in out.items()}


def dongs_of(sido_nm: str, unit: str) -> tuple[str, ...]:
    """The 읍면동 names of one unit (for candidates' ``addr``)."""
    return _dong_index().get((sido_nm, unit)) or ("중앙동",)


# ------------------------------------------------------------------ districts of 총선

GENERAL = {"20160413": 20, "20200415": 21, "20240410": 22}
"""총선 sgId → 대수 (the assembly its winners sit in)."""

_SEATS_2024 = {"서울특별시": 48, "부산광역시": 18, "대구광역시": 12, "인천광역시": 14,
               "광주광역시": 8, "대전광역시": 7, "울산광역시": 6, "세종특별자치시": 2,
               "경기도": 60, "강원도": 8, "충청북도": 8, "충청남도": 11, "전라북도": 10,
               "전라남도": 10, "경상북도": 13, "경상남도": 16, "제주특별자치도": 3}
_SEATS = {
    "20240410": _SEATS_2024,
    "20200415": {**_SEATS_2024, "서울특별시": 49, "인천광역시": 13, "경기도": 59},
    "20160413": {**_SEATS_2024, "서울특별시": 49, "인천광역시": 13, "세종특별자치시": 1},
}
# Seoul by hand (the real map): unit(s) → seats
_SEOUL = {"종로구": 1, "중구+성동구": 2, "용산구": 1, "광진구": 2, "동대문구": 2, "중랑구": 2,
          "성북구": 2, "강북구": 2, "도봉구": 2, "노원구": 2, "은평구": 2, "서대문구": 2,
          "마포구": 2, "양천구": 2, "강서구": 3, "구로구": 2, "금천구": 1, "영등포구": 2,
          "동작구": 2, "관악구": 2, "서초구": 2, "강남구": 3, "송파구": 3, "강동구": 2}
SUFFIX = "갑을병정무기경신"


def _unit_weight(sido: str, unit: str, n_sub: int) -> float:
    """A population proxy: 법정동 count for a 시, a fixed band for 군 and 자치구."""
    h = hash_unit(7, "unit-weight", sido, unit)
    if unit.endswith("군"):
        return 0.1 + 0.1 * h
    if unit.endswith("시"):
        return 0.1 + 0.025 * len(dongs_of(sido, unit)) * (0.7 + 0.6 * h) + 0.7 * n_sub
    return 0.5 + 1.0 * h


def _allocate(units: list[str], weights: list[float], k: int) -> list[tuple[list[str], int]]:
    """Contiguous groups of units with seats, summing to ``k``; small units merge."""
    total = sum(weights)
    quota = [w * k / total for w in weights]
    groups = [[i] for i in range(len(units))]

    def q(g: list[int]) -> float:
        return sum(quota[i] for i in g)

    while len(groups) > 1:
        m = min(range(len(groups)), key=lambda i: q(groups[i]))
        if q(groups[m]) >= 0.6 and len(groups) <= k:
            break
        if m == 0:
            j = 1
        elif m == len(groups) - 1:
            j = m - 1
        else:
            j = m - 1 if q(groups[m - 1]) <= q(groups[m + 1]) else m + 1
        lo, hi = min(m, j), max(m, j)
        groups[lo:hi + 1] = [groups[lo] + groups[hi]]
    seats = [max(1, int(q(g))) for g in groups]
    while sum(seats) < k:
        i = max(range(len(groups)), key=lambda i: q(groups[i]) / seats[i])
        seats[i] += 1
    while sum(seats) > k:
        cands = [i for i in range(len(groups)) if seats[i] > 1]
        i = min(cands, key=lambda i: q(groups[i]) / seats[i])
        seats[i] -= 1
    return [([units[i] for i in g], s) for g, s in zip(groups, seats, strict=True)]


@cache
def general_districts(sg_id: str) -> tuple[tuple[str, str, tuple[str, ...], int], ...]:
    """The 지역구 of the 총선 ``sg_id``: ``(sido_nm, sggName, units, seat_no)`` in NEC order."""
    seats = _SEATS[sg_id]
    n_sub: dict[tuple[str, str], int] = {}
    for d in sigungu_list():
        if " " in d.sgg_nm:
            key = (d.sido_nm, d.sgg_nm.split()[0])
            n_sub[key] = n_sub.get(key, 0) + 1
    out: list[tuple[str, str, tuple[str, ...], int]] = []
    for sido, units in sido_units().items():
        if sido == "서울특별시":
            table = dict(_SEOUL)
            if sg_id < "20240101":
                table["노원구"] = 3
            groups = [(key.split("+"), s) for key, s in table.items()]
        else:
            units_l = list(units)
            weights = [_unit_weight(sido, u, n_sub.get((sido, u), 0)) for u in units_l]
            groups = _allocate(units_l, weights, seats[sido])
        for members, s in groups:
            base = "".join(members)
            for i in range(s):
                out.append((sido, base + (SUFFIX[i] if s > 1 else ""), tuple(members), i))
    return tuple(out)


def district_name_short(sido_nm: str, sgg_name: str) -> str:
    """열린국회 ``ORIG_NM``: "서울 강남갑" for NEC "서울특별시" + "강남구갑".

    The 구/시/군 of a single-unit district is dropped before its 갑/을 suffix when two or more
    syllables remain ("강남구갑" → "강남갑", but "중구갑" and "중구성동구갑" stay).
    """
    name = sgg_name
    if name and name[-1] in SUFFIX and len(name) >= 4 and name[-2] in "구시군":
        stem = name[:-2]
        if len(stem) >= 2 and not any(c in stem for c in "구시군"):
            name = stem + name[-1]
    return f"{SIDO_SHORT.get(sido_nm, sido_nm)} {name}"


# ------------------------------------------------------------------ elections

SG_TYPES: dict[str, str] = {
    "0": "대표선거명", "1": "대통령선거", "2": "국회의원선거", "3": "시·도지사선거",
    "4": "구·시·군의 장선거", "5": "시·도의회의원선거", "6": "구·시·군의회의원선거",
    "7": "비례대표국회의원선거", "8": "광역의원비례대표선거", "9": "기초의원비례대표선거",
    "10": "교육의원선거", "11": "교육감선거",
}
"""``sgTypecode`` → the ``sgName`` of that type's row in the election code list."""

_PRESIDENTIAL = {"19921218": 14, "19971218": 15, "20021219": 16, "20071219": 17,
                 "20121219": 18, "20170509": 19, "20220309": 20, "20250603": 21}
_LOCAL = {"19950627": 1, "19980604": 2, "20020613": 3, "20060531": 4, "20100602": 5,
          "20140604": 6, "20180613": 7, "20220601": 8, "20260603": 9}
_GENERAL_ALL = {"19960411": 15, "20000413": 16, "20040415": 17, "20080409": 18,
                "20120411": 19, **GENERAL}
_BY = ("20011025", "20030424", "20031030", "20050430", "20051026", "20070425", "20081029",
       "20090429", "20091028", "20110427", "20111026", "20130424", "20131030", "20140730",
       "20141029", "20150429", "20151028", "20170412", "20190403", "20210407", "20230405",
       "20231011", "20241016", "20250402")


def _by_name(sg_id: str) -> str:
    return f"{sg_id[:4]}년 {int(sg_id[4:6])}월 {int(sg_id[6:])}일 재·보궐선거"


@cache
def _elections() -> tuple[tuple[str, str, str], ...]:
    rows: list[tuple[str, str, str]] = []
    for sg, n in _PRESIDENTIAL.items():
        rows.append((sg, "0", f"제{n}대 대통령선거"))
        rows.append((sg, "1", SG_TYPES["1"]))
        if sg >= "20000101":
            rows += [(sg, t, SG_TYPES[t]) for t in ("2", "4", "5", "6")]
    for sg, n in _GENERAL_ALL.items():
        rows.append((sg, "0", f"제{n}대 국회의원선거"))
        rows += [(sg, t, SG_TYPES[t]) for t in ("2", "7", "4", "5", "6")]
    for sg, n in _LOCAL.items():
        rows.append((sg, "0", f"제{n}회 전국동시지방선거"))
        types = ["3", "4", "5", "6"]
        if sg >= "20020101":
            types.append("8")
        if sg >= "20060101":
            types.append("9")
        if sg >= "20100101":
            types += ["10", "11"]
        if sg in ("20140604", "20180613", "20220601"):
            types.append("2")  # 국회의원 재보궐 on the same day
        rows += [(sg, t, SG_TYPES[t]) for t in types]
    for sg in _BY:
        rows.append((sg, "0", _by_name(sg)))
        types = [t for t in ("2", "3", "4", "5", "6", "11")
                 if t in ("2", "4") or hash_unit(3, "by", sg, t) < 0.45]
        rows += [(sg, t, SG_TYPES[t]) for t in types]
    rows.sort(key=lambda r: (r[0], int(r[1])))
    return tuple(rows)


ELECTIONS = _elections()
"""Every ``(sgId, sgTypecode, sgName)`` of the election code list, oldest first."""

# ------------------------------------------------------------------ parties

_ERAS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("19900101", ("민주자유당", "새정치국민회의", "자유민주연합", "통합민주당", "신한국당",
                  "국민신당", "한나라당")),
    ("20000101", ("새천년민주당", "한나라당", "자유민주연합", "민주국민당", "민주노동당",
                  "한국신당", "청년진보당")),
    ("20031101", ("열린우리당", "한나라당", "새천년민주당", "민주노동당", "자유민주연합",
                  "국민중심당", "사회당", "녹색사민당")),
    ("20080101", ("통합민주당", "한나라당", "자유선진당", "친박연대", "민주노동당",
                  "창조한국당", "진보신당", "평화통일가정당")),
    ("20120101", ("새누리당", "민주통합당", "통합진보당", "자유선진당", "진보신당",
                  "국민생각", "정통민주당", "기독자유민주당")),
    ("20140301", ("새누리당", "새정치민주연합", "통합진보당", "정의당", "노동당", "녹색당")),
    ("20160101", ("새누리당", "더불어민주당", "국민의당", "정의당", "민주당", "기독자유당",
                  "민중연합당", "녹색당", "노동당", "한나라당", "코리아", "친반통일당",
                  "공화당", "그린불교연합당", "통일한국당")),
    ("20170201", ("더불어민주당", "자유한국당", "국민의당", "바른정당", "정의당", "새누리당",
                  "민중연합당", "경제애국당", "국민대통합당", "늘푸른한국당", "한국국민당",
                  "홍익당", "통합한국당")),
    ("20180201", ("더불어민주당", "자유한국당", "바른미래당", "민주평화당", "정의당",
                  "민중당", "대한애국당", "녹색당", "우리미래", "노동당")),
    ("20200201", ("더불어민주당", "미래통합당", "민생당", "미래한국당", "더불어시민당",
                  "정의당", "우리공화당", "민중당", "한국경제당", "국민의당", "친박신당",
                  "열린민주당", "코리아", "가자환경당", "기독자유통일당", "국가혁명배당금당",
                  "녹색당", "노동당", "미래당", "여성의당", "가자평화인권당", "기본소득당",
                  "시대전환", "한국복지당", "기독당")),
    ("20200901", ("더불어민주당", "국민의힘", "정의당", "국민의당", "기본소득당", "시대전환",
                  "진보당", "노동당", "녹색당", "우리공화당", "자유통일당", "신자유민주연합")),
    ("20240101", ("더불어민주당", "국민의힘", "녹색정의당", "새로운미래", "개혁신당",
                  "자유통일당", "조국혁신당", "진보당", "더불어민주연합", "국민의미래",
                  "기본소득당", "사회민주당", "노동당", "녹색당", "우리공화당",
                  "가락특별시당", "가가호호공명선거대한당", "국민대통합당", "기후민생당",
                  "여성의당", "한국농어민당", "통일한국당", "직능자영업당", "한류연합당",
                  "신자유민주연합", "홍익당", "새누리당", "자유민주당", "내일로미래로",
                  "소나무당", "대한민국당", "국가혁명당", "미래당", "케이정치연합",
                  "공화당", "기독당", "한국국민당")),
    ("20250101", ("더불어민주당", "국민의힘", "조국혁신당", "개혁신당", "진보당",
                  "기본소득당", "사회민주당", "민주노동당", "자유통일당", "우리공화당",
                  "노동당", "녹색당", "국가혁명당", "자유민주당", "한국국민당")),
)


def election_parties(sg_id: str) -> tuple[str, ...]:
    """The registered parties of the era of ``sg_id``, ballot order, and ``무소속`` last."""
    parties: tuple[str, ...] = _ERAS[0][1]
    for start, names in _ERAS:
        if sg_id >= start:
            parties = names
    return (*parties, "무소속")


# NEC party on election day → the member's 열린국회 POLY_NM (after mergers of satellite parties)
_ASSEMBLY_PARTY: dict[int, dict[str, str]] = {
    20: {"새누리당": "미래통합당", "국민의당": "민생당"},
    21: {"미래통합당": "국민의힘", "미래한국당": "국민의힘", "더불어시민당": "더불어민주당",
         "열린민주당": "더불어민주당", "국민의당": "국민의힘"},
    22: {"국민의미래": "국민의힘", "더불어민주연합": "더불어민주당", "새로운미래": "더불어민주당",
         "녹색정의당": "정의당"},
}


def assembly_party(age: int, party: str) -> str:
    """The 열린국회 ``POLY_NM`` of a member of assembly ``age`` elected for NEC party ``party``."""
    return _ASSEMBLY_PARTY.get(age, {}).get(party, party)


# ------------------------------------------------------------------ codes

JOB_CODES: tuple[tuple[str, str], ...] = tuple((str(i), n) for i, n in enumerate((
    "국회의원", "지방의원", "정당인", "정치인", "변호사", "교수", "교육자", "의사", "약사",
    "공무원", "군인", "경찰", "언론인", "회사원", "상업", "농업", "수산업", "건설업",
    "종교인", "시민사회단체", "노동자", "학생", "기타"), start=1))
"""``(jobId, jobName)`` of the job code list (23 codes)."""

EDU_CODES: tuple[tuple[str, str], ...] = tuple((str(i), n) for i, n in enumerate((
    "박사졸업", "박사수료", "석사졸업", "석사수료", "대학원재학", "대학교졸업", "대학교수료",
    "대학교중퇴", "대학교재학", "전문대학졸업", "전문대학중퇴", "고등학교졸업", "고등학교중퇴",
    "중학교졸업", "중학교중퇴", "초등학교졸업", "초등학교중퇴", "검정고시", "독학", "무학",
    "기타"), start=1))
"""``(eduId, eduName)`` of the education code list (21 codes)."""
