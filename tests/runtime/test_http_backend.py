"""The HTTP-based backends: request building, the ``world`` backend (in process, ASGI), retries
on environmental failures only, the concurrency cap, the quota guard, declared hosts, secret
scrubbing, the executor on the world, and a real loopback server (uvicorn on 127.0.0.1).

Every world serves only the FAKE platform of ``tests/world/fake_platform.py``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import edgedsl
from edgedsl.plan.model import ToolSpec, validated
from edgedsl.runtime.backends import ToolFailure, backend_names, import_file, make_backend
from edgedsl.runtime.http import (
    WORLD_KEY,
    HttpBackend,
    HttpOptions,
    base_env_var,
    build_request,
    check_base,
    key_env_var,
    make_world_backend,
)
from edgedsl.world.app import make_app
from edgedsl.world.engine import World, state_hash
from edgedsl.world.faults import FaultPlan, FaultRule
from tests.loopback import serve_asgi

FAKE = import_file(Path(__file__).parents[1] / "world" / "fake_platform.py")
SECRET = "FAKE-KEY-123"

DART = {"base": "https://opendart.fss.or.kr/api", "envelope": "dart", "secret": "crtfc_key",
        "platform": "dart"}
DART_PAGING = {"page": "page_no", "size": "page_count", "size_limit": 100,
               "total": "total_count"}


def spec(name: str, path: str, *, at: str | None = None, many: bool = True,
         paging: dict[str, Any] | None = None, method: str = "GET",
         **plat: Any) -> ToolSpec:
    p = {**DART, **plat}
    return validated(ToolSpec, {
        "qualname": f"{p['platform']}.{name}", "name": name, "method": method, "path": path,
        "many": many, "at": at, "paging": paging, "declaration_hash": "h", **p})


LIST = spec("list", "/list.json", at="list", paging=DART_PAGING)
COMPANY = spec("company", "/company.json", many=False)
CORP = spec("corp_code", "/corpCode.xml")
NOTE = spec("note", "/note.json", many=False, method="POST")
ECHO = spec("echo", "/echo.json", at="list")
ECHO_ERROR = spec("echo_error", "/echo_error.json", at="list")
ECHO_HTML = spec("echo_html", "/echo_html.json", at="list")
ECHO_5XX = spec("echo_5xx", "/echo_5xx.json", at="list")
KRX = spec("stock_price", "/getStockPriceInfo?resultType=json", at="items",
           platform="krx", base="https://apis.data.go.kr/1160100/service/"
                                "GetStockSecuritiesInfoService",
           envelope="data_go_kr", secret="serviceKey",
           paging={"page": "pageNo", "size": "numOfRows", "size_limit": 100,
                   "total": "totalCount"})
SEOUL = spec("trades", "/{KEY}/json/tbFakeTrade/{START_INDEX}/{END_INDEX}/{GU}/{YEAR}",
             at="row", platform="seoul", base="http://openapi.seoul.go.kr:8088",
             envelope="seoul", secret="KEY",
             paging={"page": "START_INDEX", "size": "END_INDEX", "size_limit": 7,
                     "total": "list_total_count"})
HUB = spec("schools", "/schoolInfo?Type=json", at="row", platform="neis",
           base="https://open.neis.go.kr/hub", envelope="neis", secret="KEY",
           paging={"page": "pIndex", "size": "pSize", "size_limit": 1000,
                   "total": "list_total_count"})
LAW = spec("precedents", "/lawSearch.do?target=prec&type=JSON", at="prec", platform="law",
           base="https://www.law.go.kr/DRF", envelope="law", secret="OC",
           paging={"page": "page", "size": "display", "size_limit": 100, "total": "totalCnt"})
EX = spec("fuel", "/openapi/business/curStateStation?type=json", at="list", platform="ex",
          base="https://data.ex.co.kr", envelope="ex", secret="key",
          paging={"page": "pageNo", "size": "numOfRows", "size_limit": 99, "total": "count"})
JUSO = spec("addr", "/addrLinkApi.do?resultType=json", at="juso", platform="juso",
            base="https://business.juso.go.kr/addrlink", envelope="juso", secret="confmKey",
            paging={"page": "currentPage", "size": "countPerPage", "size_limit": 100,
                    "total": "totalCount"})
BUS = spec("stations", "/getStationByName?resultType=json", at="itemList",
           platform="seoul_bus", base="http://ws.bus.go.kr/api/rest/stationinfo",
           envelope="seoul_bus", secret="serviceKey", paging=None)

FAST = HttpOptions(backoff=0.001, retries=3)


def world(*rules: FaultRule, **kw: Any) -> World:
    return World(modules=[FAKE], faults=FaultPlan(rules), **kw)


def backend(w: World | None = None, **kw: Any) -> HttpBackend:
    kw.setdefault("options", FAST)
    return make_world_backend(world=w or world(), **kw)


def call(be: HttpBackend, tool: ToolSpec, args: dict[str, object] | None = None,
         page: int | None = None) -> Any:
    async def go() -> Any:
        return await be.call(tool, dict(args or {}), page=page)

    return asyncio.run(go())


def fails(be: HttpBackend, tool: ToolSpec, args: dict[str, object] | None = None,
          page: int | None = None) -> ToolFailure:
    with pytest.raises(ToolFailure) as info:
        call(be, tool, args, page)
    return info.value


# ------------------------------------------------------------------ build_request


def test_build_request_fixed_query_paging_key() -> None:
    req = build_request(LAW, {"query": "민법"}, 3, "me")
    assert req.method == "GET" and req.url == "https://www.law.go.kr/DRF/lawSearch.do"
    assert req.params == {"target": "prec", "type": "JSON", "query": "민법", "page": "3",
                          "display": "100", "OC": "me"}
    assert build_request(LAW, {}, None, None).params == {"target": "prec", "type": "JSON"}


def test_build_request_fixed_query_is_decoded_once() -> None:
    tool = spec("x", "/x.json?q=%EB%B2%95&flag&sp=a+b")
    req = build_request(tool, {}, None, None)
    assert req.params == {"q": "법", "flag": "", "sp": "a b"}

    async def sent() -> str:
        seen: list[str] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(str(request.url))
            return httpx.Response(200, json={"status": "000", "list": []})

        be = HttpBackend(transport=httpx.MockTransport(handler), keys={"dart": "k"}, environ={})
        await be.call(tool, {}, page=None)
        await be.aclose()
        return seen[0]

    url = asyncio.run(sent())
    assert "q=%EB%B2%95" in url and "%25" not in url  # not encoded twice


def test_build_request_wire_values() -> None:
    args: dict[str, object] = {
        "basDt": dt.date(2024, 12, 5), "at": dt.datetime(2024, 1, 2, 3, 4, 5), "yes": True,
        "no": False, "n": 3.0, "x": 2.5, "codes": ["001", "002"], "gone": None, "s": "가 나"}
    req = build_request(KRX, args, 1, "k")
    assert req.params == {"resultType": "json", "basDt": "20241205", "at": "20240102030405",
                          "yes": "Y", "no": "N", "n": "3", "x": "2.5", "codes": "001,002",
                          "s": "가 나", "pageNo": "1", "numOfRows": "100", "serviceKey": "k"}


def test_build_request_seoul_path_segments() -> None:
    base = "http://openapi.seoul.go.kr:8088"
    req = build_request(SEOUL, {"GU": "11110", "YEAR": "2021"}, 2, "k/1")
    assert req.url == f"{base}/k%2F1/json/tbFakeTrade/8/14/11110/2021"
    assert req.params == {}  # every value went into the path
    # trailing empty optional positions are dropped; inner ones stay as a blank segment
    assert build_request(SEOUL, {}, 1, "k").url == f"{base}/k/json/tbFakeTrade/1/7"
    assert build_request(SEOUL, {"GU": "11110"}, 1, "k").url == \
        f"{base}/k/json/tbFakeTrade/1/7/11110"
    assert build_request(SEOUL, {"YEAR": "2021"}, 1, "k").url == \
        f"{base}/k/json/tbFakeTrade/1/7/%20/2021"
    assert build_request(SEOUL, {"GU": "", "YEAR": "2021"}, 1, "k").url == \
        f"{base}/k/json/tbFakeTrade/1/7/%20/2021"
    # a date in a path segment is in wire form too
    assert build_request(SEOUL, {"GU": dt.date(2024, 1, 2)}, 1, "k").url.endswith("/20240102")


def test_build_request_paging_without_names_and_post() -> None:
    odd = spec("odd", "/odd.json", paging={"total": "total_count"})
    assert build_request(odd, {"a": 1}, 2, "k").params == {"a": "1", "crtfc_key": "k"}
    req = build_request(NOTE, {"title": "t"}, None, "k")
    assert (req.method, req.params) == ("POST", {"title": "t", "crtfc_key": "k"})


# ------------------------------------------------------------------ registry and keys


def test_registered_backends() -> None:
    assert {"http", "world"} <= set(backend_names())
    w = world()
    be = make_backend("world", world=w)
    assert isinstance(be, HttpBackend) and be.name == "world" and be.world is w  # type: ignore[attr-defined]
    assert isinstance(make_backend("http"), HttpBackend)


def test_key_sources() -> None:
    be = HttpBackend(keys={"dart": "given"}, environ={key_env_var("krx"): "from-env"},
                     default_key="dflt")
    assert be.key_for(LIST) == "given" and be.key_for(KRX) == "from-env"
    assert be.key_for(SEOUL) == "dflt"
    assert be.key_for(spec("n", "/n", secret=None)) is None
    assert key_env_var("seoul_bus") == "EDGEDSL_KEY_SEOUL_BUS"
    # the world backend never reads real keys from the environment
    assert make_world_backend(world=world()).key_for(LIST) == WORLD_KEY


def test_missing_key_refused_before_sending() -> None:
    be = HttpBackend(environ={})
    f = fails(be, LIST)
    assert f.kind == "structural" and "EDGEDSL_KEY_DART" in f.message and be.attempts == 0


def test_tool_without_http_part() -> None:
    be = backend()
    f = fails(be, spec("local", None))  # type: ignore[arg-type]
    assert f.kind == "structural" and "declares no HTTP" in f.message


# ------------------------------------------------------------------ through the world


def test_every_family_through_the_world() -> None:
    be = backend()
    r = call(be, LIST, {"corp_name": "회사1"}, page=2)
    assert len(r.records) == 11 and r.total == 111 and r.records[0]["corp_code"] == "00000189"
    r = call(be, KRX, {"srtnCd": "005930", "basDt": dt.date(2024, 12, 5)}, page=1)
    assert r.records == [{"basDt": "20241205", "srtnCd": "005930", "clpr": r.records[0]["clpr"],
                          "itmsNm": "종목005930"}] and r.total == 1
    r = call(be, SEOUL, {}, page=2)
    assert [x["corp_code"] for x in r.records] == [f"{i:08d}" for i in range(7, 14)]
    assert r.total == 250
    r = call(be, SEOUL, {"GU": "11140", "YEAR": "2021"}, page=1)
    assert r.records and all(x["gu"] == "11140" and x["year"] == "2021" for x in r.records)
    r = call(be, HUB, {"SCHUL_NM": "회사24"}, page=1)
    assert r.total == 11 and len(r.records) == 11
    r = call(be, LAW, {"query": "회사123"}, page=1)
    assert r.records == [{"corp_name": "회사123"}] and r.total == 1  # collapse repaired
    r = call(be, EX, {"gu": "11110"}, page=1)
    assert r.total == 84 and len(r.records) == 84
    r = call(be, JUSO, {"keyword": "회사24"}, page=1)
    assert r.total == 11 and len(r.records) == 11
    r = call(be, BUS, {"stSrch": "회사24"})
    assert len(r.records) == 11
    r = call(be, COMPANY, {"corp_code": "00000042"})
    assert r.records[0]["corp_name"] == "회사42" and "status" not in r.records[0]


def test_no_data_through_the_world() -> None:
    be = backend()
    assert call(be, LIST, {"corp_name": "없음"}, page=1).records == []
    assert call(be, SEOUL, {"GU": "00000"}, page=1).records == []
    assert call(be, COMPANY, {"corp_code": "99999999"}).records == []
    assert call(be, KRX, {"srtnCd": "1", "basDt": dt.date(1999, 1, 1)}, page=1).records == []


def test_dart_zip_through_the_world_and_raw_stays_a_zip() -> None:
    be = backend(keys={"dart": SECRET})
    r = call(be, CORP, {"corp_name": "회사7"})
    assert r.records == [{"corp_code": "00000007", "corp_name": "회사7",
                          "stock_code": "100007", "modify_date": "20240101"}]
    with zipfile.ZipFile(io.BytesIO(r.raw)) as zf:  # scrubbing kept the binary body intact
        assert zf.namelist() == ["CORPCODE.xml"]


def test_write_through_the_world() -> None:
    w = world()
    be = backend(w)
    h0 = state_hash(w.state)
    r = call(be, NOTE, {"title": "메모 하나"})
    assert r.records == [{"status": "000", "message": "정상", "note_id": "1",
                          "title": "메모 하나"}] or r.records == [{"note_id": "1",
                                                               "title": "메모 하나"}]
    assert w.state == {"notes": {"1": {"title": "메모 하나", "body": ""}}}
    assert state_hash(w.state) != h0


def test_structural_failure_is_attempted_once() -> None:
    be = backend(world(keys=frozenset({"the-only-key"})))
    f = fails(be, LIST, page=1)
    assert f.kind == "structural" and "010" in f.message and be.attempts == 1
    be = backend()
    f = fails(be, COMPANY, {})  # a missing required parameter
    assert f.kind == "structural" and be.attempts == 1


def test_ex_needs_a_browser_user_agent_and_gets_one() -> None:
    w = world()
    assert call(backend(w), EX, {}, page=1).total == 250

    async def plain() -> httpx.Response:
        transport = httpx.ASGITransport(app=make_app(w))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, headers={"User-Agent": "curl/8"}) as c:
            return await c.get("http://x/openapi/business/curStateStation",
                               params={"key": "k", "type": "json"})

    assert asyncio.run(plain()).status_code == 400


# ------------------------------------------------------------------ retries


@pytest.mark.parametrize("kind", ["5xx", "429", "quota", "gateway", "truncated"])
def test_environmental_faults_are_retried_until_exhausted(kind: str) -> None:
    be = backend(world(FaultRule(kind, platform="dart")))
    f = fails(be, LIST, page=1)
    assert f.kind == "environmental" and f.code == "R504"
    assert be.attempts == 1 + FAST.retries


def test_retries_stop_at_the_first_success() -> None:
    # a seed whose rate-0.5 rule fires on the first two calls and not on the third
    rule = FaultRule("5xx", rate=0.5)
    plan = FaultPlan((rule,))
    seed = next(s for s in range(1000)
                if plan.pick(s, "dart", "list", 1) and plan.pick(s, "dart", "list", 2)
                and not plan.pick(s, "dart", "list", 3))
    be = backend(World(seed=seed, modules=[FAKE], faults=plan))
    r = call(be, LIST, page=1)
    assert len(r.records) == 100 and be.attempts == 3


def test_fault_after_n_calls() -> None:
    be = backend(world(FaultRule("5xx", after=2)), options=HttpOptions(retries=1, backoff=0.001))
    call(be, LIST, page=1)
    call(be, LIST, page=2)
    assert be.attempts == 2
    assert fails(be, LIST, page=3).kind == "environmental"
    assert be.attempts == 4  # the third call and its one retry


def test_no_retries_option() -> None:
    be = backend(world(FaultRule("5xx")), options=HttpOptions(retries=0))
    fails(be, LIST, page=1)
    assert be.attempts == 1


def test_timeout_is_environmental() -> None:
    be = backend(world(FaultRule("timeout", timeout=5.0)),
                 options=HttpOptions(timeout=0.05, retries=1, backoff=0.001))
    t0 = time.monotonic()
    f = fails(be, LIST, page=1)
    assert f.kind == "environmental" and "no answer within" in f.message
    assert be.attempts == 2
    assert time.monotonic() - t0 < 4.0  # generous: the 5 s answer was not waited for


def test_transport_errors_are_environmental_and_scrubbed() -> None:
    seen: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        raise httpx.ConnectError(f"cannot reach {request.url}")

    key = "FAKE KEY/123+="  # URL-encoded in the path: the encoded forms are scrubbed too
    be = HttpBackend(transport=httpx.MockTransport(refuse), keys={"seoul": key},
                     options=HttpOptions(retries=2, backoff=0.001))
    f = fails(be, SEOUL, {}, page=1)
    assert f.kind == "environmental" and be.attempts == 3 and len(seen) == 3
    assert "FAKE%20KEY%2F123%2B%3D" in seen[0]  # the key was in the URL …
    assert "FAKE" not in f.message and "***" in f.message  # … and not in the failure
    assert "FAKE" not in str(f)


# ------------------------------------------------------------------ quota guard, hosts


def test_quota_guard_refuses_before_sending_and_is_not_retried() -> None:
    be = backend(quota={"dart": 2})
    guarded = 0
    real_guard = be._guard

    def counting(tool: ToolSpec) -> None:
        nonlocal guarded
        guarded += 1
        real_guard(tool)

    be._guard = counting  # type: ignore[method-assign]
    call(be, LIST, page=1)
    call(be, LIST, page=2)
    f = fails(be, LIST, page=3)
    assert f.kind == "environmental" and "quota guard" in f.message and "not sent" in f.message
    assert be.attempts == 2
    assert guarded == 3  # refused once, not retried against a guard that refuses again
    assert call(be, KRX, {"srtnCd": "1"}, page=1).total == 30  # other platforms unguarded


def test_undeclared_host_refused() -> None:
    be = backend()
    for tool in (spec("x", "/x.json", base=None),
                 spec("x", "@evil.example/x.json", base="https://opendart.fss.or.kr"),
                 spec("x", "/x.json", base="not a url")):
        f = fails(be, tool)
        assert f.kind == "structural" and "undeclared host" in f.message
    assert be.attempts == 0


# ------------------------------------------------------------------ concurrency


class InFlight:
    """An ASGI wrapper counting concurrent requests (max in flight, per platform path)."""

    def __init__(self, app: Any) -> None:
        self.app, self.now, self.max, self.total = app, 0, 0, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.now += 1
        self.total += 1
        self.max = max(self.max, self.now)
        try:
            await self.app(scope, receive, send)
        finally:
            self.now -= 1


def gather(be: HttpBackend, calls: list[tuple[ToolSpec, int]]) -> list[Any]:
    async def go() -> list[Any]:
        return list(await asyncio.gather(*(be.call(t, {}, page=p) for t, p in calls)))

    return asyncio.run(go())


def test_per_platform_concurrency_cap() -> None:
    w = world(FaultRule("latency", latency=0.02))
    counter = InFlight(make_app(w))
    be = HttpBackend(transport=httpx.ASGITransport(app=counter),  # type: ignore[arg-type]
                     default_key="k", environ={}, options=HttpOptions(concurrency=2))
    out = gather(be, [(LIST, p) for p in range(1, 9)])
    assert len(out) == 8 and counter.total == 8
    assert counter.max == 2
    # two platforms: each has its own cap
    counter.max = 0
    gather(be, [(LIST, p) for p in range(1, 7)] + [(KRX, p) for p in range(1, 7)])
    assert counter.max == 4


def test_backend_survives_successive_event_loops() -> None:
    be = backend(world(FaultRule("latency", latency=0.005)), options=HttpOptions(concurrency=1))
    for _ in range(3):  # each asyncio.run is a new loop: clients and semaphores follow it
        assert len(gather(be, [(LIST, 1), (LIST, 2), (LIST, 3)])) == 3


# ------------------------------------------------------------------ secrets


def test_secret_never_leaves_the_backend() -> None:
    be = backend(keys={"dart": SECRET})
    r = call(be, ECHO, {"q": "x"})
    assert r.records[0]["crtfc_key"] == "***" and r.records[0]["q"] == "x"
    assert SECRET.encode() not in r.raw and b"***" in r.raw
    assert SECRET not in orjson.dumps(r.records).decode()
    for tool in (ECHO_ERROR, ECHO_HTML, ECHO_5XX):
        f = fails(be, tool)
        assert SECRET not in f.message and SECRET not in str(f) and SECRET not in repr(f.args)
    assert "***" in fails(be, ECHO_ERROR).message


def test_secret_in_a_path_segment_is_scrubbed_from_records() -> None:
    # Seoul carries the key in the path; an echoing world puts it back in a record
    be = backend(keys={"seoul": SECRET})
    w: World = be.world  # type: ignore[attr-defined]
    r = call(be, SEOUL, {}, page=1)
    assert SECRET.encode() not in r.raw
    assert w.call("GET", f"/{SECRET}/json/tbFakeTrade/1/2", {}).status == 200


# ------------------------------------------------------------------ the executor on the world

PROGRAM = """
platform dart "FAKE DART" {
  base "https://opendart.fss.or.kr/api"
  envelope dart
  secret crtfc_key

  record Filing {
    corp_code: str
    corp_name: str
    rcept_dt: date
    amount: int
  }

  record Company {
    corp_code: str
    corp_name: str
    stock_code: str
  }

  tool filings "공시 목록" GET "/list.json" (
    corp_name: str?,
    bgn_de: date?,
    end_de: date?,
  ) -> [Filing] at "list" paged (page: page_no, size: page_count <= 4, total: total_count)

  tool company "기업개황" GET "/company.json" (
    corp_code: str,
  ) -> Company
}

trajectory latest_company "회사24 계열 중 가장 최근 공시를 낸 회사의 종목코드는?" {
  filings = dart.filings(corp_name: "회사24", bgn_de: 2024-01-01, end_de: 2024-12-31) pages all
  latest = drv filings | max rcept_dt
  co = dart.company(corp_code: seq latest.corp_code)
  answer {
    name: co.corp_name,
    stock: co.stock_code,
    day: latest.rcept_dt,
  }
}
"""


def test_executor_runs_a_trajectory_on_the_world() -> None:
    plan = edgedsl.compile(PROGRAM)
    be = backend(keys={"dart": SECRET})
    (res,) = edgedsl.run(plan, be)
    assert res.ok, res.diagnostics
    assert res.answer == {"name": "회사24", "stock": "100024", "day": "2024-01-25"}
    assert be.attempts == 3 + 1  # 11 filings in pages of 4, then the company
    assert SECRET.encode() not in res.to_json_bytes(with_trace=True)


def test_executor_reports_an_environmental_failure_after_retries() -> None:
    plan = edgedsl.compile(PROGRAM)
    be = backend(world(FaultRule("5xx", tool="company")))
    (res,) = edgedsl.run(plan, be)
    assert not res.ok
    assert any(d.code == "R504" for d in res.diagnostics)
    assert be.attempts == 3 + 1 + FAST.retries


# ------------------------------------------------------------------ loopback server

HOSTS = ("opendart.fss.or.kr", "apis.data.go.kr", "openapi.seoul.go.kr")


@pytest.fixture(scope="module")
def loopback() -> Iterator[tuple[str, World]]:

    w = world(FaultRule("5xx", tool="echo_5xx"))
    with serve_asgi(make_app(w)) as url:
        yield url, w


def http_backend(url: str, **kw: Any) -> HttpBackend:
    kw.setdefault("options", FAST)
    return HttpBackend(host_map={h: url for h in HOSTS},
                       keys={"dart": SECRET, "krx": SECRET, "seoul": SECRET}, environ={}, **kw)


def test_loopback_answers_like_the_in_process_world(loopback: tuple[str, World]) -> None:
    url, _ = loopback
    be = http_backend(url)
    inproc = backend(keys={"dart": SECRET, "krx": SECRET, "seoul": SECRET})
    for tool, args, page in [(LIST, {"corp_name": "회사1"}, 2),
                             (KRX, {"srtnCd": "005930"}, 1),
                             (SEOUL, {"GU": "11110"}, 3),
                             (COMPANY, {"corp_code": "00000003"}, None)]:
        a, b = call(be, tool, args, page), call(inproc, tool, args, page)
        assert a.records == b.records and a.total == b.total and a.raw == b.raw


def test_loopback_failures_retries_and_secrets(loopback: tuple[str, World]) -> None:
    url, w = loopback
    be = http_backend(url)
    f = fails(be, ECHO_5XX)
    assert f.kind == "environmental" and be.attempts == 1 + FAST.retries
    assert fails(be, COMPANY, {}).kind == "structural"
    r = call(be, ECHO, {"q": "가"})
    assert r.records[0]["crtfc_key"] == "***" and r.records[0]["q"] == "가"
    assert SECRET.encode() not in r.raw
    for tool in (ECHO_ERROR, ECHO_HTML):
        assert SECRET not in fails(be, tool).message
    # POST form body reaches the write tool
    before = dict(w.state.get("notes", {}))
    call(be, NOTE, {"title": "루프백"})
    assert len(w.state["notes"]) == len(before) + 1


def test_loopback_successive_loops_and_unmapped_host(loopback: tuple[str, World]) -> None:
    url, _ = loopback
    be = http_backend(url, options=HttpOptions(concurrency=2))
    for _ in range(2):  # a client bound to a finished loop must not be reused
        assert len(gather(be, [(LIST, p) for p in range(1, 5)])) == 4
    # a declared host without a mapping goes nowhere near the loopback; refuse the network
    lonely = HttpBackend(host_map={"apis.data.go.kr": url}, keys={"dart": "k"}, environ={},
                         transport=httpx.MockTransport(
                             lambda req: httpx.Response(599, text=str(req.url))),
                         options=HttpOptions(retries=0))
    f = fails(lonely, LIST, page=1)
    assert "599" in f.message


# ------------------------------------------------------------------ a platform pointed elsewhere


def test_check_base() -> None:
    assert check_base(" http://127.0.0.1:8088/api/ ") == "http://127.0.0.1:8088/api"
    for bad in ("ftp://x/api", "127.0.0.1:8088", "http://", "http://u:p@host/api",
                "http://host/api?x=1", "http://host/api#f", ""):
        with pytest.raises(ValueError):
            check_base(bad)


def test_a_base_points_a_platform_at_another_server(loopback: tuple[str, World]) -> None:
    url, _ = loopback
    be = HttpBackend(bases={"dart": url + "/api"}, keys={"dart": SECRET}, environ={},
                     options=FAST)
    r = call(be, LIST, {"corp_name": "회사1"}, 1)
    inproc = call(backend(keys={"dart": SECRET}), LIST, {"corp_name": "회사1"}, 1)
    assert r.records == inproc.records and r.total == inproc.total
    # the same from the environment, which a given base overrides
    env = {"EDGEDSL_BASE_DART": url + "/api", "EDGEDSL_KEY_DART": SECRET}
    assert base_env_var("dart") == "EDGEDSL_BASE_DART"
    assert call(HttpBackend(environ=env, options=FAST), LIST, {"corp_name": "회사1"},
                1).records == r.records
    nowhere = HttpBackend(environ=env, bases={"dart": "http://127.0.0.1:9/api"},
                          options=HttpOptions(retries=0, timeout=2))
    assert fails(nowhere, LIST, page=1).kind == "environmental"


def test_a_malformed_base_variable_fails_the_call_and_names_it() -> None:
    be = HttpBackend(environ={"EDGEDSL_BASE_DART": "not a url", "EDGEDSL_KEY_DART": SECRET},
                     options=FAST)
    f = fails(be, LIST, page=1)
    assert f.kind == "structural" and "EDGEDSL_BASE_DART" in f.message
    with pytest.raises(ValueError):
        HttpBackend(bases={"dart": "file:///etc/passwd"})


def test_cli_base_flag(loopback: tuple[str, World], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    from edgedsl import cli

    url, _ = loopback
    prog = tmp_path / "p.edge"
    prog.write_text(PROGRAM, encoding="utf-8")
    monkeypatch.setenv("EDGEDSL_KEY_DART", SECRET)
    code = cli.main(["run", str(prog), "--backend", "http", "--base", f"dart={url}/api",
                     "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert orjson.loads(out.out)["ok"] is True
    for argv, message in ((["--base", f"dart={url}/api"], "add `--backend http`"),
                          (["--backend", "http", "--base", "dart"], "write PLATFORM=URL"),
                          (["--backend", "http", "--base", "dart=ftp://x"], "not an http(s)")):
        assert cli.main(["run", str(prog), *argv]) == 2
        assert message in capsys.readouterr().err


def test_serve_wires_uvicorn(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from edgedsl.world import serve as serve_mod

    got: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(app=app, **kw))
    serve_mod.serve(host="127.0.0.1", port=1234, world=world(seed=3))
    assert got["host"] == "127.0.0.1" and got["port"] == 1234 and callable(got["app"])
    assert got["lifespan"] == "on"


# ------------------------------------------------------------------ the ASGI app


def asgi(w: World, method: str, url: str, **kw: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=make_app(w))
        async with httpx.AsyncClient(transport=transport, base_url="http://world") as c:
            return await c.request(method, url, **kw)

    return asyncio.run(go())


def test_app_merges_query_form_and_json_bodies() -> None:
    w = world()
    r = asgi(w, "GET", "/api/echo.json?a=1&a=2&crtfc_key=k&blank=")
    echo = r.json()["echo"]
    assert echo["a"] == "2" and echo["blank"] == ""  # last value wins, blanks kept
    r = asgi(w, "POST", "/api/note.json?crtfc_key=k", data={"title": "폼"})
    assert r.json()["note_id"] == "1"
    r = asgi(w, "POST", "/api/note.json", json={"crtfc_key": "k", "title": "제이슨", "n": None})
    assert r.json()["note_id"] == "2"
    assert [n["title"] for n in w.state["notes"].values()] == ["폼", "제이슨"]
    r = asgi(w, "POST", "/api/note.json?crtfc_key=k", content=b"{broken",
             headers={"content-type": "application/json"})
    assert r.json()["status"] == "100"  # the body is ignored: title is missing


def test_app_status_headers_and_lengths() -> None:
    w = world(FaultRule("429", tool="list"))
    r = asgi(w, "GET", "/api/list.json", params={"crtfc_key": "k"})
    assert r.status_code == 429 and r.headers["retry-after"] == "1"
    r = asgi(w, "GET", "/api/company.json", params={"crtfc_key": "k", "corp_code": "00000001"})
    assert r.status_code == 200 and int(r.headers["content-length"]) == len(r.content)
    assert r.headers["content-type"].startswith("application/json")
    assert asgi(w, "GET", "/nowhere").status_code == 404


def test_app_lifespan_protocol() -> None:
    app = make_app(world())
    sent: list[dict[str, Any]] = []
    inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(msg: Any) -> None:
        sent.append(msg)

    asyncio.run(app({"type": "lifespan"}, receive, send))
    assert [m["type"] for m in sent] == ["lifespan.startup.complete",
                                         "lifespan.shutdown.complete"]
    asyncio.run(app({"type": "websocket"}, receive, send))  # ignored, nothing sent
    assert len(sent) == 2
