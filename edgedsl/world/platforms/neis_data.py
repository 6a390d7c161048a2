"""Fixed facts and word lists behind the NEIS world (:mod:`edgedsl.world.platforms.neis`).

The 17 시도 education offices with their real codes (``B10`` 서울 … ``T10`` 제주), the number of
schools each runs (about 12,000 in all), the stems school names are made of (with the popular
stems that make 동명 학교 across regions), the school calendar (public holidays, semesters,
vacations), dishes with their allergy numbers, subjects per school level, academy fields, and a
small Revised-Romanization helper for ``ENG_SCHUL_NM``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

from ..addresses import addresses
from ..rand import hash_unit, rng, ymd

__all__ = [
    "ACADEMY_REALMS",
    "DISHES",
    "EVENTS",
    "KINDS",
    "OFFICES",
    "POPULAR_STEMS",
    "STEMS",
    "SUBJECTS",
    "YEARS",
    "Office",
    "holidays",
    "romanize",
    "school_days",
    "semester_of",
]

YEARS = tuple(range(2019, 2027))
"""학년도(AY) the world knows: meals, schedules and timetables exist for these school years."""


@dataclass(frozen=True, slots=True)
class Office:
    """One 시도교육청: NEIS code, names, 법정동 시도 prefix, phone area code, school count."""

    code: str        # ATPT_OFCDC_SC_CODE
    name: str        # ATPT_OFCDC_SC_NM
    sido: str        # LCTN_SC_NM (the NEIS spelling, which may differ from 법정동's)
    prefix: str      # the 2-digit 법정동 시도 code of its addresses
    area: str        # phone area code
    schools: int     # schools it runs (초·중·고·특수)
    code_base: int   # first SD_SCHUL_CODE


OFFICES: tuple[Office, ...] = (
    Office("B10", "서울특별시교육청", "서울특별시", "11", "02", 1350, 7010000),
    Office("C10", "부산광역시교육청", "부산광역시", "26", "051", 640, 7150000),
    Office("D10", "대구광역시교육청", "대구광역시", "27", "053", 460, 7200000),
    Office("E10", "인천광역시교육청", "인천광역시", "28", "032", 540, 7310000),
    Office("F10", "광주광역시교육청", "광주광역시", "29", "062", 320, 7380000),
    Office("G10", "대전광역시교육청", "대전광역시", "30", "042", 310, 7430000),
    Office("H10", "울산광역시교육청", "울산광역시", "31", "052", 250, 7480000),
    Office("I10", "세종특별자치시교육청", "세종특별자치시", "36", "044", 130, 9300000),
    Office("J10", "경기도교육청", "경기도", "41", "031", 2600, 7500000),
    Office("K10", "강원특별자치도교육청", "강원특별자치도", "51", "033", 680, 7800000),
    Office("M10", "충청북도교육청", "충청북도", "43", "043", 490, 8000000),
    Office("N10", "충청남도교육청", "충청남도", "44", "041", 720, 8140000),
    Office("P10", "전북특별자치도교육청", "전북특별자치도", "52", "063", 770, 8320000),
    Office("Q10", "전라남도교육청", "전라남도", "46", "061", 840, 8490000),
    Office("R10", "경상북도교육청", "경상북도", "47", "054", 950, 8700000),
    Office("S10", "경상남도교육청", "경상남도", "48", "055", 1000, 8850000),
    Office("T10", "제주특별자치도교육청", "제주특별자치도", "50", "064", 190, 9290000),
)

KINDS: tuple[tuple[str, float], ...] = (
    ("초등학교", 0.50), ("중학교", 0.27), ("고등학교", 0.215), ("특수학교", 0.015))
"""학교종류 and its share of an office's schools."""

SUFFIX = {"초등학교": "초등학교", "중학교": "중학교", "고등학교": "고등학교", "특수학교": "학교"}

POPULAR_STEMS = ("중앙", "한빛", "신일", "대성", "동신", "제일", "성심", "명덕", "보성", "경신")
"""Stems given to one school of each kind in many offices: the 동명 학교 of the reference."""

STEMS = (
    "새솔", "한결", "푸른", "하늘", "솔빛", "늘푸른", "해오름", "다솜", "가온", "새빛", "은빛",
    "한울", "나래", "샛별", "미래", "희망", "청솔", "느티", "은행", "무지개", "백송", "동산",
    "서진", "남산", "북성", "상원", "신흥", "동명", "문화", "숭덕", "양정", "영신", "정화",
    "충렬", "효행", "덕성", "명신", "세화", "예일", "한양", "광명", "신광", "태평", "평화",
)

SPECIAL_STEMS = ("은혜", "성베드로", "다니엘", "한국선진", "주몽", "혜림", "새롬", "밀알")

HS_TYPES = (("일반고", 0.72), ("특성화고", 0.17), ("특목고", 0.06), ("자율고", 0.05))
SPECIAL_PURPOSE = ("과학계열", "외국어계열", "예술계열", "체육계열", "마이스터고", "국제계열")

MAJORS: dict[str, tuple[str, ...]] = {
    "공업계": ("기계과", "전기과", "전자과", "컴퓨터전자과", "자동차과", "건축과", "화공과",
            "스마트팩토리과"),
    "상업계": ("회계금융과", "경영정보과", "세무회계과", "유통경영과", "관광경영과"),
    "정보통신계": ("소프트웨어과", "정보통신과", "게임콘텐츠과", "인공지능소프트웨어과"),
    "가사실업계": ("조리과", "제과제빵과", "미용과", "패션디자인과"),
    "농업계": ("식품가공과", "원예과", "농업기계과"),
}


def _d(y: int, m: int, d: int) -> date:
    return date(y, m, d)


# 법정 공휴일 (양력 고정 + 음력 + 대체공휴일 + 선거일), 2019–2027
_FIXED = ((1, 1, "신정"), (3, 1, "삼일절"), (5, 5, "어린이날"), (6, 6, "현충일"),
          (8, 15, "광복절"), (10, 3, "개천절"), (10, 9, "한글날"), (12, 25, "성탄절"))
_LUNAR: dict[int, tuple[tuple[str, str], ...]] = {
    2019: (("20190204", "설날"), ("20190205", "설날"), ("20190206", "설날"),
           ("20190512", "부처님오신날"), ("20190912", "추석"), ("20190913", "추석"),
           ("20190914", "추석")),
    2020: (("20200124", "설날"), ("20200125", "설날"), ("20200126", "설날"),
           ("20200127", "대체공휴일"), ("20200415", "국회의원선거일"),
           ("20200430", "부처님오신날"), ("20200817", "임시공휴일"), ("20200930", "추석"),
           ("20201001", "추석"), ("20201002", "추석")),
    2021: (("20210211", "설날"), ("20210212", "설날"), ("20210213", "설날"),
           ("20210519", "부처님오신날"), ("20210816", "대체공휴일"), ("20210920", "추석"),
           ("20210921", "추석"), ("20210922", "추석"), ("20211004", "대체공휴일"),
           ("20211011", "대체공휴일")),
    2022: (("20220131", "설날"), ("20220201", "설날"), ("20220202", "설날"),
           ("20220309", "대통령선거일"), ("20220508", "부처님오신날"),
           ("20220601", "지방선거일"), ("20220909", "추석"), ("20220910", "추석"),
           ("20220911", "추석"), ("20220912", "대체공휴일"), ("20221010", "대체공휴일")),
    2023: (("20230121", "설날"), ("20230122", "설날"), ("20230123", "설날"),
           ("20230124", "대체공휴일"), ("20230527", "부처님오신날"),
           ("20230529", "대체공휴일"), ("20230928", "추석"), ("20230929", "추석"),
           ("20230930", "추석"), ("20231002", "임시공휴일")),
    2024: (("20240209", "설날"), ("20240210", "설날"), ("20240211", "설날"),
           ("20240212", "대체공휴일"), ("20240410", "국회의원선거일"),
           ("20240506", "대체공휴일"), ("20240515", "부처님오신날"), ("20240916", "추석"),
           ("20240917", "추석"), ("20240918", "추석"), ("20241001", "국군의날")),
    2025: (("20250127", "임시공휴일"), ("20250128", "설날"), ("20250129", "설날"),
           ("20250130", "설날"), ("20250303", "대체공휴일"), ("20250505", "부처님오신날"),
           ("20250506", "대체공휴일"), ("20250603", "대통령선거일"), ("20251005", "추석"),
           ("20251006", "추석"), ("20251007", "추석"), ("20251008", "대체공휴일")),
    2026: (("20260216", "설날"), ("20260217", "설날"), ("20260218", "설날"),
           ("20260302", "대체공휴일"), ("20260524", "부처님오신날"),
           ("20260525", "대체공휴일"), ("20260603", "지방선거일"),
           ("20260817", "대체공휴일"), ("20260924", "추석"), ("20260925", "추석"),
           ("20260926", "추석"), ("20261005", "대체공휴일")),
    2027: (("20270206", "설날"), ("20270207", "설날"), ("20270208", "설날"),
           ("20270209", "대체공휴일")),
}


def holidays(year: int) -> dict[str, str]:
    """``YYYYMMDD`` → holiday name for one calendar year."""
    out = {f"{year}{m:02d}{d:02d}": name for m, d, name in _FIXED}
    out.update(dict(_LUNAR.get(year, ())))
    return out


def semester_of(ay: int, day: date, jitter: int = 0) -> int:
    """The semester (1 or 2) ``day`` belongs to in school year ``ay`` (0: vacation / outside).

    1학기: 3월 첫 평일 – 7월 셋째 주 금요일 무렵; 2학기: 8월 셋째 주 – 이듬해 1월 첫 주.
    ``jitter`` (−3 … 3 days) moves a school's vacation dates a little.
    """
    start1 = _d(ay, 3, 2)
    end1 = _d(ay, 7, 19) + timedelta(days=jitter)
    start2 = _d(ay, 8, 19) + timedelta(days=jitter)
    end2 = _d(ay + 1, 1, 7) + timedelta(days=jitter)
    if start1 <= day <= end1:
        return 1
    if start2 <= day <= end2:
        return 2
    return 0


def school_days(ay: int, jitter: int, closed: frozenset[str]) -> list[tuple[date, int]]:
    """The days classes meet in school year ``ay``: ``(day, semester)`` in date order.

    Weekends, public holidays and the school's own ``closed`` days (재량휴업일) are left out.
    """
    hol = holidays(ay) | holidays(ay + 1)
    out: list[tuple[date, int]] = []
    day = _d(ay, 3, 1)
    end = _d(ay + 1, 2, 28)
    while day <= end:
        sem = semester_of(ay, day, jitter)
        key = day.strftime("%Y%m%d")
        if sem and day.weekday() < 5 and key not in hol and key not in closed:
            out.append((day, sem))
        day += timedelta(days=1)
    return out


EVENTS: tuple[tuple[int, int, str, str], ...] = (
    (3, 2, "입학식", "신입생 입학식"), (3, 2, "시업식", ""), (4, 10, "과학의 날 행사", ""),
    (4, 25, "1학기 중간고사", "1학기 1차 지필평가"), (5, 15, "체육대회", "전교생 체육대회"),
    (5, 28, "현장체험학습", "학년별 현장체험학습"), (6, 12, "학부모 공개수업", ""),
    (7, 2, "1학기 기말고사", "1학기 2차 지필평가"), (7, 18, "여름방학식", ""),
    (8, 19, "개학식", "2학기 개학"), (9, 5, "수학여행", "2학년 수학여행"),
    (10, 15, "2학기 중간고사", "2학기 1차 지필평가"), (10, 28, "학교축제", ""),
    (11, 14, "대학수학능력시험", "수능 시험장 학교 휴업"), (12, 8, "2학기 기말고사", ""),
    (12, 23, "겨울방학식", ""), (1, 6, "졸업식", "제{n}회 졸업식"), (1, 7, "종업식", ""),
)
"""(month, day, 행사명, 행사내용) of a school year; a school moves each by a few days, but for
the events that open or close a semester (:func:`_semester_bounds`)."""


def _semester_bounds(s: S, ay: int) -> dict[str, date]:
    """The days of the events that open or close a semester, from the school's own calendar:
    입학식 and 시업식 on the year's first school day, 여름방학식 on the first semester's last,
    개학식 on the second's first, 겨울방학식, 종업식 and 졸업식 on the year's last (the year ends
    in early January, and the winter vacation with it). Drawn near a date like the other events,
    2024's 입학식 fell on 3/4 and its 시업식 on 3/5, a 여름방학식 after the vacation, and a
    종업식 past the year's last school day was left out (issue 21 §9)."""
    cal = calendar(s, ay)
    first = [d for d, sem in cal if sem == 1]
    second = [d for d, sem in cal if sem == 2]
    out: dict[str, date] = {}
    if first:
        out |= {"입학식": first[0], "시업식": first[0], "여름방학식": first[-1]}
    if second:
        out |= {"개학식": second[0], "겨울방학식": second[-1], "종업식": second[-1],
                "졸업식": second[-1]}
    return out

# (dish, allergy numbers) — 1 난류 2 우유 3 메밀 4 땅콩 5 대두 6 밀 7 고등어 8 게 9 새우
# 10 돼지고기 11 복숭아 12 토마토 13 아황산류 14 호두 15 닭고기 16 쇠고기 17 오징어 18 조개류 19 잣
DISHES: dict[str, tuple[tuple[str, str], ...]] = {
    "밥": (("쌀밥", ""), ("현미밥", ""), ("잡곡밥", ""), ("보리밥", ""), ("흑미밥", ""),
          ("카레라이스", "2.5.6.10.12.13"), ("김치볶음밥", "5.6.9.10.13"),
          ("비빔밥", "1.5.6.13.16"), ("차수수밥", ""), ("기장밥", "")),
    "국": (("된장국", "5.6.9"), ("미역국", "5.6.16"), ("소고기무국", "5.6.16"),
          ("김치찌개", "5.9.10.13"), ("어묵국", "1.5.6"), ("콩나물국", "5.6.9"),
          ("순두부찌개", "5.6.9.10.18"), ("육개장", "5.6.13.16"), ("닭곰탕", "5.15"),
          ("감자국", "5.6.9"), ("북어국", "1.5.6"), ("유부장국", "5.6")),
    "주찬": (("돈육불고기", "5.6.10.13"), ("닭갈비", "5.6.13.15"), ("고등어구이", "7"),
           ("제육볶음", "5.6.10.13"), ("돈가스", "1.2.5.6.10.12.13"),
           ("탕수육", "1.5.6.10.12.13"), ("오징어볶음", "5.6.13.17"), ("떡갈비", "5.6.10.16"),
           ("함박스테이크", "1.2.5.6.10.12.16"), ("치킨까스", "1.2.5.6.12.15"),
           ("찜닭", "5.6.13.15"), ("삼치데리야끼", "5.6.13"), ("소불고기", "5.6.13.16"),
           ("새우튀김", "1.5.6.9")),
    "부찬": (("시금치나물", "5"), ("콩나물무침", "5"), ("멸치볶음", "5.6.13"),
           ("감자조림", "5.6"), ("계란말이", "1"), ("어묵볶음", "1.5.6"), ("잡채", "5.6.10"),
           ("두부조림", "5.6"), ("무생채", "13"), ("도토리묵무침", "5.6"),
           ("브로콜리숙회", ""), ("진미채볶음", "5.6.13.17"), ("연근조림", "5.6")),
    "김치": (("배추김치", "9.13"), ("깍두기", "9.13"), ("총각김치", "9.13"),
           ("열무김치", "9.13"), ("석박지", "9.13")),
    "후식": (("우유", "2"), ("요구르트", "2"), ("사과", ""), ("귤", ""), ("바나나", ""),
           ("수박", ""), ("요플레", "2"), ("식혜", ""), ("방울토마토", "12"),
           ("복숭아", "11"), ("초코우유", "2.5")),
}

ORIGINS = ("쌀 : 국내산", "김치류 : 국내산", "고춧가루(김치류) : 국내산",
           "쇠고기(종류) : 국내산(한우)", "돼지고기 : 국내산", "닭고기 : 국내산",
           "오리고기 : 국내산", "쇠고기 식육가공품 : 국내산", "돼지고기 식육가공품 : 국내산",
           "닭고기 식육가공품 : 국내산", "낙지 : 국내산", "고등어 : 국내산", "갈치 : 국내산",
           "오징어 : 원양산", "꽃게 : 국내산", "참조기 : 국내산", "콩 : 국내산")

NUTRIENTS = (("탄수화물(g)", 80.0, 130.0), ("단백질(g)", 20.0, 45.0), ("지방(g)", 12.0, 30.0),
             ("비타민A(R.E)", 80.0, 300.0), ("티아민(mg)", 0.2, 0.8),
             ("리보플라빈(mg)", 0.2, 0.9), ("비타민C(mg)", 5.0, 40.0),
             ("칼슘(mg)", 100.0, 400.0), ("철분(mg)", 2.0, 6.0))

SUBJECTS: dict[str, tuple[str, ...]] = {
    "els_low": ("국어", "수학", "바른 생활", "슬기로운 생활", "즐거운 생활", "창의적 체험활동",
                "안전한 생활"),
    "els": ("국어", "수학", "사회", "과학", "영어", "도덕", "체육", "음악", "미술", "실과",
            "창의적 체험활동"),
    "mis": ("국어", "수학", "영어", "사회", "역사", "과학", "도덕", "기술·가정", "정보", "체육",
            "음악", "미술", "한문", "진로와 직업", "스포츠클럽", "자율활동", "동아리활동"),
    "his1": ("국어", "수학", "영어", "통합사회", "통합과학", "한국사", "과학탐구실험", "체육",
             "음악", "미술", "기술·가정", "정보", "자율활동", "동아리활동"),
    "his": ("문학", "독서", "수학Ⅰ", "수학Ⅱ", "확률과 통계", "미적분", "영어Ⅰ", "영어Ⅱ",
            "영어 독해와 작문", "물리학Ⅰ", "화학Ⅰ", "생명과학Ⅰ", "지구과학Ⅰ", "생활과 윤리",
            "한국지리", "세계사", "사회·문화", "운동과 건강", "중국어Ⅰ", "일본어Ⅰ", "진로활동",
            "자율활동"),
    "sps": ("국어", "수학", "사회", "과학", "생활영어", "직업·생활", "일상생활 활동", "체육",
            "음악", "미술", "창의적 체험활동"),
}

ACADEMY_REALMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("입시.검정 및 보습", "보통교과", ("보습", "입시", "검정", "논술")),
    ("국제화", "외국어", ("실용외국어", "영어", "중국어", "일본어")),
    ("예능(대)", "예능(중)", ("음악", "미술", "무용", "연극")),
    ("정보", "정보", ("컴퓨터", "코딩")),
    ("독서실", "독서실", ("독서실",)),
    ("기예(대)", "기예(중)", ("바둑", "주산", "속셈", "서예")),
    ("종합(대)", "종합(중)", ("종합",)),
)
"""(REALM_SC_NM 분야, LE_ORD_NM 교습계열, LE_CRSE_NM 교습과정 choices)."""

ACADEMY_WORDS = ("한솔", "에듀", "수학의정석", "영재", "명문", "스마트", "해법", "탑클래스",
                 "시원", "정상", "대치", "튼튼", "바른", "리더스", "생각하는", "키즈", "위즈",
                 "와이즈", "청담", "씨앤씨", "비상", "이룸", "하이", "으뜸", "필즈")

# ---------------------------------------------------------------- romanization

_INITIAL = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k",
            "t", "p", "h")
_MEDIAL = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u",
           "wo", "we", "wi", "yu", "eu", "ui", "i")
_FINAL = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p",
          "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t")


def romanize(text: str) -> str:
    """Hangul → a simplified Revised Romanization (no sound-change rules), capitalised."""
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            ini, rest = divmod(code, 588)
            med, fin = divmod(rest, 28)
            lead = "g" if ini == 0 else _INITIAL[ini]
            out.append(lead + _MEDIAL[med] + _FINAL[fin])
        else:
            out.append(ch)
    s = "".join(out)
    return s[:1].upper() + s[1:]

# ---------------------------------------------------------------- 교육지원청

SEOUL_JU = {
    "종로구": "중부", "중구": "중부", "용산구": "중부", "동대문구": "동부", "중랑구": "동부",
    "마포구": "서부", "서대문구": "서부", "은평구": "서부", "구로구": "남부", "금천구": "남부",
    "영등포구": "남부", "노원구": "북부", "도봉구": "북부", "강동구": "강동송파",
    "송파구": "강동송파", "강서구": "강서양천", "양천구": "강서양천", "강남구": "강남서초",
    "서초구": "강남서초", "동작구": "동작관악", "관악구": "동작관악", "성동구": "성동광진",
    "광진구": "성동광진", "성북구": "성북강북", "강북구": "성북강북",
}

DOMAINS = {"B10": "sen", "C10": "pen", "D10": "dge", "E10": "ice", "F10": "gen", "G10": "dje",
           "H10": "use", "I10": "sje", "J10": "goe", "K10": "gwe", "M10": "cbe", "N10": "cne",
           "P10": "jbe", "Q10": "jne", "R10": "gbe", "S10": "gne", "T10": "jje"}


def support_office(office: Office, sgg: str) -> str:
    """관할 교육지원청 (``JU_ORG_NM``) of a school in 시군구 ``sgg``."""
    if office.code == "B10":
        return f"서울특별시{SEOUL_JU.get(sgg.split(' ')[0], '중부')}교육지원청"
    if not sgg:
        return office.name
    city = sgg.split(" ")[0]
    stem = city[:-1] if len(city) > 2 and city[-1] in "시군구" else city
    return f"{office.sido}{stem}교육지원청"


# ================================================================ per-request rows
#
# Everything below is a pure function of a school (its hashable :class:`S` key) and the request
# window, cached so that reading the pages of one answer generates the rows once.

DEFAULT_AY = 2024
"""The school year a timetable request without any date or ``AY`` reads."""

FIRST_DAY = date(YEARS[0], 3, 1)
LAST_DAY = date(YEARS[-1] + 1, 2, 28)
_MEAL_NM = {"1": "조식", "2": "중식", "3": "석식"}
_GRADE_YN = ("ONE_GRADE_EVENT_YN", "TW_GRADE_EVENT_YN", "THREE_GRADE_EVENT_YN",
             "FR_GRADE_EVENT_YN", "FIV_GRADE_EVENT_YN", "SIX_GRADE_EVENT_YN")
_SPS_COURSES = (("초등학교과정", 6), ("중학교과정", 3), ("고등학교과정", 3))
_SPECIAL_ROOMS = ("과학실", "음악실", "미술실", "컴퓨터실", "체육관", "도서실")


class S(NamedTuple):
    """The hashable facts of one school that its per-request rows depend on."""

    seed: int
    atpt: str
    atpt_nm: str
    code: str
    name: str
    kind_nm: str
    kind: str
    size: int
    majors: tuple[tuple[str, str], ...]
    meals: tuple[str, ...]
    jitter: int
    load: str


def skey(school: Mapping[str, Any]) -> S:
    """The :class:`S` key of a ``neis_schools`` row."""
    return S(int(school["_seed"]), school["ATPT_OFCDC_SC_CODE"], school["ATPT_OFCDC_SC_NM"],
             school["SD_SCHUL_CODE"], school["SCHUL_NM"], school["SCHUL_KND_SC_NM"],
             school["_kind"], int(school["_size"]), tuple(school["_majors"]),
             tuple(school["_meals"]), int(school["_jitter"]), school["LOAD_DTM"])


def _base(s: S) -> dict[str, Any]:
    return {"ATPT_OFCDC_SC_CODE": s.atpt, "ATPT_OFCDC_SC_NM": s.atpt_nm,
            "SD_SCHUL_CODE": s.code, "SCHUL_NM": s.name}


def _ay(day: date) -> int:
    return day.year if day.month >= 3 else day.year - 1


def _parse(v: str) -> date:
    if len(v) != 8 or not v.isdigit():
        raise ValueError(v)
    return date(int(v[:4]), int(v[4:6]), int(v[6:8]))


def window(params: Mapping[str, str], one: str, lo: str, hi: str,
           default: tuple[date, date] = (FIRST_DAY, LAST_DAY)) -> tuple[date, date] | None:
    """The date window a request asks for (``one`` day, or ``lo``–``hi``), narrowed by ``AY``.

    None when a date does not parse (the service then has no data to answer).
    """
    try:
        vals = {k: str(params.get(k, "")).strip() for k in (one, lo, hi, "AY")}
        if vals[one]:
            start = end = _parse(vals[one])
        elif vals[lo] or vals[hi] or vals["AY"]:
            start = _parse(vals[lo]) if vals[lo] else FIRST_DAY
            end = _parse(vals[hi]) if vals[hi] else LAST_DAY
        else:
            start, end = default
        if vals["AY"]:
            ay = int(vals["AY"])
            start, end = max(start, date(ay, 3, 1)), min(end, date(ay + 1, 2, 28))
    except ValueError:
        return None
    return (start, end) if start <= end else None


def _ays(w: tuple[date, date]) -> range:
    return range(max(_ay(w[0]), YEARS[0]), min(_ay(w[1]), YEARS[-1]) + 1)


def _closed(s: S, ay: int) -> frozenset[str]:
    cands = (date(ay, 3, 31), date(ay, 5, 2), date(ay, 5, 4), date(ay, 6, 5), date(ay, 9, 30),
             date(ay, 10, 2), date(ay, 10, 4), date(ay, 11, 17))
    return frozenset(ymd(d) for d in cands
                     if d.weekday() < 5 and hash_unit(s.seed, "closed", s.code, d) < 0.3)


@lru_cache(maxsize=1024)
def calendar(s: S, ay: int) -> tuple[tuple[date, int], ...]:
    """The days classes (and meals) happen at school ``s`` in school year ``ay``."""
    return tuple(school_days(ay, s.jitter, _closed(s, ay)))


def _grades(s: S, only: Iterable[int] | None) -> dict[str, str]:
    n = 6 if s.kind in ("els", "sps") else 3
    want = set(only) if only is not None else None
    return {name: "*" if i > n else ("Y" if want is None or i in want else "N")
            for i, name in enumerate(_GRADE_YN, 1)}


# ---------------------------------------------------------------- meals


def _meal(s: S, day: date, code: str) -> dict[str, Any]:
    key = ymd(day)
    r = rng(s.seed, f"neis_meal/{s.code}/{key}/{code}")
    parts = ["밥", "국", "주찬", "부찬", "김치"]
    if code == "2":
        parts.insert(4, "부찬")
    if r.random() < 0.5:
        parts.append("후식")
    dishes: list[tuple[str, str]] = []
    for part in parts:
        name, allergy = r.choice(DISHES[part])
        if name not in (d[0] for d in dishes):
            dishes.append((name, allergy))
    ddish = "<br/>".join(f"{n} ({a})" if a else n for n, a in dishes)
    base = {"els": 600.0, "mis": 760.0, "his": 850.0, "sps": 620.0}[s.kind]
    if code != "2":
        base *= 0.8
    kcal = base + r.uniform(-90.0, 120.0)
    ntr = "<br/>".join(f"{n} : {r.uniform(lo, hi):.1f}" for n, lo, hi in NUTRIENTS)
    grades = 6 if s.kind == "els" else 3
    servings = s.size * grades * 26 + r.randint(-20, 20) if code == "2" else \
        s.size * 40 + r.randint(0, 30)
    return {**_base(s), "MMEAL_SC_CODE": code, "MMEAL_SC_NM": _MEAL_NM[code], "MLSV_YMD": key,
            "MLSV_FGR": str(max(servings, 12)), "DDISH_NM": ddish,
            "ORPLC_INFO": "<br/>".join(r.sample(ORIGINS, k=8)), "CAL_INFO": f"{kcal:.1f} Kcal",
            "NTR_INFO": ntr, "MLSV_FROM_YMD": key, "MLSV_TO_YMD": key, "LOAD_DTM": key}


@lru_cache(maxsize=256)
def _meals(s: S, w: tuple[date, date]) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for ay in _ays(w):
        for day, _sem in calendar(s, ay):
            if w[0] <= day <= w[1]:
                out.extend(_meal(s, day, code) for code in s.meals)
    return tuple(out)


def meal_rows(school: Mapping[str, Any], params: Mapping[str, str]) -> list[dict[str, Any]]:
    """급식식단 rows of a school for the requested day or window (every school day × meal)."""
    w = window(params, "MLSV_YMD", "MLSV_FROM_YMD", "MLSV_TO_YMD")
    return [] if w is None else list(_meals(skey(school), w))


# ---------------------------------------------------------------- 학사일정


def _event_days(s: S, ay: int, days: list[date]) -> dict[date, list[tuple[str, str, Any]]]:
    out: dict[date, list[tuple[str, str, Any]]] = {}
    bounds = _semester_bounds(s, ay)
    last = 6 if s.kind in ("els", "sps") else 3
    for month, day, name, content in EVENTS:
        if name == "대학수학능력시험" and s.kind != "his":
            continue
        year = ay if month >= 3 else ay + 1
        want = date(year, month, day) + timedelta(days=int(hash_unit(s.seed, s.code, name, ay) * 4))
        on = bounds.get(name) or next((d for d in days if d >= want), None)
        if on is None:
            continue
        only: Any = {"입학식": (1,), "졸업식": (last,), "수학여행": (2,)}.get(name)
        text = content.replace("{n}", str(ay - 1950 + int(hash_unit(s.seed, s.code) * 20)))
        out.setdefault(on, []).append((name, text, only))
    return out


@lru_cache(maxsize=512)
def _schedule(s: S, ay: int) -> tuple[dict[str, Any], ...]:
    hol = holidays(ay) | holidays(ay + 1)
    closed = _closed(s, ay)
    school = [d for d, _ in calendar(s, ay)]
    events = _event_days(s, ay, school)
    crse = s.kind_nm
    out: list[dict[str, Any]] = []

    def row(day: date, name: str, sbtr: str, content: str = "", only: Any = None) -> None:
        out.append({**_base(s), "AY": str(ay), "DGHT_CRSE_SC_NM": "주간",
                    "SCHUL_CRSE_SC_NM": crse, "SBTR_DD_SC_NM": sbtr, "AA_YMD": ymd(day),
                    "EVENT_NM": name, "EVENT_CNTNT": content or None, **_grades(s, only),
                    "LOAD_DTM": s.load})

    day, end = date(ay, 3, 1), date(ay + 1, 2, 28)
    while day <= end:
        key = ymd(day)
        if key in hol:
            row(day, hol[key], "공휴일")
        elif day.weekday() == 5:
            row(day, "토요휴업일", "휴업일")
        elif day.weekday() == 6:
            pass
        elif key in closed:
            row(day, "재량휴업일", "휴업일")
        elif not semester_of(ay, day, s.jitter):
            row(day, "여름방학" if 6 <= day.month <= 9 else "겨울방학", "휴업일")
        for name, content, only in events.get(day, ()):
            row(day, name, "해당없음", content, only)
        day += timedelta(days=1)
    return tuple(out)


def schedule_rows(school: Mapping[str, Any], params: Mapping[str, str]) -> list[dict[str, Any]]:
    """학사일정 rows of a school: events, 토요휴업일, 방학 days and 공휴일 in the window."""
    w = window(params, "AA_YMD", "AA_FROM_YMD", "AA_TO_YMD")
    if w is None:
        return []
    s = skey(school)
    lo, hi = ymd(w[0]), ymd(w[1])
    return [r for ay in _ays(w) for r in _schedule(s, ay) if lo <= r["AA_YMD"] <= hi]


# ---------------------------------------------------------------- 학급·시간표


def _units(s: S, ay: int) -> list[tuple[str, int, int]]:
    """``(학교과정, grade, classes)`` of school ``s`` in school year ``ay``."""
    if s.kind == "sps":
        return [(c, g, 1) for c, n in _SPS_COURSES for g in range(1, n + 1)]
    grades = 6 if s.kind == "els" else 3
    out = []
    for g in range(1, grades + 1):
        drift = round((hash_unit(s.seed, s.code, ay, g) - 0.5) * 2.4)
        out.append((s.kind_nm, g, max(1, s.size + drift)))
    return out


def _major(s: S, cls: int) -> tuple[str | None, str | None]:
    if s.kind != "his" or not s.majors:
        return None, None
    return s.majors[(cls - 1) % len(s.majors)]


def _periods(s: S, grade: int, weekday: int) -> int:
    if s.kind == "his":
        return 6 if weekday == 4 else 7
    if s.kind == "mis":
        return 7 if weekday in (1, 3) else 6
    if s.kind == "sps":
        return 5
    return (4, 5, 4, 5, 4)[weekday] if grade <= 2 else (5, 6, 5, 6, 5)[weekday] + (grade >= 5)


def _subjects(s: S, grade: int) -> tuple[str, ...]:
    if s.kind == "els":
        return SUBJECTS["els_low" if grade <= 2 else "els"]
    if s.kind == "his":
        return SUBJECTS["his1" if grade == 1 else "his"]
    return SUBJECTS[s.kind]


@lru_cache(maxsize=128)
def _timetable(s: S, w: tuple[date, date], sem: str, grade: str,
               cls: str) -> tuple[dict[str, Any], ...]:
    out = []
    for ay in _ays(w):
        units = [u for u in _units(s, ay) if not grade or str(u[1]) == grade]
        for day, semester in calendar(s, ay):
            if not w[0] <= day <= w[1] or (sem and str(semester) != sem):
                continue
            wd, key = day.weekday(), ymd(day)
            for crse, g, n in units:
                subjects = _subjects(s, g)
                for c in range(1, n + 1):
                    if cls and str(c) != cls:
                        continue
                    ord_nm, dddep = _major(s, c)
                    for p in range(1, _periods(s, g, wd) + 1):
                        h = hash_unit(s.seed, s.code, ay, semester, crse, g, c, wd, p)
                        subject = subjects[int(h * len(subjects))]
                        row = {**_base(s), "AY": str(ay), "SEM": str(semester),
                               "ALL_TI_YMD": key}
                        if s.kind in ("his", "mis"):
                            row["DGHT_CRSE_SC_NM"] = "주간"
                        if s.kind == "his":
                            row["ORD_SC_NM"], row["DDDEP_NM"] = ord_nm, dddep
                        if s.kind == "sps":
                            row["SCHUL_CRSE_SC_NM"] = crse
                        row["GRADE"] = str(g)
                        if s.kind in ("his", "sps"):
                            room = _SPECIAL_ROOMS[int(h * 97) % len(_SPECIAL_ROOMS)]
                            row["CLRM_NM"] = room if h > 0.85 else f"{g}-{c}"
                        row.update(CLASS_NM=str(c), PERIO=str(p), ITRT_CNTNT=subject,
                                   LOAD_DTM=key)
                        out.append(row)
    return tuple(out)


def timetable_rows(school: Mapping[str, Any], kind: str,
                   params: Mapping[str, str]) -> list[dict[str, Any]]:
    """``kind`` (``his``/``mis``/``els``/``sps``) timetable rows: one per class period.

    A school of another kind has none. Without a date or ``AY`` the window is
    :data:`DEFAULT_AY`'s school year.
    """
    s = skey(school)
    if s.kind != kind:
        return []
    w = window(params, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD",
               default=(date(DEFAULT_AY, 3, 1), date(DEFAULT_AY + 1, 2, 28)))
    if w is None:
        return []
    get = {k: str(params.get(k, "")).strip() for k in ("SEM", "GRADE", "CLASS_NM")}
    return list(_timetable(s, w, get["SEM"], get["GRADE"], get["CLASS_NM"]))


def _years(params: Mapping[str, str]) -> list[int]:
    ay = str(params.get("AY", "")).strip()
    if not ay:
        return list(YEARS)
    return [int(ay)] if ay.isdigit() and int(ay) in YEARS else []


def class_rows(school: Mapping[str, Any], params: Mapping[str, str]) -> list[dict[str, Any]]:
    """학급정보: one row per class of each grade and school year (``AY`` or every year)."""
    s = skey(school)
    out = []
    for ay in _years(params):
        for crse, g, n in _units(s, ay):
            for c in range(1, n + 1):
                ord_nm, dddep = _major(s, c)
                out.append({**_base(s), "AY": str(ay), "GRADE": str(g), "DGHT_CRSE_SC_NM": "주간",
                            "SCHUL_CRSE_SC_NM": crse, "ORD_SC_NM": ord_nm, "DDDEP_NM": dddep,
                            "CLASS_NM": str(c), "LOAD_DTM": f"{ay}0302"})
    return out


def classroom_rows(school: Mapping[str, Any],
                   params: Mapping[str, str]) -> list[dict[str, Any]]:
    """시간표강의실정보: homerooms and special rooms per school year, semester and grade."""
    s = skey(school)
    out = []
    for ay in _years(params):
        for sem in ("1", "2"):
            for crse, g, n in _units(s, ay):
                rooms = [(f"{g}-{c}", c) for c in range(1, n + 1)]
                if s.kind in ("his", "mis"):
                    rooms += [(f"{r}{g}", 1) for r in _SPECIAL_ROOMS[:3]]
                for room, c in rooms:
                    ord_nm, dddep = _major(s, c)
                    out.append({**_base(s), "AY": str(ay), "GRADE": str(g), "SEM": sem,
                                "SCHUL_CRSE_SC_NM": crse, "DGHT_CRSE_SC_NM": "주간",
                                "ORD_SC_NM": ord_nm, "DDDEP_NM": dddep, "CLRM_NM": room,
                                "LOAD_DTM": f"{ay}0302"})
    return out


# ---------------------------------------------------------------- 학원교습소


@lru_cache(maxsize=20)
def academy_rows(seed: int, office_code: str) -> tuple[dict[str, Any], ...]:
    """Every 학원·교습소 of one office (five per school it runs), at addresses of its 시도."""
    office = next((o for o in OFFICES if o.code == office_code), None)
    if office is None:
        return ()
    r = rng(seed, f"neis_academies/{office.code}")
    pool = [a for a in addresses(seed) if str(a["admCd"]).startswith(office.prefix)]
    out = []
    for n in range(office.schools * 5):
        a = pool[r.randrange(len(pool))]
        realm, order, courses = ACADEMY_REALMS[min(int(r.random() ** 1.6 * len(ACADEMY_REALMS)),
                                                   len(ACADEMY_REALMS) - 1)]
        course = r.choice(courses)
        kind = "교습소" if r.random() < 0.25 else "학원"
        name = f"{r.choice(ACADEMY_WORDS)}{course if course != '종합' else ''}{kind}"
        if r.random() < 0.3:
            name = f"{a['emdNm']}{name}"
        est = date(1985, 1, 1) + timedelta(days=r.randint(0, 14000))
        status = "휴원" if r.random() < 0.06 else "개원"
        cap = r.randint(4, 300) if kind == "학원" else r.randint(4, 9)
        fee = ",".join(f"{course}({lv}):{r.randrange(8, 60) * 10000}"
                       for lv in r.sample(("초등", "중등", "고등"), k=r.randint(1, 3)))
        out.append({
            "ATPT_OFCDC_SC_CODE": office.code, "ATPT_OFCDC_SC_NM": office.name,
            "ADMST_ZONE_NM": a["sggNm"] or a["siNm"], "ACA_INSTI_SC_NM": kind,
            "ACA_ASNUM": f"{3000000000 + OFFICES.index(office) * 10_000_000 + n * 7 + 1}",
            "ACA_NM": name, "ESTBL_YMD": ymd(est), "REG_YMD": ymd(est),
            "REG_STTUS_NM": status,
            "CAA_BEGIN_YMD": "20250101" if status == "휴원" else None,
            "CAA_END_YMD": "20251231" if status == "휴원" else None,
            "TOFOR_SMTOT": str(cap), "DTM_RCPTN_ABLTY_NMPR_SMTOT": str(max(1, cap // 3)),
            "REALM_SC_NM": realm, "LE_ORD_NM": order, "LE_CRSE_LIST_NM": course,
            "LE_CRSE_NM": course, "PSNBY_THCC_CNTNT": fee,
            "THCC_OTHBC_YN": "Y" if r.random() < 0.8 else "N",
            "BRHS_ACA_YN": "Y" if r.random() < 0.004 else "N", "FA_RDNZC": a["zipNo"],
            "FA_RDNMA": a["roadAddrPart1"],
            "FA_RDNDA": f", {r.randint(1, 8)}층{a['roadAddrPart2']}",
            "LOAD_DTM": ymd(date(2024, 6, 1) + timedelta(days=r.randint(0, 300))),
        })
    return tuple(out)
