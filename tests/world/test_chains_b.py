"""§13 chains 7–12 as trajectories on the world backend, each answer recomputed independently.

Every ``examples/world/NN_*.edge`` file of chains 7–12 is compiled (stdlib catalogs) and run on
the embedded world (seed 0); its answer must equal the one computed here by calling the world
directly (``World.call`` with the wire parameters), parsing the envelopes by hand, paging by
hand and doing each reduction in plain Python (reference semantics: ties kept, distinct values
in first-occurrence order, most-frequent ties to the smallest value). A pinned literal is
checked in addition, so that a change of the world's data is noticed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.api import compile
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World
from edgedsl.world.platforms.nec_data import district_name_short

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "world"
STDLIB = ROOT / "stdlib"

Row = dict[str, Any]


# ====================================================================== fixtures


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0)


@pytest.fixture(scope="module")
def run(world: World) -> Callable[[str], Any]:
    backend = make_world_backend(world=world)

    def go(name: str) -> Any:
        path = EXAMPLES / name
        plan = compile(path.read_text(encoding="utf-8"), str(path), search_paths=[STDLIB])
        (result,) = run_plan_sync(plan, backend)
        assert result.ok, result.diagnostics
        return result.answer

    return go


# ====================================================================== wire helpers


def _get(w: World, path: str, params: dict[str, str]) -> Any:
    resp = w.call("GET", path, params)
    assert resp.status == 200, (path, params)
    return orjson.loads(resp.body)


def _listify(x: Any) -> list[Row]:
    """A repeated element that collapsed to one object (or is absent) → a list."""
    if not x:
        return []
    return x if isinstance(x, list) else [x]


def hub(w: World, base: str, svc: str, **params: str) -> list[Row]:
    """Every row of a hub-family service (NEIS ``/hub``, 열린국회 ``/portal/openapi``)."""
    out: list[Row] = []
    page = 1
    while True:
        body = _get(w, f"{base}/{svc}", {"KEY": "k", "Type": "json", "pIndex": str(page),
                                          "pSize": "1000", **params})
        if svc not in body:  # INFO-200: no data, the service wrapper disappears
            assert body["RESULT"]["CODE"] == "INFO-200", body
            return out
        head, rows = body[svc]
        total = int(head["head"][0]["list_total_count"])
        got = _listify(rows["row"])
        out += got
        if len(out) >= total or not got:
            return out
        page += 1


def neis(w: World, svc: str, **params: str) -> list[Row]:
    return hub(w, "/hub", svc, **params)


def assembly(w: World, svc: str, **params: str) -> list[Row]:
    return hub(w, "/portal/openapi", svc, **params)


def nec(w: World, path: str, **params: str) -> list[Row]:
    """Every item of a data.go.kr (NEC) list: ``response.body.items.item``, 100 per page."""
    out: list[Row] = []
    page = 1
    while True:
        body = _get(w, f"/9760000{path}", {"serviceKey": "k", "resultType": "json",
                                           "pageNo": str(page), "numOfRows": "100", **params})
        b = body["response"]["body"]
        got = _listify((b.get("items") or {}).get("item"))
        out += got
        if len(out) >= int(b["totalCount"]) or not got:
            return out
        page += 1


def law_list(w: World, target: str, root: str, key: str, **params: str) -> list[Row]:
    """Every item of a law.go.kr ``lawSearch.do`` list (100 per page)."""
    out: list[Row] = []
    page = 1
    while True:
        body = _get(w, "/DRF/lawSearch.do", {"OC": "k", "type": "JSON", "target": target,
                                            "page": str(page), "display": "100", **params})
        b = body[root]
        got = _listify(b.get(key))
        out += got
        if len(out) >= int(b["totalCnt"]) or not got:
            return out
        page += 1


def law_doc(w: World, target: str, **params: str) -> Any:
    return _get(w, "/DRF/lawService.do", {"OC": "k", "type": "JSON", "target": target, **params})


def juso(w: World, keyword: str) -> list[Row]:
    out: list[Row] = []
    page = 1
    while True:
        res = _get(w, "/addrlink/addrLinkApi.do", {"confmKey": "k", "resultType": "json",
                                                   "keyword": keyword, "currentPage": str(page),
                                                   "countPerPage": "100"})["results"]
        assert res["common"]["errorCode"] == "0", res["common"]
        got = _listify(res["juso"])
        out += got
        if len(out) >= int(res["common"]["totalCount"]) or not got:
            return out
        page += 1


# ====================================================================== reference semantics


def day(v: Any) -> date | None:
    """``YYYYMMDD`` / ``YYYY-MM-DD`` / ``YYYY.MM.DD`` → date (None when it is not one)."""
    s = str(v or "").strip().replace("-", "").replace(".", "")
    if len(s) != 8 or not s.isdigit():
        return None
    try:
        return date(int(s[:4]), int(s[4:6]), int(s[6:]))
    except ValueError:
        return None


def num(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", "").strip())
    except ValueError:
        return None


def distinct(rows: list[Row], f: str) -> Any:
    """``x.f`` as an answer: null, the one value, or the distinct values in order."""
    vals = list(dict.fromkeys(r[f] for r in rows if r.get(f) not in (None, "")))
    return None if not vals else vals[0] if len(vals) == 1 else vals


def keep_max(rows: list[Row], key: Callable[[Row], Any]) -> list[Row]:
    vals = [key(r) for r in rows if key(r) is not None]
    return [] if not vals else [r for r in rows if key(r) == max(vals)]


def keep_min(rows: list[Row], key: Callable[[Row], Any]) -> list[Row]:
    vals = [key(r) for r in rows if key(r) is not None]
    return [] if not vals else [r for r in rows if key(r) == min(vals)]


def most_frequent(rows: list[Row], f: str) -> list[Row]:
    counts = Counter(r[f] for r in rows if r.get(f) not in (None, ""))
    if not counts:
        return []
    top = max(counts.values())
    pick = min(v for v, n in counts.items() if n == top)
    return [r for r in rows if r.get(f) == pick]


def iso(v: Any) -> str | None:
    d = day(v)
    return None if d is None else d.isoformat()


# ====================================================================== chain 7


def test_07_timetable_explosion(world: World, run: Callable[[str], Any]) -> None:
    got = run("07_timetable_explosion.edge")

    (school,) = neis(world, "schoolInfo", SCHUL_NM="사간고등학교", ATPT_OFCDC_SC_CODE="B10")
    keys = {"ATPT_OFCDC_SC_CODE": school["ATPT_OFCDC_SC_CODE"],
            "SD_SCHUL_CODE": school["SD_SCHUL_CODE"]}
    classes = neis(world, "classInfo", **keys, AY="2024", GRADE="2")
    auto = [c for c in classes if c["DDDEP_NM"] == "자동차과"]
    names = list(dict.fromkeys(c["CLASS_NM"] for c in auto))
    assert 2 <= len(names) <= 5 < len(classes)
    periods: list[Row] = []
    for c in names:
        periods += neis(world, "hisTimetable", **keys, AY="2024", GRADE="2", CLASS_NM=c,
                        TI_FROM_YMD="20240513", TI_TO_YMD="20240517")
    assert all(p["CLASS_NM"] in names and "20240513" <= p["ALL_TI_YMD"] <= "20240517"
               for p in periods)
    top = most_frequent(periods, "ITRT_CNTNT")
    morning = most_frequent([p for p in periods if int(p["PERIO"]) <= 4], "ITRT_CNTNT")

    assert got == {
        "classes": names,
        "class_count": len(names),
        "periods": len(periods),
        "subject": distinct(top, "ITRT_CNTNT"),
        "subject_periods": len(top),
        "morning_subject": distinct(morning, "ITRT_CNTNT"),
        "morning_periods": len(morning),
    }
    # pinned (seed 0): five 자동차과 classes, 4 school days (5/15 is 부처님오신날)
    assert got["classes"] == ["1", "3", "5", "7", "9"] and got["periods"] == 135
    assert (got["subject"], got["subject_periods"]) == ("문학", 13)


# ====================================================================== chain 8


def test_08_address_schools(world: World, run: Callable[[str], Any]) -> None:
    got = run("08_address_schools.edge")

    (addr,) = juso(world, "해운대구 반여로19길 187-26")
    si, gu = addr["siNm"], addr["sggNm"]
    schools = neis(world, "schoolInfo", LCTN_SC_NM=si, SCHUL_KND_SC_NM="고등학교")
    local = [s for s in schools if s["JU_ORG_NM"] == "부산광역시해운대교육지원청"]
    # the reference chain's filter, ORG_RDNMA contains the 구, selects the same schools
    assert local == [s for s in schools if s["ORG_RDNMA"].startswith(f"{si} {gu} ")]
    assert 2 <= len(local) <= 5
    events: list[Row] = []
    for s in local:
        events += neis(world, "SchoolSchedule", ATPT_OFCDC_SC_CODE=s["ATPT_OFCDC_SC_CODE"],
                       SD_SCHUL_CODE=s["SD_SCHUL_CODE"], AA_FROM_YMD="20240301",
                       AA_TO_YMD="20250228")
    later = [e for e in events if day(e["AA_YMD"]) > date(2024, 12, 31)]
    first = keep_min([e for e in later if e["SBTR_DD_SC_NM"] == "해당없음"],
                     lambda e: day(e["AA_YMD"]))

    assert got == {
        "sido": si,
        "gu": gu,
        "high_schools": len(schools),
        "schools": [s["SCHUL_NM"] for s in local],
        "events": len(events),
        "events_2025": len(later),
        "first_date": iso(first[0]["AA_YMD"]),
        "first_event": distinct(first, "EVENT_NM"),
    }
    assert (si, gu, got["schools"]) == ("부산광역시", "해운대구",
                                        ["충렬제2고등학교", "반여고등학교", "나래제2고등학교"])
    assert (got["events"], got["events_2025"], got["first_date"]) == (433, 148, "2025-01-03")


# ====================================================================== chain 9


def test_09_statute_precedent(world: World, run: Callable[[str], Any]) -> None:
    got = run("09_statute_precedent.edge")

    found = law_list(world, "law", "LawSearch", "law", query="산업안전")
    (act,) = [r for r in found if r["법령구분명"] == "법률"]
    units = _listify(law_doc(world, "law", ID=act["법령ID"])["법령"]["조문"]["조문단위"])
    art38 = [u for u in units if u["조문여부"] == "조문" and int(u["조문번호"]) == 38]
    article = _listify(law_doc(world, "lawjosub", ID=act["법령ID"],
                               JO="003800")["법령"]["조문"]["조문단위"])
    precs = law_list(world, "prec", "PrecSearch", "prec", JO=act["법령명한글"], org="400201")
    assert all(p["법원종류코드"] == "400201" for p in precs)
    recent = [p for p in precs if day(p["선고일자"]) > date(2019, 12, 31)]
    latest = keep_max(recent, lambda p: day(p["선고일자"]))
    (serial,) = {p["판례일련번호"] for p in latest}
    doc = law_doc(world, "prec", ID=serial)["PrecService"]

    assert got == {
        "law": act["법령명한글"],
        "units": len(units),
        "title": distinct(art38, "조문제목"),
        "article_title": distinct(article, "조문제목"),
        "precedents": len(precs),
        "since_2020": len(recent),
        "latest_case": doc["사건명"],
        "latest_no": doc["사건번호"],
        "latest_date": iso(doc["선고일자"]),
        "holding": doc["판결요지"],
    }
    assert (got["law"], got["units"], got["title"]) == ("산업안전보건법", 211, "안전조치")
    assert got["title"] == got["article_title"]
    assert (got["precedents"], got["since_2020"], got["latest_no"]) == (600, 125, "2025도76197")


# ====================================================================== chain 10


def test_10_bill_becomes_law(world: World, run: Callable[[str], Any]) -> None:
    got = run("10_bill_becomes_law.edge")

    bills = assembly(world, "nzmimeepazxkubdpn", AGE="22", BILL_NAME="도로교통법")
    passed = [b for b in bills if b["PROC_RESULT"] == "원안가결"]
    last = keep_max(keep_max(passed, lambda b: day(b["PROC_DT"])),
                    lambda b: day(b["PROPOSE_DT"]))
    (bill,) = last
    ppsr = assembly(world, "BILLINFOPPSR", BILL_ID=bill["BILL_ID"])
    lead = [p for p in ppsr if p["REP_DIV"] == "대표발의"]
    (info,) = assembly(world, "ALLBILL", BILL_NO=bill["BILL_NO"])
    versions = law_list(world, "eflaw", "LawSearch", "law", query=info["PROM_LAW_NM"])
    act = [v for v in versions if v["법령구분명"] == "법률"]
    upcoming = [v for v in act if v["현행연혁코드"] == "시행예정"]
    if upcoming:
        version = keep_min(upcoming, lambda v: day(v["시행일자"]))
    else:
        version = [v for v in act if v["현행연혁코드"] == "현행"]

    assert got == {
        "passed": len(passed),
        "bill": bill["BILL_NO"],
        "decided": iso(bill["PROC_DT"]),
        "lead": distinct(lead, "PPSR_NM"),
        "party": distinct(lead, "PPSR_POLY_NM"),
        "cosponsors": len(ppsr) - len(lead),
        "law": info["PROM_LAW_NM"],
        "promulgated": iso(info["PROM_DT"]),
        "versions": len(act),
        "status": distinct(version, "현행연혁코드"),
        "effective": iso(version[0]["시행일자"]),
    }
    assert lead[0]["PPSR_NM"] == bill["RST_PROPOSER"]
    assert (got["passed"], got["bill"], got["lead"]) == (23, "2209339", "이형식")
    # the world's law.go.kr does not (yet) hold the versions promulgated from 22대 bills
    assert (got["status"], got["effective"]) == ("현행", "2017-09-05")


# ====================================================================== chain 11


def test_11_rollcall_constituency(world: World, run: Callable[[str], Any]) -> None:
    got = run("11_rollcall_constituency.edge")

    found = assembly(world, "ncocpgfiaoituanbr", AGE="22", BILL_NAME="국가정보원법")
    (contested,) = [r for r in found if int(r["NO_TCNT"]) >= 100]
    votes = assembly(world, "nojepdqqaweusdfbi", AGE="22", BILL_ID=contested["BILL_ID"])
    against = [v for v in votes if v["RESULT_VOTE_MOD"] == "반대"]
    member = [v for v in against if v["ORIG_NM"] == "서울 강남갑"]
    arms = ["강남구갑", "강남구을", "강남구병"]
    gangnam = [{**r, "__arm": g} for g in arms
               for r in nec(world, "/WinnerInfoInqireService2/getWinnerInfoInqire",
                            sgId="20240410", sgTypecode="2", sdName="서울특별시", sggName=g)]
    top = keep_max(gangnam, lambda r: num(r["dugyul"]))

    assert got == {
        "bill": contested["BILL_NO"],
        "no_votes": int(contested["NO_TCNT"]),
        "against": len(against),
        "member": distinct(member, "HG_NM"),
        "party": distinct(member, "POLY_NM"),
        "top_district": distinct(top, "__arm"),
        "top_winner": distinct(top, "name"),
        "top_share": num(top[0]["dugyul"]),
    }
    assert int(contested["NO_TCNT"]) == len(against)
    # the hand-written normalisation (ORIG_NM ↔ sdName + sggName) names the same people
    by_orig = {v["ORIG_NM"]: v["HG_NM"] for v in votes}
    for w in gangnam:
        assert by_orig[district_name_short(w["sdName"], w["sggName"])] == w["name"]
    assert (got["bill"], got["against"], got["member"]) == ("2200738", 234, "이형식")
    assert (got["top_district"], got["top_winner"], got["top_share"]) == ("강남구병", "이혜숙",
                                                                          63.67)


# ====================================================================== chain 12


def test_12_local_election_dossier(world: World, run: Callable[[str], Any]) -> None:
    got = run("12_local_election_dossier.edge")

    elections = nec(world, "/CommonCodeService/getCommonSgCodeList")
    (local,) = [e for e in elections if e["sgName"] == "제8회 전국동시지방선거"]
    sg = local["sgId"]
    districts = nec(world, "/CommonCodeService/getCommonSggCodeList", sgId=sg, sgTypecode="4")
    seoul = [d for d in districts if d["sdName"] == "서울특별시"]
    cands = nec(world, "/PofelcddInfoInqireService/getPofelcddRegistSttusInfoInqire",
                sgId=sg, sgTypecode="4", sdName="서울특별시")
    winners = nec(world, "/WinnerInfoInqireService2/getWinnerInfoInqire", sgId=sg,
                  sgTypecode="4", sdName="서울특별시")
    landslide = [r for r in winners if num(r["dugyul"]) >= 65]
    assert 2 <= len(landslide) <= 5
    pledges: list[Row] = []
    for r in landslide:
        pledges += nec(world, "/ElecPrmsInfoInqireService/getCnddtElecPrmsInfoInqire", sgId=sg,
                       sgTypecode="4", cnddtId=r["huboid"])
    fewest = keep_min(pledges, lambda p: int(p["prmsCnt"]))
    realms = list(dict.fromkeys(p["prmsRealmName1"] for p in fewest))
    ordins: list[Row] = []
    for realm in realms:
        ordins += law_list(world, "ordin", "OrdinSearch", "law", org="6110000", query=realm)
    latest = keep_max(ordins, lambda o: day(o["시행일자"]))

    assert got == {
        "sg_id": sg,
        "districts": len(seoul),
        "candidates": len(cands),
        "landslide": [r["sggName"] for r in landslide],
        "mayors": distinct(fewest, "krName"),
        "mayor_districts": distinct(fewest, "sggName"),
        "pledge_count": int(fewest[0]["prmsCnt"]),
        "realms": realms if len(realms) > 1 else realms[0],
        "ordinances": len(ordins),
        "jorye": sum(o["자치법규종류"] == "조례" for o in ordins),
        "latest": distinct(latest, "자치법규명"),
        "latest_date": iso(latest[0]["시행일자"]),
    }
    assert (got["sg_id"], got["districts"], got["candidates"]) == ("20220601", 25, 74)
    assert got["realms"] == ["문화", "복지"] and got["ordinances"] == 446
