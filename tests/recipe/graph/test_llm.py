"""The OpenAI-compatible chat client (edgedsl.recipe.llm) against a fake endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gc
import logging
import pickle
from typing import Any

import pytest
from pydantic import BaseModel, Field

from edgedsl.recipe.llm import (
    DEFAULT_KEY_ENV,
    LLMClient,
    LLMConfig,
    LLMError,
    LLMUsage,
    ReplyError,
    parse_json_reply,
)
from tests.recipe.graph.fake_llm import FakeLLM, Reply, Seen, fail, free_port_url, ok

KEY = "sk-FAKE-0123456789abcdef-DO-NOT-LEAK"


class Verdict(BaseModel):
    score: float = Field(ge=0.0, le=1.0)
    label: str = ""


@pytest.fixture
def url(llm_served: tuple[FakeLLM, str]) -> str:
    return llm_served[1]


def config(url: str, **kw: Any) -> LLMConfig:
    kw.setdefault("backoff", 0.001)
    kw.setdefault("max_backoff", 0.01)
    return LLMConfig(base_url=url, model="fake-model", **kw)


def client(url: str, *, key: str | None = KEY, **kw: Any) -> LLMClient:
    env = {DEFAULT_KEY_ENV: key} if key is not None else {}
    return LLMClient(config(url, **kw), environ=env, seed=0)


USER = [{"role": "user", "content": "Rate this."}]


def ask(c: LLMClient, **kw: Any) -> Any:
    async def go() -> Any:
        async with c:
            return await c.complete_json_reply(USER, Verdict, **kw)
    return asyncio.run(go())


# ----------------------------------------------------------------------------- JSON replies


def test_valid_reply_and_request_shape(fake: FakeLLM, url: str) -> None:
    fake.script(ok({"score": 0.75, "label": "fine"}))
    reply = ask(client(url))
    assert reply.value == Verdict(score=0.75, label="fine")
    assert reply.attempts == 1
    assert reply.usage.requests == 1 and reply.usage.malformed == 0
    assert reply.usage.prompt_tokens > 0
    (seen,) = fake.requests
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body["model"] == "fake-model"
    assert seen.body["temperature"] == 0.0
    assert seen.body["response_format"] == {"type": "json_object"}
    assert seen.messages == USER


def test_json_mode_off_sends_no_response_format(fake: FakeLLM, url: str) -> None:
    fake.script(ok({"score": 0.5}))
    ask(client(url, json_mode=False, max_tokens=64))
    assert "response_format" not in fake.requests[0].body
    assert fake.requests[0].body["max_tokens"] == 64


def test_fenced_and_chatty_json_is_accepted(fake: FakeLLM, url: str) -> None:
    fake.script(ok('Sure!\n```json\n{"score": 0.25}\n```\nHope this helps.'),
                ok('I think {"score": 0.5, "label": "x"} is right.'))
    c = client(url)

    async def go() -> list[Verdict]:
        async with c:
            return [await c.complete_json(USER, Verdict) for _ in range(2)]
    assert asyncio.run(go()) == [Verdict(score=0.25), Verdict(score=0.5, label="x")]
    assert c.usage.malformed == 0 and c.usage.calls == 2


def test_malformed_reply_is_retried_with_the_error_fed_back(fake: FakeLLM, url: str) -> None:
    fake.script(ok('{"score": 0.9,'), ok({"score": 0.9}))
    reply = ask(client(url))
    assert reply.value.score == 0.9 and reply.attempts == 2
    assert reply.usage.malformed == 1 and reply.usage.requests == 2
    first, second = fake.requests
    assert first.messages == USER
    assert second.messages[:2] == [*USER, {"role": "assistant", "content": '{"score": 0.9,'}]
    assert second.messages[2]["role"] == "user"
    assert "not valid JSON" in second.messages[2]["content"]


def test_schema_invalid_reply_feeds_back_the_validation_error(fake: FakeLLM, url: str) -> None:
    fake.script(ok({"score": 1.7}), ok({"label": "no score"}), ok({"score": 1}))
    reply = ask(client(url))
    assert reply.value.score == 1.0 and reply.attempts == 3
    fed = [s.messages[-1]["content"] for s in fake.requests[1:]]
    assert "score" in fed[0] and "less than or equal to 1" in fed[0] and "1.7" in fed[0]
    assert "score: Field required" in fed[1]
    # the conversation grows: each rejected reply and its correction stay in it
    assert len(fake.requests[2].messages) == len(USER) + 4


def test_gives_up_after_the_last_attempt(fake: FakeLLM, url: str) -> None:
    fake.script(ok("no"), ok("[1, 2]"), ok({"score": -1}))
    c = client(url)
    with pytest.raises(LLMError) as info:
        ask(c)
    err = info.value
    assert err.kind == "malformed"
    assert "fake-model" in str(err) and "3 attempt" in str(err)
    assert "greater than or equal to 0" in str(err)  # the last problem
    assert len(fake.requests) == 3
    assert err.usage == LLMUsage(calls=1, requests=3, malformed=3, failures=1,
                                 prompt_tokens=err.usage.prompt_tokens,
                                 completion_tokens=err.usage.completion_tokens)
    assert c.usage.failures == 1
    again = pickle.loads(pickle.dumps(err))  # crosses process boundaries intact
    assert (str(again), again.kind, again.usage) == (str(err), err.kind, err.usage)


def test_attempts_argument_overrides_the_configuration(fake: FakeLLM, url: str) -> None:
    fake.script(ok("x"), ok("y"))
    with pytest.raises(LLMError, match="1 attempt"):
        ask(client(url, attempts=5), attempts=1)
    assert len(fake.requests) == 1


def test_empty_content_is_malformed(fake: FakeLLM, url: str) -> None:
    fake.script(Reply(content=None), ok({"score": 0.1}))
    assert ask(client(url)).usage.malformed == 1


# ----------------------------------------------------------------------------- HTTP failures


@pytest.mark.parametrize("first", [fail(500), fail(502, "bad gateway"),
                                   fail(429, "slow down", retry_after="0"),
                                   fail(503, retry_after="Wed, 21 Oct 2015 07:28:00 GMT")])
def test_5xx_and_429_are_retried(fake: FakeLLM, url: str, first: Reply) -> None:
    fake.script(first, first, ok({"score": 0.5}))
    reply = ask(client(url))
    assert reply.value.score == 0.5 and reply.attempts == 1
    assert reply.usage.retries == 2 and reply.usage.requests == 3
    assert reply.usage.malformed == 0


def test_retries_run_out(fake: FakeLLM, url: str) -> None:
    fake.script(*[fail(503, "overloaded")] * 5)
    with pytest.raises(LLMError) as info:
        ask(client(url, retries=2))
    assert info.value.kind == "transport" and info.value.status == 503
    assert "3 request(s)" in str(info.value) and "overloaded" in str(info.value)
    assert len(fake.requests) == 3


def test_connection_refused_is_retried_then_raised() -> None:
    c = client(free_port_url(), retries=2)
    with pytest.raises(LLMError) as info:
        ask(c)
    assert info.value.kind == "transport" and info.value.status is None
    assert info.value.usage.requests == 3 and info.value.usage.retries == 2
    assert "ConnectError" in str(info.value)


@pytest.mark.parametrize(("status", "hint"), [(401, "EDGEDSL_LLM_KEY"), (403, "EDGEDSL_LLM_KEY"),
                                              (404, "fake-model"), (400, "")])
def test_other_4xx_are_refused_at_once(fake: FakeLLM, url: str, status: int, hint: str) -> None:
    fake.script(fail(status, "nope"), ok({"score": 0.5}))
    with pytest.raises(LLMError) as info:
        ask(client(url))
    assert info.value.kind == "refused" and info.value.status == status
    assert f"HTTP {status}" in str(info.value) and hint in str(info.value)
    assert len(fake.requests) == 1


def test_not_a_chat_completion_is_a_protocol_error(fake: FakeLLM, url: str) -> None:
    fake.script(Reply(status=200, body=b"<html>hello</html>"))
    with pytest.raises(LLMError) as info:
        ask(client(url))
    assert info.value.kind == "protocol" and "not JSON" in str(info.value)
    fake.script(Reply(status=200, body=b'{"object": "list", "data": []}'))
    with pytest.raises(LLMError, match=r"no choices\[0\]\.message") as info:
        ask(client(url))
    assert info.value.kind == "protocol"


# ----------------------------------------------------------------------------- the key


def _echo_key(seen: Seen) -> Reply:
    return fail(401, f"invalid key in header {seen.headers.get('authorization')!r}")


def test_key_never_leaks(fake: FakeLLM, url: str, caplog: pytest.LogCaptureFixture,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    c = LLMClient(config(url, key_env="MY_LLM_KEY", retries=1), seed=0)
    texts = [repr(c), repr(c.config), str(c.config.describe())]

    # an endpoint that echoes the key in an error body
    fake.handler = _echo_key
    with pytest.raises(LLMError) as info:
        ask(c)
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert "***" in str(info.value) and "MY_LLM_KEY" in str(info.value)
    texts += [str(info.value), repr(info.value), repr(info.value.args)]

    # a model that echoes the key in a reply that fails validation, then 5xx that echo it
    fake.reset()
    fake.script(*[ok({"score": KEY})] * 3)
    with pytest.raises(LLMError) as info:
        ask(c)
    assert "***" in str(info.value)
    texts += [str(info.value), repr(info.value)]
    fake.reset()
    fake.script(*[fail(500, f"boom {KEY}")] * 2)
    with pytest.raises(LLMError) as info:
        ask(c)
    texts += [str(info.value), repr(info.value)]

    texts += [r.getMessage() for r in caplog.records] + [caplog.text]
    assert caplog.records, "the retries and failures should have been logged"
    leaks = [t for t in texts if KEY in t or KEY[:16] in t]
    assert not leaks


def test_a_key_echoed_json_escaped_never_leaks(fake: FakeLLM, url: str) -> None:
    import json

    key = "sk-FAKE+a/b==<>&'"
    fake.script(*[fail(500, json.dumps({"error": f"bad key {key}"}).replace("/", "\\/"))] * 2)
    with pytest.raises(LLMError) as info:
        ask(client(url, key=key, retries=1))
    text = str(info.value) + repr(info.value)
    for form in (key, json.dumps(key)[1:-1], json.dumps(key)[1:-1].replace("/", "\\/")):
        assert form not in text
    assert "***" in text
    with pytest.raises(ValueError, match="printable ASCII") as bad:
        client(url, key="sk-열쇠")
    assert "열쇠" not in str(bad.value)


def test_no_key_sends_no_authorization(fake: FakeLLM, url: str) -> None:
    fake.script(ok({"score": 0.5}), fail(401))
    c = client(url, key=None)
    assert not c.has_key and "unset" in repr(c)
    ask(c)
    assert "authorization" not in fake.requests[0].headers
    with pytest.raises(LLMError, match="it is not set"):
        ask(c)


# ----------------------------------------------------------------------------- concurrency


def test_concurrency_cap(fake: FakeLLM, url: str) -> None:
    fake.handler = lambda seen: ok({"score": 0.5})
    fake.hold_until = 3  # the first requests wait until three are in flight (or 2 s pass)
    c = client(url, max_concurrency=3)

    async def go() -> list[Verdict]:
        async with c:
            return await asyncio.gather(*(c.complete_json(USER, Verdict) for _ in range(12)))
    assert len(asyncio.run(go())) == 12
    assert fake.max_in_flight == 3
    assert c.usage.calls == 12 and c.usage.requests == 12


@pytest.mark.filterwarnings("error::ResourceWarning",
                            "error::pytest.PytestUnraisableExceptionWarning")
def test_one_client_serves_successive_event_loops(fake: FakeLLM, url: str) -> None:
    fake.handler = lambda seen: ok({"score": 0.5})
    c = client(url)

    async def once() -> float:
        return (await c.complete_json(USER, Verdict)).score
    assert asyncio.run(once()) == 0.5
    assert asyncio.run(once()) == 0.5  # the first loop's pool is gone; a new one is made
    assert c.usage.calls == 2

    async def plain() -> str:
        async with c:
            return (await c.complete(USER)).content
    assert asyncio.run(plain()) == '{"score":0.5}'
    assert "response_format" not in fake.requests[-1].body
    gc.collect()  # a connection left open would warn here (an error under this test's filter)


# ----------------------------------------------------------------------------- configuration


def test_config_from_flags_and_validation() -> None:
    assert LLMConfig.from_flags(None, None) is None
    cfg = LLMConfig.from_flags("http://127.0.0.1:8000/v1/", "qwen", timeout=5.0,
                               max_concurrency=None)
    assert cfg is not None and cfg.timeout == 5.0 and cfg.max_concurrency == 4
    assert cfg.key_env == "EDGEDSL_LLM_KEY"
    with pytest.raises(ValueError, match="--llm-url needs --llm-model"):
        LLMConfig.from_flags("http://127.0.0.1:8000/v1", None)
    with pytest.raises(ValueError, match="--llm-model needs --llm-url"):
        LLMConfig.from_flags(None, "qwen")
    with pytest.raises(ValueError, match="unknown LLM option"):
        LLMConfig.from_flags("http://x/v1", "m", colour="red")
    for bad in ({"base_url": "ftp://x"}, {"base_url": "127.0.0.1:8000"}, {"model": " "},
                {"key_env": "MY KEY"}, {"max_concurrency": 0}, {"attempts": 0},
                {"timeout": 0}, {"temperature": 3}):
        kw: dict[str, Any] = {"base_url": "http://127.0.0.1/v1", "model": "m", **bad}
        with pytest.raises(ValueError):
            LLMConfig(**kw)
    described = LLMConfig(base_url="http://user:secret@127.0.0.1:9/v1", model="m").describe()
    assert "secret" not in str(described) and described["model"] == "m"


def test_parse_json_reply() -> None:
    assert parse_json_reply('```\n{"score": 0}\n```', Verdict) == Verdict(score=0)
    assert parse_json_reply('```JSON {"score": 1}```', Verdict) == Verdict(score=1)
    with pytest.raises(ReplyError, match="empty"):
        parse_json_reply("  ", Verdict)
    with pytest.raises(ReplyError, match="not valid JSON"):
        parse_json_reply("{score: 1}", Verdict)
    with pytest.raises(ReplyError, match="JSON list"):
        parse_json_reply("[]", Verdict)
    with pytest.raises(ReplyError, match="score"):
        parse_json_reply('{"score": "high"}', Verdict)
