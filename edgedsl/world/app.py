"""The world as an ASGI application (served by ``edgedsl world serve``, or called in process
through httpx's ASGI transport by the ``world`` backend).

Query parameters and form / JSON bodies are merged into one parameter mapping (the last value of
a repeated parameter wins, as the services do); the path is matched by the engine. Latency from
the fault plan is an ``asyncio.sleep`` before the answer, so concurrent calls overlap as they
would against a real server. It is the call's latency, the world's own work included: the answer
leaves ``latency`` seconds after the request arrived (or as soon as it is computed, if that took
longer), as a remote server's answer arrives after its response time, which holds its work. The
world runs in the client's process and thread when called in process, so its work would
otherwise be paid twice: once as the injected latency, once on the client's clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

import orjson

from .engine import World

__all__ = ["make_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            break
        chunks.append(msg.get("body", b""))
        if not msg.get("more_body"):
            break
    return b"".join(chunks)


def _params(scope: Scope, body: bytes, content_type: str) -> dict[str, str]:
    qs = scope.get("query_string", b"").decode("utf-8", "replace")
    params = dict(parse_qsl(qs, keep_blank_values=True))
    if body:
        if "json" in content_type:
            try:
                obj = orjson.loads(body)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                params.update({str(k): "" if v is None else str(v) for k, v in obj.items()})
        else:
            params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    return params


def make_app(world: World) -> ASGIApp:
    """An ASGI 3 application answering every request from ``world``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        body = await _body(receive)
        params = _params(scope, body, headers.get("content-type", ""))
        started = time.perf_counter()
        resp, delay = world.respond(scope["method"], scope["path"], params, headers)
        delay -= time.perf_counter() - started  # the world's work is part of the latency
        if delay > 0:
            await asyncio.sleep(delay)
        out_headers = [(b"content-type", resp.content_type.encode()),
                       (b"content-length", str(len(resp.body)).encode())]
        out_headers += [(k.lower().encode(), v.encode()) for k, v in resp.headers]
        await send({"type": "http.response.start", "status": resp.status,
                    "headers": out_headers})
        await send({"type": "http.response.body", "body": resp.body})

    return app
