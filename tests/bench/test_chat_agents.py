"""The `openai` and `mcp` agents against the scripted OpenAI-compatible server on 127.0.0.1:
the loop, each failure mode's classified end reason, seeds, temperature, tokens, and a fake
key that never leaves the Authorization header."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

import orjson
import pytest

from edgedsl.bench.agents.base import AgentOutcome, TaskView, make_agent
from edgedsl.bench.bundle import Bundle
from edgedsl.bench.gold import fresh_backend
from edgedsl.bench.toolbox import Budgets, ToolBox
from tests.bench.chat_server import Call, ChatScript, Reply, serve_chat

FAKE_KEY = "sk-fake-Zq81-must-not-leak"
SK_HYNIX = "00164779"
AGENTS = ["openai", "mcp"]


def _last_tool(body: dict[str, Any]) -> dict[str, Any]:
    tool = [m for m in body["messages"] if m["role"] == "tool"][-1]
    data: dict[str, Any] = orjson.loads(tool["content"])
    return data


def _answer_from_result(body: dict[str, Any]) -> Reply:
    """The model that reads the tool's result and answers with the company's name."""
    return Reply(content=_last_tool(body)["records"][0]["corp_name"], usage=(50, 4))


def _run(bundle: Bundle, script: ChatScript, agent: str = "openai", *, seed: int = 7,
         task: str = "two_bridges", **options: Any) -> tuple[AgentOutcome, ToolBox]:
    budgets = {k: options.pop(k) for k in ("calls", "seconds", "repeats") if k in options}
    box = ToolBox(bundle.task(task), fresh_backend("world"), Budgets(**budgets), bundle=bundle)
    view = TaskView.of(bundle.task(task), box)
    with serve_chat(script) as url:
        made = make_agent(agent, bundle, base_url=url, model="scripted-model",
                          **{"retries": 0, **options})
        outcome = asyncio.run(made.run(view, box, random.Random(seed)))
    return outcome, box


@pytest.mark.parametrize("agent", AGENTS)
def test_a_correct_episode(small_bundle: Bundle, agent: str) -> None:
    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": SK_HYNIX}),),
                               usage=(30, 8)),
                         _answer_from_result])
    out, box = _run(small_bundle, script, agent, temperature=0.6)
    assert (out.end_reason, out.answered, out.answer) == ("answered", True, "SK하이닉스(주)")
    assert (out.tokens.prompt, out.tokens.completion) == (80, 12)
    assert [(c.tool, c.ok, c.count) for c in box.calls] == [("dart.company", True, 1)]
    first, second = script.requests
    names = sorted(t["function"]["name"] for t in first["tools"])
    assert names == sorted(s["function"]["name"] for s in box.schemas())
    assert first["temperature"] == 0.6 and first["seed"] == second["seed"]
    assert first["seed"] == random.Random(7).randrange(2**31)  # drawn from the rollout's rng
    assert first["messages"][1] == {"role": "user", "content": small_bundle.task(
        "two_bridges").query}
    assert [m["role"] for m in out.messages] == ["system", "user", "assistant", "tool",
                                                 "assistant"]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(("call", "reason"), [
    (Call("dart__company", "{not json"), "malformed_call"),
    (Call("dart__company", "[1, 2]"), "malformed_call"),
    (Call("dart__nope", {"corp_code": SK_HYNIX}), "unknown_tool"),
    (Call("dart__company", {"corp_code": "123"}), "invalid_arguments"),
    (Call("dart__company", {}), "invalid_arguments"),
])
def test_a_mistake_ends_the_episode(small_bundle: Bundle, agent: str, call: Call,
                                    reason: str) -> None:
    script = ChatScript([Reply(calls=(call,)), Reply(content="never asked")])
    out, box = _run(small_bundle, script, agent)
    assert (out.end_reason, out.answered) == (reason, False)
    assert len(script.requests) == 1
    assert [c.error.kind for c in box.calls if c.error] == [reason]  # recorded in the toolbox
    assert out.messages[-1]["role"] == "tool" and reason in out.messages[-1]["content"]


@pytest.mark.parametrize("agent", AGENTS)
def test_tolerated_mistakes_are_fed_back(small_bundle: Bundle, agent: str) -> None:
    def corrected(body: dict[str, Any]) -> Reply:
        assert _last_tool(body)["error"]["kind"] == "invalid_arguments"
        return Reply(calls=(Call("dart__company", {"corp_code": SK_HYNIX}),))

    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": "1"}),)), corrected,
                         _answer_from_result])
    out, box = _run(small_bundle, script, agent, mistakes=1)
    assert (out.end_reason, out.answer) == ("answered", "SK하이닉스(주)")
    assert [c.ok for c in box.calls] == [False, True]


@pytest.mark.parametrize("agent", AGENTS)
def test_an_endless_tool_loop(small_bundle: Bundle, agent: str) -> None:
    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": SK_HYNIX}),))],
                        repeat_last=True)
    out, box = _run(small_bundle, script, agent, repeats=3)
    assert out.end_reason == "loop" and len(box.calls) == 4 and box.stopped == "loop"


@pytest.mark.parametrize("agent", AGENTS)
def test_the_call_budget(small_bundle: Bundle, agent: str) -> None:
    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": SK_HYNIX}),))],
                        repeat_last=True)
    out, box = _run(small_bundle, script, agent, calls=2, repeats=10)
    assert out.end_reason == "call_budget" and [c.ok for c in box.calls] == [True, True, False]


def test_the_time_budget(small_bundle: Bundle) -> None:
    def slow(body: dict[str, Any]) -> Reply:
        time.sleep(1.5)
        return Reply(content="too late")

    out, _ = _run(small_bundle, ChatScript([slow]), seconds=0.5)
    assert out.end_reason == "time_budget" and not out.answered


@pytest.mark.parametrize(("reply", "reason"), [
    (Reply(content=""), "no_answer"),
    (Reply(status=500, content="boom"), "endpoint_error"),
    (Reply(status=404, content="no such model"), "endpoint_error"),
])
def test_other_ends(small_bundle: Bundle, reply: Reply, reason: str) -> None:
    out, _ = _run(small_bundle, ChatScript([reply]))
    assert out.end_reason == reason and not out.answered
    if reply.status != 200:
        assert f"HTTP {reply.status}" in out.detail


@pytest.mark.parametrize("agent", AGENTS)
def test_a_fake_key_never_leaks(small_bundle: Bundle, agent: str,
                                monkeypatch: pytest.MonkeyPatch,
                                caplog: pytest.LogCaptureFixture) -> None:
    """The key goes in the Authorization header and nowhere else: not in the messages, the
    outcome, its detail, the toolbox's records, or a log line — even when the endpoint echoes
    it in an error and in the model's own text."""
    monkeypatch.setenv("EDGEDSL_LLM_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)
    script = ChatScript([
        Reply(content=f"checking with {FAKE_KEY}",
              calls=(Call("dart__company", {"corp_code": SK_HYNIX}),)),
        Reply(status=401, content=f"invalid api key {FAKE_KEY}")])
    out, box = _run(small_bundle, script, agent)
    assert script.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"
    assert out.end_reason == "endpoint_error" and "HTTP 401" in out.detail
    written = out.model_dump_json() + orjson.dumps(
        [c.model_dump(mode="json") for c in box.calls]).decode()
    assert FAKE_KEY not in written and FAKE_KEY not in caplog.text
    assert FAKE_KEY not in repr(make_agent(agent, small_bundle, base_url="http://127.0.0.1:1/v1",
                                           model="m").__dict__)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_key_in_an_argument_is_hidden(small_bundle: Bundle, agent: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that pastes the key into a call's argument: the call ends the episode as
    invalid arguments, and the toolbox's record of it shows the key hidden."""
    monkeypatch.setenv("EDGEDSL_LLM_KEY", FAKE_KEY)
    script = ChatScript([Reply(calls=(Call("dart__company", {"corp_code": FAKE_KEY}),))])
    out, box = _run(small_bundle, script, agent)
    assert out.end_reason == "invalid_arguments" and len(box.calls) == 1
    written = out.model_dump_json() + orjson.dumps(
        [c.model_dump(mode="json") for c in box.calls]).decode()
    assert box.calls[0].arguments and FAKE_KEY not in written


def test_options_are_checked(small_bundle: Bundle) -> None:
    with pytest.raises(ValueError, match="needs --base-url and --model"):
        make_agent("openai", small_bundle)
    with pytest.raises(ValueError, match="unknown chat agent option"):
        make_agent("mcp", small_bundle, base_url="http://127.0.0.1:1/v1", model="m", k=3)
    with pytest.raises(ValueError, match="temperature"):
        make_agent("openai", small_bundle, base_url="http://127.0.0.1:1/v1", model="m",
                   temperature=5.0)


def test_the_settings_as_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a run's meta records of a chat agent: the endpoint without credentials and the
    key's variable name, never the key."""
    from edgedsl.bench.agents.chat import ChatAgentConfig

    monkeypatch.setenv("MY_KEY", FAKE_KEY)
    cfg = ChatAgentConfig.of({"base_url": "http://user:secret@127.0.0.1:8000/v1",
                              "model": "m", "key_env": "MY_KEY", "temperature": 0.3,
                              "seed": None})
    shown = cfg.describe()
    assert shown["base_url"] == "http://127.0.0.1:8000/v1" and shown["key_env"] == "MY_KEY"
    assert (shown["temperature"], shown["seed"], shown["mistakes"]) == (0.3, None, 0)
    assert FAKE_KEY not in repr(shown) and "secret" not in repr(shown)


def _model(body: dict[str, Any]) -> Reply:
    """A model that calls `dart.company` once, then answers from its result."""
    if any(m["role"] == "tool" for m in body["messages"]):
        return _answer_from_result(body)
    return Reply(content=f"key {FAKE_KEY}?",
                 calls=(Call("dart__company", {"corp_code": SK_HYNIX}),))


@pytest.mark.parametrize("agent", AGENTS)
def test_bench_run_on_the_command_line(small_bundle: Bundle, agent: str, tmp_path: Any,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`edgedsl bench run --agent openai|mcp --base-url … --model …`: episodes recorded with
    their end reason, tokens and calls; the run's meta records the endpoint and the key's
    variable; the fake key is in no file and no output."""
    from edgedsl.bench.bundle import save_bundle
    from edgedsl.bench.episode import read_episodes, read_meta
    from edgedsl.cli import main

    monkeypatch.setenv("EDGEDSL_LLM_KEY", FAKE_KEY)
    path = tmp_path / "bundle.json"
    save_bundle(small_bundle, path)
    out = tmp_path / "results"
    script = ChatScript([_model], repeat_last=True)
    with serve_chat(script) as url:
        code = main(["bench", "run", str(path), "--agent", agent, "--base-url", url,
                     "--model", "scripted-model", "--temperature", "0.4", "--k", "2",
                     "--seed", "3", "--task", "two_bridges", "--concurrency", "1",
                     "-o", str(out)])
    assert code == 0
    episodes = list(read_episodes(out))
    assert [(e.end_reason, e.answer) for e in episodes] == [("answered", "SK하이닉스(주)")] * 2
    assert all(e.tokens.prompt == 70 and e.calls[0].tool == "dart.company" for e in episodes)
    seeds = [b["seed"] for b in script.requests]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3]  # one seed per rollout
    assert all(b["temperature"] == 0.4 for b in script.requests)
    meta = read_meta(out)
    assert meta.agent == agent and meta.agent_options["model"] == "scripted-model"
    assert meta.agent_options["key_env"] == "EDGEDSL_LLM_KEY"
    assert all(h["authorization"] == f"Bearer {FAKE_KEY}" for h in script.headers)
    printed = capsys.readouterr()
    for text in [*(p.read_text(encoding="utf-8") for p in out.iterdir()), printed.out,
                 printed.err]:
        assert FAKE_KEY not in text


def test_chat_options_belong_to_chat_agents(small_bundle: Bundle, tmp_path: Any,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from edgedsl.bench.bundle import save_bundle
    from edgedsl.cli import main

    path = tmp_path / "bundle.json"
    save_bundle(small_bundle, path)
    code = main(["bench", "run", str(path), "--agent", "oracle", "--model", "m",
                 "-o", str(tmp_path / "r")])
    assert code == 2 and "--model: only the openai and mcp agents" in capsys.readouterr().err
    code = main(["bench", "run", str(path), "--agent", "openai", "-o", str(tmp_path / "r")])
    assert code == 2 and "needs --base-url and --model" in capsys.readouterr().err


@pytest.mark.parametrize("agent", AGENTS)
def test_replies_some_servers_send(small_bundle: Bundle, agent: str) -> None:
    """Arguments sent as a JSON object instead of JSON text are taken; a call without a name
    is malformed; tool calls that are not objects with a function are the endpoint's error."""
    as_object = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "dart__company", "arguments": {"corp_code": SK_HYNIX}}}]}
    out, box = _run(small_bundle, ChatScript([Reply(message=as_object), _answer_from_result]),
                    agent)
    assert (out.end_reason, out.answer) == ("answered", "SK하이닉스(주)") and box.calls[0].ok
    out, box = _run(small_bundle, ChatScript([Reply(calls=(Call("", {}),))]), agent)
    assert out.end_reason == "malformed_call" and box.calls == []
    broken = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]}
    out, _ = _run(small_bundle, ChatScript([Reply(message=broken)]), agent)
    assert out.end_reason == "endpoint_error" and "no function object" in out.detail


def test_the_mcp_executor_on_a_server_that_answers_protocol_errors() -> None:
    """A server that answers a call by a JSON-RPC error (as the MCP specification allows for a
    tool it cannot find): unknown_tool for a name it did not list, tool_failure otherwise; an
    isError result without an edgedsl error kind is a tool_failure."""
    import anyio
    from mcp import Client, MCPError, types
    from mcp.server.lowlevel import Server

    from edgedsl.bench.agents.mcp import McpExecutor

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name="broken", input_schema={"type": "object"}),
            types.Tool(name="plain_error", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "plain_error":
            return types.CallToolResult(content=[types.TextContent(text="it failed")],
                                        is_error=True)
        raise MCPError(code=-32602, message=f"cannot call {params.name}")

    server = Server("third-party", on_list_tools=list_tools, on_call_tool=call_tool)

    async def calls() -> list[Any]:
        async with Client(server, mode="legacy") as client:
            ex = McpExecutor(client, {"broken", "plain_error"})
            return [await ex.call(n, "{}") for n in ("nope", "broken", "plain_error")] + [
                await ex.call("broken", "{oops")]

    unknown, broken, plain, malformed = anyio.run(calls)
    assert (unknown.kind, broken.kind, plain.kind) == ("unknown_tool", "tool_failure",
                                                       "tool_failure")
    assert "cannot call nope" in unknown.detail and plain.content == "it failed"
    assert malformed.kind == "malformed_call" and "not JSON" in malformed.detail
    assert all(e.stop is None for e in (unknown, broken, plain, malformed))
