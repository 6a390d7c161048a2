"""``--agent mcp`` attached to an external MCP server: ``edgedsl mcp serve`` started by the test
as a subprocess, on 127.0.0.1 over streamable HTTP (``--mcp-url``) and over stdio
(``--mcp-command``); the model is the scripted OpenAI-compatible server."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.bench.agents.base import make_agent
from edgedsl.bench.bundle import Bundle
from edgedsl.bench.episode import read_episodes, read_meta
from edgedsl.bench.runner import run_bench
from edgedsl.cli import main
from tests.bench.chat_server import Call, ChatScript, Reply, serve_chat

pytest.importorskip("mcp")

SK_HYNIX = "00164779"
SERVE = [sys.executable, "-m", "edgedsl", "mcp", "serve", "--platform", "dart"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    """``edgedsl mcp serve --platform dart --transport http`` on a free loopback port."""
    port = _free_port()
    proc = subprocess.Popen([*SERVE, "--transport", "http", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"`edgedsl mcp serve` exited with {proc.returncode}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "`edgedsl mcp serve` did not listen"
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _model(body: dict[str, Any]) -> Reply:
    """Calls `dart.company` once, then answers with the company's name from its result."""
    tools = [m for m in body["messages"] if m["role"] == "tool"]
    if not tools:
        return Reply(calls=(Call("dart__company", {"corp_code": SK_HYNIX}),))
    return Reply(content=orjson.loads(tools[-1]["content"])["records"][0]["corp_name"])


def test_an_episode_through_an_external_server_over_http(small_bundle: Bundle, mcp_url: str,
                                                         tmp_path: Path) -> None:
    script = ChatScript([_model, _model])
    with serve_chat(script) as url:
        agent = make_agent("mcp", small_bundle, base_url=url, model="m", retries=0,
                           mcp_url=mcp_url)
        run_bench(small_bundle, agent, out=tmp_path, tasks=["two_bridges"])
    (ep,) = read_episodes(tmp_path)
    assert (ep.end_reason, ep.answer) == ("answered", "SK하이닉스(주)")
    (call,) = ep.calls  # checked and recorded here, executed by the server
    assert (call.tool, call.ok, call.count, call.records[0]["corp_code"]) == \
        ("dart.company", True, 1, SK_HYNIX)
    assert ep.state is None  # the server's state is not observed
    # the model saw the tools the server lists that the task exposes, no others
    shown = sorted(t["function"]["name"] for t in script.requests[0]["tools"])
    exposed = sorted(q.replace(".", "__") for q in small_bundle.task("two_bridges").tools)
    assert shown == [n for n in exposed if n.startswith("dart__")]


@pytest.mark.slow
def test_an_episode_through_a_stdio_server_on_the_command_line(
        small_bundle: Bundle, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(small_bundle.model_dump_json(), encoding="utf-8")
    with serve_chat(ChatScript([_model, _model])) as url:
        code = main(["bench", "run", str(bundle), "--agent", "mcp", "--base-url", url,
                     "--model", "m", "--task", "two_bridges", "-q",
                     "--mcp-command", shlex.join(SERVE), "-o", str(tmp_path / "r")])
    assert code == 0, capsys.readouterr().err
    (ep,) = read_episodes(tmp_path / "r")
    assert ep.end_reason == "answered" and [c.tool for c in ep.calls] == ["dart.company"]
    assert read_meta(tmp_path / "r").agent_options["mcp_command"] == shlex.join(SERVE)


def test_external_server_options_are_checked(small_bundle: Bundle, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="one of --mcp-url and --mcp-command"):
        make_agent("mcp", small_bundle, base_url="http://127.0.0.1:1/v1", model="m",
                   mcp_url="http://127.0.0.1:2/mcp", mcp_command="x")
    with pytest.raises(ValueError, match="http"):
        make_agent("mcp", small_bundle, base_url="http://127.0.0.1:1/v1", model="m",
                   mcp_url="127.0.0.1:2")
    bundle = tmp_path / "bundle.json"
    bundle.write_text(small_bundle.model_dump_json(), encoding="utf-8")
    assert main(["bench", "run", str(bundle), "--agent", "oracle", "--mcp-url",
                 "http://127.0.0.1:2/mcp", "-o", str(tmp_path / "r")]) == 2
    assert "only the mcp agent" in capsys.readouterr().err
