"""Issue 21 §3: an operation the world does not serve is answered the way its service answers
an operation it does not offer — never an HTML 404 a client cannot decode (OpenDartReader's
``report('회계감사')`` and ``xbrl_taxonomy`` crashed on a JSON decode error) — and a path of no
service's shape stays a 404."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import orjson
import pytest

from edgedsl.world.engine import World

KEY = "test-key"


@pytest.fixture(scope="module")
def w() -> World:
    return World(seed=1)


def _json(body: bytes) -> Any:
    return orjson.loads(body)


# path, params, (what reads the code, the code)
CASES = [
    # data.go.kr: the gateway's XML, reason 12, whatever format was asked
    ("/1613000/RTMSDataSvcRHTrade/getRTMSDataSvcRHTrade", {"serviceKey": KEY, "_type": "json"},
     "gateway", "12"),
    ("/9760000/NoSuchService/op", {"serviceKey": KEY, "resultType": "json"}, "gateway", "12"),
    # operations the services offer and the world does not serve (docs/world.md, "Coverage")
    ("/9760000/VoteXmntckInfoInqireService2/getVoteSttusInfoInqire",
     {"serviceKey": KEY, "resultType": "json"}, "gateway", "12"),
    ("/1613000/BldRgstHubService/getBrRecapTitleInfo", {"serviceKey": KEY, "_type": "json"},
     "gateway", "12"),
    ("/api/lwstLg.json", {"crtfc_key": KEY}, "dart", "101"),
    # NEIS and 열린국회: a top-level RESULT, ERROR-310
    ("/hub/noSuchTimetable", {"KEY": KEY, "Type": "json"}, "hub", "ERROR-310"),
    ("/portal/openapi/nosuchservice", {"KEY": KEY, "Type": "json"}, "hub", "ERROR-310"),
    # Seoul: the same code, the format from the path's TYPE segment
    (f"/{KEY}/json/NoSuchService/1/5", {}, "hub", "ERROR-310"),
    (f"/{KEY}/xml/NoSuchService/1/5", {}, "xml:CODE", "ERROR-310"),
    # DART: its status 101 in the format of the path's suffix
    ("/api/xbrlTaxonomy.json", {"crtfc_key": KEY}, "dart", "101"),
    ("/api/accnutAdtorNmNdAdtOpinion.json", {"crtfc_key": KEY}, "dart", "101"),
    ("/api/document.xml", {"crtfc_key": KEY}, "xml:status", "101"),
    # Seoul's buses share DART's first segment: the longer shared prefix decides
    ("/api/rest/nosuch/op", {"serviceKey": KEY, "resultType": "json"}, "seoul_bus", None),
]


@pytest.mark.parametrize(("path", "params", "reader", "code"), CASES,
                         ids=[c[0] for c in CASES])
def test_an_unknown_operation_is_answered_by_its_service(
        w: World, path: str, params: dict[str, str], reader: str, code: str | None) -> None:
    r = w.call("GET", path, params)
    assert r.status == 200, r.body[:200]
    if reader == "gateway":
        root = ElementTree.fromstring(r.body)
        assert root.tag == "OpenAPI_ServiceResponse"
        assert root.findtext(".//returnReasonCode") == code
    elif reader == "hub":
        body = _json(r.body)
        assert list(body) == ["RESULT"]
        assert body["RESULT"]["CODE"] == code
        assert "SERVICE" in body["RESULT"]["MESSAGE"]
    elif reader.startswith("xml:"):
        assert ElementTree.fromstring(r.body).findtext(f".//{reader[4:]}") == code
    elif reader == "dart":
        assert _json(r.body)["status"] == code
    else:  # Seoul bus (its JSON has no ServiceResult root): a failed msgHeader, no item
        head = _json(r.body)["msgHeader"]
        assert head["headerCd"] != "0" and head["itemCount"] == 0


@pytest.mark.parametrize("path", ["/DRF/lawNoSuch.do", "/openapi/nosuch/op",
                                  "/addrlink/nosuchApi.do"])
def test_the_other_families_answer_in_their_own_shape(w: World, path: str) -> None:
    """law.go.kr's error page (HTTP 200, as it answers a bad request), 한국도로공사's and
    juso's error envelopes (no code of their own for an unknown operation is documented)."""
    r = w.call("GET", path, {"type": "json", "resultType": "json", "key": KEY, "OC": "x",
                             "confmKey": KEY})
    assert r.status == 200
    if path.startswith("/DRF"):
        assert r.content_type.startswith("text/html") and "오류" in r.body.decode()
    elif path.startswith("/openapi"):
        assert _json(r.body)["code"] == "ERROR"
    else:
        common = _json(r.body)["results"]["common"]
        assert common["errorCode"] != "0" and common["totalCount"] == "0"


def test_a_path_of_no_service_is_404(w: World) -> None:
    assert w.call("GET", "/nothing/at/all", {}).status == 404
    assert w.call("GET", "/", {}).status == 404


def test_a_served_world_answers_unknown_operations_over_http() -> None:
    """Through the ASGI app as a client sees it (httpx's in-process transport)."""
    import asyncio

    import httpx

    from edgedsl.world.app import make_app

    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=make_app(World(seed=1)))
        async with httpx.AsyncClient(transport=transport, base_url="http://world") as c:
            return await c.get("/api/xbrlTaxonomy.json", params={"crtfc_key": KEY})
    r = asyncio.run(main())
    assert r.status_code == 200 and r.json()["status"] == "101"
