"""The world's generic engine: routing, keys and sample mode, quota, required parameters,
paging, filters, sort, single endpoints, writes and their state hash, determinism.

Every world here serves only the FAKE platform of ``fake_platform.py`` (``modules=[FAKE]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import orjson
import pytest

from edgedsl.runtime.backends import import_file
from edgedsl.world import envelopes as env
from edgedsl.world.decl import Dataset, Endpoint, Filter, Paging
from edgedsl.world.engine import SAMPLE_ROWS, World, state_hash

FAKE = import_file(Path(__file__).with_name("fake_platform.py"))
KEY = "test-key"

LIST = "/api/list.json"
KRX = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
CORPS = "/1160100/service/GetCorpBasicInfoService/getCorpOutline"
NEC = "/9760000/CommonCodeService/getCommonSgCodeList"


def world(**kw: Any) -> World:
    return World(modules=[FAKE], **kw)


@pytest.fixture(scope="module")
def w() -> World:
    return world(seed=0)


def j(w: World, path: str, method: str = "GET", **params: str) -> Any:
    r = w.call(method, path, params)
    assert r.status == 200, r.body[:200]
    return orjson.loads(r.body)


def seoul(w: World, path: str) -> Any:
    r = w.call("GET", path, {})
    assert r.status == 200
    return orjson.loads(r.body)


def gateway_reason(body: bytes) -> str:
    root = ElementTree.fromstring(body)
    assert root.tag == "OpenAPI_ServiceResponse"
    return root.findtext("cmmMsgHeader/returnReasonCode") or ""


# ------------------------------------------------------------------ construction


def test_world_collects_datasets_and_endpoints_of_its_modules() -> None:
    w = world()
    assert {e.platform for e in w.endpoints} >= {"dart", "krx", "neis", "seoul", "law"}
    assert "fk_corps" in w.datasets and "addresses" in w.datasets


def test_dataset_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        World(modules=[FAKE, FAKE])


def test_rows_of_unknown_or_per_request_dataset() -> None:
    w = world()
    with pytest.raises(KeyError, match="unknown dataset"):
        w.rows("nope")
    with pytest.raises(KeyError, match="per request"):
        w.rows("fk_prices")
    assert w.rows("fk_corps") is w.rows("fk_corps")  # built once


def test_endpoint_for() -> None:
    w = world()
    ep = w.endpoint_for("dart", "company")
    assert ep is not None and ep.path == "/api/company.json"
    assert w.endpoint_for("dart", "nope") is None


# ------------------------------------------------------------------ routing


def test_exact_route_and_trailing_slash(w: World) -> None:
    a = w.route("GET", LIST, {})
    b = w.route("GET", LIST + "/", {})
    assert a is not None and b is not None
    assert a.endpoint.tool == b.endpoint.tool == "list"
    assert a.path_params == {}


def test_an_unknown_path_is_answered_by_its_family_or_404(w: World) -> None:
    """A path of no endpoint is answered as the service its path belongs to answers an
    operation it does not offer (the families in full: tests/world/test_unknown_operations.py);
    a path of no service's shape is a 404."""
    r = w.call("GET", "/api/nothing.json", {"crtfc_key": KEY})
    assert r.status == 200 and orjson.loads(r.body)["status"] == "101"
    r = w.call("GET", "/1160100/service/NoSuchService/op", {"serviceKey": KEY})
    assert r.status == 200 and gateway_reason(r.body) == "12"
    assert w.call("GET", "/nothing/here", {}).status == 404


def test_method_matters(w: World) -> None:
    assert w.route("GET", "/api/note.json", {}) is None
    route = w.route("POST", "/api/note.json", {})
    assert route is not None and route.endpoint.tool == "note"
    # a GET of the POST-only path writes nothing: DART's answer to an operation it does not
    # offer (status 101), as for any unknown path of the family
    r = w.call("GET", "/api/note.json", {"crtfc_key": KEY, "title": "x"})
    assert orjson.loads(r.body)["status"] == "101"


def test_template_route_with_optional_trailing_segments(w: World) -> None:
    base = f"/{KEY}/json/tbFakeTrade/1/5"
    r0 = w.route("GET", base, {})
    assert r0 is not None and r0.endpoint.tool == "trades"
    assert r0.path_params == {"KEY": KEY, "TYPE": "json", "START_INDEX": "1", "END_INDEX": "5"}
    r1 = w.route("GET", base + "/11110", {})
    assert r1 is not None and r1.path_params["GU"] == "11110" and "YEAR" not in r1.path_params
    r2 = w.route("GET", base + "/11110/2021", {})
    assert r2 is not None and r2.path_params["YEAR"] == "2021"
    # the index range itself is required
    assert w.route("GET", f"/{KEY}/json/tbFakeTrade/1", {}) is None
    assert w.route("GET", f"/{KEY}/json/tbFakeTrade", {}) is None
    # a different service name is a different route
    assert w.route("GET", f"/{KEY}/json/tbOther/1/5", {}) is None


def test_template_optional_segments_follow_the_index_range_not_a_position() -> None:
    # a Seoul-style template with a longer prefix (swopenapi): the index range stays required
    ep = Endpoint("seoul", "arrivals",
                  "/api/subway/{KEY}/{TYPE}/realtimeArrival/{START_INDEX}/{END_INDEX}/{stn}",
                  "seoul", "fk_corps", service="realtimeArrival",
                  paging=Paging("START_INDEX", "END_INDEX", style="index", max_size=1000))
    mod = type("M", (), {"DATASETS": FAKE.DATASETS, "ENDPOINTS": (ep,)})
    w = World(modules=[mod])
    assert w.route("GET", "/api/subway/k/json/realtimeArrival", {}) is None
    assert w.route("GET", "/api/subway/k/json/realtimeArrival/1", {}) is None
    got = w.route("GET", "/api/subway/k/json/realtimeArrival/1/5", {})
    assert got is not None and "stn" not in got.path_params
    got = w.route("GET", "/api/subway/k/json/realtimeArrival/1/5/서울", {})
    assert got is not None and got.path_params["stn"] == "서울"


def test_fixed_param_selects_endpoint_on_shared_path(w: World) -> None:
    law = w.route("GET", "/DRF/lawSearch.do", {"target": "law"})
    prec = w.route("GET", "/DRF/lawSearch.do", {"target": "prec"})
    assert law is not None and law.endpoint.tool == "laws"
    assert prec is not None and prec.endpoint.tool == "precedents"
    # case-insensitive like the service
    up = w.route("GET", "/DRF/lawSearch.do", {"target": "PREC"})
    assert up is not None and up.endpoint.tool == "precedents"
    a = j(w, "/DRF/lawSearch.do", OC=KEY, target="law", type="JSON", query="회사12")
    b = j(w, "/DRF/lawSearch.do", OC=KEY, target="prec", type="JSON", query="회사12")
    assert set(a) == {"LawSearch"} and set(b) == {"PrecSearch"}
    assert a["LawSearch"]["law"][0] == {"corp_code": "00000012", "corp_name": "회사12"}
    assert b["PrecSearch"]["prec"][0] == {"corp_name": "회사12"}  # its own projection


def test_shared_path_with_unknown_selector_is_the_family_error(w: World) -> None:
    r = w.call("GET", "/DRF/lawSearch.do", {"OC": KEY, "target": "nope", "type": "JSON"})
    assert r.status == 200 and r.content_type.startswith("text/html")
    r = w.call("GET", "/DRF/lawSearch.do", {"OC": KEY, "type": "JSON"})  # no target at all
    assert r.content_type.startswith("text/html")


# ------------------------------------------------------------------ keys, sample mode, quota


@pytest.mark.parametrize("bad", [None, "", "   ", "abc%2Bdef%3D%3D"])
def test_data_go_kr_bad_key_is_xml_gateway_30_with_http_200(w: World, bad: str | None) -> None:
    params = {"resultType": "json"}  # JSON asked: the gateway answers XML anyway
    if bad is not None:
        params["serviceKey"] = bad
    r = w.call("GET", KRX, params)
    assert r.status == 200 and r.content_type.startswith("text/xml")
    assert gateway_reason(r.body) == "30"


def test_registered_keys_only(w: World) -> None:
    wk = world(keys=frozenset({"good"}))
    assert gateway_reason(wk.call("GET", KRX, {"serviceKey": "other"}).body) == "30"
    ok = orjson.loads(wk.call("GET", KRX, {"serviceKey": "good", "resultType": "json"}).body)
    assert ok["response"]["header"]["resultCode"] == "00"


@pytest.mark.parametrize(("path", "params", "check"), [
    (LIST, {}, lambda o: o["status"] == "010"),
    ("/hub/schoolInfo", {"KEY": "a%2Fb", "Type": "json"},
     lambda o: o == {"RESULT": {"CODE": "ERROR-290", "MESSAGE": env._HUB["auth"][1]}}),
    ("/%20/json/tbFakeTrade/1/5", {}, lambda o: o["RESULT"]["CODE"] == "INFO-100"),
    ("/openapi/business/curStateStation", {"type": "json"},
     lambda o: o["code"] == "ERROR" and "인증키" in o["message"]),
    ("/addrlink/addrLinkApi.do", {"resultType": "json", "keyword": "회사"},
     lambda o: o["results"]["common"]["errorCode"] == "E0001"),
    ("/api/rest/stationinfo/getStationByName", {"resultType": "json", "stSrch": "회사"},
     lambda o: o["msgHeader"]["headerCd"] == "7"),
    ("/DRF/lawSearch.do", {"target": "law", "type": "JSON"},
     lambda o: "사용자 정보 검증에 실패" in o["Law"]["result"]),
])
def test_missing_or_double_encoded_key_is_the_family_auth_error(w: World, path: str,
                                                                 params: dict[str, str],
                                                                 check: Any) -> None:
    r = w.call("GET", path, params)
    assert r.status == 200
    assert check(orjson.loads(r.body)), r.body


def test_hub_without_key_is_sample_mode_five_rows(w: World) -> None:
    o = j(w, "/hub/schoolInfo", Type="json", pSize="100")
    head, rows = o["schoolInfo"][0]["head"], o["schoolInfo"][1]["row"]
    assert len(rows) == SAMPLE_ROWS == 5
    assert head[0] == {"list_total_count": 250}
    # with a key: the page asked for
    o = j(w, "/hub/schoolInfo", KEY=KEY, Type="json", pSize="100", pIndex="2")
    assert len(o["schoolInfo"][1]["row"]) == 100
    assert o["schoolInfo"][1]["row"][0]["corp_code"] == "00000100"


def test_seoul_sample_key(w: World) -> None:
    o = seoul(w, "/sample/json/tbFakeTrade/1/5")
    assert len(o["tbFakeTrade"]["row"]) == 5
    assert seoul(w, "/sample/json/tbFakeTrade/1/6")["RESULT"]["CODE"] == "ERROR-335"
    o = seoul(w, "/sample/json/tbFakeTrade/3/5")
    assert [r["corp_code"] for r in o["tbFakeTrade"]["row"]] == ["00000002", "00000003",
                                                                  "00000004"]


def test_quota_per_key_per_endpoint() -> None:
    w = world(quota=2)
    q = {"crtfc_key": "a"}
    assert [orjson.loads(w.call("GET", LIST, q).body)["status"] for _ in range(3)] == \
        ["000", "000", "020"]
    # another key has its own counter; another endpoint too
    assert orjson.loads(w.call("GET", LIST, {"crtfc_key": "b"}).body)["status"] == "000"
    co = orjson.loads(w.call("GET", "/api/company.json",
                             {"crtfc_key": "a", "corp_code": "00000001"}).body)
    assert co["status"] == "000"
    # data.go.kr: gateway reason 22 as XML with HTTP 200
    for _ in range(2):
        w.call("GET", KRX, {"serviceKey": "a", "resultType": "json"})
    r = w.call("GET", KRX, {"serviceKey": "a", "resultType": "json"})
    assert r.status == 200 and gateway_reason(r.body) == "22"


# ------------------------------------------------------------------ required parameters


def test_required_params_answer_the_family_error(w: World) -> None:
    assert j(w, "/api/company.json", crtfc_key=KEY)["status"] == "100"
    assert j(w, "/api/company.json", crtfc_key=KEY, corp_code="  ")["status"] == "100"
    o = j(w, "/hub/mealServiceDietInfo", KEY=KEY, Type="json")
    assert o == {"RESULT": {"CODE": "ERROR-300", "MESSAGE": env._HUB["missing_param"][1]}}
    o = j(w, NEC, serviceKey=KEY, resultType="json")
    assert o["response"]["header"]["resultCode"] == "ERROR-340"  # NEC's provider code
    assert j(w, "/addrlink/addrLinkApi.do", confmKey=KEY,
             resultType="json")["results"]["common"]["errorCode"] == "E0005"
    assert j(w, "/api/rest/stationinfo/getStationByName", serviceKey=KEY,
             resultType="json")["msgHeader"]["headerCd"] == "2"
    o = j(w, "/api/note.json", "POST", crtfc_key=KEY)
    assert o["status"] == "100"
    assert w.state.get("notes") is None  # refused before the write


# ------------------------------------------------------------------ filters


def krx_dates(w: World, **params: str) -> list[str]:
    o = j(w, KRX, serviceKey=KEY, resultType="json", numOfRows="100", **params)
    items = o["response"]["body"]["items"]
    if items == "":
        return []
    item = items["item"]
    return [r["basDt"] for r in (item if isinstance(item, list) else [item])]


def test_filter_eq_ge_lt_prefix_with_rows_fn(w: World) -> None:
    assert krx_dates(w, srtnCd="005930", basDt="20241205") == ["20241205"]
    got = krx_dates(w, srtnCd="005930", beginBasDt="20241225")
    assert got == [f"202412{d}" for d in range(30, 24, -1)]  # ge, newest first
    got = krx_dates(w, srtnCd="005930", endBasDt="20241203")
    assert got == ["20241202", "20241201"]  # lt: the end is exclusive
    assert len(krx_dates(w, srtnCd="005930", likeItmsNm="종목0059")) == 30
    assert krx_dates(w, srtnCd="005930", likeItmsNm="종목9") == []
    # an empty parameter does not filter
    assert len(krx_dates(w, srtnCd="005930", basDt="")) == 30


def dart_codes(w: World, **params: str) -> list[str]:
    o = j(w, LIST, crtfc_key=KEY, page_count="100", **params)
    return [r["corp_code"] for r in o.get("list", [])]


def test_filter_contains_in_csv_ge_le(w: World) -> None:
    assert dart_codes(w, corp_name="회사24") == ["00000024", "00000240", "00000241",
                                                "00000242", "00000243", "00000244",
                                                "00000245", "00000246", "00000247",
                                                "00000248", "00000249"]
    assert dart_codes(w, corp_code="00000003, 00000007,00000999") == ["00000003", "00000007"]
    got = dart_codes(w, bgn_de="20240229", end_de="20240229")
    rows = {r["corp_code"]: r["rcept_dt"] for r in w.rows("fk_corps")}
    assert got == [c for c, d in rows.items() if d == "20240229"] == \
        ["00000059", "00000119", "00000179", "00000239"]
    assert dart_codes(w, bgn_de="20240301") == []
    ranged = dart_codes(w, bgn_de="20240102", end_de="20240103", corp_name="회사1")
    assert ranged == [c for c, d in rows.items()
                      if "20240102" <= d <= "20240103" and "회사1" in f"회사{int(c)}"]


def test_filter_gt_lt_and_stripped_values(w: World) -> None:
    o = j(w, CORPS, serviceKey=KEY, resultType="json", gt_code="00000245", lt_code="00000248")
    assert [r["corp_code"] for r in o["response"]["body"]["items"]["item"]] == \
        ["00000246", "00000247"]
    # eq compares stripped values: the row's "3 " matches "3" and " 3"
    o = j(w, CORPS, serviceKey=KEY, resultType="json", code_sp=" 3", numOfRows="100")
    items = o["response"]["body"]["items"]["item"]
    assert len(items) == o["response"]["body"]["totalCount"] == 36
    assert items[0]["code_sp"] == "3 "  # the wire value is not re-formatted


def test_equality_index_agrees_with_a_scan(w: World) -> None:
    for code in ("00000000", "00000123", "00000249", "99999999", " 00000005 "):
        via_index = j(w, "/api/company.json", crtfc_key=KEY, corp_code=code)
        expect = [r for r in w.rows("fk_corps") if r["corp_code"] == code.strip()]
        if expect:
            assert via_index["corp_code"] == expect[0]["corp_code"]
        else:
            assert via_index["status"] == "013"


def test_unknown_filter_op_raises() -> None:
    from edgedsl.world.engine import _keep

    with pytest.raises(ValueError, match="unknown filter op"):
        _keep([{"x": "a"}], Filter("x", op="like"), "a")  # type: ignore[arg-type]
    assert _keep([{"x": None}, {"y": "a"}], Filter("x"), "a") == []


@pytest.mark.parametrize(("op", "want", "kept"), [
    ("eq", "5", [0, 1]), ("prefix", "5", [0, 1, 3]), ("contains", "b", [2]),
    ("ge", "5", [0, 1, 3]), ("gt", "5", [3]), ("le", "5", [0, 1, 2]), ("lt", "5", [2]),
    ("in_csv", "5, 4b", [0, 1, 2]),
])
def test_each_filter_op_compares_the_stripped_text(op: str, want: str, kept: list[int]) -> None:
    from edgedsl.world.engine import _keep

    rows = [{"x": 5}, {"x": " 5 "}, {"x": "4b"}, {"x": "51"}, {"x": None}, {}]
    assert _keep(rows, Filter("x", op=op), want) == [rows[i] for i in kept]  # type: ignore[arg-type]


def test_sort_newest_first_then_ties_by_second_key(w: World) -> None:
    o = j(w, "/api/newest.json", crtfc_key=KEY, page_count="100")
    rows = o["list"]
    keys = [(r["rcept_dt"], r["corp_code"]) for r in rows]
    assert keys == sorted(keys, key=lambda k: (-int(k[0]), k[1]))
    assert rows[0]["rcept_dt"] == "20240229" and rows[0]["corp_code"] == "00000059"


def test_sort_numbers_with_separators_numerically() -> None:
    rows = [{"v": "1,000"}, {"v": "999"}, {"v": None}, {"v": "abc"}, {"v": "20"}]
    ds = Dataset("s", build=lambda _w: rows)
    ep = Endpoint("dart", "s", "/s.json", "dart", "s", sort=(("v", True),))
    mod = type("M", (), {"DATASETS": (ds,), "ENDPOINTS": (ep,)})
    o = orjson.loads(World(modules=[mod]).call("GET", "/s.json", {"crtfc_key": "k"}).body)
    assert [r["v"] for r in o["list"]] == ["abc", "1,000", "999", "20", None]


def test_projection_drops_underscore_fields() -> None:
    ep = Endpoint("dart", "raw", "/raw.json", "dart", "fk_corps",
                  filters=(Filter("corp_code"),))
    mod = type("M", (), {"DATASETS": FAKE.DATASETS, "ENDPOINTS": (ep,)})
    o = orjson.loads(World(modules=[mod]).call(
        "GET", "/raw.json", {"crtfc_key": "k", "corp_code": "00000001"}).body)
    assert o["list"][0]["corp_code"] == "00000001"
    assert not any(k.startswith("_") for k in o["list"][0])


# ------------------------------------------------------------------ paging


def test_page_style_paging(w: World) -> None:
    o = j(w, LIST, crtfc_key=KEY, page_no="3", page_count="7")
    assert [r["corp_code"] for r in o["list"]] == [f"{i:08d}" for i in range(14, 21)]
    assert (o["page_no"], o["page_count"], o["total_count"], o["total_page"]) == (3, 7, 250, 36)
    o = j(w, LIST, crtfc_key=KEY)  # defaults
    assert len(o["list"]) == 10 and o["page_no"] == 1
    o = j(w, LIST, crtfc_key=KEY, page_no="26", page_count="10")  # past the end: empty page
    assert o["list"] == [] and o["total_count"] == 250
    o = j(w, LIST, crtfc_key=KEY, page_no="0", page_count="-3")  # nonsense → defaults
    assert o["page_no"] == 1 and len(o["list"]) == 10


def test_page_over_max_error_or_clamp(w: World) -> None:
    assert j(w, LIST, crtfc_key=KEY, page_count="101")["status"] == "100"
    o = j(w, KRX, serviceKey=KEY, resultType="json", srtnCd="1", numOfRows="1000")
    assert o["response"]["body"]["numOfRows"] == 100  # clamped
    assert len(o["response"]["body"]["items"]["item"]) == 30


def test_page_not_a_number(w: World) -> None:
    assert j(w, LIST, crtfc_key=KEY, page_no="x")["status"] == "100"
    o = j(w, "/hub/schoolInfo", KEY=KEY, Type="json", pIndex="one")
    assert o["RESULT"]["CODE"] == "ERROR-333"
    o = j(w, "/openapi/business/curStateStation", key=KEY, type="json", numOfRows="x")
    assert "For input string" in o["exception"]["message"]


def test_hub_too_many_rows(w: World) -> None:
    assert j(w, "/hub/schoolInfo", KEY=KEY, Type="json", pSize="1001") == \
        {"RESULT": {"CODE": "ERROR-336", "MESSAGE": env._HUB["too_many_rows"][1]}}


def test_seoul_index_paging(w: World) -> None:
    o = seoul(w, f"/{KEY}/json/tbFakeTrade/4/6")
    svc = o["tbFakeTrade"]
    assert [r["corp_code"] for r in svc["row"]] == ["00000003", "00000004", "00000005"]
    assert svc["list_total_count"] == 250
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/6/4")["RESULT"]["CODE"] == "ERROR-334"
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/1/1001")["RESULT"]["CODE"] == "ERROR-336"
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/1/1000")["tbFakeTrade"]["list_total_count"] == 250
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/0/5")["RESULT"]["CODE"] == "ERROR-331"
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/a/5")["RESULT"]["CODE"] == "ERROR-333"
    # positional filters after the range
    o = seoul(w, f"/{KEY}/json/tbFakeTrade/1/1000/11140/2021")
    rows = o["tbFakeTrade"]["row"]
    assert rows and all(r["gu"] == "11140" and r["year"] == "2021" for r in rows)
    o = seoul(w, f"/{KEY}/json/tbFakeTrade/1/1000/ /2021")
    assert {r["year"] for r in o["tbFakeTrade"]["row"]} == {"2021"}
    assert len({r["gu"] for r in o["tbFakeTrade"]["row"]}) == 3


def test_no_data_answers(w: World) -> None:
    assert j(w, LIST, crtfc_key=KEY, corp_name="없는회사") == \
        {"status": "013", "message": "조회된 데이타가 없습니다."}
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/1/5/99999") == \
        {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}
    o = j(w, KRX, serviceKey=KEY, resultType="json", srtnCd="1", basDt="19990101")
    assert o["response"]["header"]["resultCode"] == "00"
    assert o["response"]["body"]["totalCount"] == 0 and o["response"]["body"]["items"] == ""
    # issue 21 §2: an empty answer echoes the page size and page asked for, as the services
    # do (PublicDataReader divides the total by it), never numOfRows 0
    o = j(w, KRX, serviceKey=KEY, resultType="json", srtnCd="1", basDt="19990101",
          numOfRows="50", pageNo="3")
    assert (o["response"]["body"]["numOfRows"], o["response"]["body"]["pageNo"]) == (50, 3)


def test_seoul_answers_a_range_past_the_last_row_info_200(w: World) -> None:
    """Issue 21 §1: a range past the last row is INFO-200, as the real service answers it,
    not INFO-000 with no rows (PublicDataReader pages until it sees INFO-200)."""
    first = seoul(w, f"/{KEY}/json/tbFakeTrade/1/5")["tbFakeTrade"]
    total = first["list_total_count"]
    assert first["RESULT"]["CODE"] == "INFO-000" and 0 < total < 1000
    last = seoul(w, f"/{KEY}/json/tbFakeTrade/{total}/{total + 10}")["tbFakeTrade"]
    assert len(last["row"]) == 1
    assert seoul(w, f"/{KEY}/json/tbFakeTrade/{total + 1}/{total + 10}") == \
        {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}


def test_single_endpoint(w: World) -> None:
    o = j(w, "/api/company.json", crtfc_key=KEY, corp_code="00000042")
    assert o["status"] == "000" and o["corp_code"] == "00000042" and o["corp_name"] == "회사42"
    assert "_secret_internal" not in o
    assert j(w, "/api/company.json", crtfc_key=KEY, corp_code="12345678")["status"] == "013"


# ------------------------------------------------------------------ writes and state


def test_write_mutates_state_and_hash_changes() -> None:
    w = world()
    h0 = state_hash(w.state)
    o = j(w, "/api/note.json", "POST", crtfc_key=KEY, title="첫 메모", body="b")
    assert o == {"status": "000", "message": "정상", "note_id": "1", "title": "첫 메모"}
    h1 = state_hash(w.state)
    assert h1 != h0
    assert w.state == {"notes": {"1": {"title": "첫 메모", "body": "b"}}}
    j(w, "/api/note.json", "POST", crtfc_key=KEY, title="둘째")
    assert state_hash(w.state) not in (h0, h1)
    # the same writes in another world give the same hash
    w2 = world()
    j(w2, "/api/note.json", "POST", crtfc_key=KEY, title="첫 메모", body="b")
    assert state_hash(w2.state) == h1


def test_state_hash_is_canonical() -> None:
    a = {"b": {"y": 1, "x": [1, 2]}, "a": "z", 3: "int key"}
    b = {3: "int key", "a": "z", "b": {"x": [1, 2], "y": 1}}
    assert state_hash(a) == state_hash(b)
    assert state_hash(a) != state_hash({**a, "a": "Z"})
    assert state_hash({"x": [1, 2]}) != state_hash({"x": [2, 1]})  # lists keep their order
    assert len(state_hash({})) == 64


# ------------------------------------------------------------------ determinism


def transcript(w: World) -> list[bytes]:
    calls = [("GET", LIST, {"crtfc_key": KEY, "page_count": "50"}),
             ("GET", KRX, {"serviceKey": KEY, "srtnCd": "000660", "resultType": "json"}),
             ("GET", f"/{KEY}/xml/tbFakeTrade/1/20", {}),
             ("GET", "/hub/schoolInfo", {"Type": "json"}),
             ("POST", "/api/note.json", {"crtfc_key": KEY, "title": "t"})]
    return [w.call(m, p, q).body for m, p, q in calls]


def test_determinism_across_worlds_with_the_same_seed() -> None:
    a, b = world(seed=7), world(seed=7)
    assert transcript(a) == transcript(b)
    assert state_hash(a.state) == state_hash(b.state)
    c = world(seed=8)
    assert transcript(c)[0] != transcript(world(seed=7))[0]  # the amounts depend on the seed


def test_respond_headers_user_agent_screening() -> None:
    w = world()
    p = {"key": KEY, "type": "json"}
    r, delay = w.respond("GET", "/openapi/business/curStateStation", dict(p),
                         {"user-agent": "python-httpx/0.28"})
    assert (r.status, delay) == (400, 0.0) and b"Request Blocked" in r.body
    r, _ = w.respond("GET", "/openapi/business/curStateStation", dict(p),
                     {"user-agent": "Mozilla/5.0"})
    assert orjson.loads(r.body)["code"] == "SUCCESS"
    r, _ = w.respond("GET", LIST, {"crtfc_key": KEY}, {})  # other families do not screen
    assert r.status == 200


def test_projection_drops_world_fields_per_layout_and_keeps_order() -> None:
    """Rows of several layouts in one page: each keeps its own fields in its own order, the
    world's ``_`` fields dropped; declared fields project every row (missing ones None)."""
    from edgedsl.world.engine import _project

    ep = Endpoint("dart", "p", "/p.json", "dart", "list")
    rows = [{"b": 1, "_k": 0, "a": 2}, {"a": 3, "b": 4}, {"b": 5, "_k": 1, "a": 6},
            {"_x": 9, "c": 7}]
    got = _project(ep, rows)
    assert got == [{"b": 1, "a": 2}, {"a": 3, "b": 4}, {"b": 5, "a": 6}, {"c": 7}]
    assert [list(r) for r in got] == [["b", "a"], ["a", "b"], ["b", "a"], ["c"]]
    assert all(g is not r for g, r in zip(got, rows, strict=True))  # copies: rows stay intact
    declared = Endpoint("dart", "p", "/p.json", "dart", "list", fields=("a", "c"))
    assert _project(declared, rows) == [{"a": 2, "c": None}, {"a": 3, "c": None},
                                        {"a": 6, "c": None}, {"a": None, "c": 7}]
    # every row holding every declared field (the fast path), in the declared order
    full = Endpoint("dart", "p", "/p.json", "dart", "list", fields=("b", "a"))
    got = _project(full, rows[:3])
    assert got == [{"b": 1, "a": 2}, {"b": 4, "a": 3}, {"b": 5, "a": 6}]
    assert all(list(r) == ["b", "a"] for r in got)
    assert _project(Endpoint("dart", "p", "/p.json", "dart", "list", fields=("a",)),
                    rows) == [{"a": 2}, {"a": 3}, {"a": 6}, {"a": None}]
    assert _project(Endpoint("dart", "p", "/p.json", "dart", "list", fields=()), rows) \
        == [{}, {}, {}, {}]
