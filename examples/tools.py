"""In-process Python tools for the example catalogs (examples/fin.edge, school.edge, realty.edge,
assembly.edge): small, deterministic imitations of the real Korean public APIs.

``TOOLS`` maps ``"platform.tool"`` to a callable. A callable takes keyword arguments named like
the tool's parameters (plus the paging parameters of a paged tool: ``page_no``/``page_count``
for DART, ``pageNo``/``numOfRows`` for data.go.kr, ``pIndex``/``pSize`` for the hub services)
and returns one record (a dict) or an envelope dict holding a page of records under the tool's
``at`` key together with the total count, like the real services.

The datasets are generated from seeded ``random.Random`` instances (string seeds, so they do
not depend on ``PYTHONHASHSEED``) with realistic cardinalities and the real services' quirks:
numbers arrive as strings (``"71000"``, ``"-4.57"``, ``"82,500"`` with a thousands separator,
``"812.5 Kcal"``), dates as ``YYYYMMDD`` strings (``PROPOSE_DT``/``PROC_DT`` as
``YYYY-MM-DD`` like the 열린국회 bills dataset), lists newest first.

Dataset sizes (``dataset_sizes()``): 300 listed stocks × 20 trading days of December 2024,
about 1,400 DART disclosures (2024-10 … 2024-12), 4 districts × 3 months of apartment trades
(150–400 a month each), 150 schools, 600 bills of the 22nd National Assembly.
"""

from __future__ import annotations

import datetime as _dt
import math
import random
import string
from collections.abc import Callable
from functools import cache
from typing import Any

Record = dict[str, Any]

# ================================================================== helpers


def _ymd(v: Any) -> str | None:
    """A date argument (date, ``YYYYMMDD``, ``YYYY-MM-DD``, ``YYYY.MM.DD``) as ``YYYYMMDD``."""
    if v is None or v == "":
        return None
    if isinstance(v, _dt.date):
        return v.strftime("%Y%m%d")
    s = str(v).strip().replace("-", "").replace(".", "")
    if len(s) != 8 or not s.isdigit():
        raise ValueError(f"not a date: {v!r}")
    return s


def _iso(ymd: str) -> str:
    return f"{ymd[:4]}-{ymd[4:6]}-{ymd[6:]}"


def _days(start: str, end: str) -> list[_dt.date]:
    d0 = _dt.date(int(start[:4]), int(start[4:6]), int(start[6:]))
    d1 = _dt.date(int(end[:4]), int(end[4:6]), int(end[6:]))
    return [d0 + _dt.timedelta(days=i) for i in range((d1 - d0).days + 1)]


HOLIDAYS = {
    "20241003",  # 개천절
    "20241009",  # 한글날
    "20241225",  # 성탄절
    "20240505",  # 어린이날
    "20240506",  # 대체공휴일
    "20240515",  # 부처님오신날
}


def _business_days(start: str, end: str) -> list[str]:
    return [
        d.strftime("%Y%m%d")
        for d in _days(start, end)
        if d.weekday() < 5 and d.strftime("%Y%m%d") not in HOLIDAYS
    ]


def _page(
    rows: list[Record], page: Any, size: Any, default_size: int
) -> tuple[list[Record], int, int]:
    p = int(page) if page not in (None, "") else 1
    n = int(size) if size not in (None, "") else default_size
    if p < 1 or n < 1:
        raise ValueError(f"bad paging: page {page!r}, size {size!r}")
    return rows[(p - 1) * n : p * n], p, n


def _check_extra(tool: str, extra: dict[str, Any], allowed: tuple[str, ...]) -> None:
    """Secrets and format switches are accepted and ignored; anything else is an error."""
    unknown = set(extra) - set(allowed)
    if unknown:
        raise TypeError(f"{tool}: unexpected parameter(s) {sorted(unknown)}")


def _words(text: str) -> list[str]:
    """Whitespace-separated words (keeps long Korean word lists short in the source)."""
    return text.split()


def _comma(n: int) -> str:
    return f"{n:,}"


# ================================================================== finance: KRX + DART

# (stock code, KRX item name, DART corp name, market, DART corp_code, base price, listed shares)
_BIG = [
    ("005930", "삼성전자", "삼성전자", "KOSPI", "00126380", 56000, 5_969_782_550),
    ("000660", "SK하이닉스", "SK하이닉스", "KOSPI", "00164779", 175000, 728_002_365),
    ("373220", "LG에너지솔루션", "LG에너지솔루션", "KOSPI", "01515323", 380000, 234_000_000),
    ("207940", "삼성바이오로직스", "삼성바이오로직스", "KOSPI", "00877059", 960000, 71_174_000),
    ("005380", "현대차", "현대자동차", "KOSPI", "00164742", 215000, 209_416_191),
    ("000270", "기아", "기아", "KOSPI", "00106641", 98000, 397_672_632),
    ("068270", "셀트리온", "셀트리온", "KOSPI", "00413046", 185000, 216_939_152),
    ("035420", "NAVER", "NAVER", "KOSPI", "00266961", 198000, 158_437_008),
    ("035720", "카카오", "카카오", "KOSPI", "00258801", 37000, 442_830_473),
    ("051910", "LG화학", "LG화학", "KOSPI", "00356361", 270000, 70_592_343),
    ("006400", "삼성SDI", "삼성SDI", "KOSPI", "00126362", 260000, 68_764_530),
    ("105560", "KB금융", "KB금융", "KOSPI", "00688996", 88000, 393_528_423),
    ("055550", "신한지주", "신한지주", "KOSPI", "00382199", 54000, 509_393_214),
    ("028260", "삼성물산", "삼성물산", "KOSPI", "00126229", 118000, 169_976_056),
    ("012330", "현대모비스", "현대모비스", "KOSPI", "00164788", 245000, 91_795_094),
    ("247540", "에코프로비엠", "에코프로비엠", "KOSDAQ", "01160363", 110000, 97_801_344),
    ("086520", "에코프로", "에코프로", "KOSDAQ", "00536541", 72000, 133_138_340),
    ("196170", "알테오젠", "알테오젠", "KOSDAQ", "01144372", 310000, 53_186_770),
]

_PREFIX = _words(
    "한빛 누리 대한 동방 서해 태성 우진 성호 미래 한결 "
    "새롬 동일 대성 한성 세진 영진 청운 금강 백두 가온"
)
_SUFFIX = _words(
    "전자 바이오 화학 제약 건설 테크 소재 반도체 에너지 식품 "
    "물산 정밀 산업 시스템 로직스 헬스케어 엔터 게임즈 모빌리티 인더스트리"
)

# the three companies whose 유상증자 decisions the rights-offering example finds
RIGHTS_OFFERING = [
    ("20241205", "누리바이오"),
    ("20241212", "청운반도체"),
    ("20241220", "서해에너지"),
]


def _isin(code: str) -> str:
    body = "KR7" + code + "00"
    digits = "".join(str(int(c, 36)) for c in body)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body + str((10 - total % 10) % 10)


@cache
def _companies() -> list[Record]:
    """300 listed companies (KRX + DART) and 40 unlisted DART filers."""
    rng = random.Random("edgedsl-examples-companies")
    out: list[Record] = []
    used_codes = {b[0] for b in _BIG}
    used_corp = {b[4] for b in _BIG}
    for code, itms, corp, mkt, cc, price, shares in _BIG:
        out.append(
            {
                "stock_code": code,
                "itmsNm": itms,
                "corp_name": corp,
                "market": mkt,
                "corp_code": cc,
                "price": price,
                "shares": shares,
            }
        )
    names = [p + s for p in _PREFIX for s in _SUFFIX]
    rng.shuffle(names)
    for forced in (n for _, n in RIGHTS_OFFERING):
        names.remove(forced)
        names.insert(0, forced)
    markets = ["KOSPI"] * 110 + ["KOSDAQ"] * 160 + ["KONEX"] * 12
    rng.shuffle(markets)
    for i in range(300 - len(_BIG)):
        name = names[i]
        while True:
            code = f"{rng.randrange(1000, 480000):06d}"
            if code not in used_codes:
                used_codes.add(code)
                break
        while True:
            cc = f"00{rng.randrange(100000, 999999):06d}"
            if cc not in used_corp:
                used_corp.add(cc)
                break
        mkt = markets[i] if name not in {n for _, n in RIGHTS_OFFERING} else "KOSDAQ"
        price = int(math.exp(rng.uniform(math.log(1500), math.log(120000))))
        shares = rng.randrange(5_000_000, 150_000_000)
        out.append(
            {
                "stock_code": code,
                "itmsNm": name,
                "corp_name": name,
                "market": mkt,
                "corp_code": cc,
                "price": price,
                "shares": shares,
            }
        )
    for i in range(40):  # unlisted filers (no stock code)
        name = names[300 + i] + ["", "홀딩스", "캐피탈", "자산운용"][i % 4]
        while True:
            cc = f"00{rng.randrange(100000, 999999):06d}"
            if cc not in used_corp:
                used_corp.add(cc)
                break
        out.append(
            {
                "stock_code": None,
                "itmsNm": None,
                "corp_name": name,
                "market": "ETC",
                "corp_code": cc,
                "price": None,
                "shares": None,
            }
        )
    for c in out:
        r = random.Random("company-" + c["corp_code"])
        c["jurir_no"] = f"{r.randrange(110111, 285011):06d}{r.randrange(0, 9999999):07d}"
        c["bizr_no"] = (
            f"{r.randrange(101, 899):03d}{r.randrange(10, 99):02d}{r.randrange(0, 99999):05d}"
        )
        c["ceo_nm"] = _person(r)
        c["est_dt"] = f"{r.randrange(1955, 2016)}{r.randrange(1, 13):02d}{r.randrange(1, 29):02d}"
        c["adres"] = r.choice(
            [
                "경기도 수원시 영통구 삼성로 129",
                "서울특별시 강남구 테헤란로 152",
                "경기도 성남시 분당구 판교역로 235",
                "서울특별시 영등포구 여의대로 128",
                "충청북도 청주시 흥덕구 오송읍 오송생명로 200",
                "인천광역시 연수구 송도바이오대로 300",
                "부산광역시 해운대구 센텀중앙로 97",
                "대전광역시 유성구 대덕대로 512",
            ]
        )
    return out


_SURNAMES = _words("김 이 박 최 정 강 조 윤 장 임 한 오 서 신 권 황 안 송 류 전")
_GIVEN = _words(
    "민 서 지 현 준 우 영 수 경 진 호 성 태 재 훈 은 혜 동 상 희 철 유 윤 석 연 주 정 하"
)


def _person(r: random.Random) -> str:
    return r.choice(_SURNAMES) + r.choice(_GIVEN) + r.choice(_GIVEN)


TRADING_DAYS = _business_days("20241202", "20241230")  # 12/25 holiday; 12/31 market closed


@cache
def _prices() -> list[Record]:
    """Daily prices of the 300 listed stocks, newest day first (like getStockPriceInfo)."""
    rows_by_day: dict[str, list[Record]] = {d: [] for d in TRADING_DAYS}
    listed = [c for c in _companies() if c["stock_code"]]
    for c in listed:
        r = random.Random("price-" + c["stock_code"])
        prev = c["price"]
        vol_base = r.uniform(0.001, 0.02) * c["shares"]
        for day in TRADING_DAYS:
            ret = max(-0.3, min(0.3, r.gauss(0.0, 0.022)))
            if c["stock_code"] == "005930" and day == "20241227":
                ret = -0.0189
            clpr = max(100, int(round(prev * (1 + ret), -1 if prev >= 1000 else 0)))
            vs = clpr - prev
            mkp = int(round(prev * (1 + r.gauss(0, 0.006)), -1 if prev >= 1000 else 0))
            hipr = max(mkp, clpr) + int(abs(r.gauss(0, 0.01)) * prev)
            lopr = min(mkp, clpr) - int(abs(r.gauss(0, 0.01)) * prev)
            trqu = int(vol_base * r.lognormvariate(0, 0.5))
            trprc = trqu * (hipr + lopr) // 2
            rows_by_day[day].append(
                {
                    "basDt": day,
                    "srtnCd": c["stock_code"],
                    "isinCd": _isin(c["stock_code"]),
                    "itmsNm": c["itmsNm"],
                    "mrktCtg": c["market"],
                    "clpr": str(clpr),
                    "vs": str(vs),
                    "fltRt": f"{vs / prev * 100:.2f}",
                    "mkp": str(mkp),
                    "hipr": str(hipr),
                    "lopr": str(lopr),
                    "trqu": str(trqu),
                    "trPrc": str(trprc),
                    "lstgStCnt": str(c["shares"]),
                    "mrktTotAmt": str(clpr * c["shares"]),
                }
            )
            prev = clpr
    out: list[Record] = []
    for day in reversed(TRADING_DAYS):
        out.extend(rows_by_day[day])
    return out


def krx_stock_price(
    basDt: Any = None,
    likeSrtnCd: Any = None,
    isinCd: Any = None,
    likeItmsNm: Any = None,
    mrktCls: Any = None,
    pageNo: Any = 1,
    numOfRows: Any = 10,
    **extra: Any,
) -> Record:
    """금융위원회 주식시세정보 getStockPriceInfo: filtered, paged, newest first."""
    _check_extra("krx.stock_price", extra, ("serviceKey", "resultType"))
    day = _ymd(basDt)
    rows = [
        r
        for r in _prices()
        if (day is None or r["basDt"] == day)
        and (likeSrtnCd in (None, "") or str(likeSrtnCd) in r["srtnCd"])
        and (isinCd in (None, "") or r["isinCd"] == isinCd)
        and (likeItmsNm in (None, "") or str(likeItmsNm) in r["itmsNm"])
        and (mrktCls in (None, "") or r["mrktCtg"] == mrktCls)
    ]
    page, p, n = _page(rows, pageNo, numOfRows, 10)
    return {
        "resultCode": "00",
        "resultMsg": "NORMAL SERVICE.",
        "numOfRows": n,
        "pageNo": p,
        "totalCount": len(rows),
        "items": [dict(r) for r in page],
    }


_REPORTS = [  # (pblntf_ty, report_nm, weight)
    ("D", "임원ㆍ주요주주특정증권등소유상황보고서", 30),
    ("D", "주식등의대량보유상황보고서(일반)", 8),
    ("I", "기업설명회(IR)개최(안내공시)", 6),
    ("I", "단일판매ㆍ공급계약체결", 6),
    ("I", "현금ㆍ현물배당결정", 3),
    ("I", "타법인주식및출자증권취득결정", 3),
    ("I", "기타시장안내", 4),
    ("B", "주요사항보고서(자기주식취득결정)", 3),
    ("B", "주요사항보고서(전환사채권발행결정)", 3),
    ("C", "증권신고서(채무증권)", 2),
    ("E", "자기주식취득결과보고서", 2),
    ("J", "대규모기업집단현황공시[분기별공시(개별회사용)]", 2),
]

# 삼성전자 in December 2024, written out (the README's main example reads it)
_SAMSUNG_DEC = [
    ("20241202", "D", "임원ㆍ주요주주특정증권등소유상황보고서", "김준영"),
    ("20241204", "D", "임원ㆍ주요주주특정증권등소유상황보고서", "박서진"),
    ("20241206", "D", "주식등의대량보유상황보고서(일반)", "국민연금공단"),
    ("20241210", "I", "기업설명회(IR)개최(안내공시)", "삼성전자"),
    ("20241213", "E", "자기주식취득결과보고서", "삼성전자"),
    ("20241217", "D", "임원ㆍ주요주주특정증권등소유상황보고서", "이현우"),
    ("20241220", "J", "동일인등출자계열회사와의상품ㆍ용역거래", "삼성전자"),
    ("20241224", "D", "임원ㆍ주요주주특정증권등소유상황보고서", "정민호"),
    ("20241227", "I", "타법인주식및출자증권취득결정", "삼성전자"),
]


@cache
def _disclosures() -> list[Record]:
    """DART 공시 2024-10-01 … 2024-12-31, newest first (rcept_dt, then rcept_no, descending)."""
    rng = random.Random("edgedsl-examples-dart")
    days = _business_days("20241001", "20241231")
    weights = [w for _, _, w in _REPORTS]
    raw: list[tuple[str, Record, str, str, str]] = []
    for c in _companies():
        if c["corp_code"] == "00126380":
            continue
        for day in days:
            if rng.random() < 0.045:
                ty, nm, _ = rng.choices(_REPORTS, weights)[0]
                flr = _person(rng) if ty == "D" else c["corp_name"]
                raw.append((day, c, ty, nm, flr))
        if c["stock_code"]:
            raw.append(("20241114", c, "A", "분기보고서 (2024.09)", c["corp_name"]))
    samsung = next(c for c in _companies() if c["corp_code"] == "00126380")
    raw.append(("20241031", samsung, "I", "연결재무제표기준영업(잠정)실적(공정공시)", "삼성전자"))
    raw.append(("20241114", samsung, "A", "분기보고서 (2024.09)", "삼성전자"))
    raw.append(("20241115", samsung, "B", "주요사항보고서(자기주식취득결정)", "삼성전자"))
    for day, ty, nm, flr in _SAMSUNG_DEC:
        raw.append((day, samsung, ty, nm, flr))
    for day, name in RIGHTS_OFFERING:
        c = next(c for c in _companies() if c["corp_name"] == name)
        raw.append((day, c, "B", "주요사항보고서(유상증자결정)", name))
    raw.sort(key=lambda t: t[0])
    seq_by_day: dict[str, int] = {}
    out: list[Record] = []
    for day, c, ty, nm, flr in raw:
        k = seq_by_day.get(day, 0) + 1
        seq_by_day[day] = k
        cls = {"KOSPI": "Y", "KOSDAQ": "K", "KONEX": "N"}.get(c["market"], "E")
        rm = {"Y": "유", "K": "코", "N": "넥"}.get(cls, "") if ty == "I" else ""
        out.append(
            {
                "corp_cls": cls,
                "corp_name": c["corp_name"],
                "corp_code": c["corp_code"],
                "stock_code": c["stock_code"],
                "report_nm": nm,
                "rcept_no": f"{day}{'80' if ty == 'I' else '00'}{k:04d}",
                "flr_nm": flr,
                "rcept_dt": day,
                "rm": rm,
                "pblntf_ty": ty,
            }
        )
    out.sort(key=lambda r: (r["rcept_dt"], r["rcept_no"]), reverse=True)
    return out


def dart_corp_code(corp_name: Any, **extra: Any) -> list[Record]:
    """고유번호 (corpCode.xml, reduced to an exact-name lookup)."""
    _check_extra("dart.corp_code", extra, ("crtfc_key",))
    return [
        {
            "corp_code": c["corp_code"],
            "corp_name": c["corp_name"],
            "stock_code": c["stock_code"],
            "modify_date": "20240920",
        }
        for c in _companies()
        if c["corp_name"] == corp_name
    ]


def dart_disclosures(
    corp_code: Any = None,
    bgn_de: Any = None,
    end_de: Any = None,
    pblntf_ty: Any = None,
    page_no: Any = 1,
    page_count: Any = 10,
    **extra: Any,
) -> Record:
    """공시검색 list.json: filtered by company, period and type; paged; newest first."""
    _check_extra("dart.disclosures", extra, ("crtfc_key",))
    b, e = _ymd(bgn_de), _ymd(end_de)
    rows = [
        r
        for r in _disclosures()
        if (corp_code in (None, "") or r["corp_code"] == corp_code)
        and (b is None or r["rcept_dt"] >= b)
        and (e is None or r["rcept_dt"] <= e)
        and (pblntf_ty in (None, "") or r["pblntf_ty"] == pblntf_ty)
    ]
    page, p, n = _page(rows, page_no, page_count, 10)
    if not rows:
        return {"status": "013", "message": "조회된 데이타가 없습니다.", "list": []}
    return {
        "status": "000",
        "message": "정상",
        "page_no": p,
        "page_count": n,
        "total_count": len(rows),
        "total_page": math.ceil(len(rows) / n),
        "list": [dict(r) for r in page],
    }


def dart_company(corp_code: Any, **extra: Any) -> Record:
    """기업개황 company.json: one record."""
    _check_extra("dart.company", extra, ("crtfc_key",))
    for c in _companies():
        if c["corp_code"] == corp_code:
            cls = {"KOSPI": "Y", "KOSDAQ": "K", "KONEX": "N"}.get(c["market"], "E")
            return {
                "corp_code": c["corp_code"],
                "corp_name": c["corp_name"],
                "stock_name": c["itmsNm"] or c["corp_name"],
                "stock_code": c["stock_code"],
                "ceo_nm": c["ceo_nm"],
                "corp_cls": cls,
                "jurir_no": c["jurir_no"],
                "bizr_no": c["bizr_no"],
                "adres": c["adres"],
                "est_dt": c["est_dt"],
                "acc_mt": "12",
            }
    raise LookupError(f"dart.company: no company with corp_code {corp_code!r} (status 013)")


# ================================================================== education: NEIS

OFFICES = {
    "B10": ("서울특별시교육청", "서울특별시", "70"),
    "C10": ("부산광역시교육청", "부산광역시", "72"),
    "D10": ("대구광역시교육청", "대구광역시", "72"),
    "E10": ("인천광역시교육청", "인천광역시", "73"),
    "J10": ("경기도교육청", "경기도", "75"),
    "K10": ("강원특별자치도교육청", "강원특별자치도", "78"),
}

_SCHOOL_PLACES = _words(
    "한빛 중앙 대원 신목 미림 동명 청담 반포 영동 서운 은행 매봉 구룡 늘푸른 "
    "해맑은 새솔 가람 다솜 하늘 솔빛 푸른 백석 효자 성포 대림 광남 상일 둔촌"
)


_ROADS = ["중앙로", "학교로", "문화로", "평화로"]


@cache
def _schools() -> list[Record]:
    rng = random.Random("edgedsl-examples-neis")
    out: list[Record] = []
    used: set[str] = set()
    kinds = [("초등학교", "초"), ("중학교", "중"), ("고등학교", "고")]
    for office, (office_nm, sido, prefix) in OFFICES.items():
        places = rng.sample(_SCHOOL_PLACES, 18)
        if "한빛" not in places and office in ("B10", "C10", "J10"):
            places[0] = "한빛"
        for i, place in enumerate(places):
            kind = kinds[i % 3] if place != "한빛" else kinds[2]
            name = place + kind[0]
            while True:
                code = prefix + f"{rng.randrange(0, 99999):05d}"
                if code not in used:
                    used.add(code)
                    break
            out.append(
                {
                    "ATPT_OFCDC_SC_CODE": office,
                    "ATPT_OFCDC_SC_NM": office_nm,
                    "SD_SCHUL_CODE": code,
                    "SCHUL_NM": name,
                    "SCHUL_KND_SC_NM": kind[0],
                    "LCTN_SC_NM": sido,
                    "FOND_SC_NM": rng.choice(["공립", "공립", "공립", "사립"]),
                    "ORG_RDNMA": f"{sido} {rng.choice(_ROADS)} {rng.randrange(1, 300)}",
                    "COEDU_SC_NM": rng.choice(["남여공학", "남여공학", "남", "여"]),
                    "FOND_YMD": f"{rng.randrange(1950, 2015)}0301",
                }
            )
    return out


def _school(office: Any, code: Any) -> Record:
    for s in _schools():
        if s["ATPT_OFCDC_SC_CODE"] == office and s["SD_SCHUL_CODE"] == code:
            return s
    raise LookupError(f"no school {office!r}/{code!r} (INFO-200)")


_MENU_RICE = [
    "잡곡밥",
    "현미밥",
    "흑미밥",
    "기장밥",
    "찹쌀밥",
    "카레라이스",
    "김치볶음밥",
    "비빔밥",
]
_MENU_SOUP = [
    "쇠고기미역국 (5.6.16)",
    "된장찌개 (5.6.9)",
    "김치찌개 (9.10)",
    "어묵국 (1.5.6)",
    "순두부찌개 (5.9)",
    "콩나물국 (5)",
]
_MENU_MAIN = [
    "제육볶음 (5.6.10.13)",
    "닭갈비 (5.6.15)",
    "돈까스 (1.2.5.6.10)",
    "고등어구이 (7)",
    "불고기 (5.6.16)",
    "떡갈비 (5.6.10.16)",
    "오징어볶음 (5.6.17)",
]
_MENU_SIDE = [
    "배추김치 (9)",
    "깍두기 (9)",
    "시금치나물 (5.6)",
    "계란말이 (1)",
    "감자조림 (5.6)",
    "과일샐러드 (12.13)",
    "요구르트 (2)",
]


def _meal_days(school: Record) -> list[str]:
    days = _business_days("20240301", "20240731")
    founding = "2024" + school["FOND_YMD"][4:]
    return [d for d in days if d != founding]


def _meals_for(school: Record) -> list[Record]:
    out: list[Record] = []
    high = school["SCHUL_KND_SC_NM"] == "고등학교"
    for day in _meal_days(school):
        r = random.Random(f"meal-{school['SD_SCHUL_CODE']}-{day}")
        for code, nm in [("2", "중식"), ("3", "석식")] if high else [("2", "중식")]:
            dishes = [
                r.choice(_MENU_RICE),
                r.choice(_MENU_SOUP),
                r.choice(_MENU_MAIN),
                *r.sample(_MENU_SIDE, 2),
            ]
            kcal = round(r.uniform(560, 900) if code == "2" else r.uniform(520, 820), 1)
            out.append(
                {
                    "ATPT_OFCDC_SC_CODE": school["ATPT_OFCDC_SC_CODE"],
                    "SD_SCHUL_CODE": school["SD_SCHUL_CODE"],
                    "SCHUL_NM": school["SCHUL_NM"],
                    "MMEAL_SC_CODE": code,
                    "MMEAL_SC_NM": nm,
                    "MLSV_YMD": day,
                    "MLSV_FGR": str(r.randrange(300, 1100)),
                    "DDISH_NM": "<br/>".join(dishes),
                    "CAL_INFO": f"{kcal} Kcal",
                    "NTR_INFO": f"탄수화물(g) : {r.uniform(80, 130):.1f}<br/>"
                    f"단백질(g) : {r.uniform(25, 45):.1f}",
                }
            )
    return out


def _schedule_for(school: Record) -> list[Record]:
    r = random.Random(f"schedule-{school['SD_SCHUL_CODE']}")
    events: list[tuple[str, str, str]] = []
    for d in _days("20240301", "20240731"):
        ymd = d.strftime("%Y%m%d")
        if d.weekday() == 5:
            events.append((ymd, "토요휴업일", "휴업일"))
    events += [
        ("20240301", "삼일절", "공휴일"),
        ("20240304", "입학식", "해당없음"),
        ("20240410", "국회의원선거일", "공휴일"),
        ("20240505", "어린이날", "공휴일"),
        ("20240506", "대체공휴일", "공휴일"),
        ("20240515", "부처님오신날", "공휴일"),
        ("20240606", "현충일", "공휴일"),
        ("20240719", "여름방학식", "해당없음"),
    ]
    events.append(("2024" + school["FOND_YMD"][4:], "개교기념일", "휴업일"))
    if school["SCHUL_KND_SC_NM"] == "고등학교":
        for ymd in ("20240429", "20240430", "20240502", "20240503"):
            events.append((ymd, "1학기 중간고사", "해당없음"))
        for ymd in ("20240701", "20240702", "20240703", "20240704"):
            events.append((ymd, "1학기 기말고사", "해당없음"))
        events.append(("20240604", "전국연합학력평가", "해당없음"))
        events.append(("20240527", "진로체험의 날", "해당없음"))
    else:
        events.append((r.choice(["20240424", "20240517", "20240523"]), "현장체험학습", "해당없음"))
    events.append(
        (r.choice(["20240508", "20240510", "20240524", "20240531"]), "체육대회", "해당없음")
    )
    events.sort()
    return [
        {
            "ATPT_OFCDC_SC_CODE": school["ATPT_OFCDC_SC_CODE"],
            "SD_SCHUL_CODE": school["SD_SCHUL_CODE"],
            "SCHUL_NM": school["SCHUL_NM"],
            "AY": "2024",
            "AA_YMD": ymd,
            "EVENT_NM": nm,
            "EVENT_CNTNT": "",
            "SBTR_DD_SC_NM": kind,
        }
        for ymd, nm, kind in events
    ]


def _hub(rows: list[Record], pIndex: Any, pSize: Any, key: str = "row") -> Record:
    page, _, _ = _page(rows, pIndex, pSize, 100)
    if not rows:
        return {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}, key: []}
    return {
        "list_total_count": len(rows),
        "RESULT": {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다."},
        key: [dict(r) for r in page],
    }


_HUB_EXTRA = ("KEY", "Type")


def neis_schools(
    ATPT_OFCDC_SC_CODE: Any = None,
    SD_SCHUL_CODE: Any = None,
    SCHUL_NM: Any = None,
    SCHUL_KND_SC_NM: Any = None,
    pIndex: Any = 1,
    pSize: Any = 100,
    **extra: Any,
) -> Record:
    """schoolInfo 학교기본정보 (SCHUL_NM is a partial match)."""
    _check_extra("neis.schools", extra, _HUB_EXTRA)
    rows = [
        s
        for s in _schools()
        if (ATPT_OFCDC_SC_CODE in (None, "") or s["ATPT_OFCDC_SC_CODE"] == ATPT_OFCDC_SC_CODE)
        and (SD_SCHUL_CODE in (None, "") or s["SD_SCHUL_CODE"] == SD_SCHUL_CODE)
        and (SCHUL_NM in (None, "") or str(SCHUL_NM) in s["SCHUL_NM"])
        and (SCHUL_KND_SC_NM in (None, "") or s["SCHUL_KND_SC_NM"] == SCHUL_KND_SC_NM)
    ]
    return _hub(rows, pIndex, pSize)


def neis_meals(
    ATPT_OFCDC_SC_CODE: Any,
    SD_SCHUL_CODE: Any,
    MMEAL_SC_CODE: Any = None,
    MLSV_YMD: Any = None,
    MLSV_FROM_YMD: Any = None,
    MLSV_TO_YMD: Any = None,
    pIndex: Any = 1,
    pSize: Any = 100,
    **extra: Any,
) -> Record:
    """mealServiceDietInfo 급식식단정보 (school year 2024, March … July)."""
    _check_extra("neis.meals", extra, _HUB_EXTRA)
    school = _school(ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE)
    day, lo, hi = _ymd(MLSV_YMD), _ymd(MLSV_FROM_YMD), _ymd(MLSV_TO_YMD)
    rows = [
        m
        for m in _meals_for(school)
        if (MMEAL_SC_CODE in (None, "") or m["MMEAL_SC_CODE"] == str(MMEAL_SC_CODE))
        and (day is None or m["MLSV_YMD"] == day)
        and (lo is None or m["MLSV_YMD"] >= lo)
        and (hi is None or m["MLSV_YMD"] <= hi)
    ]
    return _hub(rows, pIndex, pSize)


def neis_schedule(
    ATPT_OFCDC_SC_CODE: Any,
    SD_SCHUL_CODE: Any,
    AA_YMD: Any = None,
    AA_FROM_YMD: Any = None,
    AA_TO_YMD: Any = None,
    pIndex: Any = 1,
    pSize: Any = 100,
    **extra: Any,
) -> Record:
    """SchoolSchedule 학사일정."""
    _check_extra("neis.schedule", extra, _HUB_EXTRA)
    school = _school(ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE)
    day, lo, hi = _ymd(AA_YMD), _ymd(AA_FROM_YMD), _ymd(AA_TO_YMD)
    rows = [
        e
        for e in _schedule_for(school)
        if (day is None or e["AA_YMD"] == day)
        and (lo is None or e["AA_YMD"] >= lo)
        and (hi is None or e["AA_YMD"] <= hi)
    ]
    return _hub(rows, pIndex, pSize)


# ================================================================== realty: MOLIT apartment trades

DISTRICTS: dict[str, tuple[str, list[str], list[tuple[str, str, int, int]]]] = {
    # LAWD_CD: (name, 법정동 names, [(complex, 동, build year, 만원 per m²)])
    "11680": (
        "서울특별시 강남구",
        [
            "개포동",
            "대치동",
            "도곡동",
            "삼성동",
            "압구정동",
            "역삼동",
            "일원동",
            "청담동",
            "수서동",
            "세곡동",
        ],
        [
            ("래미안대치팰리스", "대치동", 2015, 1500),
            ("은마", "대치동", 1979, 1300),
            ("도곡렉슬", "도곡동", 2006, 1250),
            ("타워팰리스1", "도곡동", 2002, 1050),
            ("개포자이프레지던스", "개포동", 2023, 1400),
            ("디에이치아너힐즈", "개포동", 2019, 1450),
            ("압구정현대", "압구정동", 1977, 1650),
            ("래미안블레스티지", "개포동", 2019, 1350),
            ("역삼자이", "역삼동", 2016, 1150),
            ("래미안그레이튼", "역삼동", 2009, 1050),
            ("삼성힐스테이트", "삼성동", 2008, 1100),
            ("청담자이", "청담동", 2011, 1250),
            ("래미안개포루체하임", "일원동", 2018, 1150),
            ("수서신동아", "수서동", 1992, 650),
            ("강남데시앙포레", "세곡동", 2014, 580),
            ("세곡푸르지오", "세곡동", 2013, 520),
            ("일원동가람", "일원동", 1993, 700),
            ("까치마을", "수서동", 1993, 640),
        ],
    ),
    "11650": (
        "서울특별시 서초구",
        ["반포동", "잠원동", "서초동", "방배동", "양재동", "우면동", "내곡동"],
        [
            ("아크로리버파크", "반포동", 2016, 1800),
            ("래미안원베일리", "반포동", 2023, 1850),
            ("반포자이", "반포동", 2008, 1400),
            ("래미안퍼스티지", "반포동", 2009, 1450),
            ("신반포2차", "잠원동", 1978, 1300),
            ("아크로리버뷰신반포", "잠원동", 2018, 1350),
            ("래미안리더스원", "서초동", 2020, 1150),
            ("서초그랑자이", "서초동", 2021, 1150),
            ("방배롯데캐슬", "방배동", 2005, 700),
            ("방배그랑자이", "방배동", 2021, 1000),
            ("양재우성", "양재동", 1991, 650),
            ("서초힐스", "우면동", 2012, 600),
            ("서초포레스타5단지", "내곡동", 2014, 560),
        ],
    ),
    "11710": (
        "서울특별시 송파구",
        ["잠실동", "신천동", "가락동", "문정동", "방이동", "오금동", "거여동", "장지동"],
        [
            ("잠실엘스", "잠실동", 2008, 950),
            ("리센츠", "잠실동", 2008, 950),
            ("트리지움", "잠실동", 2007, 900),
            ("잠실주공5단지", "잠실동", 1978, 1100),
            ("파크리오", "신천동", 2008, 850),
            ("헬리오시티", "가락동", 2018, 850),
            ("올림픽훼밀리타운", "문정동", 1988, 700),
            ("올림픽선수기자촌", "방이동", 1988, 820),
            ("오금현대", "오금동", 1984, 600),
            ("송파시그니처롯데캐슬", "거여동", 2020, 600),
            ("송파위례24단지꿈에그린", "장지동", 2013, 650),
        ],
    ),
    "41135": (
        "경기도 성남시 분당구",
        ["정자동", "서현동", "수내동", "야탑동", "이매동", "금곡동", "구미동"],
        [
            ("정자동파크뷰", "정자동", 2004, 750),
            ("상록우성", "정자동", 1995, 600),
            ("시범삼성한신", "서현동", 1991, 620),
            ("시범현대", "서현동", 1991, 600),
            ("양지마을금호", "수내동", 1992, 650),
            ("푸른마을쌍용", "수내동", 1993, 580),
            ("탑마을선경", "야탑동", 1992, 420),
            ("장미마을현대", "야탑동", 1993, 430),
            ("이매촌청구", "이매동", 1992, 520),
            ("청솔마을한라", "금곡동", 1994, 430),
            ("까치마을신원", "구미동", 1995, 400),
            ("무지개마을건영", "구미동", 1995, 390),
        ],
    ),
}

DEAL_MONTHS = ["202410", "202411", "202412"]


@cache
def _trades(lawd_cd: str, deal_ymd: str) -> list[Record]:
    if lawd_cd not in DISTRICTS or deal_ymd not in DEAL_MONTHS:
        return []
    _, _, complexes = DISTRICTS[lawd_cd]
    r = random.Random(f"trades-{lawd_cd}-{deal_ymd}")
    n = r.randrange(150, 400)
    year, month = int(deal_ymd[:4]), int(deal_ymd[4:])
    last_day = (_dt.date(year + month // 12, month % 12 + 1, 1) - _dt.timedelta(days=1)).day
    out: list[Record] = []
    for _ in range(n):
        apt, dong, built, per_m2 = r.choice(complexes)
        area = r.choice([39.6, 49.94, 59.97, 76.5, 84.97, 84.99, 101.9, 114.8, 134.5, 164.9])
        amount = int(round(per_m2 * area * r.uniform(0.88, 1.12) * 2.6, -2))
        text = _comma(amount)
        if r.random() < 0.2:
            text = " " * r.randrange(1, 5) + text  # the old XML service pads amounts
        out.append(
            {
                "sggCd": lawd_cd,
                "umdNm": dong,
                "aptNm": apt,
                "aptSeq": f"{lawd_cd}-{abs(hash_str(apt)) % 9000 + 1000}",
                "jibun": f"{r.randrange(1, 999)}",
                "dealYear": str(year),
                "dealMonth": str(month),
                "dealDay": str(r.randrange(1, last_day + 1)),
                "dealAmount": text,
                "excluUseAr": f"{area}",
                "floor": str(r.randrange(1, 36)),
                "buildYear": str(built),
                "dealingGbn": r.choice(["중개거래"] * 9 + ["직거래"]),
                "cdealType": "O" if r.random() < 0.03 else "",
            }
        )
    return out


def hash_str(s: str) -> int:
    """A stable string hash (``hash()`` depends on PYTHONHASHSEED)."""
    h = 0
    for ch in s:
        h = (h * 131 + ord(ch)) % 1_000_000_007
    return h


def molit_apt_trades(
    LAWD_CD: Any, DEAL_YMD: Any, pageNo: Any = 1, numOfRows: Any = 10, **extra: Any
) -> Record:
    """국토교통부 아파트 매매 실거래가 (getRTMSDataSvcAptTrade): one district-month, paged."""
    _check_extra("molit.apt_trades", extra, ("serviceKey", "_type"))
    rows = _trades(str(LAWD_CD), str(DEAL_YMD))
    page, p, n = _page(rows, pageNo, numOfRows, 10)
    return {
        "resultCode": "000",
        "resultMsg": "OK",
        "numOfRows": n,
        "pageNo": p,
        "totalCount": len(rows),
        "items": [dict(x) for x in page],
    }


# ================================================================== politics: 열린국회정보

PARTIES = [
    ("더불어민주당", 170),
    ("국민의힘", 108),
    ("조국혁신당", 12),
    ("개혁신당", 3),
    ("진보당", 3),
    ("기본소득당", 1),
    ("사회민주당", 1),
    ("무소속", 2),
]
_DISTRICTS = [
    "서울 종로구",
    "서울 강남구갑",
    "서울 강남구을",
    "서울 송파구병",
    "부산 해운대구갑",
    "대구 수성구을",
    "인천 연수구갑",
    "광주 북구을",
    "대전 유성구을",
    "경기 성남시분당구갑",
    "경기 수원시정",
    "강원 춘천시철원군화천군양구군갑",
    "충남 천안시을",
    "전북 전주시병",
    "경북 포항시남구울릉군",
    "경남 창원시성산구",
    "제주 제주시갑",
    "비례대표",
]

LAWS = [
    ("도로교통법", "행정안전위원회", 40),
    ("조세특례제한법", "기획재정위원회", 70),
    ("국민건강보험법", "보건복지위원회", 45),
    ("근로기준법", "환경노동위원회", 50),
    ("주택법", "국토교통위원회", 40),
    ("교육기본법", "교육위원회", 25),
    ("지방세특례제한법", "행정안전위원회", 45),
    ("형법", "법제사법위원회", 35),
    ("공직선거법", "행정안전위원회", 60),
    ("전기통신사업법", "과학기술정보방송통신위원회", 30),
    ("자본시장과 금융투자업에 관한 법률", "정무위원회", 40),
    ("아동복지법", "보건복지위원회", 30),
    ("농업협동조합법", "농림축산식품해양수산위원회", 30),
    ("산업안전보건법", "환경노동위원회", 40),
]

# the two bills of 도로교통법 that passed as proposed (원안가결), and when
ROAD_PASSED = [("2024-07-02", "2024-11-28"), ("2024-09-10", "2024-12-10")]


@cache
def _members() -> list[Record]:
    r = random.Random("edgedsl-examples-members")
    out: list[Record] = []
    used: set[str] = set()
    for party, n in PARTIES:
        for _ in range(n):
            while True:
                name = _person(r)
                if name not in used:
                    used.add(name)
                    break
            out.append(
                {
                    "HG_NM": name,
                    "POLY_NM": party,
                    "ORIG_NM": r.choice(_DISTRICTS),
                    "MONA_CD": "".join(r.choices(string.ascii_uppercase + string.digits, k=8)),
                }
            )
    return out


@cache
def _bills() -> list[Record]:
    r = random.Random("edgedsl-examples-bills")
    members = _members()
    days = [d.strftime("%Y-%m-%d") for d in _days("20240530", "20241231")]
    drafts: list[tuple[str, str, str, str | None, str | None]] = []
    for law, committee, n in LAWS:
        for _ in range(n):
            propose = r.choice(days)
            result: str | None = None
            proc: str | None = None
            x = r.random()
            if x < 0.12:
                result = "대안반영폐기"
            elif x < 0.15:
                result = "철회"
            elif x < 0.17 and law != "도로교통법":
                result = r.choice(["원안가결", "수정가결"])
            if result is not None:
                p = _dt.date.fromisoformat(propose) + _dt.timedelta(days=r.randrange(10, 150))
                proc = min(p, _dt.date(2024, 12, 31)).isoformat()
            drafts.append((propose, law, committee, result, proc))
    for propose, proc in ROAD_PASSED:
        drafts.append((propose, "도로교통법", "행정안전위원회", "원안가결", proc))
    drafts.append(("2024-08-01", "도로교통법", "행정안전위원회", "수정가결", "2024-12-10"))
    drafts.sort(key=lambda t: t[0])
    out: list[Record] = []
    for i, (propose, law, committee, result, proc) in enumerate(drafts, start=1):
        lead = r.choice(members)
        n = r.randrange(10, 25)
        out.append(
            {
                "BILL_ID": "PRC_"
                + "".join(r.choices(string.ascii_uppercase + string.digits, k=30)),
                "BILL_NO": f"22{i:05d}",
                "BILL_NAME": f"{law} 일부개정법률안",
                "COMMITTEE": committee,
                "PROPOSE_DT": propose,
                "PROC_RESULT": result,
                "PROC_DT": proc,
                "AGE": "22",
                "PROPOSER": f"{lead['HG_NM']}의원 등 {n}인",
                "RST_PROPOSER": lead["HG_NM"],
                "_lead": lead["MONA_CD"],
                "_n": n,
            }
        )
    out.reverse()  # newest first
    return out


def _public(b: Record) -> Record:
    return {k: v for k, v in b.items() if not k.startswith("_")}


def assembly_bills(
    AGE: Any,
    BILL_NAME: Any = None,
    PROPOSER: Any = None,
    PROC_RESULT: Any = None,
    COMMITTEE: Any = None,
    pIndex: Any = 1,
    pSize: Any = 100,
    **extra: Any,
) -> Record:
    """nzmimeepazxkubdpn 국회의원 발의법률안 (BILL_NAME and PROPOSER are partial matches)."""
    _check_extra("assembly.bills", extra, _HUB_EXTRA)
    rows = [
        _public(b)
        for b in _bills()
        if b["AGE"] == str(AGE)
        and (BILL_NAME in (None, "") or str(BILL_NAME) in b["BILL_NAME"])
        and (PROPOSER in (None, "") or str(PROPOSER) in b["PROPOSER"])
        and (PROC_RESULT in (None, "") or b["PROC_RESULT"] == PROC_RESULT)
        and (COMMITTEE in (None, "") or b["COMMITTEE"] == COMMITTEE)
    ]
    return _hub(rows, pIndex, pSize)


def _bill(bill_id: Any) -> Record:
    for b in _bills():
        if b["BILL_ID"] == bill_id:
            return b
    raise LookupError(f"no bill {bill_id!r} (INFO-200)")


def assembly_proposers(BILL_ID: Any, pIndex: Any = 1, pSize: Any = 100, **extra: Any) -> Record:
    """BILLINFOPPSR 의안 제안자: the lead proposer first, then co-proposers (mostly same party)."""
    _check_extra("assembly.proposers", extra, _HUB_EXTRA)
    b = _bill(BILL_ID)
    r = random.Random("proposers-" + b["BILL_ID"])
    members = _members()
    lead = next(m for m in members if m["MONA_CD"] == b["_lead"])
    same = [m for m in members if m["POLY_NM"] == lead["POLY_NM"] and m is not lead]
    other = [m for m in members if m["POLY_NM"] != lead["POLY_NM"]]
    n_same = min(len(same), b["_n"] - 1 - r.randrange(0, 3))
    co = r.sample(same, max(0, n_same)) + r.sample(other, b["_n"] - 1 - max(0, n_same))
    rows = [
        {
            "BILL_ID": b["BILL_ID"],
            "PPSR_NM": m["HG_NM"],
            "PPSR_POLY_NM": m["POLY_NM"],
            "REP_DIV": "대표발의" if m is lead else "공동발의",
            "PPSR_KIND": "의원",
            "NASS_CD": m["MONA_CD"],
        }
        for m in [lead, *co]
    ]
    return _hub(rows, pIndex, pSize)


def assembly_votes(
    AGE: Any, BILL_ID: Any, pIndex: Any = 1, pSize: Any = 100, **extra: Any
) -> Record:
    """nojepdqqaweusdfbi 국회의원 본회의 표결정보: one row per member who voted."""
    _check_extra("assembly.votes", extra, _HUB_EXTRA)
    b = _bill(BILL_ID)
    if b["PROC_RESULT"] not in ("원안가결", "수정가결") or str(AGE) != b["AGE"]:
        return _hub([], pIndex, pSize)
    r = random.Random("votes-" + b["BILL_ID"])
    against_party = r.choice(["국민의힘", "더불어민주당"])
    rows: list[Record] = []
    for m in _members():
        if r.random() < 0.08:
            continue  # 불참
        x = r.random()
        if m["POLY_NM"] == against_party:
            mod = "반대" if x < 0.35 else ("기권" if x < 0.45 else "찬성")
        else:
            mod = "반대" if x < 0.03 else ("기권" if x < 0.08 else "찬성")
        rows.append(
            {
                "HG_NM": m["HG_NM"],
                "POLY_NM": m["POLY_NM"],
                "ORIG_NM": m["ORIG_NM"],
                "MONA_CD": m["MONA_CD"],
                "RESULT_VOTE_MOD": mod,
                "BILL_NO": b["BILL_NO"],
                "BILL_NAME": b["BILL_NAME"],
                "AGE": b["AGE"],
                "VOTE_DATE": b["PROC_DT"].replace("-", "") + " 153012",
            }
        )
    return _hub(rows, pIndex, pSize)


# ================================================================== registry

TOOLS: dict[str, Callable[..., Any]] = {
    "dart.corp_code": dart_corp_code,
    "dart.disclosures": dart_disclosures,
    "dart.company": dart_company,
    "krx.stock_price": krx_stock_price,
    "neis.schools": neis_schools,
    "neis.meals": neis_meals,
    "neis.schedule": neis_schedule,
    "molit.apt_trades": molit_apt_trades,
    "assembly.bills": assembly_bills,
    "assembly.proposers": assembly_proposers,
    "assembly.votes": assembly_votes,
}


def dataset_sizes() -> dict[str, int]:
    """How many records each generated dataset holds."""
    return {
        "krx.prices": len(_prices()),
        "krx.stocks": sum(1 for c in _companies() if c["stock_code"]),
        "dart.companies": len(_companies()),
        "dart.disclosures": len(_disclosures()),
        "neis.schools": len(_schools()),
        "molit.trades": sum(len(_trades(c, m)) for c in DISTRICTS for m in DEAL_MONTHS),
        "assembly.bills": len(_bills()),
        "assembly.members": len(_members()),
    }
