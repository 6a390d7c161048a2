"""The scripted OpenAI-compatible server (tests/bench/chat_server.py) and the chat client's
tool conversations (``LLMClient.complete_tools``) over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from edgedsl.recipe.llm import LLMClient, LLMConfig, LLMError
from tests.bench.chat_server import Call, ChatScript, Reply, serve_chat

FAKE_KEY = "sk-fake-7Qz9-never-leaks"
TOOL = {"type": "function", "function": {
    "name": "dart__company", "description": "기업개황",
    "parameters": {"type": "object", "properties": {"corp_code": {"type": "string"}},
                   "required": ["corp_code"]}}}


def _client(url: str, **env: str) -> LLMClient:
    cfg = LLMConfig(base_url=url, model="scripted-model", retries=0, backoff=0.0)
    return LLMClient(cfg, environ=env)


def test_tool_calls_on_the_wire() -> None:
    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": "00126380"}),),
                               usage=(31, 9)),
                         Reply(content="삼성전자", usage=(40, 3))])
    with serve_chat(script) as url:
        client = _client(url, EDGEDSL_LLM_KEY=FAKE_KEY)
        first = asyncio.run(client.complete_tools(
            [{"role": "user", "content": "삼성전자의 대표이사는?"}], [TOOL],
            temperature=0.7, seed=11))
        call = first.message["tool_calls"][0]
        assert first.finish_reason == "tool_calls"
        assert call["function"] == {"name": "dart__company",
                                    "arguments": '{"corp_code":"00126380"}'}
        assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (31, 9)
        second = asyncio.run(client.complete_tools(
            [{"role": "user", "content": "삼성전자의 대표이사는?"}, first.message,
             {"role": "tool", "tool_call_id": call["id"], "content": '{"records": []}'}],
            [TOOL]))
        assert second.message["content"] == "삼성전자"
        assert client.usage.prompt_tokens == 71
    body = script.requests[0]
    assert body["tools"] == [TOOL] and body["tool_choice"] == "auto"
    assert body["temperature"] == 0.7 and body["seed"] == 11
    assert script.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"
    assert "seed" not in script.requests[1]


def test_the_server_refuses_a_bad_conversation() -> None:
    """An unanswered tool call is a 400, as a real endpoint answers; the client says so without
    the key."""
    script = ChatScript([Reply(content="never sent")])
    bad: list[dict[str, Any]] = [{"role": "user", "content": "q"},
           {"role": "assistant", "content": None, "tool_calls": [
               {"id": "c1", "type": "function",
                "function": {"name": "dart__company", "arguments": "{}"}}]},
           {"role": "user", "content": "again"}]
    with serve_chat(script) as url:
        client = _client(url, EDGEDSL_LLM_KEY=FAKE_KEY)
        with pytest.raises(LLMError) as err:
            asyncio.run(client.complete_tools(bad, [TOOL]))
    assert err.value.kind == "refused" and err.value.status == 400
    assert "were not answered" in str(err.value)
    assert FAKE_KEY not in str(err.value)


def test_scripted_errors_and_exhaustion() -> None:
    script = ChatScript([Reply(status=503, content="overloaded")])
    with serve_chat(script) as url:
        client = _client(url)
        with pytest.raises(LLMError) as err:
            asyncio.run(client.complete_tools([{"role": "user", "content": "q"}], [TOOL]))
        assert err.value.kind == "transport" and err.value.status == 503
        with pytest.raises(LLMError) as err:  # the script ran out: 500
            asyncio.run(client.complete_tools([{"role": "user", "content": "q"}], [TOOL]))
        assert err.value.status == 500
        assert httpx.get(f"{url}/models").json()["data"][0]["id"] == "scripted-model"
    assert "authorization" not in script.headers[0]  # no key set: no header


def test_a_turn_made_from_the_request() -> None:
    script = ChatScript([lambda body: Reply(content=None)])
    with serve_chat(script) as url:
        reply = asyncio.run(_client(url).complete_tools(
            [{"role": "user", "content": "q"}], []))
    assert reply.message == {"role": "assistant", "content": None}
    assert "tools" not in script.requests[0]
