"""The finance world's company universe, market calendar and financial model.

One universe of companies serves both regulators: OpenDART (:mod:`.dart`) and the 금융위원회
services on data.go.kr (:mod:`.fsc`). Every company has a DART ``corp_code``, a 법인등록번호
(``jurir_no`` = FSC ``crno``), a 사업자등록번호 and an address drawn from the shared ``addresses``
dataset (DART ``adres`` = juso ``roadAddr``, so an address search finds it); listed companies also
have a KRX short code, an ISIN and a market. The 삼성 family and other large companies keep their
real codes (DART ``corp_code``, KRX ``stock_code``) where they are well known; the rest are
synthetic but realistic (≈2,650 listed companies, ≈22,700 filers in all, near-duplicate names).

Everything is deterministic from the world's seed; the universe is built once per seed and kept.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import date, timedelta
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ..addresses import addresses
from ..diskcache import disk_cached
from ..rand import hash_unit, korean_name, rng

if TYPE_CHECKING:
    from ..engine import World

__all__ = [
    "FIRST_YEAR",
    "TODAY",
    "Corp",
    "Universe",
    "account_amounts",
    "bizr_check",
    "crno_check",
    "holidays",
    "is_trading_day",
    "isin",
    "mix",
    "trading_days",
    "unit",
    "universe",
]

TODAY = date(2026, 11, 27)
"""The world's "today" for the finance platforms: nothing is filed or traded after it."""

FIRST_YEAR = 2015
"""The first year with filings, prices and financial statements (OpenDART: from 2015)."""

N_KOSPI, N_KOSDAQ, N_KONEX = 940, 1590, 125
N_UNLISTED = 20_000

# ------------------------------------------------------------------ fast stateless hashing

_M64 = (1 << 64) - 1


def mix(*parts: int) -> int:
    """A 64-bit splitmix hash of integers (fast, stateless, deterministic)."""
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h = (h ^ (p & _M64)) * 0xBF58476D1CE4E5B9 & _M64
        h ^= h >> 31
        h = h * 0x94D049BB133111EB & _M64
        h ^= h >> 29
    return h


def unit(*parts: int) -> float:
    """A number in [0, 1) from :func:`mix`."""
    return mix(*parts) / 2**64


# ------------------------------------------------------------------ check digits


def crno_check(body12: str) -> str:
    """The 13th digit of a 법인등록번호 (weights 1,2,1,2,…)."""
    digits = list(map(int, body12))
    s = sum(digits[0::2]) + 2 * sum(digits[1::2])
    return str((10 - s % 10) % 10)


def bizr_check(body9: str) -> str:
    """The 10th digit of a 사업자등록번호 (weights 1,3,7,1,3,7,1,3,5 plus the carry)."""
    d = list(map(int, body9))
    s = (d[0] + d[3] + d[6]) + 3 * (d[1] + d[4] + d[7]) + 7 * (d[2] + d[5]) + 5 * d[8] \
        + d[8] * 5 // 10
    return str((10 - s % 10) % 10)


def isin(body11: str) -> str:
    """``KR7005930000``-style ISIN: the 11-character body plus its Luhn check digit."""
    digits = "".join(str(int(c, 36)) for c in body11)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body11 + str((10 - total % 10) % 10)


# ------------------------------------------------------------------ the KRX calendar

# 공휴일 (fixed-date ones are added per year below): 설날·추석 연휴, 부처님오신날, 선거일,
# 대체공휴일, 임시공휴일, 2015–2026.
_MOVABLE = """
20150218 20150219 20150220 20150525 20150814 20150928 20150929
20160207 20160208 20160209 20160210 20160413 20160506 20160514 20160914 20160915 20160916
20170127 20170128 20170129 20170130 20170503 20170509 20171002 20171004 20171005 20171006
20180215 20180216 20180217 20180507 20180522 20180613 20180923 20180924 20180925 20180926
20190204 20190205 20190206 20190506 20190512 20190912 20190913 20190914
20200124 20200125 20200126 20200127 20200415 20200430 20200817 20200930 20201001 20201002
20210211 20210212 20210213 20210519 20210816 20210920 20210921 20210922 20211004 20211011
20220131 20220201 20220202 20220309 20220508 20220601 20220909 20220910 20220911 20220912
20221010
20230121 20230122 20230123 20230124 20230527 20230529 20230928 20230929 20230930 20231002
20240209 20240210 20240211 20240212 20240410 20240506 20240515 20240916 20240917 20240918
20241001
20250127 20250128 20250129 20250130 20250303 20250505 20250506 20250603 20251005 20251006
20251007 20251008
20260216 20260217 20260218 20260302 20260524 20260525 20260603 20260817 20260924 20260925
20260926 20261005
"""
_FIXED = ("0101", "0301", "0505", "0606", "0815", "1003", "1009", "1225")
_MARKET_ONLY = ("0501", "1231")  # 근로자의 날, 연말 휴장일


@cache
def holidays() -> frozenset[str]:
    """KRX closing days other than weekends, 2015–2026, as ``YYYYMMDD`` strings."""
    out = set(_MOVABLE.split())
    for y in range(FIRST_YEAR, 2027):
        out.update(f"{y}{md}" for md in _FIXED + _MARKET_ONLY)
    return frozenset(out)


def is_trading_day(d: date) -> bool:
    """Whether the market was open on ``d`` (weekday, not a holiday, within the world)."""
    return (d.weekday() < 5 and d.strftime("%Y%m%d") not in holidays()
            and date(FIRST_YEAR, 1, 1) <= d <= TODAY)


@cache
def trading_days() -> tuple[date, ...]:
    """Every trading day of the world, oldest first."""
    d, out = date(FIRST_YEAR, 1, 1), []
    while d <= TODAY:
        if is_trading_day(d):
            out.append(d)
        d += timedelta(days=1)
    return tuple(out)


# ------------------------------------------------------------------ industries and names

# (KSIC code, 표준산업분류명, name suffixes)
INDUSTRIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("261", "반도체 제조업", ("반도체", "세미콘", "머티리얼즈", "테크")),
    ("262", "전자부품 제조업", ("전자", "일렉트로닉스", "디스플레이", "옵틱스")),
    ("264", "통신 및 방송 장비 제조업", ("통신", "네트웍스", "텔레콤", "전자")),
    ("212", "의약품 제조업", ("제약", "바이오", "파마", "약품")),
    ("271", "의료용 기기 제조업", ("메디칼", "헬스케어", "메디텍", "바이오텍")),
    ("201", "기초 화학물질 제조업", ("화학", "케미칼", "소재", "켐")),
    ("282", "일차전지 및 축전지 제조업", ("에너지", "배터리", "이엔지", "파워")),
    ("301", "자동차용 엔진 및 자동차 제조업", ("모터스", "자동차", "오토", "모빌리티")),
    ("303", "자동차 신품 부품 제조업", ("오토텍", "정공", "산업", "부품")),
    ("292", "특수 목적용 기계 제조업", ("기계", "엔지니어링", "시스템", "정밀")),
    ("411", "건물 건설업", ("건설", "종합건설", "개발", "토건")),
    ("582", "소프트웨어 개발 및 공급업", ("소프트", "게임즈", "랩스", "아이앤씨")),
    ("591", "영화, 비디오물, 방송프로그램 제작 및 배급업", ("엔터테인먼트", "미디어", "스튜디오",
                                                      "픽쳐스")),
    ("107", "기타 식품 제조업", ("식품", "푸드", "제과", "F&B")),
    ("464", "생활용품 도매업", ("상사", "물산", "유통", "트레이딩")),
    ("649", "기타 금융업", ("금융", "캐피탈", "인베스트먼트", "자산운용")),
    ("715", "회사 본부 및 경영 컨설팅 서비스업", ("홀딩스", "지주", "앤컴퍼니", "글로벌")),
    ("242", "1차 비철금속 제조업", ("금속", "메탈", "스틸", "알루미늄")),
)

_STEMS: tuple[str, ...] = (
    "한빛", "누리", "대한", "동방", "서해", "태성", "우진", "성호", "미래", "한결",
    "새롬", "동일", "대성", "한성", "세진", "영진", "청운", "금강", "백두", "가온",
    "한울", "다온", "하나", "두리", "신영", "동양", "대림", "삼화", "일신", "영풍",
    "한국", "코리아", "대원", "동아", "신성", "광명", "해성", "태양", "한일", "제일",
    "대동", "동원", "성원", "한진", "세원", "동국", "삼천", "유니", "에이스", "시너지",
    "비전", "넥스트", "퓨처", "스마트", "그린", "블루", "골드", "실버", "선진", "우성",
    "경남", "경동", "대양", "대창", "동화", "명신", "보성", "삼양", "상신", "서원",
    "성진", "세아", "신화", "아주", "영원", "오성", "우리", "유성", "율촌", "일진",
    "장원", "정우", "조일", "중앙", "진양", "천일", "청호", "태광", "태영", "평화",
    "풍산", "한솔", "한양", "해동", "현대", "형지", "화승", "효성", "휴먼", "아이",
    "에스", "케이", "엠", "제이", "티", "디", "비", "씨", "엘", "알", "지", "더",
    "뉴", "프로", "메가", "울트라", "나노", "옵티", "인피니", "이노", "코어", "큐브",
    "파인", "포스", "플러스", "하이", "라온", "소망", "다산", "대영", "미성", "보람",
    "새한", "아림", "온누리", "인성",
)
_DECOR = ("", "", "", "", "홀딩스", "글로벌", "코리아", "인터내셔널", "네트웍스", "앤코")
_CEO_SEP = ", "


@dataclass(slots=True)
class Corp:
    """One filer of the universe (fields named after their wire meaning; see module doc)."""

    idx: int
    corp_code: str
    corp_name: str        # corpCode.xml / list.json spelling ("삼성전자")
    legal_name: str       # company.json corp_name, FSC corpNm ("삼성전자(주)")
    eng_name: str
    stock_code: str       # "" for unlisted
    market: str           # KOSPI / KOSDAQ / KONEX / ""
    corp_cls: str         # Y / K / N / E
    jurir_no: str
    bizr_no: str
    addr: int             # index into the addresses rows
    est_dt: str
    lstg_dt: str          # "" for unlisted
    induty: int           # index into INDUSTRIES
    shares: int           # common shares issued
    par: int              # 액면가 (원)
    price: float          # reference share price (원)
    scale: float          # reference annual revenue (원)
    periodic: bool        # files 사업/반기/분기보고서
    audited: bool         # has audited financial statements (외감)
    cfs: bool             # reports consolidated statements
    activity: float       # relative frequency of event filings
    pref_code: str = ""   # the 우선주 short code, if any
    modify_date: str = ""


@dataclass
class Universe:
    """The companies of one seed, with the lookups the endpoints need."""

    corps: list[Corp]
    addresses: Sequence[dict[str, Any]]
    by_code: dict[str, Corp] = field(default_factory=dict)
    by_stock: dict[str, Corp] = field(default_factory=dict)
    by_crno: dict[str, Corp] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for c in self.corps:
            self.by_code[c.corp_code] = c
            self.by_crno[c.jurir_no] = c
            if c.stock_code:
                self.by_stock[c.stock_code] = c

    @property
    def listed(self) -> list[Corp]:
        """Listed companies (with a stock code), in universe order."""
        return [c for c in self.corps if c.stock_code]

    def adres(self, c: Corp) -> str:
        """The company's road-name address, exactly as juso spells it (``roadAddr``)."""
        return str(self.addresses[c.addr]["roadAddr"])


# Real companies: (corp_code or "", corp_name, English name, stock_code, market, KSIC code,
# address admCd, revenue in 억원, shares, price). corp_code "" means the
# real code is not known confidently here: a synthetic one is drawn.
KNOWN: tuple[tuple[str, str, str, str, str, str, str, float, int, int], ...] = (
    ("00126380", "삼성전자", "SAMSUNG ELECTRONICS CO,.LTD", "005930", "KOSPI", "264",
     "4111710100", 2_589_355, 5_969_782_550, 72_000),
    ("00164779", "SK하이닉스", "SK hynix Inc.", "000660", "KOSPI", "261", "4150025300",
     327_657, 728_002_365, 180_000),
    ("00126362", "삼성SDI", "SAMSUNG SDI CO.,LTD.", "006400", "KOSPI", "282", "4146310700",
     227_083, 68_764_530, 300_000),
    ("00149655", "삼성물산", "SAMSUNG C&T CORPORATION", "028260", "KOSPI", "464", "1174010300",
     419_000, 186_887_081, 130_000),
    ("00126256", "삼성생명", "Samsung Life Insurance Co., Ltd.", "032830", "KOSPI", "649",
     "1165010800", 300_000, 200_000_000, 90_000),
    ("00126371", "삼성전기", "SAMSUNG ELECTRO-MECHANICS CO., LTD.", "009150", "KOSPI", "262",
     "4111710100", 89_000, 74_693_696, 140_000),
    ("00126478", "삼성중공업", "SAMSUNG HEAVY INDUSTRIES CO.,LTD", "010140", "KOSPI", "292",
     "4113510900", 80_000, 880_000_000, 10_000),
    ("00126186", "삼성에스디에스", "SAMSUNG SDS CO.,LTD.", "018260", "KOSPI", "582",
     "1171010200", 172_000, 77_377_800, 150_000),
    ("00139214", "삼성화재해상보험", "Samsung Fire & Marine Insurance Co.,Ltd.", "000810",
     "KOSPI", "649", "1165010800", 200_000, 47_374_837, 350_000),
    ("00877059", "삼성바이오로직스", "SAMSUNG BIOLOGICS CO.,LTD.", "207940", "KOSPI", "212",
     "2818510600", 36_946, 71_174_000, 800_000),
    ("", "삼성증권", "SAMSUNG SECURITIES CO.,LTD.", "016360", "KOSPI", "649", "1165010800",
     60_000, 89_300_000, 40_000),
    ("", "삼성카드", "SAMSUNG CARD CO.,LTD.", "029780", "KOSPI", "649", "1114010300",
     40_000, 115_900_000, 35_000),
    ("", "삼성E&A", "Samsung E&A Co., Ltd.", "028050", "KOSPI", "411", "1174010300",
     106_000, 196_000_000, 25_000),
    ("", "제일기획", "Cheil Worldwide Inc.", "030000", "KOSPI", "715", "1117010100",
     42_000, 115_000_000, 18_000),
    ("", "호텔신라", "HOTEL SHILLA CO.,LTD", "008770", "KOSPI", "464", "1114016200",
     39_000, 39_248_121, 55_000),
    ("", "에스원", "S-1 CORPORATION", "012750", "KOSPI", "715", "1114011400",
     27_000, 38_005_400, 60_000),
    ("", "삼성공조", "SAMSUNG CLIMATE CONTROL CO.,LTD", "006660", "KOSPI", "303", "4812110100",
     3_000, 8_130_000, 12_000),
    ("", "삼성제약", "SAMSUNG PHARM. CO.,LTD.", "001360", "KOSPI", "212", "4141010100",
     600, 80_000_000, 2_500),
    ("", "삼성출판사", "SAMSUNG PUBLISHING CO.,LTD.", "068290", "KOSPI", "591", "1165010800",
     2_000, 10_000_000, 15_000),
    ("00164742", "현대자동차", "HYUNDAI MOTOR COMPANY", "005380", "KOSPI", "301", "1165010200",
     1_626_636, 209_416_191, 240_000),
    ("00106641", "기아", "KIA CORPORATION", "000270", "KOSPI", "301", "1165010200",
     997_000, 397_672_632, 100_000),
    ("00164788", "현대모비스", "HYUNDAI MOBIS CO.,LTD", "012330", "KOSPI", "303", "1168010100",
     592_000, 93_000_000, 230_000),
    ("00356361", "LG화학", "LG Chem, Ltd.", "051910", "KOSPI", "201", "1156011000",
     552_000, 70_592_343, 400_000),
    ("01515323", "LG에너지솔루션", "LG Energy Solution, Ltd.", "373220", "KOSPI", "282",
     "1156011000", 337_000, 234_000_000, 400_000),
    ("00401731", "LG전자", "LG ELECTRONICS INC.", "066570", "KOSPI", "264", "1156011000",
     842_000, 163_647_814, 95_000),
    ("00120021", "LG", "LG Corp.", "003550", "KOSPI", "715", "1156011000",
     70_000, 157_300_000, 80_000),
    ("00105961", "LG이노텍", "LG INNOTEK CO.,LTD", "011070", "KOSPI", "262", "1150010500",
     206_000, 23_667_107, 220_000),
    ("00266961", "NAVER", "NAVER Corporation", "035420", "KOSPI", "582", "4113510300",
     96_000, 158_437_008, 200_000),
    ("00258801", "카카오", "Kakao Corp.", "035720", "KOSPI", "582", "5011013600",
     75_000, 443_000_000, 50_000),
    ("01133217", "카카오뱅크", "KakaoBank Corp.", "323410", "KOSPI", "649", "4113511000",
     25_000, 476_000_000, 25_000),
    ("00688996", "KB금융", "KB Financial Group Inc.", "105560", "KOSPI", "649", "1156011000",
     150_000, 393_528_423, 70_000),
    ("00382199", "신한지주", "Shinhan Financial Group Co., Ltd.", "055550", "KOSPI", "649",
     "1114011400", 140_000, 509_393_214, 45_000),
    ("00547583", "하나금융지주", "Hana Financial Group Inc.", "086790", "KOSPI", "649",
     "1114010500", 120_000, 292_356_598, 55_000),
    ("01350869", "우리금융지주", "Woori Financial Group Inc.", "316140", "KOSPI", "649",
     "1114012100", 100_000, 742_591_501, 14_000),
    ("00149646", "중소기업은행", "Industrial Bank of Korea", "024110", "KOSPI", "649",
     "1114010500", 90_000, 797_425_209, 13_000),
    ("00413046", "셀트리온", "CELLTRION, Inc.", "068270", "KOSPI", "212", "2818510600",
     21_764, 216_939_152, 185_000),
    ("00181712", "SK", "SK Inc.", "034730", "KOSPI", "715", "1111012300",
     1_320_000, 73_100_000, 160_000),
    ("00159023", "SK텔레콤", "SK Telecom Co., Ltd.", "017670", "KOSPI", "264", "1114010500",
     176_000, 214_790_053, 52_000),
    ("00631518", "SK이노베이션", "SK Innovation Co., Ltd.", "096770", "KOSPI", "201",
     "1111012300", 774_000, 92_465_564, 120_000),
    ("01596425", "SK스퀘어", "SK Square Co., Ltd.", "402340", "KOSPI", "715", "1114010500",
     12_000, 141_500_000, 60_000),
    ("00159193", "한국전력공사", "KOREA ELECTRIC POWER CORPORATION", "015760", "KOSPI", "282",
     "4617013400", 880_000, 641_964_077, 20_000),
    ("00102858", "고려아연", "KOREA ZINC COMPANY, LTD.", "010130", "KOSPI", "242",
     "1168010800", 97_000, 20_700_000, 500_000),
    ("00164645", "HMM", "HMM Co.,Ltd.", "011200", "KOSPI", "464", "1156011000",
     84_000, 689_450_000, 16_000),
    ("00155276", "포스코퓨처엠", "POSCO FUTURE M CO., LTD.", "003670", "KOSPI", "282",
     "4711110900", 47_000, 77_463_220, 250_000),
    ("01390344", "HD현대중공업", "HD HYUNDAI HEAVY INDUSTRIES CO.,LTD.", "329180", "KOSPI",
     "292", "3117010400", 142_000, 88_773_116, 180_000),
    ("00111704", "한화오션", "Hanwha Ocean Co., Ltd.", "042660", "KOSPI", "292", "4831010500",
     74_000, 306_413_394, 30_000),
    ("00164478", "현대건설", "HYUNDAI ENGINEERING & CONSTRUCTION CO.,LTD.", "000720",
     "KOSPI", "411", "1111014800", 296_000, 111_355_765, 33_000),
    ("00760971", "크래프톤", "KRAFTON, Inc.", "259960", "KOSPI", "582", "1168010100",
     19_000, 48_290_000, 250_000),
    ("01160363", "에코프로비엠", "ECOPRO BM. CO., LTD.", "247540", "KOSDAQ", "282",
     "4311425300", 69_000, 97_801_344, 180_000),
    ("00912006", "삼성디스플레이", "Samsung Display Co., Ltd.", "", "", "262", "4420033000",
     308_000, 0, 0),
)

# unlisted members of the 삼성 family (near-duplicate names for the name-based lookups)
SAMSUNG_UNLISTED = ("삼성전자서비스", "삼성전자판매", "삼성전자로지텍", "삼성웰스토리",
                    "삼성바이오에피스", "삼성자산운용", "삼성선물", "삼성벤처투자", "삼성메디슨",
                    "삼성코닝어드밴스드글라스", "삼성전자서비스씨에스", "삼성생명서비스손해사정",
                    "삼성화재애니카손해사정", "삼성에스알에이자산운용", "삼성액티브자산운용")

# listing dates of the known companies listed since 2015 (and 삼성전자)
_KNOWN_LISTING = {"005930": "19750611", "373220": "20220127", "329180": "20210917",
                  "323410": "20210806", "402340": "20211129", "259960": "20210810",
                  "207940": "20161110", "028050": "19960208"}

# KOSPI companies that also list a preferred share (삼성전자우 005935 …)
_PREF_KNOWN = ("005930", "006400", "009150", "005380", "051910", "066570", "003550", "000810")
_SIDO_WEIGHTS = (("11", 0.48), ("41", 0.24), ("28", 0.04), ("26", 0.05), ("27", 0.03),
                 ("30", 0.03), ("", 0.13))
_OFFICES = ("1101", "1101", "1101", "1311", "1201", "1301", "1801", "1701", "1601", "2801",
            "1358", "1345", "1946", "2011", "1611")


def _crno(r: random.Random) -> str:
    x = r.random()
    body = f"{_OFFICES[int(x * len(_OFFICES))]}11{int(x * 1e12) % 10**6:06d}"
    return body + crno_check(body)


def _bizr(r: random.Random) -> str:
    x = r.random()
    body = f"{101 + int(x * 799):03d}{(81, 81, 86, 87, 88)[int(x * 1e6) % 5]}" \
           f"{int(x * 1e12) % 10**4:04d}"
    return body + bizr_check(body)


_EPOCH = date(1950, 1, 1).toordinal()


@cache
def _ymd_of(ordinal: int) -> str:
    d = date.fromordinal(ordinal)
    return f"{d.year}{d.month:02d}{d.day:02d}"


@cache
def _span(y0: int, y1: int) -> tuple[int, int]:
    lo = date(y0, 1, 1).toordinal()
    return lo, date(y1, 12, 31).toordinal() - lo


def _date_between(r: random.Random, y0: int, y1: int) -> str:
    lo, n = _span(y0, y1)
    return _ymd_of(lo + int(r.random() * n))


def _legal(name: str, style: int) -> str:
    """company.json / FSC spelling of a name: ``(주)`` after, before, or ``주식회사``."""
    if style == 0:
        return f"{name}(주)"
    if style == 1:
        return f"(주){name}"
    return f"주식회사 {name}"


def _address_pools(addrs: Sequence[dict[str, Any]]) -> dict[str, list[int]]:
    pools: dict[str, list[int]] = {}
    for i, a in enumerate(addrs):
        pools.setdefault(str(a["admCd"])[:2], []).append(i)
        pools.setdefault(str(a["admCd"]), []).append(i)
    pools[""] = list(range(len(addrs)))
    return pools


def _pick_addr(r: random.Random, pools: dict[str, list[int]]) -> int:
    x, acc = r.random(), 0.0
    for sido, w in _SIDO_WEIGHTS:
        acc += w
        if x < acc and pools.get(sido):
            return r.choice(pools[sido])
    return r.choice(pools[""])


_UNIVERSES: dict[int, Universe] = {}


def universe(world: World) -> Universe:
    """The company universe of ``world`` (built once per seed, and its companies kept on disk
    for the next process: :func:`_corp_fields`)."""
    u = _UNIVERSES.get(world.seed)
    if u is None:
        addrs = world.rows("addresses")
        corps = [Corp(*row) for row in _corp_fields(world.seed)]
        u = _UNIVERSES[world.seed] = Universe(corps, addrs)
    return u


_CORP_FIELDS = tuple(f.name for f in fields(Corp))


@disk_cached
def _corp_fields(seed: int) -> tuple[tuple[Any, ...], ...]:
    """Every company of the seed's universe as the tuple of its fields (in :class:`Corp`'s
    order), what :mod:`edgedsl.world.diskcache` keeps: building the 22,671 companies cost
    1.2–1.9 s of every process that touched DART or FSC (``edgedsl run`` of the company
    snapshot: about half its time)."""
    corps = _build(seed, addresses(seed)).corps
    return tuple(tuple(getattr(c, f) for f in _CORP_FIELDS) for c in corps)


def _build(seed: int, addrs: Sequence[dict[str, Any]]) -> Universe:
    r = rng(seed, "fin_universe")
    pools = _address_pools(addrs)
    ind_index = {code: i for i, (code, _, _) in enumerate(INDUSTRIES)}
    used_codes = {k[0] for k in KNOWN if k[0]}
    used_stock = {k[3] for k in KNOWN if k[3]} | {k[:5] + "5" for k in _PREF_KNOWN}
    used_names = {k[1] for k in KNOWN} | set(SAMSUNG_UNLISTED)

    def corp_code(new: bool) -> str:
        while True:
            c = f"{'01' if new else '00'}{r.randrange(100000, 999999):06d}"
            if c not in used_codes:
                used_codes.add(c)
                return c

    def stock_code(market: str) -> str:
        while True:
            head = r.randrange(100, 4999) if market == "KOSPI" else r.randrange(3000, 49999)
            c = f"{head:05d}0"
            if c not in used_stock and c[:5] + "5" not in used_stock:
                used_stock.add(c)
                return c

    combos = [(s, k) for s in _STEMS for k in range(len(INDUSTRIES))]
    r.shuffle(combos)
    corps: list[Corp] = []

    def add(name: str, eng: str, code: str, stock: str, market: str, ind: int, addr: int,
            scale: float, shares: int, price: float, periodic: bool, audited: bool) -> Corp:
        est = _date_between(r, 1950, 2012) if code.startswith("00") else \
            _date_between(r, 2005, 2022)
        lstg = ""
        if market:
            lo = max(int(est[:4]) + 3, 1976)
            lstg = _date_between(r, lo, max(lo, 2014)) if r.random() < 0.68 else \
                _date_between(r, 2015, 2026)
            if lstg > TODAY.strftime("%Y%m%d"):
                lstg = _date_between(r, 2015, 2025)
        x = r.random()
        c = Corp(
            idx=len(corps), corp_code=code, corp_name=name,
            legal_name=_legal(name, 0 if x < 0.8 else 1 + int(x * 1e6) % 2),
            eng_name=eng, stock_code=stock, market=market,
            corp_cls={"KOSPI": "Y", "KOSDAQ": "K", "KONEX": "N"}.get(market, "E"),
            jurir_no=_crno(r), bizr_no=_bizr(r), addr=addr, est_dt=est, lstg_dt=lstg,
            induty=ind, shares=shares, par=(100, 500, 500, 1000, 5000)[int(x * 1e9) % 5],
            price=price, scale=scale, periodic=periodic, audited=audited,
            cfs=market != "" and (x * 1e3) % 1 < 0.7, activity=math.exp(0.6 * r.gauss(0, 1)),
            modify_date=_date_between(r, 2016, 2026),
        )
        corps.append(c)
        return c

    for code, name, eng, stock, market, ksic, adm, rev, k_shares, k_price in KNOWN:
        addr = r.choice(pools.get(adm) or pools[""])
        c = add(name, eng, code or corp_code(False), stock, market, ind_index[ksic], addr,
                rev * 1e8, k_shares or 100_000_000, k_price or 50_000, True, True)
        c.activity, c.cfs = (3.0 if market else 0.5), True
        if market:
            c.lstg_dt = _KNOWN_LISTING.get(stock, c.lstg_dt if c.lstg_dt < "2015" else
                                           "19890905")
        if name == "삼성전자":
            c.jurir_no, c.bizr_no, c.legal_name, c.est_dt, c.par = \
                "1301110006246", "1248100998", "삼성전자(주)", "19690113", 100
        if stock in _PREF_KNOWN:
            c.pref_code = stock[:5] + "5"
    for name in SAMSUNG_UNLISTED:
        add(name, "", corp_code(False), "", "", ind_index["715"], _pick_addr(r, pools),
            r.uniform(2e11, 3e12), 10_000_000, 10_000, r.random() < 0.4, True)

    ci = 0

    def fresh_name() -> tuple[str, int]:
        nonlocal ci
        while ci < len(combos):
            stem, ind = combos[ci]
            ci += 1
            name = stem + r.choice(INDUSTRIES[ind][2])
            if name not in used_names:
                used_names.add(name)
                return name, ind
        ind = r.randrange(len(INDUSTRIES))
        return r.choice(_STEMS) + r.choice(_STEMS) + r.choice(INDUSTRIES[ind][2]), ind

    n_known = {m: sum(1 for k in KNOWN if k[4] == m) for m in ("KOSPI", "KOSDAQ", "KONEX")}
    for market, n in (("KOSPI", N_KOSPI), ("KOSDAQ", N_KOSDAQ), ("KONEX", N_KONEX)):
        for _ in range(n - n_known[market]):
            name, ind = fresh_name()
            big = {"KOSPI": 4.0, "KOSDAQ": 2.6, "KONEX": 1.6}[market]
            scale = math.exp(r.gauss(math.log(10**(10 + big / 2)), 1.3))
            shares = int(math.exp(r.gauss(math.log(3e7 if market != "KONEX" else 8e6), 0.9)))
            price = math.exp(r.gauss(math.log(12_000), 1.0))
            price = min(max(price, 500.0), 900_000.0)
            c = add(name, "", corp_code(r.random() < 0.3), stock_code(market), market, ind,
                    _pick_addr(r, pools), scale, max(shares, 1_000_000), price, True, True)
            if market == "KOSPI" and r.random() < 0.12:
                c.pref_code = c.stock_code[:5] + "5"
                used_stock.add(c.pref_code)
    for _ in range(N_UNLISTED):
        if r.random() < 0.75:
            name, ind = fresh_name()
        else:  # duplicate and decorated names, as in the real corpCode.xml
            base = corps[r.randrange(len(corps))]
            name, ind = base.corp_name + r.choice(_DECOR), base.induty
        name = name if r.random() < 0.9 else name + r.choice(_DECOR[4:])
        periodic = r.random() < 0.06
        audited = periodic or r.random() < 0.3
        scale = math.exp(r.gauss(math.log(2e10), 1.4))
        add(name, "", corp_code(r.random() < 0.45), "", "", ind, _pick_addr(r, pools), scale,
            int(math.exp(r.gauss(math.log(2e6), 1.0))) + 10_000, 5_000, periodic, audited)
    return Universe(corps, addrs)


def english_name(c: Corp) -> str:
    """The English name of a company (real for the known ones, romanised-looking otherwise)."""
    if c.eng_name:
        return c.eng_name
    h = mix(int(c.corp_code))
    return f"{c.corp_code[-4:]} {('KOREA', 'GLOBAL', 'TECH', 'INDUSTRIAL')[h % 4]} CO.,LTD."


def company_details(seed: int, c: Corp, u: Universe) -> dict[str, str]:
    """The descriptive fields of a company (CEO, phone, URLs …), drawn per company."""
    r = random.Random(mix(seed, int(c.corp_code), 77))
    ceo = korean_name(r)
    if r.random() < 0.15:
        ceo += _CEO_SEP + korean_name(r)
    if c.corp_name == "삼성전자":
        ceo = "전영현, 노태문"
    a = u.addresses[c.addr]
    area = {"11": "02", "41": "031", "28": "032", "26": "051", "27": "053", "30": "042"}.get(
        str(a["admCd"])[:2], "0" + str(r.randrange(41, 65)))
    phone = f"{area}-{r.randrange(200, 9999)}-{r.randrange(0, 10000):04d}"
    fax = f"{area}-{r.randrange(200, 9999)}-{r.randrange(0, 10000):04d}"
    slug = english_name(c).split()[0].lower().replace(",", "")
    return {
        "ceo_nm": ceo, "phn_no": phone, "fax_no": fax,
        "hm_url": f"www.{slug}.co.kr" if r.random() < 0.8 else "",
        "ir_url": f"ir.{slug}.co.kr" if c.stock_code and r.random() < 0.3 else "",
        "zip": str(a["zipNo"]),
    }


# ------------------------------------------------------------------ the financial model

# the account lines shared by DART fnlttSinglAcnt(-All) and FSC getSummFinaStat, getBs and
# getIncoStat
BS_LINES = ("유동자산", "비유동자산", "자산총계", "유동부채", "비유동부채", "부채총계", "자본금",
            "이익잉여금", "자본총계")
IS_LINES = ("매출액", "영업이익", "법인세차감전 순이익", "당기순이익")


def account_amounts(seed: int, c: Corp, year: int, quarter: int = 4,
                    consolidated: bool = True) -> dict[str, int]:
    """Amounts (원) of one company's statements: year-end (or quarter-end) BS and the IS of
    the period (``quarter`` 1–3: the three months of that quarter; 4: the whole year).

    A pure function of (seed, company, year, quarter, basis): DART and FSC agree on it.
    """
    cc = int(c.corp_code)
    # revenue walks smoothly over the years around the company's reference scale
    level = sum(0.12 * (unit(seed, cc, 11, y) - 0.5) for y in range(FIRST_YEAR - 2, year + 1))
    trend = 0.04 * (year - 2023)
    rev_year = c.scale * math.exp(level + trend)
    margin = 0.02 + 0.16 * unit(seed, cc, 12) + 0.08 * (unit(seed, cc, 13, year) - 0.5)
    if unit(seed, cc, 14, year) < 0.12:
        margin = -abs(margin)  # a loss year
    share = (0.23, 0.25, 0.25, 0.27)
    k = share[quarter - 1] if quarter < 4 else 1.0
    revenue = rev_year * k
    op = revenue * margin
    pretax = op * (0.85 + 0.3 * unit(seed, cc, 15, year, quarter))
    net = pretax * (0.74 if pretax > 0 else 1.0)
    turnover = 0.5 + 1.1 * unit(seed, cc, 16)
    assets = rev_year / turnover * (1 + 0.03 * (quarter % 4))
    debt_ratio = 0.2 + 1.2 * unit(seed, cc, 17) + 0.1 * (unit(seed, cc, 18, year) - 0.5)
    liab = assets * debt_ratio / (1 + debt_ratio)
    equity = assets - liab
    capital = float(c.shares * c.par)
    if capital > equity * 0.6:
        capital = equity * 0.3
    cur_a = assets * (0.3 + 0.4 * unit(seed, cc, 19))
    cur_l = liab * (0.4 + 0.4 * unit(seed, cc, 20))
    if not consolidated:  # the parent company alone
        f = 0.55 + 0.35 * unit(seed, cc, 21)
        revenue, op, pretax, net = revenue * f, op * f, pretax * f, net * f
        assets, liab, cur_a, cur_l = assets * f, liab * f, cur_a * f, cur_l * f
        equity = assets - liab
    retained = max(equity - capital * 2.2, equity * 0.1)
    out = {
        "유동자산": cur_a, "비유동자산": assets - cur_a, "자산총계": assets,
        "유동부채": cur_l, "비유동부채": liab - cur_l, "부채총계": liab,
        "자본금": capital, "이익잉여금": retained, "자본총계": equity,
        "매출액": revenue, "영업이익": op, "법인세차감전 순이익": pretax, "당기순이익": net,
    }
    res = {key: int(round(v, -6)) if abs(v) > 1e9 else int(round(v, -3))
           for key, v in out.items()}
    res["자산총계"] = res["유동자산"] + res["비유동자산"]
    res["부채총계"] = res["유동부채"] + res["비유동부채"]
    res["자본총계"] = res["자산총계"] - res["부채총계"]
    return res


def has_statements(c: Corp, year: int) -> bool:
    """Whether the company has audited statements for business year ``year``."""
    return c.audited and year >= FIRST_YEAR and int(c.est_dt[:4]) <= year and \
        year <= TODAY.year - 1


def hash01(seed: int, *parts: object) -> float:
    """:func:`edgedsl.world.rand.hash_unit`, re-exported for the finance modules."""
    return hash_unit(seed, *parts)


# ------------------------------------------------------------------ filings (공시)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of filing: 공시유형, 상세유형, report name (``{p}`` = period) and filer."""

    ty: str
    detail: str
    name: str
    flr: str  # self / person / holder / auditor


KINDS: tuple[Kind, ...] = (
    Kind("A", "A001", "사업보고서 ({p})", "self"),                          # 0
    Kind("A", "A003", "분기보고서 ({p})", "self"),                          # 1
    Kind("A", "A002", "반기보고서 ({p})", "self"),                          # 2
    Kind("A", "A003", "분기보고서 ({p})", "self"),                          # 3
    Kind("F", "F001", "감사보고서 ({p})", "auditor"),                       # 4
    Kind("F", "F002", "연결감사보고서 ({p})", "auditor"),                   # 5
    Kind("I", "I001", "감사보고서제출", "self"),                            # 6
    Kind("I", "I001", "정기주주총회결과", "self"),                          # 7
    Kind("I", "I001", "현금ㆍ현물배당결정", "self"),                        # 8
    Kind("D", "D002", "임원ㆍ주요주주특정증권등소유상황보고서", "person"),  # 9
    Kind("D", "D001", "주식등의대량보유상황보고서(일반)", "holder"),        # 10
    Kind("I", "I001", "기업설명회(IR)개최(안내공시)", "self"),              # 11
    Kind("I", "I001", "단일판매ㆍ공급계약체결", "self"),                    # 12
    Kind("I", "I002", "연결재무제표기준영업(잠정)실적(공정공시)", "self"),  # 13
    Kind("B", "B001", "주요사항보고서(유상증자결정)", "self"),              # 14
    Kind("B", "B001", "주요사항보고서(자기주식취득결정)", "self"),          # 15
    Kind("B", "B001", "주요사항보고서(전환사채권발행결정)", "self"),        # 16
    Kind("B", "B001", "주요사항보고서(회사합병결정)", "self"),              # 17
    Kind("B", "B001", "주요사항보고서(무상증자결정)", "self"),              # 18
    Kind("B", "B001", "주요사항보고서(자기주식처분결정)", "self"),          # 19
    Kind("I", "I001", "타법인주식및출자증권취득결정", "self"),              # 20
    Kind("I", "I001", "최대주주등소유주식변동신고서", "self"),              # 21
    Kind("C", "C001", "증권신고서(지분증권)", "self"),                      # 22
    Kind("E", "E001", "자기주식취득결과보고서", "self"),                    # 23
)
K_ANNUAL, K_Q1, K_HALF, K_Q3 = 0, 1, 2, 3
K_RIGHTS, K_BUYBACK, K_CB, K_MERGER, K_BONUS, K_TSDISP = 14, 15, 16, 17, 18, 19
K_INSIDER, K_BLOCK = 9, 10
PERIODIC_KIND = {"11011": K_ANNUAL, "11013": K_Q1, "11012": K_HALF, "11014": K_Q3}
"""DART ``reprt_code`` → the kind of the periodic report it reads."""

_LISTED_EVENTS = ((9, 35), (10, 14), (11, 7), (12, 9), (13, 8), (14, 3), (15, 4), (16, 4),
                  (17, 1), (18, 1), (19, 2), (20, 4), (21, 5), (23, 2))
_UNLISTED_EVENTS = ((14, 3), (16, 2), (17, 2), (10, 1))
AUDITORS = ("삼정회계법인", "삼일회계법인", "안진회계법인", "한영회계법인", "대주회계법인",
            "신한회계법인", "태성회계법인", "성현회계법인", "삼덕회계법인", "다산회계법인")
HOLDERS = ("국민연금공단", "BlackRock Fund Advisors", "삼성자산운용", "미래에셋자산운용",
           "The Capital Group Companies, Inc.", "케이비자산운용", "한국투자신탁운용",
           "신한자산운용", "Templeton Asset Management Ltd.", "브이아이피자산운용")


class Filing(NamedTuple):
    """One filing: ``rcept_no`` (14 digits, the filing date first), company and kind."""

    rcept_no: str
    corp: int       # Corp.idx
    kind: int       # index into KINDS
    period: str     # "2023.12" for periodic reports, "" otherwise
    corrected: bool

    @property
    def rcept_dt(self) -> str:
        """The filing date ``YYYYMMDD``."""
        return self.rcept_no[:8]


@dataclass
class YearFilings:
    """Every filing of one calendar year, grouped by filing day (each day newest first)."""

    by_day: dict[str, list[Filing]]

    @property
    def count(self) -> int:
        """The number of filings in the year."""
        return sum(len(v) for v in self.by_day.values())


@cache
def _bdays(y: int, m0: int, d0: int, m1: int, d1: int) -> tuple[str, ...]:
    out, d, hi = [], date(y, m0, d0), date(y, m1, d1)
    while d <= hi:
        s = f"{d.year}{d.month:02d}{d.day:02d}"
        if d.weekday() < 5 and s not in holidays():
            out.append(s)
        d += timedelta(days=1)
    return tuple(out)


def _poisson(r: random.Random, lam: float) -> int:
    n, p, limit = 0, 1.0, math.exp(-lam)
    while True:
        p *= r.random()
        if p <= limit:
            return n
        n += 1


def _weighted(r: random.Random, table: tuple[tuple[int, int], ...]) -> int:
    total = sum(w for _, w in table)
    x = r.random() * total
    for k, w in table:
        x -= w
        if x < 0:
            return k
    return table[-1][0]


_WINDOWS = {"annual": (3, 10, 3, 31), "q1": (5, 2, 5, 16), "half": (8, 1, 8, 14),
            "q3": (11, 2, 11, 16), "audit": (3, 2, 3, 14), "agm": (3, 15, 3, 31),
            "dividend": (2, 1, 2, 28), "ext_audit": (3, 12, 4, 14), "all": (1, 2, 12, 30)}
_KRX_KINDS = frozenset(i for i, k in enumerate(KINDS) if k.ty == "I")
_CORP_YEARS: dict[tuple[int, int, int], list[Filing]] = {}


def corp_filings(seed: int, c: Corp, year: int) -> list[Filing]:
    """The filings of one company in calendar year ``year``, newest first.

    A pure function of (seed, company, year), so a company's history is cheap to read without
    generating the whole market. ``rcept_no`` is the filing date, a digit (0–7: the company's
    n-th filing of the day; 8–9 for 거래소 filings) and a 5-digit permutation of the company's
    universe index, which makes it unique without a market-wide counter.
    """
    key = (seed, c.idx, year)
    got = _CORP_YEARS.get(key)
    if got is not None:
        return got
    got = _CORP_YEARS[key] = _corp_year(seed, c, year)
    return got


def _corp_year(seed: int, c: Corp, year: int) -> list[Filing]:
    ystr = str(year)
    if year < FIRST_YEAR or year > TODAY.year or c.est_dt[:4] > ystr:
        return []
    r = random.Random(mix(seed, c.idx, year, 31))
    rnd = r.random

    def day(window: str) -> str:
        days = _bdays(year, *_WINDOWS[window])
        return days[int(rnd() * len(days))]

    raw: list[tuple[str, int, str, bool]] = []
    add = raw.append
    listed = bool(c.lstg_dt) and c.lstg_dt[:4] <= ystr
    if c.periodic:
        if c.est_dt[:4] < ystr:
            add((day("annual"), K_ANNUAL, f"{year - 1}.12", rnd() < 0.04))
        add((day("q1"), K_Q1, f"{year}.03", rnd() < 0.02))
        add((day("half"), K_HALF, f"{year}.06", rnd() < 0.02))
        add((day("q3"), K_Q3, f"{year}.09", rnd() < 0.02))
    if c.audited and c.est_dt[:4] < ystr:
        add((day("ext_audit"), 4, f"{year - 1}.12", False))
        if c.cfs:
            add((day("ext_audit"), 5, f"{year - 1}.12", False))
    if listed:
        add((day("audit"), 6, "", False))
        add((day("agm"), 7, "", False))
        if rnd() < 0.5:
            add((day("dividend"), 8, "", False))
        table: tuple[tuple[int, int], ...] = _LISTED_EVENTS
        n = _poisson(r, 9.0 * c.activity)
    elif c.periodic:
        n, table = _poisson(r, 0.4 * c.activity), _UNLISTED_EVENTS
    else:
        n, table = (1 if rnd() < 0.02 else 0), _UNLISTED_EVENTS
    for _ in range(n):
        kind = _weighted(r, table)
        d = day("all")
        add((d, kind, "", KINDS[kind].ty == "B" and rnd() < 0.05))
        if kind == K_RIGHTS and listed and rnd() < 0.5:
            add((d, 22, "", False))
    cutoff = _TODAY_YMD
    raw.sort()
    out: list[Filing] = []
    last, n_own, n_krx = "", 0, 8
    for d, kind, period, corr in raw:
        if d > cutoff:
            break
        if d != last:
            last, n_own, n_krx = d, 0, 8
        if kind in _KRX_KINDS:
            digit, n_krx = min(n_krx, 9), n_krx + 1
        else:
            digit, n_own = min(n_own, 7), n_own + 1
        out.append(Filing(f"{d}{digit}{(c.idx * 7919 + 4271) % 100000:05d}", c.idx, kind, period,
                          corr))
    # a company's 9th filing of one day would repeat a number: keep the first one only
    unique: dict[str, Filing] = {}
    for f in out:
        unique.setdefault(f.rcept_no, f)
    out = list(unique.values())
    out.reverse()
    return out


_TODAY_YMD = TODAY.strftime("%Y%m%d")
_YEARS: dict[tuple[int, int], YearFilings] = {}


def filings_year(seed: int, u: Universe, year: int) -> YearFilings:
    """The market-wide filings of calendar year ``year`` by day (built once per seed, year)."""
    got = _YEARS.get((seed, year))
    if got is None:
        by_day: dict[str, list[Filing]] = {}
        for c in u.corps:
            for f in corp_filings(seed, c, year):
                d = f.rcept_no[:8]
                if d in by_day:
                    by_day[d].append(f)
                else:
                    by_day[d] = [f]
        for v in by_day.values():
            v.sort(key=lambda f: f.rcept_no[8:], reverse=True)
        got = _YEARS[(seed, year)] = YearFilings(by_day)
    return got


def corp_history(seed: int, c: Corp, bgn: str = "", end: str = "") -> list[Filing]:
    """A company's filings between ``bgn`` and ``end`` (``YYYYMMDD``, inclusive), newest first."""
    lo = max(int(bgn[:4]) if bgn else FIRST_YEAR, FIRST_YEAR)
    hi = min(int(end[:4]) if end else TODAY.year, TODAY.year)
    out: list[Filing] = []
    for y in range(hi, lo - 1, -1):
        out.extend(f for f in corp_filings(seed, c, y)
                   if (not bgn or f.rcept_no[:8] >= bgn) and (not end or f.rcept_no[:8] <= end))
    return out


def periodic_filing(seed: int, c: Corp, bsns_year: int, reprt_code: str) -> Filing | None:
    """The 사업/반기/분기보고서 a DS002/DS003 answer reads (None: not filed)."""
    kind = PERIODIC_KIND.get(reprt_code)
    if kind is None:
        return None
    filed_in = bsns_year + 1 if kind == K_ANNUAL else bsns_year
    period = f"{bsns_year}.{ {K_ANNUAL: '12', K_Q1: '03', K_HALF: '06', K_Q3: '09'}[kind]}"
    return next((f for f in corp_filings(seed, c, filed_in)
                 if f.kind == kind and f.period == period), None)


def filer_name(seed: int, u: Universe, f: Filing) -> str:
    """``flr_nm``: the company itself, an insider, a 5% holder or the auditor."""
    c = u.corps[f.corp]
    who = KINDS[f.kind].flr
    if who == "self":
        return c.corp_name
    h = mix(seed, int(f.rcept_no), 5)
    if who == "auditor":
        return AUDITORS[h % len(AUDITORS)]
    if who == "holder":
        return HOLDERS[h % len(HOLDERS)]
    return korean_name(random.Random(h))


def report_name(f: Filing) -> str:
    """``report_nm`` as DART lists it (``[기재정정]`` for corrected filings)."""
    name = KINDS[f.kind].name.format(p=f.period)
    return f"[기재정정]{name}" if f.corrected else name
