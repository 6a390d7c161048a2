"""법제처 국가법령정보 공동활용 (``www.law.go.kr/DRF``) in the world: statutes, cases, ordinances.

Two wire paths serve every target: ``/DRF/lawSearch.do`` (lists, root ``LawSearch``,
``PrecSearch``, ``OrdinSearch`` …) and ``/DRF/lawService.do`` (one document, root ``법령``,
``PrecService``, ``LawService`` …), told apart by the ``target`` parameter (``Endpoint.fixed``).

Datasets: ``law_laws`` (every version of about 2,000 statutes: the real-ish ones of
:data:`~edgedsl.world.platforms.law_data.FAMOUS` — 산업안전보건법 has 211 조문단위 — and synthetic
ones; ``법령ID`` is stable, ``법령일련번호`` = MST changes with every version), ``law_precs``
(precedents citing statutes by name, so that ``JO=산업안전보건법`` finds hundreds), ``law_expcs``,
``law_detcs``, ``law_admruls``, and 자치법규 generated per 지자체 (thousands per 시도). Lists are
per-request views (``rows=``) because law.go.kr's search parameters (``search`` 1/2, ranges
``20240101~20241231``, ``nw`` combinations, ``sort`` codes) are richer than the generic filters;
documents are custom endpoints answering the exact JSON (or XML) body.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date, timedelta
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any

import orjson

from ..decl import Dataset, Endpoint, Filter, Paging, Row, WireResponse
from ..envelopes import to_xml
from ..rand import hash_unit, rng
from ..regions import sigungu_list
from . import law_data as ld

if TYPE_CHECKING:
    from ..engine import World

__all__ = ["DATASETS", "ENDPOINTS", "TODAY", "laws"]

PLATFORM = "law"
SEARCH, SERVICE = "/DRF/lawSearch.do", "/DRF/lawService.do"
TODAY = date(2026, 11, 27)
"""The world's today: versions promulgated later do not exist, later 시행일자 are 시행예정."""
PAGING = Paging(page="page", size="display", default_size=20, max_size=100, over_max="clamp")

_KND = {"법률": "A0002", "대통령령": "A0003", "총리령": "A0004"}


def _ymd(d: date) -> str:
    return f"{d.year}{d.month:02d}{d.day:02d}"


def _dotted(s: str) -> str:
    return f"{s[:4]}.{s[4:6]}.{s[6:]}"


# ---------------------------------------------------------------- statutes


def _families(seed: int) -> list[tuple[str, str, str, ld.Statute | None]]:
    """(name, 법령ID, 소관부처코드, famous statute or None) of every 법률, in a fixed order."""
    out: list[tuple[str, str, str, ld.Statute | None]] = [(s.name, s.law_id, s.org, s)
                                                          for s in ld.FAMOUS]
    used = {s.name for s in ld.FAMOUS}
    ids = {s.law_id for s in ld.FAMOUS}
    r = rng(seed, "law_families")
    nid = 2000
    for topic in ld.TOPICS:
        for form in r.sample(ld.FORMS, k=r.randint(5, 8)):
            name = form.format(t=topic).replace("법법", "법")
            if name in used:
                continue
            used.add(name)
            nid += r.randint(3, 9)
            while f"{nid:06d}" in ids:
                nid += 1
            ids.add(f"{nid:06d}")
            out.append((name, f"{nid:06d}", ld.MINISTRIES[r.randrange(len(ld.MINISTRIES))][0],
                        None))
    return out


def _versions(r: Any, n: int) -> list[tuple[date, date, str]]:
    """(공포일자, 시행일자, 제개정구분명) of ``n`` versions, oldest first."""
    out = []
    day = date(2007, 1, 1) + timedelta(days=r.randint(0, 4000))
    for i in range(n):
        kind = "제정" if i == 0 and r.random() < 0.2 else r.choice(
            ("일부개정", "일부개정", "타법개정", "타법개정", "전부개정"))
        lag = r.choice((0, 0, 90, 180, 365))
        out.append((day, day + timedelta(days=lag), kind))
        day += timedelta(days=r.randint(120, 1500))
        if day > TODAY:
            break
    return out


@lru_cache(maxsize=4)
def laws(seed: int) -> tuple[Row, ...]:
    """Every version of every statute (법률, 시행령, 시행규칙), ordered by 공포일자."""
    r = rng(seed, "law_laws")
    pending: list[dict[str, Any]] = []
    sub_id = 100000
    for name, law_id, org, famous in _families(seed):
        kinds = [("", "법률", law_id, 1.0)]
        if famous is not None or r.random() < 0.7:
            sub_id += r.randint(1, 40)
            kinds.append((" 시행령", "대통령령", f"{sub_id:06d}", 0.8))
        if famous is not None or r.random() < 0.5:
            sub_id += r.randint(1, 40)
            kinds.append((" 시행규칙", ld.rule_kind(org), f"{sub_id:06d}", 0.5))
        base = famous.articles if famous else r.randint(18, 120)
        for suffix, kind, lid, scale in kinds:
            arts = max(6, round(base * scale))
            for i, (anc, ef, rev) in enumerate(_versions(r, r.randint(2, 6))):
                pending.append({
                    "법령명한글": name + suffix, "법령약칭명": (famous.abbr if famous and not suffix
                                                         else ""),
                    "법령ID": lid, "공포일자": _ymd(anc), "제개정구분명": rev,
                    "소관부처코드": org, "소관부처명": ld.MINISTRY_NAME[org], "법령구분명": kind,
                    "시행일자": _ymd(ef), "_kind": kind, "_knd": _KND.get(kind, "A0005"),
                    "_articles": arts,
                    "_branches": (famous.branches if famous and not suffix else arts // 12),
                    "_chapters": (famous.chapters if famous and not suffix else
                                  (0 if arts < 25 else arts // 15)),
                    "_famous": famous.name if famous else "", "_v": i, "_base": name,
                })
    pending.sort(key=lambda p: (p["공포일자"], p["법령ID"]))
    counters: dict[tuple[str, str], int] = {}
    for rank, p in enumerate(pending):
        p["법령일련번호"] = str(100000 + rank * 12 + int(hash_unit(seed, "mst", rank) * 10))
        year = p["공포일자"][:4]
        group = "법률" if p["_kind"] == "법률" else ("대통령령" if p["_kind"] == "대통령령"
                                                  else "부령")
        n = counters[(year, group)] = counters.get((year, group), 0) + 1
        start = {"법률": 8000 + (int(year) - 2007) * 700, "대통령령": 20000 +
                 (int(year) - 2007) * 900, "부령": 0}[group]
        p["공포번호"] = f"{start + n:05d}"
    # 현행연혁코드: the newest version in force is 현행, later ones 시행예정, older ones 연혁
    by_id: dict[str, list[dict[str, Any]]] = {}
    for p in pending:
        by_id.setdefault(p["법령ID"], []).append(p)
    today = _ymd(TODAY)
    for versions in by_id.values():
        live = [v for v in versions if v["시행일자"] <= today]
        current = max(live, key=lambda v: (v["시행일자"], v["공포일자"])) if live else None
        for v in versions:
            v["현행연혁코드"] = ("현행" if v is current else
                            "시행예정" if v["시행일자"] > today else "연혁")
            v["_latest"] = v is versions[-1]
    out = []
    for p in pending:
        mst, ef = p["법령일련번호"], p["시행일자"]
        out.append({
            "법령일련번호": mst, "현행연혁코드": p["현행연혁코드"], "법령명한글": p["법령명한글"],
            "법령약칭명": p["법령약칭명"], "법령ID": p["법령ID"], "공포일자": p["공포일자"],
            "공포번호": p["공포번호"], "제개정구분명": p["제개정구분명"],
            "소관부처코드": p["소관부처코드"], "소관부처명": p["소관부처명"],
            "법령구분명": p["법령구분명"], "공동부령정보": "", "시행일자": ef, "자법타법여부": "",
            "법령상세링크": f"/DRF/lawService.do?target=law&MST={mst}&type=HTML&mobileYn="
                      f"&efYd={ef}",
            **{k: v for k, v in p.items() if k.startswith("_")},
        })
    return tuple(out)


@lru_cache(maxsize=4)
def law_index(seed: int) -> tuple[dict[str, Row], dict[str, Row]]:
    """(MST → version, 법령ID → its 현행 version, else its newest)."""
    by_mst = {r["법령일련번호"]: r for r in laws(seed)}
    by_id: dict[str, Row] = {}
    for r in laws(seed):
        have = by_id.get(r["법령ID"])
        if have is None or have["현행연혁코드"] != "현행":
            by_id[r["법령ID"]] = r
    return by_mst, by_id


@lru_cache(maxsize=4)
def _weights(seed: int) -> tuple[list[str], list[float]]:
    """Statute names and *cumulative* citation weights (famous statutes dominate)."""
    names = [s.name for s in ld.FAMOUS]
    weights = [s.weight for s in ld.FAMOUS]
    for r in laws(seed):
        if r["_kind"] == "법률" and not r["_famous"] and r["_v"] == 0:
            names.append(r["법령명한글"])
            weights.append(0.05)
    return names, list(accumulate(weights))


# ---------------------------------------------------------------- precedents & rulings


@lru_cache(maxsize=4)
def precs(seed: int) -> tuple[Row, ...]:
    """About 8,000 precedents, each citing one to three statutes in ``참조조문``."""
    r = rng(seed, "law_precs")
    names, weights = _weights(seed)
    courts = [c for c in ld.COURTS]
    out = []
    serial = 150000
    for _ in range(8000):
        serial += r.randint(1, 9)
        court, court_cd, _w = r.choices(courts, weights=[c[2] for c in courts])[0]
        refs = list(dict.fromkeys(r.choices(names, cum_weights=weights, k=r.choice((1, 1, 2, 3)))))
        kind, kind_cd, mark = ld.CASE_KINDS[0 if r.random() < 0.5 else
                                            (1 if r.random() < 0.6 else r.randrange(6))]
        topic = r.choice(ld.CASE_TOPICS[kind])
        if kind == "형사" and r.random() < 0.6 and not refs[0].endswith("시행령"):
            topic = f"{refs[0].replace(' ', '')}위반"
        year = r.randint(1995, 2026)
        when = date(year, 1, 1) + timedelta(days=r.randint(0, 364))
        if when > TODAY:
            when = TODAY - timedelta(days=r.randint(1, 300))
        if court_cd == "400202":
            mark = {"민사": "가합", "형사": "고단", "가사": "드합"}.get(kind, "구합")
        case_no = f"{when.year - (court_cd == '400201')}{mark}{r.randint(100, 99999)}"
        out.append({
            "판례일련번호": str(serial), "사건명": topic, "사건번호": case_no,
            "선고일자": _dotted(_ymd(when)), "법원명": court, "법원종류코드": court_cd,
            "사건종류명": kind, "사건종류코드": kind_cd,
            "판결유형": "판결" if r.random() < 0.85 else "결정", "선고": "선고",
            "데이터출처명": "대법원",
            "판례상세링크": f"/DRF/lawService.do?target=prec&ID={serial}&type=HTML&mobileYn=",
            "_refs": refs, "_arts": [r.randint(1, 60) for _ in refs], "_ymd": _ymd(when),
        })
    return tuple(out)


@lru_cache(maxsize=4)
def expcs(seed: int) -> tuple[Row, ...]:
    """About 3,000 법령해석례 (법제처 회신), each about one statute."""
    r = rng(seed, "law_expcs")
    names, weights = _weights(seed)
    out = []
    for i in range(3000):
        law = r.choices(names, cum_weights=weights)[0]
        when = date(2006, 1, 1) + timedelta(days=r.randint(0, (TODAY - date(2006, 1, 1)).days))
        art = r.randint(1, 60)
        org_cd, org = ld.MINISTRIES[r.randrange(len(ld.MINISTRIES))]
        topic = r.choice(("의 적용 범위", "에 따른 신고 의무의 대상", "의 \"사업주\"의 범위",
                          "에 따른 허가의 효력", "에 따른 과태료 부과 대상"))
        out.append({
            "법령해석례일련번호": str(310000 + i * 7), "안건명":
                f"「{law}」 제{art}조{topic}(「{law}」 제{art}조 등 관련)",
            "안건번호": f"{when.year % 100:02d}-{r.randint(1, 999):04d}",
            "질의기관코드": org_cd, "질의기관명": org, "회신기관코드": "1170000",
            "회신기관명": "법제처", "회신일자": _dotted(_ymd(when)),
            "법령해석례상세링크": f"/DRF/lawService.do?target=expc&ID={310000 + i * 7}"
                           "&type=HTML&mobileYn=",
            "_refs": [law], "_ymd": _ymd(when), "_art": art,
        })
    return tuple(out)


@lru_cache(maxsize=4)
def detcs(seed: int) -> tuple[Row, ...]:
    """About 1,500 헌법재판소 결정례 (위헌소원 of a statute's article)."""
    r = rng(seed, "law_detcs")
    names, weights = _weights(seed)
    out = []
    for i in range(1500):
        law = r.choices(names, cum_weights=weights)[0]
        when = date(1995, 1, 1) + timedelta(days=r.randint(0, (TODAY - date(1995, 1, 1)).days))
        kind = r.choice(("헌바", "헌바", "헌마", "헌가"))
        name = f"{'구 ' if r.random() < 0.3 else ''}{law} 제{r.randint(1, 60)}조 " \
               f"{'위헌소원' if kind == '헌바' else '위헌확인' if kind == '헌마' else '위헌제청'}"
        out.append({
            "헌재결정례일련번호": str(20000 + i * 11), "종국일자": _dotted(_ymd(when)),
            "사건번호": f"{when.year - r.randint(0, 2)}{kind}{r.randint(1, 999)}",
            "사건명": name,
            "헌재결정례상세링크": f"/DRF/lawService.do?target=detc&ID={20000 + i * 11}"
                           "&type=HTML&mobileYn=",
            "_refs": [law], "_ymd": _ymd(when),
        })
    return tuple(out)


@lru_cache(maxsize=4)
def admruls(seed: int) -> tuple[Row, ...]:
    """About 4,000 행정규칙 (훈령·예규·고시 …) of the ministries, some with 연혁 versions."""
    r = rng(seed, "law_admruls")
    out = []
    for i in range(4000):
        org_cd, org = ld.MINISTRIES[r.randrange(len(ld.MINISTRIES))]
        knd, kind = r.choices(ld.ADMRUL_KINDS, weights=(20, 15, 45, 5, 10, 5))[0]
        name = r.choice(ld.ADMRUL_FORMS).format(t=r.choice(ld.TOPICS))
        when = date(2005, 1, 1) + timedelta(days=r.randint(0, (TODAY - date(2005, 1, 1)).days))
        serial = 2100000000000 + i * 97
        out.append({
            "행정규칙일련번호": str(serial), "행정규칙명": name, "행정규칙종류": kind,
            "발령일자": _ymd(when), "발령번호": str(r.randint(1, 2000)), "소관부처명": org,
            "현행연혁구분": "현행" if r.random() < 0.85 else "연혁",
            "제개정구분코드": "300202", "제개정구분명": "일부개정",
            "행정규칙ID": str(1000000 + i * 3),
            "행정규칙상세링크": f"/DRF/lawService.do?target=admrul&ID={serial}&type=HTML",
            "시행일자": _ymd(when + timedelta(days=r.choice((0, 0, 30)))),
            "생성일자": _ymd(when), "_org": org_cd, "_knd": knd,
        })
    return tuple(out)


# ---------------------------------------------------------------- list views


def _range(v: str) -> tuple[str, str] | None:
    """``20090101~20090130`` → the pair (a single date is a one-day range)."""
    v = v.strip()
    if not v:
        return None
    lo, _, hi = v.partition("~")
    return lo.strip(), (hi or lo).strip()


def _query(rows: Iterable[Row], params: Mapping[str, str], name: str,
           body: Callable[[Row], str]) -> list[Row]:
    q = str(params.get("query", "")).strip().strip('"')
    if not q:
        return list(rows)
    full = str(params.get("search", "1")).strip() == "2"
    return [r for r in rows if q in r[name] or (full and q in body(r))]


def _sort(rows: list[Row], params: Mapping[str, str], name: str, day: str, num: str,
          default: str = "lasc") -> list[Row]:
    code = str(params.get("sort", "")).strip() or default
    key = {"l": name, "d": day, "n": num, "e": "시행일자"}.get(code[:1], name)
    rows.sort(key=lambda r: (str(r.get(key, "")), str(r.get(name, ""))),
              reverse=code.endswith("des"))
    return rows


def _within(v: str, rng_: tuple[str, str] | None) -> bool:
    return rng_ is None or rng_[0] <= v <= rng_[1]


def _law_view(current_only: bool) -> Callable[[World, Mapping[str, str]], list[Row]]:
    def rows(world: World, params: Mapping[str, str]) -> list[Row]:
        cands: Iterable[Row] = laws(world.seed)
        if current_only:
            cands = (r for r in cands if r["현행연혁코드"] == "현행")
        else:
            nw = {x.strip() for x in str(params.get("nw", "")).split(",") if x.strip()}
            status = {"1": "연혁", "2": "시행예정", "3": "현행"}
            if nw:
                cands = (r for r in cands if r["현행연혁코드"] in {status.get(n) for n in nw})
        ef, anc = _range(params.get("efYd", "")), _range(params.get("ancYd", ""))
        lid = str(params.get("LID", "")).strip()
        cands = (r for r in cands if _within(r["시행일자"], ef) and _within(r["공포일자"], anc)
                 and (not lid or r["법령ID"].lstrip("0") == lid.lstrip("0")))
        out = _query(cands, params, "법령명한글", lambda r: r["_base"])
        return _sort(out, params, "법령명한글", "공포일자", "공포번호")
    rows.__doc__ = "target=law (현행) or eflaw (every version, nw) list candidates"
    return rows


def _simple_view(source: Callable[[int], tuple[Row, ...]], name: str, day: str, num: str,
                 body: Callable[[Row], str], day_range: str,
                 default_sort: str = "lasc") -> Callable[[World, Mapping[str, str]], list[Row]]:
    def rows(world: World, params: Mapping[str, str]) -> list[Row]:
        span = _range(params.get(day_range, ""))
        cands = (r for r in source(world.seed)
                 if _within(str(r.get("_ymd", r.get(day, ""))), span))
        jo = str(params.get("JO", "")).strip()
        if jo:
            cands = (r for r in cands if any(jo in ref for ref in r.get("_refs", ())))
        return _sort(_query(cands, params, name, body), params, name, day, num, default_sort)
    rows.__doc__ = f"list candidates over {name}"
    return rows


# ---------------------------------------------------------------- 자치법규


@lru_cache(maxsize=1)
def _bodies() -> tuple[tuple[str, str, str], ...]:
    """(org, sborg, 지자체기관명) of every 지자체 enacting 자치법규: 17 시도 and their 시군구."""
    out: list[tuple[str, str, str]] = []
    n = 0
    for org, sido, prefix in ld.SIDO_ORGS:
        out.append((org, "", sido))
        for d in sigungu_list():
            if d.sido_cd == prefix and d.sgg_nm and " " not in d.sgg_nm:
                out.append((org, f"{3000000 + n * 10000}", f"{sido} {d.sgg_nm}"))
                n += 1
    return tuple(out)


_ORDIN_FORMS = ("{b} {t} 조례", "{b} {t} 지원 조례", "{b} {t}에 관한 조례",
                "{b} {t} 위원회 설치 및 운영 조례", "{b} {t} 기금 설치 및 운용 조례",
                "{b} {t} 조례 시행규칙")


@lru_cache(maxsize=300)
def ordinances(seed: int, body: int) -> tuple[Row, ...]:
    """The 자치법규 of one 지자체 (index into :func:`_bodies`): 600 for a 시도, 250 for a 시군구."""
    org, sborg, name = _bodies()[body]
    r = rng(seed, f"law_ordin/{body}")
    combos = [(f, t) for t in ld.ORDIN_TOPICS for f in _ORDIN_FORMS]
    r.shuffle(combos)
    out = []
    for i, (form, topic) in enumerate(combos[: 250 if sborg else 600]):
        knd, kind = ("30002", "규칙") if form.endswith("시행규칙") else ("30001", "조례")
        if r.random() < 0.02:
            knd, kind = "30003", "훈령"
        anc = date(1995, 1, 1) + timedelta(days=r.randint(0, (TODAY - date(1995, 1, 1)).days))
        mst = 1000000 + body * 1000 + i
        out.append({
            "자치법규일련번호": str(mst), "자치법규명": form.format(b=name, t=topic),
            "자치법규ID": str(2000000 + body * 1000 + i), "공포일자": _ymd(anc),
            "공포번호": str(r.randint(1, 9000)),
            "제개정구분명": r.choice(("제정", "일부개정", "일부개정", "전부개정")),
            "지자체기관명": name, "자치법규종류": kind,
            "시행일자": _ymd(anc + timedelta(days=r.choice((0, 0, 30, 90)))),
            "자치법규상세링크": f"/DRF/lawService.do?target=ordin&MST={mst}&type=HTML&mobileYn=",
            "자치법규분야명": r.choice(("일반행정", "복지", "환경", "교육ㆍ문화", "산업ㆍ경제",
                                 "도시ㆍ건설", "재정ㆍ세제")),
            "참조데이터구분": "0", "_knd": knd, "_org": org, "_sborg": sborg, "_body": body,
            "_topic": topic,
        })
    return tuple(out)


def ordin_rows(world: World, params: Mapping[str, str]) -> list[Row]:
    """target=ordin list candidates: the 지자체 of ``org`` (and ``sborg``), or all of them."""
    org = str(params.get("org", "")).strip()
    sborg = str(params.get("sborg", "")).strip()
    out: list[Row] = []
    for i, (o, sb, _name) in enumerate(_bodies()):
        if (org and o != org) or (sborg and sb != sborg):
            continue
        out.extend(ordinances(world.seed, i))
    span = _range(params.get("efYd", ""))
    out = [r for r in out if _within(r["시행일자"], span)]
    return _sort(_query(out, params, "자치법규명", lambda r: r["_topic"]), params, "자치법규명",
                 "공포일자", "공포번호")


def abbreviation_rows(world: World, params: Mapping[str, str]) -> list[Row]:
    """target=lsAbrv: the 현행 statutes that have a 법령약칭명, with their 등록일."""
    out = []
    for r in laws(world.seed):
        if r["법령약칭명"] and r["현행연혁코드"] == "현행":
            out.append({k: r[k] for k in (
                "법령일련번호", "현행연혁코드", "법령명한글", "법령약칭명", "법령ID", "공포일자",
                "공포번호", "제개정구분명", "소관부처명", "소관부처코드", "법령구분명", "시행일자")}
                | {"등록일": r["공포일자"], "자법타법여부": "", "법령상세링크": r["법령상세링크"]})
    return out


# ---------------------------------------------------------------- documents (lawService.do)


def _send(obj: dict[str, Any], params: Mapping[str, str]) -> WireResponse:
    """One-rooted ``obj`` as JSON (``type=JSON``) or as law.go.kr's default XML."""
    if str(params.get("type", "")).lower() == "json":
        return WireResponse(200, "application/json;charset=UTF-8", orjson.dumps(obj))
    ((root, body),) = obj.items()
    return WireResponse(200, "text/xml;charset=UTF-8", to_xml(root, body))


def _one(items: list[Any]) -> Any:
    """law.go.kr's XML→JSON collapse: a single repeated element becomes an object."""
    return items[0] if len(items) == 1 else items


def _info(law: Row) -> dict[str, Any]:
    return {"법령ID": law["법령ID"], "공포일자": law["공포일자"], "공포번호": law["공포번호"],
            "언어": "한글", "법종구분": {"법종구분코드": law["_knd"], "content": law["법령구분명"]},
            "법령명_한글": law["법령명한글"], "법령명_한자": law["법령명한글"],
            "법령명약칭": law["법령약칭명"], "편장절관": "00000000",
            "소관부처": {"소관부처코드": law["소관부처코드"], "content": law["소관부처명"]},
            "전화번호": "044-200-0000", "시행일자": law["시행일자"],
            "제개정구분": law["제개정구분명"], "공포법령여부": "N", "공동부령정보": ""}


def _find_law(world: World, params: Mapping[str, str]) -> Row | None:
    by_mst, by_id = law_index(world.seed)
    mst, lid = str(params.get("MST", "")).strip(), str(params.get("ID", "")).strip()
    if mst:
        return by_mst.get(mst)
    if lid:
        return by_id.get(lid.zfill(6))
    name = str(params.get("LM", "")).strip()
    return next((r for r in by_id.values() if r["법령명한글"] == name), None) if name else None


def law_doc(target: str) -> Callable[[World, Mapping[str, str]], WireResponse]:
    """The lawService.do answer of ``target`` ``law`` (whole text) or ``lawjosub`` (one 조)."""
    def answer(world: World, params: Mapping[str, str]) -> WireResponse:
        law = _find_law(world, params)
        jo = ld.parse_jo(str(params.get("JO", "")))
        if law is None or (target == "lawjosub" and jo is None):
            return _send({"Law": "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."}, params)
        units = ld.article_units(world.seed, law)
        if jo is not None:
            units = [u for u in units if u["조문여부"] == "조문" and int(u["조문번호"]) == jo[0]
                     and int(u.get("조문가지번호", "0")) == jo[1]]
            hang = ld.parse_jo(str(params.get("HANG", "")))
            if units and hang is not None and "항" in units[0]:
                units = [{**units[0], "항": [h for i, h in enumerate(units[0]["항"], 1)
                                            if i == hang[0]]}]
        key = f"{law['법령ID']}{law['공포일자']}{law['공포번호']}"
        doc: dict[str, Any] = {"법령키": key, "기본정보": _info(law),
                               "조문": {"조문단위": _one(units)} if units else {}}
        if target == "law" and jo is None:
            doc["부칙"] = {"부칙단위": {"부칙키": f"{law['공포일자']}{law['공포번호']}",
                                     "부칙공포일자": law["공포일자"],
                                     "부칙공포번호": law["공포번호"],
                                     "부칙내용": "부칙\n이 법은 공포 후 6개월이 경과한 날부터 "
                                             "시행한다."}}
            doc["제개정이유"] = {"제개정이유내용": f"{law['법령명한글']}의 운영상 나타난 일부 "
                                             "미비점을 개선ㆍ보완하려는 것임."}
        return _send({"법령": doc}, params)
    answer.__doc__ = f"lawService.do target={target}"
    return answer


@lru_cache(maxsize=4)
def _prec_index(seed: int) -> dict[str, Row]:
    return {r["판례일련번호"]: r for r in precs(seed)}


def prec_doc(world: World, params: Mapping[str, str]) -> WireResponse:
    """lawService.do target=prec: one precedent's 판시사항, 판결요지, 참조조문 and 전문."""
    p = _prec_index(world.seed).get(str(params.get("ID", "")).strip())
    if p is None:
        return _send({"Law": "일치하는 판례가 없습니다. 판례명을 확인하여 주십시오."}, params)
    refs = ", ".join(f"{law} 제{a}조" for law, a in zip(p["_refs"], p["_arts"], strict=True))
    law0, art0 = p["_refs"][0], p["_arts"][0]
    y = p["_ymd"]
    issue = f"[1] {law0} 제{art0}조에서 정한 의무의 내용과 그 위반 여부의 판단 기준"
    body = {
        "판례정보일련번호": p["판례일련번호"], "사건명": p["사건명"], "사건번호": p["사건번호"],
        "선고일자": y, "선고": "선고", "법원명": p["법원명"], "법원종류코드": p["법원종류코드"],
        "사건종류명": p["사건종류명"], "사건종류코드": p["사건종류코드"], "판결유형": p["판결유형"],
        "판시사항": issue,
        "판결요지": f"[1] {law0} 제{art0}조는 {p['사건명']} 사건에서와 같이 구체적인 사정을 "
                "종합적으로 고려하여 판단하여야 한다.",
        "참조조문": f"[1] {refs}",
        "참조판례": f"대법원 {int(y[:4]) - 3}. 5. 12. 선고 {int(y[:4]) - 4}도{int(y) % 9000 + 100}"
                " 판결",
        "판례내용": f"【원고, 피고】 …<br/>【주 문】<br/> 상고를 기각한다.<br/>【이 유】<br/> "
                f"{law0} 제{art0}조의 해석에 관한 상고이유를 판단한다. …",
    }
    return _send({"PrecService": body}, params)


@lru_cache(maxsize=4)
def _expc_index(seed: int) -> dict[str, Row]:
    return {r["법령해석례일련번호"]: r for r in expcs(seed)}


def expc_doc(world: World, params: Mapping[str, str]) -> WireResponse:
    """lawService.do target=expc: one interpretation's 질의요지, 회답 and 이유."""
    e = _expc_index(world.seed).get(str(params.get("ID", "")).strip())
    if e is None:
        return _send({"Law": "일치하는 법령해석례가 없습니다."}, params)
    law, art = e["_refs"][0], e["_art"]
    body = {"법령해석례일련번호": e["법령해석례일련번호"], "안건명": e["안건명"],
            "안건번호": e["안건번호"], "해석일자": e["_ymd"], "해석기관코드": "1170000",
            "해석기관명": "법제처", "질의기관코드": e["질의기관코드"],
            "질의기관명": e["질의기관명"],
            "관리기관코드": "1170000", "등록일시": e["_ymd"],
            "질의요지": f"「{law}」 제{art}조가 적용되는지?",
            "회답": f"이 사안의 경우 「{law}」 제{art}조가 적용됩니다.",
            "이유": f"「{law}」 제{art}조의 문언과 입법취지에 비추어 볼 때 …"}
    return _send({"ExpcService": body}, params)


def ordin_doc(world: World, params: Mapping[str, str]) -> WireResponse:
    """lawService.do target=ordin: one 자치법규 with its 조 list (``조문`` › ``조``)."""
    raw = str(params.get("MST", "") or params.get("ID", "")).strip()
    base = 1000000 if params.get("MST") else 2000000
    row = None
    if raw.isdigit() and int(raw) >= base:
        body, i = divmod(int(raw) - base, 1000)
        if body < len(_bodies()):
            rows = ordinances(world.seed, body)
            row = rows[i] if i < len(rows) else None
    if row is None:
        return _send({"Law": "일치하는 자치법규가 없습니다."}, params)
    n = 5 + int(hash_unit(world.seed, row["자치법규ID"]) * 25)
    jo = [{"조문번호": f"{k:04d}00", "조문여부": "Y",
           "조제목": "목적" if k == 1 else ld.TITLES[(k * 7) % len(ld.TITLES)],
           "조내용": (f"제{k}조(목적) 이 조례는 {row['_topic']}에 필요한 사항을 규정함을 목적으로 "
                   "한다.") if k == 1 else f"제{k}조({ld.TITLES[(k * 7) % len(ld.TITLES)]}) "
                                          "시장은 필요한 시책을 수립ㆍ시행하여야 한다."}
          for k in range(1, n + 1)]
    info = {k: row[k] for k in ("자치법규ID", "자치법규일련번호", "자치법규명", "지자체기관명",
                                "공포일자", "공포번호", "시행일자", "자치법규종류")}
    doc = {"자치법규기본정보": info, "조문": {"조": _one(jo)},
           "부칙": {"부칙공포일자": row["공포일자"],
                    "부칙내용": "이 조례는 공포한 날부터 시행한다."}}
    return _send({"LawService": doc}, params)


DATASETS: tuple[Dataset, ...] = (
    Dataset("law_laws", build=lambda w: list(laws(w.seed)), index=("법령ID", "법령일련번호"),
            doc="every version of every statute"),
    Dataset("law_precs", build=lambda w: list(precs(w.seed)), doc="판례"),
    Dataset("law_expcs", build=lambda w: list(expcs(w.seed)), doc="법령해석례"),
    Dataset("law_detcs", build=lambda w: list(detcs(w.seed)), doc="헌재결정례"),
    Dataset("law_admruls", build=lambda w: list(admruls(w.seed)), doc="행정규칙"),
    Dataset("law_law_list", rows=_law_view(True), doc="target=law list view"),
    Dataset("law_eflaw_list", rows=_law_view(False), doc="target=eflaw list view"),
    Dataset("law_prec_list", rows=_simple_view(
        precs, "사건명", "선고일자", "사건번호",
        lambda r: " ".join(r["_refs"]) + r["사건번호"], "prncYd"), doc="target=prec list view"),
    Dataset("law_expc_list", rows=_simple_view(
        expcs, "안건명", "회신일자", "안건번호", lambda r: r["질의기관명"], "explYd"),
            doc="target=expc list view"),
    Dataset("law_detc_list", rows=_simple_view(
        detcs, "사건명", "종국일자", "사건번호", lambda r: r["사건번호"], "edYd"),
            doc="target=detc list view"),
    Dataset("law_admrul_list", rows=_simple_view(
        admruls, "행정규칙명", "발령일자", "발령번호", lambda r: r["소관부처명"], "prmlYd"),
            doc="target=admrul list view"),
    Dataset("law_ordin_list", rows=ordin_rows, doc="target=ordin list view (per 지자체)"),
    Dataset("law_abbreviations", rows=abbreviation_rows, doc="target=lsAbrv (약칭 목록)"),
)



# ---------------------------------------------------------------- endpoints


def _list(tool: str, target: str, dataset: str, key: str, filters: tuple[Filter, ...] = (),
          params: tuple[str, ...] = (), paging: Paging | None = PAGING) -> Endpoint:
    return Endpoint(platform=PLATFORM, tool=tool, path=SEARCH, dialect="law", dataset=dataset,
                    service=key, fixed={"target": target}, filters=filters,
                    params=("query", "search", "sort", *params), paging=paging)


def _doc(tool: str, target: str, fn: Any, params: tuple[str, ...]) -> Endpoint:
    return Endpoint(platform=PLATFORM, tool=tool, path=SERVICE, dialect="law",
                    fixed={"target": target}, params=params, custom=fn)


ENDPOINTS: tuple[Endpoint, ...] = (
    _list("law_search", "law", "law_law_list", "law",
          (Filter("org", "소관부처코드"), Filter("knd", "_knd"), Filter("date", "공포일자"),
           Filter("nb", "공포번호")), ("efYd", "ancYd")),
    _list("eflaw_search", "eflaw", "law_eflaw_list", "law",
          (Filter("org", "소관부처코드"), Filter("knd", "_knd"), Filter("date", "공포일자"),
           Filter("nb", "공포번호")), ("nw", "LID", "efYd", "ancYd")),
    _doc("law_text", "law", law_doc("law"), ("ID", "MST", "JO", "LM")),
    _doc("law_article", "lawjosub", law_doc("lawjosub"), ("ID", "MST", "JO", "HANG", "HO", "MOK")),
    _list("prec_search", "prec", "law_prec_list", "prec",
          (Filter("org", "법원종류코드"), Filter("curt", "법원명"), Filter("date", "_ymd"),
           Filter("nb", "사건번호")), ("JO", "prncYd")),
    _doc("prec_text", "prec", prec_doc, ("ID", "LM")),
    _list("ordin_search", "ordin", "law_ordin_list", "law",
          (Filter("knd", "_knd"), Filter("sborg", "_sborg")), ("org", "efYd", "ancYd")),
    _doc("ordin_text", "ordin", ordin_doc, ("ID", "MST")),
    _list("admrul_search", "admrul", "law_admrul_list", "admrul",
          (Filter("org", "_org"), Filter("knd", "_knd"), Filter("date", "발령일자"),
           Filter("nb", "발령번호")), ("prmlYd",)),
    _list("expc_search", "expc", "law_expc_list", "expc",
          (Filter("inq", "질의기관코드"), Filter("rpl", "회신기관코드"),
           Filter("itmno", "안건번호")), ("explYd",)),
    _doc("expc_text", "expc", expc_doc, ("ID", "LM")),
    _list("detc_search", "detc", "law_detc_list", "Detc",
          (Filter("date", "_ymd"), Filter("nb", "사건번호")), ("edYd",)),
    _list("abbreviations", "lsAbrv", "law_abbreviations", "law",
          (Filter("stdDt", "등록일", "ge"), Filter("endDt", "등록일", "le")), paging=None),
)
