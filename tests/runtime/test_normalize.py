"""Client-side normalisation: decode → check_status → unwrap per envelope family, with every
failure classified environmental (retried) or structural (counted)."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import orjson
import pytest

from edgedsl.plan.model import ToolSpec, validated
from edgedsl.runtime.backends import ToolFailure
from edgedsl.runtime.normalize import check_status, decode, normalize, unwrap
from edgedsl.world import envelopes as env
from edgedsl.world.decl import Endpoint, Paging

ROWS = [{"a": "1", "b": "x"}, {"a": "2", "b": "y"}]
ONE = [{"a": "1", "b": "x"}]

PAGING = {  # envelope → (at, paging spec)
    "data_go_kr": ("items", {"page": "pageNo", "size": "numOfRows", "total": "totalCount"}),
    "hub": ("row", {"page": "pIndex", "size": "pSize", "total": "list_total_count"}),
    "seoul": ("row", {"page": "START_INDEX", "size": "END_INDEX", "total": "list_total_count"}),
    "dart": ("list", {"page": "page_no", "size": "page_count", "total": "total_count"}),
    "ex": ("list", {"page": "pageNo", "size": "numOfRows", "total": "count"}),
    "juso": ("juso", {"page": "currentPage", "size": "countPerPage", "total": "totalCount"}),
    "seoul_bus": ("itemList", {"total": "itemCount"}),
    "law": ("law", {"page": "page", "size": "display", "total": "totalCnt"}),
}
SERVICE = {"hub": "schoolInfo", "seoul": "tbSvc", "ex": "list", "juso": "juso",
           "seoul_bus": "itemList", "law": "law"}


def spec(envelope: str, *, at: str | None = "", many: bool = True,
         paging: dict[str, Any] | str | None = "auto", qualname: str = "p.t",
         family: str | None = None) -> ToolSpec:
    d_at, d_pg = PAGING.get(family or envelope, (None, None))
    return validated(ToolSpec, {
        "qualname": qualname, "platform": "p", "name": "t", "method": "GET", "path": "/x",
        "base": "https://example.org", "envelope": envelope, "secret": "key",
        "many": many, "at": d_at if at == "" else at,
        "paging": d_pg if paging == "auto" else paging, "declaration_hash": "h"})


def endpoint(dialect: str, **kw: Any) -> Endpoint:
    kw.setdefault("paging", Paging())
    kw.setdefault("service", SERVICE.get(dialect, ""))
    if dialect == "law":
        kw.setdefault("fixed", {"target": "law"})
    return Endpoint("p", "t", "/x", dialect, "d", **kw)


def run(tool: ToolSpec, resp: Any) -> tuple[list[dict[str, Any]], int | None]:
    return normalize(tool, resp.status, resp.content_type, resp.body)


def failure(tool: ToolSpec, resp: Any) -> ToolFailure:
    with pytest.raises(ToolFailure) as info:
        run(tool, resp)
    return info.value


FAMILIES = list(PAGING)


# ------------------------------------------------------------------ success, every family


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize("dialect", FAMILIES)
def test_success_records_and_total(dialect: str, fmt: str) -> None:
    records, total = run(spec(dialect), env.ok(endpoint(dialect), ROWS, 42, 1, 2, fmt, {}))
    assert records == ROWS and total == 42


@pytest.mark.parametrize("envelope", ["neis", "assembly"])
def test_hub_family_names(envelope: str) -> None:
    tool = spec(envelope, family="hub")
    records, total = run(tool, env.ok(endpoint("hub"), ROWS, 42, 1, 2, "json", {}))
    assert records == ROWS and total == 42


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize("dialect", FAMILIES)
def test_single_record_collapse_is_repaired(dialect: str, fmt: str) -> None:
    records, total = run(spec(dialect), env.ok(endpoint(dialect), ONE, 1, 1, 10, fmt, {}))
    assert records == ONE and total == 1


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize("dialect", FAMILIES)
def test_no_data_is_an_empty_list(dialect: str, fmt: str) -> None:
    records, total = run(spec(dialect), env.no_data(endpoint(dialect), fmt, {}))
    assert records == []
    assert total in (0, None)


def test_dart_single_object_tool() -> None:
    tool = spec("dart", at=None, many=False, paging=None)
    e = endpoint("dart", single=True, paging=None)
    for fmt in ("json", "xml"):
        records, total = run(tool, env.ok(e, ONE, 1, 1, 1, fmt, {}))
        assert records == ONE and total is None  # status and message are not fields


def test_data_go_kr_at_items_item_path() -> None:
    tool = spec("data_go_kr", at="items.item")
    for rows in (ROWS, ONE):
        assert run(tool, env.ok(endpoint("data_go_kr"), rows, 5, 1, 10, "json", {}))[0] == rows


def test_data_go_kr_items_empty_string_and_nec_codes() -> None:
    tool = spec("data_go_kr")
    body = {"response": {"header": {"resultCode": "INFO-00", "resultMsg": "NORMAL SERVICE"},
                         "body": {"items": "", "totalCount": "0"}}}
    assert normalize(tool, 200, "application/json", orjson.dumps(body)) == ([], 0)
    body["response"]["header"]["resultCode"] = "03"  # NODATA_ERROR
    assert normalize(tool, 200, "application/json", orjson.dumps(body)) == ([], 0)


def test_totals_as_strings_with_separators() -> None:
    tool = spec("dart")
    body = {"status": "000", "message": "정상", "total_count": "1,234", "list": ROWS}
    assert normalize(tool, 200, "application/json", orjson.dumps(body)) == (ROWS, 1234)
    body["total_count"] = "many"
    assert normalize(tool, 200, "application/json", orjson.dumps(body)) == (ROWS, None)


def test_juso_total_beside_the_records() -> None:
    tool = spec("juso")
    assert run(tool, env.ok(endpoint("juso"), ROWS, 17, 1, 2, "json", {}))[1] == 17


def test_bom_is_tolerated() -> None:
    tool = spec("dart")
    body = b"\xef\xbb\xbf" + orjson.dumps({"status": "000", "list": ROWS, "total_count": 2})
    assert normalize(tool, 200, "application/json", body) == (ROWS, 2)


# ------------------------------------------------------------------ DART ZIP


def corp_zip(n: int) -> bytes:
    items = "".join(f"<list><corp_code>{i:08d}</corp_code><corp_name>회사{i}</corp_name>"
                    f"<stock_code> </stock_code></list>" for i in range(n))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("CORPCODE.xml", f'<?xml version="1.0" encoding="UTF-8"?><result>{items}'
                                    "</result>")
    return buf.getvalue()


def test_dart_zip_is_decoded() -> None:
    fmt, value = decode(spec("dart"), "application/x-msdownload", corp_zip(3))
    assert fmt == "xml" and len(value["result"]["list"]) == 3
    assert value["result"]["list"][0] == {"corp_code": "00000000", "corp_name": "회사0",
                                          "stock_code": ""}


@pytest.mark.parametrize("n", [1, 3])
def test_dart_zip_records_without_at(n: int) -> None:
    tool = spec("dart", at=None, paging=None)  # `-> [Corp]` on /corpCode.xml: no `at`
    records, total = normalize(tool, 200, "application/x-msdownload", corp_zip(n))
    assert [r["corp_code"] for r in records] == [f"{i:08d}" for i in range(n)]
    assert total is None
    records, _ = normalize(spec("dart", at="list", paging=None), 200, "application/zip",
                           corp_zip(n))
    assert len(records) == n


def test_damaged_zip_is_environmental() -> None:
    f = failure(spec("dart"), env.WireResponse(200, "application/zip", corp_zip(3)[:40]))
    assert f.kind == "environmental" and f.code == "R504"


# ------------------------------------------------------------------ classified failures


@pytest.mark.parametrize(("dialect", "kind"), [
    ("data_go_kr", "quota"), ("data_go_kr", "server"), ("hub", "quota"), ("hub", "server"),
    ("seoul", "quota"), ("dart", "quota"), ("dart", "server"), ("juso", "quota"),
    ("juso", "server"), ("seoul_bus", "quota"), ("seoul_bus", "server"),
    ("ex", "quota"), ("law", "quota"),
])
def test_environmental_error_codes(dialect: str, kind: str) -> None:
    f = failure(spec(dialect), env.error(endpoint(dialect), kind, "json"))
    assert f.kind == "environmental" and f.code == "R504"
    assert f.message.startswith("`p.t`: ")


@pytest.mark.parametrize(("dialect", "kind"), [
    ("data_go_kr", "auth"), ("data_go_kr", "missing_param"), ("data_go_kr", "unknown_service"),
    ("hub", "auth"), ("hub", "missing_param"), ("hub", "too_many_rows"),
    ("seoul", "auth"), ("seoul", "bad_range"), ("seoul", "sample_limit"),
    ("dart", "auth"), ("dart", "missing_param"), ("ex", "auth"), ("ex", "bad_number"),
    ("juso", "auth"), ("juso", "missing_param"), ("seoul_bus", "auth"),
    ("seoul_bus", "missing_param"), ("law", "auth"), ("law", "missing_param"),
])
def test_structural_error_codes(dialect: str, kind: str) -> None:
    for fmt in ("json", "xml"):
        f = failure(spec(dialect), env.error(endpoint(dialect), kind, fmt))
        assert f.kind == "structural" and f.code == "R503", (fmt, f)


@pytest.mark.parametrize(("reason", "kind"), [
    ("22", "environmental"), ("1", "environmental"), ("99", "environmental"),
    ("04", "environmental"), ("30", "structural"), ("12", "structural"),
    ("31", "structural"), ("20", "structural"),
])
def test_gateway_reason_codes(reason: str, kind: str) -> None:
    body = ('<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg>'
            f'<returnAuthMsg>X</returnAuthMsg><returnReasonCode>{reason}</returnReasonCode>'
            '</cmmMsgHeader></OpenAPI_ServiceResponse>').encode()
    for family in ("data_go_kr", "dart"):  # the gateway shape is recognised in any family
        with pytest.raises(ToolFailure) as info:
            normalize(spec(family), 200, "text/xml", body)
        assert info.value.kind == kind
        assert f"gateway error {reason}" in info.value.message


@pytest.mark.parametrize(("status", "kind"), [
    (429, "environmental"), (500, "environmental"), (503, "environmental"),
    (404, "structural"), (400, "structural"), (401, "structural"),
])
def test_http_statuses(status: int, kind: str) -> None:
    good = env.ok(endpoint("dart"), ROWS, 2, 1, 2, "json", {})
    with pytest.raises(ToolFailure) as info:
        normalize(spec("dart"), status, good.content_type, good.body)
    assert info.value.kind == kind and str(status) in info.value.message


@pytest.mark.parametrize("dialect", FAMILIES)
def test_truncated_bodies_are_environmental(dialect: str) -> None:
    for fmt in ("json", "xml"):
        good = env.ok(endpoint(dialect), ROWS, 2, 1, 2, fmt, {})
        cut = env.fault(endpoint(dialect), "truncated", fmt, good)
        f = failure(spec(dialect), cut)
        assert f.kind == "environmental" and "truncated" in f.message


def test_html_pages_are_structural() -> None:
    page = b"<html><body><h1>Please verify you are human</h1></body></html>"
    f = failure(spec("law"), env.WireResponse(200, "text/html", page))
    assert f.kind == "structural" and "HTML page" in f.message and "verify" in f.message
    page = b"<!DOCTYPE html>\n<HTML><body>x</body></HTML>"
    assert failure(spec("dart"), env.WireResponse(200, "text/html", page)).kind == "structural"


def test_empty_and_unknown_bodies() -> None:
    assert failure(spec("dart"), env.WireResponse(200, "application/json", b"  ")).kind == \
        "environmental"
    f = failure(spec("dart"), env.WireResponse(200, "text/plain", b"hello"))
    assert f.kind == "structural" and "neither JSON nor XML" in f.message


def test_ex_exception_text() -> None:
    body = orjson.dumps({"exception": "java.lang.NumberFormatException"})
    f = failure(spec("ex"), env.WireResponse(200, "application/json", body))
    assert f.kind == "structural" and "NumberFormatException" in f.message


def test_hub_top_level_result_with_unknown_code_is_structural() -> None:
    body = orjson.dumps({"RESULT": {"CODE": "INFO-300", "MESSAGE": "관리자에 의해 제한"}})
    f = failure(spec("hub"), env.WireResponse(200, "application/json", body))
    assert f.kind == "structural" and "INFO-300" in f.message


@pytest.mark.parametrize(("envelope", "body"), [
    ("hub", {"a": [], "b": []}),        # two roots where the service name was expected
    ("seoul", {"a": 1, "b": 2}),
    ("hub", [1, 2, 3]),                 # a list where an object was expected
    ("dart", {"status": "000", "list": [1, 2]}),  # non-record items
    ("dart", {"status": "000", "list": [{"a": 1}, None]}),  # a null among records
    ("dart", {"status": "000", "list": "text"}),
])
def test_unexpected_shapes_are_structural_failures(envelope: str, body: Any) -> None:
    f = failure(spec(envelope), env.WireResponse(200, "application/json", orjson.dumps(body)))
    assert f.kind == "structural"


def test_a_null_among_records_is_named_by_its_index() -> None:
    # next(…, None) over the records used to find the None item and take it for "none found"
    body = orjson.dumps({"status": "000", "list": [{"a": 1}, None]})
    f = failure(spec("dart", at="list"), env.WireResponse(200, "application/json", body))
    assert "a non-record item None at `list[1]`" in f.message


# ------------------------------------------------------------------ stages directly


def test_stages_compose() -> None:
    tool = spec("hub")
    resp = env.ok(endpoint("hub"), ROWS, 9, 1, 2, "xml", {})
    fmt, value = decode(tool, resp.content_type, resp.body)
    assert fmt == "xml" and set(value) == {"schoolInfo"}
    no_data = check_status(tool, resp.status, fmt, value)
    assert no_data is False
    assert unwrap(tool, fmt, value, no_data) == (ROWS, 9)
    assert unwrap(tool, fmt, value, True) == ([], 0)


# ------------------------------------------------------------------ flat XML fast path

FLAT_CASES = [
    b'<?xml version="1.0" encoding="UTF-8"?>\n<r>\n <l><a> 1 </a><b>x &amp; y</b></l>\n'
    b' <l><a>2</a><b>&lt;z&gt;</b></l>\n</r>\n',
    b"<r><l><a>1</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2</a><b>3</b></l></r>",
    b"<r><l><a>1</a></l><!-- c --><l><a>2</a></l></r>",
    b"<r><l><a>1</a></l>junk<l><a>2</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2&bogus;</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2&#65;</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2</a></l></r>junk",
    b"<r><l><a>1</a></l><l><a>2</a></l></r>\n\n",
    b'<r x="1"><l><a>1</a></l></r>',
    b'<r><l x="1"><a>1</a></l></r>',
    b"<r><l><a>1</a><a>2</a></l></r>",
    b"<r><l><a>1</a></l><l><a>2</a></l>",
    b"<r><l><a>1\r\n2</a></l></r>",
    b"<r><l><a>]]></a></l></r>",
    b"<r><l><a>\xed\x95\x9c &apos;q&quot; \xe3\x80\x80</a></l><l><a>></a></l></r>",
    b"<r>\n<l>\n<a/>\n</l></r>",
    b"<r><l><a>1</a></l><l><a>2</a></l></r><r/>",
    b"<r><l><a>1</a></l><l><a>\x01</a></l></r>",
    b" <r><l><a>1</a></l></r>",
    b' <?xml version="1.0"?><r><l><a>1</a></l></r>',
    b"<r><l><a>1</a></l><x><a>2</a></x></r>",
    b"<r><l><a>1</a></l><l><a>2</a></l><l></l></r>",
    b"<r><l><a>1</a></l><l><a>\xff</a></l></r>",
    b"<r><l>x<a>1</a>y<b>2 &amp; 3</b>z</l>w<l><a>3</a><b>4</b></l>v</r>",
    b"<r><l>&amp;<a>1</a></l><l><a>2</a>]]></l></r>",
    b"<r><l>&bogus;<a>1</a></l><l><a>2</a></l></r>",
    b"<r><l><a>1</a></l><l><a>\xef\xbf\xbe</a></l></r>",
    b"<r><l>\xff<a>1</a></l><l><a>2</a></l></r>",
]


def _tree(body: bytes) -> Any:
    from xml.etree import ElementTree

    from edgedsl.runtime.normalize import xml_to_obj

    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return "error"
    return {root.tag: xml_to_obj(root)}


@pytest.mark.parametrize("body", FLAT_CASES)
def test_flat_xml_agrees_with_elementtree_or_declines(body: bytes) -> None:
    from edgedsl.runtime.normalize import flat_xml

    got = flat_xml(body)
    assert got is None or got == _tree(body)


@pytest.mark.slow
def test_flat_xml_reads_corp_code_layout() -> None:
    from edgedsl.runtime.normalize import FLAT_XML_MIN, flat_xml
    from edgedsl.world.engine import World
    from edgedsl.world.platforms.dart import corp_code_zip

    with zipfile.ZipFile(io.BytesIO(corp_code_zip(World(seed=0)))) as zf:
        xml = zf.read("CORPCODE.xml")
    assert len(xml) >= FLAT_XML_MIN and b"&amp;" in xml
    got = flat_xml(xml)
    assert got is not None and got == _tree(xml)
    assert len(got["result"]["list"]) > 1000


@pytest.mark.parametrize("body", [c for c in FLAT_CASES if c.count(b"<l>") > 1])
def test_flat_table_is_flat_xml_by_columns(body: bytes) -> None:
    from edgedsl.runtime.normalize import flat_table, flat_xml

    got = flat_table(body)
    if got is None:
        assert flat_xml(body) is None
        return
    root, item, table = got
    records = flat_xml(body)[root][item]  # type: ignore[index]
    assert [table.record(i) for i in range(len(table))] == records
    for name in table.names:
        assert table.column(name) == [r.get(name) for r in records]
    assert table.column("absent") == [None] * len(records)
    assert table.records() == records


@pytest.mark.parametrize(("at", "paging", "columnar"), [
    (None, None, True), ("list", None, True), ("list.0", None, False), ("nope", None, False),
    ("list", "auto", False)])
def test_normalize_columnar_is_normalize(at: str | None, paging: Any, columnar: bool) -> None:
    from edgedsl.runtime.normalize import FlatTable, normalize_columnar
    from edgedsl.world.engine import World
    from edgedsl.world.platforms.dart import corp_code_zip

    body = corp_code_zip(World(seed=0))
    tool = spec("dart", at=at, paging=paging)
    want = normalize(tool, 200, "application/zip", body)
    got, total = normalize_columnar(tool, 200, "application/zip", body)
    assert isinstance(got, FlatTable) is columnar
    assert (got.records() if isinstance(got, FlatTable) else got, total) == want
    with pytest.raises(ToolFailure) as a:
        normalize(tool, 500, "application/zip", body)
    with pytest.raises(ToolFailure) as b:
        normalize_columnar(tool, 500, "application/zip", body)
    assert a.value.message == b.value.message


@pytest.mark.parametrize("body", [c for c in FLAT_CASES if c.count(b"<l>") > 1])
def test_response_head_of_columns_builds_only_what_it_returns(body: bytes) -> None:
    from edgedsl.runtime.backends import Response
    from edgedsl.runtime.normalize import flat_table

    got = flat_table(body)
    if got is None:
        return
    table = got[2]
    resp = Response(columns=table)
    assert resp.head(2) == table.records()[:2]
    assert resp._records is None  # the page was not materialised
    assert resp.head(10**6) == table.records() == resp.records
    assert Response(records=[{"a": 1}, {"a": 2}]).head(1) == [{"a": 1}]


def test_decode_memo_decodes_the_same_bytes_once() -> None:
    """The same large flat XML answer decodes to the same table once (a hit returns the table
    already made, with the records of a fresh decode); other bytes, JSON answers and a memo of
    no bytes decode afresh; the least recently used table leaves first."""
    from edgedsl.runtime.normalize import DecodeMemo, FlatTable, normalize_columnar
    from edgedsl.world.engine import World
    from edgedsl.world.platforms.dart import corp_code_zip

    tool = spec("dart", at=None, paging=None)
    body = corp_code_zip(World(seed=0))
    memo = DecodeMemo()
    first, _ = normalize_columnar(tool, 200, "application/zip", body, memo=memo)
    again, _ = normalize_columnar(tool, 200, "application/zip", body, memo=memo)
    assert isinstance(first, FlatTable) and again is first and memo.hits == 1
    assert again.records() == normalize(tool, 200, "application/zip", body)[0]
    other = corp_zip(3000)
    third, _ = normalize_columnar(tool, 200, "application/zip", other, memo=memo)
    assert isinstance(third, FlatTable) and third is not first and memo.hits == 1
    # a failure is still decided on every answer, memo or not
    with pytest.raises(ToolFailure):
        normalize_columnar(tool, 500, "application/zip", body, memo=memo)
    # JSON is never remembered (it never decodes to a table)
    big = orjson.dumps({"status": "000", "list": [{"corp_code": f"{i:08d}"}
                                                 for i in range(3000)]})
    for _ in range(2):
        normalize_columnar(spec("dart"), 200, "application/json", big, memo=memo)
    assert memo.hits == 1 and len(memo._tables) == 2
    # bounded: a memo holding one document's bytes drops the older one for the newer
    bigger = corp_zip(3001)
    small = DecodeMemo(max_bytes=len(zipfile.ZipFile(io.BytesIO(bigger)).read("CORPCODE.xml")))
    a, _ = normalize_columnar(tool, 200, "application/zip", other, memo=small)
    b, _ = normalize_columnar(tool, 200, "application/zip", bigger, memo=small)
    c, _ = normalize_columnar(tool, 200, "application/zip", other, memo=small)
    assert b is not a and c is not a and small.hits == 0 and len(small._tables) == 1
    none = DecodeMemo(max_bytes=0)
    x, _ = normalize_columnar(tool, 200, "application/zip", other, memo=none)
    y, _ = normalize_columnar(tool, 200, "application/zip", other, memo=none)
    assert x is not y and none.hits == 0 and not none._tables
