"""행안부 법정동코드, juso.go.kr and 국토교통부 in the world: data, wire answers, catalog."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from edgedsl.api import check
from edgedsl.check import load_catalog
from edgedsl.world.addresses import addresses, romanize
from edgedsl.world.engine import World
from edgedsl.world.geo import utmk_to_wgs84
from edgedsl.world.platforms import region
from edgedsl.world.platforms.region_data import apt_rents, apt_trades, jsonish, sgg_dongs
from edgedsl.world.regions import legal_dongs


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[region])


def call(w: World, path: str, **params: str) -> Any:
    resp = w.call("GET", path, params)
    assert resp.status == 200
    return orjson.loads(resp.body)


def juso(w: World, api: str = "addrLinkApi", **params: str) -> Any:
    return call(w, f"/addrlink/{api}.do", confmKey="k", resultType="json", **params)["results"]


def molit(w: World, op: str, **params: str) -> Any:
    svc = {"getBrTitleInfo": "BldRgstHubService"}.get(op, op.replace("get", "", 1))
    return call(w, f"/1613000/{svc}/{op}", serviceKey="k", _type="json", **params)["response"]


def items(resp: Any) -> list[dict[str, Any]]:
    got = resp["body"]["items"]
    if not got:
        return []
    item = got["item"]
    return item if isinstance(item, list) else [item]


# ---------------------------------------------------------------- 행안부 StanReginCd


def test_stan_regin_rows_are_the_real_table(world: World) -> None:
    rows = world.rows("mois_regions")
    assert len(rows) == len(legal_dongs())
    by_code = {r["region_cd"]: r for r in rows}
    cheongun = by_code["1111010100"]
    assert cheongun["locatadd_nm"] == "서울특별시 종로구 청운동"
    assert (cheongun["sido_cd"], cheongun["sgg_cd"], cheongun["umd_cd"], cheongun["ri_cd"]) == \
        ("11", "110", "101", "00")
    assert cheongun["locathigh_cd"] == "1111000000"
    assert cheongun["locallow_nm"] == "청운동"
    assert by_code["1111000000"]["locathigh_cd"] == "1100000000"


def test_stan_regin_seoul_total_matches_the_real_service(world: World) -> None:
    body = call(world, "/1741000/StanReginCd/getStanReginCdList", serviceKey="k", type="json",
                locatadd_nm="서울특별시", numOfRows="3")
    head = body["StanReginCd"][0]["head"]
    assert head[0] == {"totalCount": 493}  # the real answer for 서울특별시
    assert head[2]["RESULT"]["resultCode"] == "INFO-0"
    rows = body["StanReginCd"][1]["row"]
    assert [r["region_cd"] for r in rows] == ["1100000000", "1111000000", "1111010100"]


# ---------------------------------------------------------------- juso


def test_keyword_search_needs_every_token(world: World) -> None:
    res = juso(world, keyword="종로구 청운", countPerPage="100")
    assert res["common"]["errorCode"] == "0"
    total = res["common"]["totalCount"]
    assert isinstance(total, str) and int(total) == len(res["juso"]) > 0
    for j in res["juso"]:
        hay = j["roadAddr"] + j["jibunAddr"] + j["bdNm"]
        assert "종로구" in hay and "청운" in hay
        assert j["admCd"].startswith("11110")
        assert j["bdMgtSn"].startswith(j["admCd"])
        assert j["rnMgtSn"].startswith(j["admCd"][:5])


@pytest.mark.parametrize(("keyword", "code"), [("", "E0005"), ("서울특별시", "E0006"),
                                               ("경기", "E0006"), ("가", "E0008")])
def test_keyword_errors(world: World, keyword: str, code: str) -> None:
    assert juso(world, keyword=keyword)["common"]["errorCode"] == code


def test_count_per_page_is_capped_at_100(world: World) -> None:
    res = juso(world, keyword="서울특별시 종로구", countPerPage="500")
    assert int(res["common"]["totalCount"]) > 100
    assert len(res["juso"]) == 100


def test_coordinates_are_utmk_of_the_address(world: World) -> None:
    j = juso(world, keyword="종로구 청운")["juso"][0]
    res = juso(world, "addrCoordApi", admCd=j["admCd"], rnMgtSn=j["rnMgtSn"],
               udrtYn=j["udrtYn"], buldMnnm=j["buldMnnm"], buldSlno=j["buldSlno"])
    (c,) = res["juso"]
    assert c["bdMgtSn"] == j["bdMgtSn"]
    x, y = float(c["entX"]), float(c["entY"])
    assert 940_000 < x < 970_000 and 1_940_000 < y < 1_970_000  # central Seoul
    lat, lon = utmk_to_wgs84(x, y)
    src = next(a for a in addresses(0) if a["bdMgtSn"] == j["bdMgtSn"])
    assert lat == pytest.approx(src["_lat"], abs=1e-6)
    assert lon == pytest.approx(src["_lon"], abs=1e-6)


def test_english_search(world: World) -> None:
    res = juso(world, "addrEngApi", keyword="종로구 청운")
    j = res["juso"][0]
    assert re.fullmatch(r"(Jiha )?\d+(-\d+)?, [A-Z][a-z-]+( \d+-gil)?, Jongno-gu, Seoul",
                        j["roadAddr"]), j["roadAddr"]
    assert j["korAddr"].startswith("서울특별시 종로구")
    assert j["siNm"] == "Seoul" and j["sggNm"] == "Jongno-gu"


def test_an_eup_or_myeon_is_part_of_the_english_road_address(world: World) -> None:
    """As in Korean (군위군 군위읍 군위로1길 150-21), a 읍/면 names the road address in English
    (…, Gunwi-ro 1-gil, Gunwi-eup, Gunwi-gun, Daegu); a 동 does not."""
    eup = juso(world, "addrEngApi", keyword="군위군 군위읍")["juso"]
    assert eup and all(", Gunwi-eup, Gunwi-gun, Daegu" in j["roadAddr"] for j in eup)
    dong = juso(world, "addrEngApi", keyword="종로구 청운")["juso"]
    assert dong and not any("-dong" in j["roadAddr"] for j in dong)


@pytest.mark.parametrize(("hangul", "roman"), [
    ("종로", "jongno"), ("선릉", "seolleung"), ("청운", "cheongun"), ("왕십리", "wangsimni"),
    ("독립문", "dongnimmun"), ("신라", "silla"), ("압구정", "apgujeong"), ("역삼", "yeoksam")])
def test_romanize(hangul: str, roman: str) -> None:
    assert romanize(hangul) == roman


def test_address_universe_codes() -> None:
    rows = addresses(0)
    zips = {"11": ("01", "08"), "26": ("46", "49"), "50": ("63", "63")}
    roads: dict[tuple[str, str], str] = {}
    for a in rows:
        lo_hi = zips.get(a["admCd"][:2])
        if lo_hi:
            assert lo_hi[0] <= a["zipNo"][:2] <= lo_hi[1]
        assert len(a["bdMgtSn"]) == 25 and a["bdMgtSn"].startswith(a["admCd"])
        key = (a["admCd"][:5], a["rn"])
        assert roads.setdefault(key, a["rnMgtSn"]) == a["rnMgtSn"]  # one code per road


# ---------------------------------------------------------------- 국토교통부


def test_trades_per_seoul_gu_month() -> None:
    for gu in ("11110", "11680", "11320"):
        for ym in ((2021, 3), (2022, 11), (2024, 6)):
            rows = apt_trades(0, gu, *ym)
            assert 100 <= len(rows) <= 1000
    dongs = {d.umd_nm for d in sgg_dongs("11680")}
    for t in apt_trades(0, "11680", 2024, 6):
        assert t["umdNm"] in dongs
        assert re.fullmatch(r"\d{1,3}(,\d{3})*", t["dealAmount"])
        assert t["sggCd"] == 11680 and t["dealYear"] == 2024 and t["dealMonth"] == 6
        assert isinstance(t["bonbun"], str) and len(t["bonbun"]) == 4


def test_trades_are_deterministic_and_seeded() -> None:
    assert apt_trades(0, "11440", 2023, 5) == apt_trades(0, "11440", 2023, 5)
    assert apt_trades(0, "11440", 2023, 5) != apt_trades(1, "11440", 2023, 5)
    assert apt_rents(0, "11440", 2023, 5)[0]["sggCd"] == 11440


def test_jsonish_follows_the_xml_to_json_conversion() -> None:
    assert jsonish("2024") == 2024 and jsonish("84.97") == 84.97
    assert jsonish("82,500") == "82,500" and jsonish("0012") == "0012" and jsonish("") == ""
    assert jsonish("0") == 0 and jsonish("-1") == -1


def test_trade_endpoint_pages_and_totals(world: World) -> None:
    first = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202406",
                  numOfRows="100", pageNo="1")
    total = first["body"]["totalCount"]
    assert total == len(apt_trades(0, "11680", 2024, 6))
    seen = []
    for page in range(1, total // 100 + 2):
        resp = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202406",
                     numOfRows="100", pageNo=str(page))
        seen.extend(items(resp))
    assert len(seen) == total
    one = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202406",
                numOfRows="1")
    assert isinstance(one["body"]["items"]["item"], dict)  # the single-item collapse


def test_the_detailed_trade_operation_is_served_under_its_client_name(world: World) -> None:
    """Issue 21 §4: PublicDataReader calls the detailed operation
    ``RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev``; the world answers it with the same
    detailed records as ``RTMSDataSvcAptTrade``, in either format, paging included."""
    for fmt in ("json", "xml"):
        params = {"serviceKey": "k", "LAWD_CD": "11680", "DEAL_YMD": "202406",
                  "numOfRows": "50", "pageNo": "2", **({"_type": "json"} if fmt == "json" else {})}
        dev = world.call("GET", "/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev",
                         params)
        plain = world.call("GET", "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade", params)
        assert dev.status == 200 and dev.body == plain.body
    detailed = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202406")
    assert {"aptSeq", "umdCd", "jibun"} <= set(items(detailed)[0])


def test_trade_endpoint_edges(world: World) -> None:
    future = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="203001")
    assert future["body"]["totalCount"] == 0
    # 인제군 (강원특별자치도 since 2023-06-11): a rural district has few trades, but some
    rural = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="51810", DEAL_YMD="202406",
                  numOfRows="1000")
    assert 0 < rural["body"]["totalCount"] < 50
    missing = world.call("GET", "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
                         {"serviceKey": "k", "_type": "json", "LAWD_CD": "11680"})
    assert b"resultCode" in missing.body and b'"00"' not in missing.body


def test_building_register_by_parcel(world: World) -> None:
    a = next(x for x in addresses(0) if "아파트" in x["bdNm"] and x["admCd"].startswith("11"))
    resp = molit(world, "getBrTitleInfo", sigunguCd=a["admCd"][:5], bjdongCd=a["admCd"][5:],
                 bun=a["lnbrMnnm"].zfill(4), ji=a["lnbrSlno"].zfill(4), numOfRows="100")
    rows = items(resp)
    assert len(rows) >= 2  # an apartment complex has several 동
    for r in rows:
        assert r["platPlc"].startswith(a["jibunAddr"])
        assert r["bldNm"] == a["bdNm"] and r["mainPurpsCdNm"] == "공동주택"
        assert r["bun"] == a["lnbrMnnm"].zfill(4)
    empty = molit(world, "getBrTitleInfo", sigunguCd=a["admCd"][:5], bjdongCd=a["admCd"][5:],
                  bun="9999")
    assert empty["body"]["totalCount"] == 0


# ---------------------------------------------------------------- catalog ⇄ world


def _catalog_agrees(platforms: set[str], world: World, samples: dict[str, dict[str, str]]) -> None:
    cat = load_catalog(["region", "seoul"])
    for tool in cat.tools():
        if tool.platform not in platforms:
            continue
        eps = [e for e in world.endpoints if e.platform == tool.platform and e.tool == tool.name]
        assert len(eps) == 1, tool.qualname
        ep = eps[0]
        accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params) \
            | set(ep.fixed)
        if ep.paging is not None:
            accepted |= {ep.paging.page, ep.paging.size}
        for p in tool.params:
            assert p.name in accepted, f"{tool.qualname}({p.name})"
        assert tool.paging is None or ep.paging is not None
        params = samples[tool.qualname]
        path = ep.path
        for k, v in list(params.items()):
            if "{" + k + "}" in path:
                path = path.replace("{" + k + "}", v)
                del params[k]
        path = re.sub(r"/\{[A-Z_]+\}", "/ ", path)  # positional filters left blank
        resp = world.call("GET", path, params)
        body = orjson.loads(resp.body)
        rows = _rows(body)
        assert rows, tool.qualname
        served = set().union(*(r.keys() for r in rows))
        declared = {f.name for f in tool.record.fields}
        assert declared <= served, (tool.qualname, declared - served)


def _rows(body: Any) -> list[dict[str, Any]]:
    if "response" in body:
        return items(body["response"])
    if "results" in body:
        return body["results"]["juso"]
    if "StanReginCd" in body:
        return body["StanReginCd"][1]["row"]
    (svc,) = body.values()
    return svc["row"]


def test_catalog_matches_the_world(world: World) -> None:
    a = next(x for x in addresses(0) if "아파트" in x["bdNm"])
    j = juso(world, keyword="종로구 청운")["juso"][0]
    samples = {
        "mois.getStanReginCdList": {"serviceKey": "k", "type": "json", "locatadd_nm": "종로구"},
        "juso.addrLinkApi": {"confmKey": "k", "resultType": "json", "keyword": "강남구 역삼"},
        "juso.addrEngApi": {"confmKey": "k", "resultType": "json", "keyword": "강남구 역삼"},
        "juso.addrCoordApi": {"confmKey": "k", "resultType": "json", **{
            k: j[k] for k in ("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")}},
        "molit.getRTMSDataSvcAptTrade": {"serviceKey": "k", "_type": "json",
                                         "LAWD_CD": "11110", "DEAL_YMD": "202405"},
        "molit.getRTMSDataSvcAptRent": {"serviceKey": "k", "_type": "json",
                                        "LAWD_CD": "11110", "DEAL_YMD": "202405"},
        "molit.getBrTitleInfo": {"serviceKey": "k", "_type": "json",
                                 "sigunguCd": a["admCd"][:5], "bjdongCd": a["admCd"][5:]},
    }
    _catalog_agrees({"mois", "juso", "molit"}, world, samples)


def test_catalog_type_checks_in_use() -> None:
    text = '''use region

trajectory neighbourhood_trades
  "청운동 주소가 속한 구의 2024년 6월 아파트 매매 중 가장 비싼 거래는?"
{
  addr = juso.addrLinkApi(keyword: "종로구 청운") pages 1
  one = drv addr | max buldMnnm
  coord = juso.addrCoordApi(
    admCd: seq one.admCd,
    rnMgtSn: seq one.rnMgtSn,
    udrtYn: seq one.udrtYn,
    buldMnnm: seq one.buldMnnm,
    buldSlno: seq one.buldSlno,
  )
  trades = molit.getRTMSDataSvcAptTrade(LAWD_CD: "11110", DEAL_YMD: "202406") pages all
  top = drv trades | max dealAmount
  answer {
    x: coord.entX,
    apt: top.aptNm,
    price: top.dealAmount,
  }
}
'''
    result = check(text)
    assert not [d for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(("old", "new", "before", "after"), [
    ("42110", "51110", "202201", "202405"),   # 춘천시: 강원특별자치도 (2023-06-11)
    ("45111", "52111", "202201", "202405"),   # 전주시 완산구: 전북특별자치도 (2024-01-18)
    ("47720", "27720", "202201", "202405"),   # 군위군: 대구광역시 (2023-07-01)
    ("42110", "51110", "202305", "202306"),   # the month of the change is the new code's
])
def test_each_period_is_answered_under_the_code_in_force_then(
        world: World, old: str, new: str, before: str, after: str) -> None:
    """Issue 21 §5: a renumbered 시군구's trades and rents answer under the code valid in the
    month asked — the retired code before its change, its successor after — and the district's
    history continues across the change (the same complexes, the successor's code on the
    rows)."""
    for op in ("getRTMSDataSvcAptTrade", "getRTMSDataSvcAptRent"):
        def total(code: str, ym: str, op: str = op) -> int:
            return int(molit(world, op, LAWD_CD=code, DEAL_YMD=ym)["body"]["totalCount"])

        assert total(new, before) == 0 and total(old, after) == 0
        if old == "47720":  # 군위 has few apartments: its months may be empty either way
            continue
        assert total(old, before) > 0 and total(new, after) > 0
        rows = items(molit(world, op, LAWD_CD=new, DEAL_YMD=after, numOfRows="1000"))
        assert {str(r["sggCd"]) for r in rows} == {new}
        earlier = items(molit(world, op, LAWD_CD=old, DEAL_YMD=before, numOfRows="1000"))
        assert {r["aptSeq"] for r in rows} & {r["aptSeq"] for r in earlier}


def test_a_month_is_answered_whole_at_any_size(world: World) -> None:
    """Issue 21 §8: numOfRows=99999 was cut to 1,000. 실거래가 answers every row of a month
    in one request and echoes the size asked, as PublicDataReader's single request relies on;
    a size of 1,000 asks for page 2 the same way as before."""
    whole = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202105",
                  numOfRows="99999")
    total = int(whole["body"]["totalCount"])
    assert len(items(whole)) == total > 10 and int(whole["body"]["numOfRows"]) == 99999
    page = molit(world, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202105",
                 numOfRows="10", pageNo="2")
    assert items(page) == items(whole)[10:20]


def test_the_successions_keep_each_districts_last_digits() -> None:
    from edgedsl.world.regions import sigungu_list
    from edgedsl.world.successions import lawd_now

    known = {d.sgg_cd for d in sigungu_list()}
    assert lawd_now("42110", 2023, 5) == "51110" in known
    assert lawd_now("45111", 2024, 1) is None  # retired on 2024-01-18
    assert lawd_now("45111", 2023, 12) == "52111" in known
    assert lawd_now("52111", 2023, 12) is None  # 전북특별자치도 from 2024-01-18
    assert lawd_now("47720", 2023, 6) == "27720" in known
    assert lawd_now("11680", 2024, 1) == "11680"  # untouched districts are themselves


def test_the_table_is_the_one_in_force_now_and_on_any_day_since_its_snapshot() -> None:
    """Issue 21 §5: the code table carries the changes since its 2022-09-01 snapshot, each
    retired row abolished and its successor created on the change's day."""
    from edgedsl.world.regions import legal_dongs, sido_list
    from edgedsl.world.successions import SNAPSHOT

    now = {d.code: d for d in legal_dongs()}
    assert now["5111000000"].full_name == "강원특별자치도 춘천시"
    assert now["5211100000"].full_name == "전북특별자치도 전주시 완산구"
    assert now["2772025000"].full_name == "대구광역시 군위군 군위읍"
    assert not any(c[:2] in ("42", "45") or c.startswith("47720") for c in now)
    assert len(sido_list()) == 17 and "강원도" not in {d.sido_nm for d in sido_list()}
    then = {d.code: d for d in legal_dongs(SNAPSHOT)}
    assert len(then) == len(now)  # one successor for every retired row
    assert then["4211000000"].full_name == "강원도 춘천시" and "5111000000" not in then
    between = {d.code for d in legal_dongs("20231231")}  # 강원 and 군위 changed, 전북 not yet
    assert {"5111000000", "2772000000", "4511100000"} <= between
    assert not {"4211000000", "4772000000", "5211100000"} & between
    assert now["5111010100"].created == "20230611"


def test_stanregincd_and_juso_answer_the_current_codes_and_names(world: World) -> None:
    """The 법정동코드 service lists 51110 as 강원특별자치도 춘천시 (in code order), and a juso
    search in 춘천 finds addresses under the current code and 시도 name."""
    from edgedsl.world.platforms.region import build_regions, keyword_matches

    rows = build_regions(world)
    codes = [r["region_cd"] for r in rows]
    assert codes == sorted(codes)
    by_code = {r["region_cd"]: r for r in rows}
    assert by_code["5111000000"]["locatadd_nm"] == "강원특별자치도 춘천시"
    assert "4211000000" not in by_code
    found = keyword_matches(world.seed, "춘천시 봉의동")
    assert found and all(a["admCd"].startswith("51110") for a in found)
    assert {a["siNm"] for a in found} == {"강원특별자치도"}
    assert all(a["engAddr"].endswith("Gangwon State") for a in found)


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_a_trade_is_of_a_complex_built_by_then(seed: int) -> None:
    """Issue 21 §9: 58 of 134 강남 trades of January 2006 were in complexes built later. A sale
    or a lease is of a complex standing in its year, in every district and month sampled."""
    from edgedsl.world.platforms.region_data import apt_rents, apt_trades
    from edgedsl.world.regions import sigungu_list

    codes = ["11680", "11650", "26350", "41135", "48121"]
    codes += [d.sgg_cd for d in sigungu_list()][seed::40]
    seen = 0
    for code in codes:
        for y, m in ((2006, 1), (2012, 7), (2019, 3)):
            for fn in (apt_trades, apt_rents):
                for row in fn(seed, code, y, m):
                    assert int(row["buildYear"]) <= y, (code, y, m, row["aptNm"])
                    seen += 1
    assert seen > 1_000


@pytest.mark.parametrize("seed", [0, 2])
def test_a_traded_complex_stands_in_the_building_register(seed: int) -> None:
    """Issue 21 §9: the building register held exactly the four buildings of a 법정동's addresses
    and none of its apartment complexes. A complex a trade names is found by the trade's codes
    and lot (sggCd, umdCd, bonbun, bubun): its 동 carry its name, the trade's build year, and
    floors enough for the trade's; and 법정동 hold different numbers of buildings."""
    w = World(seed=seed)
    trades = items(molit(w, "getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202405",
                         numOfRows="30"))
    assert trades
    for t in trades:
        sgg, umd = f"{int(t['sggCd']):05d}", f"{int(t['umdCd']):05d}"
        found = items(molit(w, "getBrTitleInfo", sigunguCd=sgg, bjdongCd=umd,
                            bun=t["bonbun"], ji=t["bubun"], numOfRows="100"))
        mine = [b for b in found if b["bldNm"] == t["aptNm"]]
        assert mine, (t["aptNm"], sgg, umd, t["bonbun"], t["bubun"])
        assert {str(b["useAprDay"])[:4] for b in mine} == {str(t["buildYear"])}
        assert max(int(b["grndFlrCnt"]) for b in mine) >= int(t["floor"])
    counts = {int(molit(w, "getBrTitleInfo", sigunguCd="11680", bjdongCd=d,
                        numOfRows="1")["body"]["totalCount"])
              for d in ("10100", "10300", "10500", "10600", "10800")}
    assert len(counts) > 1


@pytest.mark.parametrize("seed", [0, 4])
def test_juso_finds_the_complexes_that_trades_and_the_register_name(seed: int) -> None:
    """A complex of 실거래가 stands at an address juso knows: its register rows' road address
    (``newPlatPlc``) finds exactly it — its name, its lot, its road code — and addrCoordApi
    answers its entrance, so a chain goes on from a trade to the buildings around it."""
    from edgedsl.world.platforms.region import _complex_titles, keyword_matches
    from edgedsl.world.platforms.region_data import complexes

    w = World(seed=seed)
    checked = 0
    for sgg in ("11710", "30200", "51110", "27720"):
        for c in complexes(seed, sgg)[:6]:
            place = _complex_titles(seed, c)[0]
            found = keyword_matches(seed, place["newPlatPlc"].strip())
            assert [a["bdNm"] for a in found] == [c.name], (sgg, c.name, place["newPlatPlc"])
            a = found[0]
            assert (a["admCd"], a["lnbrMnnm"], a["lnbrSlno"]) == \
                (c.dong.code, str(c.bonbun), str(c.bubun))
            assert a["rnMgtSn"] == str(place["naRoadCd"]) and a["bdKdcd"] == "1"
            # the register's lot address (``장지동 985번지``) finds it too (beside another
            # building standing on the same lot, now and then)
            assert c.name in [b["bdNm"] for b in keyword_matches(seed, place["platPlc"])], \
                place["platPlc"]
            coord = juso(w, "addrCoordApi", **{k: a[k] for k in (
                "admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")})
            assert [j["bdNm"] for j in coord["juso"]] == [c.name]
            checked += 1
    assert checked >= 20


def test_a_number_in_a_juso_keyword_names_a_whole_number(world: World) -> None:
    """``중앙로 12`` is building 12 of 중앙로, not 120 or 312 (tokens of words match any part)."""
    from edgedsl.world.platforms.region import keyword_matches

    row = next(a for a in addresses(world.seed) if a["buldSlno"] == "0"
               and len(a["buldMnnm"]) == 1)
    keyword = f"{row['sggNm']} {row['rn']} {row['buldMnnm']}"
    found = keyword_matches(world.seed, keyword)
    assert row in found
    assert all(a["buldMnnm"] == row["buldMnnm"] or row["buldMnnm"] in
               (a["lnbrMnnm"], a["buldSlno"], a["lnbrSlno"]) for a in found)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_juso_finds_the_addresses_other_services_give(seed: int) -> None:
    """The catalog types a school's road address, a company's head office and juso's search
    keyword alike (``codes.Address``), so a chain hands a place on to juso: the world's juso
    finds them. Schools and companies: one row each, bar a few whose keyword juso's token
    search also finds on a longer road (``시흥로 8`` and ``시흥로22길 8``); an expressway
    station's lot address much less often (``경기 양평군 옥천면아신리 347-43``: 면 and 리 run
    together as the service writes them)."""
    from edgedsl.world.platforms import dart, ex, neis
    from edgedsl.world.platforms.region import keyword_matches

    w = World(seed=seed, modules=[neis, dart, ex, region])
    schools = [r["ORG_RDNMA"] for r in w.rows("neis_schools")[::100]]
    found = [len(keyword_matches(seed, a.strip())) for a in schools]
    assert min(found) >= 1 and sum(k == 1 for k in found) >= 0.95 * len(found)
    corps = [r["corp_code"] for r in w.rows("dart_corps") if r["stock_code"].strip()][::80][:25]
    offices = [call(w, "/api/company.json", crtfc_key="k", corp_code=c)["adres"] for c in corps]
    assert [len(keyword_matches(seed, a.strip())) for a in offices] == [1] * len(offices)
    stations = [r["svarAddr"] for r in w.rows("ex_fuel_stations")]
    hits = sum(bool(keyword_matches(seed, a.strip())) for a in stations)
    assert 0 < hits < len(stations)


@pytest.mark.parametrize("seed", [0, 1])
def test_no_two_buildings_share_a_road_address_in_a_district(seed: int) -> None:
    """A road address (road and building number) names one building of its 시군구, though a
    road runs through several 동: the address universe never draws one twice."""
    seen = {(a["admCd"][:5], a["rn"], a["udrtYn"], a["buldMnnm"], a["buldSlno"])
            for a in addresses(seed)}
    assert len(seen) == len(addresses(seed))
