"""The five envelope families, world side: success shapes in JSON and XML, "no data", errors
and injected faults (docs/reference: korean_public_apis.md §0.1 and §12)."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import orjson
import pytest

from edgedsl.world import envelopes as env
from edgedsl.world.decl import Endpoint, Paging

ROWS = [{"a": "1", "b": "x"}, {"a": "2", "b": "y"}]
ONE = [{"a": "1", "b": "x"}]


def ep(dialect: str, **kw: Any) -> Endpoint:
    kw.setdefault("paging", Paging())
    return Endpoint(kw.pop("platform", "p"), "t", kw.pop("path", "/svc/op"), dialect, "d", **kw)


def js(r: Any) -> Any:
    assert r.status == 200 and r.content_type.startswith("application/json"), r
    return orjson.loads(r.body)


def xml(r: Any) -> ElementTree.Element:
    assert r.status == 200 and r.content_type.startswith("text/xml"), r
    assert r.body.startswith(b'<?xml version="1.0" encoding="UTF-8"')
    return ElementTree.fromstring(r.body)


# ------------------------------------------------------------------ request side


@pytest.mark.parametrize(("dialect", "params", "path", "want"), [
    ("data_go_kr", {}, "/x", "xml"),
    ("data_go_kr", {"resultType": "json"}, "/x", "json"),
    ("data_go_kr", {"_type": "JSON"}, "/x", "json"),
    ("data_go_kr", {"type": "json"}, "/x", "json"),
    ("hub", {"Type": "json"}, "/x", "json"),
    ("hub", {}, "/x", "xml"),
    ("seoul", {"TYPE": "xml"}, "/x", "xml"),
    ("seoul", {"TYPE": "json"}, "/x", "json"),
    ("dart", {}, "/api/list.xml", "xml"),
    ("dart", {"type": "xml"}, "/api/list.json", "json"),
    ("ex", {"type": "json"}, "/x", "json"),
    ("juso", {"resultType": "json"}, "/x", "json"),
    ("seoul_bus", {}, "/x", "xml"),
    ("law", {"type": "JSON"}, "/x", "json"),
    ("law", {"type": "HTML"}, "/x", "xml"),
])
def test_wants(dialect: str, params: dict[str, str], path: str, want: str) -> None:
    assert env.wants(ep(dialect), params, path) == want


def test_key_of() -> None:
    assert env.key_of(ep("data_go_kr"), {"ServiceKey": " k "}) == "k"
    assert env.key_of(ep("data_go_kr"), {"serviceKey": ""}) is None
    assert env.key_of(ep("hub"), {"Key": "k"}) == "k"
    assert env.key_of(ep("dart"), {"crtfc_key": "k", "serviceKey": "no"}) == "k"
    assert env.key_of(ep("law"), {"OC": "me"}) == "me"
    assert env.key_of(ep("juso"), {"key": "k"}) is None


def test_to_xml_lists_repeat_and_text_is_escaped() -> None:
    root = ElementTree.fromstring(env.to_xml("r", {"i": [{"v": "<&>"}, {"v": None}], "n": 3}))
    assert [e.findtext("v") for e in root.findall("i")] == ["<&>", ""]
    assert root.findtext("n") == "3"


# ------------------------------------------------------------------ data.go.kr (A)


def test_data_go_kr_success_json_and_single_item_collapse() -> None:
    e = ep("data_go_kr")
    o = js(env.ok(e, ROWS, 12, 2, 2, "json", {}))
    assert o == {"response": {"header": {"resultCode": "00", "resultMsg": "NORMAL SERVICE."},
                              "body": {"items": {"item": ROWS}, "numOfRows": 2, "pageNo": 2,
                                       "totalCount": 12}}}
    o = js(env.ok(e, ONE, 1, 1, 10, "json", {}))
    assert o["response"]["body"]["items"]["item"] == ONE[0]  # an object, not a list
    o = js(env.ok(ep("data_go_kr", platform="nec"), ONE, 1, 1, 10, "json", {}))
    assert o["response"]["header"]["resultCode"] == "INFO-00"


def test_data_go_kr_success_xml() -> None:
    root = xml(env.ok(ep("data_go_kr"), ROWS, 12, 1, 2, "xml", {}))
    assert root.tag == "response"
    assert root.findtext("header/resultCode") == "00"
    assert [i.findtext("a") for i in root.findall("body/items/item")] == ["1", "2"]
    assert root.findtext("body/totalCount") == "12"


def test_data_go_kr_no_data_is_a_success_without_items() -> None:
    o = js(env.no_data(ep("data_go_kr"), "json", {}))
    assert o["response"]["header"]["resultCode"] == "00"
    assert o["response"]["body"]["totalCount"] == 0 and o["response"]["body"]["items"] == ""


@pytest.mark.parametrize(("kind", "code", "name"), [
    ("auth", "30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"),
    ("quota", "22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"),
    ("unknown_service", "12", "NO_OPENAPI_SERVICE_ERROR"),
])
def test_data_go_kr_gateway_errors_are_xml_with_http_200_even_for_json(
        kind: str, code: str, name: str) -> None:
    root = xml(env.error(ep("data_go_kr"), kind, "json"))
    assert root.tag == "OpenAPI_ServiceResponse"
    head = root.find("cmmMsgHeader")
    assert head is not None
    assert (head.findtext("errMsg"), head.findtext("returnAuthMsg"),
            head.findtext("returnReasonCode")) == ("SERVICE ERROR", name, code)


def test_data_go_kr_provider_errors_inside_the_envelope() -> None:
    o = js(env.error(ep("data_go_kr", platform="nec"), "missing_param", "json"))
    assert o == {"response": {"header": {"resultCode": "ERROR-340",
                                         "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR"}}}
    o = js(env.error(ep("data_go_kr", platform="nec"), "bad_number", "json"))
    assert o["response"]["header"]["resultCode"] == "ERROR-333"
    o = js(env.error(ep("data_go_kr"), "missing_param", "json"))
    assert o["response"]["header"]["resultCode"] == "10"


# ------------------------------------------------------------------ hub (B)


def test_hub_success_json() -> None:
    o = js(env.ok(ep("hub", service="schoolInfo"), ROWS, 7, 1, 100, "json", {}))
    assert o == {"schoolInfo": [
        {"head": [{"list_total_count": 7},
                  {"RESULT": {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다."}}]},
        {"row": ROWS}]}


def test_hub_service_name_defaults_to_the_last_path_segment() -> None:
    o = js(env.ok(ep("hub", path="/hub/mealServiceDietInfo/"), ROWS, 2, 1, 10, "json", {}))
    assert list(o) == ["mealServiceDietInfo"]


def test_hub_success_xml() -> None:
    row_named_head = [{"head": None, "a": "1"}]  # a field named like the wrapper stays put
    root = xml(env.ok(ep("hub", service="schoolInfo"), ROWS + row_named_head, 3, 1, 100,
                      "xml", {}))
    assert root.tag == "schoolInfo"
    assert root.findtext("head/list_total_count") == "3"
    assert root.findtext("head/RESULT/CODE") == "INFO-000"
    rows = root.findall("row")
    assert [r.findtext("a") for r in rows] == ["1", "2", "1"]
    inner = rows[2].find("head")
    assert inner is not None and len(inner) == 0


def test_hub_mois_variant_uses_data_go_kr_header_words() -> None:
    o = js(env.ok(ep("hub", platform="mois", service="StanReginCd"), ONE, 1, 1, 10, "json", {}))
    head = o["StanReginCd"][0]["head"]
    assert head[0] == {"totalCount": 1}
    assert head[2] == {"RESULT": {"resultCode": "INFO-0", "resultMsg": "NOMAL SERVICE"}}


def test_hub_no_data_and_errors_are_a_top_level_result() -> None:
    e = ep("hub", service="schoolInfo")
    assert js(env.no_data(e, "json", {})) == \
        {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}
    root = xml(env.no_data(e, "xml", {}))
    assert root.tag == "RESULT" and root.findtext("CODE") == "INFO-200"
    for kind, code in [("auth", "ERROR-290"), ("missing_param", "ERROR-300"),
                       ("too_many_rows", "ERROR-336"), ("quota", "ERROR-337"),
                       ("bad_number", "ERROR-333"), ("no_such_kind", "ERROR-500")]:
        assert js(env.error(e, kind, "json"))["RESULT"]["CODE"] == code


# ------------------------------------------------------------------ Seoul (C)


def test_seoul_success_result_inside_the_service_object() -> None:
    e = ep("seoul", service="tbLnOpendataRtmsV",
           paging=Paging("START_INDEX", "END_INDEX", style="index"))
    o = js(env.ok(e, ROWS, 99, 1, 2, "json", {}))
    assert o == {"tbLnOpendataRtmsV": {
        "list_total_count": 99,
        "RESULT": {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다."}, "row": ROWS}}
    root = xml(env.ok(e, ROWS, 99, 1, 2, "xml", {}))
    assert root.tag == "tbLnOpendataRtmsV" and root.findtext("RESULT/CODE") == "INFO-000"
    assert len(root.findall("row")) == 2
    assert js(env.error(e, "auth", "json"))["RESULT"]["CODE"] == "INFO-100"
    assert js(env.error(e, "bad_range", "json"))["RESULT"]["CODE"] == "ERROR-334"
    assert js(env.error(e, "sample_limit", "json"))["RESULT"]["CODE"] == "ERROR-335"
    assert js(env.no_data(e, "json", {}))["RESULT"]["CODE"] == "INFO-200"


# ------------------------------------------------------------------ bespoke JSON (D)


def test_dart_list_json_and_xml() -> None:
    e = ep("dart", paging=Paging("page_no", "page_count"))
    o = js(env.ok(e, ROWS, 25, 2, 10, "json", {}))
    assert o == {"status": "000", "message": "정상", "page_no": 2, "page_count": 10,
                 "total_count": 25, "total_page": 3, "list": ROWS}
    root = xml(env.ok(e, ROWS, 25, 2, 10, "xml", {}))
    assert root.tag == "result" and root.findtext("status") == "000"
    assert [x.findtext("a") for x in root.findall("list")] == ["1", "2"]


def test_dart_single_and_no_data_and_errors() -> None:
    e = ep("dart", single=True, paging=None)
    assert js(env.ok(e, ONE, 1, 1, 1, "json", {})) == \
        {"status": "000", "message": "정상", "a": "1", "b": "x"}
    assert js(env.no_data(e, "json", {})) == {"status": "013",
                                              "message": "조회된 데이타가 없습니다."}
    assert js(env.error(e, "auth", "json"))["status"] == "010"
    assert js(env.error(e, "quota", "json"))["status"] == "020"
    assert xml(env.error(e, "missing_param", "xml")).findtext("status") == "100"


def test_ex_page_size_is_the_number_of_pages() -> None:
    e = ep("ex", service="list", paging=Paging("pageNo", "numOfRows"))
    o = js(env.ok(e, ROWS, 25, 1, 10, "json", {}))
    assert o == {"code": "SUCCESS", "message": "인증키가 유효합니다.", "count": 25, "pageNo": 1,
                 "numOfRows": 10, "pageSize": 3, "list": ROWS}
    no = js(env.no_data(e, "json", {}))
    assert no["count"] == 0 and no["list"] == [] and no["code"] == "SUCCESS"
    root = xml(env.ok(e, ROWS, 25, 1, 10, "xml", {}))
    assert root.tag == "data" and root.findtext("pageSize") == "3"


def test_ex_errors() -> None:
    e = ep("ex")
    o = js(env.error(e, "auth", "json"))
    assert o["code"] == "ERROR" and o["message"] == "인증키가 유효하지 않습니다."
    o = js(env.error(e, "bad_number", "xml", "abc"))  # a Java exception, JSON whatever asked
    assert o == {"exception": {"message": 'For input string: "abc"'}}


def test_juso_counters_are_strings() -> None:
    e = ep("juso", paging=Paging("currentPage", "countPerPage"))
    o = js(env.ok(e, ROWS, 2, 1, 10, "json", {}))
    assert o == {"results": {"common": {"errorMessage": "정상", "countPerPage": "10",
                                        "totalCount": "2", "errorCode": "0",
                                        "currentPage": "1"},
                             "juso": ROWS}}
    no = js(env.no_data(e, "json", {}))
    assert no["results"]["common"]["totalCount"] == "0" and no["results"]["juso"] == []
    err = js(env.error(e, "auth", "json"))
    assert err["results"]["common"]["errorCode"] == "E0001" and err["results"]["juso"] is None
    assert js(env.error(e, "quota", "json"))["results"]["common"]["errorCode"] == "E0014"
    root = xml(env.ok(e, ONE, 1, 1, 10, "xml", {}))
    assert root.tag == "results" and root.findtext("common/totalCount") == "1"


def test_seoul_bus_envelope() -> None:
    e = ep("seoul_bus", service="itemList", paging=None)
    o = js(env.ok(e, ROWS, 2, 1, 2, "json", {}))
    assert o["msgHeader"] == {"headerCd": "0", "headerMsg": "정상적으로 처리되었습니다.",
                              "itemCount": 2}
    assert o["msgBody"] == {"itemList": ROWS} and "comMsgHeader" in o
    root = xml(env.ok(e, ROWS, 2, 1, 2, "xml", {}))
    assert root.tag == "ServiceResult" and len(root.findall("msgBody/itemList")) == 2
    assert js(env.no_data(e, "json", {}))["msgHeader"]["headerCd"] == "4"
    assert js(env.error(e, "auth", "json"))["msgHeader"]["headerCd"] == "7"


# ------------------------------------------------------------------ law.go.kr (E)


def test_law_success_roots_and_collapse() -> None:
    e = ep("law", fixed={"target": "law"}, service="law", paging=Paging("page", "display"))
    o = js(env.ok(e, ROWS, 2, 1, 20, "json", {"query": "민법"}))
    assert o == {"LawSearch": {"target": "law", "키워드": "민법", "section": "lawNm",
                               "totalCnt": "2", "page": "1", "law": ROWS}}
    assert js(env.ok(e, ONE, 1, 1, 20, "json", {}))["LawSearch"]["law"] == ONE[0]
    prec = ep("law", fixed={"target": "prec"}, service="prec")
    assert list(js(env.ok(prec, ROWS, 2, 1, 20, "json", {}))) == ["PrecSearch"]
    root = xml(env.ok(e, ROWS, 2, 1, 20, "xml", {}))
    assert root.tag == "LawSearch" and len(root.findall("law")) == 2
    no = js(env.no_data(e, "json", {"page": "3"}))
    assert no["LawSearch"]["totalCnt"] == "0" and "law" not in no["LawSearch"]


def test_law_errors_auth_message_or_html_page() -> None:
    e = ep("law", fixed={"target": "law"})
    assert "사용자 정보 검증에 실패" in js(env.error(e, "auth", "json"))["Law"]["result"]
    r = env.error(e, "missing_param", "json")
    assert r.status == 200 and r.content_type.startswith("text/html") and b"<html" in r.body


@pytest.mark.parametrize("dialect", ["ex", "law"])
def test_families_without_a_quota_code_answer_429(dialect: str) -> None:
    # the client must see a quota as environmental: not an HTML page nor an "ERROR" code
    r = env.error(ep(dialect), "quota", "json")
    assert r.status == 429 and dict(r.headers).get("Retry-After") == "1"
    assert env.error(ep(dialect), "server", "json").status == 503


def test_unknown_dialect() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        env.ok(ep("nope"), ROWS, 2, 1, 2, "json", {})
    with pytest.raises(ValueError, match="unknown dialect"):
        env.error(ep("nope"), "auth", "json")


# ------------------------------------------------------------------ faults


def test_fault_answers() -> None:
    e = ep("dart", paging=None)
    good = env.ok(e, ROWS, 2, 1, 2, "json", {})
    r = env.fault(e, "5xx", "json", good)
    assert r.status == 503 and r.content_type.startswith("text/html")
    r = env.fault(e, "429", "json", good)
    assert r.status == 429 and ("Retry-After", "1") in r.headers
    assert js(env.fault(e, "quota", "json", good))["status"] == "020"
    root = xml(env.fault(e, "gateway", "json", good))
    assert root.findtext("cmmMsgHeader/returnReasonCode") == "1"
    r = env.fault(e, "truncated", "json", good)
    assert r.status == 200 and good.body.startswith(r.body) and 0 < len(r.body) < len(good.body)
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(r.body)
    r = env.fault(e, "truncated", "json", None)
    assert r.body and r.status == 200
    with pytest.raises(ValueError, match="unknown fault kind"):
        env.fault(e, "gremlins", "json", good)


def test_not_found_and_blocked() -> None:
    assert env.not_found("/api/x.json").status == 404
    assert b"OpenAPI_ServiceResponse" in env.not_found("/1613000/Svc/op").body
    assert env.blocks_agent(ep("ex"), "curl/8") and not env.blocks_agent(ep("ex"), "Mozilla/5")
    assert not env.blocks_agent(ep("dart"), "")
    assert env.request_blocked().status == 400


@pytest.mark.parametrize("kind", [k for k in env.ERROR_KINDS if k not in ("auth", "quota",
                                                                            "server")])
def test_families_without_codes_say_the_error_in_korean(kind: str) -> None:
    """한국도로공사's message and law.go.kr's error page say what went wrong in Korean, never the
    world's internal kind word (they said ``요청 오류: unknown_service``)."""
    ex = js(env.error(ep("ex", service="list"), kind, "json", "detail"))
    law = env.error(ep("law", service="law"), kind, "xml").body.decode()
    # a non-number 한국도로공사 reads is its Java exception's own text (the real quirk)
    texts = [law] if kind == "bad_number" else [ex["message"], law]
    for text in texts:
        assert kind not in text and "_" not in text.split("(")[0], text
        assert any("가" <= ch <= "힣" for ch in text)
