"""Fault injection: every kind through the engine, determinism of rates, ``after``, first
match wins, and FaultPlan loading errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.runtime.backends import import_file
from edgedsl.world.engine import World, state_hash
from edgedsl.world.faults import FAULT_KINDS, FaultPlan, FaultRule

FAKE = import_file(Path(__file__).with_name("fake_platform.py"))
KEY = "k"
LIST = ("GET", "/api/list.json", {"crtfc_key": KEY})
KRX = ("GET", "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
       {"serviceKey": KEY, "resultType": "json", "srtnCd": "1"})


def world(*rules: FaultRule, seed: int = 0, **kw: Any) -> World:
    return World(seed=seed, modules=[FAKE], faults=FaultPlan(rules), **kw)


def respond(w: World, call: tuple[str, str, dict[str, str]]) -> tuple[Any, float]:
    m, p, q = call
    return w.respond(m, p, dict(q), None)


def test_no_plan_no_fault() -> None:
    r, delay = respond(world(), LIST)
    assert r.status == 200 and delay == 0.0


def test_latency_is_returned_as_the_delay_and_the_answer_is_normal() -> None:
    w = world(FaultRule("latency", platform="dart", latency=0.25))
    r, delay = respond(w, LIST)
    assert delay == 0.25 and orjson.loads(r.body)["status"] == "000"
    _, delay = respond(w, KRX)  # another platform: untouched
    assert delay == 0.0


def test_timeout_delays_by_the_timeout() -> None:
    w = world(FaultRule("timeout", timeout=12.0, latency=1.0))
    r, delay = respond(w, LIST)
    assert delay == 12.0 and orjson.loads(r.body)["status"] == "000"
    w = world(FaultRule("timeout", timeout=0.5, latency=3.0))
    assert respond(w, LIST)[1] == 3.0  # the longer of the two


def test_5xx_and_429() -> None:
    r, _ = respond(world(FaultRule("5xx")), LIST)
    assert r.status == 503 and b"503" in r.body
    r, _ = respond(world(FaultRule("429", latency=0.1)), LIST)
    assert r.status == 429 and ("Retry-After", "1") in r.headers
    assert respond(world(FaultRule("429", latency=0.1)), LIST)[1] == 0.1


def test_quota_fault_is_the_family_quota_error() -> None:
    r, _ = respond(world(FaultRule("quota")), LIST)
    assert orjson.loads(r.body)["status"] == "020"
    r, _ = respond(world(FaultRule("quota")), KRX)
    assert r.content_type.startswith("text/xml") and b"<returnReasonCode>22<" in r.body


def test_gateway_fault_is_xml_reason_1_even_for_json() -> None:
    r, _ = respond(world(FaultRule("gateway")), KRX)
    assert r.status == 200 and r.content_type.startswith("text/xml")
    assert b"<returnReasonCode>1</returnReasonCode>" in r.body
    assert b"APPLICATION_ERROR" in r.body


def test_truncated_cuts_the_right_body() -> None:
    good, _ = respond(world(), LIST)
    r, _ = respond(world(FaultRule("truncated")), LIST)
    assert r.status == 200 and good.body.startswith(r.body) and len(r.body) < len(good.body)
    # the answer that would have been an error is truncated too (not a made-up body)
    bad = ("GET", "/api/company.json", {"crtfc_key": KEY})
    err, _ = respond(world(), bad)
    r, _ = respond(world(FaultRule("truncated")), bad)
    assert err.body.startswith(r.body) and len(r.body) < len(err.body)


def test_refusing_faults_do_not_run_a_write() -> None:
    note = ("POST", "/api/note.json", {"crtfc_key": KEY, "title": "t"})
    for kind in ("5xx", "429", "quota", "gateway"):
        w = world(FaultRule(kind, tool="note"))
        respond(w, note)
        assert w.state == {}, kind  # refused: nothing was written
    w = world(FaultRule("latency", tool="note", latency=0.01))
    respond(w, note)
    assert w.state == {"notes": {"1": {"title": "t", "body": ""}}}


def test_after_skips_the_first_calls() -> None:
    w = world(FaultRule("5xx", after=2))
    assert [respond(w, LIST)[0].status for _ in range(4)] == [200, 200, 503, 503]


def test_rate_is_deterministic_per_seed_and_call_number() -> None:
    def pattern(seed: int, n: int = 60) -> list[int]:
        w = world(FaultRule("5xx", rate=0.3), seed=seed)
        return [respond(w, LIST)[0].status for _ in range(n)]

    a, b = pattern(1), pattern(1)
    assert a == b
    assert 5 <= a.count(503) <= 35  # about 30 % of 60
    assert pattern(2) != a
    assert pattern(1, 200).count(503) > 0 and pattern(3, 60).count(200) > 0


def test_rate_zero_and_one() -> None:
    assert {respond(world(FaultRule("5xx", rate=0.0)), LIST)[0].status
            for _ in range(10)} == {200}
    w = world(FaultRule("5xx", rate=1.0))
    assert {respond(w, LIST)[0].status for _ in range(10)} == {503}


def test_patterns_and_first_match_wins() -> None:
    w = world(FaultRule("429", platform="d*", tool="company"), FaultRule("5xx", platform="*"))
    assert respond(w, ("GET", "/api/company.json",
                       {"crtfc_key": KEY, "corp_code": "00000001"}))[0].status == 429
    assert respond(w, LIST)[0].status == 503
    assert FaultRule("5xx", platform="kr?", tool="stock_*").matches("krx", "stock_price")
    assert not FaultRule("5xx", platform="krx").matches("dart", "list")


def test_faults_keep_world_state_deterministic() -> None:
    def run(seed: int) -> str:
        w = world(FaultRule("5xx", rate=0.5, tool="note"), seed=seed)
        for i in range(20):
            respond(w, ("POST", "/api/note.json", {"crtfc_key": KEY, "title": f"n{i}"}))
        return state_hash(w.state)

    assert run(4) == run(4)


def test_pick_directly() -> None:
    plan = FaultPlan((FaultRule("5xx", rate=0.5, after=1),))
    assert plan.pick(0, "p", "t", 1) is None  # within `after`
    fired = [n for n in range(2, 200) if plan.pick(0, "p", "t", n) is not None]
    assert fired == [n for n in range(2, 200) if plan.pick(0, "p", "t", n) is not None]
    assert 50 < len(fired) < 150


# ------------------------------------------------------------------ construction and loading


@pytest.mark.parametrize("kw", [
    {"kind": "gremlins"}, {"kind": "5xx", "rate": 1.5}, {"kind": "5xx", "rate": -0.1},
    {"kind": "latency", "latency": -1}, {"kind": "timeout", "timeout": -1},
    {"kind": "5xx", "rate": "0.5"}, {"kind": "5xx", "rate": True},
    {"kind": "5xx", "rate": float("nan")},
    {"kind": "5xx", "after": "3"}, {"kind": "5xx", "after": -1}, {"kind": "5xx", "after": 1.5},
    {"kind": "5xx", "platform": None}, {"kind": "latency", "latency": "slow"},
])
def test_bad_rules_are_refused(kw: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        FaultRule(**kw)
    with pytest.raises(ValueError, match="fault rule 0"):
        FaultPlan.from_obj({"rules": [kw]})


def test_from_obj_shapes() -> None:
    rules = [{"platform": "dart", "tool": "*", "kind": "latency", "latency": 0.1},
             {"platform": "*", "kind": "5xx", "rate": 0.05, "after": 3}]
    plan = FaultPlan.from_obj({"rules": rules})
    assert plan == FaultPlan.from_obj(rules)
    assert plan.rules[1] == FaultRule("5xx", rate=0.05, after=3)
    assert FaultPlan.from_obj({}).rules == () and FaultPlan.from_obj([]).rules == ()
    assert set(FAULT_KINDS) == {"latency", "timeout", "5xx", "429", "quota", "gateway",
                                "truncated"}


@pytest.mark.parametrize(("obj", "msg"), [
    ({"rules": {"kind": "5xx"}}, "is {"),
    ("5xx", "is {"),
    (None, "is {"),
    ({"rule": [{"kind": "5xx"}]}, "unknown field"),  # a misspelt "rules" is not "no faults"
    ([1], "rule 0 is not an object"),
    ([{"kind": "5xx"}, {"kind": "5xx", "sometimes": True}], "rule 1: unknown field"),
    ([{"rate": 0.5}], "rule 0"),  # no kind
])
def test_from_obj_errors(obj: Any, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        FaultPlan.from_obj(obj)


def test_load(tmp_path: Path) -> None:
    p = tmp_path / "plan.json"
    p.write_text('{"rules": [{"kind": "429", "platform": "krx"}]}')
    assert FaultPlan.load(p).rules == (FaultRule("429", platform="krx"),)
    p.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read fault plan"):
        FaultPlan.load(p)
    with pytest.raises(ValueError, match="cannot read fault plan"):
        FaultPlan.load(tmp_path / "missing.json")


@pytest.mark.parametrize("work", [0.05, 0.3])
def test_the_worlds_work_is_part_of_the_latency(work: float,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Served, a latency fault is the call's latency: the app sleeps only what the world's own
    work left of it (none when the work took longer), so an in-process world does not charge
    its work to the client on top of the injected latency."""
    import asyncio
    import time

    import httpx

    from edgedsl.world import app as world_app

    w = world(FaultRule("latency", platform="dart", latency=0.2))
    real = w.respond

    def slow(*a: Any, **kw: Any) -> Any:
        time.sleep(work)  # the world's work, at least this long
        return real(*a, **kw)

    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    monkeypatch.setattr(w, "respond", slow)
    monkeypatch.setattr(world_app.asyncio, "sleep", sleep)

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=world_app.make_app(w))
        async with httpx.AsyncClient(transport=transport, base_url="http://world") as c:
            return await c.get(LIST[1], params=LIST[2])

    r = asyncio.run(call())
    assert r.status_code == 200 and orjson.loads(r.content)["status"] == "000"
    if work < 0.2:
        assert len(slept) == 1 and 0 < slept[0] <= 0.2 - work
    else:
        assert slept == []
