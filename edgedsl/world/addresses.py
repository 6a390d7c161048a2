"""The world's address universe: road-name addresses on the real legal districts.

One deterministic dataset, ``addresses``, that every platform draws from: juso.go.kr searches it,
DART companies, NEIS schools, bus stops and apartment trades are located at its rows, so that the
free-text address one platform returns is found by another (the chains that join on addresses).

A row carries the juso.go.kr field names (``roadAddr``, ``jibunAddr``, ``admCd`` …) plus internal
fields beginning with ``_`` that the engine never serves: ``_lat``/``_lon`` (WGS84 degrees).

Addresses cluster in space the way the districts do: each 시군구 has a centre (the real 구청
positions for Seoul, a deterministic scatter around the 시도 centre elsewhere), each 읍면동 a centre
near it, and each building sits within a few hundred metres of its 읍면동 centre. A road keeps one
road-name code (``rnMgtSn`` = 시군구 5 digits + road number 7) throughout its 시군구; ``bdMgtSn``
begins with the 법정동코드; ``zipNo`` falls in the real 시도 ranges of the 5-digit postal codes; and
``engAddr`` is the Revised Romanization juso answers (``17, Jahamun-ro 1-gil, Jongno-gu, Seoul``).
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING, Any

from .diskcache import disk_cached
from .rand import hash_unit, rng
from .regions import LegalDong, legal_dongs

if TYPE_CHECKING:
    from .engine import World

__all__ = [
    "SEOUL_GU_CENTRES",
    "SIDO_CENTRES",
    "SIDO_ENGLISH",
    "address_row",
    "addresses",
    "build_addresses",
    "dong_centre",
    "english_address",
    "romanize",
    "zip_head",
]

# Approximate centres (lat, lon) of the 17 시도, by the 2-digit 법정동 prefix.
SIDO_CENTRES: dict[str, tuple[float, float]] = {
    "11": (37.5665, 126.9780), "26": (35.1796, 129.0756), "27": (35.8714, 128.6014),
    "28": (37.4563, 126.7052), "29": (35.1595, 126.8526), "30": (36.3504, 127.3845),
    "31": (35.5384, 129.3114), "36": (36.4800, 127.2890), "41": (37.4138, 127.5183),
    "51": (37.8228, 128.1555), "43": (36.6357, 127.4917), "44": (36.5184, 126.8000),
    "52": (35.7175, 127.1530), "46": (34.8679, 126.9910), "47": (36.4919, 128.8889),
    "48": (35.4606, 128.2132), "50": (33.4996, 126.5312),
}
# how far (degrees of latitude) a 시군구 centre may lie from its 시도 centre
_SGG_SPREAD = {"11": 0.0, "26": 0.07, "27": 0.07, "28": 0.08, "29": 0.05, "30": 0.05,
               "31": 0.07, "36": 0.04, "50": 0.12}
# the 25 자치구 of Seoul: their 구청 positions
SEOUL_GU_CENTRES: dict[str, tuple[float, float]] = {
    "11110": (37.5735, 126.9790), "11140": (37.5641, 126.9979), "11170": (37.5324, 126.9900),
    "11200": (37.5634, 127.0369), "11215": (37.5385, 127.0823), "11230": (37.5744, 127.0400),
    "11260": (37.6066, 127.0927), "11290": (37.5894, 127.0167), "11305": (37.6396, 127.0257),
    "11320": (37.6688, 127.0471), "11350": (37.6542, 127.0568), "11380": (37.6027, 126.9291),
    "11410": (37.5791, 126.9368), "11440": (37.5663, 126.9019), "11470": (37.5170, 126.8665),
    "11500": (37.5509, 126.8495), "11530": (37.4955, 126.8875), "11545": (37.4569, 126.8955),
    "11560": (37.5264, 126.8962), "11590": (37.5124, 126.9393), "11620": (37.4784, 126.9516),
    "11650": (37.4837, 127.0324), "11680": (37.5172, 127.0473), "11710": (37.5145, 127.1066),
    "11740": (37.5301, 127.1238),
}
# 시군구 placed by hand: 군위군 joined 대구광역시 (2023-07-01) but lies 40 km north of its centre
_SGG_CENTRES: dict[str, tuple[float, float]] = {**SEOUL_GU_CENTRES, "27720": (36.2428, 128.5728)}
SIDO_ENGLISH: dict[str, str] = {
    "11": "Seoul", "26": "Busan", "27": "Daegu", "28": "Incheon", "29": "Gwangju",
    "30": "Daejeon", "31": "Ulsan", "36": "Sejong-si", "41": "Gyeonggi-do",
    "51": "Gangwon State", "43": "Chungcheongbuk-do", "44": "Chungcheongnam-do",
    "52": "Jeonbuk State",
    "46": "Jeollanam-do", "47": "Gyeongsangbuk-do", "48": "Gyeongsangnam-do", "50": "Jeju-do",
}
# first two digits of the 5-digit postal code (국가기초구역번호) by 시도 — or by 시군구, where
# a renumbered 시군구 kept its old ones (군위군: 391xx) — : (lowest, highest)
_ZIP_RANGES: dict[str, tuple[int, int]] = {
    "11": (1, 8), "41": (10, 18), "28": (21, 23), "51": (24, 26), "43": (27, 29), "36": (30, 30),
    "44": (31, 33), "30": (34, 35), "47": (36, 40), "27": (41, 43), "31": (44, 45),
    "26": (46, 49), "48": (50, 53), "52": (54, 56), "46": (57, 60), "29": (61, 62),
    "50": (63, 63), "27720": (39, 39),
}

_ROAD_SUFFIX = ("로", "길", "대로")
_GENERIC_ROADS = ("중앙", "시청", "역전", "공원", "학교", "문화", "평화", "희망", "행복", "번영")
_BUILDING_KINDS = ("빌딩", "타워", "아파트", "빌라", "센터", "")
PER_DONG = 4

# ---------------------------------------------------------------- Revised Romanization

_INITIAL = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k",
            "t", "p", "h")
_MEDIAL = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u",
           "wo", "we", "wi", "yu", "eu", "ui", "i")
_FINAL = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p",
          "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t")
# a final consonant carried over to a following vowel (연음): final index → initial spelling
_NASAL = {"k": "ng", "t": "n", "p": "m"}
_LINK = {1: "g", 4: "n", 7: "d", 8: "r", 16: "m", 17: "b", 19: "s", 21: "ng", 22: "j", 23: "ch"}


@cache
def romanize(text: str) -> str:
    """Hangul → Revised Romanization (lower case), with the common sound rules of place names.

    ``종로`` → ``jongno``, ``선릉`` → ``seolleung``, ``청운`` → ``cheongun``; non-Hangul characters
    pass through unchanged.
    """
    sylls: list[tuple[int, int, int] | str] = []
    for ch in text:
        code = ord(ch) - 0xAC00
        sylls.append((code // 588, (code % 588) // 28, code % 28) if 0 <= code < 11172 else ch)
    out: list[str] = []
    for i, s in enumerate(sylls):
        if isinstance(s, str):
            out.append(s)
            continue
        ini, med, fin = s
        prev = sylls[i - 1] if i > 0 else None
        nxt = sylls[i + 1] if i + 1 < len(sylls) else None
        head = _INITIAL[ini]
        if isinstance(prev, tuple):
            pfin = prev[2]
            if ini == 5:  # ㄹ after a final: ㄴ/ㄹ + ㄹ → ll, other finals + ㄹ → n
                head = "l" if pfin in (4, 8) else ("n" if pfin else "r")
            elif ini == 11 and pfin in _LINK and pfin != 21:
                head = ""  # the final was carried over to this vowel by the previous syllable
        elif ini == 5:
            head = "r"
        tail = _FINAL[fin]
        if isinstance(nxt, tuple):
            if nxt[0] == 11 and fin in _LINK and fin != 21:
                tail = _LINK[fin]
            elif fin == 4 and nxt[0] == 5:
                tail = "l"
            elif nxt[0] in (2, 5, 6) and tail in _NASAL:  # 비음화: 독립문 → dongnimmun
                tail = _NASAL[tail]
        out.append(head + _MEDIAL[med] + tail)
    return "".join(out)


@cache
def _unit(name: str) -> str:
    """``종로구`` → ``Jongno-gu``, ``청운동`` → ``Cheongun-dong``,
    ``역삼1동`` → ``Yeoksam 1-dong``."""
    for suffix, eng in (("대로", "daero"), ("구", "gu"), ("시", "si"), ("군", "gun"),
                        ("읍", "eup"), ("면", "myeon"), ("동", "dong"), ("리", "ri"),
                        ("로", "ro"), ("가", "ga")):
        if name.endswith(suffix) and len(name) > len(suffix):
            stem = name[: -len(suffix)]
            digits = ""
            while stem and stem[-1].isdigit():
                digits, stem = stem[-1] + digits, stem[:-1]
            word = romanize(stem).capitalize()
            return f"{word} {digits}-{eng}" if digits else f"{word}-{eng}"
    return romanize(name).capitalize()


@cache
def _road_english(road: str) -> str:
    """``자하문로1길`` → ``Jahamun-ro 1-gil``; ``중앙대로`` → ``Jungang-daero``."""
    if road.endswith("길") and "로" in road:
        base, num = road[:-1].rsplit("로", 1)
        if num.isdigit():
            return f"{_unit(base + '로')} {num}-gil"
    if road.endswith("길"):
        return f"{romanize(road[:-1]).capitalize()}-gil"
    return _unit(road)


def english_address(row: dict[str, Any]) -> dict[str, str]:
    """The English names of an address row: ``roadAddr``, ``jibunAddr``, ``siNm``, ``sggNm``,
    ``emdNm``, ``liNm``, ``rn`` — the fields juso's ``addrEngApi`` answers in English."""
    si = SIDO_ENGLISH.get(row["admCd"][:2], _unit(row["siNm"]))
    sgg = ", ".join(_unit(p) for p in reversed(row["sggNm"].split())) if row["sggNm"] else ""
    emd = _unit(row["emdNm"]) if row["emdNm"] else ""
    li = _unit(row["liNm"]) if row["liNm"] else ""
    rn = _road_english(row["rn"])
    bno = row["buldMnnm"] + (f"-{row['buldSlno']}" if row["buldSlno"] != "0" else "")
    jno = row["lnbrMnnm"] + (f"-{row['lnbrSlno']}" if row["lnbrSlno"] != "0" else "")
    under = "Jiha " if row["udrtYn"] == "1" else ""
    # a 읍/면 is part of the road address (군위군 군위읍 군위로 12), a 동 only of the lot address
    town = emd if row["emdNm"].endswith(("읍", "면")) else ""
    road = ", ".join(p for p in (f"{under}{bno}", rn, town, sgg, si) if p)
    jibun = ", ".join(p for p in (jno, li, emd, sgg, si) if p)
    return {"roadAddr": road, "jibunAddr": jibun, "siNm": si, "sggNm": sgg, "emdNm": emd,
            "liNm": li, "rn": rn}


# ---------------------------------------------------------------- geometry


@cache
def _sgg_centre(seed: int, sgg_cd: str, sido_cd: str) -> tuple[float, float]:
    if sgg_cd in _SGG_CENTRES:
        return _SGG_CENTRES[sgg_cd]
    lat0, lon0 = SIDO_CENTRES.get(sido_cd, (36.5, 127.8))
    spread = _SGG_SPREAD.get(sido_cd, 0.35)
    dlat = (hash_unit(seed, "sgg-lat", sgg_cd) * 2 - 1) * spread
    dlon = (hash_unit(seed, "sgg-lon", sgg_cd) * 2 - 1) * spread * 1.2
    return lat0 + dlat, lon0 + dlon


@cache
def dong_centre(seed: int, dong: LegalDong) -> tuple[float, float]:
    """The (lat, lon) a 읍면동's buildings lie around."""
    lat, lon = _sgg_centre(seed, dong.sgg_cd, dong.sido_cd)
    spread = 0.018 if dong.sido_cd in ("11", "26", "27", "28", "29", "30", "31") else 0.06
    dlat = (hash_unit(seed, "dong-lat", dong.code) * 2 - 1) * spread
    dlon = (hash_unit(seed, "dong-lon", dong.code) * 2 - 1) * spread * 1.2
    return lat + dlat, lon + dlon


# ---------------------------------------------------------------- rows


def _stem(name: str) -> str:
    # 청운동 → 청운, 역삼1동 → 역삼, 상도제1동 → 상도
    stem = name.rstrip("0123456789가동읍면리").replace("제", "")
    return stem.rstrip("0123456789") or name


def _roads(r: random.Random, dong: LegalDong) -> list[str]:
    stem = _stem(dong.umd_nm)
    own = [f"{stem}{r.choice(_ROAD_SUFFIX)}", f"{stem}로{r.randint(1, 30)}길"]
    return [*own, f"{r.choice(_GENERIC_ROADS)}로"]


@cache
def _road_no(seed: int, sgg_cd: str, road: str) -> str:
    """The 12-digit road-name code of ``road`` in this 시군구 (stable for the whole 시군구)."""
    return f"{sgg_cd}{3000000 + int(hash_unit(seed, 'road', sgg_cd, road) * 999999):07d}"


@cache
def zip_head(seed: int, sgg_cd: str) -> int:
    """The first two digits of the postal codes of a 시군구."""
    lo, hi = _ZIP_RANGES.get(sgg_cd) or _ZIP_RANGES.get(sgg_cd[:2], (10, 63))
    return lo + int(hash_unit(seed, "zip", sgg_cd) * (hi - lo + 1))


def _row(seed: int, r: random.Random, dong: LegalDong, n: int,
         taken: set[tuple[str, str, int, int]]) -> dict[str, Any]:
    road = r.choice(_roads(r, dong))
    main = r.randint(1, 320)
    sub = r.choice((0, 0, 0, r.randint(1, 30)))
    # a road address names one building in its 시군구 (a road runs through several 동): a
    # number drawn twice on one road is moved up to the next free one, without a draw, so
    # the other buildings keep theirs
    while (dong.sgg_cd, road, main, sub) in taken:
        main += 1
    taken.add((dong.sgg_cd, road, main, sub))
    jibun_main, jibun_sub = r.randint(1, 900), r.choice((0, r.randint(1, 60)))
    clat, clon = dong_centre(seed, dong)
    lat = clat + r.uniform(-0.004, 0.004)
    lon = clon + r.uniform(-0.005, 0.005)
    underground = r.random() < 0.03
    kind = r.choice(_BUILDING_KINDS)
    building = f"{_stem(dong.umd_nm)}{kind}"
    has_name = r.random() < 0.6
    return address_row(
        dong, road=road, road_no=_road_no(seed, dong.sgg_cd, road), main=main, sub=sub,
        lot=(jibun_main, jibun_sub), underground=underground,
        name=building if has_name else "", apartment=kind in ("아파트", "빌라"),
        zip_no=f"{zip_head(seed, dong.sgg_cd):02d}{r.randrange(1000):03d}",
        serial=f"0{jibun_main:04d}{jibun_sub:04d}{n + 1:06d}", at=(lat, lon))


def address_row(dong: LegalDong, *, road: str, road_no: str, main: int, sub: int,
                lot: tuple[int, int], underground: bool, name: str, apartment: bool,
                zip_no: str, serial: str, at: tuple[float, float]) -> dict[str, Any]:
    """The juso row of the building at road ``road`` (road-name code ``road_no``) number
    ``main``-``sub`` on lot ``lot`` of ``dong``, named ``name`` (may be empty); ``serial``
    follows the 10-digit code in its ``bdMgtSn``; ``at`` is its (lat, lon)."""
    bno = f"{main}-{sub}" if sub else str(main)
    jibun = f"{lot[0]}-{lot[1]}" if lot[1] else str(lot[0])
    sido_sgg = " ".join(p for p in (dong.sido_nm, dong.sgg_nm) if p)
    emd_li = " ".join(p for p in (dong.umd_nm, dong.ri_nm) if p)
    # 동 addresses put the 동 in parentheses; 읍/면 addresses already name it before the road
    note = f" ({dong.umd_nm})" if dong.umd_nm.endswith("동") or dong.umd_nm.endswith("가") \
        else ""
    if name and note:
        note = f" ({dong.umd_nm}, {name})"
    sgg_road = f"{sido_sgg} {dong.umd_nm} {road}" if not note else f"{sido_sgg} {road}"
    part1 = f"{sgg_road} {'지하 ' if underground else ''}{bno}"
    row = {
        "roadAddr": part1 + note,
        "roadAddrPart1": part1,
        "roadAddrPart2": note,
        "jibunAddr": f"{sido_sgg} {emd_li} {jibun}",
        "engAddr": "",
        "zipNo": zip_no,
        "admCd": dong.code,
        "rnMgtSn": road_no,
        "bdMgtSn": f"{dong.code}{serial}",
        "detBdNmList": "",
        "bdNm": name,
        "bdKdcd": "1" if apartment else "0",
        "siNm": dong.sido_nm,
        "sggNm": dong.sgg_nm,
        "emdNm": dong.umd_nm,
        "liNm": dong.ri_nm,
        "rn": road,
        "udrtYn": "1" if underground else "0",
        "buldMnnm": str(main),
        "buldSlno": str(sub),
        "mtYn": "0",
        "lnbrMnnm": str(lot[0]),
        "lnbrSlno": str(lot[1]),
        "emdNo": f"{int(dong.code[5:8]) % 100:02d}",
        "_lat": round(at[0], 6),
        "_lon": round(at[1], 6),
    }
    row["engAddr"] = english_address(row)["roadAddr"]
    return row


@cache
@disk_cached
def addresses(seed: int) -> tuple[dict[str, Any], ...]:
    """Every address of the world with this seed: ``PER_DONG`` buildings per 읍면동 in force; in a
    읍/면 that has 리, each building lies in one of its 리 (``jibunAddr`` names the 리). No two
    stand at one road address (road and building number) of a 시군구."""
    r = rng(seed, "addresses")
    ris: dict[str, list[LegalDong]] = {}
    for d in legal_dongs():
        if d.level == "ri":
            ris.setdefault(d.code[:8], []).append(d)
    out: list[dict[str, Any]] = []
    taken: set[tuple[str, str, int, int]] = set()
    for dong in legal_dongs():
        if dong.level != "umd":
            continue
        children = ris.get(dong.code[:8])
        for n in range(PER_DONG):
            out.append(_row(seed, r, r.choice(children) if children else dong, n, taken))
    return tuple(out)


def build_addresses(world: World) -> list[dict[str, Any]]:
    """The ``addresses`` dataset builder."""
    return list(addresses(world.seed))
