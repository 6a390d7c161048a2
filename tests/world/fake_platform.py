"""A FAKE platform module for the world's engine tests: DATASETS and ENDPOINTS covering every
dialect (data_go_kr, hub, seoul, dart list + single + ZIP, ex, juso, seoul_bus, law with two
endpoints on one path told apart by ``fixed``), a POST write endpoint and custom endpoints that
echo the request (to check that a secret key never leaks out of the HTTP backend).

Nothing here is a real service's data; the shapes only follow the families' conventions.
Load it with ``edgedsl.runtime.backends.import_file`` (tests live in two directories).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Mapping
from datetime import date, timedelta

import orjson

from edgedsl.world.decl import Dataset, Endpoint, Filter, Paging, Row, WireResponse
from edgedsl.world.rand import comma, rng, ymd

N_CORPS = 250
GUS = ("11110", "11140", "11170")


def build_corps(world) -> list[Row]:  # type: ignore[no-untyped-def]
    r = rng(world.seed, "fk_corps")
    out = []
    for i in range(N_CORPS):
        out.append({
            "corp_code": f"{i:08d}",
            "corp_name": f"회사{i}",
            "stock_code": f"{100000 + i:06d}",
            "rcept_dt": ymd(date(2024, 1, 1) + timedelta(days=i % 60)),
            "amount": comma(r.randint(1_000, 9_999_999)),
            "gu": GUS[i % 3],
            "year": str(2020 + i % 5),
            "code_sp": f"{i % 7} ",  # a trailing space, as some services send codes
            "_secret_internal": "never projected",
        })
    return out


def price_rows(world, params: Mapping[str, str]) -> Iterator[Row]:  # type: ignore[no-untyped-def]
    """Per-request rows (a dataset too big to hold whole): 30 trading days per stock code."""
    code = params.get("srtnCd", "").strip() or "005930"
    r = rng(world.seed, f"fk_prices:{code}")
    d0 = date(2024, 12, 1)
    for k in range(30):
        yield {"basDt": ymd(d0 + timedelta(days=k)), "srtnCd": code,
               "clpr": str(r.randint(50_000, 90_000)), "itmsNm": f"종목{code}"}


def write_note(world, params: Mapping[str, str]) -> Row:  # type: ignore[no-untyped-def]
    notes = world.state.setdefault("notes", {})
    nid = str(len(notes) + 1)
    notes[nid] = {"title": params["title"], "body": params.get("body", "")}
    return {"note_id": nid, "title": params["title"]}


def corp_zip(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """DART corpCode.xml: a ZIP holding CORPCODE.xml (filtered by corp_name for the tests)."""
    want = params.get("corp_name", "")
    items = "".join(
        f"<list><corp_code>{r['corp_code']}</corp_code><corp_name>{r['corp_name']}</corp_name>"
        f"<stock_code>{r['stock_code']}</stock_code><modify_date>20240101</modify_date></list>"
        for r in world.rows("fk_corps") if not want or r["corp_name"] == want)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><result>{items}</result>'.encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("CORPCODE.xml", xml)
    return WireResponse(200, "application/x-msdownload", buf.getvalue())


def echo_json(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """Echo every parameter (the key included), as a DART list answer."""
    body = {"status": "000", "message": "정상", "list": [dict(params)],
            "echo": dict(params)}
    return WireResponse(200, "application/json", orjson.dumps(body))


def echo_error(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """A DART error whose message echoes the key (some services do)."""
    key = params.get("crtfc_key", "")
    body = {"status": "010", "message": f"등록되지 않은 키입니다: {key}"}
    return WireResponse(200, "application/json", orjson.dumps(body))


def echo_html(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    key = params.get("crtfc_key", "")
    return WireResponse(200, "text/html", f"<html><body>blocked {key}</body></html>".encode())


def echo_5xx(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    key = params.get("crtfc_key", "")
    return WireResponse(502, "text/html", f"<html><body>bad gateway {key}</body></html>".encode())


CORPS = "fk_corps"

DATASETS = (
    Dataset(CORPS, build=build_corps, index=("corp_code",), doc="fake filers"),
    Dataset("fk_prices", rows=price_rows, doc="fake prices, generated per request"),
)

DART_PAGING = Paging("page_no", "page_count", 10, 100, over_max="error")
DART_FILTERS = (Filter("corp_code", op="in_csv"), Filter("corp_name", op="contains"),
                Filter("bgn_de", "rcept_dt", "ge"), Filter("end_de", "rcept_dt", "le"))

ENDPOINTS = (
    # ---- dart (bespoke JSON / XML by suffix)
    Endpoint("dart", "list", "/api/list.json", "dart", CORPS, filters=DART_FILTERS,
             paging=DART_PAGING, fields=("corp_code", "corp_name", "rcept_dt", "amount")),
    Endpoint("dart", "list_xml", "/api/list.xml", "dart", CORPS, filters=DART_FILTERS,
             paging=DART_PAGING, fields=("corp_code", "corp_name", "rcept_dt", "amount")),
    Endpoint("dart", "newest", "/api/newest.json", "dart", CORPS, filters=DART_FILTERS,
             paging=DART_PAGING, sort=(("rcept_dt", True), ("corp_code", False)),
             fields=("corp_code", "rcept_dt")),
    Endpoint("dart", "company", "/api/company.json", "dart", CORPS,
             filters=(Filter("corp_code"),), required=("corp_code",), single=True),
    Endpoint("dart", "corp_code", "/api/corpCode.xml", "dart", custom=corp_zip),
    Endpoint("dart", "note", "/api/note.json", "dart", required=("title",), method="POST",
             write=write_note),
    Endpoint("dart", "echo", "/api/echo.json", "dart", custom=echo_json),
    Endpoint("dart", "echo_error", "/api/echo_error.json", "dart", custom=echo_error),
    Endpoint("dart", "echo_html", "/api/echo_html.json", "dart", custom=echo_html),
    Endpoint("dart", "echo_5xx", "/api/echo_5xx.json", "dart", custom=echo_5xx),
    # ---- data.go.kr (FSC-like, and NEC-like with its own codes)
    Endpoint("krx", "stock_price",
             "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo", "data_go_kr",
             "fk_prices", service="items",
             filters=(Filter("srtnCd"), Filter("basDt"), Filter("beginBasDt", "basDt", "ge"),
                      Filter("endBasDt", "basDt", "lt"), Filter("likeItmsNm", "itmsNm",
                                                                "prefix")),
             paging=Paging(), sort=(("basDt", True),)),
    Endpoint("krx", "corps", "/1160100/service/GetCorpBasicInfoService/getCorpOutline",
             "data_go_kr", CORPS, service="items",
             filters=(Filter("corp_code"), Filter("gt_code", "corp_code", "gt"),
                      Filter("lt_code", "corp_code", "lt"), Filter("code_sp")),
             paging=Paging(), fields=("corp_code", "corp_name", "code_sp")),
    Endpoint("nec", "codes", "/9760000/CommonCodeService/getCommonSgCodeList", "data_go_kr",
             CORPS, service="items", required=("sgId",), paging=Paging(),
             fields=("corp_code",)),
    # ---- hub (NEIS-like)
    Endpoint("neis", "schools", "/hub/schoolInfo", "hub", CORPS, service="schoolInfo",
             filters=(Filter("SCHUL_NM", "corp_name", "contains"),),
             paging=Paging("pIndex", "pSize", 100, 1000, over_max="error"),
             fields=("corp_code", "corp_name")),
    Endpoint("neis", "meals", "/hub/mealServiceDietInfo", "hub", CORPS,
             required=("ATPT_OFCDC_SC_CODE",),
             filters=(Filter("ATPT_OFCDC_SC_CODE", "corp_code"),),
             paging=Paging("pIndex", "pSize", 100, 1000, over_max="error"),
             fields=("corp_code",)),
    # ---- Seoul (path template, optional trailing positional filters)
    Endpoint("seoul", "trades", "/{KEY}/{TYPE}/tbFakeTrade/{START_INDEX}/{END_INDEX}/{GU}/{YEAR}",
             "seoul", CORPS, service="tbFakeTrade",
             filters=(Filter("GU", "gu"), Filter("YEAR", "year")),
             paging=Paging("START_INDEX", "END_INDEX", 5, 1000, style="index",
                           over_max="error"),
             fields=("corp_code", "gu", "year")),
    # ---- 한국도로공사
    Endpoint("ex", "fuel", "/openapi/business/curStateStation", "ex", CORPS, service="list",
             filters=(Filter("gu"),), paging=Paging("pageNo", "numOfRows", 10, 99),
             fields=("corp_code", "gu")),
    # ---- juso
    Endpoint("juso", "addr", "/addrlink/addrLinkApi.do", "juso", CORPS, service="juso",
             required=("keyword",), filters=(Filter("keyword", "corp_name", "contains"),),
             paging=Paging("currentPage", "countPerPage", 10, 100),
             fields=("corp_code", "corp_name")),
    # ---- 서울 버스
    Endpoint("seoul_bus", "stations", "/api/rest/stationinfo/getStationByName", "seoul_bus",
             CORPS, service="itemList", required=("stSrch",),
             filters=(Filter("stSrch", "corp_name", "contains"),),
             fields=("corp_code", "corp_name")),
    # ---- law.go.kr: two endpoints on one path, told apart by `target`
    Endpoint("law", "laws", "/DRF/lawSearch.do", "law", CORPS, service="law",
             fixed={"target": "law"}, filters=(Filter("query", "corp_name", "contains"),),
             paging=Paging("page", "display", 20, 100), fields=("corp_code", "corp_name")),
    Endpoint("law", "precedents", "/DRF/lawSearch.do", "law", CORPS, service="prec",
             fixed={"target": "prec"}, filters=(Filter("query", "corp_name", "contains"),),
             paging=Paging("page", "display", 20, 100), fields=("corp_name",)),
)
