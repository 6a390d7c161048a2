"""The world's limits (``edgedsl/world/limits.py``), in process: request bodies read a chunk at a
time and refused at the limit, URL length and parameter count, refusals in each family's error
envelope and classified structural by the runtime's normalisation, per-key and world-wide state
limits of the write tools, the bounded key table and selection memo, and determinism.

``test_limits_served.py`` does the body limit again through a real ``edgedsl world serve``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from xml.etree import ElementTree

import httpx
import orjson
import pytest

import edgedsl
from edgedsl.plan.model import ToolSpec
from edgedsl.runtime.backends import ToolFailure
from edgedsl.runtime.http import make_world_backend
from edgedsl.runtime.normalize import normalize
from edgedsl.world import engine
from edgedsl.world import envelopes as env
from edgedsl.world.app import make_app
from edgedsl.world.engine import World, state_hash
from edgedsl.world.limits import BODY_BYTES, Limits
from edgedsl.world.platforms import assembly, nec

BASE = "/portal/openapi/"
REGIST = BASE + "lgsltpaOpnRegist"
CHUNK = 64 << 10


def a_world(**limits: int) -> World:
    """A world of the assembly (and the NEC it reads) with these limits."""
    return World(seed=0, modules=[assembly, nec], limits=Limits(**limits))


class Counted:
    """A request body streamed lazily: ``total`` bytes in ``CHUNK``-byte chunks (one bytes
    object sent again and again, so the test holds one chunk whatever ``total`` is); ``sent``
    counts the chunks the receiver asked for."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.sent = 0
        self._chunk = b"x" * CHUNK

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.total // CHUNK):
            self.sent += 1
            yield self._chunk


async def _request(app: Any, method: str, url: str, **kw: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://world.test") as c:
        return await c.request(method, url, **kw)


def request(w: World, method: str, url: str, **kw: Any) -> httpx.Response:
    """One request to ``w``'s ASGI app, in process."""
    return asyncio.run(_request(make_app(w), method, url, **kw))


def notice_bill(w: World) -> str:
    """A bill in 입법예고 (one an opinion can be registered on)."""
    r = w.call("GET", BASE + "nknalejkafmvgzmpt", {"KEY": "k", "Type": "json", "pSize": "1"})
    return str(orjson.loads(r.body)["nknalejkafmvgzmpt"][1]["row"][0]["BILL_ID"])


def opinion(bill: str, key: str = "k", **over: str) -> dict[str, str]:
    """The form of one opinion registration."""
    return {"KEY": key, "Type": "json", "BILL_ID": bill, "WRTR_NM": "홍길동",
            "SBJCT": "찬성합니다", "CN": "꼭 필요한 법입니다.", "AGRE_DSAGRE": "찬성", **over}


def result(resp: Any) -> dict[str, str]:
    """The hub family's top-level ``RESULT`` of an answer (httpx or wire response)."""
    body = resp.content if isinstance(resp, httpx.Response) else resp.body
    return dict(orjson.loads(body)["RESULT"])


# ------------------------------------------------------------------ request bodies


def test_a_streamed_body_is_read_only_up_to_the_limit() -> None:
    w = a_world()
    body = Counted(300 << 20)  # 300 MiB offered, never made
    r = request(w, "POST", REGIST + "?Type=json&KEY=k", content=body)
    assert r.status_code == 413 and r.headers["connection"] == "close"
    assert result(r)["CODE"] == "ERROR-413" and "1,048,576 bytes" in result(r)["MESSAGE"]
    # the chunk that would pass 1 MiB is the last one asked for
    assert body.sent == BODY_BYTES // CHUNK + 1
    assert w.state == {}


def test_a_declared_length_over_the_limit_is_refused_unread() -> None:
    w = a_world()
    body = Counted(300 << 20)
    r = request(w, "POST", REGIST + "?Type=json&KEY=k", content=body,
                headers={"content-length": str(300 << 20)})
    assert r.status_code == 413 and result(r)["CODE"] == "ERROR-413"
    assert body.sent == 0


def test_a_body_of_exactly_the_limit_is_answered() -> None:
    w = a_world(body_bytes=4096)
    bill = notice_bill(w)
    form = httpx.QueryParams(opinion(bill, pad="")).__str__().encode()
    exact = form + b"x" * (4096 - len(form))  # the padding parameter fills the limit
    r = request(w, "POST", REGIST, content=exact,
                headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200 and result_rows(r)[0]["OPN_ID"] == "OPN0000001"
    over = request(w, "POST", REGIST + "?Type=json", content=exact + b"x",
                   headers={"content-type": "application/x-www-form-urlencoded"})
    assert over.status_code == 413 and result(over)["CODE"] == "ERROR-413"
    assert len(w.state["assembly"]["opinions"]) == 1


def result_rows(r: httpx.Response) -> list[dict[str, Any]]:
    """The rows of a hub answer to an opinion write."""
    return list(orjson.loads(r.content)["lgsltpaOpnRegist"][1]["row"])


def drive(w: World, scope: dict[str, Any], messages: list[dict[str, Any]]) -> list[Any]:
    """Run the world's ASGI app on one request whose body arrives as ``messages``; what it
    sent back."""
    incoming = iter(messages)
    sent: list[Any] = []

    async def receive() -> Any:
        return next(incoming)

    async def send(msg: Any) -> None:
        sent.append(msg)

    asyncio.run(make_app(w)(scope, receive, send))
    return sent


def test_a_client_gone_before_its_body_ends_is_not_answered_and_writes_nothing() -> None:
    w = a_world()
    bill = notice_bill(w)
    form = httpx.QueryParams(opinion(bill)).__str__().encode()
    scope = {"type": "http", "method": "POST", "path": REGIST, "query_string": b"",
             "headers": [(b"content-type", b"application/x-www-form-urlencoded")]}
    sent = drive(w, scope, [{"type": "http.request", "body": form, "more_body": True},
                            {"type": "http.disconnect"}])
    assert sent == [] and w.state == {}


@pytest.mark.parametrize("declared", [b"\xb2", b"-1", b"1e9", b""])
def test_a_content_length_that_is_not_a_number_is_ignored(declared: bytes) -> None:
    w = a_world(body_bytes=64)
    scope = {"type": "http", "method": "POST", "path": REGIST, "query_string": b"Type=json",
             "headers": [(b"content-length", declared)]}
    sent = drive(w, scope, [{"type": "http.request", "body": b"x" * 65, "more_body": False}])
    assert sent[0]["status"] == 413  # the body itself is measured


# ------------------------------------------------------------------ URL and parameters


def test_a_url_over_the_limit_is_414() -> None:
    w = a_world(url_bytes=2048)
    ok = request(w, "GET", BASE + "nwvrqwxyaytdsfvhu",
                 params={"KEY": "k", "Type": "json", "HG_NM": "x" * 1500})
    assert ok.status_code == 200
    r = request(w, "GET", BASE + "nwvrqwxyaytdsfvhu",
                params={"KEY": "k", "Type": "json", "HG_NM": "x" * 2100})
    assert r.status_code == 414 and r.headers["connection"] == "close"
    # the refusal reads the query's first url_bytes to find the format asked for (JSON)
    assert result(r)["CODE"] == "ERROR-413" and "2,048 bytes" in result(r)["MESSAGE"]
    r = request(w, "GET", BASE + "nwvrqwxyaytdsfvhu",
                params={"KEY": "k", "HG_NM": "x" * 2100, "Type": "json"})
    assert r.status_code == 414 and r.content.startswith(b"<?xml")  # past it: XML


def test_too_many_parameters_are_400_in_the_query_and_in_the_body() -> None:
    w = a_world(params=16)
    many = {f"p{i}": "1" for i in range(17)}
    r = request(w, "GET", BASE + "nwvrqwxyaytdsfvhu", params={"Type": "json", **many})
    assert r.status_code == 400
    assert "more than 16 parameters in the query" in result(r)["MESSAGE"]
    # the query's count leaves the rest to the body: 4 + 13 > 16
    query = "?Type=json&KEY=k&a=1&b=2"
    form = "&".join(f"f{i}=1" for i in range(13))
    r = request(w, "POST", REGIST + query, content=form.encode(),
                headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and result(r)["CODE"] == "ERROR-413"
    js = orjson.dumps({f"f{i}": 1 for i in range(13)})
    r = request(w, "POST", REGIST + query, content=js,
                headers={"content-type": "application/json"})
    assert r.status_code == 400 and b"in the body" in r.content
    assert w.state == {}


# ------------------------------------------------------------------ envelopes per family

# one tool of each family (and 행안부's gateway-hosted hub), as the catalogs declare them
FAMILY_TOOLS = {"data_go_kr": "fsc.stock_prices", "hub": "neis.schools", "mois":
                "mois.getStanReginCdList", "seoul": "seoul.tbLnOpendataRtmsV", "dart":
                "dart.company", "ex": "ex.rest_areas", "juso": "juso.addrLinkApi",
                "seoul_bus": "seoulbus.stations", "law": "law.law_search"}


@pytest.fixture(scope="module")
def full() -> tuple[World, Any]:
    """The ten platforms (no answer is computed: only routing and envelopes) and their
    catalogs."""
    uses = "".join(f"use {m}\n" for m in ("fsc", "neis", "region", "seoul", "dart", "ex",
                                          "bus", "law"))
    return World(seed=0), edgedsl.check(uses).catalog


def family(full: tuple[World, Any], qualname: str) -> tuple[Any, ToolSpec]:
    world, catalog = full
    platform, name = qualname.split(".")
    ep = world.endpoint_for(platform, name)
    assert ep is not None
    return ep, ToolSpec.of(catalog.platforms[platform].tools[name], catalog)


def structural(tool: ToolSpec, resp: Any) -> ToolFailure:
    """The failure the runtime's normalisation makes of a wire answer; it must be one."""
    with pytest.raises(ToolFailure) as got:
        normalize(tool, resp.status, resp.content_type, resp.body)
    return got.value


@pytest.mark.parametrize("fam", sorted(FAMILY_TOOLS))
def test_each_family_refuses_in_its_envelope_and_the_runtime_calls_it_structural(
        full: tuple[World, Any], fam: str) -> None:
    ep, tool = family(full, FAMILY_TOOLS[fam])
    for status in (413, 414, 400):
        resp = env.refused(ep, ep.path, "json", status, "a request body of more than 1 bytes")
        assert resp.status == status and ("Connection", "close") in resp.headers
        f = structural(tool, resp)
        assert (f.kind, f.code) == ("structural", "R503")
        assert f"HTTP {status}" in f.message
        # the envelope's words: the data.go.kr gateway has a reason code only, law.go.kr an
        # HTML page (the status says enough)
        said = {"data_go_kr": "INVALID_REQUEST_PARAMETER_ERROR",
                "mois": "INVALID_REQUEST_PARAMETER_ERROR", "law": ""}.get(fam,
                                                                          "more than 1 bytes")
        assert said in f.message, f.message
    # the in-body codes, should a gateway answer them with HTTP 200, are structural too
    for kind in ("too_large", "too_long", "state_full"):
        for fmt in ("json", "xml"):
            f = structural(tool, env.error(ep, kind, fmt, "a limit"))
            assert (f.kind, f.code) == ("structural", "R503"), (kind, fmt, f.message)


def test_the_refusal_bodies_of_each_family(full: tuple[World, Any]) -> None:
    def body(fam: str, fmt: str = "json") -> Any:
        ep, _ = family(full, FAMILY_TOOLS[fam])
        resp = env.refused(ep, ep.path, fmt, 413, "LIMIT")
        return orjson.loads(resp.body) if resp.content_type.startswith("application/json") \
            else resp.body.decode()
    gateway = ElementTree.fromstring(body("data_go_kr"))  # XML whatever was asked
    assert gateway.tag == "OpenAPI_ServiceResponse"
    assert gateway.findtext("cmmMsgHeader/returnReasonCode") == "10"
    assert ElementTree.fromstring(body("mois")).findtext(
        "cmmMsgHeader/returnAuthMsg") == "INVALID_REQUEST_PARAMETER_ERROR"
    assert body("hub")["RESULT"]["CODE"] == "ERROR-413" and "LIMIT" in body("hub")["RESULT"][
        "MESSAGE"]
    assert body("seoul")["RESULT"]["CODE"] == "ERROR-413"
    assert body("dart")["status"] == "101" and "LIMIT" in body("dart")["message"]
    assert body("ex")["code"] == "ERROR" and "허용 한도" in body("ex")["message"] \
        and "LIMIT" in body("ex")["message"]
    assert body("juso")["results"]["common"]["errorCode"] == "E0010"
    assert body("seoul_bus")["msgHeader"]["headerCd"] == "2"
    assert "<html>" in body("law") and "허용 한도" in body("law")


def test_a_refusal_on_an_unknown_path() -> None:
    w = a_world(body_bytes=16)
    r = request(w, "POST", "/9760000/NoSuchService/op", content=b"x" * 17)
    assert r.status_code == 413 and b"OpenAPI_ServiceResponse" in r.content
    r = request(w, "POST", "/nowhere", content=b"x" * 17)
    assert r.status_code == 413 and b"<html>" in r.content


# ------------------------------------------------------------------ write state


def test_a_field_over_its_length_is_refused_not_cut() -> None:
    w = a_world()
    bill = notice_bill(w)
    h0 = state_hash(w.state)
    refused = w.call("POST", REGIST, opinion(bill, CN="가" * 4001))
    assert refused.status == 200 and result(refused)["CODE"] == "ERROR-340"
    assert "CN: 4,001 characters, 4,000 at most" in result(refused)["MESSAGE"]
    assert state_hash(w.state) == h0
    ok = w.call("POST", REGIST, opinion(bill, CN="가" * 4000))
    rec = orjson.loads(ok.body)["lgsltpaOpnRegist"][1]["row"][0]
    assert rec["CN"] == "가" * 4000
    # a parameter the tool does not declare is bounded by field_chars
    refused = w.call("POST", REGIST, opinion(bill, extra="x" * 4001))
    assert result(refused)["CODE"] == "ERROR-340"
    assert len(w.state["assembly"]["opinions"]) == 1


def test_a_key_holds_at_most_its_items_and_other_keys_are_unaffected() -> None:
    w = a_world(items_per_key=3)
    bill = notice_bill(w)
    for _ in range(3):
        assert "lgsltpaOpnRegist" in orjson.loads(w.call("POST", REGIST, opinion(bill)).body)
    full = w.call("POST", REGIST, opinion(bill))
    assert result(full) == {"CODE": "INFO-300", "MESSAGE": "인증키의 등록 한도를 넘어 더 "
                                                          "등록할 수 없습니다. (items per key: 3 "
                                                          "at most)"}
    assert len(w.state["assembly"]["opinions"]) == 3
    other = orjson.loads(w.call("POST", REGIST, opinion(bill, key="other")).body)
    assert other["lgsltpaOpnRegist"][1]["row"][0]["OPN_ID"] == "OPN0000004"
    # a withdrawal changes an item in place: allowed, and it frees nothing
    gone = w.call("POST", BASE + "lgsltpaOpnDelete",
                  {"KEY": "k", "Type": "json", "OPN_ID": "OPN0000001", "WRTR_NM": "홍길동"})
    assert orjson.loads(gone.body)["lgsltpaOpnDelete"][1]["row"][0]["DEL_YN"] == "Y"
    assert result(w.call("POST", REGIST, opinion(bill)))["CODE"] == "INFO-300"


def test_refused_writes_take_no_room() -> None:
    w = a_world(items_per_key=1)
    bill = notice_bill(w)
    bad = w.call("POST", REGIST, opinion(bill, AGRE_DSAGRE="모름"))
    assert result(bad)["CODE"] == "ERROR-331"  # the service's own refusal
    assert result(w.call("POST", REGIST, opinion(bill, CN="가" * 5000)))["CODE"] == "ERROR-340"
    assert "lgsltpaOpnRegist" in orjson.loads(w.call("POST", REGIST, opinion(bill)).body)


def test_the_world_holds_at_most_items_total() -> None:
    w = a_world(items_per_key=10, items_total=4)
    bill = notice_bill(w)
    for key in ("a", "a", "b", "c"):
        assert "lgsltpaOpnRegist" in orjson.loads(
            w.call("POST", REGIST, opinion(bill, key=key)).body)
    for key in ("a", "d"):
        got = result(w.call("POST", REGIST, opinion(bill, key=key)))
        assert got["CODE"] == "INFO-300" and "items in the world: 4 at most" in got["MESSAGE"]
    assert len(w.state["assembly"]["opinions"]) == 4


def test_two_hundred_megabyte_opinions_are_refused_before_any_is_held() -> None:
    """The probe of the issue: 200 opinions of 1 MiB each, through the ASGI app."""
    w = a_world()
    bill = notice_bill(w)
    big = opinion(bill, CN="x" * (1 << 20))
    for _ in range(200):
        r = request(w, "POST", REGIST + "?Type=json", data=big)
        assert r.status_code == 413
    assert w.state == {}


# ------------------------------------------------------------------ keys and the memo


def test_the_world_counts_a_bounded_number_of_keys() -> None:
    w = a_world(keys=2, key_chars=64)
    members = BASE + "nwvrqwxyaytdsfvhu"

    def code(key: str) -> str:
        r = w.call("GET", members, {"KEY": key, "Type": "json", "pSize": "1"})
        body = orjson.loads(r.body)
        return str(body["RESULT"]["CODE"]) if "RESULT" in body else "INFO-000"

    assert [code("a"), code("b"), code("c"), code("a"), code("b")] == \
        ["INFO-000", "INFO-000", "ERROR-290", "INFO-000", "INFO-000"]
    assert code("x" * 65) == "ERROR-290"
    assert {k for (_p, _t, k) in w._calls} == {"a", "b"}


def test_a_selection_with_long_parameters_is_not_memoised() -> None:
    w = a_world()
    memo = w._data.memo
    path = BASE + "nzmimeepazxkubdpn"
    w.call("GET", path, {"KEY": "k", "Type": "json", "AGE": "22", "BILL_NAME": "도로"})
    n = len(memo)
    assert any(("BILL_NAME", "도로") in k[4] for k in memo)
    w.call("GET", path, {"KEY": "k", "Type": "json", "AGE": "22",
                         "BILL_NAME": "도" * (engine.MEMO_KEY_CHARS + 1)})
    assert len(memo) == n


# ------------------------------------------------------------------ the world backend


def _run(src: str, w: World) -> Any:
    plan = edgedsl.compile(src)
    return edgedsl.run(plan, make_world_backend(world=w))[0]


def _opinion_program(bill: str, cn: str) -> str:
    return f'''use assembly

trajectory leave_opinion "입법예고 중인 법률안에 의견을 남기면 받는 의견 번호는?" {{
  op = assembly.submit_opinion(
    BILL_ID: "{bill}",
    WRTR_NM: "홍길동",
    SBJCT: "의견",
    CN: "{cn}",
    AGRE_DSAGRE: "찬성",
  )
  answer op.OPN_ID
}}
'''


def _failure(res: Any) -> tuple[str, str]:
    assert not res.ok
    (d,) = [d for d in res.diagnostics if d.code.startswith("R5")]
    return d.code, d.message


def test_the_world_backend_reports_oversized_and_overlong_writes_as_r503() -> None:
    w = a_world()
    bill = notice_bill(w)
    ok = _run(_opinion_program(bill, "필요합니다"), w)
    assert ok.ok and ok.answer == "OPN0000001"
    # 120,000 Hangul characters: a 1 MiB+ URL-encoded form → 413
    code, msg = _failure(_run(_opinion_program(bill, "가" * 120_000), w))
    assert code == "R503" and "HTTP 413" in msg
    # 4,001 characters: under the body limit, over the field's length → ERROR-340
    code, msg = _failure(_run(_opinion_program(bill, "가" * 4001), w))
    assert code == "R503" and "ERROR-340" in msg
    assert len(w.state["assembly"]["opinions"]) == 1


def test_the_world_backend_reports_a_url_over_the_limit_as_r503() -> None:
    w = a_world()
    src = f'''use assembly

trajectory who "이름이 아주 긴 의원은?" {{
  m = assembly.members(HG_NM: "{'가' * 1000}")
  answer count(m)
}}
'''
    code, msg = _failure(_run(src, w))
    assert code == "R503" and "HTTP 414" in msg


# ------------------------------------------------------------------ determinism


def _transcript(w: World, bill: str) -> list[bytes]:
    out = []
    for i in range(4):
        out.append(w.call("POST", REGIST, opinion(bill, key="ab"[i % 2])).body)
    out.append(w.call("POST", REGIST, opinion(bill, CN="x" * 4001)).body)
    return out


def test_limits_are_deterministic() -> None:
    w1, w2 = a_world(items_per_key=1, items_total=3), a_world(items_per_key=1, items_total=3)
    bill = notice_bill(w1)
    assert _transcript(w1, bill) == _transcript(w2, bill)
    assert state_hash(w1.state) == state_hash(w2.state)


@pytest.mark.parametrize("bad", [{"body_bytes": 0}, {"items_total": -1}, {"keys": True}])
def test_limits_must_be_positive_integers(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        Limits(**bad)
