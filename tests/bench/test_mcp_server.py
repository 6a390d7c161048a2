"""`edgedsl mcp serve`: the SDK's own client connects over stdio (the CLI as a subprocess) and
over streamable HTTP on 127.0.0.1, lists the tools and calls one on the world."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client, StdioServerParameters

from edgedsl.bench.mcp_server import (
    CatalogTools,
    McpServeError,
    catalog_specs,
    http_app,
    load_platform_catalog,
    make_server,
)
from edgedsl.bench.toolbox import Budgets
from edgedsl.runtime.http import make_world_backend
from tests.loopback import free_port, serve_asgi

SK_HYNIX = "00164779"


async def _session(target: Any) -> dict[str, Any]:
    """List the tools and make three calls: a good one, an unknown tool, bad arguments."""
    async with Client(target) as client:
        listing = await client.list_tools()
        good = await client.call_tool("dart__company", {"corp_code": SK_HYNIX})
        unknown = await client.call_tool("dart__nope", {})
        invalid = await client.call_tool("dart__company", {"corp_code": "123"})
    return {"tools": {t.name: t for t in listing.tools}, "good": good, "unknown": unknown,
            "invalid": invalid}


def _check(out: dict[str, Any]) -> None:
    tools = out["tools"]
    assert "dart__company" in tools and "fsc__fs_summary" not in tools
    company = tools["dart__company"]
    assert company.description  # the tool's doc
    prop = company.input_schema["properties"]["corp_code"]
    assert prop["type"] == "string" and "고유번호" in prop["description"]  # the Korean label
    assert company.input_schema["required"] == ["corp_code"]
    good = out["good"]
    assert not good.is_error
    assert good.structured_content["records"][0]["corp_name"] == "SK하이닉스(주)"
    assert orjson.loads(good.content[0].text) == good.structured_content
    for key, kind in (("unknown", "unknown_tool"), ("invalid", "invalid_arguments")):
        res = out[key]
        assert res.is_error and res.structured_content["error"]["kind"] == kind


@pytest.mark.slow
def test_stdio_through_the_cli() -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "edgedsl", "mcp", "serve", "--platform", "dart", "--transport", "stdio"])
    _check(anyio.run(_session, params))


def test_streamable_http_in_process() -> None:
    specs = catalog_specs(["dart"], load_platform_catalog())
    server = make_server(CatalogTools(specs, make_world_backend(seed=0), Budgets()))
    with serve_asgi(http_app(server)) as url:
        _check(anyio.run(_session, f"{url}/mcp"))


@pytest.mark.slow
def test_streamable_http_through_the_cli() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "edgedsl", "mcp", "serve", "--platform", "dart",
         "--platform", "fsc", "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read() if proc.stderr else b""
                    raise RuntimeError(f"the server did not start: {err!r}") from None
                time.sleep(0.1)
        out = anyio.run(_session, f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "fsc__fs_summary" in out["tools"]
    fs = out["tools"]["fsc__fs_summary"].input_schema["properties"]
    assert fs["page"]["type"] == "integer"  # a paged tool takes `page`
    out["tools"].pop("fsc__fs_summary")
    out["tools"] = {k: v for k, v in out["tools"].items() if k.startswith("dart__")}
    _check(out)


def test_an_unknown_platform_is_a_usage_error() -> None:
    with pytest.raises(McpServeError, match="no platform `nope`"):
        catalog_specs(["nope"], load_platform_catalog())
    proc = subprocess.run([sys.executable, "-m", "edgedsl", "mcp", "serve", "--platform", "nope"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "no platform `nope`" in proc.stderr
