"""A fake OpenAI-compatible chat endpoint for tests: a raw ASGI app served by uvicorn on 127.0.0.1.

:class:`FakeLLM` answers ``POST /v1/chat/completions`` with scripted replies — a queue of
:class:`Reply` (valid JSON, fenced JSON, malformed JSON, schema-invalid JSON, any HTTP status
with an optional ``Retry-After``) or, when the queue is empty, a handler computing the reply from
the request — and records every request it receives (headers and JSON body). It also counts the
requests in flight and can hold the first requests until ``hold_until`` of them are in flight
(a rendezvous that makes a concurrency cap observable without timing guesses; once it happened,
every request passes).

:func:`serve` runs an app with uvicorn on a free loopback port in a background thread and yields
the base URL (``http://127.0.0.1:PORT/v1``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from edgedsl.world.app import lifespan
from tests.loopback import free_port, read_body, respond, serve_asgi

PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a chat reply with ``content`` (status 200), or another ``status``
    with a raw ``body``; ``headers`` are added, ``delay`` seconds waited before answering."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0


def ok(content: str | dict[str, Any], **kw: Any) -> Reply:
    """A 200 chat completion whose message content is ``content`` (a dict is JSON-encoded)."""
    text = content if isinstance(content, str) else orjson.dumps(content).decode()
    return Reply(content=text, **kw)


def fail(status: int, body: str = "", retry_after: str | None = None) -> Reply:
    """An HTTP error reply."""
    headers = (("retry-after", retry_after),) if retry_after is not None else ()
    return Reply(status=status, body=(body or f"error {status}").encode(), headers=headers)


@dataclass(frozen=True)
class Seen:
    """A request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages of the request."""
        return list(self.body.get("messages", []))

    @property
    def prompt(self) -> str:
        """Every message's content, joined."""
        return "\n".join(m.get("content", "") for m in self.messages)


@dataclass
class FakeLLM:
    """The fake endpoint (an ASGI callable); thread-safe, since uvicorn runs in another thread."""

    handler: Callable[[Seen], Reply] | None = None
    hold_until: int | None = None
    requests: list[Seen] = field(default_factory=list)
    max_in_flight: int = 0
    _script: deque[Reply] = field(default_factory=deque)
    _in_flight: int = 0
    _released: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order before the handler is asked."""
        with self._lock:
            self._script.extend(replies)

    def reset(self) -> None:
        """Forget the script, the handler, the hold and the recorded requests."""
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.handler = None
            self.hold_until = None
            self._released = False
            self.max_in_flight = 0

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            if self._script:
                return self._script.popleft()
            handler = self.handler
        if handler is None:
            return fail(418, "fake LLM: no scripted reply left")
        return handler(seen)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        raw = await read_body(receive)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope["headers"]}
        if scope["method"] != "POST" or scope["path"] != PATH:
            await respond(send, 404, b'{"error": {"message": "not found"}}', ())
            return
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            await respond(send, 400, b'{"error": {"message": "body is not JSON"}}', ())
            return
        seen = Seen(scope["method"], scope["path"], headers, body)
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            reply = self._next(seen)
            if self.hold_until is not None and not self._released:
                deadline = time.monotonic() + 2.0
                while (not self._released and self._in_flight < self.hold_until
                       and time.monotonic() < deadline):
                    await asyncio.sleep(0.002)
                self._released = True  # the rendezvous happened (or timed out): let all pass
            if reply.delay:
                await asyncio.sleep(reply.delay)
        finally:
            with self._lock:
                self._in_flight -= 1
        if reply.status == 200 and reply.body is None:
            out = orjson.dumps({
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": len(raw) // 4,
                          "completion_tokens": len(reply.content or "") // 4},
            })
        else:
            out = reply.body or b""
        await respond(send, reply.status, out, reply.headers)


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of 127.0.0.1; yields the ``/v1`` base URL."""
    with serve_asgi(app) as url:
        yield f"{url}/v1"


def free_port_url() -> str:
    """A loopback URL where nothing listens (a port bound and released)."""
    return f"http://127.0.0.1:{free_port()}/v1"
