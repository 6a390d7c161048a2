"""NEIS 교육정보 개방 포털 (``open.neis.go.kr/hub``) in the world: schools and their data.

One materialised dataset, ``neis_schools`` (about 12,000 schools over the 17 시도 education
offices, each located at an ``addresses`` row of its 시도 so that juso finds ``ORG_RDNMA``, with
동명 학교 such as several 중앙고등학교), and per-request datasets for everything that hangs off a
school: meals, the school calendar, the four timetables (a high-school week is several hundred
rows), classes, majors, 계열, classrooms, and the academies of an office (thousands per 시도).
Per-request rows are a pure function of (seed, school, request), cached for paging.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..addresses import addresses
from ..decl import Dataset, Endpoint, Filter, Paging, Row
from ..rand import hash_unit, rng
from . import neis_data as nd
from .neis_data import (
    academy_rows,
    class_rows,
    classroom_rows,
    meal_rows,
    schedule_rows,
    timetable_rows,
)

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "build_schools", "find_school", "schools"]

PLATFORM = "neis"
BASE = "/hub"
PAGING = Paging(page="pIndex", size="pSize", default_size=100, max_size=1000,
                over_max="error")
"""hub paging: ``pIndex``/``pSize`` (default 100); more than 1,000 rows is ``ERROR-336``."""

_KIND_CODE = {"초등학교": "els", "중학교": "mis", "고등학교": "his", "특수학교": "sps"}
_FOUND = {"els": ((0.975, "공립"), (0.995, "사립"), (1.0, "국립")),
          "mis": ((0.78, "공립"), (0.99, "사립"), (1.0, "국립")),
          "his": ((0.58, "공립"), (0.99, "사립"), (1.0, "국립")),
          "sps": ((0.45, "공립"), (0.97, "사립"), (1.0, "국립"))}
_WEB = {"els": "es", "mis": "ms", "his": "hs", "sps": "sc"}


def _pick(r: float, table: Iterable[tuple[float, str]]) -> str:
    last = ""
    for bound, value in table:
        last = value
        if r < bound:
            return value
    return last


def _stem_of(emd: str) -> str:
    stem = emd.rstrip("0123456789가동읍면리").replace("제", "")
    return stem.rstrip("0123456789") or emd


def _hs_fields(r: Any, kind: str) -> dict[str, Any]:
    if kind != "his":
        return {"HS_SC_NM": None, "HS_GNRL_BUSNS_SC_NM": "해당없음",
                "SPCLY_PURPS_HS_ORD_NM": None, "ENE_BFE_SEHF_SC_NM": None}
    x, acc, hs = r.random(), 0.0, "일반고"
    for name, share in nd.HS_TYPES:
        acc += share
        if x < acc:
            hs = name
            break
    return {"HS_SC_NM": hs, "HS_GNRL_BUSNS_SC_NM": "전문계" if hs == "특성화고" else "일반계",
            "SPCLY_PURPS_HS_ORD_NM": r.choice(nd.SPECIAL_PURPOSE) if hs == "특목고" else None,
            "ENE_BFE_SEHF_SC_NM": "전기" if hs in ("특목고", "특성화고") else "후기"}


def _majors(r: Any, kind: str, hs: str | None) -> tuple[tuple[str, str], ...]:
    if kind == "sps":
        return (("특수교육계", "전공과"),) if r.random() < 0.4 else ()
    if kind != "his":
        return ()
    if hs == "특성화고" or (hs == "특목고" and r.random() < 0.3):
        ords = r.sample(sorted(nd.MAJORS), k=r.randint(1, 2))
        out = [(o, m) for o in ords for m in r.sample(nd.MAJORS[o], k=min(3, len(nd.MAJORS[o])))]
        return tuple(out[: r.randint(2, 5)])
    return (("일반계", "보통과"),)


def _names(r: Any, office: nd.Office, kind: str, emd: str, taken: set[str],
           forced: str | None) -> str:
    suffix = nd.SUFFIX[kind]
    prefix = "서울" if office.code == "B10" and kind == "초등학교" else ""
    local = _stem_of(emd)
    stems = [forced] if forced else []
    if kind == "특수학교":
        special = nd.SPECIAL_STEMS[int(r.random() * len(nd.SPECIAL_STEMS))]
        stems += [special, f"{local}{special}"]
    else:
        if len(local) >= 2:
            stems.append(local)
        n = len(nd.STEMS)
        stems += [nd.STEMS[int(r.random() * n)] for _ in range(4)]
    for stem in stems:
        name = f"{prefix}{stem}{suffix}"
        if name not in taken:
            return name
    n, stem = 2, stems[-1]
    while f"{prefix}{stem}제{n}{suffix}" in taken:
        n += 1
    return f"{prefix}{stem}제{n}{suffix}"


def _ri(r: Any, a: int, b: int) -> int:
    """``r.randint(a, b)`` without its overhead (12,000 schools × a dozen draws)."""
    return a + int(r.random() * (b - a + 1))


def _date(y: int, doy: int) -> str:
    """``YYYYMMDD`` of day ``doy`` (0-based, at most 364) of year ``y``."""
    d = date(y, 1, 1) + timedelta(days=doy)
    return f"{d.year}{d.month:02d}{d.day:02d}"


def _school(r: Any, seed: int, office: nd.Office, kind_nm: str, code: int, addr: Row,
            taken: set[str], forced: str | None) -> Row:
    kind = _KIND_CODE[kind_nm]
    name = _names(r, office, kind_nm, str(addr["emdNm"]), taken, forced)
    taken.add(name)
    sgg = str(addr["sggNm"])
    hs = _hs_fields(r, kind)
    coedu = "남여공학"
    if kind in ("mis", "his"):
        coedu = _pick(r.random(), ((0.7 if kind == "his" else 0.82, "남여공학"),
                                   (0.86 if kind == "his" else 0.91, "남"), (1.0, "여")))
    fond = _date(_ri(r, 1900 if kind == "els" else 1946, 2023), _ri(r, 0, 360))
    foas = fond if r.random() < 0.7 else f"{fond[:4]}{_ri(r, 1, 12):02d}{_ri(r, 1, 28):02d}"
    stem_roman = nd.romanize(name.removesuffix(nd.SUFFIX[kind_nm]).removeprefix("서울"))
    eng_kind = {"els": "Elementary School", "mis": "Middle School", "his": "High School",
                "sps": "School"}[kind]
    size = {"els": (1, 8), "mis": (2, 10), "his": (3, 12), "sps": (1, 3)}[kind]
    meals: tuple[str, ...] = ("2",)
    if kind == "his":
        meals = ("2", "3") if r.random() < 0.6 else ("2",)
        if r.random() < 0.08:
            meals = ("1", "2", "3")
    phone = f"{office.area}-{_ri(r, 200, 999)}-{_ri(r, 1000, 9999)}"
    row: Row = {
        "ATPT_OFCDC_SC_CODE": office.code,
        "ATPT_OFCDC_SC_NM": office.name,
        "SD_SCHUL_CODE": f"{code:07d}",
        "SCHUL_NM": name,
        "ENG_SCHUL_NM": f"{stem_roman} {eng_kind}",
        "SCHUL_KND_SC_NM": kind_nm,
        "LCTN_SC_NM": office.sido,
        "JU_ORG_NM": nd.support_office(office, sgg),
        "FOND_SC_NM": _pick(r.random(), _FOUND[kind]),
        "ORG_RDNZC": addr["zipNo"],
        "ORG_RDNMA": addr["roadAddrPart1"],
        "ORG_RDNDA": f"/ {name}{addr['roadAddrPart2']}",
        "ORG_TELNO": phone,
        "HMPG_ADRES": f"https://{stem_roman.lower()}.{nd.DOMAINS[office.code]}.{_WEB[kind]}.kr",
        "COEDU_SC_NM": coedu,
        "ORG_FAXNO": f"{office.area}-{_ri(r, 200, 999)}-{_ri(r, 1000, 9999)}",
        "HS_SC_NM": hs["HS_SC_NM"],
        "INDST_SPECL_CCCCL_EXST_YN": "N",
        "HS_GNRL_BUSNS_SC_NM": hs["HS_GNRL_BUSNS_SC_NM"],
        "SPCLY_PURPS_HS_ORD_NM": hs["SPCLY_PURPS_HS_ORD_NM"],
        "ENE_BFE_SEHF_SC_NM": hs["ENE_BFE_SEHF_SC_NM"],
        "DGHT_SC_NM": "주간",
        "FOND_YMD": fond,
        "FOAS_MEMRD": foas,
        "LOAD_DTM": _date(2024, _ri(r, 0, 364)),
        "_kind": kind,
        "_size": _ri(r, *size),
        "_majors": _majors(r, kind, hs["HS_SC_NM"]),
        "_meals": meals,
        "_jitter": _ri(r, -3, 3),
        "_admCd": addr["admCd"],
        "_seed": seed,
    }
    return row


@lru_cache(maxsize=4)
def schools(seed: int) -> tuple[Row, ...]:
    """Every school of the world with this seed, office by office in code order."""
    r = rng(seed, "neis_schools")
    by_sido: dict[str, list[Row]] = defaultdict(list)
    for a in addresses(seed):
        by_sido[str(a["admCd"])[:2]].append(a)
    out: list[Row] = []
    for office in nd.OFFICES:
        pool = by_sido[office.prefix]
        taken: set[str] = set()
        code = office.code_base
        for kind_nm, share in nd.KINDS:
            n = max(1, round(office.schools * share))
            forced: list[str] = []
            if kind_nm in ("중학교", "고등학교"):
                forced = [s for s in nd.POPULAR_STEMS
                          if hash_unit(seed, "neis", office.code, kind_nm, s) < 0.45]
                if kind_nm == "고등학교" and office.code in ("B10", "J10") and "한빛" not in forced:
                    forced.append("한빛")
            for i in range(n):
                code += 1 + (r.random() < 0.3)
                addr = pool[int(r.random() * len(pool))]
                stem = forced[i] if i < len(forced) else None
                out.append(_school(r, seed, office, kind_nm, code, addr, taken, stem))
    return tuple(out)


@lru_cache(maxsize=4)
def _by_code(seed: int) -> dict[tuple[str, str], Row]:
    return {(str(s["ATPT_OFCDC_SC_CODE"]), str(s["SD_SCHUL_CODE"])): s for s in schools(seed)}


def find_school(seed: int, params: Mapping[str, str]) -> Row | None:
    """The school a request names by ``ATPT_OFCDC_SC_CODE`` and ``SD_SCHUL_CODE`` (or None)."""
    key = (str(params.get("ATPT_OFCDC_SC_CODE", "")).strip().upper(),
           str(params.get("SD_SCHUL_CODE", "")).strip())
    return _by_code(seed).get(key)


def build_schools(world: World) -> list[Row]:
    """The ``neis_schools`` dataset builder."""
    return list(schools(world.seed))


# ---------------------------------------------------------------- per-request datasets


def _per_school(gen: Any) -> Any:
    def rows(world: World, params: Mapping[str, str]) -> list[Row]:
        school = find_school(world.seed, params)
        return [] if school is None else gen(school, params)
    rows.__doc__ = gen.__doc__
    return rows


def _academies(world: World, params: Mapping[str, str]) -> list[Row]:
    office = str(params.get("ATPT_OFCDC_SC_CODE", "")).strip().upper()
    return list(academy_rows(world.seed, office))


def _tt(kind: str) -> Any:
    def gen(school: Row, params: Mapping[str, str]) -> list[Row]:
        return timetable_rows(school, kind, params)
    gen.__doc__ = f"{kind} timetable rows of the requested school and window"
    return gen


DATASETS: tuple[Dataset, ...] = (
    Dataset("neis_schools", build=build_schools,
            index=("SD_SCHUL_CODE", "ATPT_OFCDC_SC_CODE", "SCHUL_KND_SC_NM"),
            doc="학교기본정보: ~12,000 schools on addresses of their 시도"),
    Dataset("neis_meals", rows=_per_school(meal_rows), doc="급식식단: per school and window"),
    Dataset("neis_schedule", rows=_per_school(schedule_rows),
            doc="학사일정: events, 토요휴업일, 방학 and 공휴일 per school year"),
    *(Dataset(f"neis_{k}_timetable", rows=_per_school(_tt(k)),
              doc=f"{k}Timetable: one row per class period") for k in ("his", "mis", "els", "sps")),
    Dataset("neis_classes", rows=_per_school(class_rows), doc="학급정보 per school year"),
    Dataset("neis_majors", rows=_per_school(
        lambda s, p: [{**_base(s), "DGHT_CRSE_SC_NM": "주간", "ORD_SC_NM": o, "DDDEP_NM": m,
                       "LOAD_DTM": s["LOAD_DTM"]} for o, m in s["_majors"]]),
            doc="학교학과정보"),
    Dataset("neis_affiliations", rows=_per_school(
        lambda s, p: [{**_base(s), "DGHT_CRSE_SC_NM": "주간", "ORD_SC_NM": o,
                       "LOAD_DTM": s["LOAD_DTM"]}
                      for o in dict.fromkeys(o for o, _ in s["_majors"])]),
            doc="학교계열정보"),
    Dataset("neis_classrooms", rows=_per_school(classroom_rows), doc="시간표강의실정보"),
    Dataset("neis_academies", rows=_academies, doc="학원교습소정보 of one office"),
)


def _base(school: Row) -> Row:
    return {k: school[k] for k in ("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_NM", "SD_SCHUL_CODE",
                                   "SCHUL_NM")}


# ---------------------------------------------------------------- endpoints

_KEYS = (Filter("ATPT_OFCDC_SC_CODE"), Filter("SD_SCHUL_CODE"))
_REQ = ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")


def _ep(tool: str, service: str, dataset: str, *filters: Filter,
        required: tuple[str, ...] = _REQ, doc: str = "",
        aliases: tuple[str, ...] = ()) -> Endpoint:
    return Endpoint(platform=PLATFORM, tool=tool, path=f"{BASE}/{service}", dialect="hub",
                    dataset=dataset, service=service, filters=filters, required=required,
                    paging=PAGING, doc=doc, aliases=aliases)


def _eq(*names: str) -> tuple[Filter, ...]:
    return tuple(Filter(n) for n in names)


def _timetable(tool: str, service: str, kind: str, extra: tuple[str, ...]) -> Endpoint:
    # the timetables before 2023 are a service of their own (``hisTimetablebgs`` …), which
    # neispy calls for a year before 2023 and reads under the same wrapper (issue 21 §6)
    return _ep(tool, service, f"neis_{kind}_timetable", *_KEYS,
               *_eq("AY", "SEM", "ALL_TI_YMD", "GRADE", "CLASS_NM", *extra),
               Filter("TI_FROM_YMD", "ALL_TI_YMD", "ge"), Filter("TI_TO_YMD", "ALL_TI_YMD", "le"),
               aliases=(f"{BASE}/{service}bgs",))


ENDPOINTS: tuple[Endpoint, ...] = (
    _ep("schools", "schoolInfo", "neis_schools", *_KEYS, Filter("SCHUL_NM", op="contains"),
        *_eq("SCHUL_KND_SC_NM", "LCTN_SC_NM", "FOND_SC_NM"), required=(),
        doc="학교기본정보"),
    _ep("meals", "mealServiceDietInfo", "neis_meals", *_KEYS, *_eq("MMEAL_SC_CODE", "MLSV_YMD"),
        Filter("MLSV_FROM_YMD", "MLSV_YMD", "ge"), Filter("MLSV_TO_YMD", "MLSV_YMD", "le"),
        doc="급식식단정보"),
    _ep("schedule", "SchoolSchedule", "neis_schedule", *_KEYS,
        *_eq("DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "AA_YMD"),
        Filter("AA_FROM_YMD", "AA_YMD", "ge"), Filter("AA_TO_YMD", "AA_YMD", "le"),
        doc="학사일정"),
    _timetable("his_timetable", "hisTimetable", "his",
               ("DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM", "CLRM_NM")),
    _timetable("mis_timetable", "misTimetable", "mis", ("DGHT_CRSE_SC_NM",)),
    _timetable("els_timetable", "elsTimetable", "els", ()),
    _timetable("sps_timetable", "spsTimetable", "sps", ("SCHUL_CRSE_SC_NM", "CLRM_NM")),
    _ep("classes", "classInfo", "neis_classes", *_KEYS,
        *_eq("AY", "GRADE", "DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM"),
        doc="학급정보"),
    _ep("majors", "schoolMajorinfo", "neis_majors", *_KEYS,
        *_eq("DGHT_CRSE_SC_NM", "ORD_SC_NM"), doc="학교학과정보"),
    _ep("affiliations", "schulAflcoinfo", "neis_affiliations", *_KEYS,
        *_eq("DGHT_CRSE_SC_NM", "ORD_SC_NM"), doc="학교계열정보"),
    _ep("classrooms", "tiClrminfo", "neis_classrooms", *_KEYS,
        *_eq("AY", "GRADE", "SEM", "SCHUL_CRSE_SC_NM", "DGHT_CRSE_SC_NM", "ORD_SC_NM",
             "DDDEP_NM"), doc="시간표강의실정보"),
    _ep("academies", "acaInsTiInfo", "neis_academies", Filter("ATPT_OFCDC_SC_CODE"),
        *_eq("ADMST_ZONE_NM", "ACA_ASNUM", "REALM_SC_NM", "LE_ORD_NM", "LE_CRSE_NM"),
        Filter("ACA_NM", op="contains"), required=("ATPT_OFCDC_SC_CODE",),
        doc="학원교습소정보"),
)
