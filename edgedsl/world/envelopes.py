"""The world's side of the five envelope families: success, "no data" and error answers.

Each family (``data_go_kr``, ``hub``, ``seoul``, the bespoke JSON of ``dart`` / ``ex`` / ``juso`` /
``seoul_bus``, and ``law``) is implemented once and parameterised by the endpoint's declaration
(its service name, list key and platform), with the real quirks: the data.go.kr gateway answers
errors as XML with HTTP 200 even on a JSON request; a single data.go.kr item collapses to an
object; the hub family's "no data" and errors are a top-level ``RESULT`` (the service wrapper
disappears); 한국도로공사's ``pageSize`` is the number of pages; juso's counters are strings.
The client-side counterpart is :mod:`edgedsl.runtime.normalize`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

import orjson

from .decl import Endpoint, Row, WireResponse

__all__ = [
    "ERROR_KINDS",
    "error",
    "fault",
    "key_of",
    "no_data",
    "not_found",
    "ok",
    "refused",
    "wants",
]

ERROR_KINDS = ("auth", "quota", "missing_param", "bad_param", "bad_number", "bad_range",
               "too_many_rows", "too_many_corps", "sample_limit", "unknown_service", "server",
               "too_large", "too_long", "state_full")
"""The error kinds of every family. The last three are the world's limits
(:mod:`edgedsl.world.limits`): a request too large (body, URL or parameter count: refused at
the front end, :func:`refused`), a field longer than the service allows, a key or world holding
as many items as it may. Each is a structural failure for the client: a code outside the
family's environmental codes (``edgedsl.runtime.normalize``), or a 4xx status."""

# the limit kinds' words are the world's own where the real family has no code for them;
# their answers carry the limit broken (``detail``) after the family's message
_LIMIT_KINDS = frozenset({"too_large", "too_long", "state_full"})

JSON = "application/json;charset=UTF-8"
XML = "text/xml;charset=UTF-8"
HTML = "text/html;charset=UTF-8"

# the key parameter of each family (the Seoul key is a path segment named KEY)
KEY_PARAMS: dict[str, tuple[str, ...]] = {
    "data_go_kr": ("serviceKey", "ServiceKey"),
    "hub": ("KEY", "Key", "key", "serviceKey", "ServiceKey"),  # 행안부 StanReginCd: serviceKey
    "seoul": ("KEY",), "dart": ("crtfc_key",), "ex": ("key",), "juso": ("confmKey",),
    "seoul_bus": ("serviceKey", "ServiceKey"), "law": ("OC",),
}

# the format switches of every family (never part of a selection)
FORMAT_PARAMS = ("resultType", "_type", "type", "Type", "TYPE")

# data.go.kr success codes differ per provider
_OK_CODES: dict[str, tuple[str, str]] = {"nec": ("INFO-00", "NORMAL SERVICE")}

# gateway reason codes (family A): kind → (returnReasonCode, returnAuthMsg)
_GATEWAY: dict[str, tuple[str, str]] = {
    "auth": ("30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"),
    "quota": ("22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"),
    "unknown_service": ("12", "NO_OPENAPI_SERVICE_ERROR"),
    "server": ("99", "UNKNOWN_ERROR"),
    "gateway": ("1", "APPLICATION_ERROR"),
    "too_large": ("10", "INVALID_REQUEST_PARAMETER_ERROR"),
    "state_full": ("20", "SERVICE_ACCESS_DENIED_ERROR"),
}

_HUB: dict[str, tuple[str, str]] = {
    "ok": ("INFO-000", "정상 처리되었습니다."),
    "no_data": ("INFO-200", "해당하는 데이터가 없습니다."),
    "auth": ("ERROR-290", "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 "
                          "인증키를 신청하십시오."),
    "missing_param": ("ERROR-300", "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오."),
    "unknown_service": ("ERROR-310", "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 "
                                     "SERVICE를 확인하십시오."),
    "bad_param": ("ERROR-331", "요청시작위치 값을 확인하십시오."),
    "bad_number": ("ERROR-333", "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 "
                                "입력하세요."),
    "bad_range": ("ERROR-334", "요청종료위치 보다 요청시작위치가 더 큽니다."),
    "sample_limit": ("ERROR-335", "sample데이터(샘플키:sample) 는 한번에 최대 5건을 넘을 수 "
                                  "없습니다."),
    "too_many_rows": ("ERROR-336", "데이터요청은 한번에 최대 1,000건을 넘을 수 없습니다."),
    "quota": ("ERROR-337", "일별 트래픽 제한을 넘은 호출입니다. 오늘은 더이상 호출할 수 "
                           "없습니다."),
    "server": ("ERROR-500", "서버 오류입니다."),
    "too_large": ("ERROR-413", "요청의 크기가 허용 한도를 넘었습니다."),
    "too_long": ("ERROR-340", "요청인자 값의 길이가 허용 한도를 넘었습니다."),
    "state_full": ("INFO-300", "인증키의 등록 한도를 넘어 더 등록할 수 없습니다."),
}

_DART: dict[str, tuple[str, str]] = {
    "ok": ("000", "정상"), "no_data": ("013", "조회된 데이타가 없습니다."),
    "auth": ("010", "등록되지 않은 키입니다."), "quota": ("020", "요청 제한을 초과하였습니다."),
    "missing_param": ("100", "필드의 부적절한 값입니다. 필요한 경우 필드를 확인하세요."),
    "bad_param": ("100", "필드의 부적절한 값입니다."),
    "bad_number": ("100", "필드의 부적절한 값입니다."),
    "bad_range": ("100", "필드의 부적절한 값입니다."),
    "too_many_rows": ("100", "필드의 부적절한 값입니다. (page_count 최대 100)"),
    "too_many_corps": ("021", "조회 가능한 회사 개수가 초과하였습니다.(최대 100건)"),
    "unknown_service": ("101", "부적절한 접근입니다."), "server": ("800", "시스템 점검으로 인한 "
                                                                   "서비스가 중지 중입니다."),
    "too_large": ("101", "부적절한 접근입니다."), "too_long": ("100", "필드의 부적절한 값입니다."),
    "state_full": ("101", "부적절한 접근입니다."),
}

_JUSO: dict[str, tuple[str, str]] = {
    "ok": ("0", "정상"), "auth": ("E0001", "승인되지 않은 KEY 입니다."),
    "missing_param": ("E0005", "검색어가 입력되지 않았습니다."),
    "bad_param": ("E0006", "주소를 상세히 입력해 주시기 바랍니다."),
    "bad_number": ("E0008", "검색어는 두글자 이상 입력되어야 합니다."),
    "quota": ("E0014", "개발승인키 기간이 만료되어 서비스를 이용하실 수 없습니다."),
    "server": ("-999", "시스템에러"),
    "too_large": ("E0010", "요청이 너무 깁니다."), "too_long": ("E0010", "검색어가 너무 깁니다."),
    "state_full": ("E0001", "승인되지 않은 KEY 입니다."),
}

_SEOUL_BUS: dict[str, tuple[str, str]] = {
    "ok": ("0", "정상적으로 처리되었습니다."), "no_data": ("4", "결과가 없습니다."),
    "auth": ("7", "인증실패 (등록되지 않은 키)"), "quota": ("8", "요청 제한을 초과하였습니다."),
    "missing_param": ("2", "잘못된 쿼리요청입니다. 쿼리 변수가 정확한지 확인하세요."),
    "server": ("1", "시스템 에러가 발생하였습니다."),
    "too_large": ("2", "잘못된 쿼리요청입니다. 쿼리 변수가 정확한지 확인하세요."),
    "too_long": ("2", "잘못된 쿼리요청입니다. 쿼리 변수가 정확한지 확인하세요."),
    "state_full": ("7", "인증실패 (등록 한도 초과)"),
}


#: How the families without a code per error (한국도로공사, law.go.kr) say what went wrong, in
#: their own language: never the world's internal kind word.
_KIND_KO: dict[str, str] = {
    "missing_param": "필수 요청인자가 없습니다",
    "bad_param": "요청인자 값이 올바르지 않습니다",
    "bad_number": "숫자여야 하는 요청인자가 숫자가 아닙니다",
    "bad_range": "요청 범위가 올바르지 않습니다",
    "too_many_rows": "한 번에 요청할 수 있는 건수를 넘었습니다",
    "too_many_corps": "한 번에 조회할 수 있는 대상 수를 넘었습니다",
    "sample_limit": "샘플 키로 요청할 수 있는 건수를 넘었습니다",
    "unknown_service": "요청하신 서비스를 찾을 수 없습니다",
    "quota": "일일 요청 한도를 넘었습니다",
    "server": "서버 오류입니다",
    "too_large": "요청의 크기가 허용 한도를 넘었습니다",
    "too_long": "요청인자 값의 길이가 허용 한도를 넘었습니다",
    "state_full": "더 등록할 수 없습니다",
}


# ------------------------------------------------------------------ request side


def wants(ep: Endpoint, params: Mapping[str, str], path: str) -> str:
    """``json`` or ``xml``: the format the request asked for, by its family's switch."""
    d = ep.dialect
    if d == "dart":
        return "xml" if path.endswith(".xml") else "json"
    if d == "seoul":
        return "xml" if params.get("TYPE", "json").lower() == "xml" else "json"
    names = {"data_go_kr": ("resultType", "_type", "type"), "hub": ("Type", "type"),
             "ex": ("type",), "juso": ("resultType",), "seoul_bus": ("resultType",),
             "law": ("type",)}.get(d, ("type",))
    return "json" if any(params.get(n, "").lower() == "json" for n in names) else "xml"


def key_of(ep: Endpoint, params: Mapping[str, str]) -> str | None:
    """The service key the request carries (None when absent or blank)."""
    for name in KEY_PARAMS.get(ep.dialect, ()):
        v = params.get(name)
        if v is not None and v.strip():
            return v.strip()
    return None


# ------------------------------------------------------------------ encoding


def _json(obj: Any, status: int = 200) -> WireResponse:
    return WireResponse(status, JSON, orjson.dumps(obj))


def _xml_value(tag: str, value: Any) -> str:
    if isinstance(value, list):
        return "".join(_xml_value(tag, v) for v in value)
    if isinstance(value, dict):
        inner = "".join(_xml_value(k, v) for k, v in value.items())
        return f"<{tag}>{inner}</{tag}>"
    text = "" if value is None else escape(str(value))
    return f"<{tag}>{text}</{tag}>"


def to_xml(root: str, body: Any) -> bytes:
    """A JSON-shaped value as the XML the services send (lists become repeated elements)."""
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            + _xml_value(root, body)).encode()


# families whose JSON answer is the body of the XML root (DART ``<result>``, 한국도로공사,
# 서울 버스 ``<ServiceResult>``); the others keep the root key in JSON too
_UNWRAPPED_JSON = frozenset({"dart", "ex", "seoul_bus"})


def _out(obj: dict[str, Any], fmt: str, dialect: str = "", status: int = 200) -> WireResponse:
    """One-rooted JSON-shaped ``obj`` in the requested format."""
    (root, body), = obj.items()
    if fmt == "json":
        return _json(body if dialect in _UNWRAPPED_JSON else obj, status)
    return WireResponse(status, XML, to_xml(root, body))


def _gateway(kind: str) -> WireResponse:
    code, name = _GATEWAY.get(kind, _GATEWAY["server"])
    head = {"errMsg": "SERVICE ERROR", "returnAuthMsg": name, "returnReasonCode": code}
    return WireResponse(200, XML, to_xml("OpenAPI_ServiceResponse", {"cmmMsgHeader": head}))


def _hub_svc(ep: Endpoint) -> str:
    return ep.service or ep.path.rstrip("/").rsplit("/", 1)[-1]


# law.go.kr list roots per target (the rest: ``{Target}Search``)
_LAW_ROOTS = {"law": "LawSearch", "eflaw": "LawSearch", "lsAbrv": "LawSearch", "expc": "Expc",
              "admrul": "AdmRulSearch"}


def _law_root(ep: Endpoint) -> str:
    target = ep.fixed.get("target", "law")
    return _LAW_ROOTS.get(target) or f"{target[:1].upper()}{target[1:]}Search"


def gateway_hosted(ep: Endpoint) -> bool:
    """True for endpoints behind the data.go.kr gateway (its key rules and XML errors)."""
    return ep.dialect == "data_go_kr" or ep.platform == "mois"


def _ok_code(ep: Endpoint) -> tuple[str, str]:
    if "/RTMSDataSvc" in ep.path:  # the current 실거래가 services
        return "000", "OK"
    return _OK_CODES.get(ep.platform, ("00", "NORMAL SERVICE."))


def ok(ep: Endpoint, rows: list[Row], total: int, page: int, size: int, fmt: str,
       params: Mapping[str, str]) -> WireResponse:
    """A success answer carrying ``rows`` (one page) of ``total``."""
    d = ep.dialect
    if d == "data_go_kr":
        code, msg = _ok_code(ep)
        item: Any = rows[0] if len(rows) == 1 else rows  # the single-item collapse
        body = {"items": {"item": item} if rows else "", "numOfRows": size, "pageNo": page,
                "totalCount": total}
        return _out({"response": {"header": {"resultCode": code, "resultMsg": msg},
                                  "body": body}}, fmt)
    if d == "hub":
        code, msg = _HUB["ok"]
        svc = _hub_svc(ep)
        if ep.platform == "mois":  # 행안부 StanReginCd: hub-shaped, data.go.kr header words
            head: list[dict[str, Any]] = [
                {"totalCount": total}, {"numOfRows": str(size), "pageNo": str(page),
                                        "type": "JSON"},
                {"RESULT": {"resultCode": "INFO-0", "resultMsg": "NOMAL SERVICE"}}]
        else:
            head = [{"list_total_count": total}, {"RESULT": {"CODE": code, "MESSAGE": msg}}]
        if fmt == "json":
            return _json({svc: [{"head": head}, {"row": rows}]})
        merged = {k: v for h in head for k, v in h.items()}  # <head> holds the parts in order
        return WireResponse(200, XML, to_xml(svc, {"head": merged, "row": rows}))
    if d == "seoul":
        code, msg = _HUB["ok"]
        svc = _hub_svc(ep)
        return _out({svc: {"list_total_count": total, "RESULT": {"CODE": code, "MESSAGE": msg},
                           "row": rows}}, fmt)
    if d == "dart":
        code, msg = _DART["ok"]
        if ep.single or ep.write is not None:
            return _out({"result": {"status": code, "message": msg, **rows[0]}}, fmt, "dart")
        obj: dict[str, Any] = {"status": code, "message": msg}
        if ep.paging is not None:
            obj.update(page_no=page, page_count=size, total_count=total,
                       total_page=math.ceil(total / size) if size else 0)
        obj[ep.service or "list"] = rows
        return _out({"result": obj}, fmt, "dart")
    if d == "ex":
        obj = {"code": "SUCCESS", "message": "인증키가 유효합니다.", "count": total}
        if ep.paging is not None:
            obj.update(pageNo=page, numOfRows=size,
                       pageSize=math.ceil(total / size) if size else 1)
        obj[ep.service or "list"] = rows
        return _out({"data": obj}, fmt, "ex")
    if d == "juso":
        code, msg = _JUSO["ok"]
        common = {"errorMessage": msg, "countPerPage": str(size), "totalCount": str(total),
                  "errorCode": code, "currentPage": str(page)}
        return _out({"results": {"common": common, ep.service or "juso": rows}}, fmt)
    if d == "seoul_bus":
        code, msg = _SEOUL_BUS["ok"]
        return _out({"ServiceResult": {
            "comMsgHeader": {"errMsg": None, "responseTime": None, "requestMsgID": None,
                             "responseMsgID": None, "successYN": None, "returnCode": None},
            "msgHeader": {"headerCd": code, "headerMsg": msg, "itemCount": total},
            "msgBody": {ep.service or "itemList": rows}}}, fmt, "seoul_bus")
    if d == "law":
        key = ep.service or "law"
        item = rows[0] if len(rows) == 1 else rows
        root = _law_root(ep)
        target = ep.fixed.get("target", "law")
        obj = {"target": target, "키워드": params.get("query", "*"),
               "section": "ordinNm" if target == "ordin" else "lawNm", "totalCnt": str(total),
               "page": str(page), key: item}
        return _out({root: obj}, fmt)
    raise ValueError(f"unknown dialect {d!r} for {ep.platform}.{ep.tool}")


def no_data(ep: Endpoint, fmt: str, params: Mapping[str, str], *, page: int = 1,
            size: int = 0) -> WireResponse:
    """The family's "no data" answer (a success for the data.go.kr and bespoke families, which
    echo the page and the page size asked for: ``numOfRows`` is the request's, never 0 — a
    client that computes pages from it would divide by zero)."""
    d = ep.dialect
    if ep.platform == "mois":
        return _out({"RESULT": {"resultCode": "INFO-3", "resultMsg": "데이터없음 에러"}}, fmt)
    if d in ("hub", "seoul"):
        code, msg = _HUB["no_data"]
        return _out({"RESULT": {"CODE": code, "MESSAGE": msg}}, fmt)
    if d == "dart":
        code, msg = _DART["no_data"]
        return _out({"result": {"status": code, "message": msg}}, fmt, "dart")
    if d == "seoul_bus":
        code, msg = _SEOUL_BUS["no_data"]
        return _out({"ServiceResult": {
            "comMsgHeader": {}, "msgHeader": {"headerCd": code, "headerMsg": msg,
                                              "itemCount": 0},
            "msgBody": {ep.service or "itemList": None}}}, fmt, "seoul_bus")
    if d == "law":
        root = _law_root(ep)
        return _out({root: {"target": ep.fixed.get("target", "law"),
                            "키워드": params.get("query", "*"), "totalCnt": "0",
                            "page": params.get("page", "1")}}, fmt)
    return ok(ep, [], 0, page, size, fmt, params)


def error(ep: Endpoint, kind: str, fmt: str, detail: str = "") -> WireResponse:
    """The family's answer to a refused request of ``kind`` (see :data:`ERROR_KINDS`)."""
    d = ep.dialect
    if ep.platform == "mois" and kind in _GATEWAY:
        return _gateway(kind)
    if kind in ("quota", "server") and d in _NO_QUOTA_CODE:
        # no in-body code for these: the front end's throttle / failure page stands in
        return _too_many() if kind == "quota" else _unavailable()
    if d == "data_go_kr":
        if kind in _GATEWAY:
            return _gateway(kind)
        code, msg = ("ERROR-340" if ep.platform == "nec" else "10",
                     "INVALID_REQUEST_PARAMETER_ERROR")
        if kind in ("bad_number",):
            code = "ERROR-333" if ep.platform == "nec" else "10"
        return _out({"response": {"header": {"resultCode": code, "resultMsg": msg}}}, fmt)
    if d in ("hub", "seoul"):
        key = kind if kind in _HUB else "server"
        if d == "seoul" and kind == "auth":
            code, msg = "INFO-100", "인증키가 유효하지 않습니다."
        else:
            code, msg = _HUB[key]
        return _out({"RESULT": {"CODE": code, "MESSAGE": _said(msg, kind, detail)}}, fmt)
    if d == "dart":
        code, msg = _DART.get(kind, _DART["server"])
        return _out({"result": {"status": code, "message": _said(msg, kind, detail)}}, fmt,
                    "dart")
    if d == "ex":
        if kind == "bad_number":
            return _json({"exception": {"message": f'For input string: "{detail}"'}})
        msg = "인증키가 유효하지 않습니다." if kind == "auth" else \
            f"요청 오류: {_KIND_KO.get(kind, kind)}" + (f" ({detail})" if detail else "")
        return _out({"data": {"code": "ERROR", "message": msg, "count": 0}}, fmt, "ex")
    if d == "juso":
        code, msg = _JUSO.get(kind, _JUSO["server"])
        common = {"errorMessage": _said(msg, kind, detail), "countPerPage": "0", "totalCount": "0",
                  "errorCode": code, "currentPage": "0"}
        return _out({"results": {"common": common, "juso": None}}, fmt)
    if d == "seoul_bus":
        code, msg = _SEOUL_BUS.get(kind, _SEOUL_BUS["server"])
        head = {"headerCd": code, "headerMsg": _said(msg, kind, detail), "itemCount": 0}
        return _out({"ServiceResult": {"comMsgHeader": {}, "msgHeader": head, "msgBody": {}}},
                    fmt, "seoul_bus")
    if d == "law":
        if kind == "auth":
            return _out({"Law": {"result": "사용자 정보 검증에 실패하였습니다.",
                                 "msg": "OC(사용자 ID)를 확인하세요."}}, fmt)
        page = ("<html><head><title>법령정보</title></head><body><p>요청하신 페이지에 오류가 "
                f"있습니다: {escape(_KIND_KO.get(kind, kind))}</p></body></html>")
        return WireResponse(200, HTML, page.encode())
    raise ValueError(f"unknown dialect {d!r}")


def _said(msg: str, kind: str, detail: str) -> str:
    """A family's message; a limit's refusal names the limit broken after it."""
    return f"{msg} ({detail})" if kind in _LIMIT_KINDS and detail else msg


def refused(ep: Endpoint | None, path: str, fmt: str, status: int, detail: str) -> WireResponse:
    """A request the front end refuses for its size (body, URL, parameter count): ``status``
    (413, 414 or 400) with the family's ``too_large`` error as the body, and ``Connection:
    close`` (the rest of the body is never read). ``ep`` None: no endpoint at ``path`` — the
    data.go.kr gateway's XML for its paths, else a plain page."""
    if ep is not None:
        base = error(ep, "too_large", fmt, detail)
    elif path.startswith(("/1", "/9", "/6")):
        base = _gateway("too_large")
    else:
        base = WireResponse(status, HTML, f"<html><body><h1>{status} {escape(detail)}</h1>"
                                          "</body></html>".encode())
    return WireResponse(status, base.content_type, base.body,
                        (*base.headers, ("Connection", "close")))


# families without an in-body quota or server-failure code (한국도로공사, law.go.kr)
_NO_QUOTA_CODE = frozenset({"ex", "law"})


def _unavailable() -> WireResponse:
    return WireResponse(503, HTML, b"<html><body><h1>503 Service Unavailable</h1></body></html>")


def _too_many() -> WireResponse:
    return WireResponse(429, "text/plain", b"Too Many Requests", (("Retry-After", "1"),))


def fault(ep: Endpoint, kind: str, fmt: str, good: WireResponse | None) -> WireResponse:
    """An injected fault of ``kind``: ``5xx``, ``429``, ``quota``, ``truncated``, ``gateway``."""
    if kind == "5xx":
        return _unavailable()
    if kind == "429":
        return _too_many()
    if kind == "quota":
        return error(ep, "quota", fmt)
    if kind == "gateway":
        return _gateway("gateway")
    if kind == "truncated":
        body = good.body if good is not None else b'{"response": {"header": {"resultCode"'
        return WireResponse(200, good.content_type if good else JSON,
                            body[: max(1, len(body) // 2)])
    raise ValueError(f"unknown fault kind {kind!r}")


def blocks_agent(ep: Endpoint, user_agent: str) -> bool:
    """한국도로공사 refuses requests without a browser-like User-Agent."""
    return ep.dialect == "ex" and "mozilla" not in user_agent.lower()


def request_blocked() -> WireResponse:
    """The 한국도로공사 answer to a non-browser User-Agent."""
    return WireResponse(400, HTML, b"<html><body><h1>400 Request Blocked</h1></body></html>")


def not_found(path: str) -> WireResponse:
    """No endpoint at ``path``: the data.go.kr-style gateway error for its paths, else 404."""
    if path.startswith("/1") or path.startswith("/9") or path.startswith("/6"):
        return _gateway("unknown_service")
    return WireResponse(404, HTML, b"<html><body><h1>404 Not Found</h1></body></html>")
