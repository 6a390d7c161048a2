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

Requests are bounded by the world's :class:`~edgedsl.world.limits.Limits`, checked before the
world sees them: a URL longer than ``url_bytes`` is answered 414, a declared ``Content-Length``
above ``body_bytes`` 413 without reading the body, a body read a chunk at a time 413 as soon as
it would pass ``body_bytes`` (what was read is dropped, the rest never read), more than
``params`` parameters 400 — each in the family's error envelope, with ``Connection: close``. A
client that disconnects before its body is complete is not answered, and nothing it sent is
acted on (a write never runs on half a form).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

import orjson

from .decl import WireResponse
from .engine import World
from .limits import Limits

__all__ = ["lifespan", "make_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _Refused(Exception):
    """A request refused for its size: ``status`` and the limit broken."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class _Gone(Exception):
    """The client disconnected before its request was complete."""


async def _body(receive: Receive, limit: int) -> bytes:
    """The request body, read a chunk at a time; :class:`_Refused` (413) as soon as it would
    pass ``limit`` bytes — the chunks read are dropped and no further chunk is asked for."""
    chunks: list[bytes] = []
    size = 0
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            raise _Gone
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > limit:
            chunks.clear()
            raise _Refused(413, f"a request body of more than {limit:,} bytes")
        if chunk:
            chunks.append(chunk)
        if not msg.get("more_body"):
            return b"".join(chunks)


def _declared_length(headers: dict[str, str]) -> int | None:
    """The ``Content-Length`` a request declares (None: none, or not a number)."""
    raw = headers.get("content-length", "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() else None


def _fields(text: str, room: int, where: str) -> list[tuple[str, str]]:
    """``text`` (a query or form) parsed; :class:`_Refused` (400) past ``room`` fields
    (counted by their separators before anything is parsed)."""
    try:
        return parse_qsl(text, keep_blank_values=True, max_num_fields=room)
    except ValueError:
        raise _Refused(400, f"more than {room} parameters in the {where}") from None


def _query(scope: Scope, limits: Limits) -> dict[str, str]:
    """The query's parameters; :class:`_Refused` for a URL over ``limits.url_bytes`` (414) or
    more than ``limits.params`` parameters (400)."""
    raw = scope.get("query_string", b"")
    path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    if len(path) + len(raw) > limits.url_bytes:
        raise _Refused(414, f"a URL of more than {limits.url_bytes:,} bytes")
    return dict(_fields(raw.decode("utf-8", "replace"), limits.params, "query"))


def _glimpse(scope: Scope, limits: Limits) -> dict[str, str]:
    """The parameters of the query's first ``url_bytes`` bytes, at most ``params`` of them: what
    a refusal of a query too long or with too many parameters reads to route the request and
    find the format it asks for (bounded work, whatever the query's length)."""
    raw = scope.get("query_string", b"")[:limits.url_bytes].decode("utf-8", "replace")
    return dict(parse_qsl(raw, keep_blank_values=True)[:limits.params])


def _params(query: dict[str, str], body: bytes, content_type: str,
            room: int) -> dict[str, str]:
    """The query's and the body's parameters merged (the body's last); :class:`_Refused`
    (400) past ``room`` body parameters."""
    params = dict(query)
    if body:
        if "json" in content_type:
            try:
                obj = orjson.loads(body)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                if len(obj) > room:
                    raise _Refused(400, f"more than {room} parameters in the body")
                params.update({str(k): "" if v is None else str(v) for k, v in obj.items()})
        else:
            params.update(_fields(body.decode("utf-8", "replace"), room, "body"))
    return params


async def lifespan(receive: Receive, send: Send) -> None:
    """Answer an ASGI server's lifespan messages (startup, shutdown) until shutdown: the whole
    lifespan of an application that holds nothing to open or close."""
    while True:
        msg = await receive()
        if msg["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif msg["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def make_app(world: World) -> ASGIApp:
    """An ASGI 3 application answering every request from ``world``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        limits = world.limits
        query: dict[str, str] | None = None
        try:
            query = _query(scope, limits)
            declared = _declared_length(headers)
            if declared is not None and declared > limits.body_bytes:
                raise _Refused(413, f"a request body of more than {limits.body_bytes:,} bytes")
            body = await _body(receive, limits.body_bytes)
            params = _params(query, body, headers.get("content-type", ""),
                             limits.params - len(query))
        except _Gone:
            return
        except _Refused as r:
            if query is None:
                query = _glimpse(scope, limits)
            resp = world.refuse(scope["method"], scope["path"], query, r.status, r.detail)
            await _send(send, resp)
            return
        started = time.perf_counter()
        resp, delay = world.respond(scope["method"], scope["path"], params, headers)
        delay -= time.perf_counter() - started  # the world's work is part of the latency
        if delay > 0:
            await asyncio.sleep(delay)
        await _send(send, resp)

    return app


async def _send(send: Send, resp: WireResponse) -> None:
    """Send one whole answer."""
    out_headers = [(b"content-type", resp.content_type.encode()),
                   (b"content-length", str(len(resp.body)).encode())]
    out_headers += [(k.lower().encode(), v.encode()) for k, v in resp.headers]
    await send({"type": "http.response.start", "status": resp.status, "headers": out_headers})
    await send({"type": "http.response.body", "body": resp.body})
